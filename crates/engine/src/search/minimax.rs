//! Plain minimax (in negamax form) to a fixed depth: the reference the faster searches must equal.
//! A pass consumes a ply; ties at the root go to the smallest square index.

use super::{Scoring, SearchResult, root_without_choice};
use othello_core::board::Board;

pub fn minimax(board: Board, depth: u32, scoring: Scoring) -> SearchResult {
    if let Some(result) = root_without_choice(board, depth, scoring, |child, depth, nodes| {
        value(child, depth, scoring, nodes)
    }) {
        return result;
    }
    let mut nodes = 1;
    let moves = board.moves();
    let mut best = None;
    let mut best_value = i32::MIN;
    for square in moves {
        let value = -value(board.play(square), depth - 1, scoring, &mut nodes);
        if value > best_value {
            best_value = value;
            best = Some(square);
        }
    }
    SearchResult {
        best,
        value: best_value,
        nodes,
    }
}

fn value(board: Board, depth: u32, scoring: Scoring, nodes: &mut u64) -> i32 {
    *nodes += 1;
    if depth == 0 {
        return scoring.leaf(board);
    }
    let moves = board.moves();
    if moves.is_empty() {
        return if board.opponent_moves().is_empty() {
            scoring.terminal(board)
        } else {
            -value(board.pass(), depth - 1, scoring, nodes)
        };
    }
    moves
        .squares()
        .map(|square| -value(board.play(square), depth - 1, scoring, nodes))
        .max()
        .unwrap_or(i32::MIN)
}

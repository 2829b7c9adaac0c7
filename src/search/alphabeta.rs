//! Alpha-beta (fail-soft negamax) to a fixed depth. It returns exactly minimax's move and value:
//! the root visits moves in ascending order and only a strictly better value replaces the best, so
//! ties still go to the smallest index.

use super::{Scoring, SearchResult};
use crate::board::Board;

/// Bounds wider than any value a search can return.
const INFINITY: i32 = i32::MAX;

pub fn alphabeta(board: Board, depth: u32, scoring: Scoring) -> SearchResult {
    let mut nodes = 1;
    let moves = board.moves();
    if depth == 0 || moves.is_empty() {
        let value = if depth == 0 || board.opponent_moves().is_empty() {
            scoring.leaf(board)
        } else {
            -search(board.pass(), depth - 1, -INFINITY, INFINITY, scoring, &mut nodes)
        };
        return SearchResult {
            best: None,
            value,
            nodes,
        };
    }
    let mut best = None;
    let mut best_value = -INFINITY;
    for square in moves {
        // A move must beat the best so far to replace it, so it is searched with alpha = best.
        let value = -search(
            board.play(square),
            depth - 1,
            -INFINITY,
            -best_value,
            scoring,
            &mut nodes,
        );
        if value > best_value || best.is_none() {
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

fn search(board: Board, depth: u32, mut alpha: i32, beta: i32, scoring: Scoring, nodes: &mut u64) -> i32 {
    *nodes += 1;
    if depth == 0 {
        return scoring.leaf(board);
    }
    let moves = board.moves();
    if moves.is_empty() {
        return if board.opponent_moves().is_empty() {
            scoring.terminal(board)
        } else {
            -search(board.pass(), depth - 1, -beta, -alpha, scoring, nodes)
        };
    }
    let mut best = -INFINITY;
    for square in moves {
        let value = -search(board.play(square), depth - 1, -beta, -alpha, scoring, nodes);
        if value > best {
            best = value;
            if value > alpha {
                alpha = value;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}

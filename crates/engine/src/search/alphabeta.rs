//! Alpha-beta (fail-soft negamax) to a fixed depth. It returns exactly minimax's move and value,
//! ties going to the smallest index: the order of the search may differ, the answer may not.

use super::{Scoring, SearchResult, root_without_choice};
use othello_core::bitboard::Bitboard;
use othello_core::board::Board;
use othello_core::square::Square;

/// Bounds wider than any value a search can return.
const INFINITY: i32 = i32::MAX;

/// From this many plies left, children are searched best-looking first (their evaluation); below
/// it sorting costs more than the cut-offs it buys.
const ORDERING_DEPTH: u32 = 3;

pub fn alphabeta(board: Board, depth: u32, scoring: Scoring) -> SearchResult {
    let after_pass = |child, depth, nodes: &mut u64| search(child, depth, -INFINITY, INFINITY, scoring, nodes);
    if let Some(result) = root_without_choice(board, depth, scoring, after_pass) {
        return result;
    }
    let mut nodes = 1;
    let moves = board.moves();
    let mut best: Option<Square> = None;
    let mut best_value = -INFINITY;
    for (square, child) in ordered_children(board, moves, depth, scoring) {
        // To replace the best, a move must beat it, or equal it with a smaller index: for those the
        // window starts one lower so that an equal value comes back exact.
        let floor = match best {
            Some(best_square) if square < best_square => best_value - 1,
            _ => best_value,
        };
        let value = -search(child, depth - 1, -INFINITY, -floor, scoring, &mut nodes);
        if best.is_none() || value > best_value || (value == best_value && Some(square) < best) {
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

/// The children of `board`, best-looking first when enough depth is left to repay the sorting.
fn ordered_children(board: Board, moves: Bitboard, depth: u32, scoring: Scoring) -> Vec<(Square, Board)> {
    let mut children: Vec<(Square, Board)> = moves.squares().map(|square| (square, board.play(square))).collect();
    if depth >= ORDERING_DEPTH {
        // The child is seen from the opponent: its smallest value is the mover's best.
        children.sort_by_cached_key(|&(_, child)| crate::eval::evaluate(scoring.eval, child));
    }
    children
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
    if depth >= ORDERING_DEPTH {
        for (_, child) in ordered_children(board, moves, depth, scoring) {
            let value = -search(child, depth - 1, -beta, -alpha, scoring, nodes);
            if value > best {
                best = value;
                alpha = alpha.max(value);
                if alpha >= beta {
                    break;
                }
            }
        }
        return best;
    }
    for square in moves {
        let value = -search(board.play(square), depth - 1, -beta, -alpha, scoring, nodes);
        if value > best {
            best = value;
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
    }
    best
}

//! Lab 5's exact negamax: the guaranteed difference between the side's tokens and the opponent's at
//! the end of the game (empty squares count for nobody, as the course counts tokens), with an optimal
//! line for both sides.
//!
//! It is the fixed-depth alpha-beta on disc difference (seed 004's scoring) with a depth no game can
//! outlast: every ply fills a square or is a pass, and two passes in a row end the game.

use crate::board::Board;
use crate::eval::Eval;
use crate::search::alphabeta::alphabeta;
use crate::search::{Scoring, SearchResult};
use crate::square::Square;

fn to_the_end(board: Board) -> SearchResult {
    alphabeta(board, 2 * board.empty_count() + 1, Scoring::lookahead(Eval::Discs))
}

/// The exact value of `board` for its side to move.
pub fn value(board: Board) -> i32 {
    to_the_end(board).value
}

/// The exact value of `board` for its side to move and an optimal line in play order (`None` for a
/// pass); among equal moves the smallest index is taken, so the line is reproducible.
pub fn solve(board: Board) -> (i32, Vec<Option<Square>>) {
    let score = value(board);
    let mut line = Vec::new();
    let mut current = board;
    while !current.is_game_over() {
        match to_the_end(current).best {
            Some(square) => {
                line.push(Some(square));
                current = current.play(square);
            }
            None => {
                line.push(None);
                current = current.pass();
            }
        }
    }
    (score, line)
}

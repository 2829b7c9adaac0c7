//! Lab 5's exact negamax: the guaranteed difference between the side's tokens and the opponent's at
//! the end of the game (empty squares count for nobody, as the course counts tokens), with an optimal
//! line for both sides.
//!
//! The endgame solver answers it, counting discs only; the line takes the lowest-index optimal move
//! at every ply, as the fixed-depth alpha-beta this replaced did (the tests keep that one as the
//! reference), so that transcripts stay byte for byte the same.

use othello_core::board::Board;
use othello_core::square::Square;
use othello_engine::search::endgame::{Counting, Solution, Solver};

/// 2^20 entries (24 MB, mapped lazily): ample for the positions a lab asks about.
const TABLE_BITS: u32 = 20;

fn solver() -> Solver {
    Solver::with_counting(TABLE_BITS, Counting::DiscsOnly)
}

fn solved(solver: &mut Solver, board: Board) -> Solution {
    solver
        .solve_lowest_line(board)
        .expect("a solver without a deadline or node limit finishes")
}

/// The exact value of `board` for its side to move.
pub fn value(board: Board) -> i32 {
    Values::new().value(board)
}

/// The exact value of `board` for its side to move and an optimal line in play order (`None` for a
/// pass); among equal moves the smallest index is taken, so the line is reproducible.
pub fn solve(board: Board) -> (i32, Vec<Option<Square>>) {
    let solution = solved(&mut solver(), board);
    (solution.score, solution.pv)
}

/// `solve`, unless it takes more than `nodes` nodes (the same nodes on every machine).
pub(crate) fn solve_within(board: Board, nodes: u64) -> Option<(i32, Vec<Option<Square>>)> {
    let mut solver = solver();
    solver.set_node_limit(Some(nodes));
    let solution = solver.solve_lowest_line(board).ok()?;
    Some((solution.score, solution.pv))
}

/// Exact values of related positions (a position and its children) with one solver, whose table
/// carries over from one to the next.
pub struct Values {
    solver: Solver,
}

impl Default for Values {
    fn default() -> Values {
        Values::new()
    }
}

impl Values {
    pub fn new() -> Values {
        Values { solver: solver() }
    }

    /// The exact value of `board` for its side to move.
    pub fn value(&mut self, board: Board) -> i32 {
        match self.solver.solve(board) {
            Ok(solution) => solution.score,
            Err(_) => unreachable!("a solver without a deadline or node limit finishes"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::rng::SeededRng;
    use othello_engine::eval::Eval;
    use othello_engine::search::Scoring;
    use othello_engine::search::alphabeta::alphabeta;

    /// The definition: alpha-beta on disc difference to a depth no game outlasts, ties to the
    /// smallest index.
    fn reference_value(board: Board) -> (i32, Option<Square>) {
        let result = alphabeta(board, 2 * board.empty_count() + 1, Scoring::lookahead(Eval::Discs));
        (result.value, result.best)
    }

    fn reference_line(board: Board) -> Vec<Option<Square>> {
        let mut line = Vec::new();
        let mut current = board;
        while !current.is_game_over() {
            match reference_value(current).1 {
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
        line
    }

    /// Random positions with 4 to 11 empties, some ending early, some with passes.
    fn positions() -> Vec<Board> {
        let mut rng = SeededRng::new(20_261_122);
        let mut boards = Vec::new();
        while boards.len() < 300 {
            let mut board = Board::START;
            let stop = 4 + rng.below(8) as u32;
            while !board.is_game_over() && board.empty_count() > stop {
                board = if board.moves().is_empty() {
                    board.pass()
                } else {
                    board.play(rng.pick_square(board.moves()))
                };
            }
            boards.push(board);
        }
        boards
    }

    #[test]
    fn the_solver_counting_discs_only_agrees_with_the_definition() {
        let mut values = Values::new();
        for board in positions() {
            let (expected, _) = reference_value(board);
            assert_eq!(value(board), expected, "{board:?}");
            assert_eq!(values.value(board), expected, "{board:?}");
            let (score, line) = solve(board);
            assert_eq!(score, expected, "{board:?}");
            assert_eq!(line, reference_line(board), "{board:?}");
        }
    }
}

//! Searches over the rules core, and what they share. A map:
//!
//! | file | what it holds |
//! |---|---|
//! | `perft.rs` | counting the games of a depth: the move generator's test bench |
//! | `minimax.rs`, `alphabeta.rs` | the course's fixed-depth searches, with the leaf `Scoring` below |
//! | `engine.rs` | the `engine` player: iterative deepening, PVS, ProbCut, the solver near the end |
//! | `probcut.rs` | Multi-ProbCut's fitted margins: when a shallow search predicts a deep one |
//! | `endgame/` | the exact solver: MTD(f) root and driver (`mod.rs`), the last empties (`small.rs`), counting the last flips (`last_flips.rs`) |
//! | `table.rs` | the transposition table both searches share |
//! | `ordering.rs` | move ordering keys both searches share |
//! | `limits.rs` | deadlines, node budgets and stop requests, checked the same way by both |
//! | `time.rs` | how long a move may take: a fixed time, or its share of a game clock |
//! | `threads.rs` | searching on several threads: which positions are being searched (ABDADA) |
//! | `book.rs` | the opening book: its file and what the engine reads in it (built by `training::book`) |
//! | `analysis.rs` | every move's value, a whole game's values: what `analyze` prints |
//!
//! `best_child` below is the principal variation search's loop, the same in both searches.

pub mod alphabeta;
pub mod analysis;
pub mod book;
pub mod endgame;
pub mod engine;
mod limits;
pub mod minimax;
mod ordering;
pub mod perft;
pub mod probcut;
mod table;
pub mod threads;
pub mod time;

use crate::eval::Eval;
use othello_core::board::Board;
use othello_core::square::Square;

/// Base value of a won game: beyond any heuristic value, so that every win beats every unfinished
/// position and every loss is worse than any (the margin is added).
pub(crate) const WIN: i32 = 1_000_000;

/// How a finished game is valued.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Terminal {
    /// A win is worth `WIN` plus the disc margin, a loss `-WIN` minus it (Norvig's final_value,
    /// with the margin kept so that a bigger win is preferred).
    WinLoss,
    /// A finished game is worth its disc difference like any leaf (seed 004's boardScore).
    DiscDifference,
}

/// What a search puts at its leaves: an evaluation for unfinished positions and a rule for finished ones.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Scoring {
    pub eval: Eval,
    pub terminal: Terminal,
}

impl Scoring {
    /// Norvig's strategies: an evaluation, and wins beyond any evaluation.
    pub const fn strategy(eval: Eval) -> Scoring {
        Scoring {
            eval,
            terminal: Terminal::WinLoss,
        }
    }

    /// Seed 004's look-ahead: the evaluation everywhere, finished games included.
    pub const fn lookahead(eval: Eval) -> Scoring {
        Scoring {
            eval,
            terminal: Terminal::DiscDifference,
        }
    }

    /// The value of a finished game for its side to move.
    #[inline]
    pub fn terminal(self, board: Board) -> i32 {
        let difference = board.disc_difference();
        match self.terminal {
            Terminal::DiscDifference => crate::eval::evaluate(self.eval, board),
            Terminal::WinLoss if difference > 0 => WIN + difference,
            Terminal::WinLoss if difference < 0 => -WIN + difference,
            Terminal::WinLoss => 0,
        }
    }

    /// What a search's `value` at a root says, searched `depth` plies: a proven win or loss beyond
    /// any evaluation, or a score in the evaluation's units.
    pub fn value(self, value: i32, depth: u32) -> othello_core::value::Value {
        use othello_core::value::Value;
        if self.terminal == Terminal::WinLoss && value.abs() >= WIN / 2 {
            return Value::Proven {
                margin: value - value.signum() * WIN,
                depth,
            };
        }
        Value::Score {
            score: value,
            eval: self.eval,
            depth: Some(depth),
        }
    }

    /// The value of a position where the search stops: finished games by the terminal rule.
    #[inline]
    pub fn leaf(self, board: Board) -> i32 {
        if board.is_game_over() {
            self.terminal(board)
        } else {
            crate::eval::evaluate(self.eval, board)
        }
    }
}

/// The outcome of a fixed-depth search from a root position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SearchResult {
    /// The chosen move; `None` when the side to move has none (it passes, or the game is over).
    pub best: Option<Square>,
    /// The value of the root for its side to move.
    pub value: i32,
    /// Positions visited, leaves included.
    pub nodes: u64,
}

/// The root of a fixed-depth search when there is no move to choose: at the horizon, in a finished
/// game, or before a forced pass, whose position `after_pass` searches one ply down.
pub(crate) fn root_without_choice(
    board: Board,
    depth: u32,
    scoring: Scoring,
    after_pass: impl FnOnce(Board, u32, &mut u64) -> i32,
) -> Option<SearchResult> {
    if depth > 0 && !board.moves().is_empty() {
        return None;
    }
    let mut nodes = 1;
    let value = if depth == 0 || board.opponent_moves().is_empty() {
        scoring.leaf(board)
    } else {
        -after_pass(board.pass(), depth - 1, &mut nodes)
    };
    Some(SearchResult {
        best: None,
        value,
        nodes,
    })
}

/// The principal variation search's loop over a node's children, in the order to try them: the
/// best value for the side to move (fail-soft, from `floor`, below any value) and the index of the
/// move reaching it (`NO_MOVE` if none is above `floor`). `search(child, alpha, beta)` is the child's
/// value for its own side to move, `None` once the search must stop, and then so does this. The
/// first child gets the full window, the others a null window, searched again with the full one
/// when they turn out to lie inside it.
///
/// On several threads, `busy(child)` says another thread is searching that child: it is left for
/// last, when the other has most likely put its value in the table (ABDADA's deferral, after the
/// first child as in the young brothers wait concept). On one thread it is never true.
///
/// A stopped loop gives `Err` with the best of what it finished: a root uses it (a move that beat
/// the first one before time ran out is the better move), other nodes drop it. A move whose null
/// window failed high counts with that bound if its search again was cut off.
#[inline(always)]
pub(crate) fn best_child(
    children: impl IntoIterator<Item = (Square, Board)>,
    mut alpha: i32,
    beta: i32,
    floor: i32,
    mut busy: impl FnMut(Board) -> bool,
    mut search: impl FnMut(Board, i32, i32) -> Option<i32>,
) -> Result<(i32, u8), (i32, u8)> {
    let mut best_value = floor;
    let mut best_move = table::NO_MOVE;
    let mut children = children.into_iter();
    let mut deferred: arrayvec::ArrayVec<(Square, Board), 64> = arrayvec::ArrayVec::new();
    let mut next_deferred = 0;
    for i in 0.. {
        let (square, child) = match children.next() {
            Some((square, child)) if i > 0 && busy(child) => {
                deferred.push((square, child));
                continue;
            }
            Some(found) => found,
            None if next_deferred < deferred.len() => {
                next_deferred += 1;
                deferred[next_deferred - 1]
            }
            None => break,
        };
        let value = if i == 0 {
            -search(child, -beta, -alpha).ok_or((best_value, best_move))?
        } else {
            let value = -search(child, -alpha - 1, -alpha).ok_or((best_value, best_move))?;
            if value > alpha && value < beta {
                -search(child, -beta, -value).ok_or((value, square.index() as u8))?
            } else {
                value
            }
        };
        if value > best_value {
            best_value = value;
            best_move = square.index() as u8;
            if value > alpha {
                alpha = value;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    Ok((best_value, best_move))
}

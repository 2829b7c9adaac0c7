//! The lab mode, `othello [board] [token] [moves...]`: the snapshots of the course's Othello labs,
//! byte for byte as docs/lab-format.md defines them.

pub mod args;
pub mod negamax;
pub mod position;
pub mod render;

pub use args::{BadArgument, LabRequest};

use itertools::Itertools;
use std::fmt::Write as _;

use othello_core::board::IllegalMove;
use othello_core::color::Color;
use othello_core::notation::lab_board;
use othello_core::position::Position;
use othello_core::square::Square;

/// Why a move of the sequence was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    Rule(IllegalMove),
    GameOver,
}

/// A move the rules refuse; the snapshots before it stand.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {index} ({square}) for {side}: {reason}", index = square.index(), side = side.lab_char(),
    reason = match refusal { Refusal::Rule(rule) => rule.to_string(), Refusal::GameOver => "the game is over, neither side can move".to_string() })]
pub struct LabIllegalMove {
    pub square: Square,
    /// The side whose turn it was (for a finished game, the side that would have moved next).
    pub side: Color,
    pub refusal: Refusal,
}

/// The most empty squares Lab 5's exact line is always searched for: beyond, a solve takes hours
/// (28 empties take minutes here), and `--holes 64` on an opening would never answer. A position
/// with more is solved only when its game ends within `PROBE_NODES` (a wipe-out close at hand).
pub const MAX_SOLVE_EMPTIES: u32 = 28;
/// Under a second of solving; a count of nodes, so that every machine gives the same answer.
const PROBE_NODES: u64 = 20_000_000;

/// Why a lab request gave no complete answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LabError {
    /// The rules refused a move: the snapshots before it stand.
    #[error(transparent)]
    Illegal(LabIllegalMove),
    /// Lab 5 was asked to solve more empty squares than can be solved while anyone waits.
    #[error(
        "bad argument --holes {holes}: the position after the moves has {empties} empty squares, and an exact solve of more than {MAX_SOLVE_EMPTIES} that does not end within {PROBE_NODES} nodes would not end while anyone waits; give --holes {} or less for it",
        MAX_SOLVE_EMPTIES + 1
    )]
    TooDeep { holes: u32, empties: u32 },
}

impl From<LabIllegalMove> for LabError {
    fn from(illegal: LabIllegalMove) -> LabError {
        LabError::Illegal(illegal)
    }
}

/// The starting position of a request: its board (or the default) with its token (or the default).
pub(crate) fn start_position(request: &LabRequest) -> Position {
    let (black, white) = request
        .board
        .unwrap_or_else(|| lab_board::parse(lab_board::DEFAULT_BOARD).expect("the default board is valid"));
    let empties = 64 - (black | white).count();
    let token = request.token.unwrap_or(Position::parity_side(empties));
    Position::from_discs(black, white, token)
}

/// Appends every snapshot of the request to `out`. On an illegal move, `out` holds the snapshots before
/// it and the error says why.
pub fn run(request: &LabRequest, out: &mut String) -> Result<(), LabError> {
    let token_position = start_position(request);
    let mut position = token_position.after_forced_pass();
    if request.lab1 {
        render::snapshot_lab1(out, token_position);
    } else {
        render::snapshot(out, position, None);
    }
    for &square in &request.moves {
        let side = position.to_move;
        if position.is_game_over() {
            return Err(LabIllegalMove {
                square,
                side,
                refusal: Refusal::GameOver,
            }
            .into());
        }
        let played = position.try_play(square).map_err(|rule| LabIllegalMove {
            square,
            side,
            refusal: Refusal::Rule(rule),
        })?;
        position = played.after_forced_pass();
        render::snapshot(out, position, Some((side, square)));
    }
    if (request.lab4 || request.lab5) && !position.is_game_over() {
        later_labs(out, request, position)?;
    }
    Ok(())
}

/// Lab 4's preferred move, and Lab 5's exact line when few enough squares are empty (then the
/// preferred move is the first move of that line).
fn later_labs(out: &mut String, request: &LabRequest, position: Position) -> Result<(), LabError> {
    let board = position.board;
    let empties = board.empty_count();
    if request.lab5 && empties < request.holes {
        let (score, line) = if empties <= MAX_SOLVE_EMPTIES {
            negamax::solve(board)
        } else {
            negamax::solve_within(board, PROBE_NODES).ok_or(LabError::TooDeep {
                holes: request.holes,
                empties,
            })?
        };
        let first = line.first().copied().flatten().expect("the side to move has a move");
        let sequence = line
            .iter()
            .rev()
            .map(|step| step.map_or(-1, |s| s.index() as i32))
            .join(", ");
        let _ = writeln!(out, "My preferred move is: {}", first.index());
        let _ = writeln!(out, "Min score: {score}; move sequence: [{sequence}]");
    } else if let Some(square) = crate::strategy::preferred_move(board) {
        let _ = writeln!(out, "My preferred move is: {}", square.index());
    }
    Ok(())
}

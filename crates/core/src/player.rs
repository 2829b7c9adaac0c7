//! What a player is, whatever plays: the `Strategy` trait, the move it decides with what it cost, and
//! why a player gave no usable move (with the course's codes). Games and matches know players only
//! through this.

use crate::position::Position;
use crate::square::Square;
use crate::value::Value;

/// What a strategy decided, with what it cost.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Decision {
    pub square: Square,
    /// What the strategy says the position is worth after its move, for the side that moves, when
    /// it computes that.
    pub value: Option<Value>,
    /// Positions it examined.
    pub nodes: u64,
    /// The time the move took by the player's own clock (a program's CPU time in a sandbox), when
    /// that is not the wall time around it.
    pub time: Option<std::time::Duration>,
}

/// Why a player gave no usable move, with the course's Lab 4 codes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    #[error("time-out")]
    TimedOut,
    #[error("illegal move {0}")]
    Illegal(i64),
    /// An answer that is not an integer (a quickMove that returns the string '19').
    #[error("illegal move {0} (not an integer)")]
    NotAMove(String),
    #[error("no move given")]
    NoMove,
    #[error("program error: {0}")]
    Crashed(String),
}

impl Failure {
    /// The Lab 4 handout's codes: -2 time-out, -3 illegal move, -4 no move, -5 program error (a pass
    /// is -1).
    pub fn code(&self) -> i32 {
        match self {
            Failure::TimedOut => -2,
            Failure::Illegal(_) | Failure::NotAMove(_) => -3,
            Failure::NoMove => -4,
            Failure::Crashed(_) => -5,
        }
    }

    /// The tournament server's code for the same failure of a student's program, as its moderator
    /// records it (read from its source, run beside ours): -2 (READ_INVALID) for no move, a value
    /// that is not an integer in 0..63, or an exception before a move; -3 (INVALID_MOVE) for an
    /// illegal move; -4 for a time-out, which that server scores as a tie. (It gives -1 to a person
    /// who submitted nothing, and -5 to its own unexpected errors: never to a program.)
    pub fn server_code(&self) -> i32 {
        match self {
            Failure::NoMove | Failure::NotAMove(_) | Failure::Crashed(_) => -2,
            Failure::Illegal(number) if !(0..64).contains(number) => -2,
            Failure::Illegal(_) => -3,
            Failure::TimedOut => -4,
        }
    }
}

/// A player's failure and the last lines it wrote to stderr.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{failure}")]
pub struct Failed {
    pub failure: Failure,
    pub stderr_tail: Vec<String>,
}

impl Failed {
    /// `time-out (code -2)`, with the last line the program wrote to stderr.
    pub fn describe(&self) -> String {
        let mut text = format!("{} (code {})", self.failure, self.failure.code());
        if let Some(last) = self.stderr_tail.last() {
            text.push_str(&format!("; its stderr ends with {last:?}"));
        }
        text
    }
}

impl From<Failure> for Failed {
    fn from(failure: Failure) -> Failed {
        Failed {
            failure,
            stderr_tail: Vec::new(),
        }
    }
}

/// Chooses a move in positions where the side to move has at least one legal move. Built-in
/// strategies always do; a program may fail.
pub trait Strategy: Send {
    fn choose(&mut self, position: Position) -> Result<Decision, Failed>;

    /// The last lines a program wrote to stderr so far, for those who may read them (a built-in
    /// strategy writes none).
    fn stderr_tail(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// A legal move drawn at random, as the course's random player plays: reproducible from its seed.
pub struct RandomStrategy(pub crate::rng::SeededRng);

impl Strategy for RandomStrategy {
    fn choose(&mut self, position: Position) -> Result<Decision, Failed> {
        Ok(Decision {
            square: self.0.pick_square(position.moves()),
            value: None,
            nodes: 0,
            time: None,
        })
    }
}

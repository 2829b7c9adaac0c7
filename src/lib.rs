//! othello: the rules of Othello on bitboards, the course's lab mode, strategies and an exact engine.
//!
//! The layers, from the bottom, each using only those below it (docs/architecture.md has the map;
//! `tests/integration/layers.rs` checks it):
//! - the rules core: [`square`], [`bitboard`], [`movegen`], [`cpu`], [`board`] (side-relative, the
//!   searches' view), [`color`], [`position`] (absolute colours, passes), [`value`], [`player`],
//!   [`game`], [`notation`], [`rng`], [`log`] (JSON game logs);
//! - plumbing: [`files`] (reading inputs safely), [`scratch`], [`parallel`], [`runner`] (other
//!   people's programs, sandboxed);
//! - evaluation and search: [`stability`], [`eval`], [`patterns`], [`search`];
//! - players: [`strategy`], [`programs`] (students' programs as players), [`matches`](mod@matches),
//!   [`training`];
//! - the course's tools and the protocols: [`course`] (the lab mode, grading, moderators),
//!   [`protocol`] (NBoard, GTP);
//! - outputs: [`json`] (every JSON output's shape);
//! - the command line: [`cli`].
//!
//! Play a game and solve its end exactly:
//!
//! ```
//! use othello::{Position, Square};
//! use othello::search::endgame::Solver;
//!
//! let mut position = Position::START;
//! for name in ["f5", "d6", "c3", "d3", "c4"] {
//!     position = position.try_play(Square::from_a1(name).unwrap()).expect("a legal move");
//! }
//! let (black, white) = position.counts();
//! assert_eq!(black + white, 9, "four discs and one a move");
//! // A position near the end: 4 empty squares, solved to the last disc.
//! let mut solver = Solver::new();
//! let near_end = othello::notation::lab_board::parse(
//!     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxoooooooooooooooooooo....",
//! )
//! .map(|(black, white)| Position::from_discs(black, white, othello::Color::Black))
//! .unwrap();
//! let solution = solver.solve(near_end.board).unwrap();
//! assert!((-64..=64).contains(&solution.score));
//! ```

pub mod bitboard;
pub mod board;
pub mod cli;
pub mod color;
pub mod course;
pub mod cpu;
pub mod eval;
pub mod files;
pub mod game;
pub mod json;
pub mod log;
pub mod matches;
pub mod movegen;
pub mod notation;
pub mod parallel;
pub mod patterns;
pub mod player;
pub mod position;
pub mod printable;
pub mod programs;
pub mod protocol;
pub mod rng;
pub mod runner;
pub mod scratch;
pub mod search;
pub mod square;
pub mod stability;
pub mod strategy;
pub mod training;
pub mod value;

pub use bitboard::Bitboard;
pub use board::Board;
pub use color::Color;
pub use position::Position;
pub use square::Square;

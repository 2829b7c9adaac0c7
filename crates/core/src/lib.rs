//! The rules of Othello on bitboards, and the notations that write them down: the bottom layer of
//! the `othello` workspace, with no input or output of its own and no other crate of it below.
//!
//! - [`square`], [`bitboard`] (a `Bitboard(u64)` of const fns), [`movegen`] (legal moves and flips
//!   on u64) and [`cpu`] (their AVX2 and AVX-512 versions, picked at run time);
//! - [`board`] (side-relative: the searches' view), [`color`], [`position`] (absolute colours,
//!   forced passes, the end);
//! - [`player`] (what a player is: the `Strategy` trait, a decision, a failure), [`value`] (what a
//!   move is worth and how far that is known), [`game`] (a game with undo), [`rng`] (seeded
//!   randomness);
//! - [`notation`] (the course's 64-character boards, condensed transcripts, OBF, GGF, boards drawn
//!   for people) and [`log`] (a game as JSON).
//!
//! Play the handout's moves and read the board back as the lab writes it:
//!
//! ```
//! use othello_core::{Color, Position, Square};
//!
//! let mut position = Position::START;
//! for name in ["d3", "c5", "f6"] {
//!     position = position.try_play(Square::from_a1(name).unwrap()).expect("a legal move");
//! }
//! let (black, white) = position.counts();
//! assert_eq!((black, white), (5, 2));
//! assert_eq!(position.to_move, Color::White);
//! let text = othello_core::notation::lab_board::format(position);
//! assert_eq!(othello_core::notation::lab_board::parse(&text).unwrap(), (position.black(), position.white()));
//! ```

pub mod bitboard;
pub mod board;
pub mod color;
pub mod cpu;
pub mod game;
pub mod log;
pub mod movegen;
pub mod notation;
pub mod player;
pub mod position;
pub mod rng;
pub mod square;
pub mod value;

pub use bitboard::Bitboard;
pub use board::Board;
pub use color::Color;
pub use position::Position;
pub use square::Square;

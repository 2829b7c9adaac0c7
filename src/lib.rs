//! othello: the rules of Othello on bitboards, the course's lab mode, strategies and an exact engine.

pub mod bitboard;
pub mod board;
pub mod cli;
pub mod color;
pub mod course;
pub mod cpu;
pub mod eval;
pub mod files;
pub mod game;
pub mod log;
pub mod matches;
pub mod notation;
pub mod parallel;
pub mod patterns;
pub mod position;
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

//! What the engine learns from its own play: self-play games and the values of their positions,
//! made reproducibly and in shards, for a trained evaluation; deep searches of the opening, for
//! its book.

pub mod book;
pub mod network;
pub mod samples;
pub mod selfplay;
pub mod train;

//! What the engine learns: the pattern weights and the network fitted to positions and their
//! values (the self-play games that give them are `othello_course::selfplay`), and deep searches
//! of the opening, for its book.

pub mod book;
pub mod collections;
pub mod network;
pub mod train;

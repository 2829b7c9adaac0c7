//! What a trained evaluation learns from: self-play games and the values of their positions, made
//! reproducibly and in shards.

pub mod samples;
pub mod selfplay;
pub mod train;

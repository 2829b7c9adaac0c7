//! Searches over the rules core: perft (more searches join here).

pub mod perft;

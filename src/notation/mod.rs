//! Text forms of positions and games: the lab's 64-character boards (more formats join here).

pub mod lab_board;

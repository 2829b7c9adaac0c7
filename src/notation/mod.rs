//! Text forms of positions and games: lab boards, seed 004's input.txt (more formats join here).

pub mod input_txt;
pub mod lab_board;
pub mod obf;

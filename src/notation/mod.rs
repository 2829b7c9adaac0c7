//! Text forms of positions and games: lab boards, condensed transcripts, seed 004's input.txt, OBF.

pub mod condensed;
pub mod input_txt;
pub mod lab_board;
pub mod obf;

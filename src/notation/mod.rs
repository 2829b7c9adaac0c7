//! Text forms of positions and games: lab boards, condensed transcripts, seed 004's input.txt, OBF,
//! plain transcripts (`f5d6c3`) and GGF.

pub mod condensed;
pub mod ggf;
pub mod input_txt;
pub mod lab_board;
pub mod obf;
pub mod transcript;

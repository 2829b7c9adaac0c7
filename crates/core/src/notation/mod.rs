//! Text forms of positions and games: lab boards, condensed transcripts, seed 004's input.txt, OBF,
//! plain transcripts (`f5d6c3`) and GGF; integers in free text as the course reads them.

pub mod board_text;
pub mod condensed;
pub mod gam;
pub mod ggf;
pub mod input_txt;
pub mod lab_board;
pub mod numbers;
pub mod obf;
pub mod transcript;
pub mod wthor;

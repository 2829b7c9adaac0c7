//! Everything the course's labs need: the lab mode ([`lab`]), reading transcripts back and judging
//! them ([`transcript`], [`judge`]), test cases ([`cases`]), grading students' programs over those
//! cases ([`grade`] and its reports), the players (the names users type, [`strategy`]; students'
//! programs, [`programs`]), matches, self-play, the Lab 4 moderator and tournaments that run them, and
//! every JSON output's shape ([`json`]).
//!
//! The lab mode's output for the handout's example, byte for byte:
//!
//! ```
//! let request = othello_course::lab::LabRequest::parse(&["19", "34", "41"]).unwrap();
//! let mut output = String::new();
//! othello_course::lab::run(&request, &mut output).unwrap();
//! assert!(output.starts_with("........\n........\n...*....\n"));
//! ```

pub mod cases;
pub mod class;
pub mod class_report;
pub mod grade;
pub mod json;
pub mod judge;
pub mod junit;
pub mod lab;
pub mod lab5;
pub mod marks;
pub mod matches;
pub mod moderator;
pub mod programs;
pub mod rating;
pub mod record;
pub mod replay_page;
pub mod report;
pub mod selfplay;
pub mod strategy;
pub mod table;
pub mod tournament;
pub mod transcript;

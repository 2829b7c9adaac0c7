//! Everything the course's labs need: the lab mode, reading transcripts back and judging them, test
//! cases, and grading students' programs over those cases.

pub mod cases;
pub mod class_report;
pub mod grade;
pub mod judge;
pub mod lab;
pub mod lab5;
pub mod moderator;
pub mod players;
pub mod report;
pub mod rules;
pub mod tournament;
pub mod transcript;

//! Everything the course's labs need: the lab mode, reading transcripts back and judging them, test
//! cases, grading students' programs over those cases, and the moderators and tournaments that run
//! them as players (the players themselves are `crate::programs`).

pub mod cases;
pub mod class_report;
pub mod grade;
pub mod judge;
pub mod junit;
pub mod lab;
pub mod lab5;
pub mod marks;
pub mod moderator;
pub mod report;
pub mod tournament;
pub mod transcript;

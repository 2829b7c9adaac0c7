//! The integration tests, one binary (one link of the crate) with a module per area; each drives the
//! `othello` binary or the library as a user would. Shared set-ups are in `common/`.

mod common;

mod analyze;
mod browser;
mod cli;
mod docs_examples;
mod endgame;
mod engine;
mod files;
mod grade;
mod graders;
mod hostile;
mod json_outputs;
mod lab_golden;
mod lab_never_panics;
mod layers;
mod matches;
mod perft;
mod play_and_logs;
mod players;
mod protocols;
mod rules_against_mailbox;
mod sandbox;
mod sandbox_edges;
mod scripts;
mod search_equivalence;
mod seed004;
mod selfplay;
mod server;
mod server_games;
mod server_ladder;
mod server_load;
mod server_tournaments;
mod settings;
mod stability;

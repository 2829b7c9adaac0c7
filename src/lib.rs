//! The `othello` command line as a library: what the binary runs ([`cli::run`]), and what the tests
//! ask of it (whether a command line parses, [`cli::accepts`]). The domain is in the workspace's
//! crates: `othello-core` (the rules), `othello-plumbing`, `othello-sandbox`, `othello-engine`,
//! `othello-course` and `othello-protocol` (docs/architecture.md).

pub mod cli;

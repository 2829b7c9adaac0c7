//! Helpers shared by the integration tests: the mailbox reference and driving the binary.
// Each test binary uses only part of these helpers.
#![allow(dead_code)]

pub mod mailbox;

use assert_cmd::Command;

/// The `othello` binary with these arguments.
pub fn othello<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut command = Command::cargo_bin("othello").expect("the othello binary is built");
    command.args(args);
    command
}

//! The `othello` binary: the command line over the workspace's crates; it alone parses arguments,
//! prints, and turns its one error into a line and an exit status.

use othello::cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run(std::env::args_os().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("othello: {}", cli::one_line(&format!("{error:#}")));
            ExitCode::from(cli::exit_status(&error))
        }
    }
}

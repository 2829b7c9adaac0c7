//! The `othello` binary: runs the command line and turns its one error into a line and an exit status.

use std::process::ExitCode;

fn main() -> ExitCode {
    match othello::cli::run(std::env::args_os().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("othello: {}", othello::cli::one_line(&format!("{error:#}")));
            ExitCode::from(othello::cli::exit_status(&error))
        }
    }
}

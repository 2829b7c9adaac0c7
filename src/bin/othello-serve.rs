//! `othello-serve`: the class's server as an executable of its own, so that the lab mode's start-up
//! carries none of it; `othello serve WORDS` runs `othello-serve WORDS`.

use othello::cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::serve_main(std::env::args_os().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("othello: {}", cli::one_line(&format!("{error:#}")));
            ExitCode::from(cli::exit_status(&error))
        }
    }
}

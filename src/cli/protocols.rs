//! `othello nboard` and `othello gtp`: the engine behind a GUI, on stdin and stdout.

use anyhow::{Context, Result};
use clap::Args;

use crate::protocol::{gtp, nboard};

#[derive(Args, Debug)]
pub struct NboardArgs {}

#[derive(Args, Debug)]
pub struct GtpArgs {
    /// Seconds a move when the controller sends no time settings
    #[arg(long, value_name = "SECONDS", value_parser = super::seconds, default_value = "1")]
    move_time: std::time::Duration,
}

pub fn run_nboard(_: NboardArgs) -> Result<()> {
    let input = std::io::BufReader::new(std::io::stdin());
    nboard::run(input, std::io::stdout()).context("cannot write to stdout")
}

pub fn run_gtp(args: GtpArgs) -> Result<()> {
    let input = std::io::BufReader::new(std::io::stdin());
    gtp::run(input, std::io::stdout(), args.move_time).context("cannot write to stdout")
}

//! `othello nboard` and `othello gtp`: the engine behind a GUI, on stdin and stdout.

use anyhow::{Context, Result};
use clap::Args;

use othello_protocol::{gtp, nboard};

#[derive(Args, Debug)]
pub struct NboardArgs {
    /// Threads the engine plays on, on a game's clock (default: all cores)
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
}

#[derive(Args, Debug)]
pub struct GtpArgs {
    /// Seconds a move when the controller sends no time settings (default 1)
    #[arg(long, value_name = "SECONDS", value_parser = super::seconds)]
    move_time: Option<std::time::Duration>,
    /// Threads the engine searches on (default: all cores)
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
}

pub fn run_nboard(args: NboardArgs, engine: &othello_engine::settings::EngineSettings) -> Result<()> {
    let input = std::io::BufReader::new(std::io::stdin());
    nboard::run(input, std::io::stdout(), super::threads_or_cores(args.threads), *engine)
        .context("cannot write to stdout")
}

pub fn run_gtp(args: GtpArgs, engine: &othello_engine::settings::EngineSettings) -> Result<()> {
    let input = std::io::BufReader::new(std::io::stdin());
    let threads = super::threads_or_cores(args.threads);
    gtp::run(
        input,
        std::io::stdout(),
        args.move_time.unwrap_or(gtp::DEFAULT_MOVE_TIME),
        threads,
        *engine,
    )
    .context("cannot write to stdout")
}

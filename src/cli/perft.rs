//! `othello perft DEPTH [BOARD [TOKEN]] [--json]`: leaf counts with time and rate.

use std::time::Instant;

use anyhow::Result;
use clap::Args;

use othello_core::position::Position;
use othello_engine::search::perft::perft;

/// The deepest count that ends within the hour (perft 13 of the start: 30 s; 15: most of an hour).
const MAX_PLIES: u32 = 15;

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Plies to look ahead
    #[arg(value_parser = clap::value_parser!(u32).range(0..=30))]
    depth: u32,
    /// The board, as in the lab mode or OBF (default: the start position)
    board: Option<String>,
    /// The side to move, x or o (default: as in the lab mode, by parity unless that side must pass)
    token: Option<String>,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

pub fn run(args: PerftArgs, output: &super::display::Output) -> Result<()> {
    let position = match &args.board {
        Some(board) => othello_course::lab::position::parse(board, args.token.as_deref())?,
        None => Position::START,
    };
    super::within_reach(
        "DEPTH",
        args.depth,
        position.board.empty_count(),
        MAX_PLIES,
        "13 plies take 30 s here",
    )?;
    let start = Instant::now();
    let leaves = if output.progress_visible() {
        // A few hundred subtrees, each a tick: the bar moves smoothly and its estimate holds.
        let parts = othello_engine::search::perft::split(position.board, args.depth, 256);
        let progress = super::display::Progress::new(parts.len(), "subtrees", output);
        let leaves = parts
            .iter()
            .map(|&(board, depth)| {
                let leaves = perft(board, depth);
                progress.tick();
                leaves
            })
            .sum();
        progress.finish();
        leaves
    } else {
        perft(position.board, args.depth)
    };
    let seconds = start.elapsed().as_secs_f64();
    let text = if args.json {
        othello_course::json::line(&othello_course::json::Perft {
            depth: args.depth,
            leaves,
            seconds,
        })
    } else {
        let rate = leaves as f64 / seconds.max(1e-9) / 1e6;
        format!(
            "perft {}: {} in {seconds:.3} s ({rate:.0} million leaves/s)\n",
            args.depth,
            super::display::counted(leaves, "leaf", "leaves")
        )
    };
    super::write_stdout(&text)
}

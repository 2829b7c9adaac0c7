//! `othello probcut FILE...`: fits Multi-ProbCut's spread (deep search minus shallow search, by
//! number of empties and depth) on positions drawn from self-play samples.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use super::display::Progress;
use super::write_stdout;
use othello_engine::search::probcut::{fit, observe, shallow_depth};

/// Positions with fewer empties are mostly searched to the end at the deeper depths, and ProbCut
/// is not used there in practice (the engine solves from 24 empties); more than this are openings.
const EMPTIES: std::ops::RangeInclusive<u32> = 14..=56;

#[derive(Args, Debug)]
pub struct ProbcutArgs {
    /// Sample files written by `othello selfplay` (positions of their complete games are drawn)
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Positions to draw (uniformly, among those with 14 to 56 empty squares)
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    positions: u32,
    /// The deepest search to fit: every depth from 3 to this is compared with its shallow depth
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(3..=16))]
    depth: u32,
    #[arg(long, default_value_t = 1, value_parser = super::seed)]
    seed: u64,
    /// Threads to search on (default: all cores); the fit does not depend on it
    #[arg(short = 'j', long, visible_alias = "jobs", value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
}

pub fn run(args: ProbcutArgs, settings: &super::Settings) -> Result<()> {
    let (drawn, seen) =
        othello_course::selfplay::samples::draw_positions(&args.files, args.positions as usize, args.seed, |board| {
            EMPTIES.contains(&board.empty_count())
        })?;
    if drawn.len() < 100 {
        bail!(
            "{} positions with 14 to 56 empty squares: too few to fit (make more with othello selfplay)",
            drawn.len()
        );
    }
    let progress = Progress::new(drawn.len(), "positions", &settings.output);
    let mut observations = Vec::new();
    let max_depth = args.depth;
    othello_plumbing::parallel::ordered(
        drawn.len(),
        super::threads_or_cores(args.threads),
        |k| {
            let found = observe(drawn[k], max_depth, &settings.engine);
            progress.tick();
            found
        },
        |_, found| {
            observations.extend(found);
            true
        },
    );
    progress.finish();
    let (cells, model) = fit(&observations);
    let mut report = format!(
        "{} positions ({} with 14-56 empties seen), {} pairs of depths; deep minus shallow, in discs\n",
        drawn.len(),
        seen,
        observations.len()
    );
    report += "empties  deep  shallow  count    mean   sigma  fitted\n";
    for cell in &cells {
        report += &format!(
            "{:>2}-{:<2}   {:>4}  {:>7}  {:>5}  {:>6.2}  {:>6.2}  {:>6.2}\n",
            cell.empties,
            cell.empties + othello_engine::search::probcut::EMPTIES_PER_CELL - 1,
            cell.deep,
            shallow_depth(cell.deep),
            cell.count,
            cell.mean,
            cell.sigma,
            cell.fitted
        );
    }
    report += &format!(
        "sigma = {:.4} + {:.4} * empties + {:.4} * shallow + {:.4} * deep\nMIDGAME_SIGMA_MODEL = [{:.4}, {:.4}, {:.4}, {:.4}]\n",
        model[0], model[1], model[2], model[3], model[0], model[1], model[2], model[3]
    );
    write_stdout(&report)
}

//! `othello selfplay FILE`: self-play training data, reproducible, in shards, resumable.

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::display::{Progress, counted};
use super::write_stdout;
use crate::strategy::StrategySpec;
use crate::training::samples::{self, Existing};
use crate::training::selfplay::{SelfPlayConfig, play_game};

#[derive(Args, Debug)]
pub struct SelfPlayArgs {
    /// The sample file: created, or continued if it holds games made with the same settings
    file: PathBuf,
    /// Games in all shards together; game k belongs to shard k mod N
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    games: u64,
    /// This run's part, K/N (0 <= K < N): N machines with K = 0..N-1 make disjoint games whose
    /// union is the one-machine run's
    #[arg(long, value_name = "K/N", default_value = "0/1", value_parser = shard)]
    shard: (u64, u64),
    /// The strategy for both sides after the opening (reproducible ones only: engine:nodes=N, not engine:MS)
    #[arg(long, value_name = "SPEC", default_value = "engine:nodes=20000")]
    player: StrategySpec,
    /// Random moves at the start of each game, drawn from this range (A..B)
    #[arg(long, value_name = "A..B", default_value = "2..12", value_parser = plies)]
    opening: (u32, u32),
    /// After the opening, the chance in percent of a random move instead of the player's
    #[arg(long, value_name = "PERCENT", default_value_t = 5, value_parser = clap::value_parser!(u32).range(0..=100))]
    random_percent: u32,
    /// Positions with at most this many empty squares get the solver's exact score
    #[arg(long, value_name = "EMPTIES", default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=24))]
    exact_empties: u32,
    #[arg(long, default_value_t = 1, value_parser = super::seed)]
    seed: u64,
    /// A deeper strategy whose search values label the positions instead of the player's (the
    /// player still makes the moves, and the games are the same); reproducible ones only
    #[arg(long, value_name = "SPEC")]
    values: Option<StrategySpec>,
    /// Threads to play on (default: all cores); the file does not depend on it
    #[arg(short = 'j', long, visible_alias = "jobs", value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
}

/// `K/N` with K < N.
fn shard(text: &str) -> Result<(u64, u64), String> {
    let wrong = || format!("{text:?} is not a shard: expected K/N with 0 <= K < N, such as 0/4");
    let (k, n) = text.split_once('/').ok_or_else(wrong)?;
    match (k.parse::<u64>(), n.parse::<u64>()) {
        (Ok(k), Ok(n)) if k < n => Ok((k, n)),
        _ => Err(wrong()),
    }
}

/// `A..B` with A <= B <= 59.
fn plies(text: &str) -> Result<(u32, u32), String> {
    let wrong = || format!("{text:?} is not a range of plies: expected A..B with 0 <= A <= B <= 59, such as 2..12");
    let (a, b) = text.split_once("..").ok_or_else(wrong)?;
    match (a.parse::<u32>(), b.parse::<u32>()) {
        (Ok(a), Ok(b)) if a <= b && b <= 59 => Ok((a, b)),
        _ => Err(wrong()),
    }
}

pub fn run(args: SelfPlayArgs) -> Result<()> {
    if !args.player.is_reproducible() {
        bail!(
            "--player {}: its games depend on the machine; use a reproducible strategy such as engine:nodes=20000",
            args.player
        );
    }
    if let Some(values) = args.values.as_ref().filter(|spec| !spec.is_reproducible()) {
        bail!(
            "--values {values}: its values depend on the machine; use a reproducible strategy such as engine:nodes=200000"
        );
    }
    let config = SelfPlayConfig {
        player: args.player,
        opening_plies: args.opening.0..=args.opening.1,
        random_percent: args.random_percent,
        exact_empties: args.exact_empties,
        seed: args.seed,
        value_player: args.values,
    };
    let (k, n) = args.shard;
    let header = samples::header(&config, (k, n));
    // The file is opened (and what it holds checked) before any game is played. It must be a regular
    // file: "existing games" read from /dev/zero or a FIFO would never end.
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NONBLOCK)
        .open(&args.file)
        .with_context(|| format!("cannot write {}", args.file.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    if !meta.is_file() {
        bail!(
            "bad argument {:?}: a sample file must be a regular file (it is read back to be continued)",
            args.file.display().to_string()
        );
    }
    let Existing {
        complete_bytes,
        games,
        last,
    } = {
        let mut lines = crate::files::Lines::new(std::io::BufReader::new(&file), &args.file);
        samples::existing(
            || Ok::<_, anyhow::Error>(lines.next_line()?.map(|(_, line)| line)),
            &header,
        )
        .with_context(|| format!("cannot continue {}", args.file.display()))?
    };
    file.set_len(complete_bytes)
        .and_then(|()| file.seek(SeekFrom::End(0)).map(|_| ()))
        .with_context(|| format!("cannot write {}", args.file.display()))?;
    if complete_bytes == 0 {
        file.write_all(header.as_bytes())
            .with_context(|| format!("cannot write {}", args.file.display()))?;
    }
    // This shard's games are k, k + n, ...; those already in the file came first, in order.
    let first = last.map_or(k, |last| last + n);
    // Counted, not listed: a billion games to play take no memory.
    let pending = args.games.saturating_sub(first).div_ceil(n) as usize;
    let progress = Progress::new(pending, "games");
    let mut written = 0u64;
    let mut positions = 0u64;
    let mut failure = None;
    crate::parallel::ordered(
        pending,
        super::threads_or_cores(args.threads),
        |i| play_game(&config, first + i as u64 * n),
        |_, game| {
            progress.tick();
            let game = match game {
                Ok(game) => game,
                Err(failed) => {
                    failure = Some(anyhow::anyhow!("{} gave no move: {}", config.player, failed.describe()));
                    return false;
                }
            };
            let block = samples::format_game(&game);
            if let Err(error) = file.write_all(block.as_bytes()).and_then(|()| file.flush()) {
                failure = Some(anyhow::Error::new(error).context(format!("cannot write {}", args.file.display())));
                return false;
            }
            written += 1;
            positions += game.samples.len() as u64;
            true
        },
    );
    progress.finish();
    if let Some(error) = failure {
        return Err(error);
    }
    write_stdout(&format!(
        "shard {k}/{n}: {} with {} written to {} ({} there before)\n",
        counted(written, "game", "games"),
        counted(positions, "position", "positions"),
        args.file.display(),
        counted(games, "game", "games"),
    ))
}

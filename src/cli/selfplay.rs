//! `othello selfplay FILE`: self-play training data, reproducible, in shards, resumable.

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::display::{Progress, counted};
use super::write_stdout;
use othello_course::selfplay::samples::{self, Existing};
use othello_course::selfplay::{Recorded, SelfPlayConfig, SelfPlayGame, check_replay, play_game, replay_game};
use othello_course::strategy::StrategySpec;

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
    /// Label recorded games instead of playing: a game collection (a WTHOR database or `.gam`
    /// lines, gzipped or not: its games numbered from 0, those that stop before the end passed
    /// over), or a file of games a line, `K TRANSCRIPT [VALUES]`
    /// (K the game's index, in increasing order) or a transcript alone (its index the line's, from
    /// 0), as scripts/zebra-games.py writes them; VALUES, the recorded player's value of each
    /// position it moved from (side to move, discs, comma-separated, `-` for none), label those
    /// positions, the player (or --values) the others (--opening, --random-percent and --seed do
    /// not apply)
    #[arg(long, value_name = "GAMES")]
    replay: Option<PathBuf>,
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

pub fn run(args: SelfPlayArgs, settings: &super::Settings) -> Result<()> {
    let (engine, output) = (&settings.engine, &settings.output);
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
    // The games to replay are read through once before anything is written: a bad line is
    // refused while the sample file is still as it was.
    let replayed = args
        .replay
        .as_ref()
        .map(|games| count_replayed(games, args.games, args.shard))
        .transpose()?;
    let config = SelfPlayConfig {
        player: args.player,
        opening_plies: args.opening.0..=args.opening.1,
        random_percent: args.random_percent,
        exact_empties: args.exact_empties,
        seed: args.seed,
        value_player: args.values,
        replay: args.replay.as_ref().map(|games| {
            games.file_name().map_or_else(
                || games.display().to_string(),
                |name| name.to_string_lossy().into_owned(),
            )
        }),
        recorded_values: replayed.is_some_and(|counted| counted.with_values),
        engine: *engine,
    };
    let unfinished = replayed.map_or(0, |counted| counted.unfinished);
    let replayed = replayed.map(|counted| counted.games);
    let (k, n) = args.shard;
    let header = samples::header(&config, (k, n));
    let (file, Existing { games, last, .. }) = open_samples(&args.file, &header)?;
    let threads = super::threads_or_cores(args.threads);
    let mut out = Output {
        file,
        path: &args.file,
        written: 0,
        positions: 0,
    };
    if let (Some(games_file), Some(total)) = (&args.replay, replayed) {
        // Those already in the file came first, in order.
        let eligible = |index: u64| index % n == k && index < args.games && last.is_none_or(|last| index > last);
        let progress = Progress::new(total.saturating_sub(games as usize), "games", output);
        replay_into(&mut out, games_file, eligible, |chunk, out| {
            out.write_all(chunk.len(), threads, &progress, |i| {
                replay_game(&config, chunk[i].0, &chunk[i].1).map_err(anyhow::Error::new)
            })
        })?;
        progress.finish();
    } else {
        // This shard's games are k, k + n, ...; those already in the file came first, in order.
        let first = last.map_or(k, |last| last + n);
        // Counted, not listed: a billion games to play take no memory.
        let pending = args.games.saturating_sub(first).div_ceil(n) as usize;
        let progress = Progress::new(pending, "games", output);
        out.write_all(pending, threads, &progress, |i| {
            play_game(&config, first + i as u64 * n)
                .map_err(|failed| anyhow::anyhow!("{} gave no move: {}", config.player, failed.describe()))
        })?;
        progress.finish();
    }
    let Output { written, positions, .. } = out;
    let passed_over = if unfinished > 0 {
        format!(
            "; {} of the collection passed over (they stop before the end)",
            counted(unfinished, "game", "games")
        )
    } else {
        String::new()
    };
    write_stdout(&format!(
        "shard {k}/{n}: {} with {} written to {} ({} there before){passed_over}\n",
        counted(written, "game", "games"),
        counted(positions, "position", "positions"),
        args.file.display(),
        counted(games, "game", "games"),
    ))
}

/// Opens a sample file to be continued (or begun) with `header`'s settings, before any game is
/// played: what it holds is checked, an unfinished last game cut off, the header written to a new
/// one. It must be a regular file: "existing games" read from /dev/zero or a FIFO would never end.
fn open_samples(path: &std::path::Path, header: &str) -> Result<(std::fs::File, Existing)> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_file() {
        bail!(
            "bad argument {:?}: a sample file must be a regular file (it is read back to be continued)",
            path.display().to_string()
        );
    }
    let existing = {
        let mut lines = othello_plumbing::files::Lines::new(std::io::BufReader::new(&file), path);
        samples::existing(
            || Ok::<_, anyhow::Error>(lines.next_line()?.map(|(_, line)| line)),
            header,
        )
        .with_context(|| format!("cannot continue {}", path.display()))?
    };
    file.set_len(existing.complete_bytes)
        .and_then(|()| file.seek(SeekFrom::End(0)).map(|_| ()))
        .with_context(|| format!("cannot write {}", path.display()))?;
    if existing.complete_bytes == 0 {
        file.write_all(header.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok((file, existing))
}

/// Reads the games of `games_file` a chunk at a time (the file may be any size), those `eligible`
/// takes, and gives each chunk to `write`.
fn replay_into<'a>(
    out: &mut Output<'a>,
    games_file: &std::path::Path,
    eligible: impl Fn(u64) -> bool,
    mut write: impl FnMut(&[(u64, Recorded)], &mut Output<'a>) -> Result<()>,
) -> Result<()> {
    let mut chunk = Vec::with_capacity(REPLAY_CHUNK);
    each_recorded(games_file, |index, game| {
        if eligible(index) {
            chunk.push((index, game));
        }
        if chunk.len() == REPLAY_CHUNK {
            write(&chunk, out)?;
            chunk.clear();
        }
        Ok(())
    })?;
    if !chunk.is_empty() {
        write(&chunk, out)?;
    }
    Ok(())
}

/// Calls `each` with every game of a games file, or of a collection (a WTHOR database, `.gam`
/// lines: its games numbered from 0 in file order), with its index, in order; a collection's games
/// that stop before the end (a resignation, a time loss) are passed over, and counted.
fn each_recorded(path: &std::path::Path, mut each: impl FnMut(u64, Recorded) -> Result<()>) -> Result<u64> {
    let mut unfinished = 0;
    if super::collections::kind(path).is_some() {
        super::collections::for_each(path, |collected| {
            if !collected.game.is_over() {
                unfinished += 1;
                return Ok(());
            }
            let moves = collected.game.moves().collect();
            each(collected.index, Recorded { moves, values: None })
        })?;
        return Ok(unfinished);
    }
    let mut lines = othello_plumbing::files::Lines::open(path)?;
    while let Some((number, line)) = lines.next_line()? {
        if let Some((index, game)) = replay_line(path, number, &line)? {
            each(index, game).with_context(|| format!("{}: line {number}", path.display()))?;
        }
    }
    Ok(unfinished)
}

/// Recorded games replayed at once, between two writes.
const REPLAY_CHUNK: usize = 1024;

/// Where finished games go, and how many went.
struct Output<'a> {
    file: std::fs::File,
    path: &'a std::path::Path,
    written: u64,
    positions: u64,
}

impl Output<'_> {
    /// Makes games `0..count` on `threads` threads and appends each, in order, as it is finished;
    /// the first failure stops the run (the games before it stay written).
    fn write_all(
        &mut self,
        count: usize,
        threads: usize,
        progress: &Progress,
        make: impl Fn(usize) -> Result<SelfPlayGame> + Sync,
    ) -> Result<()> {
        let mut failure = None;
        othello_plumbing::parallel::ordered(count, threads, make, |_, game| {
            progress.tick();
            let game = match game {
                Ok(game) => game,
                Err(error) => {
                    failure = Some(error);
                    return false;
                }
            };
            let block = samples::format_game(&game);
            if let Err(error) = self.file.write_all(block.as_bytes()).and_then(|()| self.file.flush()) {
                failure = Some(anyhow::Error::new(error).context(format!("cannot write {}", self.path.display())));
                return false;
            }
            self.written += 1;
            self.positions += game.samples.len() as u64;
            true
        });
        failure.map_or(Ok(()), Err)
    }
}

/// A line of a games file: its game's index and record, or None for a blank or `#` line.
fn replay_line(path: &std::path::Path, number: usize, line: &str) -> Result<Option<(u64, Recorded)>> {
    let text = line.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let wrong = |why: String| anyhow::anyhow!("{}: line {number}: {why}", path.display());
    let (index, rest) = match text.split_once(char::is_whitespace) {
        Some((first, rest)) if first.bytes().all(|b| b.is_ascii_digit()) => (
            first
                .parse::<u64>()
                .map_err(|_| wrong(format!("{first:?} is not a game index")))?,
            rest.trim_start(),
        ),
        _ => ((number - 1) as u64, text),
    };
    let (transcript, values) = match rest.split_once(char::is_whitespace) {
        Some((transcript, values)) => (transcript, Some(values.trim_start())),
        None => (rest, None),
    };
    let values = values
        .map(|values| values.split(',').map(recorded_value).collect::<Result<Vec<_>, _>>())
        .transpose()
        .map_err(wrong)?;
    let moves = othello_core::notation::transcript::read(transcript)
        .map_err(|error| wrong(error.to_string()))?
        .into_iter()
        .filter_map(|written| match written {
            othello_core::notation::transcript::Written::Square(square) => Some(square),
            othello_core::notation::transcript::Written::Pass => None,
        })
        .collect();
    Ok(Some((index, Recorded { moves, values })))
}

/// A recorded value: a number of discs for the side to move (rounded, and held to -64..=64 as
/// search values are), or `-` for none.
fn recorded_value(text: &str) -> Result<Option<i8>, String> {
    if text == "-" {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(Some(value.round().clamp(-64.0, 64.0) as i8)),
        _ => Err(format!(
            "{text:?} is not a value: expected a number of discs such as +1.25 or -3, or - for none"
        )),
    }
}

/// What a games file holds for one shard.
#[derive(Clone, Copy)]
struct Counted {
    /// This shard's games.
    games: usize,
    /// Whether any game carries its player's values.
    with_values: bool,
    /// A collection's games passed over because they stop before the end.
    unfinished: u64,
}

/// Reads a games file through: how many of its games are this shard's (`index % n == k`, below
/// `games`), refusing a bad line or indices out of order.
fn count_replayed(path: &std::path::Path, games: u64, (k, n): (u64, u64)) -> Result<Counted> {
    let (mut count, mut previous, mut with_values) = (0, None, false);
    let unfinished = each_recorded(path, |index, game| {
        check_replay(index, &game)?;
        with_values |= game.values.is_some();
        if let Some(previous) = previous.filter(|&previous| index <= previous) {
            bail!("game {index} comes after game {previous}: expected increasing indices");
        }
        previous = Some(index);
        if index % n == k && index < games {
            count += 1;
        }
        Ok(())
    })?;
    Ok(Counted {
        games: count,
        with_values,
        unfinished,
    })
}

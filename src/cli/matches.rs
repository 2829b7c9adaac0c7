//! `othello match A B`: a match between two strategies, with its score, disc share and costs.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use othello_course::json;

use super::display::{Progress, counted};
use super::output::Output;
use super::write_stdout;
use othello_core::color::Color;
use othello_core::log::GameLog;
use othello_course::matches::{MatchConfig, MatchReport, OpeningList, Openings, PlayedGame, SideTotals, play_match};
use othello_course::strategy::StrategySpec;

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Strategy A: random, greedy, weighted, preferred, minimax:D[:EVAL], alphabeta:D[:EVAL],
    /// lookahead:K, engine[:MS], or a program: argv:COMMAND, quickmove:FILE.py, strategy:FILE.py
    a: StrategySpec,
    /// Strategy B, named the same way
    b: StrategySpec,
    /// Games to play; A is black in the even-numbered ones
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Seed for random openings and random strategies
    #[arg(long, default_value_t = 1, value_parser = super::seed)]
    seed: u64,
    /// Start each pair of games from the same opening of this many random moves, once with each
    /// colour (0: every game from the start position). Default: 0, except where both players
    /// would play the same game every time (neither random, a program or on a clock): then each
    /// pair starts from the next of the built-in balanced openings
    #[arg(long, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(0..=59))]
    openings: Option<u32>,
    /// Start each pair of games from the next opening of this file instead, once with each colour: a
    /// transcript at the start of each line, `#` starting a comment (as
    /// fixtures/engine/balanced-openings.txt, openings judged near even)
    #[arg(long, value_name = "FILE", conflicts_with = "openings")]
    opening_file: Option<PathBuf>,
    /// With --opening-file, the openings to pass over before the first one played
    #[arg(long, value_name = "N", default_value_t = 0, requires = "opening_file")]
    skip: u32,
    /// Write every game as JSON Lines, one game a line
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Threads to play on (default: all cores); results do not depend on it
    #[arg(short = 'j', long, visible_alias = "jobs", value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
    /// Record a line for each game as it finishes, then the report, to this file (a stopped match
    /// keeps the lines of the games it finished)
    #[arg(long, value_name = "FILE", alias = "transcript")]
    record: Option<PathBuf>,
    #[command(flatten)]
    clock: super::ClockArgs,
}

pub fn run(args: MatchArgs, settings: &super::Settings) -> Result<()> {
    let (engine, output) = (&settings.engine, &settings.output);
    let deterministic = args.a.is_deterministic() && args.b.is_deterministic();
    let openings = match &args.opening_file {
        None if args.openings.is_none() && deterministic => {
            Openings::Listed(std::sync::Arc::new(OpeningList::balanced(args.games.div_ceil(2))))
        }
        None => Openings::Random(args.openings.unwrap_or(0)),
        Some(file) => {
            let list = OpeningList::read(file, args.skip, args.games.div_ceil(2))?;
            Openings::Listed(std::sync::Arc::new(list))
        }
    };
    let config = MatchConfig {
        a: args.clock.prepare(&args.a, 1)?,
        b: args.clock.prepare(&args.b, 2)?,
        games: args.games,
        seed: args.seed,
        openings,
        engine: *engine,
    };
    super::output::Files::new()
        .inputs(
            "the player's file",
            config.a.files().into_iter().chain(config.b.files()),
        )
        .inputs("the opening file", args.opening_file.as_deref())
        .output("--log", args.log.as_deref())
        .output("--record", args.record.as_deref())
        .check()?;
    let mut log = MatchLog::open(args.log.as_deref())?;
    let mut record = args.record.as_deref().map(Output::open_stream).transpose()?;
    let mut record_error = None;
    let threads = super::threads_or_cores(args.threads);
    let progress = Progress::new(args.games as usize, "games", output);
    let (a, b) = (config.a.to_string(), config.b.to_string());
    let report = play_match(config, threads, |played| {
        progress.tick();
        log.add(played, &a, &b);
        if let Some(output) = &mut record
            && record_error.is_none()
        {
            record_error = output.append(&game_line(played, &a, &b)).err();
        }
    });
    progress.finish();
    log.finish()?;
    let text = if args.json {
        json::line(&json::Match::from(&report))
    } else {
        text_report(&report)
    };
    if let Some(error) = record_error {
        return Err(error);
    }
    if let Some(output) = record {
        output.finish(&text)?;
    }
    write_stdout(&text)
}

/// One finished game in a line: who had which colour, the discs, and its moves.
fn game_line(played: &PlayedGame, a: &str, b: &str) -> String {
    let (black, white) = if played.a_color == Color::Black { (a, b) } else { (b, a) };
    let (black_discs, white_discs) = played.game.position().counts();
    let ending = match &played.forfeit {
        Some(forfeit) => format!("{} forfeits: {}", forfeit.side, forfeit.failed.describe()),
        None if black_discs > white_discs => "black wins".to_string(),
        None if white_discs > black_discs => "white wins".to_string(),
        None => "a draw".to_string(),
    };
    format!(
        "game {}: {black} (black) {black_discs}-{white_discs} {white} (white), {ending}; {}\n",
        played.index + 1,
        othello_core::notation::transcript::format(&played.game)
    )
}

/// A JSON Lines log written as the games finish (match, lab4, tournament); a write error stops the
/// writing and is returned by `finish`, after the games.
pub struct MatchLog {
    output: Option<Output>,
    error: Option<anyhow::Error>,
}

impl MatchLog {
    /// Opens the log now (no path: no log), so that a path that cannot be written fails first.
    pub fn open(path: Option<&std::path::Path>) -> Result<MatchLog> {
        Ok(MatchLog {
            output: path.map(Output::open_stream).transpose()?,
            error: None,
        })
    }

    /// Adds a game whose player A is named `a` and player B `b`.
    pub fn add(&mut self, played: &PlayedGame, a: &str, b: &str) {
        if let Some(output) = &mut self.output
            && self.error.is_none()
            && let Err(error) = game_log_line(played, a, b).and_then(|line| output.append(&line))
        {
            self.error = Some(error);
        }
    }

    /// Puts the log in place, or returns the error that stopped it.
    pub fn finish(self) -> Result<()> {
        if let Some(error) = self.error {
            return Err(error);
        }
        self.output.map_or(Ok(()), |output| output.finish(""))
    }
}

/// One game of a match as a line of the JSON Lines log.
fn game_log_line(played: &PlayedGame, a: &str, b: &str) -> Result<String> {
    let (black, white) = if played.a_color == Color::Black { (a, b) } else { (b, a) };
    let mut log = GameLog::from_game(&played.game, black, white, (played.started, played.ended));
    log.game = Some(played.index);
    if let Some(forfeit) = &played.forfeit {
        log.record_forfeit(forfeit);
    }
    Ok(serde_json::to_string(&log)? + "\n")
}

fn text_report(report: &MatchReport) -> String {
    let config = &report.config;
    let openings = match &config.openings {
        Openings::Random(0) => "from the start position".to_string(),
        Openings::Random(plies) => format!("from random openings of {plies} moves, each played with both colours"),
        Openings::Listed(list) if list.file == othello_course::matches::BALANCED_OPENINGS => format!(
            "from {} of {}{} (the two would play one game over and over; --openings 0 plays from the start), each played with both colours",
            match list.games.len() {
                1 => "opening 1".to_string(),
                n => format!("openings 1-{n}"),
            },
            list.file,
            if 2 * list.games.len() < config.games as usize {
                ", again from the first once all were played"
            } else {
                ""
            }
        ),
        Openings::Listed(list) => format!(
            "from openings {}-{} of {}, each played with both colours",
            list.skip + 1,
            list.skip + list.games.len() as u32,
            list.file
        ),
    };
    let line = |spec: &StrategySpec, totals: SideTotals| {
        let mut line = format!(
            "  {spec}: {} moves, {:.3} ms and {:.0} nodes per move\n",
            totals.moves,
            totals.ms_per_move(),
            totals.nodes_per_move()
        );
        if let Some(usage) = othello_course::matches::TimeUsage::of(spec, &totals) {
            let before = usage.before_solving.map_or(String::new(), |share| {
                format!(" ({:.1}% before the exact result was known)", 100.0 * share)
            });
            line += &format!(
                "  {spec}: {:.1}% of its time a move used on average{before}; longest move {:.1} ms, {:.1} ms over\n",
                100.0 * usage.all,
                totals.longest * 1e3,
                usage.overrun * 1e3
            );
        }
        if let Some(time) = spec.game_time() {
            line += &format!(
                "  {spec}: on a game clock of {} s of wall time; longest move {:.1} ms\n",
                time.as_secs_f64(),
                totals.longest * 1e3
            );
        }
        line
    };
    let distinct = format!(
        "{}{} of {}",
        if report.distinct.at_least { "at least " } else { "" },
        counted(report.distinct.count() as u32, "distinct game", "distinct games"),
        config.games,
    );
    format!(
        "{} vs {}: {} (seed {}) {openings}\n\
         {}: {}, {}, {}: {:.1} of {} points ({:.1}%), {:.1}% of the discs; {distinct}\n{}{}",
        config.a,
        config.b,
        counted(config.games, "game", "games"),
        config.seed,
        config.a,
        counted(report.wins, "win", "wins"),
        counted(report.draws, "draw", "draws"),
        counted(report.losses, "loss", "losses"),
        report.points(),
        config.games,
        100.0 * report.points() / f64::from(config.games),
        100.0 * report.disc_share(),
        line(&config.a, report.a_totals),
        line(&config.b, report.b_totals),
    ) + &match_notes(report)
}

/// Forfeited games, and whether the same seed gives the same games again.
fn match_notes(report: &MatchReport) -> String {
    let mut notes = String::new();
    for (index, side, why) in &report.forfeits {
        notes += &format!("  game {}: {} forfeited it: {why}\n", index + 1, side.lab_char());
    }
    let more = report.forfeited as usize - report.forfeits.len();
    if more > 0 {
        notes += &format!("  ... and {more} more forfeited games\n");
    }
    if !(report.config.a.is_reproducible() && report.config.b.is_reproducible()) {
        notes += "  (a timed engine or a program plays: the same seed may not give the same games)\n";
    }
    notes
}

//! `othello lab4 PLAYER`: the course's Lab 4 moderator, a player's games against random (or any
//! opponent) scored by its share of the tokens, with the worst games as condensed transcripts.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Result, anyhow};
use clap::Args;
use othello_course::json;

use super::display::counted;
use super::matches::MatchLog;
use super::{ClockArgs, Refused, write_stdout};
use othello_course::moderator::{self, GameLine, Lab4Config, Lab4Tally};
use othello_course::strategy::StrategySpec;

#[derive(Args, Debug)]
#[command(after_help = "\
Failure codes, in the transcripts and reports, are the Lab 4 handout's: -1 a pass, -2 time-out,
-3 illegal move (a square that is taken or flips nothing, out of range, not an integer), -4 no move,
-5 a program error (a crash, an exception, a memory or file-size limit). The JSON gives each failure
both as `code` and as the tournament server records it, `server_code`: -2 no move, not an integer
in 0..63, or a crash before a move, -3 an illegal move, -4 a time-out.")]
pub struct Lab4Args {
    /// The player: argv:COMMAND, quickmove:FILE.py, strategy:FILE.py, or a built-in strategy
    #[arg(required_unless_present = "class")]
    player: Option<StrategySpec>,
    /// Every student of a class takes the test, one after another: each file (or, for argv, file or
    /// folder) of DIR, hidden ones left out; one table, and --json, --csv, --html for the class
    #[arg(long, value_name = "DIR", conflicts_with_all = ["player", "log"])]
    class: Option<PathBuf>,
    /// The form of the class's programs: argv, quickmove or strategy
    #[arg(long, value_name = "FORM", requires = "class", default_value = "quickmove")]
    form: othello_course::programs::ProgramForm,
    /// How to start an argv student, {} standing for its file or folder
    #[arg(long, value_name = "TEMPLATE", requires = "class", default_value = "python3 {}")]
    run: String,
    /// With --class: write the gradebook, one row per student (`-`: stdout)
    #[arg(long, value_name = "FILE", requires = "class")]
    csv: Option<PathBuf>,
    /// With --class: write one self-contained HTML page (the table, each student's failure and
    /// lowest games with their boards)
    #[arg(long, value_name = "FILE", requires = "class")]
    html: Option<PathBuf>,
    /// The opponent
    #[arg(long, default_value = "random")]
    opponent: StrategySpec,
    /// Games to play; the player is x (black) in the odd-numbered ones (default: the rules', 100 or
    /// 500)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    games: Option<u32>,
    /// Seed of the opponent's random moves
    #[arg(long, default_value_t = 1, value_parser = super::seed)]
    seed: u64,
    /// A failure forfeits that game (0 tokens to 64) and the test goes on; by the course's rule, the
    /// first failure ends the test
    #[arg(long)]
    forfeit: bool,
    /// How many of the lowest-scoring games to show (default: the rules', 2 or 3)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=1000))]
    worst: Option<u32>,
    /// Games played at a time (1, the default, gives a program the whole machine, as the course does)
    #[arg(short = 'j', long, visible_alias = "jobs", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
    /// Write every game as JSON Lines (a match log that `othello replay` checks)
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    #[command(flatten)]
    clock: ClockArgs,
}

/// The score is shown on stderr after this many games.
const PROGRESS_EVERY: u32 = 25;

impl Lab4Args {
    /// The test of `player` against `opponent` (both prepared), by the player's rules unless the
    /// options say otherwise.
    fn config(
        &self,
        player: StrategySpec,
        opponent: StrategySpec,
        engine: &othello_engine::settings::EngineSettings,
    ) -> Lab4Config {
        let rules = self.clock.rules_for(&player);
        Lab4Config {
            opponent,
            player,
            rules,
            games: self.games.unwrap_or(rules.games()),
            seed: self.seed,
            stop_on_failure: !self.forfeit,
            worst: self.worst.unwrap_or(rules.worst()) as usize,
            threads: self.threads as usize,
            engine: *engine,
        }
    }
}

pub fn run(args: Lab4Args, settings: &super::Settings) -> Result<()> {
    let (engine, output) = (&settings.engine, &settings.output);
    let mut files = super::output::Files::new()
        .inputs("the player's file", args.player.iter().flat_map(StrategySpec::files))
        .inputs("the opponent's file", args.opponent.files());
    if let Some(class) = &args.class {
        args.clock.check_for_class()?;
        files = files.input_folder("the class folder", class);
    }
    files
        .output("--csv", args.csv.as_deref())
        .output("--html", args.html.as_deref())
        .output("--log", args.log.as_deref())
        .check()?;
    if let Some(class) = &args.class {
        return run_class(&args, class, engine);
    }
    let player = args
        .clock
        .prepare(args.player.as_ref().expect("clap requires a player or --class"), 1)?;
    let config = args.config(player, args.clock.prepare(&args.opponent, 2)?, engine);
    let mut log = MatchLog::open(args.log.as_deref())?;
    let (player, opponent) = (config.player.to_string(), config.opponent.to_string());
    let progress = super::display::Progress::new(config.games as usize, "games", output);
    let tally = moderator::run(&config, |played, tally| {
        progress.tick();
        if tally.games.is_multiple_of(PROGRESS_EVERY) && !output.quiet {
            progress.suspend(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "after {} games: {:.1}% of the tokens ({} of {})",
                    tally.games,
                    100.0 * tally.share(),
                    tally.tokens,
                    tally.all_tokens
                );
            });
        }
        log.add(played, &player, &opponent);
    });
    progress.finish();
    log.finish()?;
    write_stdout(&if args.json {
        json::line(&json::Lab4::new(&config, &tally))
    } else {
        text_report(&config, &tally)
    })?;
    match &tally.ended_by {
        Some(line) => Err(Refused(anyhow!(
            "the test ended at game {}: {}",
            line.number,
            line.failure.as_deref().unwrap_or("a failure")
        ))
        .into()),
        None => Ok(()),
    }
}

fn clock_of(spec: &StrategySpec) -> String {
    match spec {
        StrategySpec::Program(program) => format!(" ({})", program.clock_text()),
        _ => String::new(),
    }
}

fn game_text(line: &GameLine) -> String {
    format!(
        "  game {} as {}: {}-{} ({:.1}%)  {}\n",
        line.number,
        line.color.lab_char(),
        line.tokens,
        line.opponent_tokens,
        100.0 * line.share(),
        line.transcript
    )
}

fn text_report(config: &Lab4Config, tally: &Lab4Tally) -> String {
    let mut out = format!(
        "Lab 4 ({} rules): {}{} against {}, {} games (seed {})\n",
        config.rules,
        config.player,
        clock_of(&config.player),
        config.opponent,
        config.games,
        config.seed
    );
    if let Some(line) = &tally.ended_by {
        out += &format!(
            "The test ended at game {}: {}\n{}",
            line.number,
            line.failure.as_deref().unwrap_or("a failure"),
            game_text(line)
        );
    }
    if !tally.worst.is_empty() {
        out += &format!(
            "The {} lowest-scoring game{} (the player's colour, its tokens to the opponent's, the moves: two characters a move, -1 a pass, -2 time-out, -3 illegal move, -4 no move, -5 error):\n",
            tally.worst.len(),
            if tally.worst.len() == 1 { "" } else { "s" }
        );
        for line in &tally.worst {
            out += &game_text(line);
        }
    }
    out += &format!(
        "Score: {} of {} tokens, {:.1}%, in {}: {}, {}, {}{}\n",
        tally.tokens,
        tally.all_tokens,
        100.0 * tally.share(),
        counted(tally.games, "game", "games"),
        counted(tally.wins, "win", "wins"),
        counted(tally.draws, "draw", "draws"),
        counted(tally.losses, "loss", "losses"),
        if tally.forfeits > 0 {
            format!(" ({} forfeited)", tally.forfeits)
        } else {
            String::new()
        }
    );
    let average = if tally.player_moves == 0 {
        0.0
    } else {
        tally.player_seconds / tally.player_moves as f64
    };
    out += &format!(
        "Time used: {:.2} s; the player's {} moves took {:.1} ms on average, {:.1} ms at most, by its clock\n",
        tally.elapsed.as_secs_f64(),
        tally.player_moves,
        average * 1e3,
        tally.longest_move * 1e3
    );
    if !config.player.is_reproducible() || !config.opponent.is_reproducible() {
        out += "(a program or a timed engine plays: the same seed may not give the same games)\n";
    }
    out
}

/// Every student of a class folder takes the test in turn; a line each as it finishes, then the
/// class's table and reports. Exit status 1 when some student's test ended on a failure or could
/// not start.
fn run_class(
    args: &Lab4Args,
    class: &std::path::Path,
    engine: &othello_engine::settings::EngineSettings,
) -> Result<()> {
    use othello_course::class_report::{self, StudentTest};
    let members = othello_course::class::members(class)?;
    let mut csv = args.csv.as_deref().map(super::output::Output::open).transpose()?;
    let mut html = args.html.as_deref().map(super::output::Output::open).transpose()?;
    let opponent = args.clock.prepare(&args.opponent, 2)?;
    let mut tests = Vec::new();
    let mut rules = othello_course::programs::rules::Rules::for_form(args.form);
    for path in &members {
        let name = othello_course::class::member_name(path);
        let player = othello_course::class::member_player(path, args.form, &args.run);
        let result = player.and_then(|spec| {
            let player = args.clock.prepare(&spec, 1).map_err(|e| e.to_string())?;
            let config = args.config(player, opponent.clone(), engine);
            rules = config.rules;
            Ok(moderator::run(&config, |_, _| {}))
        });
        let test = StudentTest {
            name,
            player: format!(
                "{}{}",
                args.form.prefix(),
                othello_plumbing::printable::name(path.as_os_str())
            ),
            result,
        };
        let csv_to_stdout = args.csv.as_deref().is_some_and(super::output::is_stdout);
        if args.json {
            write_stdout(&json::line(&json::Lab4Student::new(&test, rules)))?;
        } else if !csv_to_stdout {
            write_stdout(&class_report::student_line(&test))?;
        }
        tests.push(test);
    }
    if !args.json && !args.csv.as_deref().is_some_and(super::output::is_stdout) {
        write_stdout(&format!("\n{}", class_report::lab4_table(&tests)))?;
    }
    if let Some(csv) = csv.take() {
        csv.finish(&class_report::lab4_csv(&tests))?;
    }
    if let Some(html) = html.take() {
        let title = format!("Lab 4: {} ({} rules)", class.display(), rules);
        let isolation = args.clock.isolation().describe();
        html.finish(&class_report::lab4_html(&title, &tests, rules, &isolation))?;
    }
    let failed = tests
        .iter()
        .filter(|t| t.result.as_ref().map_or(true, |tally| tally.ended_by.is_some()))
        .count();
    if failed > 0 {
        return Err(Refused(anyhow!("{failed} of {} students did not finish the test", tests.len())).into());
    }
    Ok(())
}

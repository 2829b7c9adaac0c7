//! `othello tournament PLAYER...`: round robin or Swiss between built-in strategies and programs, with
//! standings for people, JSON, CSV and a replayable log.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;
use othello_course::json;

use super::matches::MatchLog;
use super::output::{Output, is_stdout};
use super::{ClockArgs, write_stdout};
use othello_course::strategy::StrategySpec;
use othello_course::tournament::{self, Format, TournamentConfig};

#[derive(Args, Debug)]
pub struct TournamentArgs {
    /// Two players or more: built-in strategies, argv:COMMAND, quickmove:FILE.py, strategy:FILE.py
    /// (with --class, any number besides the class)
    #[arg(required_unless_present = "class")]
    players: Vec<StrategySpec>,
    /// Every student of a class plays too: each file (or, for argv, file or folder) of DIR, hidden
    /// ones left out; a student whose program cannot play is left out and named
    #[arg(long, value_name = "DIR")]
    class: Option<PathBuf>,
    /// The form of the class's programs: argv, quickmove or strategy
    #[arg(long, value_name = "FORM", requires = "class", default_value = "strategy")]
    form: othello_course::programs::ProgramForm,
    /// How to start an argv student, {} standing for its file or folder
    #[arg(long, value_name = "TEMPLATE", requires = "class", default_value = "python3 {}")]
    run: String,
    /// Write one self-contained HTML page: the standings and each forfeit's reason
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Rounds of the round robin (every pair meets once a round, with both colours; default 1, or
    /// 2 under the course server's scoring: each pair twice in each colour, as there)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    rounds: Option<u32>,
    /// A Swiss tournament of this many rounds instead: players with equal points are paired, two games
    /// a pairing (both colours), a bye for an odd player out
    #[arg(long, value_name = "ROUNDS", conflicts_with = "rounds", value_parser = clap::value_parser!(u32).range(1..=1000))]
    swiss: Option<u32>,
    /// How failures score and ties break: othello (a failure loses 0 to 64; disc margin, then
    /// head-to-head) or course-server (as the course's server did: a time-out ties; cumulative
    /// points; Swiss by its pairing, Danish once rounds >= players - 1; the odd player plays
    /// --bye-opponent twice). Default: course-server under --rules server, othello otherwise
    #[arg(long, value_name = "SCORING")]
    scoring: Option<tournament::Scoring>,
    /// Who plays the odd player out of a Swiss round under the course server's scoring
    #[arg(long, value_name = "STRATEGY", default_value = "random")]
    bye_opponent: StrategySpec,
    /// Seed of the openings and of random players
    #[arg(long, default_value_t = 1, value_parser = super::seed)]
    seed: u64,
    /// Each pairing's two games start from the same opening of this many random moves
    #[arg(long, value_name = "PLIES", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=59))]
    openings: u32,
    /// Games played at a time (default: the number of cores; the standings do not depend on it)
    #[arg(short = 'j', long, visible_alias = "jobs", value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
    /// Print the standings as one JSON object
    #[arg(long)]
    json: bool,
    /// Write the standings as CSV (`-`: stdout)
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write every game as JSON Lines (a match log that `othello replay` checks)
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    #[command(flatten)]
    clock: ClockArgs,
}

/// The players: those named, then a class's members (named by their entries, as lab4 --class
/// names them; those whose programs cannot play left out, with why).
struct Entrants {
    players: Vec<StrategySpec>,
    names: Vec<String>,
    left_out: Vec<String>,
}

fn entrants(args: &TournamentArgs, clock: &ClockArgs) -> Result<Entrants> {
    let mut players = args
        .players
        .iter()
        .enumerate()
        .map(|(index, player)| clock.prepare(player, index + 1))
        .collect::<Result<Vec<_>>>()?;
    // Escaped for people: a name is a student's file name, which may hold terminal controls.
    let mut names: Vec<String> = players
        .iter()
        .map(|player| othello_plumbing::printable::escape(&player.to_string()).into_owned())
        .collect();
    let mut left_out = Vec::new();
    if let Some(class) = &args.class {
        for path in othello_course::class::members(class)? {
            let name = othello_course::class::member_name(&path);
            let prepared = othello_course::class::member_player(&path, args.form, &args.run)
                .and_then(|spec| clock.prepare(&spec, players.len() + 1).map_err(|e| e.to_string()));
            match prepared {
                Ok(player) => {
                    players.push(player);
                    names.push(name);
                }
                Err(why) => {
                    eprintln!("othello: {name} is left out: {why}");
                    left_out.push(format!("{name}: {why}"));
                }
            }
        }
    }
    if players.len() < 2 {
        bail!("a tournament needs two players or more, and has {}", players.len());
    }
    Ok(Entrants {
        players,
        names,
        left_out,
    })
}

pub fn run(args: TournamentArgs, settings: &super::Settings) -> Result<()> {
    if args.json && args.csv.as_deref().is_some_and(is_stdout) {
        bail!("bad argument \"-\": --json already writes to stdout");
    }
    let mut files =
        super::output::Files::new().inputs("the player's file", args.players.iter().flat_map(StrategySpec::files));
    if let Some(class) = &args.class {
        args.clock.check_for_class()?;
        files = files.input_folder("the class folder", class);
    }
    files
        .output("--html", args.html.as_deref())
        .output("--csv", args.csv.as_deref())
        .output("--log", args.log.as_deref())
        .check()?;
    let mut clock = args.clock.clone();
    clock.tournament = true;
    let Entrants {
        players,
        names,
        left_out,
    } = entrants(&args, &clock)?;
    let html = args.html.as_deref().map(Output::open).transpose()?;
    let csv = args.csv.as_deref().map(Output::open).transpose()?;
    let mut log = MatchLog::open(args.log.as_deref())?;
    let scoring = args.scoring.unwrap_or(match args.clock.rules() {
        Some(othello_course::programs::rules::Rules::Server) => tournament::Scoring::CourseServer,
        _ => tournament::Scoring::Othello,
    });
    let mut names = names;
    let bye_opponent = match scoring {
        tournament::Scoring::CourseServer => {
            names.push(format!("bye opponent ({})", args.bye_opponent));
            clock.prepare(&args.bye_opponent, players.len() + 1)?
        }
        tournament::Scoring::Othello => args.bye_opponent.clone(),
    };
    let config = TournamentConfig {
        players,
        format: match args.swiss {
            Some(rounds) => Format::Swiss { rounds },
            None => Format::RoundRobin {
                rounds: args.rounds.unwrap_or(match scoring {
                    tournament::Scoring::CourseServer => 2,
                    tournament::Scoring::Othello => 1,
                }),
            },
        },
        scoring,
        bye_opponent,
        seed: args.seed,
        opening_plies: args.openings,
        threads: super::threads_or_cores(args.threads),
        engine: settings.engine,
    };
    let mut games = 0;
    let progress = super::display::Progress::new(
        config.format.games(config.players.len(), scoring),
        "games",
        &settings.output,
    );
    let standings = tournament::run(&config, |pairing, played| {
        games += 1;
        progress.tick();
        log.add(played, &names[pairing.first], &names[pairing.second]);
    })
    .ranked();
    progress.finish();
    log.finish()?;
    let ranked: Vec<_> = (1..).zip(&standings).collect();
    if let Some(csv) = csv {
        csv.finish(&othello_course::table::csv(
            &othello_course::table::standings(&names, scoring),
            &ranked,
        ))?;
    }
    if let Some(html) = html {
        html.finish(&othello_course::class_report::tournament_html(
            "Tournament standings",
            &names,
            &standings,
            scoring,
            &left_out,
            &args.clock.isolation().describe(),
        ))?;
    }
    if args.csv.as_deref().is_some_and(is_stdout) {
        return Ok(());
    }
    let reproducible = config.players.iter().all(StrategySpec::is_reproducible);
    write_stdout(&if args.json {
        let (system, rounds) = config.format.system();
        json::line(&json::Tournament {
            system,
            rounds,
            scoring: scoring.name(),
            scoring_rules: scoring.describe(),
            players: names[..config.players.len()].to_vec(),
            games,
            seed: config.seed,
            reproducible,
            left_out: left_out.clone(),
            standings: ranked
                .iter()
                .map(|&(rank, s)| json::StandingJson::new(rank, s, &names))
                .collect(),
        })
    } else {
        let mut text = othello_course::class_report::standings_text(
            &config.format.title(),
            &names,
            &standings,
            scoring,
            games,
            config.seed,
            reproducible,
        );
        for why in &left_out {
            text += &format!("left out: {why}\n");
        }
        text
    })
}

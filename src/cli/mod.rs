//! The command line: the lab mode by default, subcommands by name; maps every failure to an exit status.

mod analyze;
mod args;
mod book;
mod collections;
pub(crate) mod display;
mod grade;
mod graders;
mod help;
mod lab4;
mod lookahead;
mod matches;
mod output;
mod perft;
mod play;
mod probcut;
mod protocols;
mod replay;
mod selfplay;
mod serve;
mod signals;
mod solve;
mod tournament;
mod train;

use std::ffi::OsString;
use std::io::{self, Write};

use anyhow::{Context, Result, anyhow, bail};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use othello_core::cpu::Level;
use othello_course::lab::{self, LabIllegalMove, LabRequest};
use othello_engine::settings::EngineSettings;

pub use args::{ClockArgs, SandboxArgs, seconds, seed, size, threads_or_cores};

/// Exit statuses: 0 success, 1 the rules refused a well-formed request, 2 bad input.
pub const EXIT_REFUSED: u8 = 1;
pub const EXIT_BAD_INPUT: u8 = 2;

/// An error that the rules raised rather than the input: exit status 1.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Refused(#[from] pub anyhow::Error);

/// A person stopped the program with Ctrl-C where it could end well (at `play`'s prompt): exit
/// status 130, as a shell gives a program that SIGINT ended.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

pub const EXIT_INTERRUPTED: u8 = 130;

/// The exit status for an error that reached `main`.
pub fn exit_status(error: &anyhow::Error) -> u8 {
    if error.chain().any(|cause| cause.is::<Interrupted>()) {
        return EXIT_INTERRUPTED;
    }
    let refused = error
        .chain()
        .any(|cause| cause.is::<LabIllegalMove>() || cause.is::<Refused>());
    if refused { EXIT_REFUSED } else { EXIT_BAD_INPUT }
}

const LAB_HELP: &str = "\
Lab mode (the course's Othello 1-3 snapshots, byte for byte):
    BOARD   64 characters from xXoO. (default: the start position)
    TOKEN   x or o, the side to play first (default: by parity, passing if it cannot move)
    MOVES   0..63 or a1..h8; negative numbers are ignored
    --lab1  Othello 1's first snapshot: the token keeps the turn, `No moves possible`
    --lab4  after the last snapshot, `My preferred move is: N` (a one-ply heuristic)
    --lab5  also `Min score: S; move sequence: [...]` by exact negamax when fewer than
            --holes N (default 11; HLn, as the later labs write it, is the same) squares are
            empty; the preferred move is then its first move

Exit status: 0 ok, 1 refused by the rules (an illegal move: the snapshots before it are printed),
2 bad input (nothing on stdout). Run `othello COMMAND --help` for a command's options.";

#[derive(Parser, Debug)]
#[command(
    name = "othello",
    version,
    about = "Othello (Reversi) for the course's labs, with strategies and an exact engine",
    override_usage = "othello [BOARD] [TOKEN] [MOVES...] [--lab1] [--lab4] [--lab5 [--holes N]]\n       othello <COMMAND> [ARGS]",
    after_help = LAB_HELP
)]
struct Cli {
    /// Colour: auto (on a terminal, unless NO_COLOR is set or TERM is dumb; CLICOLOR, CLICOLOR_FORCE), always or never
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = display::ColorChoice::Auto)]
    color: display::ColorChoice,
    /// No progress on stderr (it is shown only on a terminal anyway)
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Weights for the trained evaluation wherever the engine plays or orders moves (as `othello train
    /// --out` writes them; default: the built-in ones)
    #[arg(long, global = true, value_name = "FILE")]
    weights: Option<std::path::PathBuf>,
    /// An opening book (as `othello book build` writes it) for every timed engine: engine:MS, gtp,
    /// nboard on a clock (default: none; there is no built-in book, docs/engine.md says why)
    #[arg(long, global = true, value_name = "FILE", overrides_with = "no_book")]
    book: Option<std::path::PathBuf>,
    /// No opening book, whatever --book said before (the last of the two given counts)
    #[arg(long, global = true, overrides_with = "book")]
    no_book: bool,
    /// How many discs worse than the book's best a move may be and still be drawn (seeded), so that
    /// games from one opening differ (default 0: the best, ties drawn)
    #[arg(long, global = true, value_name = "DISCS", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=64))]
    book_deviation: u32,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The value of every legal move of a position, or of every move of a game (mistakes, a graph)
    Analyze(analyze::AnalyzeArgs),
    /// The engine's opening book: build one from its own searches, show a position's moves
    Book(book::BookArgs),
    /// Write lab test cases (arguments and expected output) drawn from random legal games
    #[command(allow_negative_numbers = true)]
    Cases(graders::CasesArgs),
    /// Compare two outputs of the lab mode, byte for byte or as the course's graders read them
    #[command(allow_negative_numbers = true)]
    Diff(graders::DiffArgs),
    /// Run a program, or a whole class, over a folder of lab cases and judge every output
    #[command(allow_negative_numbers = true)]
    Grade(grade::GradeArgs),
    /// The engine for a GTP controller on stdin and stdout (boardsize 8, play, genmove, undo, ...)
    Gtp(protocols::GtpArgs),
    /// Seed 004's bestMove(K): minimax over K plies, disc difference, ties to the smallest index
    #[command(allow_negative_numbers = true)]
    Best(lookahead::BestArgs),
    /// Seed 004's fullGame(K): both sides play bestMove(K) to the end
    #[command(allow_negative_numbers = true)]
    Fullgame(lookahead::FullGameArgs),
    /// The course's Lab 4 moderator: a player's games against random, scored by its share of the tokens
    #[command(allow_negative_numbers = true)]
    Lab4(lab4::Lab4Args),
    /// Play a match between two strategies, colours alternating
    #[command(allow_negative_numbers = true)]
    Match(matches::MatchArgs),
    /// The engine for the NBoard GUI on stdin and stdout (nboard, set game, move, hint, go, ping)
    Nboard(protocols::NboardArgs),
    /// Play in the terminal: a person against the computer, or any two players
    #[command(allow_negative_numbers = true)]
    Play(play::PlayArgs),
    /// Check a game or match log against the rules and show how each game ended
    #[command(allow_negative_numbers = true)]
    Replay(replay::ReplayArgs),
    /// Solve positions exactly: score with perfect play, best move, principal variation
    #[command(allow_negative_numbers = true)]
    Solve(solve::SolveArgs),
    /// Fit Multi-ProbCut's margins: how far deep searches' values stray from shallow ones' (self-play positions)
    Probcut(probcut::ProbcutArgs),
    /// Count the move sequences DEPTH plies ahead (a forced pass is a ply)
    #[command(allow_negative_numbers = true)]
    Perft(perft::PerftArgs),
    /// Self-play training data: positions and their values, reproducible, in shards, resumable
    #[command(allow_negative_numbers = true)]
    Selfplay(selfplay::SelfPlayArgs),
    /// The class's server: accounts and sign-in (`serve init`, `serve add-students`), then serve
    Serve(serve::ServeArgs),
    /// A round robin or Swiss tournament of strategies and students' programs
    #[command(allow_negative_numbers = true)]
    Tournament(tournament::TournamentArgs),
    /// Fit pattern weights to self-play samples; the error per stage on held-out games (also of the built-in weights)
    #[command(allow_negative_numbers = true)]
    Train(train::TrainArgs),
    /// Print the shell completion script for SHELL (bash, zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
    /// Print the manual page (roff): `othello man > othello.1`, `othello man grade > othello-grade.1`
    Man(ManArgs),
}

#[derive(clap::Args, Debug)]
struct ManArgs {
    /// A command, for its own page (othello-COMMAND); none for the main page
    command: Option<String>,
}

#[derive(clap::Args, Debug)]
struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell
    shell: clap_complete::Shell,
}

/// The first word that is not a global option (`--color WHEN`, `--weights FILE`, `--quiet`, ...) or its value:
/// `othello --color never play` is the play command as `othello play --color never` is.
fn first_word(args: &[String]) -> Option<&str> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "--color" | "--weights" | "--book" | "--book-deviation" => {
                words.next();
            }
            option
                if ["--color=", "--weights=", "--book=", "--book-deviation="]
                    .iter()
                    .any(|prefix| option.starts_with(prefix)) => {}
            "-q" | "--quiet" | "--no-book" => {}
            word => return Some(word),
        }
    }
    None
}

/// Whether a word names a subcommand, by clap's own list (and `help`). A lab argument never does
/// (a token or a square has at most 2 characters, a board 64), and for those the command tree is
/// not even built: the lab mode starts as fast as it can.
fn is_subcommand(word: &str) -> bool {
    word.len() > 2
        && word.len() != 64
        && (word == "help"
            || Cli::command()
                .get_subcommands()
                .any(|command| command.get_name() == word))
}

/// Whether `args` (without the program name) is a command line the subcommands accept, without
/// running it: the docs' `sh` examples are checked so against option names going stale.
pub fn accepts(args: &[&str]) -> Result<()> {
    if !args.first().is_some_and(|first| is_subcommand(first)) {
        bail!("not a subcommand: {args:?}");
    }
    Cli::command()
        .try_get_matches_from(std::iter::once("othello").chain(args.iter().copied()))
        .map(drop)
        .map_err(|error| anyhow!(first_line_of(&error)))
}

/// The command tree as the root help, the completions and the manual page show it.
fn root_command() -> clap::Command {
    Cli::command()
        .long_version(long_version().leak() as &str)
        .help_template("{about-with-newline}\n{usage-heading} {usage}\n\nOptions:\n{options}{after-help}")
        .after_help(format!("{}{LAB_HELP}", help::command_list()))
}

/// The longest error line printed; longer ones keep their start and end.
const MAX_ERROR_LINE: usize = 600;

/// An error message as one line: control characters (a newline in a path) escaped, and a huge
/// argument cut in its middle so that the start and the explanation at the end both stay.
pub fn one_line(message: &str) -> String {
    let escaped: String = message.chars().flat_map(char::escape_debug).collect();
    let escaped = if message.contains(['\n', '\r', '\t']) || message.chars().any(char::is_control) {
        escaped
    } else {
        message.to_string()
    };
    let count = escaped.chars().count();
    if count <= MAX_ERROR_LINE {
        return escaped;
    }
    let keep = MAX_ERROR_LINE / 2;
    let head: String = escaped.chars().take(keep).collect();
    let tail: String = escaped.chars().skip(count - keep).collect();
    format!("{head}...({} characters left out)...{tail}", count - 2 * keep)
}

/// Runs the program on its arguments (without the program name), writing to stdout.
pub fn run(args: Vec<OsString>) -> Result<()> {
    let args: Vec<String> = args
        .into_iter()
        .map(|arg| {
            arg.into_string()
                .map_err(|raw| anyhow!("bad argument {raw:?}: not valid UTF-8"))
        })
        .collect::<Result<_>>()?;
    let subcommand = first_word(&args).is_some_and(is_subcommand);
    let asks = |flags: &[&str]| args.iter().any(|arg| flags.contains(&arg.as_str()));
    let args = match (subcommand, asks(&["--version", "-V"]), asks(&["--help", "-h"])) {
        // Lab-mode words with --version or --help: the program's version or help, whatever else is there.
        (false, true, _) => vec!["--version".to_string()],
        // `-h` is the summary, `--help` the whole, as in every subcommand.
        (false, false, true) if asks(&["--help"]) => vec!["--help".to_string()],
        (false, false, true) => vec!["-h".to_string()],
        (false, false, false) => {
            if let Some(command) = args.first().and_then(|word| help::suggestion(word)) {
                bail!(
                    "unknown command \"{}\": did you mean `othello {command}`? (othello --help lists the commands)",
                    args[0]
                );
            }
            return run_lab(&lab_words(&args)?);
        }
        // `othello help --help` is help too.
        (true, _, _) if args[0] == "help" => args.into_iter().filter(|a| a != "--help" && a != "-h").collect(),
        (true, _, _) => args,
    };
    let parsed = root_command()
        .try_get_matches_from(std::iter::once("othello".to_string()).chain(args.iter().cloned()))
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => return write_stdout(&error.render().to_string()),
        Err(error) => bail!(first_line_of(&error)),
    };
    if let Command::Serve(_) = cli.command {
        // The server is an executable of its own: the lab mode's start-up carries none of it.
        let at = args
            .iter()
            .position(|word| word == "serve")
            .expect("the subcommand was parsed");
        return serve::forward(&args[at + 1..]);
    }
    let engine = EngineSettings {
        weights: cli.weights.as_deref().map(othello_engine::patterns::load).transpose()?,
        book: match cli.book.as_ref().filter(|_| !cli.no_book) {
            // Kept for the process's life, as every engine built from these settings holds it.
            Some(path) => Some((&*Box::leak(Box::new(book::read(path)?)), cli.book_deviation as i32)),
            None => None,
        },
    };
    let settings = Settings {
        engine,
        output: display::Output {
            color: cli.color,
            quiet: cli.quiet,
        },
    };
    let result = dispatch(cli.command, &settings);
    // What the runs' set-up left out of the sandbox, for the teacher to see.
    for notice in othello_sandbox::notices() {
        eprintln!("othello: {notice}");
    }
    result
}

/// The `othello-serve` executable: `othello serve`'s words, parsed as `othello serve` parses them.
pub fn serve_main(args: Vec<OsString>) -> Result<()> {
    let words = std::iter::once(OsString::from("othello")).chain(std::iter::once(OsString::from("serve")));
    let parsed = root_command()
        .try_get_matches_from(words.chain(args))
        .and_then(|matches| Cli::from_arg_matches(&matches));
    match parsed {
        Ok(Cli {
            command: Command::Serve(args),
            ..
        }) => serve::run(args),
        Ok(_) => bail!("othello-serve runs the server only"),
        Err(error) if !error.use_stderr() => write_stdout(&error.render().to_string()),
        Err(error) => bail!(first_line_of(&error)),
    }
}

/// What the global options give every command: its engines' settings and how it talks to people.
pub struct Settings {
    pub engine: EngineSettings,
    pub output: display::Output,
}

/// Runs a command with the global options' `settings`.
fn dispatch(command: Command, settings: &Settings) -> Result<()> {
    match command {
        Command::Analyze(args) => analyze::run(args, settings),
        Command::Book(args) => book::run(args, settings),
        Command::Best(args) => lookahead::run_best(args, settings),
        Command::Cases(args) => graders::run_cases(args),
        Command::Diff(args) => graders::run_diff(args),
        Command::Fullgame(args) => lookahead::run_fullgame(args, settings),
        Command::Grade(args) => grade::run(args, &settings.output),
        Command::Gtp(args) => protocols::run_gtp(args, &settings.engine),
        Command::Nboard(args) => protocols::run_nboard(args, &settings.engine),
        Command::Lab4(args) => lab4::run(args, settings),
        Command::Match(args) => matches::run(args, settings),
        Command::Perft(args) => perft::run(args, &settings.output),
        Command::Play(args) => play::run(args, settings),
        Command::Replay(args) => replay::run(args),
        Command::Selfplay(args) => selfplay::run(args, settings),
        Command::Serve(_) => unreachable!("othello serve runs othello-serve"),
        Command::Solve(args) => solve::run(args, settings),
        Command::Tournament(args) => tournament::run(args, settings),
        Command::Train(args) => train::run(args, &settings.engine),
        Command::Probcut(args) => probcut::run(args, settings),
        Command::Completions(args) => {
            let mut text = Vec::new();
            clap_complete::generate(args.shell, &mut root_command(), "othello", &mut text);
            write_stdout(&String::from_utf8_lossy(&text))
        }
        Command::Man(args) => {
            let root = root_command();
            let command = match &args.command {
                None => root,
                Some(name) => root
                    .find_subcommand(name)
                    .ok_or_else(|| anyhow!("bad argument {name:?}: not a command (othello --help lists them)"))?
                    .clone()
                    .name(format!("othello-{name}").leak() as &str)
                    .version(env!("CARGO_PKG_VERSION")),
            };
            write_stdout(&manual_page(command)?)
        }
    }
}

/// A command's manual page: clap_mangen's sections, but the text after the options (the examples
/// and the command lists) kept as laid out, which roff would run together into one paragraph, and
/// the version without the CPU line of `--version` (a page is made once, read on other machines).
fn manual_page(command: clap::Command) -> Result<String> {
    let mut command = command.long_version(None::<&str>);
    command.build();
    let man = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    if command.get_arguments().any(|arg| !arg.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    if command.get_subcommands().any(|sub| !sub.is_hide_set()) {
        man.render_subcommands_section(&mut page)?;
    }
    let mut page = String::from_utf8_lossy(&page).into_owned();
    if let Some(extra) = command.get_after_long_help().or_else(|| command.get_after_help()) {
        page.push_str(".SH EXTRA\n.nf\n");
        for line in extra.to_string().lines() {
            // roff reads a backslash as an escape, and a line starting with `.` or `'` as a request.
            let line = line.replace('\\', "\\e");
            if line.starts_with(['.', '\'']) {
                page.push_str("\\&");
            }
            page.push_str(&line);
            page.push('\n');
        }
        page.push_str(".fi\n");
    }
    if let Some(version) = command.get_version() {
        page.push_str(&format!(".SH VERSION\nv{version}\n"));
    }
    Ok(page)
}

/// `--version`: the version and the instruction-set level the searches run at on this CPU.
fn long_version() -> String {
    let (current, detected) = (Level::current(), Level::detected());
    format!(
        "{}\nsearches run with {} instructions (this CPU supports up to {}; OTHELLO_CPU=portable, avx2 or avx512 picks a lower level)",
        env!("CARGO_PKG_VERSION"),
        current.name(),
        detected.name()
    )
}

/// Clap's message without its usage block and `error: ` prefix: one line, as every error here.
fn first_line_of(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let message: Vec<&str> = rendered
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    let line = message.join(" ");
    let mut line = line.strip_prefix("error: ").unwrap_or(&line).to_string();
    // clap's tips (`a similar argument exists: '--games'`) are worth the rest of the line.
    for tip in rendered.lines().filter_map(|l| l.trim().strip_prefix("tip: ")) {
        line.push_str("; ");
        line.push_str(tip);
    }
    line
}

/// The lab mode's own words: the root options that do not change its output (`--color`, `-q`)
/// taken out, the ones that would (an evaluation, a book) refused, and `--` ending options (after
/// it, `--lab4` is no flag).
fn lab_words(args: &[String]) -> Result<Vec<String>> {
    let mut words = Vec::with_capacity(args.len());
    let mut rest = args.iter();
    while let Some(word) = rest.next() {
        let color = match word.as_str() {
            "--" => {
                for word in rest.by_ref() {
                    if word
                        .strip_prefix("--")
                        .is_some_and(|name| name.starts_with(|c: char| c.is_ascii_alphabetic()))
                    {
                        bail!(
                            "bad argument {word:?}: after `--` come a board, a token and moves only (an option goes before `--`)"
                        );
                    }
                    words.push(word.clone());
                }
                break;
            }
            "-q" | "--quiet" => continue,
            "--color" => Some(rest.next().map(String::as_str).unwrap_or("")),
            option if option.starts_with("--color=") => Some(&option["--color=".len()..]),
            option
                if ["--weights", "--book", "--no-book", "--book-deviation"]
                    .iter()
                    .any(|name| option == *name || option.starts_with(&format!("{name}="))) =>
            {
                let name = option.split('=').next().unwrap_or(option);
                bail!(
                    "bad argument {name:?}: the lab mode prints what the course's labs ask, with no evaluation or book to choose; give {name} to a command that plays (othello play, match, ...)"
                );
            }
            _ => None,
        };
        match color {
            Some(value) => {
                <display::ColorChoice as clap::ValueEnum>::from_str(value, false)
                    .map_err(|_| anyhow!("bad argument --color {value:?}: expected auto, always or never"))?;
            }
            None => words.push(word.clone()),
        }
    }
    Ok(words)
}

fn run_lab(args: &[String]) -> Result<()> {
    let request = LabRequest::parse(args)?;
    let mut out = String::with_capacity(256 * (request.moves.len() + 1));
    match lab::run(&request, &mut out) {
        // Nothing on stdout: the request was refused before any work.
        Err(too_deep @ lab::LabError::TooDeep { .. }) => Err(too_deep.into()),
        outcome => {
            write_stdout(&out)?;
            match outcome {
                Err(lab::LabError::Illegal(illegal)) => Err(illegal.into()),
                _ => Ok(()),
            }
        }
    }
}

/// Refuses a search that cannot end while anyone waits: more than `most` plies ahead, as far as the
/// position's empty squares let it go (`measured` says what the limit costs, as measured here).
pub(crate) fn within_reach(option: &str, depth: u32, empties: u32, most: u32, measured: &str) -> Result<()> {
    let plies = depth.min(empties);
    if plies > most {
        bail!(
            "bad argument {option} {depth}: {plies} plies from a position with {empties} empty squares would not end (each ply multiplies the time by 3 to 10); at most {most} ({measured})"
        );
    }
    Ok(())
}

/// Writes all of `text` to stdout; a closed pipe (`othello ... | head`) is not an error.
pub fn write_stdout(text: &str) -> Result<()> {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to stdout"),
    }
}

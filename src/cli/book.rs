//! `othello book build` and `othello book show`: the engine's opening book, made from its own
//! searches along its best lines and the lines games played, and what it holds for a position.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use super::display::Progress;
use super::output::Output;
use super::write_stdout;
use othello_engine::search::book::Book;
use othello_engine::training::book::{self, BuildConfig, Played};

#[derive(Args, Debug)]
pub struct BookArgs {
    #[command(subcommand)]
    command: BookCommand,
}

#[derive(Subcommand, Debug)]
enum BookCommand {
    /// Build a book from the engine's own searches: every position reached within PLIES plies by
    /// moves near the best, and those the --games played, each of its moves searched DEPTH plies
    Build(BuildArgs),
    /// The moves a book has for a position, best first, with their values
    #[command(allow_negative_numbers = true)]
    Show(ShowArgs),
}

#[derive(Args, Debug)]
struct BuildArgs {
    /// The book file to write (checkpointed after each ply: a stopped build keeps the plies it finished)
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Plies from the start the book reaches
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=30))]
    plies: u32,
    /// Plies each move is searched (the full-width engine, trained evaluation)
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// Moves up to this many discs worse than the best are followed too
    #[arg(long, value_name = "DISCS", default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=64))]
    width: u32,
    /// At most this many positions expanded (each costs a search of every move)
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    positions: u64,
    /// Threads (default: all cores); the book is the same on any number
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
    /// Games whose positions within PLIES plies the book takes in too (after the engine's own
    /// lines, most played first), where at least --min-games reached them: any file `othello
    /// replay` reads (a log, GGF, transcripts, a WTHOR database, Logistello's .gam lines, gzipped
    /// or not); may be given more than once
    #[arg(long, value_name = "FILE")]
    games: Vec<PathBuf>,
    /// The games that must have reached a position for the book to take it in
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    min_games: u32,
}

#[derive(Args, Debug)]
struct ShowArgs {
    /// The book file
    book: PathBuf,
    #[command(flatten)]
    position: super::lookahead::PositionArgs,
}

pub fn run(args: BookArgs, settings: &super::Settings) -> Result<()> {
    match args.command {
        BookCommand::Build(args) => build(args, settings),
        BookCommand::Show(args) => show(args),
    }
}

fn build(args: BuildArgs, settings: &super::Settings) -> Result<()> {
    super::output::Files::new()
        .inputs("--games", &args.games)
        .output("--out", Some(&args.out))
        .check()?;
    // The games are read before anything is written: a bad one leaves no book behind.
    let mut played = Played::new(args.plies);
    let mut games = 0u64;
    for path in &args.games {
        super::replay::each_game(path, |named| {
            played.add_game(&named.game);
            games += 1;
            Ok(())
        })?;
    }
    let mut output = Output::open(&args.out)?;
    let config = BuildConfig {
        plies: args.plies,
        depth: args.depth,
        width: args.width as i32,
        positions: args.positions as usize,
        min_games: args.min_games,
        engine: settings.engine,
    };
    let progress = Progress::new(args.plies as usize, "plies", &settings.output);
    let mut error = None;
    let started = std::time::Instant::now();
    let book = book::build(config, &played, super::threads_or_cores(args.threads), |book, _, _| {
        progress.tick();
        if error.is_none() {
            error = output.publish(&book.to_text()).err();
        }
    });
    progress.finish();
    if let Some(error) = error {
        return Err(error);
    }
    output.finish(&book.to_text())?;
    let mut said = format!(
        "{}: {} positions, {} plies, searched {} plies deep, width {} discs, in {:.1} s\n",
        args.out.display(),
        book.len(),
        args.plies,
        args.depth,
        args.width,
        started.elapsed().as_secs_f64()
    );
    if !args.games.is_empty() {
        let taken = (0..args.plies)
            .map(|ply| played.at_ply(ply, args.min_games).len())
            .sum::<usize>();
        said += &format!(
            "the games: {games}, reaching {} positions within {} plies, {taken} of them by at least {} games\n",
            played.len(),
            args.plies,
            args.min_games
        );
        if played.uncounted > 0 {
            said += &format!(
                "past the first {} positions, {} positions of the games were not counted\n",
                book::MAX_PLAYED,
                played.uncounted
            );
        }
    }
    write_stdout(&said)
}

fn show(args: ShowArgs) -> Result<()> {
    let book = read(&args.book)?;
    let position = args.position.position()?;
    let Some(moves) = book.moves(position.board) else {
        return write_stdout(&format!(
            "the book has no moves for this position ({} positions in {})\n",
            book.len(),
            args.book.display()
        ));
    };
    let mut text = String::new();
    for (square, value) in moves {
        text += &format!("{square} {:+} (depth {})\n", value.discs, value.depth);
    }
    write_stdout(&text)
}

/// A book file, read whole (a book of millions of positions is hundreds of megabytes of text: the
/// limit of any text file here).
pub fn read(path: &std::path::Path) -> Result<Book> {
    let text = othello_plumbing::files::read_text(path)?;
    Book::parse(&text).with_context(|| format!("bad book {}", path.display()))
}

//! `othello play`: a person against the computer (or any two players) in the terminal, from the
//! start, a board or a transcript; with move numbers, undo and redo, hints valued by the analysis,
//! announced passes, the computer's statistics, an optional game log, and an optional record of
//! the console written as the game goes.

use std::io::BufRead;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};
use clap::Args;
use itertools::Itertools;

use super::display::capitalised;
use super::output::Output;
use super::{display, write_stdout};
use othello_core::game::{Forfeit, Game, MoveStats, Status, Turn};
use othello_core::log::GameLog;
use othello_core::notation::transcript;
use othello_core::player::Strategy;
use othello_core::square::Square;
use othello_course::strategy::StrategySpec;
use othello_engine::search::analysis::{Analyst, MoveValue, Settings};

/// Who plays a side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Player {
    Human,
    Computer(StrategySpec),
}

impl FromStr for Player {
    type Err = othello_course::strategy::UnknownStrategy;

    fn from_str(text: &str) -> Result<Player, Self::Err> {
        if text == "human" {
            Ok(Player::Human)
        } else {
            text.parse().map(Player::Computer)
        }
    }
}

impl Player {
    /// The computer's strategy, seeded; none for a person.
    fn strategy(&self, seed: u64, engine: &othello_engine::settings::EngineSettings) -> Option<Box<dyn Strategy>> {
        match self {
            Player::Human => None,
            Player::Computer(spec) => Some(spec.build(seed, engine)),
        }
    }
}

impl std::fmt::Display for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Player::Human => f.write_str("human"),
            Player::Computer(spec) => spec.fmt(f),
        }
    }
}

/// The strategy that plays a computer side by default.
pub const DEFAULT_COMPUTER: &str = "engine";

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Who plays black: `human` or a strategy (random, greedy, weighted, alphabeta:6:mobility, engine:MS, ...)
    #[arg(long, default_value = "human")]
    black: Player,
    /// Who plays white: `human` or a strategy (default: the engine, a second a move)
    #[arg(long, default_value = DEFAULT_COMPUTER)]
    white: Player,
    /// Seed for random strategies
    #[arg(long, default_value_t = 1, value_parser = super::seed)]
    seed: u64,
    /// Write the game as JSON, kept current after every move
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Record what the console shows to this file as the game goes (a stopped game keeps it)
    #[arg(long, value_name = "FILE", alias = "transcript")]
    record: Option<PathBuf>,
    /// Start from this position (BOARD [TOKEN] as in the lab mode) and/or after these moves
    #[command(flatten)]
    position: super::lookahead::PositionArgs,
    #[command(flatten)]
    clock: super::ClockArgs,
}

const HELP: &str = "\
Type a move as d3, D3 or 19. Other commands:
  undo   take back your last move (and the replies to it)
  redo   play again what undo took back
  hint   every legal move with its value, best first (exact near the end)
  help   show this text
  quit   leave the game (end of input does the same)
";

/// Searches that take longer than this show a line saying that the computer is thinking.
const THINKING_NOTICE: std::time::Duration = std::time::Duration::from_millis(250);

/// What the console shows, also written to the --record file as it goes.
struct Console {
    record: Option<Output>,
}

impl Console {
    fn show(&mut self, text: &str) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        // The record first: a record that cannot be written stops the game before the
        // console shows anything more.
        if let Some(record) = &mut self.record {
            record.append(text)?;
        }
        write_stdout(text)
    }
}

pub fn run(args: PlayArgs, settings: &super::Settings) -> Result<()> {
    let (engine, output) = (&settings.engine, &settings.output);
    let players = [prepared(&args, &args.black, 1)?, prepared(&args, &args.white, 2)?];
    let programs = players.iter().flat_map(|player| match player {
        Player::Computer(spec) => spec.files(),
        Player::Human => Vec::new(),
    });
    super::output::Files::new()
        .inputs("the player's file", programs)
        .output("--log", args.log.as_deref())
        .output("--record", args.record.as_deref())
        .check()?;
    // The log is opened before the game and kept current after every turn: a game left by Ctrl-C,
    // or by input that cannot be read, keeps every move made so far.
    let mut log = args.log.as_deref().map(Output::open).transpose()?;
    let mut console = Console {
        record: args.record.as_deref().map(Output::open_stream).transpose()?,
    };
    let mut logged_turns = None;
    // Each computer player seeded apart: black with the seed, white with the next.
    let mut strategies: Vec<Option<Box<dyn Strategy>>> = players
        .iter()
        .zip([args.seed, args.seed.wrapping_add(1)])
        .map(|(player, seed)| player.strategy(seed, engine))
        .collect();
    let colour = output.colour_stdout();
    let started = SystemTime::now();
    let mut game = args.position.game()?;
    let mut input = Input::new();
    let mut out = format!("x (black): {}, o (white): {}\n", args.black, args.white);
    if players.contains(&Player::Human) {
        out += "Type help for the commands.\n";
    }
    let mut shown = false;
    let mut redo: Vec<Turn> = Vec::new();
    let mut analyst = None;
    let mut forfeit = None;
    let mut interrupted = false;
    let finished = loop {
        if let Some(log) = &mut log
            && logged_turns != Some(game.turns().len())
        {
            log.publish(&game_log(&game, &args, started, None)?)?;
            logged_turns = Some(game.turns().len());
        }
        if !shown {
            let marked = match game.status() {
                Status::ToMove(side) if players[side.index()] == Player::Human => game.position().moves(),
                _ => othello_core::bitboard::Bitboard::EMPTY,
            };
            out += &display::board(game.position(), marked, game.moves().last(), colour);
            out += &moves_so_far(&game);
            shown = true;
        }
        match game.status() {
            Status::Over => break true,
            Status::MustPass(side) => {
                out += &format!("{} ({side}) has no legal move and passes.\n", side.lab_char());
                game.pass().expect("the pass is forced");
                // The board again, with the moves of the side that now has them.
                shown = false;
            }
            Status::ToMove(side) => {
                if let Some(strategy) = strategies[side.index()].as_mut() {
                    console.show(&std::mem::take(&mut out))?;
                    match computer_turn(&mut console, strategy.as_mut(), &mut game, side)? {
                        Ok(line) => {
                            out += &line;
                            redo.clear();
                            shown = false;
                            continue;
                        }
                        Err((text, lost)) => {
                            out += &text;
                            forfeit = Some(lost);
                            break false;
                        }
                    }
                }
                console.show(&std::mem::take(&mut out))?;
                let prompt = format!("{} ({side}) to move> ", side.lab_char());
                let line = match input.line(&prompt, &mut console)? {
                    Typing::Line(line) => line,
                    Typing::End => {
                        out += "\nEnd of input: the game is left unfinished.\n";
                        break false;
                    }
                    Typing::Interrupted => {
                        out += "\nInterrupted: the game is left unfinished.\n";
                        interrupted = true;
                        break false;
                    }
                };
                let prompt = Prompt {
                    game: &mut game,
                    players: &players,
                    redo: &mut redo,
                    analyst: &mut analyst,
                    engine,
                    out: &mut out,
                    shown: &mut shown,
                };
                if typed(line.trim(), prompt, &mut console)? == Typed::Leave {
                    out += "The game is left unfinished.\n";
                    if args.log.is_none() {
                        out += "No log was kept (--log FILE keeps one).\n";
                    }
                    break false;
                }
            }
        }
    };
    if finished {
        out += &result_text(&game);
    }
    if let Some(log) = log {
        // Finished, not published: stdout and special files get the log only here.
        log.finish(&game_log(&game, &args, started, forfeit.as_ref())?)?;
        if let Some(path) = args.log.as_deref().filter(|path| !super::output::is_stdout(path)) {
            out += &format!("The game log is in {}.\n", path.display());
        }
    }
    out += &format!("Transcript: {}\n", transcript::format(&game));
    console.show(&out)?;
    if let Some(record) = console.record {
        record.finish("")?;
    }
    if interrupted {
        return Err(super::Interrupted.into());
    }
    Ok(())
}

/// A player as given, with the clock options applied to a computer (`nth`: 1 black, 2 white).
fn prepared(args: &PlayArgs, player: &Player, nth: usize) -> Result<Player> {
    Ok(match player {
        Player::Computer(spec) => Player::Computer(args.clock.prepare(spec, nth)?),
        Player::Human => Player::Human,
    })
}

/// `Game over: black 40, white 24. Black wins.`
fn result_text(game: &Game) -> String {
    let (black, white) = game.position().counts();
    match game.position().leader() {
        Some(color) => format!(
            "Game over: black {black}, white {white}. {} wins.\n",
            capitalised(color)
        ),
        None => format!("Game over: black {black}, white {white}. A draw.\n"),
    }
}

/// Where a person's lines come from: a line editor (arrow keys, history) when both stdin and stdout
/// are a terminal, else stdin as it is (a pipe, a file, a test).
enum Input {
    Editor(Box<rustyline::DefaultEditor>),
    Stream(std::io::StdinLock<'static>),
}

/// What the person typed.
enum Typing {
    Line(String),
    /// End of input (Ctrl-D, or a pipe's end).
    End,
    /// Ctrl-C at the prompt.
    Interrupted,
}

impl Input {
    fn new() -> Input {
        use std::io::IsTerminal;
        if std::io::stdin().is_terminal()
            && std::io::stdout().is_terminal()
            && let Ok(editor) = rustyline::DefaultEditor::new()
        {
            return Input::Editor(Box::new(editor));
        }
        Input::Stream(std::io::stdin().lock())
    }

    /// Shows `prompt` and reads a line; the record gets both.
    fn line(&mut self, prompt: &str, console: &mut Console) -> Result<Typing> {
        let typed = match self {
            Input::Editor(editor) => {
                if let Some(record) = &mut console.record {
                    record.append(prompt)?;
                }
                match editor.readline(prompt) {
                    Ok(line) => {
                        let _ = editor.add_history_entry(line.as_str());
                        Typing::Line(line)
                    }
                    Err(rustyline::error::ReadlineError::Interrupted) => Typing::Interrupted,
                    Err(rustyline::error::ReadlineError::Eof) => Typing::End,
                    Err(error) => return Err(error).context("cannot read the input"),
                }
            }
            Input::Stream(stdin) => {
                console.show(prompt)?;
                let mut bytes = Vec::new();
                if stdin.read_until(b'\n', &mut bytes).context("cannot read the input")? == 0 {
                    Typing::End
                } else {
                    // A line that is not text is read as far as it goes; it will not be a move.
                    Typing::Line(String::from_utf8_lossy(&bytes).into_owned())
                }
            }
        };
        if let (Typing::Line(line), Some(record)) = (&typed, &mut console.record) {
            record.append(&format!("{}\n", line.trim_end()))?;
        }
        Ok(typed)
    }
}

/// What a person's turn can change, borrowed from `run` for the line typed at the prompt.
struct Prompt<'a> {
    game: &'a mut Game,
    players: &'a [Player; 2],
    /// Turns undone, the latest undone last: what `redo` plays again.
    redo: &'a mut Vec<Turn>,
    /// Made at the first hint, of these settings.
    analyst: &'a mut Option<Analyst>,
    engine: &'a othello_engine::settings::EngineSettings,
    /// What to show next.
    out: &'a mut String,
    /// Whether the board has been shown since it last changed.
    shown: &'a mut bool,
}

/// Whether the person goes on or leaves the game.
#[derive(PartialEq, Eq)]
enum Typed {
    Continue,
    Leave,
}

/// Carries out a line typed at the prompt: a move, or one of the commands of `HELP`.
fn typed(line: &str, prompt: Prompt, console: &mut Console) -> Result<Typed> {
    let Prompt {
        game,
        players,
        redo,
        analyst,
        engine,
        out,
        shown,
    } = prompt;
    match line {
        "" => {}
        "quit" | "exit" => return Ok(Typed::Leave),
        "help" | "?" => *out += HELP,
        "hint" => {
            console.show(&std::mem::take(out))?;
            let analyst = analyst.get_or_insert_with(|| Analyst::new(Settings::default(), engine));
            let board = game.position().board;
            let moves = with_notice(console, "thinking...\n", || analyst.moves(board))?;
            *out += &hint_text(&moves);
        }
        "undo" => {
            let undone = undo_to_human_turn(game, players);
            if undone.is_empty() {
                *out += "There is no move of yours to take back.\n";
            } else {
                let in_order: Vec<Turn> = undone.iter().rev().copied().collect();
                *out += &format!("Took back {}.\n", turns_text(&in_order));
                // Redo plays the latest undone turns first: they were undone last.
                redo.extend(undone);
                *shown = false;
            }
        }
        "redo" => {
            let replayed = redo_human_turn(game, redo, players);
            if replayed.is_empty() {
                *out += "There is nothing to redo.\n";
            } else {
                *out += &format!("Played again {}.\n", turns_text(&replayed));
                *shown = false;
            }
        }
        text => match text.parse::<Square>() {
            Ok(square) => match game.play(square, None) {
                Ok(_) => {
                    redo.clear();
                    *shown = false;
                }
                Err(why) => {
                    let legal = game.position().moves().squares().join(", ");
                    *out += &format!("{square} is not legal: {why}. Legal moves: {legal}\n");
                }
            },
            Err(error) => *out += &format!("{error}; type help for the commands\n"),
        },
    }
    Ok(Typed::Continue)
}

/// The computer's turn: it chooses (with a notice when that takes a while) and its move is played.
/// Returns the line saying so, or the text and forfeit of a program that gave no move.
fn computer_turn(
    console: &mut Console,
    strategy: &mut dyn Strategy,
    game: &mut Game,
    side: othello_core::color::Color,
) -> Result<Result<String, (String, Forfeit)>> {
    let clock = Instant::now();
    let thinking = format!("{} ({side}) is thinking...\n", side.lab_char());
    let position = game.position();
    let decision = match with_notice(console, &thinking, || strategy.choose(position))? {
        Ok(decision) => decision,
        Err(failed) => {
            let text = format!(
                "{} ({side}) gave no move: {}. The game ends: {side} forfeits it.\n",
                side.lab_char(),
                failed.describe()
            );
            return Ok(Err((text, Forfeit { side, failed })));
        }
    };
    let seconds = clock.elapsed().as_secs_f64();
    game.play(
        decision.square,
        Some(MoveStats {
            value: decision.value,
            nodes: decision.nodes,
            seconds,
        }),
    )
    .expect("strategies return legal moves");
    let value = decision.value.map_or(String::new(), |v| format!("{v}, "));
    Ok(Ok(format!(
        "{} ({side}) plays {} ({}): {value}{} nodes, {:.1} ms\n",
        side.lab_char(),
        decision.square,
        decision.square.index(),
        decision.nodes,
        seconds * 1e3
    )))
}

/// Runs `work` (on a thread of its own), and if it takes longer than `THINKING_NOTICE`, shows
/// `notice` meanwhile.
fn with_notice<T: Send>(console: &mut Console, notice: &str, work: impl FnOnce() -> T + Send) -> Result<T> {
    std::thread::scope(|scope| {
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let worker = scope.spawn(move || {
            let result = work();
            let _ = done.send(());
            result
        });
        if finished.recv_timeout(THINKING_NOTICE).is_err() {
            console.show(notice)?;
        }
        Ok(worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// The move about to be made, and the game's moves so far as a transcript.
fn moves_so_far(game: &Game) -> String {
    let number = game.moves().count() + 1;
    if game.is_over() {
        return format!("Moves: {}\n", transcript::format(game));
    }
    match game.moves().count() {
        0 => format!("Move {number}.\n"),
        _ => format!("Move {number}; so far: {}\n", transcript::format(game)),
    }
}

/// The best moves with their values, from the analysis.
fn hint_text(moves: &[MoveValue]) -> String {
    let shown = moves.iter().map(|m| format!("{} {}", m.square, m.value)).join("; ");
    format!("hint, best first: {shown}\n")
}

/// Turns as words: `d3 (black), c5 (white)`, passes named.
fn turns_text(turns: &[Turn]) -> String {
    turns
        .iter()
        .map(|turn| match turn {
            Turn::Move { side, square, .. } => format!("{square} ({side})"),
            Turn::Pass { side } => format!("a pass ({side})"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The game as its JSON log, with the forfeit if a program gave no move.
fn game_log(game: &Game, args: &PlayArgs, started: SystemTime, forfeit: Option<&Forfeit>) -> Result<String> {
    let mut log = GameLog::from_game(
        game,
        &args.black.to_string(),
        &args.white.to_string(),
        (started, SystemTime::now()),
    );
    if let Some(forfeit) = forfeit {
        log.record_forfeit(forfeit);
    }
    Ok(serde_json::to_string_pretty(&log)? + "\n")
}

/// Plays again the human move taken back last, and the replies to it; returns them in order.
fn redo_human_turn(game: &mut Game, redo: &mut Vec<Turn>, players: &[Player; 2]) -> Vec<Turn> {
    let mut replayed = Vec::new();
    while let Some(&turn) = redo.last() {
        let human = matches!(turn, Turn::Move { side, .. } if players[side.index()] == Player::Human);
        if human && !replayed.is_empty() {
            break;
        }
        redo.pop();
        match turn {
            Turn::Move { square, stats, .. } => {
                game.play(square, stats).expect("a taken-back move is legal again");
            }
            Turn::Pass { .. } => game.pass().expect("a taken-back pass is forced again"),
        }
        replayed.push(turn);
    }
    replayed
}

/// Takes back turns until a human is to move again, having taken back at least one human move;
/// returns them, the last one taken back last (none if there was no human move).
fn undo_to_human_turn(game: &mut Game, players: &[Player; 2]) -> Vec<Turn> {
    let human_moved = |turn: &Turn| matches!(turn, Turn::Move { side, .. } if players[side.index()] == Player::Human);
    let mut undone = Vec::new();
    if !game.turns().iter().any(human_moved) {
        return undone;
    }
    while let Some(turn) = game.undo() {
        undone.push(turn);
        if human_moved(&turn) {
            break;
        }
    }
    undone
}

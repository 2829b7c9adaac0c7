//! `othello play`: a person against the computer (or any two players) in the terminal, with undo,
//! hints, announced passes, the computer's statistics, and an optional game log.

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::str::FromStr;
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};
use clap::Args;

use super::output::Output;
use super::{display, write_stdout};
use crate::color::Color;
use crate::game::{Forfeit, Game, MoveStats, Status, Turn};
use crate::log::GameLog;
use crate::position::Position;
use crate::square::Square;
use crate::strategy::{Strategy, StrategySpec};

/// Who plays a side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Player {
    Human,
    Computer(StrategySpec),
}

impl FromStr for Player {
    type Err = crate::strategy::UnknownStrategy;

    fn from_str(text: &str) -> Result<Player, Self::Err> {
        if text == "human" {
            Ok(Player::Human)
        } else {
            text.parse().map(Player::Computer)
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

/// The strategy that plays a computer side by default and gives hints.
pub const DEFAULT_COMPUTER: &str = "alphabeta:6:mobility";

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Who plays black: `human` or a strategy (random, greedy, weighted, alphabeta:6:mobility, ...)
    #[arg(long, default_value = "human")]
    black: Player,
    /// Who plays white: `human` or a strategy
    #[arg(long, default_value = DEFAULT_COMPUTER)]
    white: Player,
    /// Seed for random strategies
    #[arg(long, default_value_t = 1, value_parser = super::seed)]
    seed: u64,
    /// Write the game as JSON when it ends (or is left)
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    #[command(flatten)]
    clock: super::ClockArgs,
}

const HELP: &str = "\
Type a move as d3, D3 or 19. Other commands:
  undo   take back your last move (and the replies to it)
  hint   suggest a move
  help   show this text
  quit   leave the game (end of input does the same)
";

pub fn run(args: PlayArgs) -> Result<()> {
    let prepared = |player: &Player| -> Result<Player> {
        Ok(match player {
            Player::Computer(spec) => Player::Computer(args.clock.prepare(spec)?),
            Player::Human => Player::Human,
        })
    };
    let players = [prepared(&args.black)?, prepared(&args.white)?];
    // The log is opened before the game and kept current after every turn: a game left by Ctrl-C,
    // or by input that cannot be read, keeps every move made so far.
    let mut log = args.log.as_deref().map(Output::open).transpose()?;
    let mut logged_turns = None;
    let mut strategies: Vec<Option<Box<dyn Strategy>>> = players
        .iter()
        .zip([args.seed, args.seed.wrapping_add(1)])
        .map(|(player, seed)| match player {
            Player::Human => None,
            Player::Computer(spec) => Some(spec.build(seed)),
        })
        .collect();
    let colour = std::io::stdout().is_terminal();
    let started = SystemTime::now();
    let mut game = Game::new(Position::START);
    let mut input = std::io::stdin().lock();
    let mut out = format!("x (black): {}, o (white): {}\n", args.black, args.white);
    if players.contains(&Player::Human) {
        out += "Type help for the commands.\n";
    }
    let mut shown = false;
    let mut forfeit = None;
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
                _ => crate::bitboard::Bitboard::EMPTY,
            };
            out += &display::board(game.position(), marked, game.moves().last(), colour);
            shown = true;
        }
        match game.status() {
            Status::Over => break true,
            Status::MustPass(side) => {
                out += &format!("{} ({side}) has no legal move and passes.\n", side.lab_char());
                game.pass().expect("the pass is forced");
            }
            Status::ToMove(side) => {
                if let Some(strategy) = strategies[side.index()].as_mut() {
                    let clock = Instant::now();
                    let decision = match strategy.choose(game.position()) {
                        Ok(decision) => decision,
                        Err(failed) => {
                            out += &format!(
                                "{} ({side}) gave no move: {}. The game ends: {side} forfeits it.\n",
                                side.lab_char(),
                                failed.describe()
                            );
                            forfeit = Some(Forfeit { side, failed });
                            break false;
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
                    out += &format!(
                        "{} ({side}) plays {} ({}): {value}{} nodes, {:.1} ms\n",
                        side.lab_char(),
                        decision.square,
                        decision.square.index(),
                        decision.nodes,
                        seconds * 1e3
                    );
                    shown = false;
                    continue;
                }
                out += &format!("{} ({side}) to move> ", side.lab_char());
                write_stdout(&std::mem::take(&mut out))?;
                let mut bytes = Vec::new();
                if input.read_until(b'\n', &mut bytes).context("cannot read the input")? == 0 {
                    out += "\nEnd of input: the game is left unfinished.\n";
                    break false;
                }
                // A line that is not text is read as far as it goes; it will not be a move.
                let line = String::from_utf8_lossy(&bytes);
                match line.trim() {
                    "" => {}
                    "quit" | "exit" => {
                        out += "The game is left unfinished.\n";
                        break false;
                    }
                    "help" | "?" => out += HELP,
                    "hint" => {
                        let hint = StrategySpec::from_str(DEFAULT_COMPUTER)
                            .expect("valid")
                            .build(0)
                            .choose(game.position())
                            .expect("built-in strategies always move");
                        out += &format!("hint: {} ({})\n", hint.square, hint.square.index());
                    }
                    "undo" => {
                        if undo_to_human_turn(&mut game, &players) {
                            shown = false;
                        } else {
                            out += "There is no move of yours to take back.\n";
                        }
                    }
                    text => match text.parse::<Square>() {
                        Ok(square) => match game.play(square, None) {
                            Ok(_) => shown = false,
                            Err(why) => {
                                let legal: Vec<String> =
                                    game.position().moves().squares().map(|s| s.to_string()).collect();
                                out += &format!("{square} is not legal: {why}. Legal moves: {}\n", legal.join(", "));
                            }
                        },
                        Err(error) => out += &format!("{error}; type help for the commands\n"),
                    },
                }
            }
        }
    };
    if finished {
        let (black, white) = game.position().counts();
        out += &match game.position().leader() {
            Some(color) => format!(
                "Game over: black {black}, white {white}. {} wins.\n",
                capitalised(color)
            ),
            None => format!("Game over: black {black}, white {white}. A draw.\n"),
        };
    }
    if let Some(mut log) = log {
        log.publish(&game_log(&game, &args, started, forfeit.as_ref())?)?;
        if let Some(path) = &args.log {
            out += &format!("The game log is in {}.\n", path.display());
        }
    }
    write_stdout(&out)
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

fn capitalised(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// Takes back turns until a human is to move again, having taken back at least one human move.
fn undo_to_human_turn(game: &mut Game, players: &[Player; 2]) -> bool {
    let human_moved = |turn: &Turn| matches!(turn, Turn::Move { side, .. } if players[side.index()] == Player::Human);
    if !game.turns().iter().any(human_moved) {
        return false;
    }
    while let Some(turn) = game.undo() {
        if human_moved(&turn) {
            break;
        }
    }
    true
}

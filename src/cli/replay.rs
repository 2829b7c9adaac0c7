//! `othello replay FILE`: checks a game log (one JSON object), a match log (JSON Lines) or condensed
//! transcripts (one a line, or one given in place of the file) against the rules and prints where each
//! game ended.

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow};
use clap::Args;

use super::{display, write_stdout};
use othello_core::bitboard::Bitboard;
use othello_core::game::Game;
use othello_core::log::GameLog;
use othello_core::notation::condensed;
use othello_core::notation::{ggf, transcript};
use othello_core::position::Position;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A log written by `othello play --log`, `match --log`, `lab4 --log` or `tournament --log`; a
    /// file of condensed transcripts (one game a line, from the start position); or one condensed
    /// transcript itself, such as 4445_9-157; a GGF file; or a plain transcript such as f5d6c3 (a
    /// file of them, one game a line, or one itself)
    file: PathBuf,
    /// Print each game in this notation instead of checking it: ggf, or transcript (f5d6c3...)
    #[arg(long, value_name = "NOTATION")]
    to: Option<Notation>,
    /// Show every game board by board, as the course's moderator prints them: each move, then the
    /// board with it in upper case and the next side's moves as `*`
    #[arg(long, conflicts_with = "to")]
    boards: bool,
    /// Write one self-contained page that steps through every game board by board (arrow keys, a
    /// slider, the move list; the logged values as a graph), for a browser, without a server
    #[arg(long, value_name = "FILE", conflicts_with_all = ["to", "boards"])]
    html: Option<PathBuf>,
}

/// The notations `--to` writes.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Notation {
    Ggf,
    Transcript,
}

/// A game with its players, whatever the file it came from.
struct Named {
    black: String,
    white: String,
    game: Game,
}

/// Every game of a GGF file or of plain transcripts (one a line), or `None` if `text` is neither.
fn plain_games(text: &str) -> Option<Result<Vec<Named>>> {
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.starts_with("(;") {
        return Some(ggf::parse(trimmed).map_err(Into::into).map(|games| {
            games
                .into_iter()
                .map(|g| Named {
                    black: g.black,
                    white: g.white,
                    game: g.game,
                })
                .collect()
        }));
    }
    let lines: Vec<&str> = trimmed.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.is_empty() || !lines.iter().all(|line| transcript::has_shape(line)) {
        return None;
    }
    Some(
        lines
            .iter()
            .enumerate()
            .map(|(k, line)| {
                let game = transcript::play(Position::START, line).with_context(|| format!("game {}", k + 1))?;
                Ok(Named {
                    black: "black".to_string(),
                    white: "white".to_string(),
                    game,
                })
            })
            .collect(),
    )
}

/// A game in `notation`, one line.
fn written(named: &Named, notation: Notation) -> String {
    match notation {
        Notation::Ggf => ggf::format(&named.game, &named.black, &named.white) + "\n",
        Notation::Transcript => transcript::format(&named.game) + "\n",
    }
}

/// A game of a GGF file or a plain transcript, checked: where it ended.
fn plain_summary(named: &Named) -> String {
    let game = &named.game;
    let (black, white) = game.position().counts();
    let verdict = match (game.is_over(), game.position().leader()) {
        (false, _) => "unfinished".to_string(),
        (true, Some(color)) => format!("{color} wins"),
        (true, None) => "a draw".to_string(),
    };
    let moves = game.moves().count();
    format!(
        "{} (black) vs {} (white): black {black}, white {white}, {verdict}; {} and {}, all legal\n",
        named.black,
        named.white,
        display::counted(moves as u64, "move", "moves"),
        display::counted((game.turns().len() - moves) as u64, "pass", "passes"),
    )
}

/// One game read back: its log, the game rebuilt from it, and where it came from in the file.
struct Replayed {
    line: usize,
    log: GameLog,
    game: Game,
}

/// A game board by board from its start: the start, then each turn and the board after it.
fn board_by_board(game: &Game) -> String {
    let mut replay = Game::new(game.start());
    let mut out = format!("start, {} to move:\n", replay.position().to_move.lab_char());
    out += &display::board(replay.position(), replay.position().moves(), None, false);
    for (number, turn) in game.turns().iter().enumerate() {
        let side = turn.side().lab_char();
        match *turn {
            othello_core::game::Turn::Move { square, .. } => {
                replay.play(square, None).expect("a checked game replays");
                out += &format!("\nmove {}: {side} plays {square} ({})\n", number + 1, square.index());
            }
            othello_core::game::Turn::Pass { .. } => {
                replay.pass().expect("a checked game replays");
                out += &format!("\nmove {}: {side} passes\n", number + 1);
            }
        }
        let position = replay.position();
        let moves = if replay.is_over() {
            Bitboard::EMPTY
        } else {
            position.moves()
        };
        let last = replay
            .moves()
            .last()
            .filter(|_| matches!(turn, othello_core::game::Turn::Move { .. }));
        out += &display::board(position, moves, last, false);
    }
    out
}

pub fn run(args: ReplayArgs) -> Result<()> {
    if let Some(html) = &args.html {
        return write_page(&args, html);
    }
    let path = &args.file;
    let word = path.to_string_lossy();
    if !path.exists() && condensed::has_shape(&word) && args.to.is_none() {
        let (game, summary) = replay_condensed(&word)?;
        let boards = if args.boards {
            board_by_board(&game) + "\n"
        } else {
            String::new()
        };
        return write_stdout(&(boards + &summary));
    }
    let text = if !path.exists() && transcript::has_shape(&word) {
        word.to_string()
    } else {
        othello_plumbing::files::read_text(path)?
    };
    let named = match plain_games(&text) {
        Some(games) => games.with_context(|| format!("bad game {}", path.display()))?,
        None if args.to.is_some() => logged(&text, path)?,
        None => Vec::new(),
    };
    if let Some(notation) = args.to {
        return write_stdout(&named.iter().map(|n| written(n, notation)).collect::<String>());
    }
    if !named.is_empty() && args.boards {
        return write_stdout(
            &named
                .iter()
                .enumerate()
                .map(|(k, n)| format!("game {}:\n{}\n{}", k + 1, board_by_board(&n.game), plain_summary(n)))
                .collect::<String>(),
        );
    }
    if !named.is_empty() {
        return write_stdout(&match named.as_slice() {
            [single] => {
                let last = single.game.moves().last();
                display::board(single.game.position(), Bitboard::EMPTY, last, false) + &plain_summary(single)
            }
            many => many
                .iter()
                .enumerate()
                .map(|(k, n)| format!("game {}: {}", k + 1, plain_summary(n)))
                .collect(),
        });
    }
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if !lines.is_empty() && lines.iter().all(|line| condensed::has_shape(line)) {
        let mut out = String::new();
        for (number, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let (game, summary) = replay_condensed(line.trim())
                .with_context(|| format!("bad transcript {}, line {}", path.display(), number + 1))?;
            if args.boards {
                out += &format!("line {}:\n{}\n", number + 1, board_by_board(&game));
            }
            out += &format!("line {}: {summary}", number + 1);
        }
        return write_stdout(&out);
    }
    let games = read_games(&text).with_context(|| format!("bad log {}", path.display()))?;
    let mut out = String::new();
    if args.boards {
        for replayed in &games {
            out += &format!(
                "line {}:\n{}\n{}",
                replayed.line,
                board_by_board(&replayed.game),
                summary(replayed)
            );
        }
    } else if let [single] = games.as_slice() {
        let last = single.game.moves().last();
        out += &display::board(single.game.position(), Bitboard::EMPTY, last, false);
        out += &summary(single);
    } else {
        for replayed in &games {
            out += &format!("line {}: {}", replayed.line, summary(replayed));
        }
    }
    write_stdout(&out)
}

/// Every game of a log's text, with its players.
fn logged(text: &str, path: &std::path::Path) -> Result<Vec<Named>> {
    Ok(read_games(text)
        .with_context(|| format!("bad log {}", path.display()))?
        .into_iter()
        .map(|r| Named {
            black: r.log.black,
            white: r.log.white,
            game: r.game,
        })
        .collect())
}

/// `--html`: every game the input holds, whatever its form, on one page.
fn write_page(args: &ReplayArgs, html: &std::path::Path) -> Result<()> {
    let path = &args.file;
    let word = path.to_string_lossy();
    let input = (path.exists()).then_some(path.as_path());
    super::output::Files::new()
        .inputs("the games", input)
        .output("--html", Some(html))
        .check()?;
    let named: Vec<Named> = if input.is_none() && condensed::has_shape(&word) {
        let (game, _) = replay_condensed(&word)?;
        vec![Named {
            black: "x".to_string(),
            white: "o".to_string(),
            game,
        }]
    } else {
        let text = if input.is_none() && transcript::has_shape(&word) {
            word.to_string()
        } else {
            othello_plumbing::files::read_text(path)?
        };
        let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        match plain_games(&text) {
            Some(games) => games.with_context(|| format!("bad game {}", path.display()))?,
            None if !lines.is_empty() && lines.iter().all(|line| condensed::has_shape(line)) => lines
                .iter()
                .enumerate()
                .map(|(k, line)| {
                    let (game, _) = replay_condensed(line)
                        .with_context(|| format!("bad transcript {}, game {}", path.display(), k + 1))?;
                    Ok(Named {
                        black: "x".to_string(),
                        white: "o".to_string(),
                        game,
                    })
                })
                .collect::<Result<_>>()?,
            None => logged(&text, path)?,
        }
    };
    let games: Vec<(String, String, &Game)> = named
        .iter()
        .map(|n| (n.black.clone(), n.white.clone(), &n.game))
        .collect();
    let title = format!("Games of {}", path.display());
    super::output::Output::open(html)?.finish(&othello_course::replay_page::page(&title, &games))?;
    write_stdout(&format!(
        "{} on one page: {}\n",
        display::counted(games.len() as u64, "game", "games"),
        html.display()
    ))
}

/// The games of a log, each with the game rebuilt from it.
pub(super) fn read_logs(text: &str) -> Result<Vec<(GameLog, Game)>> {
    Ok(read_games(text)?.into_iter().map(|r| (r.log, r.game)).collect())
}

/// A whole-file JSON object, or JSON Lines when the first line is a complete object by itself.
fn read_games(text: &str) -> Result<Vec<Replayed>> {
    let first_line = text
        .lines()
        .position(|line| !line.trim().is_empty())
        .ok_or_else(|| anyhow!("the file is empty"))?;
    let is_json_lines = serde_json::from_str::<serde_json::Value>(text.lines().nth(first_line).unwrap_or("")).is_ok();
    if !is_json_lines {
        let log: GameLog =
            serde_json::from_str(text).map_err(|e| anyhow!("line {}, column {}: {e}", e.line(), e.column()))?;
        let line = first_line + 1;
        let game = log.replay().map_err(|e| anyhow!("game starting on line {line}: {e}"))?;
        return Ok(vec![Replayed { line, log, game }]);
    }
    // A log is written line by line as games finish: a run killed while writing (SIGKILL, a power
    // cut) may leave its last line cut off, without its newline. That game is left out, said so.
    let last = text.lines().count();
    let cut_off = !text.ends_with('\n');
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .filter(|&(index, line)| {
            let unfinished = cut_off && index + 1 == last && serde_json::from_str::<serde_json::Value>(line).is_err();
            if unfinished {
                eprintln!("othello: line {last} is cut off (the run that wrote it was stopped); it is left out");
            }
            !unfinished
        })
        .map(|(index, line)| {
            let number = index + 1;
            let log: GameLog = serde_json::from_str(line).map_err(|e| anyhow!("line {number}: {e}"))?;
            let game = log.replay().map_err(|e| anyhow!("line {number}: {e}"))?;
            Ok(Replayed {
                line: number,
                log,
                game,
            })
        })
        .collect()
}

fn summary(replayed: &Replayed) -> String {
    let (log, game) = (&replayed.log, &replayed.game);
    let (black, white) = game.position().counts();
    let verdict = match log.result.winner.as_str() {
        "draw" => "a draw".to_string(),
        "unfinished" => "unfinished".to_string(),
        winner => format!("{winner} wins"),
    };
    let moves = game.moves().count();
    let passes = game.turns().len() - moves;
    format!(
        "{} (black) vs {} (white): black {black}, white {white}, {verdict}; {} and {}, all legal\n",
        othello_plumbing::printable::escape(&log.black),
        othello_plumbing::printable::escape(&log.white),
        display::counted(moves as u64, "move", "moves"),
        display::counted(passes as u64, "pass", "passes"),
    )
}

/// Replays a condensed transcript from the start position (see `condensed::play`): the game, and
/// where it ended.
fn replay_condensed(text: &str) -> Result<(Game, String)> {
    let (game, ended_by) = condensed::play(text).map_err(|e| match e {
        condensed::PlayError::Form(form) => anyhow!("bad argument {text:?}: {form}"),
        other => anyhow!("bad transcript {text:?}: {other}"),
    })?;
    let (x, o) = game.position().counts();
    let moves = game.moves().count();
    let passes = game.turns().len() - moves;
    let end = match ended_by {
        Some((side, code)) => format!("{} failed with code -{code}", side.lab_char()),
        None if game.is_over() => match game.position().leader() {
            Some(color) => format!("{} wins", color.lab_char()),
            None => "a draw".to_string(),
        },
        None => "unfinished".to_string(),
    };
    let summary = format!(
        "x {x}, o {o}, {end}; {} and {}, all legal\n",
        display::counted(moves as u64, "move", "moves"),
        display::counted(passes as u64, "pass", "passes"),
    );
    Ok((game, summary))
}

//! `othello replay FILE`: checks a game log (one JSON object), a match log (JSON Lines), condensed
//! transcripts (one a line, or one given in place of the file), GGF, plain transcripts, Logistello's
//! `.gam` lines or a WTHOR database (`.wtb`) against the rules and prints where each game ended; or
//! writes them in another notation, or as a WTHOR database.

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow};
use clap::Args;

use super::collections::Kind;
use super::{display, write_stdout};
use othello_core::bitboard::Bitboard;
use othello_core::game::Game;
use othello_core::log::GameLog;
use othello_core::notation::condensed;
use othello_core::notation::{gam, ggf, transcript, wthor};
use othello_core::position::Position;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A log written by `othello play --log`, `match --log`, `lab4 --log` or `tournament --log`; a
    /// file of condensed transcripts (one game a line, from the start position); or one condensed
    /// transcript itself, such as 4445_9-157; a GGF file; a plain transcript such as f5d6c3 (a
    /// file of them, one game a line, or one itself); Logistello's .gam lines (+f5-d6...: +02); or a
    /// WTHOR database, FILE.wtb (players' and tournaments' names from WTHOR.JOU and WTHOR.TRN
    /// beside it)
    file: PathBuf,
    /// Write the games as a WTHOR database, FILE (with WTHOR.JOU and WTHOR.TRN beside it, which
    /// must not be there yet), so that the tools players use open them
    #[arg(long, value_name = "FILE", conflicts_with_all = ["to", "boards", "html"])]
    wthor_out: Option<PathBuf>,
    /// Print each game in this notation instead of checking it: ggf, transcript (f5d6c3...) or gam
    /// (Logistello's +f5-d6...: +02)
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
    /// Logistello's lines: +f5-d6...: +02
    Gam,
}

/// A game with its players, whatever the file it came from.
pub(super) struct Named {
    pub(super) black: String,
    pub(super) white: String,
    pub(super) game: Game,
}

/// Every game of a GGF file or of plain transcripts (one a line), or `None` if `text` is neither.
pub(super) fn plain_games(text: &str) -> Option<Result<Vec<Named>>> {
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
    if !lines.is_empty()
        && lines
            .iter()
            .all(|line| line.starts_with(['+', '-']) && line.contains(':'))
    {
        return Some(
            lines
                .iter()
                .enumerate()
                .map(|(k, line)| {
                    let read = gam::parse(line).with_context(|| format!("line {}", k + 1))?;
                    Ok(Named {
                        black: "black".to_string(),
                        white: "white".to_string(),
                        game: read.game,
                    })
                })
                .collect(),
        );
    }
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
        Notation::Gam => gam::format(&named.game) + "\n",
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
    if let Some(out) = &args.wthor_out {
        return write_wthor(path, out);
    }
    if is_collection(path) {
        // A game at a time: Logistello's 121,123 games need no more memory than one.
        let mut number = 0;
        return each_named(path, |named| {
            number += 1;
            write_stdout(&if let Some(notation) = args.to {
                written(&named, notation)
            } else if args.boards {
                format!(
                    "game {number}:\n{}\n{}",
                    board_by_board(&named.game),
                    plain_summary(&named)
                )
            } else {
                format!("game {number}: {}", plain_summary(&named))
            })
        });
    }
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

/// The most games of a collection held at once (a year of the federation's database has about
/// 6,000), where every one is held until the output is written (`analyze`, `--wthor-out`);
/// `replay` itself writes a game at a time.
const MAX_COLLECTION_GAMES: usize = 50_000;

/// Whether `path` names a game collection (a WTHOR database or Logistello's `.gam` lines, either
/// gzipped), read a game at a time.
pub(super) fn is_collection(path: &std::path::Path) -> bool {
    super::collections::kind(path).is_some()
}

/// The name file `name` (WTHOR.JOU, WTHOR.TRN) beside `path`, whatever its case, if it is there.
fn beside(path: &std::path::Path, name: &str) -> Option<PathBuf> {
    let folder = path
        .parent()
        .filter(|f| !f.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    std::fs::read_dir(folder)
        .ok()?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .find(|candidate| candidate.file_name().is_some_and(|n| n.eq_ignore_ascii_case(name)))
}

/// Calls `each` with every game of a collection in order, a WTHOR database's players named from
/// WTHOR.JOU where it lies beside it.
fn each_named(path: &std::path::Path, mut each: impl FnMut(Named) -> Result<()>) -> Result<()> {
    let players = match beside(path, "WTHOR.JOU").filter(|_| super::collections::kind(path) == Some(Kind::Wthor)) {
        Some(jou) => {
            let bytes = std::fs::read(&jou).with_context(|| format!("cannot read {}", jou.display()))?;
            wthor::read_names(&bytes, wthor::PLAYER_NAME_BYTES)
                .with_context(|| format!("bad WTHOR names {}", jou.display()))?
        }
        None => Vec::new(),
    };
    let name = |index: u16| {
        players
            .get(usize::from(index))
            .filter(|name| !name.is_empty())
            .map_or_else(
                || format!("player {index}"),
                |name| othello_plumbing::printable::escape(name).into_owned(),
            )
    };
    super::collections::for_each(path, |collected| {
        let (black, white) = match collected.players {
            Some((black, white)) => (name(black), name(white)),
            None => ("black".to_string(), "white".to_string()),
        };
        each(Named {
            black,
            white,
            game: collected.game,
        })
    })
}

/// Every game of a collection (at most [`MAX_COLLECTION_GAMES`]), for the commands that hold them
/// all.
pub(super) fn collection_games(path: &std::path::Path) -> Result<Vec<Named>> {
    let mut named = Vec::new();
    each_named(path, |game| {
        if named.len() == MAX_COLLECTION_GAMES {
            anyhow::bail!(
                "{}: more than {MAX_COLLECTION_GAMES} games; read it in parts (a WTHOR database a year at a time)",
                path.display()
            );
        }
        named.push(game);
        Ok(())
    })?;
    Ok(named)
}

/// `--wthor-out`: the games of `path`, whatever its form, written as a WTHOR database with its
/// players' names beside it (one tournament, `othello`); nothing written if any of it cannot be.
fn write_wthor(path: &std::path::Path, out: &std::path::Path) -> Result<()> {
    let folder = out
        .parent()
        .filter(|f| !f.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let (jou, trn) = (folder.join("WTHOR.JOU"), folder.join("WTHOR.TRN"));
    for names in [&jou, &trn] {
        if let Some(there) = beside(out, &names.file_name().unwrap_or_default().to_string_lossy()) {
            anyhow::bail!(
                "bad argument --wthor-out {}: {} is already there (a database's names are one file for all its years): write into a folder without one",
                out.display(),
                there.display()
            );
        }
    }
    let named = if is_collection(path) {
        collection_games(path)?
    } else {
        file_games(path)?
    };
    let mut players: Vec<String> = Vec::new();
    let mut index = |name: &str| -> Result<u16> {
        let at = match players.iter().position(|known| known == name) {
            Some(at) => at,
            None => {
                players.push(name.to_string());
                players.len() - 1
            }
        };
        u16::try_from(at).map_err(|_| anyhow!("more than 65,536 players: WTHOR numbers them in 16 bits"))
    };
    let mut records = Vec::with_capacity(named.len());
    for n in &named {
        if n.game.start() != Position::START {
            anyhow::bail!(
                "{}: a game that does not start from the start position cannot be written as WTHOR",
                path.display()
            );
        }
        let (black, white) = (index(&n.black)?, index(&n.white)?);
        records.push(wthor::Record::of(&n.game, 0, black, white));
    }
    let today = today();
    let header = wthor::Header {
        created: today,
        year: today.0,
        depth: 0,
    };
    othello_plumbing::files::write_whole(out, &wthor::write(&header, &records))
        .with_context(|| format!("cannot write {}", out.display()))?;
    othello_plumbing::files::write_whole(&jou, &wthor::write_names(&players, wthor::PLAYER_NAME_BYTES, today))
        .with_context(|| format!("cannot write {}", jou.display()))?;
    let tournaments = ["othello".to_string()];
    othello_plumbing::files::write_whole(
        &trn,
        &wthor::write_names(&tournaments, wthor::TOURNAMENT_NAME_BYTES, today),
    )
    .with_context(|| format!("cannot write {}", trn.display()))?;
    write_stdout(&format!(
        "{} written to {} (players in {}; each game's theoretical score is its own final score, depth 0)\n",
        display::counted(records.len() as u64, "game", "games"),
        out.display(),
        jou.display()
    ))
}

/// Today's date (UTC): year, month, day.
fn today() -> (u16, u8, u8) {
    let stamp = othello_core::log::rfc3339(std::time::SystemTime::now());
    let part = |range: std::ops::Range<usize>| stamp.get(range).and_then(|text| text.parse::<u16>().ok()).unwrap_or(1);
    (part(0..4), part(5..7) as u8, part(8..10) as u8)
}

/// Every game of a log's text, with its players.
/// Every game of a file that is not a collection: GGF, plain transcripts or a log.
fn file_games(path: &std::path::Path) -> Result<Vec<Named>> {
    let text = othello_plumbing::files::read_text(path)?;
    match plain_games(&text) {
        Some(games) => games.with_context(|| format!("bad game {}", path.display())),
        None => logged(&text, path),
    }
}

/// Calls `each` with every game of `path` whatever its form: a collection a game at a time, any
/// other file read whole.
pub(super) fn each_game(path: &std::path::Path, mut each: impl FnMut(Named) -> Result<()>) -> Result<()> {
    if is_collection(path) {
        return each_named(path, each);
    }
    file_games(path)?.into_iter().try_for_each(&mut each)
}

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
    let named: Vec<Named> = if is_collection(path) {
        collection_games(path)?
    } else if input.is_none() && condensed::has_shape(&word) {
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

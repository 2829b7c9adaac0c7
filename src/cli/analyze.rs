//! `othello analyze`: the value of every legal move of a position, or of every move of a game with
//! its loss against the best move, the mistakes and blunders, and the evaluation through the game
//! (a sparkline, and an SVG graph on request).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use itertools::Itertools;
use othello_course::json;

use super::display::capitalised;
use super::output::Output;
use super::write_stdout;
use othello_core::color::Color;
use othello_core::game::Game;
use othello_core::notation::{condensed, transcript};
use othello_core::position::Position;
use othello_core::value::Value;
use othello_engine::search::analysis::{
    AnalysedMove, Analyst, BLUNDER_DISCS, DEFAULT_DEPTH, DEFAULT_EXACT_EMPTIES, MISTAKE_DISCS, MoveValue, Settings,
    Verdict,
};

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// A position, BOARD [TOKEN] as in the lab mode or an OBF board (none: the start position), or a game: a
    /// transcript such as f5d6c3, or a file holding a log of ours, GGF games or a transcript
    #[arg(value_name = "BOARD|GAME")]
    what: Option<String>,
    /// The side to move after BOARD, x or o
    #[arg(value_name = "TOKEN")]
    token: Option<String>,
    /// Analyse the position after these moves (a transcript, from BOARD or the start)
    #[arg(long, value_name = "TRANSCRIPT")]
    moves: Option<String>,
    /// Solve moves exactly when they leave at most this many empty squares
    #[arg(long, value_name = "EMPTIES", default_value_t = DEFAULT_EXACT_EMPTIES,
          value_parser = clap::value_parser!(u32).range(0..=30))]
    exact_empties: u32,
    /// Plies the engine searches after each other move, for its estimate (the same for every move,
    /// and the same values on every machine)
    #[arg(long, value_name = "PLIES", default_value_t = DEFAULT_DEPTH,
          value_parser = clap::value_parser!(u32).range(1..=30))]
    depth: u32,
    /// Which game of a file holding several (a match log, a GGF file), from 1
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    game: u32,
    /// Write a picture: for a game, its values move by move as a graph; for a position, the board with
    /// each legal move's value on its square
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
    /// Threads for the exact solves (default: all cores): the same values on any number; their node
    /// counts vary from run to run on more than one. The estimates search on one thread
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
}

/// What was asked about.
enum Target {
    Position(Position),
    Game { game: Game, black: String, white: String },
}

pub fn run(args: AnalyzeArgs, settings: &super::Settings) -> Result<()> {
    let (engine, output) = (&settings.engine, &settings.output);
    let target = target(&args)?;
    let settings = Settings {
        exact_empties: args.exact_empties,
        depth: args.depth,
    };
    let mut analyst = Analyst::new(settings, engine);
    analyst.set_threads(super::threads_or_cores(args.threads));
    match target {
        Target::Position(position) => {
            super::output::Files::new()
                .output("--svg", args.svg.as_deref())
                .check()?;
            let svg = args.svg.as_deref().map(Output::open).transpose()?;
            let moves = analyst.moves(position.board);
            if let Some(svg) = svg {
                svg.finish(&svg_position(position, &moves))?;
            }
            let text = if args.json {
                position_json(position, &moves, settings)
            } else {
                position_text(position, &moves, settings)
            };
            write_stdout(&text)
        }
        Target::Game { game, black, white } => {
            // Checked before the work: a path that cannot be written fails now.
            super::output::Files::new()
                .inputs("the game", args.what.as_deref().map(std::path::Path::new))
                .output("--svg", args.svg.as_deref())
                .check()?;
            let svg = args.svg.as_deref().map(Output::open).transpose()?;
            if !args.json {
                write_stdout(&format!(
                    "{black} (black) vs {white} (white), {}; {}\n",
                    crate::cli::display::counted(game.moves().count() as u64, "move", "moves"),
                    settings_line(settings)
                ))?;
            }
            let mut failed = None;
            // The text shows each move as it is valued; JSON only at the end: a bar meanwhile.
            let progress = super::display::Progress::new(game.moves().count(), "moves", output);
            let analysed = analyst.game(&game, |entry| {
                if args.json {
                    progress.tick();
                } else if failed.is_none() {
                    failed = write_stdout(&move_line(entry)).err();
                }
            });
            progress.finish();
            if let Some(error) = failed {
                return Err(error);
            }
            let text = if args.json {
                game_json(&game, &analysed, &black, &white, settings)
            } else {
                game_summary(&analysed)
            };
            write_stdout(&text)?;
            if let Some(svg) = svg {
                svg.finish(&svg_graph(&analysed, &black, &white))?;
            }
            Ok(())
        }
    }
}

fn target(args: &AnalyzeArgs) -> Result<Target> {
    let what = args.what.as_deref();
    let is_board = what.is_some_and(othello_course::lab::position::is_board);
    if what.is_none() || is_board {
        let start = match what {
            Some(board) => othello_course::lab::position::parse(board, args.token.as_deref())?,
            None => Position::START,
        };
        let position = match &args.moves {
            Some(moves) => transcript::play(start, moves)
                .with_context(|| format!("bad --moves {moves:?}"))?
                .position(),
            None => start,
        };
        if position.board.moves().is_empty() {
            let reason = if position.is_game_over() {
                "the game is over"
            } else {
                "it must pass"
            };
            return Err(super::Refused(anyhow!(
                "{} has no legal move to analyse: {reason}",
                position.to_move.name()
            ))
            .into());
        }
        return Ok(Target::Position(position));
    }
    let what = what.expect("checked above");
    if let Some(token) = &args.token {
        bail!("bad argument {token:?}: a token follows a board of 64 characters, and {what:?} is not one");
    }
    if args.moves.is_some() {
        bail!("--moves starts a position from a board; a game has its own moves");
    }
    let path = Path::new(what);
    let games = if super::replay::is_collection(path) {
        super::replay::collection_games(path)?
            .into_iter()
            .map(|n| (n.game, n.black, n.white))
            .collect()
    } else {
        let text = if path.exists() {
            othello_plumbing::files::read_text(path)?
        } else if transcript::has_shape(what) || condensed::has_shape(what) {
            what.to_string()
        } else {
            bail!(
                "bad argument {what:?}: not a board of 64 characters, a transcript such as f5d6c3 or 1934_41, or a file"
            );
        };
        read_games(&text).with_context(|| format!("bad game {}", one_line_name(what)))?
    };
    let count = games.len();
    let index = args.game as usize - 1;
    let Some((game, black, white)) = games.into_iter().nth(index) else {
        bail!("--game {} is out of range: the file holds {count}", args.game);
    };
    if game.moves().count() == 0 {
        bail!("bad game {}: it has no move to analyse", one_line_name(what));
    }
    Ok(Target::Game { game, black, white })
}

fn one_line_name(what: &str) -> String {
    let name: String = what.chars().take(60).collect();
    format!("{name:?}")
}

/// Games with their players, from a GGF file, Logistello's .gam lines, plain transcripts (a game
/// a line), a log of ours (one JSON object or JSON Lines), or condensed transcripts.
fn read_games(text: &str) -> Result<Vec<(Game, String, String)>> {
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if let Some(games) = super::replay::plain_games(trimmed) {
        return Ok(games?
            .into_iter()
            .map(|n| (n.game, name_or(n.black, "black"), name_or(n.white, "white")))
            .collect());
    }
    if trimmed.starts_with('{') {
        // Only the start is trimmed: a log's last line without its newline was cut off.
        let log = text.trim_start_matches('\u{feff}').trim_start();
        return Ok(super::replay::read_logs(log)?
            .into_iter()
            .map(|(log, game)| (game, log.black, log.white))
            .collect());
    }
    // Condensed transcripts, as lab4's reports and logs hold them: a game a line.
    let lines: Vec<&str> = trimmed.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.iter().all(|line| condensed::has_shape(line)) {
        return lines
            .iter()
            .enumerate()
            .map(|(number, line)| {
                let (game, _) = condensed::play(line).map_err(|error| anyhow!("line {}: {error}", number + 1))?;
                Ok((game, "black".to_string(), "white".to_string()))
            })
            .collect();
    }
    let game = transcript::play(Position::START, trimmed)?;
    Ok(vec![(game, "black".to_string(), "white".to_string())])
}

fn name_or(name: String, default: &str) -> String {
    if name.trim().is_empty() {
        default.to_string()
    } else {
        name
    }
}

fn settings_line(settings: Settings) -> String {
    format!(
        "exact from {} empty squares, else estimates at depth {}",
        settings.exact_empties,
        settings.depth + 1
    )
}

/// A value as a short signed number with its kind: `+8 exact`, `-3 est. d9`.
fn short(value: Value) -> String {
    match value {
        Value::Exact { discs, .. } => format!("{discs:+} exact"),
        Value::Proven { margin, depth } => format!("{margin:+} proven d{depth}"),
        Value::Estimate { discs, depth } => format!("{discs:+} est. d{depth}"),
        Value::Score { score, .. } => format!("{score:+}"),
    }
}

fn position_text(position: Position, moves: &[MoveValue], settings: Settings) -> String {
    let mut out = format!(
        "{} to move, {} empty squares; {}\n",
        capitalised(position.to_move),
        position.board.empty_count(),
        settings_line(settings)
    );
    for m in moves {
        out += &format!(
            "  {}  {:>4}  {}\n",
            m.square,
            format!("{:+}", m.value.number()),
            m.value
        );
    }
    out
}

fn position_json(position: Position, moves: &[MoveValue], settings: Settings) -> String {
    json::line(&json::PositionAnalysis {
        board: othello_core::notation::lab_board::format(position),
        to_move: position.to_move.name(),
        empties: position.board.empty_count(),
        exact_empties: settings.exact_empties,
        estimate_depth: settings.depth + 1,
        moves: moves.iter().map(json::MoveJson::from).collect(),
    })
}

fn move_line(entry: &AnalysedMove) -> String {
    let played = entry.played_value();
    let best = entry.best();
    let loss = entry.loss();
    let verdict = entry.verdict();
    let best_text = if loss == 0 {
        "best".to_string()
    } else {
        format!("best {} {:+}, loses {loss}", best.square, best.value.number())
    };
    let flag = match verdict {
        Verdict::Good => String::new(),
        other => format!("  {}", other.name()),
    };
    format!(
        "{:>3}. {} {}  {}  ({best_text}){flag}\n",
        entry.number,
        capitalised(entry.side),
        entry.played,
        short(played.value),
    )
}

/// The value of the position before each move, from black's view: the best move's value.
fn black_values(analysed: &[AnalysedMove]) -> Vec<i32> {
    analysed
        .iter()
        .map(|entry| {
            let value = entry.best().value.number();
            if entry.side == Color::Black { value } else { -value }
        })
        .collect()
}

/// Eight levels a character, scaled to the largest value (at least 8 discs), zero in the middle.
pub fn sparkline(values: &[i32]) -> (String, i32) {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let scale = values.iter().map(|v| v.abs()).max().unwrap_or(0).max(8);
    let line = values
        .iter()
        .map(|&v| {
            let level = ((v + scale) * 7 + scale) / (2 * scale);
            BARS[level.clamp(0, 7) as usize]
        })
        .collect();
    (line, scale)
}

fn game_summary(analysed: &[AnalysedMove]) -> String {
    let mut out = String::new();
    for color in [Color::Black, Color::White] {
        let own: Vec<&AnalysedMove> = analysed.iter().filter(|e| e.side == color).collect();
        let mistakes = own.iter().filter(|e| e.verdict() == Verdict::Mistake).count();
        let blunders = own.iter().filter(|e| e.verdict() == Verdict::Blunder).count();
        let lost: i32 = own.iter().map(|e| e.loss()).sum();
        out += &format!(
            "{}: {}, {}, {} discs lost against the best moves over {}\n",
            capitalised(color),
            crate::cli::display::counted(mistakes as u64, "mistake", "mistakes"),
            crate::cli::display::counted(blunders as u64, "blunder", "blunders"),
            lost,
            crate::cli::display::counted(own.len() as u64, "move", "moves"),
        );
    }
    let (line, scale) = sparkline(&black_values(analysed));
    out += &format!("black's value before each move, -{scale} to +{scale}: {line}\n");
    out += &format!(
        "(a mistake loses {MISTAKE_DISCS} discs or more against the best move, a blunder {BLUNDER_DISCS} or more)\n"
    );
    out
}

fn game_json(game: &Game, analysed: &[AnalysedMove], black: &str, white: &str, settings: Settings) -> String {
    json::line(&json::GameAnalysis {
        black: black.to_string(),
        white: white.to_string(),
        transcript: transcript::format(game),
        exact_empties: settings.exact_empties,
        estimate_depth: settings.depth + 1,
        moves: analysed.iter().map(json::AnalysedMoveJson::from).collect(),
    })
}

/// A position as a picture: the board, and on each legal square the move's value in discs for the
/// side to move (bold when exact), the best ones ringed, as GUIs show hints.
fn svg_position(position: Position, moves: &[MoveValue]) -> String {
    let cell = 48.0;
    let (left, top) = (28.0, 52.0);
    let size = 8.0 * cell;
    let (width, height) = (left + size + 16.0, top + size + 40.0);
    let side = position.to_move;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"20\" font-size=\"14\">{} ({}) to move, {} empty squares</text>\n\
         <text x=\"{left}\" y=\"38\" font-size=\"11\">each move's value in discs for {0}; bold: exact; ringed: the best</text>\n\
         <rect x=\"{left}\" y=\"{top}\" width=\"{size}\" height=\"{size}\" fill=\"#2e7d32\"/>\n",
        capitalised(side),
        side.lab_char(),
        position.board.empty_count()
    );
    for i in 0..=8 {
        let at = i as f64 * cell;
        out += &format!(
            "<line x1=\"{0}\" y1=\"{1:.1}\" x2=\"{2}\" y2=\"{1:.1}\" stroke=\"#1b4d1e\"/>\n<line x1=\"{3:.1}\" y1=\"{4}\" x2=\"{3:.1}\" y2=\"{5}\" stroke=\"#1b4d1e\"/>\n",
            left,
            top + at,
            left + size,
            left + at,
            top,
            top + size
        );
    }
    for i in 0..8 {
        let middle = (i as f64 + 0.5) * cell;
        out += &format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#777\">{}</text>\n<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#777\">{}</text>\n",
            left + middle,
            top + size + 16.0,
            (b'a' + i as u8) as char,
            left - 12.0,
            top + middle + 4.0,
            i + 1
        );
    }
    let (black, white) = (position.black(), position.white());
    let best = moves.first().map(|m| m.value.number());
    for square in othello_core::bitboard::Bitboard::FULL {
        let (row, col) = (square.index() / 8, square.index() % 8);
        let (cx, cy) = (left + (col as f64 + 0.5) * cell, top + (row as f64 + 0.5) * cell);
        let fill = if black.contains(square) {
            Some("#111")
        } else if white.contains(square) {
            Some("#fafafa")
        } else {
            None
        };
        if let Some(fill) = fill {
            out += &format!(
                "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{:.1}\" fill=\"{fill}\" stroke=\"#333\"/>\n",
                cell * 0.4
            );
        } else if let Some(m) = moves.iter().find(|m| m.square == square) {
            if Some(m.value.number()) == best {
                out += &format!(
                    "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{:.1}\" fill=\"none\" stroke=\"#ffd54f\" stroke-width=\"3\"/>\n",
                    cell * 0.4
                );
            }
            out += &format!(
                "<text x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"15\" fill=\"white\"{}><title>{} {}</title>{:+}</text>\n",
                cy + 5.0,
                if m.value.is_exact() {
                    " font-weight=\"bold\""
                } else {
                    ""
                },
                m.square,
                m.value,
                m.value.number()
            );
        }
    }
    out += "</svg>\n";
    out
}

/// The evaluation through the game as a line graph: black's value before each move, mistakes and
/// blunders marked on the side that made them.
fn svg_graph(analysed: &[AnalysedMove], black: &str, white: &str) -> String {
    let values = black_values(analysed);
    let (width, height) = (720.0, 320.0);
    let (left, right, top, bottom) = (56.0, 16.0, 48.0, 40.0);
    let scale = values.iter().map(|v| v.abs()).max().unwrap_or(0).max(8) as f64;
    let count = values.len().max(2) as f64;
    let x = |i: usize| left + (width - left - right) * i as f64 / (count - 1.0);
    let y = |v: f64| top + (height - top - bottom) * (1.0 - (v + scale) / (2.0 * scale));
    let escape = |text: &str| {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"18\" font-size=\"14\">{} (black) vs {} (white)</text>\n\
         <text x=\"{left}\" y=\"36\" font-size=\"11\">black's value before each move, in discs (above the line, black is ahead)</text>\n",
        escape(black),
        escape(white)
    );
    // Black's half above the zero line, white's below.
    out += &format!(
        "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" fill=\"#f2f2f2\"/>\n",
        width - left - right,
        y(0.0) - top
    );
    for v in [-scale, -scale / 2.0, 0.0, scale / 2.0, scale] {
        let stroke = if v == 0.0 { "#444" } else { "#ccc" };
        out += &format!(
            "<line x1=\"{left}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"{stroke}\"/>\n<text x=\"{2}\" y=\"{3:.1}\" text-anchor=\"end\">{4:+}</text>\n",
            y(v),
            width - right,
            left - 6.0,
            y(v) + 4.0,
            v.round() as i32
        );
    }
    for number in (10..=analysed.len()).step_by(10) {
        let px = x(number - 1);
        out += &format!(
            "<line x1=\"{px:.1}\" y1=\"{top}\" x2=\"{px:.1}\" y2=\"{0:.1}\" stroke=\"#e0e0e0\"/>\n<text x=\"{px:.1}\" y=\"{1:.1}\" text-anchor=\"middle\">{number}</text>\n",
            height - bottom,
            height - bottom + 16.0
        );
    }
    let points = values
        .iter()
        .enumerate()
        .map(|(i, &v)| format!("{:.1},{:.1}", x(i), y(v as f64)))
        .join(" ");
    out += &format!("<polyline points=\"{points}\" fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"2\"/>\n");
    // Where the values turn exact: the solver reached the end from there on.
    if let Some(first) = analysed.iter().position(|entry| entry.played_value().value.is_exact()) {
        let px = x(first);
        out += &format!(
            "<line x1=\"{px:.1}\" y1=\"{top}\" x2=\"{px:.1}\" y2=\"{0:.1}\" stroke=\"#2e7d32\" stroke-dasharray=\"4 3\"/>\n<text x=\"{1:.1}\" y=\"{2:.1}\" fill=\"#2e7d32\">exact from move {3}</text>\n",
            height - bottom,
            px + 4.0,
            top + 12.0,
            analysed[first].number
        );
    }
    for (i, entry) in analysed.iter().enumerate() {
        let colour = match entry.verdict() {
            Verdict::Good => continue,
            Verdict::Mistake => "#e69500",
            Verdict::Blunder => "#d62728",
        };
        out += &format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"{colour}\"><title>{}. {} {} loses {}</title></circle>\n",
            x(i),
            y(values[i] as f64),
            entry.number,
            entry.side.name(),
            entry.played,
            entry.loss()
        );
    }
    out += &format!(
        "<text x=\"{left}\" y=\"{:.1}\">move number; orange: a mistake (loses {MISTAKE_DISCS}+), red: a blunder (loses {BLUNDER_DISCS}+)</text>\n</svg>\n",
        height - 6.0
    );
    out
}

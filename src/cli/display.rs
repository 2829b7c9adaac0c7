//! For people at a terminal: boards with a-h / 1-8 labels, legal moves marked, the last move in upper
//! case and colour only when the output is a terminal; a progress bar on stderr.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::square::Square;

const RESET: &str = "\x1b[0m";
const BLACK_STYLE: &str = "\x1b[1;31m";
const WHITE_STYLE: &str = "\x1b[1;36m";
const MOVE_STYLE: &str = "\x1b[2;32m";
const LAST_STYLE: &str = "\x1b[7m";

/// The board with labels; `moves` are shown as `*`, `last` in upper case.
pub fn board(position: Position, moves: Bitboard, last: Option<Square>, colour: bool) -> String {
    let mut out = String::from("   a b c d e f g h\n");
    for row in 0..8 {
        let _ = write!(out, "{} ", row + 1);
        for col in 0..8 {
            let square = Square::from_row_col(row, col);
            let (mut glyph, style) = match position.at(square) {
                Some(crate::color::Color::Black) => ('x', BLACK_STYLE),
                Some(_) => ('o', WHITE_STYLE),
                None if moves.contains(square) => ('*', MOVE_STYLE),
                None => ('.', ""),
            };
            let is_last = Some(square) == last;
            if is_last {
                glyph = glyph.to_ascii_uppercase();
            }
            out.push(' ');
            if colour && (!style.is_empty() || is_last) {
                let _ = write!(out, "{style}{}{glyph}{RESET}", if is_last { LAST_STYLE } else { "" });
            } else {
                out.push(glyph);
            }
        }
        out.push('\n');
    }
    let (black, white) = position.counts();
    let _ = writeln!(out, "   x (black) {black}, o (white) {white}");
    out
}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
pub struct Progress {
    total: usize,
    unit: &'static str,
    done: AtomicUsize,
    visible: bool,
}

impl Progress {
    pub fn new(total: usize, unit: &'static str) -> Progress {
        Progress {
            total,
            unit,
            done: AtomicUsize::new(0),
            visible: std::io::stderr().is_terminal(),
        }
    }

    pub fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if self.visible {
            let width = 40;
            let filled = (done * width) / self.total.max(1);
            let bar = format!(
                "{}{}",
                "#".repeat(filled.min(width)),
                ".".repeat(width - filled.min(width))
            );
            let _ = write!(std::io::stderr(), "\r[{bar}] {done}/{} {}", self.total, self.unit);
        }
    }

    /// Clears the bar, so that what follows starts on a clean line.
    pub fn finish(&self) {
        if self.visible {
            let _ = write!(std::io::stderr(), "\r{}\r", " ".repeat(70));
        }
    }
}

/// `1 move`, `2 moves`: a count with its noun.
pub fn counted(count: impl Into<u64>, one: &str, many: &str) -> String {
    let count = count.into();
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `Black` or `White`, to begin a sentence.
pub fn capitalised(color: crate::color::Color) -> &'static str {
    match color {
        crate::color::Color::Black => "Black",
        crate::color::Color::White => "White",
    }
}

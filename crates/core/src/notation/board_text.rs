//! A board drawn for people: a-h / 1-8 labels, legal moves marked `*`, the last move in upper case,
//! the disc counts, and ANSI colour when asked for (the command line asks only for a terminal).

use std::fmt::Write as _;

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::square::Square;

use anstyle::{AnsiColor, Style};

const BLACK_STYLE: Style = AnsiColor::Red.on_default().bold();
const WHITE_STYLE: Style = AnsiColor::Cyan.on_default().bold();
const MOVE_STYLE: Style = AnsiColor::Green.on_default().dimmed();

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
                None => ('.', Style::new()),
            };
            let is_last = Some(square) == last;
            if is_last {
                glyph = glyph.to_ascii_uppercase();
            }
            out.push(' ');
            if colour && (style != Style::new() || is_last) {
                // The last move: its disc's style, inverted.
                let style = if is_last { style.invert() } else { style };
                let _ = write!(out, "{style}{glyph}{style:#}");
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

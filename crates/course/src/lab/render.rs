//! Writes one lab snapshot (parts A-E of docs/lab-format.md).

use std::fmt::Write;

use othello_core::bitboard::Bitboard;
use othello_core::color::Color;
use othello_core::position::Position;
use othello_core::square::Square;

/// A snapshot of `position`, whose side to move is the one that moves next (forced passes already
/// applied). `last` is the move that led here, if any.
pub fn snapshot(out: &mut String, position: Position, last: Option<(Color, Square)>) {
    if let Some((side, square)) = last {
        let _ = writeln!(out, "{} plays to {}", side.lab_char(), square.index());
    }
    let game_over = position.is_game_over();
    let moves = if game_over { Bitboard::EMPTY } else { position.moves() };
    board_2d(out, position, moves, last.map(|(_, square)| square));
    out.push('\n');
    board_1d(out, position);
    if !game_over {
        possible_moves(out, position.to_move, moves);
    }
}

/// Othello 1's first snapshot: the token keeps the turn even when it cannot move, and then the
/// board has no asterisks and E reads `No moves possible`.
pub(crate) fn snapshot_lab1(out: &mut String, position: Position) {
    let moves = position.moves();
    if !moves.is_empty() {
        return snapshot(out, position, None);
    }
    board_2d(out, position, Bitboard::EMPTY, None);
    out.push('\n');
    board_1d(out, position);
    out.push_str("No moves possible\n\n");
}

/// The 8 board lines: discs in lower case, `just_played` in upper case, `moves` as `*`.
pub fn board_2d(out: &mut String, position: Position, moves: Bitboard, just_played: Option<Square>) {
    let (black, white) = (position.black(), position.white());
    for square in Square::all() {
        let lower = if black.contains(square) {
            'x'
        } else if white.contains(square) {
            'o'
        } else if moves.contains(square) {
            '*'
        } else {
            '.'
        };
        out.push(if Some(square) == just_played {
            lower.to_ascii_uppercase()
        } else {
            lower
        });
        if square.col() == 7 {
            out.push('\n');
        }
    }
}

fn board_1d(out: &mut String, position: Position) {
    out.push_str(&othello_core::notation::lab_board::format(position));
    let (black, white) = position.counts();
    let _ = writeln!(out, "  {black}/{white}");
}

fn possible_moves(out: &mut String, side: Color, moves: Bitboard) {
    let _ = write!(out, "Possible moves for {}: ", side.lab_char());
    for (i, square) in moves.squares().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{}", square.index());
    }
    out.push_str("\n\n");
}

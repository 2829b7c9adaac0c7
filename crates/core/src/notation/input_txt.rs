//! Seed 004's input.txt: a first line with the turn (0 black, 1 white), then 8 lines of 8
//! integers (-1 empty, 0 black, 1 white) from `board[0][0]` to `board[7][7]`.

use std::fmt::Write;

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::position::Position;
use crate::square::Square;

/// A malformed input file, with the line (1-based) where it goes wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct InputError {
    pub line: usize,
    pub message: String,
}

pub fn parse(text: &str) -> Result<Position, InputError> {
    let error = |line: usize, message: String| InputError { line, message };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line.trim()));
    let (_, turn_line) = lines
        .next()
        .ok_or_else(|| error(1, "the file is empty: expected the turn, 0 or 1".into()))?;
    let to_move = match turn_line {
        "0" => Color::Black,
        "1" => Color::White,
        other => {
            return Err(error(
                1,
                format!("expected the turn, 0 (black) or 1 (white), found {other:?}"),
            ));
        }
    };
    let (mut black, mut white) = (Bitboard::EMPTY, Bitboard::EMPTY);
    for row in 0..8u8 {
        let (number, line) = lines
            .next()
            .ok_or_else(|| error(row as usize + 2, format!("expected row {} of the board", row + 1)))?;
        let cells: Vec<&str> = line.split_whitespace().collect();
        if cells.len() != 8 {
            return Err(error(
                number,
                format!("expected 8 integers from -1, 0, 1, found {} values", cells.len()),
            ));
        }
        for (col, cell) in cells.into_iter().enumerate() {
            let square = Square::from_row_col(row, col as u8);
            match cell {
                "-1" => {}
                "0" => black = black.with(square),
                "1" => white = white.with(square),
                other => {
                    return Err(error(
                        number,
                        format!("column {}: expected -1, 0 or 1, found {other:?}", col + 1),
                    ));
                }
            }
        }
    }
    if let Some((number, extra)) = lines.find(|(_, line)| !line.is_empty()) {
        return Err(error(number, format!("unexpected text after the board: {extra:?}")));
    }
    Ok(Position::from_discs(black, white, to_move))
}

/// The board as seed 004 writes it: 8 rows of -1/0/1.
pub fn board_rows(position: Position) -> [[i8; 8]; 8] {
    let mut rows = [[-1i8; 8]; 8];
    for square in Square::all() {
        rows[square.row() as usize][square.col() as usize] = match position.at(square) {
            Some(color) => color.index() as i8,
            None => -1,
        };
    }
    rows
}

/// Writes a position in the input.txt format.
pub fn format(position: Position) -> String {
    let mut text = format!("{}\n", position.to_move.index());
    for row in board_rows(position) {
        let cells: Vec<String> = row.iter().map(i8::to_string).collect();
        let _ = writeln!(text, "{}", cells.join(" "));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_round_trips() {
        let text = format(Position::START);
        assert!(text.starts_with("0\n-1 -1"));
        assert_eq!(parse(&text), Ok(Position::START));
    }

    #[test]
    fn errors_name_their_line() {
        let good = format(Position::START);
        let mut lines: Vec<&str> = good.lines().collect();
        lines[4] = "-1 -1 -1 1 0 -1 -1";
        assert_eq!(parse(&lines.join("\n")).unwrap_err().line, 5);
        lines[4] = "-1 -1 -1 1 2 -1 -1 -1";
        assert!(
            parse(&lines.join("\n"))
                .unwrap_err()
                .to_string()
                .starts_with("line 5: column 5")
        );
        assert_eq!(parse("2\n").unwrap_err().line, 1);
        assert_eq!(parse("0\n").unwrap_err().line, 2);
        assert_eq!(parse(&(good.clone() + "\n7\n")).unwrap_err().line, 11);
    }
}

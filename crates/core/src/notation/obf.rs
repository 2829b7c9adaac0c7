//! Edax's OBF lines: `BOARD SIDE; MOVE:SCORE; ...` with the board as 64 characters of `X`
//! (black), `O` (white) and `-` (empty), the side `X` or `O`, and optionally the exact score of
//! some moves (the FFO suite's answers).

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::position::Position;
use crate::square::Square;

/// One position of an OBF file with the answers it gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObfPosition {
    /// The line it came from (1-based).
    pub line: usize,
    pub position: Position,
    /// Moves with their exact scores, as the file lists them.
    pub scored_moves: Vec<(Square, i32)>,
}

impl ObfPosition {
    /// The best score the file gives, if it gives any.
    pub fn best_score(&self) -> Option<i32> {
        self.scored_moves.iter().map(|&(_, score)| score).max()
    }

    /// Whether the file lists `square` among the moves with the best score.
    pub fn is_best_move(&self, square: Square) -> Option<bool> {
        let best = self.best_score()?;
        Some(self.scored_moves.iter().any(|&(s, score)| s == square && score == best))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ObfError {
    pub line: usize,
    pub message: String,
}

/// Reads every position of an OBF text; empty lines and lines starting with `%` or `#` are skipped.
pub fn parse(text: &str) -> Result<Vec<ObfPosition>, ObfError> {
    let mut positions = Vec::new();
    // A byte-order mark, as some editors write, is not part of the first board.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.trim();
        if content.is_empty() || content.starts_with('%') || content.starts_with('#') {
            continue;
        }
        positions.push(
            parse_line(content)
                .map_err(|message| ObfError { line, message })?
                .with_line(line),
        );
    }
    Ok(positions)
}

impl ObfPosition {
    fn with_line(mut self, line: usize) -> ObfPosition {
        self.line = line;
        self
    }
}

fn parse_line(content: &str) -> Result<ObfPosition, String> {
    let mut fields = content.split(';').map(str::trim);
    let head = fields.next().unwrap_or_default();
    let (board, side) = head
        .split_once(char::is_whitespace)
        .ok_or_else(|| format!("expected a 64-character board and a side, found {head:?}"))?;
    let board_chars: Vec<char> = board.chars().collect();
    if board_chars.len() != 64 {
        return Err(format!(
            "a board has 64 characters of X, O and -, this one has {}",
            board_chars.len()
        ));
    }
    let (mut black, mut white) = (Bitboard::EMPTY, Bitboard::EMPTY);
    for (index, c) in board_chars.into_iter().enumerate() {
        let square = Square::from_index(index as u8);
        match c {
            'X' | 'x' | '*' => black = black.with(square),
            'O' | 'o' => white = white.with(square),
            '-' | '.' => {}
            other => return Err(format!("{other:?} at board position {index} is not X, O or -")),
        }
    }
    let to_move = match side.trim() {
        "X" | "x" | "*" => Color::Black,
        "O" | "o" => Color::White,
        other => return Err(format!("expected the side to move, X or O, found {other:?}")),
    };
    let mut scored_moves = Vec::new();
    for field in fields.filter(|f| !f.is_empty()) {
        let (name, score) = field
            .split_once(':')
            .ok_or_else(|| format!("expected MOVE:SCORE, found {field:?}"))?;
        let square = Square::from_a1(name.trim()).ok_or_else(|| format!("{name:?} is not a square"))?;
        let score = score
            .trim()
            .parse::<i32>()
            .map_err(|_| format!("{score:?} is not a score"))?;
        scored_moves.push((square, score));
    }
    Ok(ObfPosition {
        line: 0,
        position: Position::from_discs(black, white, to_move),
        scored_moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_scored_line() {
        let board = format!("{}OX{}XO{}", "-".repeat(27), "-".repeat(6), "-".repeat(27));
        let text = format!("% comment\n{board} X; D3:+0; C4:-0;\n");
        let positions = parse(&text).unwrap();
        assert_eq!(positions.len(), 1);
        assert_eq!(positions[0].line, 2);
        assert_eq!(positions[0].position.to_move, Color::Black);
        assert_eq!(positions[0].position.black().count(), 2);
        assert_eq!(positions[0].best_score(), Some(0));
        assert_eq!(positions[0].is_best_move("c4".parse().unwrap()), Some(true));
        assert!(
            parse("XO X;")
                .unwrap_err()
                .to_string()
                .starts_with("line 1: a board has 64")
        );
    }
}

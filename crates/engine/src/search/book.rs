//! The opening book: positions near the start valued by the engine's own deep searches, so that a
//! timed engine plays its first moves at once, from searches deeper than its time allows, and
//! varies them when asked. Positions are stored once for all 8 symmetries.
//!
//! The file is text, a line a position (docs/engine.md#the-opening-book):
//!
//! ```text
//! # othello book 1
//! 0000000810000000 0000001008000000 +0 12
//! ```
//!
//! the side to move's discs and the other side's as 16 hex digits each (bit 0 is a1, bit 63 h8), in
//! the least of the 8 symmetric forms; the position's value in discs for the side to move; the
//! depth of the searches behind it, in plies from the position (an expanded position takes its
//! best child's value, one ply deeper).

use std::collections::HashMap;

use crate::patterns::symmetric_board;
use othello_core::bitboard::Bitboard;
use othello_core::board::Board;
use othello_core::square::Square;

/// The first line of a book file.
pub(crate) const HEADER: &str = "# othello book 1";

/// A position's value in discs for its side to move, and the depth that found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookValue {
    pub discs: i32,
    pub depth: u32,
}

/// Positions by their least symmetric form.
#[derive(Clone, Debug, Default)]
pub struct Book {
    positions: HashMap<(u64, u64), BookValue>,
}

#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("the first line is not {HEADER:?}: not a book of this version")]
    Header,
    #[error(
        "line {line}: {text:?} is not a position: expected PLAYER OPPONENT VALUE DEPTH (16 hex digits, 16 hex digits, discs, plies)"
    )]
    Line { line: usize, text: String },
}

/// The least of the 8 symmetric forms of `board`.
pub(crate) fn canonical(board: Board) -> (u64, u64) {
    (0..8)
        .map(|g| symmetric_board(board, g))
        .map(|image| (image.player.0, image.opponent.0))
        .min()
        .expect("8 symmetries")
}

impl Book {
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    pub fn get(&self, board: Board) -> Option<BookValue> {
        self.positions.get(&canonical(board)).copied()
    }

    pub fn insert(&mut self, board: Board, value: BookValue) {
        self.positions.insert(canonical(board), value);
    }

    /// Every legal move of `board` with its value for the side to move, best first, if the book
    /// has them all (the position was expanded); none if it lacks one or there is no move.
    pub fn moves(&self, board: Board) -> Option<Vec<(Square, BookValue)>> {
        let moves = board.moves();
        if moves.is_empty() {
            return None;
        }
        let mut valued = moves
            .squares()
            .map(|square| {
                let child = self.get(board.play(square))?;
                Some((
                    square,
                    BookValue {
                        discs: -child.discs,
                        depth: child.depth + 1,
                    },
                ))
            })
            .collect::<Option<Vec<_>>>()?;
        valued.sort_by_key(|&(square, value)| (-value.discs, square.index()));
        Some(valued)
    }

    /// Values every expanded position by its best child, from the leaves up (a searched value stays
    /// where the book has no children).
    pub fn negamax(&mut self, root: Board) {
        let mut done = HashMap::new();
        self.negamax_from(root, &mut done);
        for (key, value) in done {
            self.positions.insert(key, value);
        }
    }

    fn negamax_from(&self, board: Board, done: &mut HashMap<(u64, u64), BookValue>) -> Option<BookValue> {
        let key = canonical(board);
        if let Some(&value) = done.get(&key) {
            return Some(value);
        }
        let moves = board.moves();
        let mut best: Option<BookValue> = None;
        if !moves.is_empty() && moves.squares().all(|square| self.get(board.play(square)).is_some()) {
            for square in moves.squares() {
                let child = self.negamax_from(board.play(square), done)?;
                let value = BookValue {
                    discs: -child.discs,
                    depth: child.depth + 1,
                };
                if best.is_none_or(|best| value.discs > best.discs) {
                    best = Some(value);
                }
            }
        }
        let value = best.or_else(|| self.positions.get(&key).copied())?;
        done.insert(key, value);
        Some(value)
    }

    /// The book as its file's text, positions in order.
    pub fn to_text(&self) -> String {
        let mut lines: Vec<_> = self.positions.iter().collect();
        lines.sort_by_key(|(key, _)| **key);
        let mut text = format!("{HEADER}\n");
        for ((player, opponent), value) in lines {
            text += &format!("{player:016x} {opponent:016x} {:+} {}\n", value.discs, value.depth);
        }
        text
    }

    pub fn parse(text: &str) -> Result<Book, BookError> {
        let mut lines = text.lines();
        if lines.next().map(str::trim_end) != Some(HEADER) {
            return Err(BookError::Header);
        }
        let mut book = Book::default();
        for (i, line) in lines.enumerate() {
            let bad = || BookError::Line {
                line: i + 2,
                text: line.chars().take(80).collect(),
            };
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let [player, opponent, discs, depth] = words[..] else {
                return Err(bad());
            };
            let hex = |word: &str| (word.len() == 16).then(|| u64::from_str_radix(word, 16).ok()).flatten();
            let (player, opponent) = (hex(player).ok_or_else(bad)?, hex(opponent).ok_or_else(bad)?);
            let discs: i32 = discs.parse().map_err(|_| bad())?;
            let depth: u32 = depth.parse().map_err(|_| bad())?;
            if player & opponent != 0 || !(-64..=64).contains(&discs) || depth > 60 {
                return Err(bad());
            }
            let board = Board::new(Bitboard(player), Bitboard(opponent));
            book.insert(board, BookValue { discs, depth });
        }
        Ok(book)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_book_reads_back_what_it_writes_and_finds_every_symmetric_form() {
        let mut book = Book::default();
        let start = Board::START;
        for square in start.moves().squares() {
            book.insert(start.play(square), BookValue { discs: -1, depth: 12 });
        }
        book.insert(start, BookValue { discs: 1, depth: 0 });
        // The four first moves are one position: the book holds it once.
        assert_eq!(book.len(), 2);
        let again = Book::parse(&book.to_text()).unwrap();
        assert_eq!(again.to_text(), book.to_text());
        let moves = again.moves(start).unwrap();
        assert_eq!(moves.len(), 4);
        assert!(moves.iter().all(|(_, value)| value.discs == 1 && value.depth == 13));
    }

    #[test]
    fn negamax_values_an_expanded_position_by_its_best_child() {
        let mut book = Book::default();
        let start = Board::START;
        let first = start.play(start.moves().first().unwrap());
        book.insert(start, BookValue { discs: 9, depth: 10 });
        book.insert(first, BookValue { discs: 3, depth: 10 });
        book.negamax(start);
        assert_eq!(book.get(start), Some(BookValue { discs: -3, depth: 11 }));
    }

    #[test]
    fn bad_books_name_the_line() {
        assert!(matches!(Book::parse("hello"), Err(BookError::Header)));
        let error = Book::parse(&format!("{HEADER}\n0000000810000000 0000001008000000 +0\n")).unwrap_err();
        assert!(error.to_string().starts_with("line 2:"), "{error}");
        let overlap = Book::parse(&format!("{HEADER}\n0000000810000000 0000000810000000 +0 3\n"));
        assert!(overlap.is_err());
    }
}

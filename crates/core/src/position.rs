//! `Position`: a board plus whose turn it is, seen in absolute colours, with the turn rules
//! (forced passes, game over) that the lab, the games and the logs share.

use crate::bitboard::Bitboard;
use crate::board::{Board, IllegalMove};
use crate::color::Color;
use crate::square::Square;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    /// The side-relative board: `board.player` belongs to `to_move`.
    pub board: Board,
    pub to_move: Color,
}

impl Default for Position {
    fn default() -> Position {
        Position::START
    }
}

impl Position {
    pub const START: Position = Position {
        board: Board::START,
        to_move: Color::Black,
    };

    /// A position from absolute disc sets. The sets must not overlap.
    pub fn from_discs(black: Bitboard, white: Bitboard, to_move: Color) -> Position {
        let board = match to_move {
            Color::Black => Board::new(black, white),
            Color::White => Board::new(white, black),
        };
        Position { board, to_move }
    }

    pub fn discs(self, color: Color) -> Bitboard {
        if color == self.to_move {
            self.board.player
        } else {
            self.board.opponent
        }
    }

    pub fn black(self) -> Bitboard {
        self.discs(Color::Black)
    }

    pub fn white(self) -> Bitboard {
        self.discs(Color::White)
    }

    /// Whose disc is on `square`, if any.
    pub fn at(self, square: Square) -> Option<Color> {
        if self.black().contains(square) {
            Some(Color::Black)
        } else if self.white().contains(square) {
            Some(Color::White)
        } else {
            None
        }
    }

    pub fn moves(self) -> Bitboard {
        self.board.moves()
    }

    pub fn is_game_over(self) -> bool {
        self.board.is_game_over()
    }

    /// The side that would be to move had nobody passed: black when the number of empty squares is
    /// even (the lab's default token).
    pub fn parity_side(board_empties: u32) -> Color {
        if board_empties.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The same discs with `color` to move.
    pub fn with_to_move(self, color: Color) -> Position {
        if color == self.to_move { self } else { self.pass() }
    }

    /// Hands the turn over without a move.
    pub fn pass(self) -> Position {
        Position {
            board: self.board.pass(),
            to_move: !self.to_move,
        }
    }

    /// Applies the forced-pass rule: if the side to move cannot move but the other side can, the other
    /// side moves. A finished game is left as it is.
    pub fn after_forced_pass(self) -> Position {
        if self.board.must_pass() { self.pass() } else { self }
    }

    /// Plays a move for the side to move and hands the turn over (no pass resolution).
    pub fn try_play(self, square: Square) -> Result<Position, IllegalMove> {
        Ok(Position {
            board: self.board.try_play(square)?,
            to_move: !self.to_move,
        })
    }

    /// Plays a move known to be legal and hands the turn over.
    pub fn play(self, square: Square) -> Position {
        Position {
            board: self.board.play(square),
            to_move: !self.to_move,
        }
    }

    /// Disc counts (black, white).
    pub fn counts(self) -> (u32, u32) {
        (self.black().count(), self.white().count())
    }

    /// The winner by disc count, `None` for a draw.
    pub fn leader(self) -> Option<Color> {
        let (black, white) = self.counts();
        match black.cmp(&white) {
            std::cmp::Ordering::Greater => Some(Color::Black),
            std::cmp::Ordering::Less => Some(Color::White),
            std::cmp::Ordering::Equal => None,
        }
    }
}

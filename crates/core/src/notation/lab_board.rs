//! The lab's board string: 64 characters from `xXoO.`, row-major from a1, case ignored.

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::square::Square;

/// The default board of the lab: 27 dots, `OX`, 6 dots, `XO`, 27 dots.
pub const DEFAULT_BOARD: &str = "...........................OX......XO...........................";

/// Why a text is not a lab board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LabBoardError {
    #[error("a board has exactly 64 characters from xXoO. (this one has {0})")]
    Length(usize),
    #[error("a board holds only the characters xXoO. ({character:?} at position {index} is not one)")]
    Character { character: char, index: usize },
}

/// Reads a board into (black, white) disc sets.
pub fn parse(text: &str) -> Result<(Bitboard, Bitboard), LabBoardError> {
    let length = text.chars().count();
    if length != 64 {
        return Err(LabBoardError::Length(length));
    }
    let mut black = Bitboard::EMPTY;
    let mut white = Bitboard::EMPTY;
    for (index, character) in text.chars().enumerate() {
        let square = Square::from_index(index as u8);
        match character {
            'x' | 'X' => black = black.with(square),
            'o' | 'O' => white = white.with(square),
            '.' => {}
            _ => return Err(LabBoardError::Character { character, index }),
        }
    }
    Ok((black, white))
}

/// Writes the discs of a position as 64 lower-case characters.
pub fn format(position: Position) -> String {
    let (black, white) = (position.black(), position.white());
    Square::all()
        .map(|square| {
            if black.contains(square) {
                'x'
            } else if white.contains(square) {
                'o'
            } else {
                '.'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::Color;

    #[test]
    fn default_board_is_the_start_position() {
        let (black, white) = parse(DEFAULT_BOARD).unwrap();
        assert_eq!(Position::from_discs(black, white, Color::Black), Position::START);
        assert_eq!(format(Position::START), DEFAULT_BOARD.to_lowercase());
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(parse(&DEFAULT_BOARD[1..]), Err(LabBoardError::Length(63)));
        let starred = DEFAULT_BOARD.replacen('.', "*", 1);
        assert_eq!(
            parse(&starred),
            Err(LabBoardError::Character {
                character: '*',
                index: 0
            })
        );
    }
}

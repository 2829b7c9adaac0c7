//! A square of the board (0..63, row-major from a1) and its two written forms, `19` and `d3`.

use std::fmt;
use std::str::FromStr;

/// One of the 64 squares: index = 8 * row + column, a1 = 0, h1 = 7, h8 = 63.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

/// Why a text is not a square.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseSquareError {
    #[error("{0:?} is out of range: squares are 0..63")]
    OutOfRange(String),
    #[error("{0:?} is off the board: columns are a-h and rows 1-8")]
    OffBoard(String),
    #[error("{0:?} is not a square: expected 0..63 or a1..h8")]
    Malformed(String),
}

impl Square {
    pub const A1: Square = Square(0);
    pub const H1: Square = Square(7);
    pub const A8: Square = Square(56);
    pub const H8: Square = Square(63);

    /// The square with this index, if it is on the board.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 { Some(Square(index)) } else { None }
    }

    /// The square with this index; the caller guarantees `index < 64`.
    pub const fn from_index(index: u8) -> Square {
        debug_assert!(index < 64);
        Square(index & 63)
    }

    pub const fn from_row_col(row: u8, col: u8) -> Square {
        Square::from_index(row * 8 + col)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn row(self) -> u8 {
        self.0 / 8
    }

    pub const fn col(self) -> u8 {
        self.0 % 8
    }

    /// All squares in index order.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0..64).map(Square)
    }

    /// Reads A1 notation only, either case: `d3`, `D3`.
    pub fn from_a1(text: &str) -> Option<Square> {
        match text.as_bytes() {
            [col @ (b'a'..=b'h' | b'A'..=b'H'), row @ b'1'..=b'8'] => {
                Some(Square::from_row_col(row - b'1', col.to_ascii_lowercase() - b'a'))
            }
            _ => None,
        }
    }

    /// The A1 name in lower case, as the lab and the logs write it.
    pub fn a1(self) -> [u8; 2] {
        [b'a' + self.col(), b'1' + self.row()]
    }
}

/// Reads `19`, `019`, `d3` or `D3`.
impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(text: &str) -> Result<Square, ParseSquareError> {
        if let Some(square) = Square::from_a1(text) {
            return Ok(square);
        }
        let bytes = text.as_bytes();
        if !bytes.is_empty() && bytes.iter().all(u8::is_ascii_digit) {
            // Any number of digits: leading zeros are allowed, huge numbers are out of range.
            let significant = text.trim_start_matches('0');
            return match significant.parse::<u8>() {
                Ok(index) if index < 64 => Ok(Square(index)),
                _ if significant.is_empty() => Ok(Square(0)),
                _ => Err(ParseSquareError::OutOfRange(text.to_string())),
            };
        }
        if let [b'a'..=b'z' | b'A'..=b'Z', rest @ ..] = bytes
            && !rest.is_empty()
            && rest.iter().all(u8::is_ascii_digit)
        {
            return Err(ParseSquareError::OffBoard(text.to_string()));
        }
        Err(ParseSquareError::Malformed(text.to_string()))
    }
}

/// Writes A1 notation in lower case: `d3`.
impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [col, row] = self.a1();
        write!(f, "{}{}", col as char, row as char)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a1_names_follow_the_lab_indexing() {
        for (name, index) in [("a1", 0), ("h1", 7), ("g3", 22), ("d3", 19), ("h8", 63), ("A8", 56)] {
            assert_eq!(name.parse::<Square>().unwrap().index(), index, "{name}");
        }
        assert_eq!(Square::from_index(19).to_string(), "d3");
        for square in Square::all() {
            assert_eq!(square.to_string().parse::<Square>(), Ok(square));
            assert_eq!(square.index().to_string().parse::<Square>(), Ok(square));
        }
    }

    #[test]
    fn integers_allow_leading_zeros_and_reject_out_of_range() {
        assert_eq!("019".parse::<Square>().unwrap().index(), 19);
        assert_eq!("000".parse::<Square>().unwrap().index(), 0);
        assert_eq!("0063".parse::<Square>().unwrap().index(), 63);
        assert!(matches!("64".parse::<Square>(), Err(ParseSquareError::OutOfRange(_))));
        assert!(matches!(
            "99999999999999999999999999".parse::<Square>(),
            Err(ParseSquareError::OutOfRange(_))
        ));
        assert!(matches!("i9".parse::<Square>(), Err(ParseSquareError::OffBoard(_))));
        assert!(matches!("a0".parse::<Square>(), Err(ParseSquareError::OffBoard(_))));
        for bad in ["", "+3", "-1", "1.5", "d", "d33x", "٣"] {
            assert!(bad.parse::<Square>().is_err(), "{bad:?}");
        }
    }
}

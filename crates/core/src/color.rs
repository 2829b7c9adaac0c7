//! `Color`: black (x, dark, moves first) and white (o, light).

use std::fmt;
use std::ops::Not;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    Black,
    White,
}

impl Color {
    /// The lab's letter: `x` for black, `o` for white.
    pub const fn lab_char(self) -> char {
        match self {
            Color::Black => 'x',
            Color::White => 'o',
        }
    }

    /// Reads the lab's token, either case.
    pub const fn from_lab_char(c: char) -> Option<Color> {
        match c {
            'x' | 'X' => Some(Color::Black),
            'o' | 'O' => Some(Color::White),
            _ => None,
        }
    }

    /// Seed 004's encoding: 0 black, 1 white.
    pub const fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

//! `Bitboard`, a set of squares in one u64 (bit i = square i), with the shifts the move generator needs.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use crate::square::Square;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard(!0);
    pub const CORNERS: Bitboard = Bitboard(0x8100_0000_0000_0081);

    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub const fn contains(self, square: Square) -> bool {
        self.0 & (1 << square.index()) != 0
    }

    pub const fn with(self, square: Square) -> Bitboard {
        Bitboard(self.0 | 1 << square.index())
    }

    pub const fn without(self, square: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << square.index()))
    }

    /// The lowest square, if any.
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index(self.0.trailing_zeros() as u8))
        }
    }

    /// The squares in ascending order.
    pub const fn squares(self) -> Squares {
        Squares(self.0)
    }

    /// The squares next to one of these in any of the eight directions (none across an edge):
    /// where a side's discs give the other side moves, now or later.
    #[inline(always)]
    pub const fn neighbours(self) -> Bitboard {
        let bits = self.0;
        let sideways = ((bits << 1) & 0xfefe_fefe_fefe_fefe) | ((bits >> 1) & 0x7f7f_7f7f_7f7f_7f7f);
        let row = sideways | bits;
        Bitboard(sideways | row << 8 | row >> 8)
    }
}

/// Iterates the squares of a bitboard from the lowest index up.
#[derive(Clone, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Square::from_index(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        self.squares()
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl From<Square> for Bitboard {
    fn from(square: Square) -> Bitboard {
        square.bitboard()
    }
}

macro_rules! bit_op {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $method(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline]
            fn $assign_method(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl Square {
    /// The square as a set of one (here, so that squares need not know bitboards).
    pub const fn bitboard(self) -> Bitboard {
        Bitboard(1 << self.index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_iterate_in_ascending_order() {
        let board: Bitboard = [63, 0, 19].into_iter().map(Square::from_index).collect();
        let indices: Vec<usize> = board.squares().map(Square::index).collect();
        assert_eq!(indices, [0, 19, 63]);
        assert_eq!(board.count(), 3);
        assert_eq!(board.squares().len(), 3);
        assert!(board.contains(Square::H8) && !board.contains(Square::H1));
        assert_eq!(board.without(Square::A1).first(), Some(Square::from_index(19)));
    }
}

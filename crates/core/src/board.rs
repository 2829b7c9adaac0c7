//! The side-relative board {player, opponent} and the rules on it: legal moves, flips, play, pass.
//!
//! Move generation and flips are branch-free shifts and masks on u64, in the manner of Edax:
//! everything above the rules (lab, search, strategies) goes through this one implementation.

use crate::bitboard::Bitboard;
use crate::cpu::Cpu;
use crate::square::Square;

/// The discs of the side to move (`player`) and of the other side (`opponent`).
/// The two sets never overlap.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    pub player: Bitboard,
    pub opponent: Bitboard,
}

/// Why a square is not a legal move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum IllegalMove {
    #[error("the square is occupied")]
    Occupied,
    #[error("it flips no disc")]
    NoFlips,
}

// The kernel works on plain u64 (crate::movegen); re-exported here, where the rules are.
pub use crate::movegen::{NEIGHBOURS, flips, legal_moves};

impl Board {
    /// The start position with black (x) to move.
    pub const START: Board = Board {
        player: Bitboard(1 << 28 | 1 << 35),
        opponent: Bitboard(1 << 27 | 1 << 36),
    };

    pub const fn new(player: Bitboard, opponent: Bitboard) -> Board {
        debug_assert!(player.0 & opponent.0 == 0);
        Board { player, opponent }
    }

    #[inline]
    pub fn empties(self) -> Bitboard {
        !(self.player | self.opponent)
    }

    #[inline]
    pub fn empty_count(self) -> u32 {
        64 - (self.player | self.opponent).count()
    }

    #[inline]
    pub fn moves(self) -> Bitboard {
        Bitboard(legal_moves(self.player.0, self.opponent.0))
    }

    /// The moves the opponent would have if it were its turn.
    #[inline]
    pub fn opponent_moves(self) -> Bitboard {
        Bitboard(legal_moves(self.opponent.0, self.player.0))
    }

    #[inline]
    pub fn flips(self, square: Square) -> Bitboard {
        Bitboard(flips(self.player.0, self.opponent.0, square))
    }

    /// Whether the side to move must pass: it has no move, but the opponent has one.
    pub fn must_pass(self) -> bool {
        self.moves().is_empty() && !self.opponent_moves().is_empty()
    }

    /// Whether neither side can move.
    pub fn is_game_over(self) -> bool {
        self.moves().is_empty() && self.opponent_moves().is_empty()
    }

    /// Plays a move already known to be legal, with its flips; the opponent is to move in the result.
    #[inline]
    pub fn play_with_flips(self, square: Square, flipped: Bitboard) -> Board {
        debug_assert!(!flipped.is_empty() && self.empties().contains(square));
        Board {
            player: self.opponent ^ flipped,
            opponent: self.player ^ flipped | square.bitboard(),
        }
    }

    /// `play` with the flips found at the CPU level `C` (for the searches; see `crate::cpu`).
    #[inline(always)]
    pub fn play_on<C: Cpu>(self, square: Square) -> Board {
        self.play_with_flips(square, Bitboard(C::flips(self.player.0, self.opponent.0, square)))
    }

    /// Plays a legal move; the caller guarantees legality (use `try_play` otherwise).
    #[inline]
    pub fn play(self, square: Square) -> Board {
        self.play_with_flips(square, self.flips(square))
    }

    /// Plays `square` if it is legal for the side to move.
    pub fn try_play(self, square: Square) -> Result<Board, IllegalMove> {
        if !self.empties().contains(square) {
            return Err(IllegalMove::Occupied);
        }
        let flipped = self.flips(square);
        if flipped.is_empty() {
            return Err(IllegalMove::NoFlips);
        }
        Ok(self.play_with_flips(square, flipped))
    }

    /// The same discs with the other side to move.
    #[inline]
    pub fn pass(self) -> Board {
        Board {
            player: self.opponent,
            opponent: self.player,
        }
    }

    /// The final disc difference for the side to move, empty squares going to the winner
    /// (the usual endgame convention).
    pub fn final_score(self) -> i32 {
        let player = self.player.count() as i32;
        let opponent = self.opponent.count() as i32;
        let empties = 64 - player - opponent;
        match player.cmp(&opponent) {
            std::cmp::Ordering::Greater => player - opponent + empties,
            std::cmp::Ordering::Less => player - opponent - empties,
            std::cmp::Ordering::Equal => 0,
        }
    }

    /// Disc difference for the side to move, empty squares counting for nobody.
    pub fn disc_difference(self) -> i32 {
        self.player.count() as i32 - self.opponent.count() as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(index: u8) -> Square {
        Square::from_index(index)
    }

    #[test]
    fn start_position_moves_match_the_handout() {
        let moves: Vec<usize> = Board::START.moves().squares().map(Square::index).collect();
        assert_eq!(moves, [19, 26, 37, 44]);
    }

    #[test]
    fn playing_d3_flips_d4_and_hands_over_the_turn() {
        let after = Board::START.play(sq(19));
        assert_eq!(after.opponent, Bitboard(1 << 19 | 1 << 27 | 1 << 28 | 1 << 35));
        assert_eq!(after.player, Bitboard(1 << 36));
        let moves: Vec<usize> = after.moves().squares().map(Square::index).collect();
        assert_eq!(moves, [18, 20, 34]);
    }

    #[test]
    fn try_play_names_the_reason() {
        assert_eq!(Board::START.try_play(sq(27)), Err(IllegalMove::Occupied));
        assert_eq!(Board::START.try_play(sq(0)), Err(IllegalMove::NoFlips));
        assert!(Board::START.try_play(sq(44)).is_ok());
    }

    #[test]
    fn legal_moves_are_the_empty_squares_that_flip_something() {
        let mut state = 0x1234_5678_9abc_def0u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let player = state & 0x5a5a_f0f0_3c3c_a5a5u64.rotate_left(state as u32 % 64);
            let opponent = !player & state.rotate_left(23);
            let flipping: u64 = Square::all()
                .filter(|&square| (player | opponent) & square.bitboard().0 == 0)
                .filter(|&square| flips(player, opponent, square) != 0)
                .map(|square| square.bitboard().0)
                .sum();
            assert_eq!(legal_moves(player, opponent), flipping);
        }
    }

    #[test]
    fn lines_do_not_wrap_around_the_edges() {
        // Player on h1, opponent on a2: a move on b2 must not see h1 through the row wrap.
        let board = Board::new(Bitboard(1 << 7), Bitboard(1 << 8));
        assert!(board.moves().is_empty());
        assert!(board.flips(sq(9)).is_empty());
    }

    #[test]
    fn final_score_gives_empties_to_the_winner() {
        let board = Board::new(Bitboard(0b111), Bitboard(0b1000));
        assert_eq!(board.final_score(), 3 - 1 + 60);
        assert_eq!(board.pass().final_score(), -62);
        assert_eq!(board.disc_difference(), 2);
    }
}

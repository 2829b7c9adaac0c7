//! Leaf evaluations for the searches, each from the side to move's point of view and zero-sum
//! (the opponent's value is the negation): discs (h1), weights (h2), mobility (h3), corners.

use crate::stability::stable_discs;
use othello_core::bitboard::Bitboard;
use othello_core::board::Board;

// The names of the evaluations live with the values they give (a score says its evaluation).
pub use othello_core::value::{Eval, UnknownEval};

/// Norvig's SQUARE_WEIGHTS (chapter 18 of PAIP), row-major from a1.
#[rustfmt::skip]
pub const SQUARE_WEIGHTS: [i32; 64] = [
    120, -20,  20,   5,   5,  20, -20, 120,
    -20, -40,  -5,  -5,  -5,  -5, -40, -20,
     20,  -5,  15,   3,   3,  15,  -5,  20,
      5,  -5,   3,   3,   3,   3,  -5,   5,
      5,  -5,   3,   3,   3,   3,  -5,   5,
     20,  -5,  15,   3,   3,  15,  -5,  20,
    -20, -40,  -5,  -5,  -5,  -5, -40, -20,
    120, -20,  20,   5,   5,  20, -20, 120,
];

/// The weight table as (weight, squares with that weight): eight popcounts instead of 64 lookups.
const WEIGHT_CLASSES: [(i32, u64); 8] = weight_classes();

const fn weight_classes() -> [(i32, u64); 8] {
    let values = [120, -20, 20, 5, -40, -5, 15, 3];
    let mut classes = [(0, 0u64); 8];
    let mut i = 0;
    while i < 8 {
        let mut mask = 0u64;
        let mut square = 0;
        while square < 64 {
            if SQUARE_WEIGHTS[square] == values[i] {
                mask |= 1 << square;
            }
            square += 1;
        }
        classes[i] = (values[i], mask);
        i += 1;
    }
    classes
}

/// The sum of SQUARE_WEIGHTS over `player` minus over `opponent`.
#[inline]
pub fn weighted_score(player: Bitboard, opponent: Bitboard) -> i32 {
    WEIGHT_CLASSES
        .iter()
        .map(|&(weight, mask)| {
            weight * ((player.0 & mask).count_ones() as i32 - (opponent.0 & mask).count_ones() as i32)
        })
        .sum()
}

/// The value of `board` for its side to move, by `eval`.
#[inline(always)]
pub fn evaluate(eval: Eval, board: Board) -> i32 {
    match eval {
        Eval::Discs => board.disc_difference(),
        Eval::Weights => weighted_score(board.player, board.opponent),
        Eval::Mobility => {
            let mobility = board.moves().count() as i32 - board.opponent_moves().count() as i32;
            let (p, o) = (board.player.0, board.opponent.0);
            let stability = stable_discs(p, o).count_ones() as i32 - stable_discs(o, p).count_ones() as i32;
            10 * mobility + 30 * stability
        }
        Eval::Corners => {
            let corners =
                (board.player & Bitboard::CORNERS).count() as i32 - (board.opponent & Bitboard::CORNERS).count() as i32;
            board.disc_difference() + 25 * corners
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_score_matches_a_plain_sum() {
        let player = Bitboard(0x8100_0000_1800_0081);
        let opponent = Bitboard(0x0042_0000_0000_4200);
        let plain: i32 = player.squares().map(|s| SQUARE_WEIGHTS[s.index()]).sum::<i32>()
            - opponent.squares().map(|s| SQUARE_WEIGHTS[s.index()]).sum::<i32>();
        assert_eq!(weighted_score(player, opponent), plain);
    }

    #[test]
    fn evaluations_are_zero_sum() {
        let board = Board::START.play(othello_core::square::Square::from_index(19));
        for eval in Eval::ALL {
            assert_eq!(evaluate(eval, board), -evaluate(eval, board.pass()), "{eval}");
        }
    }

    #[test]
    fn names_round_trip() {
        for eval in Eval::ALL {
            assert_eq!(eval.name().parse::<Eval>(), Ok(eval));
        }
        assert_eq!("H3".parse::<Eval>(), Ok(Eval::Mobility));
        assert!("pieces".parse::<Eval>().is_err());
    }
}

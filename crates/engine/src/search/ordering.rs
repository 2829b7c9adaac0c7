//! Move ordering, for both searches: fastest-first (the fewest replies left to the opponent), the
//! parity of the board's regions, and the dearer keys that the endgame's big subtrees repay.

use crate::patterns::{Features, SCALE, Weights};
use crate::stability::stable_discs;
use othello_core::bitboard::Bitboard;
use othello_core::board::Board;
use othello_core::square::Square;

/// Fastest-first: the replies `child` leaves the opponent, corners counting double. Smaller keys
/// are tried first.
#[inline(always)]
pub(crate) fn fastest_first(child: Board) -> i32 {
    let replies = child.moves();
    replies.count() as i32 + (replies & Bitboard::CORNERS).count() as i32
}

/// Fastest-first with corners and parity: the fewer replies a move (to `square`, giving `child`)
/// leaves the opponent, the sooner it is tried; a corner sooner, and a move into a region with an odd
/// number of empty squares (a move there tends to leave the region's last move to us).
#[inline(always)]
pub(crate) fn with_parity(child: Board, square: Square) -> i32 {
    let corner_bonus = if Bitboard::CORNERS.contains(square) { -4 } else { 0 };
    // The region's empties counted before the move: odd then, even now.
    let region = QUADRANTS[QUADRANT_OF[square.index()] as usize];
    let parity_bonus = if (child.empties().0 & region).count_ones().is_multiple_of(2) {
        -PARITY_WEIGHT
    } else {
        0
    };
    fastest_first(child) * 4 + corner_bonus + parity_bonus
}

/// Parity breaks ties between moves leaving the same mobility (it weighs less than one reply).
const PARITY_WEIGHT: i32 = 2;

/// `with_parity` refined: replies weigh most, then the empty squares next to our discs (where the
/// opponent's later moves come from), our stable discs, and what the trained evaluation says the
/// child is worth to the opponent (`features` are the child's).
#[inline(always)]
pub(crate) fn rich(weights: &Weights, child: Board, features: &Features, square: Square) -> i32 {
    let potential = (child.opponent.neighbours() & child.empties()).count() as i32;
    let stable = stable_discs(child.opponent.0, child.player.0).count_ones() as i32;
    let evaluation = weights.pattern_value(child, child.moves(), features) * EVALUATION_WEIGHT / SCALE;
    with_parity(child, square) * 16 + 8 * potential - 8 * stable + evaluation
}

/// Ordering-key units per disc of the child's evaluation (one reply weighs 64).
const EVALUATION_WEIGHT: i32 = 16;

/// `with_parity` beside `value`, what a shallow search says `child` is worth to the opponent (in
/// 1/`SCALE` discs).
#[inline(always)]
pub(crate) fn searched(child: Board, square: Square, value: i32) -> i32 {
    with_parity(child, square) * SEARCHED_MOBILITY_WEIGHT + value
}

/// Ordering-key units (1/`SCALE` disc of the shallow search) per unit of `with_parity`: one reply
/// for the opponent weighs one disc. (With the round-3 evaluation, FFO #40-#49: 1,306 M nodes
/// against 1,452 M at two discs, 1,336 M at 1.5, 1,321 M at half a disc, 1,368 M at none; the
/// weight was two discs, tuned with an earlier evaluation.)
const SEARCHED_MOBILITY_WEIGHT: i32 = 8;

/// The four quadrants, the regions whose parity counts.
pub(crate) const QUADRANTS: [u64; 4] = [
    0x0000_0000_0f0f_0f0f,
    0x0000_0000_f0f0_f0f0,
    0x0f0f_0f0f_0000_0000,
    0xf0f0_f0f0_0000_0000,
];

/// The quadrant (0-3) of each square.
pub(crate) const QUADRANT_OF: [u8; 64] = {
    let mut quadrants = [0u8; 64];
    let mut square = 0;
    while square < 64 {
        quadrants[square] = ((square / 32) * 2 + (square % 8) / 4) as u8;
        square += 1;
    }
    quadrants
};

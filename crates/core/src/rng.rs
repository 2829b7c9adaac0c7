//! The one seeded random generator (xoshiro256++): the same seed gives the same numbers on every
//! machine, so random games, openings and test cases are reproducible.

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

use crate::bitboard::Bitboard;
use crate::square::Square;

#[derive(Clone, Debug)]
pub struct SeededRng(Xoshiro256PlusPlus);

impl SeededRng {
    pub fn new(seed: u64) -> SeededRng {
        SeededRng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// An independent stream for item `index` of a job seeded with `seed` (a game of a match, say),
    /// so that results do not depend on which thread plays which item.
    pub fn for_item(seed: u64, index: u64) -> SeededRng {
        SeededRng::new(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform number in 0..bound (bound > 0), without modulo bias.
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0);
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let value = self.next_u64();
            if value < zone {
                return value % bound;
            }
        }
    }

    /// A uniform square of a non-empty set.
    pub fn pick_square(&mut self, squares: Bitboard) -> Square {
        let n = squares.count() as u64;
        let skip = self.below(n) as usize;
        squares.squares().nth(skip).expect("skip is below the count")
    }
}

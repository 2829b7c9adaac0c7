//! The pattern instances' indices of a position, kept up to date move by move: what the searches
//! carry from node to node and the evaluation reads.

use super::*;

/// [`Features::of_at`] as a plain function, for [`at_level!`].
#[inline(always)]
fn features_body<C: Cpu>(board: Board) -> Features {
    Features::of_at::<C>(board)
}

/// Lanes of each side of [`Features`]: one per pattern instance (54), rounded up to what the vector
/// units add in a few instructions.
pub(crate) const LANES: usize = 64;

/// Every pattern instance's index as the side to move reads it (its discs the digit 1, the
/// opponent's 2) and as the opponent reads it, kept up to date move by move: a search that carries
/// them from a node to its children pays a few vector additions a move (one line of powers for the
/// square played and one for each disc turned) instead of gathering every instance's squares at
/// every leaf, and the evaluation then reads each weight with one load.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Features {
    pub(super) ours: [u16; LANES],
    pub(super) theirs: [u16; LANES],
}

impl Features {
    /// The indices of `board`, read afresh.
    pub fn of(board: Board) -> Features {
        with_cpu!(C => at_level!(C => features_body(board: Board) -> Features))
    }

    /// [`Features::of`] at a CPU level, for the searches to inline: each instance read as the
    /// evaluation reads it.
    #[inline(always)]
    pub fn of_at<C: Cpu>(board: Board) -> Features {
        let layout = Layout::get();
        let mut features = Features {
            ours: [0; LANES],
            theirs: [0; LANES],
        };
        for (k, reader) in layout.readers.iter().enumerate() {
            let start = reader.ternary as usize;
            let ours = layout.ternary[start + C::extract(board.player.0, reader.mask) as usize];
            let theirs = layout.ternary[start + C::extract(board.opponent.0, reader.mask) as usize];
            features.ours[k] = ours + 2 * theirs;
            features.theirs[k] = theirs + 2 * ours;
        }
        features
    }

    /// The indices of `board` summed square by square from the powers that [`Features::after`]
    /// adds: the reference the other two are tested against.
    #[cfg(test)]
    pub(super) fn of_squares(board: Board) -> Features {
        let powers = &Layout::get().powers;
        let mut features = Features {
            ours: [0; LANES],
            theirs: [0; LANES],
        };
        for (bits, digit) in [(board.player, 1), (board.opponent, 2)] {
            for square in bits {
                let line = powers[square.index()].iter();
                for ((ours, theirs), power) in features.ours.iter_mut().zip(&mut features.theirs).zip(line) {
                    *ours += digit * power;
                    *theirs += (3 - digit) * power;
                }
            }
        }
        features
    }

    /// The indices of `child`, a position `parent`'s side to move reached by one move: the square
    /// played becomes the new opponent's (digit 0 to 2 for the side now to move, 0 to 1 for the
    /// other), each disc turned changes hands (1 to 2, and 2 to 1), and the two readings swap.
    #[inline(always)]
    pub fn after(&self, parent: Board, child: Board) -> Features {
        let powers = &Layout::get().powers;
        let played_and_turned = child.opponent.0 ^ parent.player.0;
        let turned = played_and_turned & parent.opponent.0;
        debug_assert_eq!(
            (played_and_turned ^ turned).count_ones(),
            1,
            "one move from parent to child"
        );
        let played = &powers[(played_and_turned ^ turned).trailing_zeros() as usize & 63];
        let mut change = [0u16; LANES];
        for square in Bitboard(turned) {
            let line = &powers[square.index()];
            for k in 0..LANES {
                change[k] = change[k].wrapping_add(line[k]);
            }
        }
        let mut next = Features {
            ours: [0; LANES],
            theirs: [0; LANES],
        };
        for k in 0..LANES {
            next.ours[k] = self.theirs[k]
                .wrapping_add(played[k].wrapping_mul(2))
                .wrapping_add(change[k]);
            next.theirs[k] = self.ours[k].wrapping_add(played[k]).wrapping_sub(change[k]);
        }
        next
    }

    /// Each pattern instance's index as the side to move reads it, in the order of
    /// [`Layout::instance_offsets`] (the lanes after the last instance are zeros).
    #[inline(always)]
    pub fn instances(&self) -> &[u16] {
        &self.ours
    }

    /// The indices after a pass: the same discs, read by the other side.
    #[inline(always)]
    pub fn passed(&self) -> Features {
        Features {
            ours: self.theirs,
            theirs: self.ours,
        }
    }
}

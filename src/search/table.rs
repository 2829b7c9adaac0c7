//! The transposition table of both searches, the midgame engine's and the endgame solver's:
//! positions keyed by the whole board (so no false hits), two to a bucket.

use crate::board::Board;

/// The best move of an entry that has none (a square index is below 64).
pub(crate) const NO_MOVE: u8 = 64;

/// An entry with its position and depth. Zeroable: tables are allocated zeroed, so that the system
/// maps their pages lazily instead of the program writing hundreds of megabytes before the first
/// move; a zeroed slot holds no position (every position has discs).
#[derive(Clone, Copy, bytemuck::Zeroable)]
struct Slot<E> {
    player: u64,
    opponent: u64,
    /// What the entry cost to find (plies searched, or empty squares solved): the deeper is kept.
    depth: u8,
    entry: E,
}

impl<E> Slot<E> {
    #[inline(always)]
    fn holds(&self, board: Board) -> bool {
        self.player == board.player.0 && self.opponent == board.opponent.0
    }
}

/// A table of `2^bits` entries in buckets of two.
pub(crate) struct Table<E> {
    slots: Vec<Slot<E>>,
}

impl<E: Copy + bytemuck::Zeroable> Table<E> {
    pub(crate) fn new(bits: u32) -> Table<E> {
        Table {
            slots: bytemuck::zeroed_vec(1 << bits.max(1)),
        }
    }

    /// The first of the two slots where `board` may be stored.
    #[inline(always)]
    fn bucket(&self, board: Board) -> usize {
        let h =
            board.player.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ board.opponent.0.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        ((h ^ (h >> 29)) as usize) & (self.slots.len() - 2)
    }

    /// The entry for `board` and its depth, if the table has one.
    #[inline(always)]
    pub(crate) fn probe(&self, board: Board) -> Option<(E, u32)> {
        let bucket = self.bucket(board);
        self.slots[bucket..bucket + 2]
            .iter()
            .find(|slot| slot.holds(board))
            .map(|slot| (slot.entry, u32::from(slot.depth)))
    }

    /// Stores `entry` for `board`, found at `depth`, in its bucket: over the same position, else the
    /// first slot keeps the deeper of it and the new one and the second takes the other (a deep
    /// result cost the most to find; a shallow one is the most likely to be asked for again soon).
    #[inline(always)]
    pub(crate) fn store(&mut self, board: Board, depth: u32, entry: E) {
        let bucket = self.bucket(board);
        let [first, second] = &mut self.slots[bucket..bucket + 2] else {
            unreachable!("a bucket holds two slots")
        };
        let new = Slot {
            player: board.player.0,
            opponent: board.opponent.0,
            depth: depth as u8,
            entry,
        };
        if second.holds(board) {
            *second = new;
        } else if first.holds(board) {
            *first = new;
        } else if new.depth >= first.depth {
            *second = *first;
            *first = new;
        } else {
            *second = new;
        }
    }
}

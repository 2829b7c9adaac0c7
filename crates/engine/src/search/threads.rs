//! Searching on several threads: which positions a thread is searching right now, so that the
//! others leave them for later (ABDADA), beside the table they all share; and the thread count.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use othello_core::board::Board;

/// Positions being searched, by a hash of the board in a small open table: a position that does not
/// find its slot free is simply not marked (and so never deferred), which costs a little work
/// twice, never a wrong result.
pub(crate) struct Busy {
    slots: Vec<AtomicU64>,
}

/// 4,096 slots: far more than two threads' paths from the root hold at once.
const BUSY_BITS: u32 = 12;

impl Busy {
    pub(crate) fn new() -> Busy {
        Busy {
            slots: (0..1 << BUSY_BITS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    #[inline(always)]
    fn key(board: Board) -> (usize, u64) {
        let h =
            board.player.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ board.opponent.0.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        let h = h ^ (h >> 31);
        ((h >> (64 - BUSY_BITS)) as usize, h | 1)
    }

    /// Whether another thread is searching `board`.
    #[inline(always)]
    pub(crate) fn contains(&self, board: Board) -> bool {
        let (slot, key) = Busy::key(board);
        self.slots[slot].load(Relaxed) == key
    }

    /// Marks `board` as being searched; false if it could not be (its slot is taken).
    #[inline(always)]
    pub(crate) fn enter(&self, board: Board) -> bool {
        let (slot, key) = Busy::key(board);
        self.slots[slot].compare_exchange(0, key, Relaxed, Relaxed).is_ok()
    }

    /// Unmarks `board`, which `enter` marked.
    #[inline(always)]
    pub(crate) fn leave(&self, board: Board) {
        let (slot, _) = Busy::key(board);
        self.slots[slot].store(0, Relaxed);
    }
}

/// Whether a thread sharing `busy` is searching `child` (never without threads to share with).
#[inline(always)]
pub(crate) fn is_busy(busy: Option<&Busy>, child: Board) -> bool {
    busy.is_some_and(|busy| busy.contains(child))
}

/// `search()` of `child`, marked meanwhile as being searched for the threads sharing `busy`.
#[inline(always)]
pub(crate) fn marked<T>(busy: Option<&Busy>, child: Board, search: impl FnOnce() -> T) -> T {
    let marked = busy.filter(|busy| busy.enter(child));
    let result = search();
    if let Some(busy) = marked {
        busy.leave(child);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_is_busy_from_enter_to_leave() {
        let busy = Busy::new();
        let board = Board::START;
        assert!(!busy.contains(board));
        assert!(busy.enter(board));
        assert!(busy.contains(board));
        assert!(!busy.enter(board), "one mark a slot");
        busy.leave(board);
        assert!(!busy.contains(board));
    }
}

//! The transposition table of both searches, the midgame engine's and the endgame solver's:
//! positions keyed by the whole board (so no false hits), two to a bucket, shared by every thread
//! of a search without locks.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use othello_core::board::Board;

/// The best move of an entry that has none (a square index is below 64).
pub(crate) const NO_MOVE: u8 = 64;

/// An entry that fits in 56 bits, for a slot's one word of data.
pub(crate) trait Packed: Copy {
    fn pack(self) -> u64;
    fn unpack(bits: u64) -> Self;
}

/// A position and its entry in three words: the data (the entry, and in its low byte the depth)
/// and the two halves of the board, each mixed with the data. Threads read and write slots without
/// locks; a slot read while another thread wrote it mixes two entries, and then its words do not
/// give back the board asked for: a torn slot is a miss, never a wrong entry. Zeroed, a slot holds
/// no position (every position has discs): tables are allocated zeroed, so that the system maps
/// their pages lazily instead of the program writing hundreds of megabytes before the first move.
#[derive(bytemuck::Zeroable)]
struct Slot {
    player: AtomicU64,
    opponent: AtomicU64,
    data: AtomicU64,
}

/// A slot's words, read once.
#[derive(Clone, Copy)]
struct Read {
    player: u64,
    opponent: u64,
    data: u64,
}

impl Slot {
    #[inline(always)]
    fn read(&self) -> Read {
        let data = self.data.load(Relaxed);
        Read {
            player: self.player.load(Relaxed) ^ data,
            opponent: self.opponent.load(Relaxed) ^ data,
            data,
        }
    }

    #[inline(always)]
    fn write(&self, board: Board, data: u64) {
        self.set_words([board.player.0 ^ data, board.opponent.0 ^ data, data]);
    }

    /// The words as stored: a slot moved by them stays as it was, torn or not.
    #[inline(always)]
    fn words(&self) -> [u64; 3] {
        [
            self.player.load(Relaxed),
            self.opponent.load(Relaxed),
            self.data.load(Relaxed),
        ]
    }

    #[inline(always)]
    fn set_words(&self, [player, opponent, data]: [u64; 3]) {
        self.player.store(player, Relaxed);
        self.opponent.store(opponent, Relaxed);
        self.data.store(data, Relaxed);
    }
}

impl Read {
    #[inline(always)]
    fn holds(self, board: Board) -> bool {
        self.player == board.player.0 && self.opponent == board.opponent.0
    }

    /// What the entry cost to find (plies searched, or empty squares solved): the deeper is kept.
    #[inline(always)]
    fn depth(self) -> u8 {
        self.data as u8
    }
}

/// A table of `2^bits` entries in buckets of two.
pub(crate) struct Table<E> {
    slots: Vec<Slot>,
    /// The squares the root of the search under way occupies (0: none named). Discs are never
    /// taken off the board, so a position missing one of them cannot occur in this search or any
    /// later one of the game: its slot is free, however deep the search that filled it.
    root: AtomicU64,
    entries: std::marker::PhantomData<E>,
}

impl<E: Packed> Table<E> {
    pub(crate) fn new(bits: u32) -> Table<E> {
        let slots = bytemuck::zeroed_vec(1 << bits.max(1));
        ask_for_huge_pages(&slots);
        Table {
            slots,
            root: AtomicU64::new(0),
            entries: std::marker::PhantomData,
        }
    }

    /// `Table::new`, with every page mapped now rather than at the search's first touch: a timed
    /// engine would otherwise pay for it inside its moves, where it counts
    /// against a clock. A fresh table's first solve at 16 empties, with a deadline of 13 ms, ran
    /// 8,000 nodes in 38 ms of CPU (the pages, and with huge pages the kernel finding and zeroing
    /// 2 MiB at a time), 106 ms of wall time with both cores busy: games on a half-second clock were
    /// lost on time. Writes back a word of each 4 KiB page, changing nothing: a read maps the
    /// shared zero page, and the first write after it still faults (an atomic `fetch_or(0)` is
    /// compiled to a read).
    pub(crate) fn new_mapped(bits: u32) -> Table<E> {
        let table = Table::new(bits);
        let per_page = (4096 / std::mem::size_of::<Slot>()).max(1);
        for slot in table.slots.iter().step_by(per_page) {
            let word = slot.data.as_ptr();
            // SAFETY: the pointer is the slot's own, valid and aligned; the table is not yet
            // shared, so no other thread reads or writes it, and volatile keeps the write.
            unsafe { word.write_volatile(word.read_volatile()) };
        }
        table
    }

    /// Names the root of the next searches (`None`: none, and every entry is kept by depth alone,
    /// as a node budget's games were played): entries of positions it cannot lead to give way
    /// first. Without this, the deep entries of the game's earlier moves (and of earlier games, or
    /// of the positions solved before) kept the first slot of their buckets for good, and the
    /// search under way had only the second.
    pub(crate) fn set_root(&self, root: Option<Board>) {
        self.root
            .store(root.map_or(0, |board| (board.player | board.opponent).0), Relaxed);
    }

    /// The first of the two slots where `board` may be stored.
    #[inline(always)]
    fn bucket(&self, board: Board) -> usize {
        let h =
            board.player.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ board.opponent.0.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        ((h ^ (h >> 29)) as usize) & (self.slots.len() - 2)
    }

    /// Asks the CPU to bring `board`'s bucket into the cache, so that a probe a little later does
    /// not wait for memory: both searches probe every child of their bigger nodes, and those probes,
    /// each a cache miss, cost more than all their move generation (in the midgame a quarter of the
    /// time, before the engine prefetched them).
    #[inline(always)]
    pub(crate) fn prefetch(&self, board: Board) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket = &self.slots[self.bucket(board)..][..2];
            // A bucket may straddle two cache lines: ask for its first and last byte.
            let first = bucket.as_ptr().cast::<i8>();
            let last = first.wrapping_add(std::mem::size_of_val(bucket) - 1);
            // SAFETY: SSE is part of every x86-64 CPU, and a prefetch never faults, whatever the
            // address.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(first);
                _mm_prefetch::<_MM_HINT_T0>(last);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = board;
    }

    /// The entry for `board` and its depth, if the table has one.
    #[inline(always)]
    pub(crate) fn probe(&self, board: Board) -> Option<(E, u32)> {
        let bucket = self.bucket(board);
        self.slots[bucket..bucket + 2]
            .iter()
            .map(Slot::read)
            .find(|read| read.holds(board))
            .map(|read| (E::unpack(read.data >> 8), u32::from(read.depth())))
    }

    /// Stores `entry` for `board`, found at `depth`, in its bucket: over the same position, else the
    /// first slot keeps the deeper of it and the new one and the second takes the other (a deep
    /// result cost the most to find; a shallow one is the most likely to be asked for again soon).
    #[inline(always)]
    pub(crate) fn store(&self, board: Board, depth: u32, entry: E) {
        let bucket = self.bucket(board);
        let [first, second] = &self.slots[bucket..bucket + 2] else {
            unreachable!("a bucket holds two slots")
        };
        let data = (entry.pack() << 8) | u64::from(depth.min(255));
        let (old_first, old_second) = (first.read(), second.read());
        let root = self.root.load(Relaxed);
        if old_second.holds(board) {
            second.write(board, data);
        } else if old_first.holds(board) || (old_first.player | old_first.opponent) & root != root {
            // The same position, or one the game can no longer reach.
            first.write(board, data);
        } else if depth.min(255) as u8 >= old_first.depth() {
            second.set_words(first.words());
            first.write(board, data);
        } else {
            second.write(board, data);
        }
    }
}

/// Asks the system to map the table in pages of 2 MiB where it can (Linux's transparent huge
/// pages, where they are given to programs that ask, as on the machines measured): a table's
/// pages are mapped as the search first touches them, and in 4 KiB pages a short search in a
/// fresh process spent about a third of its wall time in the kernel mapping them. (A one-shot
/// `othello best --strategy engine:300` visited 5-12% more nodes; 93 searches of a million nodes
/// took 5.9 s of wall time instead of 7.7; a warm table, in a match or an exact solve, runs as
/// fast either way: docs/history.md, "Huge pages".) Only whole huge pages inside the table are named; a system
/// without them ignores the request.
fn ask_for_huge_pages(slots: &[Slot]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = slots.as_ptr() as usize;
        let end = start + std::mem::size_of_val(slots);
        let (first, last) = (start.next_multiple_of(HUGE_PAGE), end / HUGE_PAGE * HUGE_PAGE);
        if last > first {
            // SAFETY: the range lies inside the table's own allocation, which lives as long as the
            // call; the advice changes how the pages are backed, never their contents (they are
            // still zero), and a refusal (EINVAL where the kernel lacks the feature) is harmless.
            unsafe { libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = slots;
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Packed for (u8, i8) {
        fn pack(self) -> u64 {
            u64::from(self.0) | (u64::from(self.1 as u8) << 8)
        }
        fn unpack(bits: u64) -> (u8, i8) {
            (bits as u8, (bits >> 8) as u8 as i8)
        }
    }

    /// Kilobytes of private memory the system has given the process in `[start, end)`, from
    /// /proc/self/smaps: the shared zero page, which a read maps, does not count.
    #[cfg(target_os = "linux")]
    fn private_kilobytes(start: usize, end: usize) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut overlaps = false;
        let mut total = 0;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((low, high)) = first.split_once('-')
                && let (Ok(low), Ok(high)) = (usize::from_str_radix(low, 16), usize::from_str_radix(high, 16))
            {
                overlaps = low < end && start < high;
            } else if overlaps && let Some(kilobytes) = line.strip_prefix("Anonymous:") {
                total += kilobytes.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap();
            }
        }
        total
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn regression_a_mapped_table_has_its_pages_before_the_first_search() {
        // 96 MiB: always a mapping of its own, never carved from the heap.
        let table: Table<(u8, i8)> = Table::new_mapped(22);
        let start = table.slots.as_ptr() as usize;
        let end = start + std::mem::size_of_val(&table.slots[..]);
        let kilobytes = private_kilobytes(start, end);
        assert!(
            kilobytes * 1024 >= (end - start) as u64,
            "{kilobytes} kB mapped of {} kB",
            (end - start) / 1024
        );
        assert_eq!(table.probe(Board::START), None, "mapping changes no entry");
    }

    #[test]
    fn a_table_keeps_the_deeper_entry_and_the_newest_beside_it() {
        let table: Table<(u8, i8)> = Table::new(1);
        let start = Board::START;
        let other = start.play(start.moves().first().unwrap());
        let third = other.play(other.moves().first().unwrap());
        table.store(start, 10, (1, -5));
        table.store(other, 3, (2, 7));
        assert_eq!(table.probe(start), Some(((1, -5), 10)));
        assert_eq!(table.probe(other), Some(((2, 7), 3)));
        table.store(third, 4, (3, 0));
        assert_eq!(table.probe(start), Some(((1, -5), 10)), "the deeper stays");
        assert_eq!(table.probe(other), None, "the shallower gives way");
        assert_eq!(table.probe(third), Some(((3, 0), 4)));
        table.store(third, 12, (4, 1));
        assert_eq!(table.probe(third), Some(((4, 1), 12)), "the same position is replaced");
    }

    #[test]
    fn entries_the_root_cannot_lead_to_give_way_however_deep() {
        let table: Table<(u8, i8)> = Table::new(1);
        let start = Board::START;
        let after = start.play(start.moves().first().unwrap());
        let later = after.play(after.moves().first().unwrap());
        table.store(start, 20, (1, 0));
        table.store(after, 10, (2, 0));
        table.store(later, 1, (3, 0));
        assert_eq!(
            table.probe(start),
            Some(((1, 0), 20)),
            "by depth alone the deepest stays"
        );
        assert_eq!(table.probe(after), None);
        table.set_root(Some(later));
        let next = later.play(later.moves().first().unwrap());
        table.store(next, 1, (4, 0));
        assert_eq!(table.probe(start), None, "the start lacks a disc of the root");
        assert_eq!(table.probe(later), Some(((3, 0), 1)));
        assert_eq!(table.probe(next), Some(((4, 0), 1)));
    }

    #[test]
    fn threads_writing_one_bucket_never_make_a_wrong_entry() {
        // Every entry is its board's own mark: a torn slot must read as a miss, never another mark.
        let table: Table<(u8, i8)> = Table::new(1);
        let boards: Vec<Board> = (0..8u64)
            .map(|i| {
                Board::new(
                    othello_core::bitboard::Bitboard(1 << i),
                    othello_core::bitboard::Bitboard(1 << (i + 20)),
                )
            })
            .collect();
        std::thread::scope(|scope| {
            for t in 0..2 {
                let (table, boards) = (&table, &boards);
                scope.spawn(move || {
                    for round in 0..200_000 {
                        let i = (round * 3 + t) % boards.len();
                        table.store(boards[i], (round % 7) as u32, (i as u8, -(i as i8)));
                        let j = (round * 5 + 1) % boards.len();
                        if let Some(((mark, negated), _)) = table.probe(boards[j]) {
                            assert_eq!((mark, negated), (j as u8, -(j as i8)));
                        }
                    }
                });
            }
        });
    }
}

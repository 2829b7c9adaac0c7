//! The pattern evaluation of the strong engines: the discs on fixed groups of squares (edges with
//! their X squares, corner blocks and triangles, edge blocks, rows, columns and diagonals), one
//! weight per configuration of a
//! group and per game stage, summed over every place the group occurs on the board.
//!
//! A pattern is given once, as squares in an order; its instances are its images under the board's
//! 8 symmetries, each read in the image of that order, so that all instances share one table of
//! weights. Where a symmetry maps a pattern onto itself in another order (a row read backwards), the
//! two readings are one configuration: weights are kept per canonical configuration, which makes the
//! evaluation the same on all 8 symmetric boards.

use std::sync::OnceLock;

use othello_core::bitboard::Bitboard;
use othello_core::board::Board;
use othello_core::cpu::{Cpu, at_level, with_cpu};
mod features;
pub mod network;
mod weights;

use network::Network;

pub use features::Features;
pub(crate) use features::LANES;
pub use weights::{LoadedWeights, SCALE, Weights, WeightsError, builtin, load};

/// A pattern: a name and its squares (0 = a1, 7 = h1, 63 = h8) in reading order.
pub struct Pattern {
    pub name: &'static str,
    pub squares: &'static [u8],
}

/// Square index from a name such as "b2", at compile time.
const fn sq(name: &str) -> u8 {
    let bytes = name.as_bytes();
    (bytes[1] - b'1') * 8 + (bytes[0] - b'a')
}

macro_rules! squares {
    ($($name:literal),* $(,)?) => { &[$(sq($name)),*] };
}

pub(crate) const PATTERNS: [Pattern; 13] = [
    Pattern {
        name: "edge+2x",
        squares: squares!["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "b2", "g2"],
    },
    Pattern {
        name: "corner3x3",
        squares: squares!["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"],
    },
    Pattern {
        name: "corner2x5",
        squares: squares!["a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2"],
    },
    Pattern {
        name: "row2",
        squares: squares!["a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2"],
    },
    Pattern {
        name: "row3",
        squares: squares!["a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3"],
    },
    Pattern {
        name: "row4",
        squares: squares!["a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4"],
    },
    Pattern {
        name: "diagonal8",
        squares: squares!["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"],
    },
    Pattern {
        name: "diagonal7",
        squares: squares!["b1", "c2", "d3", "e4", "f5", "g6", "h7"],
    },
    Pattern {
        name: "diagonal6",
        squares: squares!["c1", "d2", "e3", "f4", "g5", "h6"],
    },
    Pattern {
        name: "diagonal5",
        squares: squares!["d1", "e2", "f3", "g4", "h5"],
    },
    Pattern {
        name: "diagonal4",
        squares: squares!["e1", "f2", "g3", "h4"],
    },
    Pattern {
        name: "triangle",
        squares: squares!["a1", "b1", "c1", "d1", "a2", "b2", "c2", "a3", "b3", "a4"],
    },
    Pattern {
        name: "edge-block",
        squares: squares!["a1", "c1", "d1", "e1", "f1", "h1", "c2", "d2", "e2", "f2"],
    },
];

/// Game stages by empty squares: 1-5, 6-10, ..., 56-60.
pub const STAGES: usize = 12;

/// The stage of a position with `empties` empty squares.
pub fn stage(empties: u32) -> usize {
    (empties.clamp(1, 60) as usize - 1) / 5
}

/// The image of square `s` under symmetry `g` (0 the identity; 1-7 the mirrors and rotations).
pub(crate) const fn symmetric_square(s: u8, g: usize) -> u8 {
    let (row, col) = (s / 8, s % 8);
    let (row, col) = match g {
        0 => (row, col),
        1 => (row, 7 - col),
        2 => (7 - row, col),
        3 => (7 - row, 7 - col),
        4 => (col, row),
        5 => (col, 7 - row),
        6 => (7 - col, row),
        _ => (7 - col, 7 - row),
    };
    row * 8 + col
}

/// The image of a whole board under symmetry `g`.
pub(crate) fn symmetric_board(board: Board, g: usize) -> Board {
    let map = |bits: u64| {
        (0..64u8)
            .filter(|&s| bits >> s & 1 != 0)
            .fold(0u64, |image, s| image | 1 << symmetric_square(s, g))
    };
    Board::new(
        othello_core::Bitboard(map(board.player.0)),
        othello_core::Bitboard(map(board.opponent.0)),
    )
}

/// Everything derived from `PATTERNS`: instances, table offsets and canonical configurations.
pub struct Layout {
    /// Per pattern, its instances: the squares in reading order.
    pub instances: Vec<Vec<Vec<u8>>>,
    /// Per pattern, where its weights start in a stage's table, and the table's length.
    pub offsets: Vec<usize>,
    pub stage_len: usize,
    /// Per pattern, the canonical configuration of each configuration.
    pub canonical: Vec<Vec<u32>>,
    /// Every instance of every pattern, for the fast evaluation.
    readers: Vec<Reader>,
    /// The tables of the readers, one for each order in which some instance reads its squares
    /// (instances that read theirs alike share one): the reading-order index of each packed set of
    /// an instance's squares.
    ternary: Vec<u16>,
    /// Per instance (in the readers' order), where its pattern starts in a stage's table.
    instance_offsets: Vec<u32>,
    /// Per square, what one disc there adds to each instance's index (the power of 3 of the
    /// square's place in the instance's reading order, 0 where the instance lacks the square):
    /// what [`Features`] are kept up to date with.
    powers: Vec<[u16; LANES]>,
}

/// One pattern instance as the fast evaluation reads it: its squares gathered as bits (`pext`
/// packs them in square order) and turned into the instance's reading-order index by a table, so
/// that an instance costs two extractions and two lookups instead of a loop over its squares.
#[derive(Clone, Copy)]
struct Reader {
    mask: u64,
    /// Where the instance's pattern starts in a stage's table.
    offset: u32,
    /// Where the instance's table starts in `Layout::ternary`: 2^squares entries.
    ternary: u32,
}

/// The global weights after the patterns in a stage's table: the constant, the mobility (a weight
/// for each move the side to move has more than its opponent), then the count tables.
pub(crate) const CONSTANT: usize = 0;
pub(crate) const MOBILITY: usize = 1;
/// Where the count tables start among the globals: a weight for each value 0-63 of each of
/// [`COUNTS`] counts, in the order [`count_globals`] gives them. The patterns see squares, not how
/// many moves a side has left; a table lets a count be worth what it is (no moves at all is worth
/// much more than one fewer than many), where the mobility weight can only scale it.
const COUNT_TABLES: usize = 2;
/// The counts: the side to move's moves, its opponent's, each side's potential moves (empty
/// squares next to the other side's discs), and each side's frontier (its discs next to an empty
/// square, where the other side's moves will come from). A file holds the first of them: round 8
/// and earlier none, round 15 the first four; the tables it lacks load at zero.
pub const COUNTS: usize = 6;
const COUNT_VALUES: usize = 64;
const GLOBALS: usize = globals_with(COUNTS);

/// The globals of a stage holding the first `counts` count tables.
const fn globals_with(counts: usize) -> usize {
    COUNT_TABLES + counts * COUNT_VALUES
}

/// The globals (as [`Layout::global`] takes them) of `board`'s counts, given the side to move's
/// moves and its opponent's.
#[inline(always)]
pub(crate) fn count_globals(board: Board, moves: Bitboard, replies: Bitboard) -> [usize; COUNTS] {
    let empty = board.empties().0;
    let potential = |discs: u64| (Bitboard(discs).neighbours().0 & empty).count_ones() as usize;
    let next_to_empty = board.empties().neighbours().0;
    let frontier = |discs: u64| (discs & next_to_empty).count_ones() as usize;
    let value = |table: usize, count: usize| COUNT_TABLES + table * COUNT_VALUES + count.min(COUNT_VALUES - 1);
    [
        value(0, moves.count() as usize),
        value(1, replies.count() as usize),
        value(2, potential(board.opponent.0)),
        value(3, potential(board.player.0)),
        value(4, frontier(board.player.0)),
        value(5, frontier(board.opponent.0)),
    ]
}

impl Layout {
    fn build() -> Layout {
        let mut instances = Vec::new();
        let mut offsets = Vec::new();
        let mut canonical = Vec::new();
        let mut readers = Vec::new();
        let mut ternary = Vec::new();
        let mut tables: Vec<(Vec<u16>, u32)> = Vec::new();
        let mut instance_offsets = Vec::new();
        let mut powers = vec![[0u16; LANES]; 64];
        let mut offset = 0;
        for pattern in &PATTERNS {
            let n = pattern.squares.len();
            // Indices up to 3^10 fit the u16 tables.
            assert!(n <= 10, "pattern {} has more than 10 squares", pattern.name);
            let mut found: Vec<Vec<u8>> = Vec::new();

            // Reorderings of the pattern's own squares that a symmetry gives: one configuration.
            let mut self_maps: Vec<Vec<usize>> = Vec::new();
            for g in 0..8 {
                let image: Vec<u8> = pattern.squares.iter().map(|&s| symmetric_square(s, g)).collect();
                let mut sorted = image.clone();
                sorted.sort_unstable();
                let mut base = pattern.squares.to_vec();
                base.sort_unstable();
                if sorted == base {
                    // Position k of the base reading holds, in this reading, the square at position map[k].
                    let map = pattern
                        .squares
                        .iter()
                        .map(|s| image.iter().position(|t| t == s).expect("same squares"))
                        .collect();
                    self_maps.push(map);
                }
                let known = found.iter().any(|other| {
                    let mut other = other.clone();
                    other.sort_unstable();
                    other == sorted
                });
                if !known {
                    found.push(image);
                }
            }
            let size = 3usize.pow(n as u32);
            let mut canon = vec![0u32; size];
            for (config, slot) in canon.iter_mut().enumerate() {
                let digits = digits_of(config, n);
                *slot = self_maps
                    .iter()
                    .map(|map| index_of(map.iter().map(|&k| digits[k])))
                    .min()
                    .expect("the identity maps the pattern onto itself") as u32;
            }
            for image in &found {
                let mask = image.iter().fold(0u64, |mask, &s| mask | 1 << s);
                // Bit k of a packed set is the k-th lowest square of the instance; its digit counts
                // 3^(n - 1 - position in reading order), the first square read being the most significant.
                let mut ascending = image.clone();
                ascending.sort_unstable();
                let powers: Vec<u32> = ascending
                    .iter()
                    .map(|s| {
                        let position = image.iter().position(|t| t == s).expect("same squares");
                        3u32.pow((n - 1 - position) as u32)
                    })
                    .collect();
                let table: Vec<u16> = (0..1usize << n)
                    .map(|bits| (0..n).filter(|k| bits >> k & 1 != 0).map(|k| powers[k]).sum::<u32>() as u16)
                    .collect();
                let start = match tables.iter().find(|(known, _)| *known == table) {
                    Some(&(_, start)) => start,
                    None => {
                        let start = ternary.len() as u32;
                        ternary.extend_from_slice(&table);
                        tables.push((table, start));
                        start
                    }
                };
                readers.push(Reader {
                    mask,
                    offset: offset as u32,
                    ternary: start,
                });
            }
            for image in &found {
                let instance = instance_offsets.len();
                assert!(instance < LANES, "more pattern instances than `Features` has lanes");
                for (position, &square) in image.iter().enumerate() {
                    powers[square as usize][instance] = 3u16.pow((n - 1 - position) as u32);
                }
                instance_offsets.push(offset as u32);
            }
            instances.push(found);
            offsets.push(offset);
            canonical.push(canon);
            offset += size;
        }
        Layout {
            instances,
            offsets,
            stage_len: offset + GLOBALS,
            canonical,
            readers,
            ternary,
            instance_offsets,
            powers,
        }
    }

    /// The layout of `PATTERNS`, built once.
    pub fn get() -> &'static Layout {
        static LAYOUT: OnceLock<Layout> = OnceLock::new();
        LAYOUT.get_or_init(Layout::build)
    }

    /// A stage's length in a weights file of the first `patterns` patterns and the first `counts`
    /// count tables (`len=` in its header).
    fn written_len(&self, patterns: usize, counts: usize) -> usize {
        self.offsets.get(patterns).copied().unwrap_or(self.stage_len - GLOBALS) + globals_with(counts)
    }

    /// The position of the global weight `global` in a stage's table.
    pub fn global(&self, global: usize) -> usize {
        self.stage_len - GLOBALS + global
    }

    /// The index in a stage's table of the canonical configuration of the one at `index` (a
    /// global is its own).
    pub fn canonical_index(&self, index: usize) -> usize {
        match self.offsets.iter().rposition(|&offset| offset <= index) {
            Some(p) if index < self.global(0) => self.offsets[p] + self.canonical[p][index - self.offsets[p]] as usize,
            _ => index,
        }
    }

    /// Per pattern instance (in the order of [`Features`]), where its pattern starts in a stage's
    /// table.
    pub fn instance_offsets(&self) -> &[u32] {
        &self.instance_offsets
    }

    /// How many pattern instances every position has: the features a training row holds.
    pub fn width(&self) -> usize {
        self.instance_offsets.len()
    }

    /// The features a training row holds: every pattern instance and every count.
    pub fn row_width(&self) -> usize {
        self.width() + COUNTS
    }

    /// Where each feature of a training row (in the order of [`Layout::row`]) starts in a stage's
    /// table: a feature less its base fits 16 bits, a pattern having at most 3^10 configurations.
    pub fn row_bases(&self) -> Vec<usize> {
        let counts = std::iter::repeat_n(self.global(0), COUNTS);
        self.instance_offsets
            .iter()
            .map(|&offset| offset as usize)
            .chain(counts)
            .collect()
    }

    /// Calls `feature(index)` with the table index (within a stage) of each pattern instance of
    /// `board`, canonical, then of each of its counts: a training row.
    pub fn row(&self, board: Board, mut feature: impl FnMut(usize)) {
        self.features(board, true, &mut feature);
        for global in count_globals(board, board.moves(), board.opponent_moves()) {
            feature(self.global(global));
        }
    }

    /// Calls `feature(index)` with each pattern instance's table index (within a stage) for
    /// `board`, canonical or as read.
    pub fn features(&self, board: Board, canonical: bool, mut feature: impl FnMut(usize)) {
        let (player, opponent) = (board.player.0, board.opponent.0);
        for (p, instances) in self.instances.iter().enumerate() {
            for squares in instances {
                let mut index = 0usize;
                for &s in squares {
                    let digit = (player >> s & 1) + 2 * (opponent >> s & 1);
                    index = index * 3 + digit as usize;
                }
                let index = if canonical {
                    self.canonical[p][index] as usize
                } else {
                    index
                };
                feature(self.offsets[p] + index);
            }
        }
    }
}

/// Base-3 digits of `config`, most significant first, `n` of them.
fn digits_of(mut config: usize, n: usize) -> Vec<usize> {
    let mut digits = vec![0; n];
    for digit in digits.iter_mut().rev() {
        *digit = config % 3;
        config /= 3;
    }
    digits
}

fn index_of(digits: impl Iterator<Item = usize>) -> usize {
    digits.fold(0, |index, digit| index * 3 + digit)
}

/// Mobility difference, the global feature beside the patterns.
#[inline]
pub fn mobility(board: Board) -> i32 {
    board.moves().count() as i32 - board.opponent_moves().count() as i32
}

#[cfg(test)]
pub(crate) mod tests;

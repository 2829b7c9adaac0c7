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
pub mod network;

use network::Network;

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

pub const PATTERNS: [Pattern; 13] = [
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
pub const fn symmetric_square(s: u8, g: usize) -> u8 {
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
pub fn symmetric_board(board: Board, g: usize) -> Board {
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
pub const CONSTANT: usize = 0;
pub const MOBILITY: usize = 1;
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
pub fn count_globals(board: Board, moves: Bitboard, replies: Bitboard) -> [usize; COUNTS] {
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

/// What a stage's `table` of globals gives a position whose side to move has `moves` against the
/// opponent's `replies`, and whose counts are the globals `counts`: the constant, the mobility and
/// the counts.
#[inline(always)]
fn globals_value(layout: &Layout, table: &[i16], moves: Bitboard, replies: Bitboard, counts: &[usize; COUNTS]) -> i32 {
    let mobility = moves.count() as i32 - replies.count() as i32;
    let mut sum = i32::from(table[layout.global(CONSTANT)]) + i32::from(table[layout.global(MOBILITY)]) * mobility;
    for &global in counts {
        sum += i32::from(table[layout.global(global)]);
    }
    sum
}

/// [`Weights::evaluate_at`] as a plain function, for [`at_level!`].
#[inline(always)]
fn evaluate_body<C: Cpu>(weights: &Weights, board: Board) -> i32 {
    weights.evaluate_at::<C>(board)
}

/// [`Features::of_at`] as a plain function, for [`at_level!`].
#[inline(always)]
fn features_body<C: Cpu>(board: Board) -> Features {
    Features::of_at::<C>(board)
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

/// Lanes of each side of [`Features`]: one per pattern instance (54), rounded up to what the vector
/// units add in a few instructions.
pub const LANES: usize = 64;

/// Every pattern instance's index as the side to move reads it (its discs the digit 1, the
/// opponent's 2) and as the opponent reads it, kept up to date move by move: a search that carries
/// them from a node to its children pays a few vector additions a move (one line of powers for the
/// square played and one for each disc turned) instead of gathering every instance's squares at
/// every leaf, and the evaluation then reads each weight with one load.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Features {
    ours: [u16; LANES],
    theirs: [u16; LANES],
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
    fn of_squares(board: Board) -> Features {
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

/// Weights in 1/`SCALE` discs: per stage, every configuration of every pattern, then the globals;
/// and a network that joins them in the midgame, if the file has one.
pub struct Weights {
    stages: Vec<Vec<i16>>,
    network: Option<Network>,
}

/// Weights count in 1/32 disc.
pub const SCALE: i32 = 32;

/// The weights built into the program (`weights/patterns.bin`, made as weights/README.md says), read on
/// first use only: the lab mode never pays for them.
pub fn builtin() -> &'static Weights {
    static BUILTIN: OnceLock<Weights> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        Weights::from_bytes(include_bytes!("../../../../weights/patterns.bin"))
            .expect("the built-in weights are well formed")
    })
}

/// Weights read from a file (what `othello train --out` writes), with the file's name: what
/// `--weights FILE` and `engine:...:weights=FILE` load. Loaded once per file, and kept.
pub struct LoadedWeights {
    pub path: std::path::PathBuf,
    pub weights: Weights,
}

impl std::fmt::Debug for LoadedWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LoadedWeights({})", self.path.display())
    }
}

// Two loads of one file are one value: compared and hashed by the file's name.
impl PartialEq for LoadedWeights {
    fn eq(&self, other: &LoadedWeights) -> bool {
        self.path == other.path
    }
}

impl Eq for LoadedWeights {}

impl std::hash::Hash for LoadedWeights {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.path.hash(state);
    }
}

/// A weights file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    #[error(transparent)]
    Read(#[from] othello_plumbing::files::ReadError),
    #[error("{0} is not a weights file (as othello train --out writes them)")]
    Malformed(std::path::PathBuf),
}

/// The largest weights file read (the built-in one is 2 MB; one with a network over all 162,359
/// games of round 17 and 18, 5.3 MB).
const MAX_WEIGHTS_BYTES: u64 = 64 << 20;

/// The weights in `path`, read on the first call for that path and kept for the program's life.
pub fn load(path: &std::path::Path) -> Result<&'static LoadedWeights, WeightsError> {
    static LOADED: std::sync::Mutex<Vec<&'static LoadedWeights>> = std::sync::Mutex::new(Vec::new());
    let mut loaded = LOADED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(&found) = loaded.iter().find(|w| w.path == path) {
        return Ok(found);
    }
    let bytes = othello_plumbing::files::read_bytes_limited(path, MAX_WEIGHTS_BYTES)?;
    let weights = Weights::from_bytes(&bytes).ok_or_else(|| WeightsError::Malformed(path.to_path_buf()))?;
    let kept: &'static LoadedWeights = Box::leak(Box::new(LoadedWeights {
        path: path.to_path_buf(),
        weights,
    }));
    loaded.push(kept);
    Ok(kept)
}

impl Weights {
    /// Weights of `stages` (per stage, a table of [`Layout::stage_len`] weights) and `network`.
    pub fn new(stages: Vec<Vec<i16>>, mut network: Option<Network>) -> Weights {
        if let Some(network) = &mut network {
            network.fuse(&stages);
        }
        Weights { stages, network }
    }

    /// Per stage, the table of every configuration's weight, then the globals'.
    pub fn stages(&self) -> &[Vec<i16>] {
        &self.stages
    }

    /// The network, if the weights have one.
    pub fn network(&self) -> Option<&Network> {
        self.network.as_ref()
    }

    /// The evaluation of `board` for its side to move, in 1/`SCALE` discs.
    pub fn evaluate(&self, board: Board) -> i32 {
        let weights = self;
        with_cpu!(C => at_level!(C => evaluate_body(weights: &Weights, board: Board) -> i32))
    }

    /// [`Weights::evaluate`] at a CPU level, for the searches to inline into their own code.
    #[inline(always)]
    pub fn evaluate_at<C: Cpu>(&self, board: Board) -> i32 {
        self.evaluate_with_moves::<C>(board, board.moves())
    }

    /// [`Weights::evaluate_at`] when the caller already has the side to move's moves (a search's
    /// leaf has generated them to see whether it must pass).
    #[inline(always)]
    pub fn evaluate_with_moves<C: Cpu>(&self, board: Board, moves: Bitboard) -> i32 {
        if self.network_for(board).is_some() {
            return self.evaluate_features::<C>(board, moves, &Features::of_at::<C>(board));
        }
        let layout = Layout::get();
        let replies = board.opponent_moves();
        let counts = count_globals(board, moves, replies);
        let table = &self.stages[stage(board.empty_count())];
        let mut sum = globals_value(layout, table, moves, replies, &counts);
        let (player, opponent) = (board.player.0, board.opponent.0);
        let ternary = &layout.ternary;
        for reader in &layout.readers {
            let start = reader.ternary as usize;
            let ours = C::extract(player, reader.mask) as usize;
            let theirs = C::extract(opponent, reader.mask) as usize;
            let index = reader.offset as usize + ternary[start + ours] as usize + 2 * ternary[start + theirs] as usize;
            sum += i32::from(table[index]);
        }
        sum
    }

    /// [`Weights::evaluate_with_moves`] from `board`'s [`Features`]: the same value, a load a
    /// pattern instance.
    #[inline(always)]
    pub fn evaluate_features<C: Cpu>(&self, board: Board, moves: Bitboard, features: &Features) -> i32 {
        let layout = Layout::get();
        let replies = board.opponent_moves();
        let counts = count_globals(board, moves, replies);
        match self.network_for(board) {
            Some(network) => {
                let stage = stage(board.empty_count());
                globals_value(layout, &self.stages[stage], moves, replies, &counts)
                    + network.value_and_patterns::<C, true>(layout, features.instances(), &counts, stage)
            }
            None => self.patterns_value(layout, board, moves, replies, &counts, features),
        }
    }

    /// The patterns' part of [`Weights::evaluate_features`], without the network: what the move
    /// orderings use, where a cheaper guess pays better than a closer one.
    #[inline(always)]
    pub fn pattern_value(&self, board: Board, moves: Bitboard, features: &Features) -> i32 {
        let replies = board.opponent_moves();
        let counts = count_globals(board, moves, replies);
        self.patterns_value(Layout::get(), board, moves, replies, &counts, features)
    }

    #[inline(always)]
    fn patterns_value(
        &self,
        layout: &Layout,
        board: Board,
        moves: Bitboard,
        replies: Bitboard,
        counts: &[usize; COUNTS],
        features: &Features,
    ) -> i32 {
        let table = &self.stages[stage(board.empty_count())];
        let mut sum = globals_value(layout, table, moves, replies, counts);
        for (&offset, &index) in layout.instance_offsets.iter().zip(&features.ours) {
            sum += i32::from(table[offset as usize + index as usize]);
        }
        sum
    }

    /// The network, if there is one and it joins the evaluation of `board`.
    #[inline(always)]
    fn network_for(&self, board: Board) -> Option<&Network> {
        self.network
            .as_ref()
            .filter(|network| network.covers(board.empty_count()))
    }

    /// The evaluation as the slow reference: each instance's squares read one by one.
    #[cfg(test)]
    fn evaluate_by_squares(&self, board: Board) -> i32 {
        let layout = Layout::get();
        let table = &self.stages[stage(board.empty_count())];
        let mut sum = i32::from(table[layout.global(CONSTANT)]);
        sum += i32::from(table[layout.global(MOBILITY)]) * mobility(board);
        for global in tests::count_globals_by_squares(board) {
            sum += i32::from(table[layout.global(global)]);
        }
        let mut instances = Vec::new();
        layout.features(board, false, |index| {
            sum += i32::from(table[index]);
            instances.push((index - layout.instance_offsets[instances.len()] as usize) as u16);
        });
        if let Some(network) = self.network_for(board) {
            sum += network.value::<othello_core::cpu::Portable>(
                layout,
                &instances,
                &tests::count_globals_by_squares(board),
            );
        }
        sum
    }

    /// A 64-bit FNV-1a hash of the weights as written: names the evaluation where a data file
    /// must say which one made it.
    pub fn fingerprint(&self) -> u64 {
        self.to_bytes().iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    /// Writes the weights: a header line, then each stage's canonical configurations' weights as
    /// little-endian i16, zeros packed as runs (a 0 followed by the run's length as u16).
    /// Then the network, if there is one, as [`Network::to_bytes`] writes it.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_bytes_of(PATTERNS.len(), COUNTS)
    }

    /// [`Weights::to_bytes`] as a file of the first `patterns` patterns and `counts` count tables
    /// only (what a build with fewer wrote).
    fn to_bytes_of(&self, patterns: usize, counts: usize) -> Vec<u8> {
        let layout = Layout::get();
        let globals = globals_with(counts);
        let mut bytes = format!(
            "othello patterns 1 stages={STAGES} len={}\n",
            layout.written_len(patterns, counts)
        )
        .into_bytes();
        let mut values = Vec::new();
        for table in &self.stages {
            for (p, canon) in layout.canonical.iter().enumerate().take(patterns) {
                for (config, &c) in canon.iter().enumerate() {
                    if c as usize == config {
                        values.push(table[layout.offsets[p] + config]);
                    }
                }
            }
            values.extend((0..globals).map(|global| table[layout.global(global)]));
        }
        let mut i = 0;
        while i < values.len() {
            if values[i] == 0 {
                let run = values[i..]
                    .iter()
                    .take(u16::MAX as usize)
                    .take_while(|&&v| v == 0)
                    .count();
                bytes.extend_from_slice(&0i16.to_le_bytes());
                bytes.extend_from_slice(&(run as u16).to_le_bytes());
                i += run;
            } else {
                bytes.extend_from_slice(&values[i].to_le_bytes());
                i += 1;
            }
        }
        if let Some(network) = &self.network {
            bytes.extend_from_slice(&network.to_bytes());
        }
        bytes
    }

    /// Reads what `to_bytes` wrote; `None` if it is not that. A file written when `PATTERNS` had
    /// only its first patterns, or `COUNTS` its first counts (the header's `len` says which), reads
    /// with what it lacks at zero: older weights still load, and a fit that adds a feature starts
    /// warm from them.
    pub fn from_bytes(bytes: &[u8]) -> Option<Weights> {
        let layout = Layout::get();
        let newline = bytes.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&bytes[..newline]).ok()?;
        let len = header.strip_prefix(&format!("othello patterns 1 stages={STAGES} len="))?;
        // The numbers of patterns and count tables the file holds: the ones whose stage length its
        // header gives (each pattern's table is longer than all the count tables together, so
        // no two pairs give one length).
        let (written, counts) = (1..=PATTERNS.len())
            .flat_map(|patterns| (0..=COUNTS).map(move |counts| (patterns, counts)))
            .find(|&(patterns, counts)| len == layout.written_len(patterns, counts).to_string())?;
        let globals = globals_with(counts);
        // Every value the file must hold: more (a run of zeros can claim 65,535 of them in 4 bytes)
        // is not a weights file, and is not unpacked.
        let expected = STAGES
            * (globals
                + layout.canonical[..written]
                    .iter()
                    .map(|canon| {
                        canon
                            .iter()
                            .enumerate()
                            .filter(|&(config, &c)| c as usize == config)
                            .count()
                    })
                    .sum::<usize>());
        let mut values = Vec::new();
        let mut rest = &bytes[newline + 1..];
        // The values end where the file's count of them is reached: a network may follow.
        while rest.len() >= 2 && values.len() < expected {
            let value = i16::from_le_bytes([rest[0], rest[1]]);
            rest = &rest[2..];
            if value == 0 {
                if rest.len() < 2 {
                    return None;
                }
                let run = u16::from_le_bytes([rest[0], rest[1]]) as usize;
                rest = &rest[2..];
                values.extend(std::iter::repeat_n(0, run));
            } else {
                values.push(value);
            }
            if values.len() > expected {
                return None;
            }
        }
        let mut values = values.into_iter();
        let mut stages = Vec::with_capacity(STAGES);
        for _ in 0..STAGES {
            let mut table = vec![0i16; layout.stage_len];
            for (p, canon) in layout.canonical.iter().enumerate().take(written) {
                for (config, &c) in canon.iter().enumerate() {
                    if c as usize == config {
                        table[layout.offsets[p] + config] = values.next()?;
                    }
                }
                for (config, &c) in canon.iter().enumerate() {
                    table[layout.offsets[p] + config] = table[layout.offsets[p] + c as usize];
                }
            }
            for global in 0..globals {
                table[layout.global(global)] = values.next()?;
            }
            stages.push(table);
        }
        if values.next().is_some() {
            return None;
        }
        let network = if rest.is_empty() {
            None
        } else {
            Some(Network::from_bytes(rest)?)
        };
        Some(Weights::new(stages, network))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use othello_core::rng::SeededRng;

    #[test]
    fn patterns_have_the_instances_of_their_symmetries() {
        let layout = Layout::get();
        let counts: Vec<usize> = layout.instances.iter().map(Vec::len).collect();
        assert_eq!(counts, [4, 4, 8, 4, 4, 4, 2, 4, 4, 4, 4, 4, 4]);
        // A row read backwards is the same configuration; a 2x5 block has no such reading.
        let row2 = 3;
        let forwards = 1; // a2 the player's, the rest empty
        let backwards = 3usize.pow(7);
        assert_eq!(layout.canonical[row2][forwards], layout.canonical[row2][backwards]);
        assert!(layout.canonical[2].iter().enumerate().all(|(i, &c)| c as usize == i));
    }

    fn random_weights(seed: u64) -> Weights {
        let layout = Layout::get();
        let mut rng = SeededRng::new(seed);
        let mut stages = Vec::new();
        for _ in 0..STAGES {
            let mut table: Vec<i16> = (0..layout.stage_len)
                .map(|_| {
                    if rng.below(3) == 0 {
                        0
                    } else {
                        rng.below(2001) as i16 - 1000
                    }
                })
                .collect();
            for (p, canon) in layout.canonical.iter().enumerate() {
                for (config, &c) in canon.iter().enumerate() {
                    table[layout.offsets[p] + config] = table[layout.offsets[p] + c as usize];
                }
            }
            stages.push(table);
        }
        Weights::new(stages, Some(crate::patterns::network::tests::random_network(seed)))
    }

    pub(crate) fn random_boards(seed: u64, count: usize) -> Vec<Board> {
        let mut rng = SeededRng::new(seed);
        (0..count)
            .map(|_| {
                let mut board = Board::START;
                let plies = rng.below(58);
                for _ in 0..plies {
                    if board.is_game_over() {
                        break;
                    }
                    board = if board.moves().is_empty() {
                        board.pass()
                    } else {
                        board.play(rng.pick_square(board.moves()))
                    };
                }
                board
            })
            .collect()
    }

    /// Features carried move by move through whole random games, passes too, are the ones read
    /// afresh, and evaluate as the position does.
    #[test]
    fn features_kept_move_by_move_are_the_ones_read_afresh() {
        let weights = random_weights(9);
        let mut rng = SeededRng::new(10);
        let mut positions = 0;
        for _ in 0..40 {
            let mut board = Board::START;
            let mut features = Features::of(board);
            while !board.is_game_over() {
                assert_eq!(features, Features::of(board), "{board:?}");
                assert_eq!(features, Features::of_squares(board), "{board:?}");
                let moves = board.moves();
                assert_eq!(
                    weights.evaluate_features::<othello_core::cpu::Portable>(board, moves, &features),
                    weights.evaluate_by_squares(board)
                );
                positions += 1;
                if moves.is_empty() {
                    (board, features) = (board.pass(), features.passed());
                } else {
                    let child = board.play(rng.pick_square(moves));
                    (board, features) = (child, features.after(board, child));
                }
            }
        }
        assert!(positions > 2000);
    }

    #[test]
    fn the_evaluation_is_the_same_on_all_eight_symmetric_boards() {
        let weights = random_weights(1);
        for board in random_boards(2, 300) {
            let value = weights.evaluate(board);
            for g in 1..8 {
                assert_eq!(
                    weights.evaluate(symmetric_board(board, g)),
                    value,
                    "symmetry {g} of {board:?}"
                );
            }
        }
    }

    /// Packed extraction and lookup agree with reading each square, at every level this CPU has.
    #[test]
    fn the_fast_evaluation_agrees_with_reading_square_by_square() {
        let weights = random_weights(7);
        for board in random_boards(8, 500) {
            let expected = weights.evaluate_by_squares(board);
            assert_eq!(weights.evaluate_at::<othello_core::cpu::Portable>(board), expected);
            #[cfg(target_arch = "x86_64")]
            if othello_core::cpu::Level::detected() >= othello_core::cpu::Level::Avx2 {
                assert_eq!(weights.evaluate_at::<othello_core::cpu::Avx2>(board), expected);
            }
            assert_eq!(weights.evaluate(board), expected);
        }
        // Instances that read their squares in the same order share one table, so that the tables
        // stay small enough for a first-level data cache: 46 instances took 24 KB, the 54 of 13
        // patterns take 38 KB, within the 48 KB of AMD Zen 5 and Intel cores since Ice Lake but
        // not the 32 KB of older cores (the searches read them only where they compute Features
        // afresh, so the bound guards the growth rather than a fit).
        let layout = Layout::get();
        let tables: std::collections::BTreeSet<u32> = layout.readers.iter().map(|r| r.ternary).collect();
        assert!(tables.len() < layout.readers.len(), "{} tables", tables.len());
        assert!(
            layout.ternary.len() * 2 <= 40 * 1024,
            "{} entries",
            layout.ternary.len()
        );
    }

    #[test]
    fn the_built_in_weights_load_and_score_a_won_position_above_a_lost_one() {
        let weights = builtin();
        // x holds three corners and most edges with 10 squares left; o the mirror image.
        let (black, white) = othello_core::notation::lab_board::parse(
            "xxxxxxxxxoooooxxxo.ooo.xxoo.o..xxo.oo..xxoooo.oxxoooooxxxxxxxxxo",
        )
        .unwrap();
        let winning = Board::new(black, white);
        let losing = Board::new(white, black);
        assert!(weights.evaluate(winning) > weights.evaluate(losing) + 10 * SCALE);
        for board in random_boards(5, 100) {
            let value = weights.evaluate(board);
            for g in 1..8 {
                assert_eq!(weights.evaluate(symmetric_board(board, g)), value);
            }
        }
    }

    #[test]
    fn weights_survive_writing_and_reading() {
        let weights = random_weights(3);
        let bytes = weights.to_bytes();
        let read = Weights::from_bytes(&bytes).unwrap();
        assert!(read.stages == weights.stages);
        assert!(Weights::from_bytes(&bytes[..bytes.len() - 1]).is_none());
        assert!(Weights::from_bytes(b"othello patterns 2\n").is_none());
    }

    #[test]
    fn a_file_of_the_first_patterns_reads_with_the_later_ones_at_zero() {
        let layout = Layout::get();
        // The round-6 weights, built in before the triangle and the edge block, have 11 patterns;
        // the round-8 ones 13, and no count tables.
        assert_eq!(layout.written_len(11, 0), 167_267);
        assert_eq!(layout.written_len(13, 0), 285_365);
        // Round 15's have the first four count tables.
        assert_eq!(layout.written_len(13, 4), 285_365 + 4 * COUNT_VALUES);
        let fewer = PATTERNS.len() - 1;
        let mut weights = random_weights(4);
        for table in &mut weights.stages {
            table[layout.offsets[fewer]..layout.global(CONSTANT)].fill(0);
        }
        let weights = Weights::new(weights.stages, weights.network);
        let older = weights.to_bytes_of(fewer, COUNTS);
        let header = format!("othello patterns 1 stages=12 len={}\n", layout.offsets[fewer] + GLOBALS);
        assert!(older.starts_with(header.as_bytes()));
        let read = Weights::from_bytes(&older).unwrap();
        assert!(read.stages == weights.stages);
        // A length that no count of patterns has is refused.
        let mut odd = format!(
            "othello patterns 1 stages=12 len={}\n",
            layout.offsets[fewer] + GLOBALS + 1
        )
        .into_bytes();
        odd.extend_from_slice(&older[older.iter().position(|&b| b == b'\n').unwrap() + 1..]);
        assert!(Weights::from_bytes(&odd).is_none());
    }

    #[test]
    fn a_file_of_the_first_count_tables_reads_with_the_later_ones_at_zero() {
        let layout = Layout::get();
        // Round 8's file has none, round 15's the first four.
        for counts in [0, 4] {
            let mut weights = random_weights(6);
            for table in &mut weights.stages {
                table[layout.global(globals_with(counts))..].fill(0);
            }
            // Made again, so that the network's lines hold the changed weights.
            let weights = Weights::new(weights.stages, weights.network);
            let older = weights.to_bytes_of(PATTERNS.len(), counts);
            let header = format!(
                "othello patterns 1 stages=12 len={}\n",
                layout.stage_len - GLOBALS + COUNT_TABLES + counts * COUNT_VALUES
            );
            assert!(older.starts_with(header.as_bytes()));
            assert!(older.len() < weights.to_bytes().len());
            let read = Weights::from_bytes(&older).unwrap();
            assert!(read.stages == weights.stages);
            // Its value is what it holds alone.
            let board = random_boards(7, 1)[0];
            assert_eq!(read.evaluate(board), weights.evaluate(board));
        }
    }

    #[test]
    fn no_two_shapes_of_file_share_a_stage_length() {
        let layout = Layout::get();
        let mut lengths: Vec<usize> = (1..=PATTERNS.len())
            .flat_map(|patterns| (0..=COUNTS).map(move |counts| layout.written_len(patterns, counts)))
            .collect();
        let shapes = lengths.len();
        lengths.sort_unstable();
        lengths.dedup();
        assert_eq!(lengths.len(), shapes);
    }

    /// The counts as a reference reads them: each square looked at by itself.
    pub(super) fn count_globals_by_squares(board: Board) -> [usize; COUNTS] {
        let neighbours = |s: usize, discs: u64| {
            let (row, col) = ((s / 8) as i32, (s % 8) as i32);
            (-1..=1).any(|dr| {
                (-1..=1).any(|dc| {
                    let (r, c) = (row + dr, col + dc);
                    (dr, dc) != (0, 0) && (0..8).contains(&r) && (0..8).contains(&c) && discs >> (r * 8 + c) & 1 != 0
                })
            })
        };
        let empty: Vec<usize> = (0..64)
            .filter(|&s| (board.player.0 | board.opponent.0) >> s & 1 == 0)
            .collect();
        let legal = |b: Board| {
            empty
                .iter()
                .filter(|&&s| !b.flips(othello_core::square::Square::from_index(s as u8)).is_empty())
                .count()
        };
        let count = |n: usize| n.min(COUNT_VALUES - 1);
        let empties: u64 = empty.iter().map(|&s| 1u64 << s).sum();
        let frontier = |discs: u64| {
            (0..64)
                .filter(|&s| discs >> s & 1 != 0 && neighbours(s, empties))
                .count()
        };
        [
            COUNT_TABLES + count(legal(board)),
            COUNT_TABLES + COUNT_VALUES + count(legal(board.pass())),
            COUNT_TABLES + 2 * COUNT_VALUES + count(empty.iter().filter(|&&s| neighbours(s, board.opponent.0)).count()),
            COUNT_TABLES + 3 * COUNT_VALUES + count(empty.iter().filter(|&&s| neighbours(s, board.player.0)).count()),
            COUNT_TABLES + 4 * COUNT_VALUES + count(frontier(board.player.0)),
            COUNT_TABLES + 5 * COUNT_VALUES + count(frontier(board.opponent.0)),
        ]
    }

    #[test]
    fn the_counts_are_what_the_squares_say() {
        for board in random_boards(9, 500) {
            let moves = board.moves();
            assert_eq!(
                count_globals(board, moves, board.opponent_moves()),
                count_globals_by_squares(board)
            );
        }
        // The start: 4 moves each, 10 empty squares beside each side's two discs, every disc on
        // the frontier.
        let start = count_globals(Board::START, Board::START.moves(), Board::START.opponent_moves());
        assert_eq!(
            start,
            [2 + 4, 2 + 64 + 4, 2 + 128 + 10, 2 + 192 + 10, 2 + 256 + 2, 2 + 320 + 2]
        );
    }

    /// A run of zeros claims 65,535 values in 4 bytes: a small file must not unpack into gigabytes.
    #[test]
    fn a_file_of_endless_zero_runs_is_refused_before_it_is_unpacked() {
        let mut bytes = random_weights(5).to_bytes();
        let header = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        bytes.truncate(header);
        for _ in 0..1_000_000 {
            bytes.extend_from_slice(&[0, 0, 0xff, 0xff]);
        }
        assert!(Weights::from_bytes(&bytes).is_none());
    }
}

//! A small network over the pattern features, added to the pattern evaluation in the midgame: the
//! patterns weigh each configuration alone, the network lets configurations weigh each other.
//!
//! Every feature of a position (each pattern instance's canonical configuration and each count, as
//! a training row of [`Layout::row`] holds them) has a vector of [`HIDDEN`] numbers; the network
//! sums the vectors of a position's features and a bias, keeps each sum's positive part, and weighs
//! those: `Σ out[j] · max(0, bias[j] + Σ vector[f][j])`, in discs, beside the patterns' value. The
//! vectors are 8-bit integers, summed exactly in 16 bits, so that the value is the same on every CPU.
//!
//! A leaf's cost is its reads: a vector and a pattern weight a feature, each a miss to the cache,
//! most of them. So each vector shares its cache line with its feature's pattern weights in every
//! stage, copied there by `Network::fuse` when weights are made: a leaf the network covers reads
//! one line a feature (a move 1.29-1.33 times the patterns' time, against 1.47 with two tables).

use crate::patterns::{COUNTS, Layout, SCALE, STAGES};
use othello_core::cpu::Cpu;

/// The numbers a feature's vector holds.
pub const HIDDEN: usize = 32;

/// The vectors and the bias count in 1/`UNIT` of an activation: the fitted vectors' numbers lie
/// within ±1.2, and rounding them to 1/128 leaves the held-out error as it was (4.977 discs
/// against 4.976 over 300,000 positions of 16-50 empties).
pub const UNIT: f32 = 128.0;

/// One feature's vector and, in the rest of its cache line, the feature's pattern weight in each
/// stage (zeros until [`Network::fuse`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
struct Line {
    vector: [i8; HIDDEN],
    patterns: [i16; STAGES],
}

const _: () = assert!(std::mem::size_of::<Line>() == 64, "a line is one cache line");

/// The largest bias: with it, no sum of a bias and a row's vectors (at most 127 each) leaves 16 bits.
const MAX_BIAS: i16 = 16_384;

/// A network, with the positions (by empty squares) whose evaluation it joins.
#[derive(Clone, Debug)]
pub struct Network {
    first: u32,
    last: u32,
    /// Per index of a stage's table (a pattern's configuration as read, or a global), its
    /// feature's line: the vector (zeros where the network has none) and the weights' values
    /// fused beside it. One read a feature, with no table of rows between (a move of 20,000 nodes
    /// took 1.7 times the patterns' time with one, 1.5 without); 22 MB.
    lines: Vec<Line>,
    /// The features that have a vector (canonical configurations and globals): what the file holds.
    keys: Vec<u32>,
    bias: [i16; HIDDEN],
    /// Discs per unit of each activation, as the file holds them, and the same in 1/`SCALE` disc
    /// per 1/`UNIT` of an activation, as the evaluation uses them.
    out: [f32; HIDDEN],
    scaled_out: [f32; HIDDEN],
}

// Two networks are equal when their files are: the pattern weights fused beside the vectors are
// the weights', not the network's.
impl PartialEq for Network {
    fn eq(&self, other: &Network) -> bool {
        (self.first, self.last, &self.keys, self.bias, self.out)
            == (other.first, other.last, &other.keys, other.bias, other.out)
            && self
                .keys
                .iter()
                .all(|&key| self.lines[key as usize].vector == other.lines[key as usize].vector)
    }
}

/// The first words of a network's header line.
const HEADER: &str = "othello network 1";

impl Network {
    /// A network from its parts: `vectors` per feature (canonical table indices, each once),
    /// `bias` in 1/[`UNIT`], `out` in discs per unit; `None` if a key is not a feature, is given
    /// twice, or the empties are not a range within 1-60.
    pub fn new(
        empties: (u32, u32),
        vectors: Vec<(u32, [i8; HIDDEN])>,
        bias: [i16; HIDDEN],
        out: [f32; HIDDEN],
    ) -> Option<Network> {
        let layout = Layout::get();
        let (first, last) = empties;
        if !(1..=60).contains(&first)
            || !(first..=60).contains(&last)
            || out.iter().any(|o| !o.is_finite())
            || bias.iter().any(|b| b.abs() > MAX_BIAS)
        {
            return None;
        }
        const { assert!(MAX_BIAS as usize + 127 * (crate::patterns::LANES + COUNTS) <= i16::MAX as usize) };
        let blank = Line {
            vector: [0; HIDDEN],
            patterns: [0; STAGES],
        };
        let mut table = vec![blank; layout.stage_len];
        let mut given = vec![false; layout.stage_len];
        let mut keys = Vec::with_capacity(vectors.len());
        for (key, vector) in vectors {
            let seen = given.get_mut(key as usize)?;
            if *seen || layout.canonical_index(key as usize) != key as usize {
                return None;
            }
            *seen = true;
            table[key as usize].vector = vector;
            keys.push(key);
        }
        for index in 0..table.len() {
            table[index] = table[layout.canonical_index(index)];
        }
        Some(Network {
            first,
            last,
            lines: table,
            keys,
            bias,
            out,
            scaled_out: out.map(|o| o * SCALE as f32 / UNIT),
        })
    }

    /// Whether the network joins the evaluation of positions with `empties` empty squares.
    #[inline(always)]
    pub fn covers(&self, empties: u32) -> bool {
        (self.first..=self.last).contains(&empties)
    }

    /// Copies each feature's pattern weights, from `stages` (tables of a stage's weights, as
    /// [`crate::patterns::Weights`] hold them), into its vector's line.
    pub(super) fn fuse(&mut self, stages: &[Vec<i16>]) {
        for (index, line) in self.lines.iter_mut().enumerate() {
            line.patterns = std::array::from_fn(|s| stages.get(s).map_or(0, |table| table[index]));
        }
    }

    /// The network's value, in 1/`SCALE` discs, for a position whose pattern instances read
    /// `instances` (as [`crate::patterns::Features`] keep them for the side to move) and whose
    /// counts are the globals `counts`.
    #[inline(always)]
    pub fn value<C: Cpu>(&self, layout: &Layout, instances: &[u16], counts: &[usize; COUNTS]) -> i32 {
        self.value_and_patterns::<C, false>(layout, instances, counts, 0)
    }

    /// [`Network::value`] plus, with `PATTERNS`, the instances' pattern weights in `stage`, read
    /// from the same lines: what the evaluation adds to the globals' value where the network
    /// covers a position.
    #[inline(always)]
    pub(super) fn value_and_patterns<C: Cpu, const PATTERNS: bool>(
        &self,
        layout: &Layout,
        instances: &[u16],
        counts: &[usize; COUNTS],
        stage: usize,
    ) -> i32 {
        // Every feature's index first, then every sum: the lines' loads (misses to memory, most of
        // them) are under way together.
        let offsets = layout.instance_offsets();
        let mut rows = [0u32; crate::patterns::LANES + COUNTS];
        for ((row, &offset), &index) in rows.iter_mut().zip(offsets).zip(instances) {
            *row = offset + u32::from(index);
        }
        for (row, &global) in rows[offsets.len()..].iter_mut().zip(counts) {
            *row = layout.global(global) as u32;
        }
        let mut sums = self.bias;
        let mut patterns = 0;
        for &row in &rows[..offsets.len()] {
            let line = &self.lines[row as usize];
            C::add_widened(&mut sums, &line.vector);
            if PATTERNS {
                patterns += i32::from(line.patterns[stage]);
            }
        }
        // The counts' pattern weights are the globals': the caller's.
        for &row in &rows[offsets.len()..offsets.len() + COUNTS] {
            C::add_widened(&mut sums, &self.lines[row as usize].vector);
        }
        // Eight partial sums, added in one order whatever the vector units: the same value on
        // every CPU.
        let mut lanes = [0f32; 8];
        for (chunk, weights) in sums.chunks_exact(8).zip(self.scaled_out.chunks_exact(8)) {
            for ((lane, &sum), &weight) in lanes.iter_mut().zip(chunk).zip(weights) {
                *lane += sum.max(0) as f32 * weight;
            }
        }
        let total = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
        patterns + total.round() as i32
    }

    /// The network as a file holds it: a header line, then per vector its feature (u32) and its
    /// numbers (i8), then the bias (i16) and the output weights (f32), all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = format!(
            "{HEADER} hidden={HIDDEN} empties={}-{} vectors={}\n",
            self.first,
            self.last,
            self.keys.len()
        )
        .into_bytes();
        for &key in &self.keys {
            bytes.extend_from_slice(&key.to_le_bytes());
            bytes.extend(self.lines[key as usize].vector.map(|v| v as u8));
        }
        for b in self.bias {
            bytes.extend_from_slice(&b.to_le_bytes());
        }
        for o in self.out {
            bytes.extend_from_slice(&o.to_le_bytes());
        }
        bytes
    }

    /// Reads what [`Network::to_bytes`] wrote, all of `bytes`; `None` if it is not that.
    pub fn from_bytes(bytes: &[u8]) -> Option<Network> {
        let newline = bytes.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&bytes[..newline]).ok()?;
        let rest = header.strip_prefix(&format!("{HEADER} hidden={HIDDEN} empties="))?;
        let (empties, count) = rest.split_once(" vectors=")?;
        let (first, last) = empties.split_once('-')?;
        let (first, last): (u32, u32) = (first.parse().ok()?, last.parse().ok()?);
        let count: usize = count.parse().ok()?;
        let body = &bytes[newline + 1..];
        let row = 4 + HIDDEN;
        if body.len() != count.checked_mul(row)?.checked_add(6 * HIDDEN)? {
            return None;
        }
        let vectors = body[..count * row]
            .chunks_exact(row)
            .map(|chunk| {
                let key = u32::from_le_bytes(chunk[..4].try_into().expect("4 bytes"));
                (key, std::array::from_fn(|j| chunk[4 + j] as i8))
            })
            .collect();
        let tail = &body[count * row..];
        let bias = std::array::from_fn(|j| i16::from_le_bytes([tail[2 * j], tail[2 * j + 1]]));
        let word = |j: usize| -> [u8; 4] { tail[2 * HIDDEN + 4 * j..][..4].try_into().expect("4 bytes") };
        let out = std::array::from_fn(|j| f32::from_le_bytes(word(j)));
        Network::new((first, last), vectors, bias, out)
    }

    /// The value from a training row's features (as [`Layout::row`] gives them) in floating point:
    /// the reference the fast value is tested against, and what a fit sees.
    pub fn value_of_row(&self, row: &[usize]) -> f64 {
        let mut sums = self.bias.map(f64::from);
        for &feature in row {
            let vector = &self.lines[feature].vector;
            for (sum, &v) in sums.iter_mut().zip(vector) {
                *sum += f64::from(v);
            }
        }
        sums.iter()
            .zip(&self.out)
            .map(|(&sum, &out)| sum.max(0.0) / f64::from(UNIT) * f64::from(out))
            .sum()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::patterns::tests::random_boards;
    use crate::patterns::{Features, count_globals, symmetric_board};
    use othello_core::board::Board;
    use othello_core::rng::SeededRng;

    /// A network with a vector for every canonical configuration of every pattern and every count
    /// value, drawn at random.
    pub(crate) fn random_network(seed: u64) -> Network {
        let layout = Layout::get();
        let mut rng = SeededRng::new(seed);
        let mut draw = |range: u64| (rng.below(2 * range + 1) as i64 - range as i64) as i32;
        let mut keys: Vec<u32> = (0..layout.stage_len)
            .filter(|&index| layout.canonical_index(index) == index)
            .map(|index| index as u32)
            .collect();
        keys.retain(|&key| (key as usize) < layout.global(0) || key as usize >= layout.global(2));
        let vectors = keys
            .into_iter()
            .map(|key| (key, std::array::from_fn(|_| draw(127) as i8)))
            .collect();
        let bias = std::array::from_fn(|_| draw(1000) as i16);
        let out = std::array::from_fn(|_| draw(100) as f32 / 64.0);
        Network::new((10, 50), vectors, bias, out).expect("a well-formed network")
    }

    fn fast_value(network: &Network, board: Board) -> i32 {
        let layout = Layout::get();
        let counts = count_globals(board, board.moves(), board.opponent_moves());
        network.value::<othello_core::cpu::Portable>(layout, Features::of(board).instances(), &counts)
    }

    #[test]
    fn the_fast_value_is_the_rows_value_rounded() {
        let network = random_network(5);
        let layout = Layout::get();
        for board in random_boards(6, 300) {
            let mut row = Vec::new();
            layout.row(board, |index| row.push(index));
            let reference = network.value_of_row(&row) * f64::from(SCALE);
            let fast = fast_value(&network, board);
            assert!(
                (f64::from(fast) - reference).abs() <= 0.51,
                "{fast} against {reference}"
            );
        }
    }

    #[test]
    fn the_value_is_the_same_on_all_eight_symmetric_boards() {
        let network = random_network(7);
        for board in random_boards(8, 100) {
            let value = fast_value(&network, board);
            for g in 1..8 {
                assert_eq!(fast_value(&network, symmetric_board(board, g)), value);
            }
        }
    }

    #[test]
    fn a_network_survives_writing_and_reading() {
        let network = random_network(9);
        let bytes = network.to_bytes();
        assert_eq!(Network::from_bytes(&bytes), Some(network));
        // One byte short, one byte more, or a feature that is no canonical configuration: refused.
        assert_eq!(Network::from_bytes(&bytes[..bytes.len() - 1]), None);
        assert_eq!(Network::from_bytes(&[&bytes[..], &[0]].concat()), None);
        let layout = Layout::get();
        let not_canonical = (0..layout.stage_len)
            .find(|&i| layout.canonical_index(i) != i)
            .expect("one");
        let mut bad = random_network(9).to_bytes();
        let first_key = bad.iter().position(|&b| b == b'\n').expect("a header") + 1;
        bad[first_key..first_key + 4].copy_from_slice(&(not_canonical as u32).to_le_bytes());
        assert_eq!(Network::from_bytes(&bad), None);
    }
}

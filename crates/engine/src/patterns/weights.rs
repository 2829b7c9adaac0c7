//! The weights of the pattern evaluation: their tables and network, their file format, the
//! built-in ones and those loaded from files, and the evaluation itself.

use super::*;

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

/// Weights in 1/`SCALE` discs: per stage, every configuration of every pattern, then the globals;
/// and a network that joins them in the midgame, if the file has one.
pub struct Weights {
    pub(super) stages: Vec<Vec<i16>>,
    pub(super) network: Option<Network>,
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
    pub(super) fn evaluate_by_squares(&self, board: Board) -> i32 {
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
    pub(super) fn to_bytes_of(&self, patterns: usize, counts: usize) -> Vec<u8> {
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

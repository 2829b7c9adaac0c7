//! Fitting the pattern weights to self-play samples: per stage, least squares with a shrinkage
//! that keeps rarely seen configurations near zero, by full-batch steps in which each weight moves
//! by its features' mean residual (the update of the pattern-evaluation literature, which converges
//! in tens of passes where plain gradient descent needs thousands).

use crate::board::Board;
use crate::patterns::{CONSTANT, Layout, MOBILITY, SCALE, STAGES, Weights, mobility, stage};
use crate::training::selfplay::Sample;

/// One sample as the trainer keeps it.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    pub board: Board,
    pub score: f32,
}

/// How the fit goes.
#[derive(Clone, Copy, Debug)]
pub struct TrainConfig {
    /// Full passes over the data.
    pub epochs: u32,
    /// A weight's step divides its residual sum by (its count + `shrinkage`): rare
    /// configurations move little.
    pub shrinkage: f32,
    /// The share of each step taken, divided among the features of a sample (each of its pattern
    /// instances and the globals moves at once, so a full step each would overshoot many times).
    pub rate: f32,
    /// A sample also teaches the stages whose empties lie within this many of its own: each stage
    /// sees more positions, and neighbouring stages' weights come out closer to each other.
    pub overlap: u32,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            epochs: 40,
            shrinkage: 8.0,
            rate: 1.0,
            overlap: 0,
        }
    }
}

/// Root mean square errors per stage (discs), and how many samples each has.
#[derive(Clone, Debug, PartialEq)]
pub struct StageErrors {
    pub rmse: Vec<f64>,
    pub counts: Vec<usize>,
}

impl StageErrors {
    /// The errors of `predict` on `examples`.
    pub fn of(examples: &[Example], predict: impl Fn(Board) -> f32) -> StageErrors {
        let mut sums = [0f64; STAGES];
        let mut counts = vec![0usize; STAGES];
        for example in examples {
            let s = stage(example.board.empty_count());
            let error = f64::from(predict(example.board) - example.score);
            sums[s] += error * error;
            counts[s] += 1;
        }
        let rmse = sums
            .iter()
            .zip(&counts)
            .map(|(&sum, &n)| if n == 0 { f64::NAN } else { (sum / n as f64).sqrt() })
            .collect();
        StageErrors { rmse, counts }
    }
}

impl From<Sample> for Example {
    fn from(sample: Sample) -> Example {
        Example {
            board: sample.board,
            score: f32::from(sample.score),
        }
    }
}

impl Example {
    /// A sample's training target: its score, or where it has a search value, `search_weight` of
    /// that value and the rest of its score (a game result carries the noise of every later move,
    /// a search value the bias of the evaluation it was searched with; a mix has less of both).
    pub fn blended(sample: Sample, search_weight: f32) -> Example {
        let score = f32::from(sample.score);
        let score = match sample.value {
            Some(value) if !sample.exact => score + search_weight * (f32::from(value) - score),
            _ => score,
        };
        Example {
            board: sample.board,
            score,
        }
    }
}

/// Per stage, float weights over canonical configurations (the tables of `Layout`).
pub struct Model {
    stages: Vec<Vec<f32>>,
}

impl Model {
    pub fn new() -> Model {
        let layout = Layout::get();
        Model {
            stages: vec![vec![0.0; layout.stage_len]; STAGES],
        }
    }

    /// A model that starts where `weights` are: a fit from them moves the configurations the new
    /// samples see, and leaves the rarely seen ones near what earlier data taught them rather than
    /// near zero.
    pub fn from_weights(weights: &Weights) -> Model {
        Model {
            stages: weights
                .stages
                .iter()
                .map(|table| table.iter().map(|&w| f32::from(w) / SCALE as f32).collect())
                .collect(),
        }
    }

    pub fn predict(&self, board: Board) -> f32 {
        self.predict_at_stage(board, stage(board.empty_count()))
    }

    /// What the weights of stage `s` say `board` is worth.
    fn predict_at_stage(&self, board: Board, s: usize) -> f32 {
        let mut indices = Vec::with_capacity(64);
        Layout::get().features(board, true, |index| indices.push(index));
        self.stage_value(s, mobility(board) as f32, &indices)
    }

    /// Stage `s`'s value of a position with mobility `m` and these canonical feature indices.
    fn stage_value(&self, s: usize, m: f32, indices: &[usize]) -> f32 {
        let layout = Layout::get();
        let table = &self.stages[s];
        table[layout.global(CONSTANT)]
            + table[layout.global(MOBILITY)] * m
            + indices.iter().map(|&index| table[index]).sum::<f32>()
    }

    /// The stages a position with `empties` empty squares teaches: its own, and those whose
    /// empties lie within `overlap` of it.
    fn stages_taught(empties: u32, overlap: u32) -> std::ops::RangeInclusive<usize> {
        stage(empties.saturating_sub(overlap).max(1))..=stage(empties + overlap)
    }

    /// One pass: every weight moves by `rate` times its features' residual sum over
    /// (count + shrinkage); the mobility weight by an ordinary least-squares step.
    pub fn step(&mut self, examples: &[Example], config: &TrainConfig) {
        let layout = Layout::get();
        let mut residuals = vec![vec![0f32; layout.stage_len]; STAGES];
        let mut counts = vec![vec![0u32; layout.stage_len]; STAGES];
        let mut mobility_sums = [(0f32, 0f32); STAGES];
        let mut indices = Vec::new();
        for example in examples {
            indices.clear();
            layout.features(example.board, true, |index| indices.push(index));
            let m = mobility(example.board) as f32;
            for s in Self::stages_taught(example.board.empty_count(), config.overlap) {
                let residual = example.score - self.stage_value(s, m, &indices);
                let (sums, seen) = (&mut residuals[s], &mut counts[s]);
                sums[layout.global(CONSTANT)] += residual;
                seen[layout.global(CONSTANT)] += 1;
                for &index in &indices {
                    sums[index] += residual;
                    seen[index] += 1;
                }
                mobility_sums[s].0 += residual * m;
                mobility_sums[s].1 += m * m;
            }
        }
        let features = layout.instances.iter().map(Vec::len).sum::<usize>() as f32 + 2.0;
        let rate = config.rate / features;
        for s in 0..STAGES {
            let table = &mut self.stages[s];
            for (index, weight) in table.iter_mut().enumerate() {
                if index == layout.global(MOBILITY) {
                    let (rm, mm) = mobility_sums[s];
                    *weight += rate * rm / (mm + config.shrinkage);
                } else {
                    let n = counts[s][index] as f32;
                    if n > 0.0 {
                        *weight += rate * residuals[s][index] / (n + config.shrinkage);
                    }
                }
            }
        }
    }

    /// The weights in 1/`SCALE` discs, every configuration given its canonical one's weight.
    pub fn to_weights(&self) -> Weights {
        let layout = Layout::get();
        let stages = self
            .stages
            .iter()
            .map(|table| {
                let quantize = |w: f32| (w * SCALE as f32).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16;
                let mut out: Vec<i16> = table.iter().map(|&w| quantize(w)).collect();
                for (p, canon) in layout.canonical.iter().enumerate() {
                    for (config, &c) in canon.iter().enumerate() {
                        out[layout.offsets[p] + config] = quantize(table[layout.offsets[p] + c as usize]);
                    }
                }
                out
            })
            .collect();
        Weights { stages }
    }
}

impl Default for Model {
    fn default() -> Model {
        Model::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SeededRng;

    /// Positions from random games, scored by a known linear rule of their patterns: the fit must
    /// find it far better than guessing zero, and its exported weights must agree with it.
    #[test]
    fn the_fit_learns_a_rule_it_can_express() {
        let mut rng = SeededRng::new(4);
        let mut examples = Vec::new();
        while examples.len() < 4000 {
            let mut board = Board::START;
            while !board.is_game_over() {
                board = if board.moves().is_empty() {
                    board.pass()
                } else {
                    board.play(rng.pick_square(board.moves()))
                };
                if !board.moves().is_empty() {
                    // Corners count 4 discs each, the rest of the edges 1, plus 2 per move ahead.
                    let corners = |bits: u64| (bits & 0x8100_0000_0000_0081).count_ones() as f32;
                    let edges = |bits: u64| (bits & 0xff81_8181_8181_81ff).count_ones() as f32;
                    let (p, o) = (board.player.0, board.opponent.0);
                    let score = 3.0 * (corners(p) - corners(o)) + (edges(p) - edges(o)) + 2.0 * mobility(board) as f32;
                    examples.push(Example { board, score });
                }
            }
        }
        let mut model = Model::new();
        let before = StageErrors::of(&examples, |_| 0.0);
        let config = TrainConfig::default();
        for _ in 0..config.epochs {
            model.step(&examples, &config);
        }
        let after = StageErrors::of(&examples, |board| model.predict(board));
        for s in 0..STAGES {
            if after.counts[s] > 100 {
                assert!(
                    after.rmse[s] < 0.3 * before.rmse[s],
                    "stage {s}: {after:?} against {before:?}"
                );
            }
        }
        let weights = model.to_weights();
        for example in examples.iter().take(200) {
            let exported = weights.evaluate(example.board) as f32 / SCALE as f32;
            assert!((exported - model.predict(example.board)).abs() < 1.0, "{example:?}");
        }
        // A warm start predicts what the weights it starts from say, and a pass on the data it
        // was fitted to leaves it there.
        let mut warm = Model::from_weights(&weights);
        let warm_error = StageErrors::of(&examples, |board| warm.predict(board));
        for example in examples.iter().take(200) {
            let exported = weights.evaluate(example.board) as f32 / SCALE as f32;
            assert!((exported - warm.predict(example.board)).abs() < 1e-3, "{example:?}");
        }
        warm.step(&examples, &config);
        let stepped = StageErrors::of(&examples, |board| warm.predict(board));
        for s in 0..STAGES {
            if after.counts[s] > 100 {
                assert!(stepped.rmse[s] < warm_error.rmse[s] + 0.05, "stage {s}");
                assert!(warm_error.rmse[s] < 0.3 * before.rmse[s], "stage {s}");
            }
        }
    }

    #[test]
    fn a_blended_target_mixes_the_search_value_into_the_result_where_there_is_one() {
        let sample = Sample {
            board: Board::START,
            score: 10,
            exact: false,
            value: Some(-2),
        };
        assert_eq!(Example::blended(sample, 0.0).score, 10.0);
        assert_eq!(Example::blended(sample, 0.25).score, 7.0);
        assert_eq!(Example::blended(sample, 1.0).score, -2.0);
        let no_value = Sample { value: None, ..sample };
        assert_eq!(Example::blended(no_value, 0.5).score, 10.0);
        // An exact score is the truth: a value never moves it.
        let exact = Sample { exact: true, ..sample };
        assert_eq!(Example::blended(exact, 0.5).score, 10.0);
    }

    #[test]
    fn a_sample_teaches_the_stages_within_the_overlap() {
        assert_eq!(Model::stages_taught(10, 0), 1..=1);
        assert_eq!(Model::stages_taught(10, 1), 1..=2);
        assert_eq!(Model::stages_taught(6, 1), 0..=1);
        assert_eq!(Model::stages_taught(1, 3), 0..=0);
        assert_eq!(Model::stages_taught(60, 2), 11..=11);
        assert_eq!(Model::stages_taught(33, 2), 6..=6);
        assert_eq!(Model::stages_taught(35, 2), 6..=7);
        // Positions with 10 empty squares only: stage 1 (6-10 empties) learns from them, and
        // stage 2 (11-15) only with an overlap.
        let mut rng = SeededRng::new(9);
        let mut examples = Vec::new();
        while examples.len() < 300 {
            let mut board = Board::START;
            while board.empty_count() > 10 && !board.is_game_over() {
                board = if board.moves().is_empty() {
                    board.pass()
                } else {
                    board.play(rng.pick_square(board.moves()))
                };
            }
            if board.empty_count() == 10 {
                examples.push(Example { board, score: 12.0 });
            }
        }
        for (overlap, teaches_stage_2) in [(0, false), (1, true)] {
            let config = TrainConfig {
                overlap,
                ..TrainConfig::default()
            };
            let mut model = Model::new();
            for _ in 0..10 {
                model.step(&examples, &config);
            }
            let board = examples[0].board;
            assert!(
                model.predict_at_stage(board, 1) > 10.0,
                "overlap {overlap}: stage 1 learnt nothing"
            );
            assert_eq!(
                model.predict_at_stage(board, 2) > 10.0,
                teaches_stage_2,
                "overlap {overlap}"
            );
            assert_eq!(model.predict_at_stage(board, 3), 0.0, "overlap {overlap}");
        }
    }
}

//! Fitting the pattern weights to self-play samples: per stage, least squares with a shrinkage
//! that keeps rarely seen configurations near zero, by full-batch steps in which each weight moves
//! by its features' mean residual (the update of the pattern-evaluation literature, which converges
//! in tens of passes where plain gradient descent needs thousands).

use crate::patterns::{CONSTANT, Layout, MOBILITY, SCALE, STAGES, Weights, mobility, stage};
use othello_core::board::Board;

/// One position and its value for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub board: Board,
    /// The final disc difference for the side to move, empty squares to the winner.
    pub score: i8,
    /// Solved from this very position; otherwise the score of the game's first solved position.
    pub exact: bool,
    /// For a position not solved, the player's search value of it in discs, when the player gives
    /// one (files of version 1 have none).
    pub value: Option<i8>,
}

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
    /// The training targets of one game's samples (in the order played): each one's score, or
    /// where it has a search value, `search_weight` of that value and the rest of its score (a
    /// game result carries the noise of every later move, a search value the bias of the
    /// evaluation it was searched with; a mix has less of both). With `lambda` above 0 the value
    /// is replaced by its λ-return, `(1 - λ)` times the value plus `λ` times
    /// the next position's return (seen from this side), the first solved position's exact score
    /// ending the chain. At λ = 0 that is the value itself; towards 1 the later searches, which
    /// saw further into the game, weigh more, and the result's noise from any one later mistake
    /// less than in the result itself.
    pub fn game_targets(samples: &[Sample], search_weight: f32, lambda: f32) -> Vec<Example> {
        let mut targets = vec![None; samples.len()];
        // The next sample's return, from the next sample's side.
        let mut next: Option<(Board, f32)> = None;
        for (i, sample) in samples.iter().enumerate().rev() {
            let own = match sample.value {
                Some(value) if !sample.exact => {
                    let later = match next {
                        Some((board, g)) if same_side(sample.board, board) => g,
                        Some((_, g)) => -g,
                        None => f32::from(sample.score),
                    };
                    let g = (1.0 - lambda) * f32::from(value) + lambda * later;
                    targets[i] = Some(g);
                    g
                }
                _ => f32::from(sample.score),
            };
            next = Some((sample.board, own));
        }
        samples
            .iter()
            .zip(targets)
            .map(|(&sample, target)| {
                let score = f32::from(sample.score);
                Example {
                    board: sample.board,
                    score: target.map_or(score, |g| score + search_weight * (g - score)),
                }
            })
            .collect()
    }
}

/// Whether the side to move in `later`, a position after `earlier` in a game, is the one that
/// moved in `earlier` (the other side passed): the mover's discs are all its own still.
fn same_side(earlier: Board, later: Board) -> bool {
    earlier.player.0 & !later.player.0 == 0 && earlier.player.0 != 0
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
                .stages()
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
        Layout::get().row(board, |index| indices.push(index));
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
            layout.row(example.board, |index| indices.push(index));
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
        let features = layout.row_width() as f32 + 2.0;
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

    /// The least-squares fit solved to convergence: per stage, `iterations` steps of conjugate
    /// gradients on the normal equations, preconditioned by each weight's count (the step of
    /// [`Model::step`] is that preconditioner alone, and needs hundreds of passes for what this
    /// does in tens). The penalty `shrinkage` times the squared distance from where the model
    /// starts keeps the rarely seen configurations there: at zero from a cold start, at the earlier
    /// round's weights from a warm one. `progress(stage)` is called as each stage is done.
    pub fn fit(
        &mut self,
        examples: &[Example],
        config: &TrainConfig,
        iterations: u32,
        mut progress: impl FnMut(usize),
    ) {
        let layout = Layout::get();
        let rows = Rows::new(examples);
        for s in 0..STAGES {
            let members: Vec<u32> = (0..examples.len())
                .filter(|&i| Self::stages_taught(examples[i].board.empty_count(), config.overlap).contains(&s))
                .map(|i| u32::try_from(i).expect("at most 2^32 examples"))
                .collect();
            if !members.is_empty() {
                let prior = self.stages[s].clone();
                self.stages[s] = rows.solve(&members, &prior, layout, config.shrinkage, iterations);
            }
            progress(s);
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
        Weights::new(stages, None)
    }
}

/// The examples as the conjugate-gradient fit reads them: each one's canonical feature indices,
/// mobility and target, computed once. A feature is kept as its offset from its column's base, in
/// 16 bits: the rows are most of the fit's memory.
struct Rows {
    /// Where each column's features start in a stage's table.
    bases: Vec<usize>,
    features: Vec<u16>,
    mobility: Vec<f32>,
    score: Vec<f32>,
}

impl Rows {
    fn new(examples: &[Example]) -> Rows {
        let layout = Layout::get();
        let bases = layout.row_bases();
        let mut features = Vec::with_capacity(examples.len() * bases.len());
        for example in examples {
            let mut column = 0;
            layout.row(example.board, |index| {
                let offset = index - bases[column];
                features.push(u16::try_from(offset).expect("a pattern has at most 3^10 configurations"));
                column += 1;
            });
        }
        Rows {
            bases,
            features,
            mobility: examples.iter().map(|e| mobility(e.board) as f32).collect(),
            score: examples.iter().map(|e| e.score).collect(),
        }
    }

    /// The table indices of row `i`'s features.
    fn indices(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let width = self.bases.len();
        let features = &self.features[i * width..(i + 1) * width];
        self.bases.iter().zip(features).map(|(&base, &f)| base + usize::from(f))
    }

    /// Row `i` of the design matrix times `w`.
    fn dot(&self, i: usize, w: &[f32], constant: usize, mobility: usize) -> f32 {
        w[constant] + w[mobility] * self.mobility[i] + self.indices(i).map(|f| w[f]).sum::<f32>()
    }

    /// Adds `value` times row `i` to `out` (the transpose's product, one row at a time).
    fn scatter(&self, i: usize, value: f64, out: &mut [f64], constant: usize, mobility: usize) {
        out[constant] += value;
        out[mobility] += value * f64::from(self.mobility[i]);
        for f in self.indices(i) {
            out[f] += value;
        }
    }

    /// Minimises |A w - y|^2 + shrinkage |w - prior|^2 over the rows `members`, by preconditioned
    /// conjugate gradients on x = w - prior, from x = 0; sums in f64, in row order (the same
    /// weights on every machine).
    fn solve(&self, members: &[u32], prior: &[f32], layout: &Layout, shrinkage: f32, iterations: u32) -> Vec<f32> {
        let (constant, mobility) = (layout.global(CONSTANT), layout.global(MOBILITY));
        let n = prior.len();
        let lambda = f64::from(shrinkage);
        // The preconditioner: the diagonal of A^T A + lambda I.
        let mut diagonal = vec![lambda; n];
        for i in members.iter().map(|&i| i as usize) {
            diagonal[constant] += 1.0;
            diagonal[mobility] += f64::from(self.mobility[i]).powi(2);
            for f in self.indices(i) {
                diagonal[f] += 1.0;
            }
        }
        // Columns no row touches stay at the prior (and divide nothing by zero).
        let active: Vec<bool> = diagonal.iter().map(|&d| d > lambda).collect();
        let mut r = vec![0f64; n];
        for i in members.iter().map(|&i| i as usize) {
            let residual = f64::from(self.score[i] - self.dot(i, prior, constant, mobility));
            self.scatter(i, residual, &mut r, constant, mobility);
        }
        let precondition = |r: &[f64]| -> Vec<f64> {
            r.iter()
                .zip(&diagonal)
                .zip(&active)
                .map(|((&r, &d), &a)| if a { r / d } else { 0.0 })
                .collect()
        };
        let mut x = vec![0f64; n];
        let mut z = precondition(&r);
        let mut p = z.clone();
        let mut rz: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
        let mut p32 = vec![0f32; n];
        for _ in 0..iterations {
            if rz <= 0.0 {
                break;
            }
            for (to, &from) in p32.iter_mut().zip(&p) {
                *to = from as f32;
            }
            let mut q: Vec<f64> = p
                .iter()
                .zip(&active)
                .map(|(&p, &a)| if a { lambda * p } else { 0.0 })
                .collect();
            for i in members.iter().map(|&i| i as usize) {
                let ap = f64::from(self.dot(i, &p32, constant, mobility));
                self.scatter(i, ap, &mut q, constant, mobility);
            }
            let pq: f64 = p.iter().zip(&q).map(|(a, b)| a * b).sum();
            if pq <= 0.0 {
                break;
            }
            let alpha = rz / pq;
            for k in 0..n {
                x[k] += alpha * p[k];
                r[k] -= alpha * q[k];
            }
            z = precondition(&r);
            let next: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
            let beta = next / rz;
            rz = next;
            for k in 0..n {
                p[k] = z[k] + beta * p[k];
            }
        }
        prior.iter().zip(&x).map(|(&w, &dx)| w + dx as f32).collect()
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
    use othello_core::rng::SeededRng;

    /// At least 4,000 positions of random games (seeded), each scored by `rule`.
    fn random_examples(seed: u64, rule: impl Fn(Board) -> f32) -> Vec<Example> {
        let mut rng = SeededRng::new(seed);
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
                    examples.push(Example {
                        board,
                        score: rule(board),
                    });
                }
            }
        }
        examples
    }

    fn corners(bits: u64) -> f32 {
        (bits & 0x8100_0000_0000_0081).count_ones() as f32
    }

    /// Positions from random games, scored by a known linear rule of their patterns: the fit must
    /// find it far better than guessing zero, and its exported weights must agree with it.
    #[test]
    fn the_fit_learns_a_rule_it_can_express() {
        // Corners count 4 discs each, the rest of the edges 1, plus 2 per move ahead.
        let examples = random_examples(4, |board| {
            let edges = |bits: u64| (bits & 0xff81_8181_8181_81ff).count_ones() as f32;
            let (p, o) = (board.player.0, board.opponent.0);
            3.0 * (corners(p) - corners(o)) + (edges(p) - edges(o)) + 2.0 * mobility(board) as f32
        });
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
                // The exported weights round each value to 1/32 disc: a few hundredths of a disc.
                assert!(
                    warm_error.rmse[s] < after.rmse[s] + 0.1,
                    "stage {s}: {} against {}",
                    warm_error.rmse[s],
                    after.rmse[s]
                );
            }
        }
    }

    /// The conjugate-gradient fit solves the same least squares as the steps, to convergence: on a
    /// rule the patterns express it ends far nearer the rule than the steps' default passes do.
    #[test]
    fn conjugate_gradients_fit_closer_than_the_same_number_of_steps() {
        let examples = random_examples(5, |board| {
            let (p, o) = (board.player.0, board.opponent.0);
            4.0 * (corners(p) - corners(o)) + 1.5 * mobility(board) as f32 - 3.0
        });
        let config = TrainConfig {
            shrinkage: 0.01,
            ..TrainConfig::default()
        };
        let mut steps = Model::new();
        for _ in 0..config.epochs {
            steps.step(&examples, &config);
        }
        let mut cg = Model::new();
        let mut done = Vec::new();
        cg.fit(&examples, &config, config.epochs, |stage| done.push(stage));
        assert_eq!(done, (0..STAGES).collect::<Vec<_>>());
        let steps_error = StageErrors::of(&examples, |board| steps.predict(board));
        let cg_error = StageErrors::of(&examples, |board| cg.predict(board));
        let mean = |errors: &StageErrors| errors.rmse.iter().sum::<f64>() / STAGES as f64;
        assert!(
            cg_error.rmse.iter().all(|&e| e < 0.1) && mean(&cg_error) < 0.2 * mean(&steps_error),
            "{cg_error:?} against {steps_error:?}"
        );
        // A warm start with a large shrinkage stays at the weights it starts from.
        let start = cg.to_weights();
        let mut frozen = Model::from_weights(&start);
        let stiff = TrainConfig {
            shrinkage: 1e9,
            ..config
        };
        frozen.fit(&examples, &stiff, 10, |_| {});
        assert!(frozen.to_weights().stages() == start.stages());
    }

    #[test]
    fn a_blended_target_mixes_the_search_value_into_the_result_where_there_is_one() {
        let sample = Sample {
            board: Board::START,
            score: 10,
            exact: false,
            value: Some(-2),
        };
        let target = |sample: Sample, weight: f32| Example::game_targets(&[sample], weight, 0.0)[0].score;
        assert_eq!(target(sample, 0.0), 10.0);
        assert_eq!(target(sample, 0.25), 7.0);
        assert_eq!(target(sample, 1.0), -2.0);
        let no_value = Sample { value: None, ..sample };
        assert_eq!(target(no_value, 0.5), 10.0);
        // An exact score is the truth: a value never moves it.
        let exact = Sample { exact: true, ..sample };
        assert_eq!(target(exact, 0.5), 10.0);
    }

    /// A game of four positions: black moves, white moves, white passes (black moves again),
    /// then a solved position. Each value's λ-return looks through the next one's, from the
    /// right side, and the chain ends at the exact score.
    #[test]
    fn lambda_returns_follow_the_side_to_move_through_passes_to_the_exact_score() {
        let start = Board::START;
        let after_one = start.play(start.moves().first().expect("a move"));
        let after_two = after_one.play(after_one.moves().first().expect("a move"));
        // A pass: the same side moves again, so the board is not turned around.
        let after_pass = after_two.play(after_two.moves().first().expect("a move")).pass();
        assert!(!same_side(start, after_one) && same_side(after_two, after_pass));
        let sample = |board, score, value, exact| Sample {
            board,
            score,
            exact,
            value,
        };
        let game = [
            sample(start, 4, Some(2), false),
            sample(after_one, -4, Some(0), false),
            sample(after_two, 4, Some(8), false),
            sample(after_pass, 6, None, true),
        ];
        // lambda 0.5: g3 = 6 (exact); g2 = 0.5*8 + 0.5*6 = 7 (same side after the pass);
        // g1 = 0.5*0 + 0.5*(-7) = -3.5; g0 = 0.5*2 + 0.5*3.5 = 2.75.
        let targets: Vec<f32> = Example::game_targets(&game, 1.0, 0.5).iter().map(|e| e.score).collect();
        assert_eq!(targets, [2.75, -3.5, 7.0, 6.0]);
        // lambda 0 gives the values, lambda 1 the exact score carried back.
        let at = |lambda| -> Vec<f32> {
            Example::game_targets(&game, 1.0, lambda)
                .iter()
                .map(|e| e.score)
                .collect()
        };
        assert_eq!(at(0.0), [2.0, 0.0, 8.0, 6.0]);
        assert_eq!(at(1.0), [6.0, -6.0, 6.0, 6.0]);
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

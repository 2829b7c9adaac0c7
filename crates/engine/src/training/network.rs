//! Fitting the network of [`crate::patterns::network`] to what the pattern weights leave of each training
//! target: stochastic gradients in batches (Adam, each feature's vector moved only in the batches
//! that see it), in one order that a seed fixes, so that the same games give the same network on
//! every machine.

use crate::patterns::network::{HIDDEN, Network, UNIT};
use crate::patterns::{Layout, SCALE, Weights};
use crate::training::train::Example;
use othello_core::rng::SeededRng;

/// How the fit goes.
#[derive(Clone, Copy, Debug)]
pub struct NetworkConfig {
    /// The positions (by empty squares) the network learns and joins the evaluation of.
    pub empties: (u32, u32),
    /// At most this many passes over the training rows; the fit stops sooner when two passes in
    /// a row leave the held-out error no lower than its best.
    pub epochs: u32,
    /// Rows a step, and the step's size (Adam's).
    pub batch: usize,
    pub rate: f32,
    pub seed: u64,
}

impl Default for NetworkConfig {
    fn default() -> NetworkConfig {
        NetworkConfig {
            empties: (16, 50),
            epochs: 40,
            batch: 4096,
            rate: 0.001,
            seed: 1,
        }
    }
}

/// Training rows: each position's features as offsets from their bases (a pattern instance's
/// configuration fits 16 bits) and what the patterns leave of its target, in discs.
pub struct Rows {
    bases: Vec<usize>,
    features: Vec<u16>,
    residuals: Vec<f32>,
}

impl Rows {
    /// The rows of the `examples` whose empties `config` covers, against `patterns` (weights
    /// whose network, if any, is left out).
    pub fn of(examples: &[Example], patterns: &Weights, config: &NetworkConfig) -> Rows {
        let layout = Layout::get();
        let bases = layout.row_bases();
        let (first, last) = config.empties;
        let mut rows = Rows {
            bases,
            features: Vec::new(),
            residuals: Vec::new(),
        };
        for example in examples
            .iter()
            .filter(|e| (first..=last).contains(&e.board.empty_count()))
        {
            let start = rows.features.len();
            layout.row(example.board, |index| {
                let k = rows.features.len() - start;
                rows.features.push((index - rows.bases[k]) as u16);
            });
            let base = patterns.evaluate(example.board) as f32 / SCALE as f32;
            rows.residuals.push(example.score - base);
        }
        rows
    }

    pub fn len(&self) -> usize {
        self.residuals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.residuals.is_empty()
    }

    /// Row `r`'s features as indices of a stage's table.
    fn row(&self, r: usize) -> impl Iterator<Item = usize> + '_ {
        let width = self.bases.len();
        self.features[r * width..(r + 1) * width]
            .iter()
            .zip(&self.bases)
            .map(|(&offset, &base)| base + offset as usize)
    }
}

/// The network in floating point as the fit moves it: a vector per index of a stage's table
/// (only canonical ones are ever moved), the bias and the output weights.
#[derive(Clone)]
struct Params {
    vectors: Vec<[f32; HIDDEN]>,
    bias: [f32; HIDDEN],
    out: [f32; HIDDEN],
}

impl Params {
    fn new(len: usize, rng: &mut SeededRng) -> Params {
        // Uniform draws of standard deviation 0.05: small enough that the first sums stay near
        // zero, apart enough that the hidden units differ.
        let mut draw = || (rng.below(1 << 24) as f32 / (1 << 24) as f32 * 2.0 - 1.0) * 0.0866;
        Params {
            vectors: (0..len).map(|_| std::array::from_fn(|_| draw())).collect(),
            bias: [0.0; HIDDEN],
            out: std::array::from_fn(|_| draw()),
        }
    }

    /// The hidden sums of a row.
    fn sums(&self, row: impl Iterator<Item = usize>) -> [f32; HIDDEN] {
        let mut sums = self.bias;
        for index in row {
            for (sum, &v) in sums.iter_mut().zip(&self.vectors[index]) {
                *sum += v;
            }
        }
        sums
    }

    fn output(&self, sums: &[f32; HIDDEN]) -> f32 {
        sums.iter().zip(&self.out).map(|(&s, &o)| s.max(0.0) * o).sum()
    }

    /// The network as the evaluation holds it: every vector the rows moved, in 1/`UNIT`.
    fn to_network(&self, moved: &[bool], empties: (u32, u32)) -> Network {
        let quantize = |x: f32, max: f32| (x * UNIT).round().clamp(-max, max);
        let vectors = moved
            .iter()
            .enumerate()
            .filter(|&(_, &moved)| moved)
            .map(|(index, _)| (index as u32, self.vectors[index].map(|x| quantize(x, 127.0) as i8)))
            .collect();
        let bias = self.bias.map(|x| quantize(x, 16_384.0) as i16);
        Network::new(empties, vectors, bias, self.out)
            .expect("the rows' features are canonical indices of a stage's table, each once")
    }
}

/// Adam's moments of one parameter set.
struct Moments {
    first: Params,
    second: Params,
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

/// One Adam step of `value` by `gradient`, with the moments `m` and `v`, at step `t`'s corrections.
#[inline(always)]
fn adam(value: &mut f32, gradient: f32, m: &mut f32, v: &mut f32, rate: f32, (c1, c2): (f32, f32)) {
    *m = BETA1 * *m + (1.0 - BETA1) * gradient;
    *v = BETA2 * *v + (1.0 - BETA2) * gradient * gradient;
    *value -= rate * (*m / c1) / ((*v / c2).sqrt() + EPSILON);
}

/// The root mean square error (discs) of `params` on `rows`.
fn error(params: &Params, rows: &Rows) -> f64 {
    let sum: f64 = (0..rows.len())
        .map(|r| {
            let e = f64::from(params.output(&params.sums(rows.row(r))) - rows.residuals[r]);
            e * e
        })
        .sum();
    (sum / rows.len().max(1) as f64).sqrt()
}

/// Fits a network to `train`, keeping the pass whose error on `held` is lowest; `progress` hears
/// each pass's number and held-out error. `None` if there are no rows to fit.
pub fn fit(train: &Rows, held: &Rows, config: &NetworkConfig, mut progress: impl FnMut(u32, f64)) -> Option<Network> {
    if train.is_empty() || held.is_empty() {
        return None;
    }
    let len = Layout::get().stage_len;
    let mut rng = SeededRng::new(config.seed);
    let mut params = Params::new(len, &mut rng);
    let zeros = || Params {
        vectors: vec![[0.0; HIDDEN]; len],
        bias: [0.0; HIDDEN],
        out: [0.0; HIDDEN],
    };
    let mut moments = Moments {
        first: zeros(),
        second: zeros(),
    };
    let mut gradient = zeros();
    let mut moved = vec![false; len];
    for r in 0..train.len() {
        for index in train.row(r) {
            moved[index] = true;
        }
    }
    let mut touched: Vec<usize> = Vec::new();
    let mut in_batch = vec![false; len];
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut best = (error(&params, held), params.clone());
    let mut step = 0i32;
    let mut since_best = 0;
    for epoch in 1..=config.epochs {
        // Fisher-Yates with the seeded generator: the same order on every machine.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for batch in order.chunks(config.batch) {
            let scale = 2.0 / batch.len() as f32;
            for &r in batch {
                let r = r as usize;
                let sums = params.sums(train.row(r));
                let d_out = scale * (params.output(&sums) - train.residuals[r]);
                let mut d_sums = [0f32; HIDDEN];
                for j in 0..HIDDEN {
                    gradient.out[j] += d_out * sums[j].max(0.0);
                    d_sums[j] = if sums[j] > 0.0 { d_out * params.out[j] } else { 0.0 };
                    gradient.bias[j] += d_sums[j];
                }
                for index in train.row(r) {
                    if !in_batch[index] {
                        in_batch[index] = true;
                        touched.push(index);
                    }
                    for (g, &d) in gradient.vectors[index].iter_mut().zip(&d_sums) {
                        *g += d;
                    }
                }
            }
            step += 1;
            let corrections = (1.0 - BETA1.powi(step), 1.0 - BETA2.powi(step));
            // The vectors a batch did not see keep their value and their moments (lazy Adam):
            // a step costs what the batch touched, not the whole table.
            for &index in &touched {
                let (value, g) = (&mut params.vectors[index], &mut gradient.vectors[index]);
                let (m, v) = (&mut moments.first.vectors[index], &mut moments.second.vectors[index]);
                for j in 0..HIDDEN {
                    adam(&mut value[j], g[j], &mut m[j], &mut v[j], config.rate, corrections);
                    g[j] = 0.0;
                }
                in_batch[index] = false;
            }
            touched.clear();
            for j in 0..HIDDEN {
                let (m, v) = (&mut moments.first, &mut moments.second);
                adam(
                    &mut params.bias[j],
                    gradient.bias[j],
                    &mut m.bias[j],
                    &mut v.bias[j],
                    config.rate,
                    corrections,
                );
                adam(
                    &mut params.out[j],
                    gradient.out[j],
                    &mut m.out[j],
                    &mut v.out[j],
                    config.rate,
                    corrections,
                );
                gradient.bias[j] = 0.0;
                gradient.out[j] = 0.0;
            }
        }
        let held_error = error(&params, held);
        progress(epoch, held_error);
        if held_error < best.0 {
            best = (held_error, params.clone());
            since_best = 0;
        } else {
            since_best += 1;
            if since_best == 2 {
                break;
            }
        }
    }
    Some(best.1.to_network(&moved, config.empties))
}

/// `weights` without their network: what a network is fitted on top of.
pub fn patterns_only(weights: &Weights) -> Weights {
    Weights::new(weights.stages().to_vec(), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::tests::random_boards;
    use othello_core::board::Board;

    /// What the patterns cannot give by design, as no sum of a weight per count can: a disc for
    /// each move the side to move has more than its opponent, nothing when it has fewer.
    fn lead(board: Board) -> f32 {
        (board.moves().count() as f32 - board.opponent_moves().count() as f32).max(0.0)
    }

    /// Positions valued at the built-in patterns' value (their network left out) plus the lead.
    fn examples(seed: u64, count: usize) -> Vec<Example> {
        let weights = patterns_only(crate::patterns::builtin());
        random_boards(seed, count)
            .into_iter()
            .map(|board| Example {
                board,
                score: weights.evaluate(board) as f32 / SCALE as f32 + lead(board),
            })
            .collect()
    }

    #[test]
    fn the_network_learns_what_the_patterns_leave() {
        let config = NetworkConfig {
            empties: (1, 60),
            epochs: 30,
            batch: 64,
            rate: 0.003,
            seed: 3,
        };
        let patterns = patterns_only(crate::patterns::builtin());
        let (train, held) = (examples(1, 4000), examples(2, 1000));
        let (train, held) = (
            Rows::of(&train, &patterns, &config),
            Rows::of(&held, &patterns, &config),
        );
        let before = (held.residuals.iter().map(|r| f64::from(r * r)).sum::<f64>() / held.len() as f64).sqrt();
        let mut errors = Vec::new();
        let network = fit(&train, &held, &config, |_, error| errors.push(error)).expect("rows to fit");
        let best = errors.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(before > 1.0, "{before}");
        assert!(
            best < 0.5 * before,
            "held-out error {best} against {before} before: {errors:?}"
        );
        // The network as the evaluation holds it (8-bit vectors) is as good, within rounding.
        let weights = Weights::new(patterns.stages().to_vec(), Some(network));
        let sum: f64 = examples(2, 1000)
            .iter()
            .map(|e| f64::from(weights.evaluate(e.board) as f32 / SCALE as f32 - e.score).powi(2))
            .sum();
        let evaluated = (sum / 1000.0).sqrt();
        assert!((evaluated - best).abs() < 0.05, "{evaluated} against {best}");
    }

    #[test]
    fn the_same_rows_and_seed_give_the_same_network() {
        let config = NetworkConfig {
            empties: (1, 60),
            epochs: 2,
            batch: 64,
            ..NetworkConfig::default()
        };
        let patterns = patterns_only(crate::patterns::builtin());
        let rows = Rows::of(&examples(4, 500), &patterns, &config);
        let held = Rows::of(&examples(5, 100), &patterns, &config);
        let a = fit(&rows, &held, &config, |_, _| {}).expect("rows to fit");
        let b = fit(&rows, &held, &config, |_, _| {}).expect("rows to fit");
        assert_eq!(a, b);
        let other = fit(&rows, &held, &NetworkConfig { seed: 2, ..config }, |_, _| {}).expect("rows to fit");
        assert_ne!(a, other);
    }
}

//! Multi-ProbCut for the engine's midgame search: a shallow search predicts a deep one, and where
//! the prediction lies far enough beyond the window the deep search is skipped. How far is "far
//! enough" comes from the spread of deep values around shallow ones, fitted on the project's own
//! self-play positions by `othello probcut` (docs/engine.md has the command, docs/history.md the figures). The exact
//! solver never uses it: `solve` stays exact.

/// Deep searches of at least this many plies are first tried with a shallow one (from 5 played
/// as well: 59.4% of 128 games against full width at a million nodes a move, both).
use crate::search::engine::{Budget, Engine, EngineStyle};
use crate::settings::EngineSettings;
use othello_core::board::Board;

pub const MIN_DEPTH: u32 = 3;

/// How many standard deviations beyond the window a shallow value must lie to cut: NTest's
/// midgame setting. With the shallow depths below (and an earlier refit within 0.2 of a disc of
/// this one), an experiment build had NTest's tree (3.83 M nodes to depth 12 on 28 positions, NTest
/// 2.95 M; 1.5 with half-depth tests: 11.90 M) and played as well held to depth 14 against NTest
/// (47.9% of 256 games against 46.1%) in under a third of the time; built in, it won 52.0% of
/// 1,024 self-play games at equal time (docs/history.md, "Selective search").
pub(crate) const CUT_SIGMAS: f64 = 1.0;

/// From this depth the shallow search is a third of the deep one, not a half: the cut is tried
/// for the price of a much smaller search, as NTest tries it (from 9 plies: 3).
pub const THIRD_FROM: u32 = 9;

/// The shallow search's depth for a deep one of `depth`: about half of it below [`THIRD_FROM`]
/// (twice a quarter, rounded down), about a third from it, always of the same parity (values of odd
/// and even depths differ systematically: the side to move at the horizon).
pub const fn shallow_depth(depth: u32) -> u32 {
    if depth >= THIRD_FROM {
        let third = depth / 3;
        return third + ((depth - third) & 1);
    }
    let shallow = 2 * (depth / 4) + (depth & 1);
    if shallow == 0 { depth - 2 } else { shallow }
}

/// The standard deviation, in discs, of a deep search's value minus the shallow one's:
/// `a + b * empties + c * shallow + d * deep`, fitted by `othello probcut` on round-2 self-play
/// positions (docs/engine.md has the command). The endgame's probable cuts (`search::endgame`)
/// read it; the midgame search reads [`MIDGAME_SIGMA_MODEL`].
pub const SIGMA_MODEL: [f64; 4] = [5.2816, -0.0658, -0.5789, 0.3094];

/// [`SIGMA_MODEL`] for the midgame search's cuts, fitted with the built-in (round-8) weights on
/// their own self-play positions for the shallow depths of [`shallow_depth`] (docs/engine.md).
pub const MIDGAME_SIGMA_MODEL: [f64; 4] = [4.3341, -0.0567, -0.5042, 0.2683];

/// The fitted standard deviation for a position with `empties` empty squares, in discs.
pub fn sigma(empties: u32, shallow: u32, deep: u32) -> f64 {
    evaluate_model(&SIGMA_MODEL, empties, shallow, deep)
}

/// How far beyond the window the midgame search's shallow value must lie, in evaluation units
/// (1/32 disc).
#[inline]
pub fn margin(empties: u32, shallow: u32, deep: u32) -> i32 {
    let sigma = evaluate_model(&MIDGAME_SIGMA_MODEL, empties, shallow, deep);
    (sigma * CUT_SIGMAS * f64::from(crate::patterns::SCALE)) as i32
}

fn evaluate_model(model: &[f64; 4], empties: u32, shallow: u32, deep: u32) -> f64 {
    let [a, b, c, d] = *model;
    // A floor keeps a model fitted on few depths from going to zero or below far out.
    (a + b * f64::from(empties) + c * f64::from(shallow) + d * f64::from(deep)).max(0.5)
}

/// One fitting observation: a position's deep value minus its shallow value, in discs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    pub empties: u32,
    pub deep: u32,
    pub difference: f64,
}

/// What `board` gives the fit: for every deep depth from [`MIN_DEPTH`] to `max_depth`, its
/// full-width value at that depth minus the value at its shallow depth (none where a search
/// reached the game's end), searched by an engine of `settings`.
pub fn observe(board: Board, max_depth: u32, settings: &EngineSettings) -> Vec<Observation> {
    if board.moves().is_empty() {
        return Vec::new();
    }
    let mut engine = Engine::with_style(Budget::Depth(max_depth), EngineStyle::default(), settings);
    let values = engine.depth_values(board, max_depth);
    (MIN_DEPTH..=max_depth.min(values.len() as u32))
        .filter_map(|deep| {
            let (d, s) = (values[deep as usize - 1], values[shallow_depth(deep) as usize - 1]);
            Some(Observation {
                empties: board.empty_count(),
                deep,
                difference: d? - s?,
            })
        })
        .collect()
}

/// Positions are grouped by this many empty squares for the cells of the fit.
pub const EMPTIES_PER_CELL: u32 = 10;

/// The observed spread for one group of positions and one deep depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// The first number of empties of the group.
    pub empties: u32,
    pub deep: u32,
    pub count: usize,
    /// Mean of deep minus shallow, in discs: near zero if the evaluation is calibrated across depths.
    pub mean: f64,
    /// Standard deviation of deep minus shallow, in discs.
    pub sigma: f64,
    /// The model's sigma at the group's mean number of empties.
    pub fitted: f64,
}

/// The spread of every cell with enough observations, and the linear model fitted to the cells
/// (least squares weighted by their counts): what `SIGMA_MODEL` holds.
pub fn fit(observations: &[Observation]) -> (Vec<Cell>, [f64; 4]) {
    // Per cell: count, sum of empties, sum and sum of squares of the differences.
    let mut sums: std::collections::BTreeMap<(u32, u32), (usize, f64, f64, f64)> = Default::default();
    for o in observations {
        let cell = sums.entry((o.empties / EMPTIES_PER_CELL, o.deep)).or_default();
        cell.0 += 1;
        cell.1 += f64::from(o.empties);
        cell.2 += o.difference;
        cell.3 += o.difference * o.difference;
    }
    let mut cells = Vec::new();
    let mut rows = Vec::new();
    for (&(group, deep), &(count, empties, sum, squares)) in &sums {
        if count < 20 {
            continue;
        }
        let n = count as f64;
        let mean = sum / n;
        let sigma = (squares / n - mean * mean).max(0.0).sqrt();
        let mean_empties = empties / n;
        rows.push((
            [1.0, mean_empties, f64::from(shallow_depth(deep)), f64::from(deep)],
            sigma,
            n,
        ));
        cells.push(Cell {
            empties: group * EMPTIES_PER_CELL,
            deep,
            count,
            mean,
            sigma,
            fitted: 0.0,
        });
    }
    let model = least_squares(&rows);
    for (cell, (features, _, _)) in cells.iter_mut().zip(&rows) {
        cell.fitted = evaluate_model(&model, features[1] as u32, shallow_depth(cell.deep), cell.deep);
    }
    (cells, model)
}

/// Weighted least squares of four coefficients by the normal equations (Gaussian elimination with
/// partial pivoting); zeros where the cells do not determine them.
fn least_squares(rows: &[([f64; 4], f64, f64)]) -> [f64; 4] {
    let mut a = [[0.0; 5]; 4];
    for (x, y, w) in rows {
        for i in 0..4 {
            for j in 0..4 {
                a[i][j] += w * x[i] * x[j];
            }
            a[i][4] += w * x[i] * y;
        }
    }
    for col in 0..4 {
        let pivot = (col..4)
            .max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        if a[col][col].abs() < 1e-12 {
            return [0.0; 4];
        }
        let pivot_row = a[col];
        for (row, values) in a.iter_mut().enumerate() {
            if row != col {
                let factor = values[col] / pivot_row[col];
                for (value, pivot) in values[col..].iter_mut().zip(&pivot_row[col..]) {
                    *value -= factor * pivot;
                }
            }
        }
    }
    std::array::from_fn(|i| a[i][4] / a[i][i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_depths_keep_the_parity_and_stay_below() {
        for depth in MIN_DEPTH..=40 {
            let shallow = shallow_depth(depth);
            assert!(shallow >= 1 && shallow < depth, "{depth} -> {shallow}");
            assert_eq!(shallow % 2, depth % 2, "{depth} -> {shallow}");
        }
        assert_eq!(
            [3, 4, 8, 9, 10, 12, 14, 20].map(shallow_depth),
            [1, 2, 4, 3, 4, 4, 4, 6]
        );
    }

    #[test]
    fn the_fit_recovers_a_known_linear_spread() {
        // Differences of exactly +-sigma (mean 0), sigma = 2 + 0.1 * empties + 0.5 * deep - 0.2 * shallow.
        let truth = [2.0, 0.1, -0.2, 0.5];
        let mut observations = Vec::new();
        for empties in (14..=54).step_by(10) {
            for deep in 3..=10 {
                let sigma = truth[0]
                    + truth[1] * f64::from(empties)
                    + truth[2] * f64::from(shallow_depth(deep))
                    + truth[3] * f64::from(deep);
                for k in 0..40 {
                    let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                    observations.push(Observation {
                        empties,
                        deep,
                        difference: sign * sigma,
                    });
                }
            }
        }
        let (cells, model) = fit(&observations);
        assert_eq!(cells.len(), 5 * 8);
        for (fitted, expected) in model.iter().zip(truth) {
            assert!((fitted - expected).abs() < 1e-6, "{model:?}");
        }
        assert!(
            cells
                .iter()
                .all(|cell| cell.mean.abs() < 1e-9 && (cell.sigma - cell.fitted).abs() < 1e-6)
        );
    }

    #[test]
    fn the_built_in_model_gives_positive_margins() {
        for empties in 10..=60 {
            for deep in MIN_DEPTH..=30 {
                assert!(sigma(empties, shallow_depth(deep), deep) > 0.0);
                assert!(margin(empties, shallow_depth(deep), deep) > 0);
            }
        }
    }
}

//! Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2012): a rating, its deviation
//! (the uncertainty: about 95% of the time the strength lies within two deviations) and its
//! volatility, updated after a rating period of games.

use std::f64::consts::PI;

/// The Glicko-2 scale's factor (173.7178 = 400 / ln 10).
const SCALE: f64 = 173.7178;
/// How far the volatility's iteration must close in before it stops.
const CONVERGENCE: f64 = 0.000_001;

/// A player's rating on the Glicko scale.
///
/// ```
/// use othello_course::rating::Rating;
/// let fresh = Rating::default();
/// let after = fresh.after(&[(Rating::default(), 1.0)], 0.5);
/// assert!(after.rating > 1500.0 && after.deviation < fresh.deviation);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

impl Default for Rating {
    /// A player never rated: 1500, deviation 350, volatility 0.06 (Glickman's suggestions).
    fn default() -> Rating {
        Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
        }
    }
}

impl Rating {
    /// The rating after one rating period whose games are `results` (the opponent as rated
    /// before the period, and the score: 1 a win, 1/2 a tie, 0 a loss); `tau` is the system's
    /// constant (0.3 to 1.2; smaller keeps volatilities from moving much). With no games, only the
    /// deviation grows.
    pub fn after(&self, results: &[(Rating, f64)], tau: f64) -> Rating {
        let (mu, phi, sigma) = ((self.rating - 1500.0) / SCALE, self.deviation / SCALE, self.volatility);
        if results.is_empty() {
            return Rating {
                deviation: (phi * phi + sigma * sigma).sqrt() * SCALE,
                ..*self
            };
        }
        let g = |phi_j: f64| 1.0 / (1.0 + 3.0 * phi_j * phi_j / (PI * PI)).sqrt();
        let terms: Vec<(f64, f64, f64)> = results
            .iter()
            .map(|(opponent, score)| {
                let (mu_j, phi_j) = ((opponent.rating - 1500.0) / SCALE, opponent.deviation / SCALE);
                let g_j = g(phi_j);
                let expected = 1.0 / (1.0 + (-g_j * (mu - mu_j)).exp());
                (g_j, expected, *score)
            })
            .collect();
        let v = 1.0 / terms.iter().map(|(g, e, _)| g * g * e * (1.0 - e)).sum::<f64>();
        let improvement: f64 = terms.iter().map(|(g, e, s)| g * (s - e)).sum();
        let delta = v * improvement;
        let sigma = new_volatility(phi, sigma, v, delta, tau);
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        let phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu = mu + phi * phi * improvement;
        Rating {
            rating: mu * SCALE + 1500.0,
            deviation: phi * SCALE,
            volatility: sigma,
        }
    }
}

/// The volatility after a period (step 5 of the paper: the Illinois algorithm).
fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    // Bounded: the bracket halves at least every other step; 200 steps are far past 1e-6.
    for _ in 0..200 {
        if (big_b - big_a).abs() <= CONVERGENCE {
            break;
        }
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            (big_a, f_a) = (big_b, f_b);
        } else {
            f_a /= 2.0;
        }
        (big_b, f_b) = (c, f_c);
    }
    (big_a / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's worked example: 1500 (deviation 200) beats a 1400 (30), loses to a 1550 (100)
    /// and to a 1700 (300), tau 0.5: 1464.06, deviation 151.52, volatility 0.05999.
    #[test]
    fn the_papers_example_comes_out_as_printed() {
        let player = Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let after = player.after(
            &[
                (opponent(1400.0, 30.0), 1.0),
                (opponent(1550.0, 100.0), 0.0),
                (opponent(1700.0, 300.0), 0.0),
            ],
            0.5,
        );
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn a_period_without_games_only_widens_the_deviation() {
        let player = Rating {
            rating: 1600.0,
            deviation: 100.0,
            volatility: 0.06,
        };
        let after = player.after(&[], 0.5);
        assert_eq!((after.rating, after.volatility), (1600.0, 0.06));
        assert!((after.deviation - (100f64.powi(2) + (0.06 * SCALE).powi(2)).sqrt()).abs() < 1e-9);
    }

    #[test]
    fn even_results_between_equals_keep_the_rating_and_narrow_the_deviation() {
        let after = Rating::default().after(&[(Rating::default(), 1.0), (Rating::default(), 0.0)], 0.5);
        assert!((after.rating - 1500.0).abs() < 1e-9);
        assert!(after.deviation < 350.0);
    }
}

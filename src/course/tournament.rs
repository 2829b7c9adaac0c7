//! Tournaments of built-in strategies and students' programs, as the course's server runs them: round
//! robin (every pair, both colours, R rounds) or Swiss (players of equal points paired each round);
//! a win is 1 point, a tie 1/2, the cumulative disc difference breaks ties. Games run in parallel and
//! the standings do not depend on the thread count.

use crate::color::Color;
use crate::matches::{MatchConfig, PlayedGame, play_game};
use crate::rng::SeededRng;
use crate::strategy::StrategySpec;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    RoundRobin { rounds: u32 },
    Swiss { rounds: u32 },
}

#[derive(Clone, Debug)]
pub struct TournamentConfig {
    pub players: Vec<StrategySpec>,
    pub format: Format,
    pub seed: u64,
    /// Random moves from the start before each pairing's two games (0: the start position).
    pub opening_plies: u32,
    pub threads: usize,
}

/// Two players meeting: two games, each with black once, from the same opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub round: u32,
    /// Players' indices; `first` is black in the first game.
    pub first: usize,
    pub second: usize,
    /// The pairing's number in the whole tournament, which seeds its opening and random players.
    pub number: u64,
}

/// One player's results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Standing {
    pub player: usize,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub forfeits: u32,
    pub byes: u32,
    /// Own discs minus the opponent's, over all games.
    pub discs: i64,
    /// Why it forfeited, its first forfeits (at most MAX_NOTES).
    pub forfeit_notes: Vec<ForfeitNote>,
}

/// Forfeits whose reasons a standing keeps (the count has them all).
pub const MAX_NOTES: usize = 5;

/// Why a player forfeited one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForfeitNote {
    pub round: u32,
    pub opponent: usize,
    pub color: Color,
    /// The move it failed at, from 1 (passes counted).
    pub ply: usize,
    /// The Lab 4 handout's code, and the tournament server's.
    pub code: i32,
    pub server_code: i32,
    pub failure: String,
    /// The last line it wrote to stderr.
    pub stderr: Option<String>,
}

impl ForfeitNote {
    /// `round 2 as x against 3, move 13: time-out (code -2); stderr: "..."`.
    pub fn describe(&self, names: &[String]) -> String {
        let mut text = format!(
            "round {} as {} against {}, move {}: {} (code {})",
            self.round + 1,
            self.color.lab_char(),
            names.get(self.opponent).map_or("?", String::as_str),
            self.ply,
            self.failure,
            self.code
        );
        if let Some(last) = &self.stderr {
            text.push_str(&format!("; stderr: {last:?}"));
        }
        text
    }
}

impl Standing {
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }
}

/// Plays the tournament; `on_game` sees every game in a fixed order (round, pairing, colour).
/// Returns the standings, best first.
pub fn run(config: &TournamentConfig, mut on_game: impl FnMut(&Pairing, &PlayedGame)) -> Vec<Standing> {
    let count = config.players.len();
    let mut standings: Vec<Standing> = (0..count)
        .map(|player| Standing {
            player,
            ..Standing::default()
        })
        .collect();
    let mut number = 0u64;
    let mut met = vec![vec![false; count]; count];
    let rounds = match config.format {
        Format::RoundRobin { rounds } | Format::Swiss { rounds } => rounds,
    };
    for round in 0..rounds {
        let pairs = match config.format {
            Format::RoundRobin { .. } => (0..count).flat_map(|i| (i + 1..count).map(move |j| (i, j))).collect(),
            Format::Swiss { .. } => {
                let (pairs, bye) = swiss_pairs(&standings, &met);
                if let Some(player) = bye {
                    // A bye scores as two won games with no discs.
                    standings[player].byes += 1;
                    standings[player].wins += 2;
                    standings[player].games += 2;
                }
                pairs
            }
        };
        let pairings: Vec<Pairing> = pairs
            .into_iter()
            .map(|(first, second)| {
                met[first][second] = true;
                met[second][first] = true;
                number += 1;
                Pairing {
                    round,
                    first,
                    second,
                    number,
                }
            })
            .collect();
        let play = |index: usize| {
            let pairing = pairings[index / 2];
            let match_config = MatchConfig {
                a: config.players[pairing.first].clone(),
                b: config.players[pairing.second].clone(),
                games: 2,
                seed: SeededRng::for_item(config.seed, pairing.number).next_u64(),
                openings: crate::matches::Openings::Random(config.opening_plies),
            };
            play_game(&match_config, (index % 2) as u32)
        };
        crate::parallel::ordered(2 * pairings.len(), config.threads, play, |index, played| {
            let pairing = pairings[index / 2];
            let (a, b) = played.discs();
            let note = |opponent: usize| {
                played.forfeit.as_ref().map(|f| ForfeitNote {
                    round: pairing.round,
                    opponent,
                    color: f.side,
                    ply: played.game.turns().len() + 1,
                    code: f.failed.failure.code(),
                    server_code: f.failed.failure.server_code(),
                    failure: f.failed.failure.to_string(),
                    stderr: f.failed.stderr_tail.last().cloned(),
                })
            };
            let a_failed = played.forfeit.as_ref().map(|f| f.side) == Some(played.a_color);
            let b_failed = played.forfeit.as_ref().is_some_and(|f| f.side != played.a_color);
            record(
                &mut standings[pairing.first],
                a,
                b,
                a_failed.then(|| note(pairing.second)).flatten(),
            );
            record(
                &mut standings[pairing.second],
                b,
                a,
                b_failed.then(|| note(pairing.first)).flatten(),
            );
            on_game(&pairing, &played);
            true
        });
    }
    let mut ranked = standings;
    ranked.sort_by(|x, y| {
        y.points()
            .total_cmp(&x.points())
            .then(y.discs.cmp(&x.discs))
            .then(x.player.cmp(&y.player))
    });
    ranked
}

fn record(standing: &mut Standing, own: u32, other: u32, forfeit: Option<ForfeitNote>) {
    standing.games += 1;
    standing.discs += i64::from(own) - i64::from(other);
    if let Some(note) = forfeit {
        standing.forfeits += 1;
        if standing.forfeit_notes.len() < MAX_NOTES {
            standing.forfeit_notes.push(note);
        }
    }
    match own.cmp(&other) {
        std::cmp::Ordering::Greater => standing.wins += 1,
        std::cmp::Ordering::Equal => standing.draws += 1,
        std::cmp::Ordering::Less => standing.losses += 1,
    }
}

/// A Swiss round: players ordered by points (then discs, then their number), each paired with the
/// next one below it that it has not met yet (or the next one at all); the last player left over
/// gets the bye, the lowest-ranked one that has had none if possible.
fn swiss_pairs(standings: &[Standing], met: &[Vec<bool>]) -> (Vec<(usize, usize)>, Option<usize>) {
    let mut order: Vec<usize> = (0..standings.len()).collect();
    order.sort_by(|&x, &y| {
        let (a, b) = (&standings[x], &standings[y]);
        b.points()
            .total_cmp(&a.points())
            .then(b.discs.cmp(&a.discs))
            .then(x.cmp(&y))
    });
    let mut bye = None;
    if order.len() % 2 == 1 {
        let at = order
            .iter()
            .rposition(|&p| standings[p].byes == 0)
            .unwrap_or(order.len() - 1);
        bye = Some(order.remove(at));
    }
    let mut pairs = Vec::new();
    while let Some(first) = (!order.is_empty()).then(|| order.remove(0)) {
        let at = order.iter().position(|&p| !met[first][p]).unwrap_or(0);
        let second = order.remove(at);
        pairs.push((first, second));
    }
    (pairs, bye)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(format: Format, threads: usize) -> TournamentConfig {
        TournamentConfig {
            players: ["random", "greedy", "alphabeta:2:weights", "preferred", "weighted"]
                .iter()
                .map(|name| name.parse().unwrap())
                .collect(),
            format,
            seed: 5,
            opening_plies: 4,
            threads,
        }
    }

    #[test]
    fn round_robin_plays_every_pair_with_both_colours() {
        let mut games = Vec::new();
        let standings = run(&config(Format::RoundRobin { rounds: 2 }, 3), |pairing, played| {
            games.push((pairing.first, pairing.second, played.a_color));
        });
        assert_eq!(games.len(), 2 * 2 * 10);
        assert!(standings.iter().all(|s| s.games == 16));
        let points: f64 = standings.iter().map(Standing::points).sum();
        assert_eq!(points, 40.0, "every game gives out one point");
        assert_eq!(standings.iter().map(|s| s.discs).sum::<i64>(), 0);
        // Not the thread count: the same standings on one thread.
        assert_eq!(standings, run(&config(Format::RoundRobin { rounds: 2 }, 1), |_, _| {}));
    }

    #[test]
    fn swiss_rounds_pair_everyone_once_and_give_one_bye_each() {
        let mut pairs = Vec::new();
        let standings = run(&config(Format::Swiss { rounds: 3 }, 2), |pairing, _| {
            pairs.push((pairing.round, pairing.first, pairing.second));
        });
        pairs.dedup();
        assert_eq!(pairs.len(), 3 * 2, "two pairings a round, five players");
        assert_eq!(standings.iter().map(|s| s.byes).sum::<u32>(), 3);
        assert!(standings.iter().all(|s| s.byes <= 1));
        assert!(standings.iter().all(|s| s.games == 6));
    }
}

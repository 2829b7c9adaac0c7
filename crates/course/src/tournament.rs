//! Tournaments of built-in strategies and students' programs, as the course's server runs them: round
//! robin (every pair, both colours, R rounds) or Swiss (players of equal points paired each round);
//! a win is 1 point, a tie 1/2, the cumulative disc difference breaks ties. Games run in parallel and
//! the standings do not depend on the thread count.

use crate::matches::{MatchConfig, PlayedGame, play_game};
use crate::strategy::StrategySpec;
use othello_core::color::Color;
use othello_core::rng::SeededRng;
use othello_engine::settings::EngineSettings;

/// How players are paired: every pair each round, or by standing (Swiss).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    RoundRobin { rounds: u32 },
    Swiss { rounds: u32 },
}

impl Format {
    /// The games `players` players play (two a pairing; Swiss leaves one out of each odd round).
    pub fn games(self, players: usize) -> usize {
        match self {
            Format::RoundRobin { rounds } => rounds as usize * players * (players - 1),
            Format::Swiss { rounds } => rounds as usize * (players / 2) * 2,
        }
    }

    /// Its name in JSON (`round robin`, `swiss`) and its rounds.
    pub fn system(self) -> (&'static str, u32) {
        match self {
            Format::RoundRobin { rounds } => ("round robin", rounds),
            Format::Swiss { rounds } => ("swiss", rounds),
        }
    }

    /// `Round robin, 2 rounds`, `Swiss, 1 round`: a title for people.
    pub fn title(self) -> String {
        let (name, rounds) = match self {
            Format::RoundRobin { rounds } => ("Round robin", rounds),
            Format::Swiss { rounds } => ("Swiss", rounds),
        };
        format!("{name}, {rounds} round{}", if rounds == 1 { "" } else { "s" })
    }
}

#[derive(Clone, Debug)]
pub struct TournamentConfig {
    pub players: Vec<StrategySpec>,
    pub format: Format,
    pub seed: u64,
    /// Random moves from the start before each pairing's two games (0: the start position).
    pub opening_plies: u32,
    pub threads: usize,
    /// The weights and book of the engines among the players.
    pub engine: EngineSettings,
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
    /// Why it forfeited, every forfeit in the order played (a tournament's games are bounded by its
    /// players and rounds: so are these).
    pub forfeit_notes: Vec<ForfeitNote>,
}

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
    let mut standings: Vec<Standing> = (0..count).map(Standing::new).collect();
    let mut number = 0u64;
    let mut met = vec![vec![false; count]; count];
    let rounds = match config.format {
        Format::RoundRobin { rounds } | Format::Swiss { rounds } => rounds,
    };
    for round in 0..rounds {
        let (pairs, bye) = round_pairs(config.format, &standings, &met);
        if let Some(player) = bye {
            standings[player].bye();
        }
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
                engine: config.engine,
            };
            play_game(&match_config, (index % 2) as u32)
        };
        othello_plumbing::parallel::ordered(2 * pairings.len(), config.threads, play, |index, played| {
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
            standings[pairing.first].add_game(a, b, a_failed.then(|| note(pairing.second)).flatten());
            standings[pairing.second].add_game(b, a, b_failed.then(|| note(pairing.first)).flatten());
            on_game(&pairing, &played);
            true
        });
    }
    rank(standings)
}

/// The standings best first: by points, then discs, then the player's number.
pub fn rank(mut standings: Vec<Standing>) -> Vec<Standing> {
    standings.sort_by(|x, y| {
        y.points()
            .total_cmp(&x.points())
            .then(y.discs.cmp(&x.discs))
            .then(x.player.cmp(&y.player))
    });
    standings
}

/// A round's pairings given the standings so far and who has met whom: every pair (round robin),
/// or by standing (Swiss, with the player who sits the round out, if one must).
pub fn round_pairs(format: Format, standings: &[Standing], met: &[Vec<bool>]) -> (Vec<(usize, usize)>, Option<usize>) {
    match format {
        Format::RoundRobin { .. } => {
            let count = standings.len();
            (
                (0..count).flat_map(|i| (i + 1..count).map(move |j| (i, j))).collect(),
                None,
            )
        }
        Format::Swiss { .. } => swiss_pairs(standings, met),
    }
}

impl Standing {
    /// A player with no game yet.
    pub fn new(player: usize) -> Standing {
        Standing {
            player,
            ..Standing::default()
        }
    }

    /// A bye scores as two won games with no discs.
    pub fn bye(&mut self) {
        self.byes += 1;
        self.wins += 2;
        self.games += 2;
    }

    /// One game: its own discs and the opponent's at the end (0 to 64 against a side that
    /// forfeited), and why it forfeited, if it did.
    pub fn add_game(&mut self, own: u32, other: u32, forfeit: Option<ForfeitNote>) {
        self.games += 1;
        self.discs += i64::from(own) - i64::from(other);
        if let Some(note) = forfeit {
            self.forfeits += 1;
            self.forfeit_notes.push(note);
        }
        match own.cmp(&other) {
            std::cmp::Ordering::Greater => self.wins += 1,
            std::cmp::Ordering::Equal => self.draws += 1,
            std::cmp::Ordering::Less => self.losses += 1,
        }
    }
}

/// A Swiss round: players ordered by points (then discs, then their number), each paired with the
/// highest-ranked one below it that it has not met, backtracking where that leaves others only
/// rematches; the bye goes to the lowest-ranked player without one for whom the rest can be so
/// paired. Where no round without a rematch exists (more rounds than opponents), or the search
/// runs past its budget, each is paired with the next one it has not met, or the next one at all.
fn swiss_pairs(standings: &[Standing], met: &[Vec<bool>]) -> (Vec<(usize, usize)>, Option<usize>) {
    let mut order: Vec<usize> = (0..standings.len()).collect();
    order.sort_by(|&x, &y| {
        let (a, b) = (&standings[x], &standings[y]);
        b.points()
            .total_cmp(&a.points())
            .then(b.discs.cmp(&a.discs))
            .then(x.cmp(&y))
    });
    // Who may sit out: the lowest-ranked without a bye first, then (all had one) the lowest.
    let byes: Vec<Option<usize>> = if order.len() % 2 == 1 {
        let mut candidates: Vec<Option<usize>> = order
            .iter()
            .rev()
            .filter(|&&p| standings[p].byes == 0)
            .map(|&p| Some(p))
            .collect();
        if candidates.is_empty() {
            candidates.push(order.last().copied());
        }
        candidates
    } else {
        vec![None]
    };
    let mut budget = SWISS_SEARCH_BUDGET;
    for &bye in &byes {
        let rest: Vec<usize> = order.iter().copied().filter(|&p| Some(p) != bye).collect();
        if let Some(pairs) = pairs_without_rematch(&rest, met, &mut budget) {
            return (pairs, bye);
        }
    }
    let bye = byes[0];
    let mut rest: Vec<usize> = order.into_iter().filter(|&p| Some(p) != bye).collect();
    let mut pairs = Vec::new();
    while let Some(first) = (!rest.is_empty()).then(|| rest.remove(0)) {
        let at = rest.iter().position(|&p| !met[first][p]).unwrap_or(0);
        let second = rest.remove(at);
        pairs.push((first, second));
    }
    (pairs, bye)
}

/// Steps the search for a round without rematches may take, over all its tries (a class of 40
/// finds one in a few hundred; a field where none exists would otherwise take exponential time).
const SWISS_SEARCH_BUDGET: u32 = 200_000;

/// Pairs `order` (best first) so that nobody meets a player again, the best-ranked first with the
/// highest-ranked possible opponent: None if no such pairing exists or `budget` ran out.
fn pairs_without_rematch(order: &[usize], met: &[Vec<bool>], budget: &mut u32) -> Option<Vec<(usize, usize)>> {
    let Some((&first, rest)) = order.split_first() else {
        return Some(Vec::new());
    };
    for (at, &second) in rest.iter().enumerate() {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        if met[first][second] {
            continue;
        }
        let others: Vec<usize> = rest[..at].iter().chain(&rest[at + 1..]).copied().collect();
        if let Some(mut pairs) = pairs_without_rematch(&others, met, budget) {
            pairs.insert(0, (first, second));
            return Some(pairs);
        }
    }
    None
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
            engine: EngineSettings::default(),
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

    /// Greedy pairing (each with the next one it has not met) gave 0-2 and then 1-3, a rematch,
    /// where 0-3 and 1-2 met nobody again.
    #[test]
    fn a_swiss_round_avoids_a_rematch_where_greedy_pairing_would_not() {
        let standings: Vec<Standing> = (0..4)
            .map(|player| Standing {
                player,
                wins: 4 - player as u32,
                games: 4,
                ..Standing::default()
            })
            .collect();
        let mut met = vec![vec![false; 4]; 4];
        for (a, b) in [(0, 1), (1, 3)] {
            met[a][b] = true;
            met[b][a] = true;
        }
        assert_eq!(swiss_pairs(&standings, &met), (vec![(0, 3), (1, 2)], None));
        // Five players: the bye goes to the lowest-ranked one for whom the rest pair afresh.
        let standings: Vec<Standing> = (0..5)
            .map(|player| Standing {
                player,
                wins: 5 - player as u32,
                games: 4,
                ..Standing::default()
            })
            .collect();
        let mut met = vec![vec![false; 5]; 5];
        for (a, b) in [(0, 1), (2, 3), (0, 2), (1, 3)] {
            met[a][b] = true;
            met[b][a] = true;
        }
        let (pairs, bye) = swiss_pairs(&standings, &met);
        assert!(pairs.iter().all(|&(a, b)| !met[a][b]), "{pairs:?}");
        assert_eq!((pairs.len(), bye), (2, Some(4)));
        // No round without a rematch (everyone has met everyone): the pairing still comes.
        let met = vec![vec![true; 5]; 5];
        let (pairs, bye) = swiss_pairs(&standings, &met);
        assert_eq!((pairs.len(), bye), (2, Some(4)));
    }
}

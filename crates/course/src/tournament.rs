//! Tournaments of built-in strategies and students' programs: round robin (every pair, both
//! colours, R rounds) or Swiss (players of equal points paired each round); a win is 1 point, a tie
//! 1/2. How failures score and ties break is a [`Scoring`]: othello's own, or as the course's
//! tournament server did. Games run in parallel and the standings do not depend on the thread count.

use std::collections::BTreeMap;

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
    /// The games `players` players play (two a pairing; othello's Swiss leaves one out of each odd
    /// round, the course's server's pairs the odd one with its bye opponent).
    pub fn games(self, players: usize, scoring: Scoring) -> usize {
        match (self, scoring) {
            (Format::RoundRobin { rounds }, _) => rounds as usize * players * (players - 1),
            (Format::Swiss { rounds }, Scoring::Othello) => rounds as usize * (players / 2) * 2,
            (Format::Swiss { rounds }, Scoring::CourseServer) => rounds as usize * players.div_ceil(2) * 2,
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

    fn rounds(self) -> u32 {
        self.system().1
    }
}

/// How a game's failure scores, how ties in points are broken and (Swiss) how rounds are paired.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scoring {
    /// othello's: every failure loses 0 to 64; ties in points broken by the disc margin, then the
    /// points the tied players took from each other; the Swiss odd player out sits the round out
    /// with a bye worth two won games.
    #[default]
    Othello,
    /// As the course's tournament server (tjcsl/othello-tourney) did: a time-out (its code -4, a
    /// "server error") is a tie, other failures lose; ties in points broken by the cumulative
    /// points (after each game, each player adds its points so far); Swiss rounds paired by points
    /// in the order given, each with the next one not met, falling back to Danish pairing (1-2,
    /// 3-4, ... rematches allowed) every round when rounds >= players - 1 and any round where that
    /// fails; the odd player out plays the bye opponent twice, which counts like any game.
    CourseServer,
}

impl Scoring {
    /// Its name on the command line and in JSON and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Scoring::Othello => "othello",
            Scoring::CourseServer => "course-server",
        }
    }

    /// One line for people naming the scoring and its tie-break.
    pub fn describe(self) -> &'static str {
        match self {
            Scoring::Othello => {
                "othello's scoring: a failure loses 0 to 64; ties broken by disc margin, then head-to-head points"
            }
            Scoring::CourseServer => {
                "as the course's server scored: a time-out ties, other failures lose; ties broken by cumulative points"
            }
        }
    }

    /// Whether a failure with this server code scores a tie rather than a loss.
    fn ties(self, server_code: i32) -> bool {
        // The server's ServerError codes (time-out -4 and below) end the game as a tie.
        self == Scoring::CourseServer && server_code <= -4
    }
}

impl std::str::FromStr for Scoring {
    type Err = String;

    fn from_str(text: &str) -> Result<Scoring, String> {
        match text {
            "othello" => Ok(Scoring::Othello),
            "course-server" => Ok(Scoring::CourseServer),
            _ => Err(format!("bad scoring {text:?}: expected othello or course-server")),
        }
    }
}

#[derive(Clone, Debug)]
pub struct TournamentConfig {
    pub players: Vec<StrategySpec>,
    pub format: Format,
    pub scoring: Scoring,
    /// Who plays the odd player out under the course server's scoring.
    pub bye_opponent: StrategySpec,
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
    /// The course server's tie-break: after each game, the points so far, added up.
    pub cumulative: f64,
    /// Points taken from each opponent.
    pub against: BTreeMap<usize, f64>,
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

    /// A player with no game yet.
    pub fn new(player: usize) -> Standing {
        Standing {
            player,
            ..Standing::default()
        }
    }

    /// A bye scores as two won games with no discs.
    fn bye(&mut self) {
        self.byes += 1;
        self.wins += 2;
        self.games += 2;
        self.cumulative += 2.0 * self.points() - 1.0;
    }

    /// One game against `opponent`: its own discs and the opponent's as scored, and why it
    /// failed, if it did.
    fn add_game(&mut self, opponent: usize, own: u32, other: u32, forfeit: Option<ForfeitNote>) {
        self.games += 1;
        self.discs += i64::from(own) - i64::from(other);
        if let Some(note) = forfeit {
            self.forfeits += 1;
            self.forfeit_notes.push(note);
        }
        let points = match own.cmp(&other) {
            std::cmp::Ordering::Greater => {
                self.wins += 1;
                1.0
            }
            std::cmp::Ordering::Equal => {
                self.draws += 1;
                0.5
            }
            std::cmp::Ordering::Less => {
                self.losses += 1;
                0.0
            }
        };
        *self.against.entry(opponent).or_default() += points;
        self.cumulative += self.points();
    }
}

/// A tournament's table as its games come in, in the order played: the standings, who has met
/// whom, and each round's pairings. The command line and the server both keep one.
#[derive(Clone, Debug)]
pub struct Table {
    scoring: Scoring,
    players: usize,
    /// By player; under the course server's scoring one more, the bye opponent, last.
    standings: Vec<Standing>,
    met: Vec<Vec<bool>>,
}

impl Table {
    /// Before any game, `players` players.
    pub fn new(players: usize, scoring: Scoring) -> Table {
        let slots = players + usize::from(scoring == Scoring::CourseServer);
        Table {
            scoring,
            players,
            standings: (0..slots).map(Standing::new).collect(),
            met: vec![vec![false; slots]; slots],
        }
    }

    pub fn scoring(&self) -> Scoring {
        self.scoring
    }

    /// The bye opponent's index (after the players'), under the course server's scoring.
    pub fn bye_opponent(&self) -> Option<usize> {
        (self.scoring == Scoring::CourseServer).then_some(self.players)
    }

    /// `player` sits a round out (othello's Swiss bye).
    pub fn bye(&mut self, player: usize) {
        self.standings[player].bye();
    }

    /// `a` and `b` are paired (their games need not have ended).
    pub fn meet(&mut self, a: usize, b: usize) {
        self.met[a][b] = true;
        self.met[b][a] = true;
    }

    /// One game, in the order played: black's and white's discs at its end, and the failure that
    /// ended it, if one did (`color` the side that failed; its opponent is filled in here).
    pub fn add_game(&mut self, black: usize, white: usize, discs: (u32, u32), failure: Option<ForfeitNote>) {
        self.meet(black, white);
        let (black_discs, white_discs) = match &failure {
            Some(note) if self.scoring.ties(note.server_code) => (0, 0),
            Some(note) if note.color == Color::Black => (0, 64),
            Some(_) => (64, 0),
            None => discs,
        };
        let note = |side: Color, opponent: usize| {
            failure
                .as_ref()
                .filter(|note| note.color == side)
                .map(|note| ForfeitNote {
                    opponent,
                    ..note.clone()
                })
        };
        let (black_note, white_note) = (note(Color::Black, white), note(Color::White, black));
        self.standings[black].add_game(white, black_discs, white_discs, black_note);
        self.standings[white].add_game(black, white_discs, black_discs, white_note);
    }

    /// The players' standings best first (the bye opponent left out): by points, then the
    /// scoring's tie-break, then the player's number.
    pub fn ranked(&self) -> Vec<Standing> {
        let mut ranked = self.standings[..self.players].to_vec();
        match self.scoring {
            Scoring::Othello => {
                ranked.sort_by(|x, y| {
                    y.points()
                        .total_cmp(&x.points())
                        .then(y.discs.cmp(&x.discs))
                        .then(x.player.cmp(&y.player))
                });
                // Head-to-head within each group tied on points and discs.
                let mut start = 0;
                while start < ranked.len() {
                    let tied = |s: &Standing| s.points() == ranked[start].points() && s.discs == ranked[start].discs;
                    let end = start + ranked[start..].iter().take_while(|s| tied(s)).count();
                    let group: Vec<usize> = ranked[start..end].iter().map(|s| s.player).collect();
                    let among = |s: &Standing| -> f64 { group.iter().filter_map(|p| s.against.get(p)).sum() };
                    ranked[start..end].sort_by(|x, y| among(y).total_cmp(&among(x)).then(x.player.cmp(&y.player)));
                    start = end;
                }
            }
            Scoring::CourseServer => ranked.sort_by(|x, y| {
                y.points()
                    .total_cmp(&x.points())
                    .then(y.cumulative.total_cmp(&x.cumulative))
                    .then(x.player.cmp(&y.player))
            }),
        }
        ranked
    }

    /// Points each player (row) took from each other (column); None on the diagonal and for
    /// players who have not met.
    pub fn crosstable(&self) -> Vec<Vec<Option<f64>>> {
        (0..self.players)
            .map(|row| {
                (0..self.players)
                    .map(|column| self.standings[row].against.get(&column).copied())
                    .collect()
            })
            .collect()
    }

    /// A round's pairings: every pair (round robin) or by standing (Swiss), with the player who
    /// sits the round out, if one must (othello's Swiss; the course server's pairs the odd one with
    /// the bye opponent).
    pub fn pairs(&self, format: Format) -> (Vec<(usize, usize)>, Option<usize>) {
        match (format, self.scoring) {
            (Format::RoundRobin { .. }, _) => {
                let count = self.players;
                (
                    (0..count).flat_map(|i| (i + 1..count).map(move |j| (i, j))).collect(),
                    None,
                )
            }
            (Format::Swiss { .. }, Scoring::Othello) => swiss_pairs(&self.standings, &self.met),
            (Format::Swiss { rounds }, Scoring::CourseServer) => (self.course_server_swiss(rounds), None),
        }
    }

    /// The course server's Swiss round (its `swiss_pairing` and `danish_pairing`), the given order
    /// standing in for its one shuffle of the players.
    fn course_server_swiss(&self, rounds: u32) -> Vec<(usize, usize)> {
        let bye = self.players;
        let by_points = |mut order: Vec<usize>| {
            // A stable sort, as Python's sorted(..., reverse=True) is.
            order.sort_by(|&x, &y| self.standings[y].points().total_cmp(&self.standings[x].points()));
            order
        };
        let danish = |order: Vec<usize>| {
            let mut order = by_points(order);
            if order.len() % 2 == 1 {
                order.push(bye);
            }
            order.chunks(2).map(|pair| (pair[0], pair[1])).collect()
        };
        let players: Vec<usize> = (0..self.players).collect();
        if rounds as usize + 1 >= self.players {
            return danish(players);
        }
        let mut order = by_points(players);
        if order.len() % 2 == 1 {
            order.push(bye);
        }
        let mut paired = vec![false; self.players + 1];
        let mut pairs = Vec::new();
        for i in 0..order.len() {
            if paired[order[i]] {
                continue;
            }
            if i + 1 >= order.len() {
                break;
            }
            // Games against the bye opponent are not counted as meetings, and the bye opponent
            // is never marked paired: it may play more than one player in a round, as there.
            let Some(j) = (i + 1..order.len()).find(|&j| {
                let (a, b) = (order[i], order[j]);
                !paired[b] && (a == bye || b == bye || !self.met[a][b])
            }) else {
                return danish(order);
            };
            pairs.push((order[i], order[j]));
            for player in [order[i], order[j]] {
                if player != bye {
                    paired[player] = true;
                }
            }
        }
        pairs
    }
}

/// Plays the tournament; `on_game` sees every game in a fixed order (round, pairing, colour).
/// Returns the table at the end.
pub fn run(config: &TournamentConfig, mut on_game: impl FnMut(&Pairing, &PlayedGame)) -> Table {
    let mut table = Table::new(config.players.len(), config.scoring);
    let mut players = config.players.clone();
    if table.bye_opponent().is_some() {
        players.push(config.bye_opponent.clone());
    }
    let mut number = 0u64;
    for round in 0..config.format.rounds() {
        let (pairs, bye) = table.pairs(config.format);
        if let Some(player) = bye {
            table.bye(player);
        }
        let pairings: Vec<Pairing> = pairs
            .into_iter()
            .map(|(first, second)| {
                table.meet(first, second);
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
                a: players[pairing.first].clone(),
                b: players[pairing.second].clone(),
                games: 2,
                seed: SeededRng::for_item(config.seed, pairing.number).next_u64(),
                openings: crate::matches::Openings::Random(config.opening_plies),
                engine: config.engine,
            };
            play_game(&match_config, (index % 2) as u32)
        };
        othello_plumbing::parallel::ordered(2 * pairings.len(), config.threads, play, |index, played| {
            let pairing = pairings[index / 2];
            let (a_discs, b_discs) = played.discs();
            let failure = played.forfeit.as_ref().map(|f| ForfeitNote {
                round: pairing.round,
                opponent: 0,
                color: f.side,
                ply: played.game.turns().len() + 1,
                code: f.failed.failure.code(),
                server_code: f.failed.failure.server_code(),
                failure: f.failed.failure.to_string(),
                stderr: f.failed.stderr_tail.last().cloned(),
            });
            if played.a_color == Color::Black {
                table.add_game(pairing.first, pairing.second, (a_discs, b_discs), failure);
            } else {
                table.add_game(pairing.second, pairing.first, (b_discs, a_discs), failure);
            }
            on_game(&pairing, &played);
            true
        });
    }
    table
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
            scoring: Scoring::Othello,
            bye_opponent: "random".parse().unwrap(),
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
        })
        .ranked();
        assert_eq!(games.len(), 2 * 2 * 10);
        assert!(standings.iter().all(|s| s.games == 16));
        let points: f64 = standings.iter().map(Standing::points).sum();
        assert_eq!(points, 40.0, "every game gives out one point");
        assert_eq!(standings.iter().map(|s| s.discs).sum::<i64>(), 0);
        // Not the thread count: the same standings on one thread.
        assert_eq!(
            standings,
            run(&config(Format::RoundRobin { rounds: 2 }, 1), |_, _| {}).ranked()
        );
    }

    #[test]
    fn swiss_rounds_pair_everyone_once_and_give_one_bye_each() {
        let mut pairs = Vec::new();
        let standings = run(&config(Format::Swiss { rounds: 3 }, 2), |pairing, _| {
            pairs.push((pairing.round, pairing.first, pairing.second));
        })
        .ranked();
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

    /// A failure ending a game: `side` failed with the server's `code`.
    fn failed(side: Color, server_code: i32) -> Option<ForfeitNote> {
        Some(ForfeitNote {
            round: 0,
            opponent: 0,
            color: side,
            ply: 1,
            code: -2,
            server_code,
            failure: "it failed".to_string(),
            stderr: None,
        })
    }

    fn order(table: &Table) -> Vec<usize> {
        table.ranked().iter().map(|s| s.player).collect()
    }

    /// Players 0 and 1 end level on points (1) and discs (-6); 1 beat 0, so 1 ranks above.
    #[test]
    fn othello_breaks_a_tie_in_points_and_discs_by_head_to_head() {
        let mut table = Table::new(4, Scoring::Othello);
        table.add_game(1, 0, (34, 30), None);
        table.add_game(2, 1, (37, 27), None);
        table.add_game(0, 3, (36, 28), None);
        table.add_game(2, 0, (37, 27), None);
        let ranked = table.ranked();
        assert_eq!(
            ranked
                .iter()
                .map(|s| (s.player, s.points(), s.discs))
                .collect::<Vec<_>>(),
            [(2, 2.0, 20), (1, 1.0, -6), (0, 1.0, -6), (3, 0.0, -8)]
        );
        assert_eq!(table.crosstable()[1][0], Some(1.0));
        assert_eq!(table.crosstable()[0][1], Some(0.0));
        assert_eq!(table.crosstable()[0][0], None);
    }

    /// A round robin of a program that crashes (0, code -2), one that hangs (1, -4), one that
    /// plays an illegal move (2, -3) and one that never fails (3), each pair a game in each
    /// colour, the black side failing first. Computed by hand from the course server's rules:
    /// 3 takes 5 points (a tie with 1's two time-outs; cumulative 1 + 2 + 2.5 + 3 + 4 + 5 = 17.5);
    /// 1 takes 4 (+1 for 0's crash, +1/2 for each of its four time-outs, +1 for 2's illegal move;
    /// cumulative 1 + 1.5 + 2 + 3 + 3.5 + 4 = 15); 0 and 2 take 1.5 each, and 2's
    /// cumulative points (1 + 1 + 1.5 + 1.5 + 1.5 + 1.5 = 8) beat 0's (0 + 0.5 + 0.5 + 1.5 +
    /// 1.5 + 1.5 = 5.5). Under othello's scoring every failure loses 0 to 64: 0, 1 and 2 end on 2
    /// points and -128 discs, and 2 points each from the others: their numbers order them.
    #[test]
    fn the_course_server_ties_time_outs_and_breaks_ties_by_cumulative_points() {
        use Color::{Black, White};
        let games = [
            (0, 1, failed(Black, -2)),
            (1, 0, failed(Black, -4)),
            (0, 2, failed(Black, -2)),
            (2, 0, failed(Black, -3)),
            (0, 3, failed(Black, -2)),
            (3, 0, failed(White, -2)),
            (1, 2, failed(Black, -4)),
            (2, 1, failed(Black, -3)),
            (1, 3, failed(Black, -4)),
            (3, 1, failed(White, -4)),
            (2, 3, failed(Black, -3)),
            (3, 2, failed(White, -3)),
        ];
        let played = |scoring| {
            let mut table = Table::new(4, scoring);
            for (black, white, failure) in games.clone() {
                table.add_game(black, white, (2, 2), failure);
            }
            table
        };
        let server = played(Scoring::CourseServer);
        assert_eq!(order(&server), [3, 1, 2, 0]);
        let ranked = server.ranked();
        assert_eq!(
            ranked.iter().map(|s| (s.points(), s.cumulative)).collect::<Vec<_>>(),
            [(5.0, 17.5), (4.0, 15.0), (1.5, 8.0), (1.5, 5.5)]
        );
        assert_eq!(
            (ranked[1].draws, ranked[1].forfeits),
            (4, 4),
            "time-outs tie, and are kept as failures"
        );
        let ours = played(Scoring::Othello);
        assert_eq!(order(&ours), [3, 0, 1, 2]);
        assert!(ours.ranked()[1..].iter().all(|s| s.points() == 2.0 && s.discs == -128));
    }

    #[test]
    fn the_course_servers_swiss_pairs_by_points_falls_back_to_danish_and_plays_its_bye() {
        let swiss = |rounds| Format::Swiss { rounds };
        // Points: 3 has 2, 1 and 2 have 1, 0 has none; 3 and 1 have met.
        let mut table = Table::new(4, Scoring::CourseServer);
        table.add_game(3, 0, (40, 24), None);
        table.add_game(0, 3, (24, 40), None);
        table.add_game(1, 2, (32, 32), None);
        table.add_game(2, 1, (32, 32), None);
        table.meet(3, 1);
        // Rounds < players - 1: each with the next one not met.
        assert_eq!(table.pairs(swiss(2)), (vec![(3, 2), (1, 0)], None));
        // Rounds >= players - 1: Danish, 1-2 and 3-4 by points, a rematch or not.
        assert_eq!(table.pairs(swiss(3)), (vec![(3, 1), (2, 0)], None));
        // 3 has met everyone: no pairing without a rematch, so Danish.
        table.meet(3, 2);
        assert_eq!(table.pairs(swiss(2)), (vec![(3, 1), (2, 0)], None));
        // Odd: the bye opponent (5) comes last and plays whoever is left; its games are no
        // meetings and it is never taken, so it may play several players in a round, as there.
        let mut table = Table::new(5, Scoring::CourseServer);
        assert_eq!(table.bye_opponent(), Some(5));
        assert_eq!(table.pairs(swiss(2)), (vec![(0, 1), (2, 3), (4, 5)], None));
        for (a, b) in [(2, 3), (2, 4), (3, 4)] {
            table.meet(a, b);
        }
        assert_eq!(table.pairs(swiss(2)), (vec![(0, 1), (2, 5), (3, 5), (4, 5)], None));
        // othello's Swiss keeps to its own bye: the odd player sits out.
        let table = Table::new(5, Scoring::Othello);
        assert_eq!(table.bye_opponent(), None);
        assert_eq!(table.pairs(swiss(2)).1, Some(4));
    }
}

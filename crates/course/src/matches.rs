//! Strategy-against-strategy matches: colours alternating, optional openings (random, or listed in
//! a file) played once with each colour, games in parallel. Each game depends only on the seed and
//! its number, so results do not depend on the thread count (time-limited strategies excepted: they
//! see the clock).

use std::sync::Arc;
use std::time::SystemTime;

use crate::strategy::StrategySpec;
use othello_core::color::Color;
use othello_core::game::{Forfeit, Game, Status, Turn};
use othello_core::notation::transcript::{self, TranscriptError};
use othello_core::position::Position;
use othello_core::rng::SeededRng;
use othello_engine::settings::EngineSettings;

#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub a: StrategySpec,
    pub b: StrategySpec,
    pub games: u32,
    pub seed: u64,
    /// Where each pair of games starts.
    pub openings: Openings,
    /// The weights and book of the engines among the players.
    pub engine: EngineSettings,
}

/// Where each pair of games of a match starts: both games of pair k (games 2k and 2k + 1) from the
/// same position, once with each colour.
#[derive(Clone, Debug)]
pub enum Openings {
    /// Random moves from the start before the strategies take over (0: the start itself).
    Random(u32),
    /// Openings read from a file, pair k playing the k-th.
    Listed(Arc<OpeningList>),
}

/// Openings taken in order from a file: a transcript at the start of each line.
#[derive(Clone, Debug)]
pub struct OpeningList {
    /// The file, as named.
    pub file: String,
    /// Lines of openings passed over before the first one taken.
    pub skip: u32,
    pub games: Vec<Game>,
}

/// How reports name the built-in openings.
pub const BALANCED_OPENINGS: &str = "the built-in balanced openings";

/// The most openings a match takes from a file (each is kept for the whole match).
pub(crate) const MAX_LISTED_OPENINGS: u32 = 1_000_000;

/// The longest line an opening file may have: a whole game's transcript with a comment fits, and
/// a file that is no opening file is not read whole to find its first line's end.
pub(crate) const MAX_OPENING_LINE: u64 = 4096;

/// Why an opening file cannot give a match its openings.
#[derive(Debug, thiserror::Error)]
pub enum OpeningFileError {
    #[error("cannot read the opening file {file}: {error}")]
    Read { file: String, error: std::io::Error },
    #[error("{file}, line {line}: {error}")]
    Transcript {
        file: String,
        line: usize,
        error: TranscriptError,
    },
    #[error(
        "{file} has {found} openings after the {skip} skipped, expected at least {needed} (one for each pair of games)"
    )]
    TooFew {
        file: String,
        found: u32,
        skip: u32,
        needed: u32,
    },
    #[error("{file}, line {line}: longer than {MAX_OPENING_LINE} bytes, expected a transcript and a comment at most")]
    LongLine { file: String, line: usize },
    #[error("{needed} openings from a file is more than a match takes ({MAX_LISTED_OPENINGS}, for {} games)", 2 * MAX_LISTED_OPENINGS)]
    TooMany { needed: u32 },
}

impl OpeningList {
    /// The `needed` openings after the first `skip` of `file`: the transcript that starts each
    /// line (blank lines, and what follows `#`, are left out), each played by the rules. Reading
    /// stops once they are found.
    pub fn read(file: &std::path::Path, skip: u32, needed: u32) -> Result<OpeningList, OpeningFileError> {
        let name = file.display().to_string();
        if needed > MAX_LISTED_OPENINGS {
            return Err(OpeningFileError::TooMany { needed });
        }
        let read_error = |error| OpeningFileError::Read {
            file: name.clone(),
            error,
        };
        let reader = std::io::BufReader::new(std::fs::File::open(file).map_err(read_error)?);
        OpeningList::from_lines(reader, name, skip, needed)
    }

    /// The project's balanced openings (fixtures/engine/balanced-openings.txt, 128 openings of 8
    /// moves the engine judged within 2 discs of even), built in: what a match of two players
    /// that would play one game over and over starts from, unless told otherwise. A match of more
    /// than twice as many games plays them again, in order.
    pub fn balanced(needed: u32) -> OpeningList {
        let text = include_str!("../../../fixtures/engine/balanced-openings.txt");
        let available = text
            .lines()
            .filter(|line| line.split('#').next().is_some_and(|t| !t.trim().is_empty()))
            .count() as u32;
        OpeningList::from_lines(text.as_bytes(), BALANCED_OPENINGS.to_string(), 0, needed.min(available))
            .expect("the built-in openings are played by the rules")
    }

    /// The opening of pair `pair`: the list's openings in order, again from the first once all
    /// were played.
    pub fn for_pair(&self, pair: u32) -> &Game {
        &self.games[pair as usize % self.games.len()]
    }

    fn from_lines(
        mut reader: impl std::io::BufRead,
        name: String,
        skip: u32,
        needed: u32,
    ) -> Result<OpeningList, OpeningFileError> {
        use std::io::{BufRead, Read};
        let read_error = |error| OpeningFileError::Read {
            file: name.clone(),
            error,
        };
        let (mut seen, mut games, mut line, mut number) = (0u32, Vec::new(), String::new(), 0);
        while (games.len() as u32) < needed {
            line.clear();
            number += 1;
            let read = (&mut reader)
                .take(MAX_OPENING_LINE)
                .read_line(&mut line)
                .map_err(read_error)?;
            if read == 0 {
                break;
            }
            if read as u64 == MAX_OPENING_LINE && !line.ends_with('\n') {
                return Err(OpeningFileError::LongLine {
                    file: name,
                    line: number,
                });
            }
            let Some(transcript) = line.split('#').next().and_then(|text| text.split_whitespace().next()) else {
                continue;
            };
            let game = transcript::play(Position::START, transcript).map_err(|error| OpeningFileError::Transcript {
                file: name.clone(),
                line: number,
                error,
            })?;
            seen += 1;
            if seen > skip {
                games.push(game);
            }
        }
        if (games.len() as u32) < needed {
            return Err(OpeningFileError::TooFew {
                file: name,
                found: games.len() as u32,
                skip,
                needed,
            });
        }
        Ok(OpeningList {
            file: name,
            skip,
            games,
        })
    }
}

/// One finished game of a match.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    pub index: u32,
    /// The colour A played.
    pub a_color: Color,
    pub game: Game,
    /// Turns of `game` that were the random opening.
    pub opening_turns: usize,
    pub started: SystemTime,
    pub ended: SystemTime,
    /// The player that failed and ended the game, if one did.
    pub forfeit: Option<Forfeit>,
}

impl PlayedGame {
    /// Discs of (A, B) at the end; a forfeited game counts as 0 to 64 against the side that failed.
    pub fn discs(&self) -> (u32, u32) {
        match &self.forfeit {
            Some(forfeit) if forfeit.side == self.a_color => (0, 64),
            Some(_) => (64, 0),
            None => {
                let end = self.game.position();
                (end.discs(self.a_color).count(), end.discs(!self.a_color).count())
            }
        }
    }
}

/// Moves made by one side and what they cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SideTotals {
    pub moves: u64,
    pub nodes: u64,
    pub seconds: f64,
    /// The longest move.
    pub longest: f64,
    /// Moves made before the player knew the exact result (more time could still change them).
    pub open_moves: u64,
    pub open_seconds: f64,
}

impl SideTotals {
    pub fn ms_per_move(&self) -> f64 {
        if self.moves == 0 {
            0.0
        } else {
            self.seconds * 1e3 / self.moves as f64
        }
    }

    pub fn nodes_per_move(&self) -> f64 {
        if self.moves == 0 {
            0.0
        } else {
            self.nodes as f64 / self.moves as f64
        }
    }
}

/// How much of its time a move a timed engine used (shares of it, on average).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeUsage {
    pub all: f64,
    /// Over the moves made before the exact result was known; none if every move knew it.
    pub before_solving: Option<f64>,
    /// The longest move's time beyond the budget, in seconds (0 if none went over).
    pub overrun: f64,
}

impl TimeUsage {
    /// For a player with a time a move (not a game clock) that made moves.
    pub fn of(spec: &StrategySpec, totals: &SideTotals) -> Option<TimeUsage> {
        let budget = spec.time_per_move()?.as_secs_f64();
        (totals.moves > 0).then(|| TimeUsage {
            all: totals.seconds / totals.moves as f64 / budget,
            before_solving: (totals.open_moves > 0).then(|| totals.open_seconds / totals.open_moves as f64 / budget),
            overrun: (totals.longest - budget).max(0.0),
        })
    }
}

#[derive(Clone, Debug)]
pub struct MatchReport {
    pub config: MatchConfig,
    /// How many games a player forfeited, and the first few: (game index, the side that failed, why).
    pub forfeited: u32,
    pub forfeits: Vec<(u32, Color, String)>,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub a_discs: u64,
    pub b_discs: u64,
    pub a_totals: SideTotals,
    pub b_totals: SideTotals,
    /// How many of the games differ from every other (by their moves).
    pub distinct: DistinctGames,
}

/// The games of a match that differ from each other by their moves, counted by a hash of each;
/// past `MAX_DISTINCT_KEPT` different ones, the count says "at least" (memory stays bounded
/// however long the match).
#[derive(Clone, Debug, Default)]
pub struct DistinctGames {
    seen: std::collections::HashSet<u64>,
    /// More games came than were kept: the count is a lower bound.
    pub at_least: bool,
}

/// The most different games a match keeps a hash of.
pub(crate) const MAX_DISTINCT_KEPT: usize = 1 << 20;

impl DistinctGames {
    pub fn add(&mut self, game: &Game) {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for square in game.moves() {
            square.index().hash(&mut hasher);
        }
        let hash = hasher.finish();
        if self.seen.len() < MAX_DISTINCT_KEPT {
            self.seen.insert(hash);
        } else if !self.seen.contains(&hash) {
            self.at_least = true;
        }
    }

    pub fn count(&self) -> u64 {
        self.seen.len() as u64
    }
}

impl MatchReport {
    /// A's points: a win 1, a draw 1/2.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// A's discs over all discs at the ends of the games (the course's Lab 4 measure).
    pub fn disc_share(&self) -> f64 {
        let all = self.a_discs + self.b_discs;
        if all == 0 {
            0.0
        } else {
            self.a_discs as f64 / all as f64
        }
    }
}

/// The opening of pair `pair`: `plies` random moves from the start (forced passes do not count).
pub(crate) fn random_opening(seed: u64, pair: u32, plies: u32) -> Game {
    let mut rng = SeededRng::for_item(seed, u64::from(pair));
    let mut game = Game::new(Position::START);
    let mut played = 0;
    while played < plies {
        match game.status() {
            Status::Over => break,
            Status::MustPass(_) => game.pass().expect("the pass is forced"),
            Status::ToMove(_) => {
                game.play(rng.pick_square(game.position().moves()), None)
                    .expect("a legal move");
                played += 1;
            }
        }
    }
    game
}

/// Plays game `index` of the match: A is black in even games and white in odd ones, and with
/// openings both games of a pair start from the same one.
pub fn play_game(config: &MatchConfig, index: u32) -> PlayedGame {
    let started = SystemTime::now();
    let a_color = if index.is_multiple_of(2) {
        Color::Black
    } else {
        Color::White
    };
    let mut game = match &config.openings {
        Openings::Random(0) => Game::new(Position::START),
        Openings::Random(plies) => random_opening(config.seed, index / 2, *plies),
        Openings::Listed(list) => list.for_pair(index / 2).clone(),
    };
    let opening_turns = game.turns().len();
    let player_seed =
        |side: u64| SeededRng::for_item(config.seed ^ 0x5eed_0f9a_3e00, u64::from(index) * 2 + side).next_u64();
    let mut a = config.a.build(player_seed(0), &config.engine);
    let mut b = config.b.build(player_seed(1), &config.engine);
    let mut players: [&mut dyn othello_core::player::Strategy; 2] = if a_color == Color::Black {
        [a.as_mut(), b.as_mut()]
    } else {
        [b.as_mut(), a.as_mut()]
    };
    let forfeit = game.play_out(&mut players).err();
    PlayedGame {
        index,
        a_color,
        game,
        opening_turns,
        started,
        ended: SystemTime::now(),
        forfeit,
    }
}

/// Forfeited games described in a report; the rest are counted.
pub(crate) const FORFEITS_KEPT: usize = 20;

/// Plays the whole match on `threads` threads; `on_game` sees each game in order as soon as all
/// before it are done, and nothing of a game is kept after it: memory does not grow with the match.
pub fn play_match(config: MatchConfig, threads: usize, mut on_game: impl FnMut(&PlayedGame)) -> MatchReport {
    let mut report = MatchReport {
        config,
        forfeited: 0,
        forfeits: Vec::new(),
        wins: 0,
        draws: 0,
        losses: 0,
        a_discs: 0,
        b_discs: 0,
        a_totals: SideTotals::default(),
        b_totals: SideTotals::default(),
        distinct: DistinctGames::default(),
    };
    let config = report.config.clone();
    othello_plumbing::parallel::ordered(
        config.games as usize,
        threads,
        |index| play_game(&config, index as u32),
        |_, played| {
            report.add(&played);
            on_game(&played);
            true
        },
    );
    report
}

impl MatchReport {
    fn add(&mut self, played: &PlayedGame) {
        self.distinct.add(&played.game);
        let (a, b) = played.discs();
        self.a_discs += u64::from(a);
        self.b_discs += u64::from(b);
        match a.cmp(&b) {
            std::cmp::Ordering::Greater => self.wins += 1,
            std::cmp::Ordering::Equal => self.draws += 1,
            std::cmp::Ordering::Less => self.losses += 1,
        }
        if let Some(forfeit) = &played.forfeit {
            self.forfeited += 1;
            if self.forfeits.len() < FORFEITS_KEPT {
                self.forfeits
                    .push((played.index, forfeit.side, forfeit.failed.describe()));
            }
        }
        for turn in &played.game.turns()[played.opening_turns..] {
            if let Turn::Move {
                side,
                stats: Some(stats),
                ..
            } = turn
            {
                let totals = if *side == played.a_color {
                    &mut self.a_totals
                } else {
                    &mut self.b_totals
                };
                totals.moves += 1;
                totals.nodes += stats.nodes;
                totals.seconds += stats.seconds;
                totals.longest = totals.longest.max(stats.seconds);
                if !matches!(stats.value, Some(othello_core::value::Value::Exact { .. })) {
                    totals.open_moves += 1;
                    totals.open_seconds += stats.seconds;
                }
            }
        }
    }
}

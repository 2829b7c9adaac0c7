//! The JSON of games between players: matches, tournaments and Lab 4's tests.

use super::*;

/// One side of a match.
#[derive(Serialize, JsonSchema)]
pub struct MatchSide {
    pub strategy: String,
    pub moves: u64,
    pub seconds_per_move: f64,
    pub nodes_per_move: f64,
    pub longest_move_seconds: f64,
    /// A timed engine's game clock (`--game-time`), if it played on one.
    pub game_time_seconds: Option<f64>,
    /// A timed engine's share of its time a move used, on average: over all its moves, and over
    /// those made before it knew the exact result.
    pub time_used: Option<f64>,
    pub time_used_before_solving: Option<f64>,
}

impl MatchSide {
    fn new(spec: &StrategySpec, totals: SideTotals) -> MatchSide {
        let usage = crate::matches::TimeUsage::of(spec, &totals);
        MatchSide {
            strategy: spec.to_string(),
            moves: totals.moves,
            seconds_per_move: totals.ms_per_move() / 1e3,
            nodes_per_move: totals.nodes_per_move(),
            longest_move_seconds: totals.longest,
            game_time_seconds: spec.game_time().map(|time| time.as_secs_f64()),
            time_used: usage.map(|usage| usage.all),
            time_used_before_solving: usage.and_then(|usage| usage.before_solving),
        }
    }
}

/// `match --json`: results from A's side.
#[derive(Serialize, JsonSchema)]
pub struct Match {
    pub a: MatchSide,
    pub b: MatchSide,
    pub games: u32,
    pub seed: u64,
    /// Random plies before each pair of games (0 with an opening file).
    pub openings: u32,
    /// The openings' file, where they came from one (`match --opening-file`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opening_file: Option<OpeningFile>,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub points: f64,
    /// A's discs over all discs at the games' ends.
    pub disc_share: f64,
    pub a_discs: u64,
    pub b_discs: u64,
    pub forfeits: u32,
    /// Whether the same command plays the same games again (no timed player).
    pub reproducible: bool,
    /// How many games differ from every other by their moves (a lower bound when
    /// `distinct_at_least`: past a million different games, they are no longer told apart).
    pub distinct_games: u64,
    pub distinct_at_least: bool,
}

/// The opening file of a match: pair k of games played the opening on its (skip + k + 1)-th line
/// of openings.
#[derive(Serialize, JsonSchema)]
pub struct OpeningFile {
    pub file: String,
    /// Lines of openings passed over before the first one played.
    pub skip: u32,
    /// Openings played, one a pair of games.
    pub count: u32,
}

impl Document for Match {
    const FORMAT: &'static str = "othello-match";
}

impl From<&MatchReport> for Match {
    fn from(report: &MatchReport) -> Match {
        let config = &report.config;
        Match {
            a: MatchSide::new(&config.a, report.a_totals),
            b: MatchSide::new(&config.b, report.b_totals),
            games: config.games,
            seed: config.seed,
            openings: match &config.openings {
                Openings::Random(plies) => *plies,
                Openings::Listed(_) => 0,
            },
            opening_file: match &config.openings {
                Openings::Random(_) => None,
                Openings::Listed(list) => Some(OpeningFile {
                    file: list.file.clone(),
                    skip: list.skip,
                    count: list.games.len() as u32,
                }),
            },
            wins: report.wins,
            draws: report.draws,
            losses: report.losses,
            points: report.points(),
            disc_share: report.disc_share(),
            a_discs: report.a_discs,
            b_discs: report.b_discs,
            forfeits: report.forfeited,
            reproducible: config.a.is_reproducible() && config.b.is_reproducible(),
            distinct_games: report.distinct.count(),
            distinct_at_least: report.distinct.at_least,
        }
    }
}

/// `tournament --json`: the standings, best first.
#[derive(Serialize, JsonSchema)]
pub struct Tournament {
    /// `round robin` or `swiss`, over `rounds` rounds.
    pub system: &'static str,
    pub rounds: u32,
    /// How failures scored and ties were broken: `othello` or `course-server`, and in words.
    pub scoring: &'static str,
    pub scoring_rules: &'static str,
    pub players: Vec<String>,
    pub games: usize,
    pub seed: u64,
    pub reproducible: bool,
    /// Players left out before the first round, and why.
    pub left_out: Vec<String>,
    pub standings: Vec<StandingJson>,
}

impl Document for Tournament {
    const FORMAT: &'static str = "othello-tournament";
}

#[derive(Serialize, JsonSchema)]
pub struct StandingJson {
    pub rank: usize,
    pub player: String,
    pub points: f64,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub forfeits: u32,
    pub byes: u32,
    /// Own discs minus the opponents', over all games.
    pub discs: i64,
    /// The course server's tie-break: after each game, the points so far, added up.
    pub cumulative: f64,
    /// Every forfeit's reason, in the order played.
    pub forfeit_reasons: Vec<ForfeitJson>,
}

#[derive(Serialize, JsonSchema)]
pub struct ForfeitJson {
    pub round: u32,
    pub color: &'static str,
    pub opponent: String,
    /// The move it failed at, from 1 (passes counted).
    #[serde(rename = "move")]
    pub ply: usize,
    /// The Lab 4 handout's code, and the tournament server's.
    pub code: i32,
    pub server_code: i32,
    pub failure: String,
    pub stderr: Option<String>,
}

impl StandingJson {
    pub fn new(rank: usize, standing: &Standing, names: &[String]) -> StandingJson {
        StandingJson {
            rank,
            player: names[standing.player].clone(),
            points: standing.points(),
            games: standing.games,
            wins: standing.wins,
            draws: standing.draws,
            losses: standing.losses,
            forfeits: standing.forfeits,
            byes: standing.byes,
            discs: standing.discs,
            cumulative: standing.cumulative,
            forfeit_reasons: standing
                .forfeit_notes
                .iter()
                .map(|n| ForfeitJson {
                    round: n.round + 1,
                    color: n.color.name(),
                    opponent: names[n.opponent].clone(),
                    ply: n.ply,
                    code: n.code,
                    server_code: n.server_code,
                    failure: n.failure.clone(),
                    stderr: n.stderr.clone(),
                })
                .collect(),
        }
    }
}

/// One game of a Lab 4 test, from the player's side.
#[derive(Serialize, JsonSchema)]
pub struct Lab4Game {
    pub game: u32,
    pub color: &'static str,
    pub tokens: u32,
    pub opponent_tokens: u32,
    pub share: f64,
    /// Two characters a move, `-1` a pass, the failure's code last when the player failed.
    pub transcript: String,
    pub failure: Option<String>,
    /// The failure's code in the Lab 4 handout's list (-2..-5) and in the tournament server's.
    pub code: Option<i32>,
    pub server_code: Option<i32>,
}

impl From<&GameLine> for Lab4Game {
    fn from(line: &GameLine) -> Lab4Game {
        Lab4Game {
            game: line.number,
            color: line.color.name(),
            tokens: line.tokens,
            opponent_tokens: line.opponent_tokens,
            share: line.share(),
            transcript: line.transcript.clone(),
            failure: line.failure.clone(),
            code: line.codes.map(|(code, _)| code),
            server_code: line.codes.map(|(_, server)| server),
        }
    }
}

/// What a Lab 4 test came to: the same for one player and for each student of a class.
#[derive(Serialize, JsonSchema)]
pub struct Lab4Result {
    pub played: u32,
    pub tokens: u64,
    pub all_tokens: u64,
    pub share: f64,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub forfeits: u32,
    /// The worst games, lowest share first.
    pub worst: Vec<Lab4Game>,
    /// The game whose failure ended the test.
    pub ended_by: Option<Lab4Game>,
    pub player_moves: u64,
    pub player_seconds: f64,
    pub longest_move_seconds: f64,
    pub seconds: f64,
}

impl From<&Lab4Tally> for Lab4Result {
    fn from(tally: &Lab4Tally) -> Lab4Result {
        Lab4Result {
            played: tally.games,
            tokens: tally.tokens,
            all_tokens: tally.all_tokens,
            share: tally.share(),
            wins: tally.wins,
            draws: tally.draws,
            losses: tally.losses,
            forfeits: tally.forfeits,
            worst: tally.worst.iter().map(Lab4Game::from).collect(),
            ended_by: tally.ended_by.as_ref().map(Lab4Game::from),
            player_moves: tally.player_moves,
            player_seconds: tally.player_seconds,
            longest_move_seconds: tally.longest_move,
            seconds: tally.elapsed.as_secs_f64(),
        }
    }
}

/// `lab4 PLAYER --json`.
#[derive(Serialize, JsonSchema)]
pub struct Lab4 {
    pub rules: &'static str,
    pub player: String,
    pub opponent: String,
    pub games: u32,
    pub seed: u64,
    #[serde(flatten)]
    pub result: Lab4Result,
    /// How the player's time was measured: `cpu` or `wall`.
    pub player_clock: &'static str,
    pub reproducible: bool,
}

impl Document for Lab4 {
    const FORMAT: &'static str = "othello-lab4";
}

impl Lab4 {
    pub fn new(config: &Lab4Config, tally: &Lab4Tally) -> Lab4 {
        let player_clock = match &config.player {
            StrategySpec::Program(program) if program.timing() == Timing::Cpu => "cpu",
            _ => "wall",
        };
        Lab4 {
            rules: config.rules.name(),
            player: config.player.to_string(),
            opponent: config.opponent.to_string(),
            games: config.games,
            seed: config.seed,
            result: tally.into(),
            player_clock,
            reproducible: config.player.is_reproducible() && config.opponent.is_reproducible(),
        }
    }
}

/// `lab4 --class --json`: one line per student.
#[derive(Serialize, JsonSchema)]
pub struct Lab4Student {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub student: String,
    pub player: String,
    pub rules: &'static str,
    /// Why the student's program could not play, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub could_not_play: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub result: Option<Lab4Result>,
}

impl Document for Lab4Student {
    const FORMAT: &'static str = "othello-lab4-class";
}

impl Lab4Student {
    pub fn new(test: &StudentTest, rules: crate::programs::rules::Rules) -> Lab4Student {
        Lab4Student {
            kind: "student",
            student: test.name.clone(),
            player: test.player.clone(),
            rules: rules.name(),
            could_not_play: test.result.as_ref().err().cloned(),
            result: test.result.as_ref().ok().map(Lab4Result::from),
        }
    }
}

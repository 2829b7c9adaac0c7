//! The JSON outputs, one typed struct per object: what a script reading `--json` may rely on
//! (docs/outputs.md lists them). Each document, a whole output or one line of JSON Lines, opens
//! with its `format` and `version`; a version changes only when a field changes meaning or goes.
//! The game log (`othello_core::log`) is the one JSON format that is also read back, and lives with its
//! reader.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::class_report::StudentTest;
use crate::grade::{self, Case, Outcome, Program, Summary};
use crate::judge::Judge;
use crate::marks::CaseMark;
use crate::matches::{MatchReport, Openings, SideTotals};
use crate::moderator::{GameLine, Lab4Config, Lab4Tally};
use crate::strategy::StrategySpec;
use crate::tournament::Standing;
use othello_core::value::Value;
use othello_engine::search::analysis::{AnalysedMove, MoveValue, Verdict};
use othello_sandbox::{Ending, Limits, Timing};

/// An object that is a whole document: it names its format and version.
pub trait Document: Serialize {
    const FORMAT: &'static str;
    const VERSION: u32 = 1;
}

#[derive(Serialize, JsonSchema)]
struct Tagged<'a, T> {
    format: &'static str,
    version: u32,
    #[serde(flatten)]
    body: &'a T,
}

/// The JSON Schema of every document, by format (docs/schemas/FORMAT.json holds them): what
/// `--json` outputs are checked against in the tests. `grade`'s lines are cases or summaries.
pub fn schemas() -> Vec<(&'static str, serde_json::Value)> {
    fn of<T: Document + JsonSchema + 'static>() -> serde_json::Value {
        let mut schema = serde_json::to_value(schemars::schema_for!(Tagged<'static, T>)).expect("a schema serializes");
        schema["title"] = T::FORMAT.into();
        schema["properties"]["format"] = serde_json::json!({ "const": T::FORMAT });
        schema["properties"]["version"] = serde_json::json!({ "const": T::VERSION });
        schema
    }
    // Two kinds of lines: each schema's definitions move to the top, where their references point.
    let (mut case, mut summary) = (of::<GradeCase>(), of::<GradeSummary>());
    let mut definitions = serde_json::Map::new();
    for schema in [&mut case, &mut summary] {
        if let Some(serde_json::Value::Object(defs)) = schema.as_object_mut().and_then(|o| o.remove("$defs")) {
            definitions.extend(defs);
        }
    }
    let grade = serde_json::json!({
        "$schema": case["$schema"].clone(),
        "title": "othello-grade",
        "anyOf": [strip(case), strip(summary)],
        "$defs": definitions,
    });
    vec![
        (PositionAnalysis::FORMAT, of::<PositionAnalysis>()),
        (GameAnalysis::FORMAT, of::<GameAnalysis>()),
        (BestMove::FORMAT, of::<BestMove>()),
        (FullGame::FORMAT, of::<FullGame>()),
        (Perft::FORMAT, of::<Perft>()),
        (Solved::FORMAT, of::<Solved>()),
        (Match::FORMAT, of::<Match>()),
        (Tournament::FORMAT, of::<Tournament>()),
        (Lab4::FORMAT, of::<Lab4>()),
        (Lab4Student::FORMAT, of::<Lab4Student>()),
        (GradeCase::FORMAT, grade),
    ]
}

/// A schema without its `$schema` key, to sit inside another.
fn strip(mut schema: serde_json::Value) -> serde_json::Value {
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
    }
    schema
}

/// `document` as one line of JSON, its format and version first, ended by a line break.
pub fn line<T: Document>(document: &T) -> String {
    let tagged = Tagged {
        format: T::FORMAT,
        version: T::VERSION,
        body: document,
    };
    // Only maps with keys that are not strings fail to serialize; these structs have none.
    serde_json::to_string(&tagged).expect("an output struct serializes") + "\n"
}

/// A value as every output gives it: its number, in `unit`, and how far it is known.
#[derive(Serialize, JsonSchema)]
pub struct ValueFields {
    pub value: i32,
    /// `exact`, `proven` (a win or loss found by search), `estimate` or `score`.
    pub value_kind: &'static str,
    pub exact: bool,
    /// Plies searched, when the value comes from a search of fixed depth.
    pub depth: Option<u32>,
    /// `discs`, or the evaluation's units for a score.
    pub unit: &'static str,
}

impl From<Value> for ValueFields {
    fn from(value: Value) -> ValueFields {
        ValueFields {
            value: value.number(),
            value_kind: value.kind(),
            exact: value.is_exact(),
            depth: value.depth(),
            unit: value.unit(),
        }
    }
}

/// One move and its value (`analyze`).
#[derive(Serialize, JsonSchema)]
pub struct MoveJson {
    #[serde(rename = "move")]
    pub square: String,
    #[serde(flatten)]
    pub value: ValueFields,
    pub nodes: u64,
}

impl From<&MoveValue> for MoveJson {
    fn from(m: &MoveValue) -> MoveJson {
        MoveJson {
            square: m.square.to_string(),
            value: m.value.into(),
            nodes: m.nodes,
        }
    }
}

/// `analyze POSITION --json`: every move's value, best first.
#[derive(Serialize, JsonSchema)]
pub struct PositionAnalysis {
    pub board: String,
    pub to_move: &'static str,
    pub empties: u32,
    pub exact_empties: u32,
    pub estimate_depth: u32,
    pub moves: Vec<MoveJson>,
}

impl Document for PositionAnalysis {
    const FORMAT: &'static str = "othello-analysis";
}

/// `analyze GAME --json`: each move of a game against the best.
#[derive(Serialize, JsonSchema)]
pub struct GameAnalysis {
    pub black: String,
    pub white: String,
    pub transcript: String,
    pub exact_empties: u32,
    pub estimate_depth: u32,
    pub moves: Vec<AnalysedMoveJson>,
}

impl Document for GameAnalysis {
    const FORMAT: &'static str = "othello-game-analysis";
}

#[derive(Serialize, JsonSchema)]
pub struct AnalysedMoveJson {
    pub number: usize,
    pub side: &'static str,
    #[serde(rename = "move")]
    pub square: String,
    pub played: ValueFields,
    pub best: MoveJson,
    /// Discs lost against the best move.
    pub loss: i32,
    /// `good`, `inaccuracy`, `mistake` or `blunder`.
    pub verdict: &'static str,
    pub moves: Vec<MoveJson>,
}

impl From<&AnalysedMove> for AnalysedMoveJson {
    fn from(entry: &AnalysedMove) -> AnalysedMoveJson {
        AnalysedMoveJson {
            number: entry.number,
            side: entry.side.name(),
            square: entry.played.to_string(),
            played: entry.played_value().value.into(),
            best: (&entry.best()).into(),
            loss: entry.loss(),
            verdict: match entry.verdict() {
                Verdict::Good => "good",
                other => other.name(),
            },
            moves: entry.moves.iter().map(MoveJson::from).collect(),
        }
    }
}

/// `best --json`: the move chosen and what it cost.
#[derive(Serialize, JsonSchema)]
pub struct BestMove {
    /// The square's index, -1 for a pass.
    #[serde(rename = "move")]
    pub index: i64,
    pub square: String,
    pub side: &'static str,
    /// The value's number, in `unit`; `exact` and `depth` say how far it is known.
    pub score: Option<i32>,
    pub value_kind: Option<&'static str>,
    pub exact: Option<bool>,
    pub depth: Option<u32>,
    pub unit: Option<&'static str>,
    /// The evaluation of a fixed-depth look-ahead, or the strategy that chose.
    pub eval: Option<&'static str>,
    pub strategy: Option<String>,
    pub nodes: u64,
    pub seconds: f64,
    pub nodes_per_second: f64,
}

impl Document for BestMove {
    const FORMAT: &'static str = "othello-best";
}

/// `fullgame --json`: a look-ahead game played out.
#[derive(Serialize, JsonSchema)]
pub struct FullGame {
    /// Square indices, -1 for a pass.
    pub moves: Vec<i64>,
    /// 0 black, 1 white, -1 a draw.
    pub winner: i64,
    pub black: u32,
    pub white: u32,
    /// The final board, eight rows of 1 black, -1 white, 0 empty (seed 004's board).
    pub board: [[i8; 8]; 8],
}

impl Document for FullGame {
    const FORMAT: &'static str = "othello-fullgame";
}

/// `perft --json`.
#[derive(Serialize, JsonSchema)]
pub struct Perft {
    pub depth: u32,
    pub leaves: u64,
    pub seconds: f64,
}

impl Document for Perft {
    const FORMAT: &'static str = "othello-perft";
}

/// `solve --json`: one line per position; the fields after `seconds` only when it was solved.
#[derive(Serialize, JsonSchema)]
pub struct Solved {
    pub number: usize,
    pub empties: u32,
    pub finished: bool,
    pub seconds: f64,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub solution: Option<SolutionJson>,
}

impl Document for Solved {
    const FORMAT: &'static str = "othello-solve";
}

#[derive(Serialize, JsonSchema)]
pub struct SolutionJson {
    pub side: &'static str,
    /// Whether the side to move must pass before the line starts.
    pub pass_first: bool,
    /// Final disc difference for `side`, empty squares to the winner.
    pub score: i32,
    #[serde(rename = "move")]
    pub best: Option<String>,
    /// The principal variation, `pass` for a pass.
    pub pv: Vec<String>,
    pub nodes: u64,
    /// The score the OBF file gives, and whether ours and its best move agree with it.
    pub file_score: Option<i32>,
    pub score_agrees: Option<bool>,
    pub move_agrees: Option<bool>,
}

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
    /// The first forfeits' reasons.
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

/// `grade --json`, a line per program and case and judge (`type` `case`), then one per program
/// (`type` `summary`).
#[derive(Serialize, JsonSchema)]
pub struct GradeCase {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub program: String,
    pub case: String,
    pub args: Vec<String>,
    pub judge: &'static str,
    pub verdict: &'static str,
    /// The first differences; `total_differences` counts them all.
    pub differences: Vec<DifferenceJson>,
    pub total_differences: usize,
    /// Lab 5's marks, out of 1 (the lab5 judge only).
    pub marks: Option<f64>,
    pub seconds: f64,
    pub cpu_seconds: Option<f64>,
    /// How the run ended, in words.
    pub ending: String,
    pub exit_status: Option<i32>,
    pub signal: Option<i32>,
    /// The last lines of stderr of a run that crashed, timed out or failed.
    pub stderr_tail: Vec<String>,
}

impl Document for GradeCase {
    const FORMAT: &'static str = "othello-grade";
}

/// One difference: where, and what each side has there. For a difference of lines, `text` is true
/// and `expected` and `actual` are the lines themselves (newlines kept, empty for none); otherwise
/// they say in words what was expected and found (`3 snapshots`, `[18, 20, 29]`).
#[derive(Serialize, JsonSchema)]
pub struct DifferenceJson {
    pub place: String,
    pub text: bool,
    pub expected: String,
    pub actual: String,
}

impl GradeCase {
    /// One object per judgement of `outcome`.
    pub fn each(outcome: &Outcome, case: &Case, program: &Program, limits: &Limits) -> Vec<GradeCase> {
        let (exit_status, signal) = match outcome.ending {
            Ending::Exited(code) => (Some(code), None),
            Ending::Signalled(signal) => (None, Some(signal)),
            _ => (None, None),
        };
        outcome
            .judgements
            .iter()
            .map(|judgement| GradeCase {
                kind: "case",
                program: program.name.clone(),
                case: case.name.clone(),
                args: case.args.clone(),
                judge: judgement.judge.name(),
                verdict: judgement.verdict.name(),
                differences: judgement
                    .differences
                    .iter()
                    .map(|d| match &d.text {
                        Some((expected, actual)) => DifferenceJson {
                            place: d.place.clone(),
                            text: true,
                            expected: expected.clone(),
                            actual: actual.clone(),
                        },
                        None => DifferenceJson {
                            place: d.place.clone(),
                            text: false,
                            expected: d.expected.clone(),
                            actual: d.actual.clone(),
                        },
                    })
                    .collect(),
                total_differences: judgement.total_differences,
                marks: judgement.marks,
                seconds: outcome.seconds,
                cpu_seconds: outcome.cpu_seconds,
                ending: match &outcome.ending {
                    Ending::NotStarted(why) if judgement.verdict == grade::Verdict::NotRun => why.clone(),
                    ending => ending.describe(limits),
                },
                exit_status,
                signal,
                stderr_tail: outcome.stderr_tail.clone(),
            })
            .collect()
    }
}

/// A program's totals in `grade --json`.
#[derive(Serialize, JsonSchema)]
pub struct GradeSummary {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub program: String,
    pub command: Vec<String>,
    pub cases: usize,
    /// Cases passed, per judge.
    pub passed: BTreeMap<&'static str, usize>,
    /// Cases some judge failed (a time-out, a limit or a crash is no failure), and each judge's.
    pub failed: usize,
    pub failed_by: BTreeMap<&'static str, usize>,
    pub timeouts: usize,
    pub limits: usize,
    pub crashes: usize,
    /// Cases not run: the program had timed out on `--max-timeouts` cases in a row.
    pub not_run: usize,
    pub seconds: f64,
    pub cpu_seconds: Option<f64>,
    /// Whether the runs were sandboxed, and how.
    pub isolated: bool,
    pub isolation: String,
    /// Lab 5's marks over all cases (the lab5 judge only).
    pub marks: Option<f64>,
}

impl Document for GradeSummary {
    const FORMAT: &'static str = "othello-grade";
}

impl GradeSummary {
    pub fn new(program: &Program, summary: &Summary, judges: &[Judge], limits: &Limits) -> GradeSummary {
        GradeSummary {
            kind: "summary",
            program: program.name.clone(),
            command: program.command_words(),
            cases: summary.cases,
            passed: judges
                .iter()
                .map(|j| (j.name(), summary.passed.get(j).copied().unwrap_or(0)))
                .collect(),
            failed: summary.failed,
            failed_by: judges
                .iter()
                .map(|j| (j.name(), summary.failed_by.get(j).copied().unwrap_or(0)))
                .collect(),
            timeouts: summary.timeouts,
            limits: summary.limits,
            crashes: summary.crashes,
            not_run: summary.not_run,
            seconds: summary.seconds,
            cpu_seconds: summary.cpu_seconds,
            isolated: limits.isolation.is_sandbox(),
            isolation: limits.isolation.describe(),
            marks: judges.contains(&Judge::Lab5).then_some(summary.marks),
        }
    }
}

/// Gradescope's `results.json` (its autograder specification), for `grade --gradescope`: a format
/// of theirs, so without our `format` and `version`.
#[derive(Serialize, JsonSchema)]
pub struct Gradescope {
    pub score: f64,
    pub execution_time: f64,
    /// The program's summary line, shown above the tests.
    pub output: String,
    /// How Gradescope shows `output`: as plain text (the report escapes what a program printed).
    pub output_format: &'static str,
    pub visibility: &'static str,
    pub stdout_visibility: &'static str,
    pub tests: Vec<GradescopeTest>,
}

#[derive(Serialize, JsonSchema)]
pub struct GradescopeTest {
    pub score: f64,
    pub max_score: f64,
    /// `passed` or `failed`.
    pub status: &'static str,
    pub name: String,
    pub number: String,
    /// What went wrong, as the report for people says it.
    pub output: String,
    pub output_format: &'static str,
    pub visibility: &'static str,
}

impl Gradescope {
    /// One program's results, `points[i]` the worth of case `i`.
    pub fn new(summary_line: String, marks: &[CaseMark], cases: &[Case], points: &[crate::marks::Worth]) -> Gradescope {
        let tests: Vec<GradescopeTest> = marks
            .iter()
            .map(|mark| GradescopeTest {
                score: round(points[mark.case].points * mark.earned),
                max_score: points[mark.case].points,
                status: if mark.verdict == grade::Verdict::Pass {
                    "passed"
                } else {
                    "failed"
                },
                name: cases[mark.case].name.clone(),
                number: (mark.case + 1).to_string(),
                output: mark.detail.clone(),
                output_format: "text",
                visibility: points[mark.case].visibility,
            })
            .collect();
        Gradescope {
            score: round(tests.iter().map(|t| t.score).sum()),
            execution_time: marks.iter().map(|m| m.seconds).sum(),
            output: summary_line,
            output_format: "text",
            visibility: "visible",
            stdout_visibility: "visible",
            tests,
        }
    }

    /// The file's text: pretty, as people read it when a grade looks wrong.
    pub fn text(&self) -> String {
        serde_json::to_string_pretty(self).expect("an output struct serializes") + "\n"
    }
}

/// Points to the thousandth: sums of fractions print as people expect (0.3, not 0.30000000000000004).
fn round(points: f64) -> f64 {
    (points * 1000.0).round() / 1000.0
}

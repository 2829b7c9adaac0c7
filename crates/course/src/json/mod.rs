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

mod games;
mod grades;

pub use games::*;
pub use grades::*;

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

//! What an engine is asked to be (its budget, evaluation and style) and what it answers: the
//! values a caller builds it from, apart from the state of its searches.

use super::*;

/// The default thinking time per move.
pub const DEFAULT_MILLISECONDS: u64 = 1000;

/// What the engine decided, and what it cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineChoice {
    pub best: Square,
    /// What the position is worth: exact when the solver finished, else the deepest completed
    /// midgame iteration's value (a proven win or loss, or an estimate in discs).
    pub value: Value,
    pub nodes: u64,
}

/// What the engine may spend on a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Wall-clock time: the strongest play, but the games depend on the machine and its load.
    Time(Duration),
    /// Nodes visited: the same moves on every machine, whatever its speed or load.
    Nodes(u64),
    /// A midgame search to this many plies, however long it takes, and no solving: the same
    /// depth for every position (an analysis compares moves by it).
    Depth(u32),
}

/// The evaluation at the engine's horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub enum EngineEval {
    /// The trained pattern evaluation (`crate::patterns`, weights built in), in discs.
    #[default]
    Patterns,
    /// The hand-made one: mobility, stable discs and square weights, scaled to discs by stage.
    HandMade,
}

/// Which engine: its evaluation, and whether its midgame search is selective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EngineStyle {
    pub eval: EngineEval,
    /// Multi-ProbCut in the midgame search (never in the exact solver); fitted for the trained
    /// evaluation only.
    pub selective: bool,
    /// Weights of a file for the trained evaluation (`engine:...:weights=FILE`); none: the
    /// settings' ones.
    pub weights: Option<&'static LoadedWeights>,
}

impl Default for EngineStyle {
    fn default() -> EngineStyle {
        EngineStyle {
            eval: EngineEval::Patterns,
            selective: true,
            weights: None,
        }
    }
}

impl EngineStyle {
    /// The engine before the trained evaluation, kept for comparisons: hand-made and full width.
    pub const HANDMADE: EngineStyle = EngineStyle {
        eval: EngineEval::HandMade,
        selective: false,
        weights: None,
    };
    /// The trained evaluation without ProbCut: what the selectivity is measured against.
    pub const FULL_WIDTH: EngineStyle = EngineStyle {
        eval: EngineEval::Patterns,
        selective: false,
        weights: None,
    };

    /// The words a strategy spec ends with to ask for this style (`engine:1000:handmade`,
    /// `engine:1000:weights=w.bin`), if any.
    pub fn suffix(self) -> String {
        let style = match (self.eval, self.selective) {
            (EngineEval::HandMade, _) => ":handmade",
            (EngineEval::Patterns, false) => ":fullwidth",
            (EngineEval::Patterns, true) => "",
        };
        match self.weights {
            Some(loaded) => format!("{style}:weights={}", loaded.path.display()),
            None => style.to_string(),
        }
    }

    /// The style a spec's last word asks for: `handmade` or `fullwidth`.
    pub fn from_word(word: &str) -> Option<EngineStyle> {
        match word {
            "handmade" => Some(EngineStyle::HANDMADE),
            "fullwidth" => Some(EngineStyle::FULL_WIDTH),
            _ => None,
        }
    }
}

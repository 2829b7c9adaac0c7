//! What a strategy says a position is worth for its side to move, and of what kind the number is:
//! an exact result, a win or loss a search has proven, an estimate in discs, or a score in a seed
//! strategy's own units.

use std::fmt;

/// An evaluation a fixed-depth search can score with (`othello_engine::eval` computes them).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Eval {
    /// h1: own discs minus the opponent's.
    Discs,
    /// h2: Norvig's SQUARE_WEIGHTS summed over own discs minus the opponent's.
    Weights,
    /// h3: 10 x mobility difference + 30 x stable-disc difference.
    Mobility,
    /// The notebook's CornersBot: disc difference + 25 x corner difference.
    Corners,
}

impl Eval {
    pub const ALL: [Eval; 4] = [Eval::Discs, Eval::Weights, Eval::Mobility, Eval::Corners];

    pub const fn name(self) -> &'static str {
        match self {
            Eval::Discs => "discs",
            Eval::Weights => "weights",
            Eval::Mobility => "mobility",
            Eval::Corners => "corners",
        }
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An evaluation name that is not one of ours.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown evaluation {0:?}: expected discs (h1), weights (h2), mobility (h3) or corners")]
pub struct UnknownEval(pub String);

impl std::str::FromStr for Eval {
    type Err = UnknownEval;

    fn from_str(text: &str) -> Result<Eval, UnknownEval> {
        match text.to_ascii_lowercase().as_str() {
            "discs" | "h1" => Ok(Eval::Discs),
            "weights" | "h2" => Ok(Eval::Weights),
            "mobility" | "h3" => Ok(Eval::Mobility),
            "corners" => Ok(Eval::Corners),
            _ => Err(UnknownEval(text.to_string())),
        }
    }
}

/// A value for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// The final disc difference under perfect play (empty squares to the winner), solved to the
    /// end from `empties` empty squares.
    Exact { discs: i32, empties: u32 },
    /// A search to `depth` plies found that the game is won (`margin` > 0), lost (< 0) or drawn
    /// whatever the opponent plays; `margin` is the final disc difference of the line it found.
    Proven { margin: i32, depth: u32 },
    /// An estimate of the final disc difference, from a search to `depth` plies.
    Estimate { discs: i32, depth: u32 },
    /// A score in a seed strategy's own evaluation, not in discs (`depth` for a search).
    Score { score: i32, eval: Eval, depth: Option<u32> },
}

impl Value {
    /// The number itself: discs for all kinds but `Score`.
    pub fn number(self) -> i32 {
        match self {
            Value::Exact { discs, .. } => discs,
            Value::Proven { margin, .. } => margin,
            Value::Estimate { discs, .. } => discs,
            Value::Score { score, .. } => score,
        }
    }

    /// The number when it is in discs (every kind but `Score`).
    pub fn discs(self) -> Option<i32> {
        match self {
            Value::Score { .. } => None,
            other => Some(other.number()),
        }
    }

    pub fn is_exact(self) -> bool {
        matches!(self, Value::Exact { .. })
    }

    /// The kind's name, for JSON: `exact`, `proven`, `estimate` or `score`.
    pub fn kind(self) -> &'static str {
        match self {
            Value::Exact { .. } => "exact",
            Value::Proven { .. } => "proven",
            Value::Estimate { .. } => "estimate",
            Value::Score { .. } => "score",
        }
    }

    /// Plies searched; for an exact value, the empty squares it was solved to the end from.
    pub fn depth(self) -> Option<u32> {
        match self {
            Value::Exact { empties, .. } => Some(empties),
            Value::Proven { depth, .. } | Value::Estimate { depth, .. } => Some(depth),
            Value::Score { depth, .. } => depth,
        }
    }

    /// The unit of `number`: `discs`, or the evaluation's name for a `Score`.
    pub fn unit(self) -> &'static str {
        match self {
            Value::Score { eval, .. } => eval.name(),
            _ => "discs",
        }
    }

    /// The same value for the other side.
    pub fn negated(self) -> Value {
        match self {
            Value::Exact { discs, empties } => Value::Exact { discs: -discs, empties },
            Value::Proven { margin, depth } => Value::Proven { margin: -margin, depth },
            Value::Estimate { discs, depth } => Value::Estimate { discs: -discs, depth },
            Value::Score { score, eval, depth } => Value::Score {
                score: -score,
                eval,
                depth,
            },
        }
    }

    /// What a move is worth to the side that made it, given this value of the position it leads to
    /// for the opponent: negated, and one ply (one empty square) more.
    pub fn for_the_mover(self) -> Value {
        match self.negated() {
            Value::Exact { discs, empties } => Value::Exact {
                discs,
                empties: empties + 1,
            },
            Value::Proven { margin, depth } => Value::Proven {
                margin,
                depth: depth + 1,
            },
            Value::Estimate { discs, depth } => Value::Estimate {
                discs,
                depth: depth + 1,
            },
            Value::Score { score, eval, depth } => Value::Score {
                score,
                eval,
                depth: depth.map(|depth| depth + 1),
            },
        }
    }

    /// Reads a value back from its number and the names `kind` and `unit` gives it (a log's
    /// fields); `None` if they do not name one.
    pub fn from_parts(number: i32, kind: &str, unit: Option<&str>, depth: Option<u32>) -> Option<Value> {
        Some(match kind {
            "exact" => Value::Exact {
                discs: number,
                empties: depth?,
            },
            "proven" => Value::Proven {
                margin: number,
                depth: depth?,
            },
            "estimate" => Value::Estimate {
                discs: number,
                depth: depth?,
            },
            "score" => Value::Score {
                score: number,
                eval: unit?.parse().ok()?,
                depth,
            },
            _ => return None,
        })
    }
}

/// "wins by 6", "loses by 4" or "draw", for a final disc difference.
fn outcome(margin: i32) -> String {
    match margin.signum() {
        1 => format!("wins by {margin}"),
        -1 => format!("loses by {}", -margin),
        _ => "draw".to_string(),
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::Exact { discs, .. } => write!(f, "{} (exact)", outcome(discs)),
            Value::Proven { margin, depth } => write!(f, "{} or more (proven at depth {depth})", outcome(margin)),
            Value::Estimate { discs, depth } => write!(f, "{discs:+} discs (estimate, depth {depth})"),
            Value::Score {
                score,
                eval,
                depth: Some(depth),
            } => write!(f, "{score} ({eval}, depth {depth})"),
            Value::Score {
                score,
                eval,
                depth: None,
            } => write!(f, "{score} ({eval})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_say_their_kind_and_unit() {
        let exact = |discs| Value::Exact { discs, empties: 20 };
        assert_eq!(exact(38).to_string(), "wins by 38 (exact)");
        assert_eq!(exact(-14).to_string(), "loses by 14 (exact)");
        assert_eq!(exact(0).to_string(), "draw (exact)");
        assert_eq!(
            (exact(0).depth(), exact(0).kind(), exact(0).unit()),
            (Some(20), "exact", "discs")
        );
        assert_eq!(
            Value::Proven { margin: 6, depth: 9 }.to_string(),
            "wins by 6 or more (proven at depth 9)"
        );
        assert_eq!(
            Value::Estimate { discs: 3, depth: 11 }.to_string(),
            "+3 discs (estimate, depth 11)"
        );
        assert_eq!(
            Value::Estimate { discs: -2, depth: 1 }.to_string(),
            "-2 discs (estimate, depth 1)"
        );
        let score = Value::Score {
            score: 19,
            eval: Eval::Mobility,
            depth: Some(6),
        };
        assert_eq!(score.to_string(), "19 (mobility, depth 6)");
        assert_eq!((score.number(), score.unit(), score.kind()), (19, "mobility", "score"));
    }

    #[test]
    fn values_read_back_from_their_parts() {
        let values = [
            Value::Exact { discs: -6, empties: 14 },
            Value::Proven { margin: 12, depth: 7 },
            Value::Estimate { discs: 0, depth: 1 },
            Value::Score {
                score: -40,
                eval: Eval::Weights,
                depth: None,
            },
        ];
        for value in values {
            let unit = Some(value.unit());
            assert_eq!(
                Value::from_parts(value.number(), value.kind(), unit, value.depth()),
                Some(value)
            );
        }
        assert_eq!(Value::from_parts(3, "guess", None, Some(2)), None);
        assert_eq!(Value::from_parts(3, "estimate", None, None), None);
    }
}

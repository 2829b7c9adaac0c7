//! The player names users type, the same in every command: built-in
//! strategies (`random`, `greedy`, `weighted`, `preferred`, `minimax:DEPTH[:EVAL]`,
//! `alphabeta:DEPTH[:EVAL]`, `lookahead:K`, `engine[:MS]`) and students' programs in the course's three
//! forms (`argv:COMMAND`, `quickmove:FILE.py`, `strategy:FILE.py`).

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::programs::{ProgramForm, ProgramPlayer, ProgramSpec};
use othello_core::board::Board;
use othello_core::player::{Decision, Failed, Failure, RandomStrategy, Strategy};
use othello_core::position::Position;
use othello_core::rng::SeededRng;
use othello_core::square::Square;
use othello_core::value::Value;
use othello_engine::eval::{Eval, weighted_score};
use othello_engine::search::alphabeta::alphabeta;
use othello_engine::search::engine::{Budget, DEFAULT_MILLISECONDS, Engine, EngineEval, EngineStyle};
use othello_engine::search::minimax::minimax;
use othello_engine::search::time::Clock;
use othello_engine::search::{Scoring, SearchResult};
use othello_engine::settings::EngineSettings;

/// A strategy as users name it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum StrategySpec {
    /// A uniformly random legal move (seeded).
    Random,
    /// Norvig's maximizer(score): the move leaving the most discs.
    Greedy,
    /// Norvig's maximizer(weighted_score): the best SQUARE_WEIGHTS balance after one move.
    Weighted,
    /// The lab mode's `--lab4` choice: one ply, corners, no squares next to empty corners, mobility.
    Preferred,
    Minimax {
        depth: u32,
        eval: Eval,
    },
    AlphaBeta {
        depth: u32,
        eval: Eval,
    },
    /// Seed 004's bestMove(K): minimax over K plies on disc difference, finished games included.
    Lookahead {
        depth: u32,
    },
    /// Iterative deepening with a table and the exact endgame solver, in this many milliseconds a move,
    /// or on a game clock of wall time (`--game-time`): it then loses the game when the clock runs out.
    Engine {
        milliseconds: u64,
        style: EngineStyle,
        game_time: Option<std::time::Duration>,
        /// Threads a move is searched on (`:threads=N`); one unless asked.
        threads: Option<u32>,
    },
    /// The same engine with a budget of nodes a move: the same games on every machine.
    EngineNodes {
        nodes: u64,
        style: EngineStyle,
    },
    /// A student's program, in one of the course's forms.
    Program(Arc<ProgramSpec>),
}

/// The largest depth the fixed-depth searches accept (beyond it a move takes hours).
pub const MAX_DEPTH: u32 = 30;

/// The evaluation minimax and alphabeta use when none is named.
pub(crate) const DEFAULT_EVAL: Eval = Eval::Weights;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnknownStrategy {
    #[error(
        "unknown strategy {0:?}: expected random, greedy, weighted, preferred, minimax:DEPTH[:EVAL], alphabeta:DEPTH[:EVAL], lookahead:K, engine[:MILLISECONDS, 1..3600000][:handmade|:fullwidth][:weights=FILE][:threads=N], engine:nodes=N[...], argv:COMMAND, quickmove:FILE.py or strategy:FILE.py (EVAL: discs, weights, mobility, corners; DEPTH 1..{MAX_DEPTH})"
    )]
    Unknown(String),
    /// The spec names a weights file that cannot be used.
    #[error("strategy {spec:?}: {why}")]
    Weights { spec: String, why: String },
}

impl FromStr for StrategySpec {
    type Err = UnknownStrategy;

    fn from_str(text: &str) -> Result<StrategySpec, UnknownStrategy> {
        let unknown = || UnknownStrategy::Unknown(text.to_string());
        for form in [ProgramForm::Argv, ProgramForm::QuickMove, ProgramForm::Strategy] {
            if let Some(target) = text.strip_prefix(form.prefix()) {
                if target.trim().is_empty() {
                    return Err(unknown());
                }
                return Ok(StrategySpec::Program(Arc::new(ProgramSpec::new(form, target))));
            }
        }
        let parts: Vec<&str> = text.split(':').collect();
        let depth = |word: &str| {
            word.parse::<u32>()
                .ok()
                .filter(|d| (1..=MAX_DEPTH).contains(d))
                .ok_or_else(unknown)
        };
        let eval = |word: Option<&&str>| word.map_or(Ok(DEFAULT_EVAL), |w| w.parse::<Eval>().map_err(|_| unknown()));
        match parts.as_slice() {
            ["random"] => Ok(StrategySpec::Random),
            ["greedy"] => Ok(StrategySpec::Greedy),
            ["weighted"] => Ok(StrategySpec::Weighted),
            ["preferred"] => Ok(StrategySpec::Preferred),
            ["minimax", d, rest @ ..] if rest.len() <= 1 => Ok(StrategySpec::Minimax {
                depth: depth(d)?,
                eval: eval(rest.first())?,
            }),
            ["alphabeta", d, rest @ ..] if rest.len() <= 1 => Ok(StrategySpec::AlphaBeta {
                depth: depth(d)?,
                eval: eval(rest.first())?,
            }),
            ["lookahead", d] => Ok(StrategySpec::Lookahead { depth: depth(d)? }),
            ["engine", words @ ..] if words.len() <= 4 => {
                // engine[:BUDGET][:handmade|:fullwidth][:weights=FILE][:threads=N], in that order.
                let (words, threads) = match words {
                    [rest @ .., last] if last.starts_with("threads=") => {
                        match last["threads=".len()..].parse::<u32>() {
                            Ok(threads @ 1..=256) => (rest, Some(threads)),
                            _ => return Err(unknown()),
                        }
                    }
                    words => (words, None),
                };
                let (budget, mut words) = match words {
                    [first, rest @ ..] if !first.starts_with("weights=") && EngineStyle::from_word(first).is_none() => {
                        (Some(*first), rest)
                    }
                    rest => (None, rest),
                };
                let mut style = EngineStyle::default();
                if let [word, rest @ ..] = words
                    && let Some(named) = EngineStyle::from_word(word)
                {
                    style = named;
                    words = rest;
                }
                match words {
                    [] => {}
                    [word] if word.starts_with("weights=") && style.eval == EngineEval::Patterns => {
                        let path = std::path::Path::new(&word["weights=".len()..]);
                        let loaded = othello_engine::patterns::load(path).map_err(|why| UnknownStrategy::Weights {
                            spec: text.to_string(),
                            why: why.to_string(),
                        })?;
                        style.weights = Some(loaded);
                    }
                    _ => return Err(unknown()),
                }
                match budget {
                    None => Ok(StrategySpec::Engine {
                        milliseconds: DEFAULT_MILLISECONDS,
                        style,
                        game_time: None,
                        threads,
                    }),
                    Some(budget) => match budget.strip_prefix("nodes=") {
                        // A node budget is the same games everywhere: one thread.
                        Some(_) if threads.is_some() => Err(unknown()),
                        Some(nodes) => match nodes.parse::<u64>() {
                            Ok(nodes @ 1..=100_000_000_000) => Ok(StrategySpec::EngineNodes { nodes, style }),
                            _ => Err(unknown()),
                        },
                        None => match budget.parse::<u64>() {
                            Ok(milliseconds @ 1..=3_600_000) => Ok(StrategySpec::Engine {
                                milliseconds,
                                style,
                                game_time: None,
                                threads,
                            }),
                            _ => Err(unknown()),
                        },
                    },
                }
            }
            _ => Err(unknown()),
        }
    }
}

impl fmt::Display for StrategySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrategySpec::Random => f.write_str("random"),
            StrategySpec::Greedy => f.write_str("greedy"),
            StrategySpec::Weighted => f.write_str("weighted"),
            StrategySpec::Preferred => f.write_str("preferred"),
            StrategySpec::Minimax { depth, eval } => write!(f, "minimax:{depth}:{eval}"),
            StrategySpec::AlphaBeta { depth, eval } => write!(f, "alphabeta:{depth}:{eval}"),
            StrategySpec::Lookahead { depth } => write!(f, "lookahead:{depth}"),
            StrategySpec::Engine {
                milliseconds,
                style,
                threads,
                ..
            } => {
                write!(f, "engine:{milliseconds}{}", style.suffix())?;
                match threads {
                    Some(threads) => write!(f, ":threads={threads}"),
                    None => Ok(()),
                }
            }
            StrategySpec::EngineNodes { nodes, style } => write!(f, "engine:nodes={nodes}{}", style.suffix()),
            StrategySpec::Program(program) => write!(f, "{}{}", program.form.prefix(), program.target),
        }
    }
}

impl StrategySpec {
    /// A player following this spec; `seed` feeds the random ones, `settings` the engines.
    pub fn build(&self, seed: u64, settings: &EngineSettings) -> Box<dyn Strategy> {
        match *self {
            StrategySpec::Random => Box::new(RandomStrategy(SeededRng::new(seed))),
            StrategySpec::Greedy => Box::new(Maximizer(|board: Board| board.disc_difference(), Eval::Discs)),
            StrategySpec::Weighted => Box::new(Maximizer(
                |board: Board| weighted_score(board.player, board.opponent),
                Eval::Weights,
            )),
            StrategySpec::Preferred => Box::new(PreferredStrategy),
            StrategySpec::Minimax { depth, eval } => Box::new(FixedDepth {
                depth,
                scoring: Scoring::strategy(eval),
                search: minimax,
            }),
            StrategySpec::AlphaBeta { depth, eval } => Box::new(FixedDepth {
                depth,
                scoring: Scoring::strategy(eval),
                search: alphabeta,
            }),
            StrategySpec::Lookahead { depth } => Box::new(FixedDepth {
                depth,
                scoring: Scoring::lookahead(Eval::Discs),
                search: alphabeta,
            }),
            StrategySpec::Engine {
                milliseconds,
                style,
                game_time,
                threads,
            } => {
                let mut engine = Engine::with_style(
                    Budget::Time(std::time::Duration::from_millis(milliseconds)),
                    style,
                    settings,
                );
                engine.set_threads(threads.map_or(1, |threads| threads as usize));
                engine.set_seed(seed);
                Box::new(EngineStrategy {
                    engine,
                    left: game_time,
                })
            }
            StrategySpec::EngineNodes { nodes, style } => Box::new(EngineStrategy {
                engine: Engine::with_style(Budget::Nodes(nodes), style, settings),
                left: None,
            }),
            StrategySpec::Program(ref program) => Box::new(ProgramPlayer::new(Arc::clone(program))),
        }
    }

    /// A timed engine's time a move, unless it plays on a game clock.
    pub fn time_per_move(&self) -> Option<std::time::Duration> {
        match self {
            StrategySpec::Engine {
                milliseconds,
                game_time: None,
                ..
            } => Some(std::time::Duration::from_millis(*milliseconds)),
            _ => None,
        }
    }

    /// A timed engine's game clock (`--game-time`).
    pub fn game_time(&self) -> Option<std::time::Duration> {
        match self {
            StrategySpec::Engine { game_time, .. } => *game_time,
            _ => None,
        }
    }

    /// Checks that a program can play (its command exists, its file imports); built-in strategies can.
    pub fn check(&self) -> Result<(), crate::programs::ProgramError> {
        match self {
            StrategySpec::Program(program) => program.check(),
            _ => Ok(()),
        }
    }

    /// The files a program player reads (its file, or the files its command line names), so that no
    /// output is written over them.
    pub fn files(&self) -> Vec<std::path::PathBuf> {
        let StrategySpec::Program(program) = self else {
            return Vec::new();
        };
        let words = match program.form {
            crate::programs::ProgramForm::Argv => shell_words::split(&program.target).unwrap_or_default(),
            _ => vec![program.target.clone()],
        };
        words
            .into_iter()
            .map(std::path::PathBuf::from)
            .filter(|path| path.is_file())
            .collect()
    }

    /// The same strategy with a program's settings changed (built-in strategies have none).
    pub fn with_program(self, change: impl FnOnce(&mut ProgramSpec)) -> StrategySpec {
        match self {
            StrategySpec::Program(program) => {
                let mut program = (*program).clone();
                change(&mut program);
                StrategySpec::Program(Arc::new(program))
            }
            other => other,
        }
    }

    /// Whether its moves depend on the clock or on a program we do not control, so that the same seed
    /// may not give the same games.
    /// Whether it always plays the same move in the same position: two such players play one
    /// game over and over from one start (a random player is seeded per game, a program may do
    /// anything, a timed engine depends on the machine's speed).
    pub fn is_deterministic(&self) -> bool {
        !matches!(
            self,
            StrategySpec::Random | StrategySpec::Engine { .. } | StrategySpec::Program(_)
        )
    }

    pub fn is_reproducible(&self) -> bool {
        !matches!(self, StrategySpec::Engine { .. } | StrategySpec::Program(_))
    }
}

struct EngineStrategy {
    engine: Engine,
    /// What is left of its game clock, if it plays on one; a strategy is built for each game.
    left: Option<std::time::Duration>,
}

impl Strategy for EngineStrategy {
    fn choose(&mut self, position: Position) -> Result<Decision, Failed> {
        let start = std::time::Instant::now();
        self.engine.set_clock(self.left.map(|left| Clock {
            left,
            per_move: std::time::Duration::ZERO,
        }));
        let choice = self.engine.choose(position.board);
        let used = start.elapsed();
        if let Some(left) = &mut self.left {
            // The engine keeps its own clock, as a program's runner does: the time it took, whole.
            *left = left.checked_sub(used).ok_or(Failure::TimedOut)?;
        }
        Ok(Decision {
            square: choice.best,
            value: Some(choice.value),
            nodes: choice.nodes,
            time: Some(used),
        })
    }
}

/// The corners next to each square that is dangerous while that corner is empty: X-squares
/// (diagonal) and C-squares (on the edge).
fn guarded_corner(square: Square) -> Option<(Square, i32)> {
    let (row, col) = (square.row(), square.col());
    let corner_row = if row <= 1 {
        0
    } else if row >= 6 {
        7
    } else {
        return None;
    };
    let corner_col = if col <= 1 {
        0
    } else if col >= 6 {
        7
    } else {
        return None;
    };
    let corner = Square::from_row_col(corner_row, corner_col);
    match (row.abs_diff(corner_row), col.abs_diff(corner_col)) {
        (1, 1) => Some((corner, 500)),
        (0, 1) | (1, 0) => Some((corner, 200)),
        _ => None,
    }
}

/// From this many empty squares on, the preferred move also counts discs.
const ENDGAME_EMPTIES: u32 = 12;

/// The lab's preferred move, chosen without search: take corners, keep off the squares next to
/// empty corners, give the opponent no corner and few moves, keep our own moves, gain stable discs,
/// and near the end gain discs. Ties go to the
/// smallest index. `None` when the side to move has no move.
pub(crate) fn preferred_move(board: Board) -> Option<Square> {
    let mut best: Option<(i32, Square)> = None;
    for square in board.moves() {
        let child = board.play(square);
        let mut score = 0;
        if othello_core::bitboard::Bitboard::CORNERS.contains(square) {
            score += 1000;
        }
        if let Some((corner, penalty)) = guarded_corner(square)
            && board.empties().contains(corner)
        {
            score -= penalty;
        }
        let replies = child.moves();
        score -= 300 * (replies & othello_core::bitboard::Bitboard::CORNERS).count() as i32;
        score += 10 * (child.opponent_moves().count() as i32 - replies.count() as i32);
        // Discs that can never be lost, and near the end the discs themselves: they are the score.
        let (mine, theirs) = (child.opponent.0, child.player.0);
        score += 20 * othello_engine::stability::stable_discs(mine, theirs).count_ones() as i32;
        if child.empty_count() <= ENDGAME_EMPTIES {
            score += 15 * (mine.count_ones() as i32 - theirs.count_ones() as i32);
        }
        if best.is_none_or(|(best_score, _)| score > best_score) {
            best = Some((score, square));
        }
    }
    best.map(|(_, square)| square)
}

struct PreferredStrategy;

impl Strategy for PreferredStrategy {
    fn choose(&mut self, position: Position) -> Result<Decision, Failed> {
        let square = preferred_move(position.board).expect("a strategy is only asked when a move exists");
        Ok(Decision {
            square,
            value: None,
            nodes: position.moves().count() as u64,
            time: None,
        })
    }
}

/// Norvig's maximizer(evaluate): the move whose resulting board is best for the mover, first
/// (smallest index) among equals; `evaluate` is the evaluation named.
struct Maximizer<F>(F, Eval);

impl<F: Fn(Board) -> i32 + Send> Strategy for Maximizer<F> {
    fn choose(&mut self, position: Position) -> Result<Decision, Failed> {
        let board = position.board;
        let mut best: Option<(Square, i32)> = None;
        let mut nodes = 0;
        for square in board.moves() {
            // The child board is the opponent's view; the mover's value is its mirror.
            let value = (self.0)(board.play(square).pass());
            nodes += 1;
            if best.is_none_or(|(_, best_value)| value > best_value) {
                best = Some((square, value));
            }
        }
        let (square, value) = best.expect("a strategy is only asked when a move exists");
        Ok(Decision {
            square,
            value: Some(Value::Score {
                score: value,
                eval: self.1,
                depth: Some(1),
            }),
            nodes,
            time: None,
        })
    }
}

struct FixedDepth {
    depth: u32,
    scoring: Scoring,
    search: fn(Board, u32, Scoring) -> SearchResult,
}

impl Strategy for FixedDepth {
    fn choose(&mut self, position: Position) -> Result<Decision, Failed> {
        let result = (self.search)(position.board, self.depth, self.scoring);
        let square = result.best.expect("a strategy is only asked when a move exists");
        Ok(Decision {
            square,
            value: Some(self.scoring.value(result.value, self.depth)),
            nodes: result.nodes,
            time: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_default_the_evaluation() {
        for text in [
            "random",
            "greedy",
            "weighted",
            "minimax:3:discs",
            "alphabeta:8:mobility",
            "lookahead:4",
            "engine:1000",
            "engine:nodes=20000:handmade",
            "engine:250:fullwidth",
            "engine:1000:threads=2",
            "engine:500:handmade:threads=1",
        ] {
            assert_eq!(text.parse::<StrategySpec>().unwrap().to_string(), text);
        }
        assert_eq!(
            "alphabeta:4".parse::<StrategySpec>().unwrap().to_string(),
            "alphabeta:4:weights"
        );
        for bad in [
            "",
            "alphabeta",
            "alphabeta:0",
            "alphabeta:x",
            "alphabeta:4:pieces",
            "minimax:2:discs:1",
            "lookahead:3:discs",
            "engine:1000:handmade:fullwidth",
            "engine:nodes=5:narrow",
            "engine:nodes=5:threads=2",
            "engine:1000:threads=0",
        ] {
            assert!(bad.parse::<StrategySpec>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn greedy_takes_the_most_discs_and_the_smallest_index_among_equals() {
        // From the start every move flips one disc: the first, d3 (19), wins the tie.
        let decision = StrategySpec::Greedy
            .build(0, &EngineSettings::default())
            .choose(Position::START)
            .unwrap();
        assert_eq!(decision.square.index(), 19);
        let value = Value::Score {
            score: 3,
            eval: Eval::Discs,
            depth: Some(1),
        };
        assert_eq!(decision.value, Some(value));
    }
}

//! Values for every legal move of a position, best first, and for every move of a game: exact from
//! the solver where few enough squares are empty, else the engine's estimate of each move, all
//! searched to the same depth (so that moves compare fairly, and the output is the same on every
//! machine).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::search::endgame::Solver;
use crate::search::engine::{Budget, Engine, EngineStyle};
use crate::settings::EngineSettings;
use othello_core::board::Board;
use othello_core::color::Color;
use othello_core::game::{Game, Turn};
use othello_core::square::Square;
use othello_core::value::Value;

/// Moves into positions with at most this many empty squares are solved exactly by default.
pub const DEFAULT_EXACT_EMPTIES: u32 = 18;
/// The depth of each move's estimate by default (the move itself and this many plies).
pub const DEFAULT_DEPTH: u32 = 9;

/// A move and what it is worth to the side making it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    pub square: Square,
    pub value: Value,
    /// Nodes the engine or the solver visited for it.
    pub nodes: u64,
}

/// How far to solve and how hard to estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub exact_empties: u32,
    /// Plies the engine searches after each move, for an estimate.
    pub depth: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            exact_empties: DEFAULT_EXACT_EMPTIES,
            depth: DEFAULT_DEPTH,
        }
    }
}

/// The engine and the solver an analysis keeps between positions (their tables carry over).
pub struct Analyst {
    settings: Settings,
    engine: Engine,
    solver: Solver,
    stop: Option<Arc<AtomicBool>>,
}

/// How a played move compares with the best one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Good,
    /// Lost at least `MISTAKE_DISCS` against the best move.
    Mistake,
    /// Lost at least `BLUNDER_DISCS`.
    Blunder,
}

/// Discs lost against the best move that make a mistake, and a blunder.
pub const MISTAKE_DISCS: i32 = 4;
pub const BLUNDER_DISCS: i32 = 10;

impl Verdict {
    pub fn of_loss(loss: i32) -> Verdict {
        if loss >= BLUNDER_DISCS {
            Verdict::Blunder
        } else if loss >= MISTAKE_DISCS {
            Verdict::Mistake
        } else {
            Verdict::Good
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Good => "",
            Verdict::Mistake => "mistake",
            Verdict::Blunder => "blunder",
        }
    }
}

/// One move of a game, analysed: every legal move's value in its position, and the one played.
#[derive(Clone, Debug)]
pub struct AnalysedMove {
    /// 1 for the game's first move; passes are not numbered.
    pub number: usize,
    /// The side that moved, and the position it moved in.
    pub side: Color,
    pub board: Board,
    pub played: Square,
    /// Best first.
    pub moves: Vec<MoveValue>,
}

impl AnalysedMove {
    pub fn best(&self) -> MoveValue {
        self.moves[0]
    }

    pub fn played_value(&self) -> MoveValue {
        *self
            .moves
            .iter()
            .find(|m| m.square == self.played)
            .expect("the played move is legal, so it was analysed")
    }

    /// Discs the played move gave away against the best one (0 when it was a best move).
    pub fn loss(&self) -> i32 {
        self.best().value.number() - self.played_value().value.number()
    }

    pub fn verdict(&self) -> Verdict {
        Verdict::of_loss(self.loss())
    }
}

impl Analyst {
    /// An analyst searching as `settings` say, with `engine`'s weights.
    pub fn new(settings: Settings, engine: &EngineSettings) -> Analyst {
        let mut solver = Solver::new();
        solver.set_weights(engine.weights());
        Analyst {
            settings,
            engine: Engine::with_style(Budget::Depth(settings.depth), EngineStyle::default(), engine),
            solver,
            stop: None,
        }
    }

    /// Solves on `threads` threads: the same values, found sooner; the estimates' fixed-depth
    /// searches stay on one thread (their node counts are part of what is reproducible).
    pub fn set_threads(&mut self, threads: usize) {
        self.solver.set_threads(threads);
    }

    /// Lets another thread end an analysis early (see [`Analyst::moves_with`]).
    pub fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.engine.set_stop(stop.clone());
        self.solver.set_stop(stop.clone());
        self.stop = Some(stop);
    }

    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|stop| stop.load(Ordering::Relaxed))
    }

    /// Every legal move of `board` with its value for the side to move, best first (ties in square
    /// order); empty when the side to move must pass.
    pub fn moves(&mut self, board: Board) -> Vec<MoveValue> {
        self.moves_with(board, |_| {})
    }

    /// [`Analyst::moves`], telling `each` of every move as soon as it is valued (in square order);
    /// once stopped, only the moves valued before.
    pub fn moves_with(&mut self, board: Board, mut each: impl FnMut(&MoveValue)) -> Vec<MoveValue> {
        let mut values = Vec::new();
        for square in board.moves().squares() {
            let Some(value) = self.move_value(board, square) else {
                break;
            };
            if self.stopped() {
                break;
            }
            each(&value);
            values.push(value);
        }
        values.sort_by_key(|m| (-m.value.number(), m.square));
        values
    }

    fn move_value(&mut self, board: Board, square: Square) -> Option<MoveValue> {
        let child = board.play(square);
        let empties = child.empty_count();
        if empties <= self.settings.exact_empties {
            self.solver.set_deadline(None);
            self.solver.set_node_limit(None);
            // Without limits only a stop ends a solve early.
            let solution = self.solver.solve(child).ok()?;
            return Some(MoveValue {
                square,
                value: Value::Exact {
                    discs: solution.score,
                    empties,
                }
                .for_the_mover(),
                nodes: solution.nodes,
            });
        }
        let (value, nodes) = self.engine.value(child);
        Some(MoveValue {
            square,
            value: value.for_the_mover(),
            nodes,
        })
    }

    /// Every move of `game` analysed, in order; `progress` hears of each as it is done.
    pub fn game(&mut self, game: &Game, mut progress: impl FnMut(&AnalysedMove)) -> Vec<AnalysedMove> {
        let mut replay = Game::new(game.start());
        let mut analysed = Vec::new();
        for turn in game.turns() {
            match *turn {
                Turn::Pass { .. } => replay.pass().expect("the game was legal"),
                Turn::Move { square, .. } => {
                    let board = replay.position().board;
                    let moves = self.moves(board);
                    let entry = AnalysedMove {
                        number: analysed.len() + 1,
                        side: replay.position().to_move,
                        board,
                        played: square,
                        moves,
                    };
                    progress(&entry);
                    analysed.push(entry);
                    replay.play(square, None).expect("the game was legal");
                }
            }
        }
        analysed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::notation::transcript;
    use othello_core::position::Position;

    /// At few empties every move's value is the solver's score of the position it leads to.
    #[test]
    fn exact_values_are_the_solver_scores_of_the_children() {
        let mut rng = othello_core::rng::SeededRng::new(12);
        let mut board = Board::START;
        while board.empty_count() > 14 || board.moves().is_empty() {
            board = if board.moves().is_empty() {
                board.pass()
            } else {
                board.play(rng.pick_square(board.moves()))
            };
            if board.is_game_over() {
                board = Board::START;
            }
        }
        let mut analyst = Analyst::new(
            Settings {
                exact_empties: 64,
                depth: 1,
            },
            &EngineSettings::default(),
        );
        let values = analyst.moves(board);
        assert_eq!(values.len(), board.moves().count() as usize);
        for pair in values.windows(2) {
            assert!(pair[0].value.number() >= pair[1].value.number());
        }
        for m in &values {
            let score = Solver::new().solve(board.play(m.square)).unwrap().score;
            assert_eq!(
                m.value,
                Value::Exact {
                    discs: -score,
                    empties: board.empty_count()
                }
            );
        }
        assert_eq!(values[0].value.number(), Solver::new().solve(board).unwrap().score);
    }

    #[test]
    fn estimates_say_their_depth_and_losses_are_measured_from_the_best() {
        let game = transcript::play(Position::START, "f5d6c3d3c4").unwrap();
        let mut analyst = Analyst::new(
            Settings {
                exact_empties: 0,
                depth: 3,
            },
            &EngineSettings::default(),
        );
        let analysed = analyst.game(&game, |_| {});
        assert_eq!(analysed.len(), 5);
        for entry in &analysed {
            assert!(
                entry
                    .moves
                    .iter()
                    .all(|m| matches!(m.value, Value::Estimate { depth: 4, .. }))
            );
            assert!(entry.loss() >= 0);
            assert_eq!(entry.verdict(), Verdict::of_loss(entry.loss()));
        }
        assert_eq!(Verdict::of_loss(3), Verdict::Good);
        assert_eq!(Verdict::of_loss(4), Verdict::Mistake);
        assert_eq!(Verdict::of_loss(10), Verdict::Blunder);
    }
}

//! Self-play games for training data: a random opening, then a reproducible strategy with some
//! random moves, both sides the same; every position where the side to move has a move becomes a
//! sample. Positions with few enough empty squares get the solver's exact score; earlier ones the
//! exact score of the game's first solved position, seen from their side to move (the result the
//! game would have under perfect play from there), and what the player's own search said of them
//! (a label with less noise than a result that every later mistake moves), or a deeper search's
//! value where a separate value player is given.

pub mod samples;

use std::ops::RangeInclusive;

use crate::strategy::StrategySpec;
use othello_core::board::Board;
use othello_core::color::Color;
use othello_core::player::Failed;
use othello_core::position::Position;
use othello_core::rng::SeededRng;
use othello_core::square::Square;
use othello_core::value::Value;
use othello_engine::search::endgame::Solver;
use othello_engine::search::engine::EngineEval;
use othello_engine::settings::EngineSettings;

/// How the games are made; the same settings and seed give the same games on any machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayConfig {
    /// The strategy that plays both sides after the opening; it must be reproducible.
    pub player: StrategySpec,
    /// Random moves at the start, drawn uniformly per game from this range.
    pub opening_plies: RangeInclusive<u32>,
    /// After the opening, the chance in percent that a move is random instead of the player's.
    pub random_percent: u32,
    /// Positions with at most this many empty squares are solved exactly.
    pub exact_empties: u32,
    pub seed: u64,
    /// A strategy (reproducible too) whose search values label the unsolved positions instead of
    /// the player's, a deeper search say: the player still makes every move, so the games are the
    /// same as without it.
    pub value_player: Option<StrategySpec>,
    /// The name of a file of recorded games whose moves are replayed instead of played
    /// (`replay_game`): the player (or value player) only labels their positions.
    pub replay: Option<String>,
    /// Whether the recorded games carry their players' values, which then label the positions
    /// they are given for instead of the player's search.
    pub recorded_values: bool,
    /// The weights of the engines (the player's, the value player's, the solver's ordering).
    pub engine: EngineSettings,
}

impl SelfPlayConfig {
    /// The settings in one line, for a data file's header: a file resumes only with the same ones.
    /// A trained engine's weights are named by their fingerprint: after new weights are built in
    /// (or given), the same player spec plays other games, which must not join the old file.
    pub fn describe(&self) -> String {
        let values = self.value_player.as_ref().map_or_else(String::new, |spec| {
            format!(" values={spec}{}", weights_named(spec, &self.engine))
        });
        if let Some(games) = &self.replay {
            let recorded = if self.recorded_values { " values=recorded" } else { "" };
            return format!(
                "replay={games} player={}{} exact={}{values}{recorded}",
                self.player,
                weights_named(&self.player, &self.engine),
                self.exact_empties
            );
        }
        format!(
            "player={}{} opening={}..{} random={}% exact={} seed={}{values}",
            self.player,
            weights_named(&self.player, &self.engine),
            self.opening_plies.start(),
            self.opening_plies.end(),
            self.random_percent,
            self.exact_empties,
            self.seed
        )
    }
}

/// ` weights=FINGERPRINT` for a trained engine, nothing for other strategies.
fn weights_named(spec: &StrategySpec, settings: &EngineSettings) -> String {
    match spec {
        StrategySpec::EngineNodes { style, .. } if style.eval == EngineEval::Patterns => {
            let weights = style
                .weights
                .map_or_else(|| settings.weights(), |loaded| &loaded.weights);
            format!(" weights={:016x}", weights.fingerprint())
        }
        _ => String::new(),
    }
}

// A position and its value, what the trainer reads: the engine's.
pub use othello_engine::training::train::Sample;

/// A finished self-play game: its index (which fixes its randomness) and its samples in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayGame {
    pub index: u64,
    pub samples: Vec<Sample>,
}

/// A game another player played: its moves (passes left out) and, if it has them, the value the
/// player gave each position it moved from, for the side to move, in discs (one per move, None
/// where it gave none, an opening it was handed say; no list at all when it gave none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    pub moves: Vec<Square>,
    pub values: Option<Vec<Option<i8>>>,
}

/// Why a recorded game cannot be replayed.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReplayError {
    #[error("game {game}: move {ply} ({square}) is not legal there")]
    Illegal { game: u64, ply: usize, square: Square },
    #[error("game {game}: its {moves} moves stop before the game ends")]
    Unfinished { game: u64, moves: usize },
    #[error("game {game}: it goes on after the game has ended")]
    TooLong { game: u64 },
    #[error("game {game}: {values} values for {moves} moves: expected one a move")]
    Values { game: u64, values: usize, moves: usize },
    #[error("{0}")]
    Player(String),
}

/// Plays game `index` of the configuration: the same game whatever else runs, and wherever.
pub fn play_game(config: &SelfPlayConfig, index: u64) -> Result<SelfPlayGame, Failed> {
    match run_game(config, index, None) {
        Ok(game) => Ok(game),
        Err(Stop::Failed(failed)) => Err(failed),
        Err(Stop::Replay(error)) => unreachable!("a game played, not replayed, has no recorded moves: {error}"),
    }
}

/// Game `index` as it was recorded, with its positions labelled as a played game's are: the
/// recorded value where there is one, else the player's (or value player's) search value, the
/// solver's exact score from `exact_empties` on, and that of the first solved position as every
/// earlier one's result. What the recorded players did in the solved stage does not matter.
pub fn replay_game(config: &SelfPlayConfig, index: u64, game: &Recorded) -> Result<SelfPlayGame, ReplayError> {
    check_values(index, game)?;
    match run_game(config, index, Some(game)) {
        Ok(game) => Ok(game),
        Err(Stop::Failed(failed)) => Err(ReplayError::Player(format!(
            "{} gave no value: {}",
            config.player,
            failed.describe()
        ))),
        Err(Stop::Replay(error)) => Err(error),
    }
}

/// Whether a recorded game is a whole legal game with a value (or none) a move, without labelling
/// it: what a games file is checked for before any of its games is replayed.
pub fn check_replay(index: u64, game: &Recorded) -> Result<(), ReplayError> {
    check_values(index, game)?;
    let moves = &game.moves;
    let mut position = Position::START;
    for (ply, &square) in moves.iter().enumerate() {
        position = position.after_forced_pass();
        if position.is_game_over() {
            return Err(ReplayError::TooLong { game: index });
        }
        if !position.moves().contains(square) {
            return Err(ReplayError::Illegal {
                game: index,
                ply: ply + 1,
                square,
            });
        }
        position = position.play(square);
    }
    if !position.after_forced_pass().is_game_over() {
        return Err(ReplayError::Unfinished {
            game: index,
            moves: moves.len(),
        });
    }
    Ok(())
}

fn check_values(index: u64, game: &Recorded) -> Result<(), ReplayError> {
    match &game.values {
        Some(values) if values.len() != game.moves.len() => Err(ReplayError::Values {
            game: index,
            values: values.len(),
            moves: game.moves.len(),
        }),
        _ => Ok(()),
    }
}

enum Stop {
    Failed(Failed),
    Replay(ReplayError),
}

impl From<Failed> for Stop {
    fn from(failed: Failed) -> Stop {
        Stop::Failed(failed)
    }
}

fn run_game(config: &SelfPlayConfig, index: u64, recorded_game: Option<&Recorded>) -> Result<SelfPlayGame, Stop> {
    let replayed = recorded_game.map(|game| &game.moves[..]);
    let mut rng = SeededRng::for_item(config.seed, index);
    let span = u64::from(config.opening_plies.end() - config.opening_plies.start()) + 1;
    let opening = config.opening_plies.start() + rng.below(span) as u32;
    let mut player = config.player.build(rng.next_u64(), &config.engine);
    // Seeded apart from the game's stream, which it must leave as it is without one.
    let mut value_player = config
        .value_player
        .as_ref()
        .map(|spec| spec.build(index, &config.engine));
    let mut solver = Solver::with_table_bits(20);
    solver.set_weights(config.engine.weights());
    let mut position = Position::START;
    // Positions before the solved stage, with their side to move and the player's value of them;
    // their score comes at the end.
    let mut unsolved: Vec<(Board, Color, Option<i8>)> = Vec::new();
    // The exact score of the first solved position, and its side to move.
    let mut anchor = None;
    let mut solved = Vec::new();
    let mut ply = 0;
    loop {
        position = position.after_forced_pass();
        if position.is_game_over() {
            if replayed.is_some_and(|moves| moves.len() > ply as usize) {
                return Err(Stop::Replay(ReplayError::TooLong { game: index }));
            }
            break;
        }
        let board = position.board;
        let recorded = match replayed {
            Some(moves) => match moves.get(ply as usize) {
                Some(&square) if position.moves().contains(square) => Some(square),
                Some(&square) => {
                    return Err(Stop::Replay(ReplayError::Illegal {
                        game: index,
                        ply: ply as usize + 1,
                        square,
                    }));
                }
                None => {
                    return Err(Stop::Replay(ReplayError::Unfinished {
                        game: index,
                        moves: ply as usize,
                    }));
                }
            },
            None => None,
        };
        let random = recorded.is_none() && (ply < opening || rng.below(100) < u64::from(config.random_percent));
        // The player's move where it searched anyway (every unsolved position, also where a
        // random move is played, so that each sample carries its value).
        let searched = if board.empty_count() <= config.exact_empties {
            let solution = solver
                .solve(board)
                .expect("a solver without a deadline or node limit finishes");
            anchor.get_or_insert((solution.score, position.to_move));
            solved.push(Sample {
                board,
                score: solution.score as i8,
                exact: true,
                value: None,
            });
            None
        } else if let Some(value) = recorded_game
            .and_then(|game| game.values.as_ref())
            .and_then(|values| values[ply as usize])
        {
            // The recorded player's own value: nobody here needs to search.
            unsolved.push((board, position.to_move, Some(value)));
            None
        } else {
            let decision = player.choose(position)?;
            let valued = match value_player.as_mut() {
                Some(value_player) => value_player.choose(position)?.value,
                None => decision.value,
            };
            let value = valued.and_then(Value::discs).map(|v| v.clamp(-64, 64) as i8);
            unsolved.push((board, position.to_move, value));
            Some(decision.square)
        };
        let square = match (recorded, random, searched) {
            (Some(square), _, _) => square,
            (None, true, _) => rng.pick_square(position.moves()),
            (None, false, Some(square)) => square,
            (None, false, None) => player.choose(position)?.square,
        };
        position = position.play(square);
        ply += 1;
    }
    // A game that ended before its solved stage: its final score is exact for everyone.
    let (score, side) = anchor.unwrap_or_else(|| (position.board.final_score(), position.to_move));
    let mut samples: Vec<Sample> = unsolved
        .into_iter()
        .map(|(board, to_move, value)| Sample {
            board,
            score: (if to_move == side { score } else { -score }) as i8,
            exact: false,
            value,
        })
        .collect();
    samples.extend(solved);
    Ok(SelfPlayGame { index, samples })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SelfPlayConfig {
        SelfPlayConfig {
            player: "alphabeta:2:mobility".parse().unwrap(),
            opening_plies: 2..=6,
            random_percent: 10,
            exact_empties: 10,
            seed: 7,
            value_player: None,
            replay: None,
            recorded_values: false,
            engine: othello_engine::settings::EngineSettings::default(),
        }
    }

    #[test]
    fn a_game_is_the_same_every_time_and_its_values_agree_with_the_solver() {
        let first = play_game(&config(), 3).unwrap();
        assert_eq!(play_game(&config(), 3).unwrap(), first);
        assert_ne!(play_game(&config(), 4).unwrap(), first);
        let mut solver = Solver::with_table_bits(16);
        let exact: Vec<&Sample> = first.samples.iter().filter(|s| s.exact).collect();
        assert!(!exact.is_empty() && exact.len() <= 10);
        for sample in &exact {
            assert!(sample.board.empty_count() <= 10);
            assert_eq!(i32::from(sample.score), solver.solve(sample.board).unwrap().score);
        }
        // The earlier positions carry the first solved score, from their own side.
        let anchor = exact[0];
        for sample in first.samples.iter().filter(|s| !s.exact) {
            assert!(sample.board.empty_count() > 10);
            assert_eq!(sample.score.abs(), anchor.score.abs());
        }
        // Every sample is a position with a move, and they come in the game's order.
        assert!(first.samples.iter().all(|s| !s.board.moves().is_empty()));
        assert!(
            first
                .samples
                .windows(2)
                .all(|w| w[0].board.empty_count() > w[1].board.empty_count())
        );
        // A strategy that scores in its own units (here mobility) gives no values in discs.
        assert!(first.samples.iter().all(|s| s.value.is_none()));
    }

    #[test]
    fn every_unsolved_position_carries_the_players_value_even_where_a_random_move_follows() {
        let config = SelfPlayConfig {
            player: "engine:nodes=3000".parse().unwrap(),
            opening_plies: 6..=6,
            random_percent: 20,
            exact_empties: 6,
            ..config()
        };
        let game = play_game(&config, 1).unwrap();
        let (solved, unsolved): (Vec<&Sample>, Vec<&Sample>) = game.samples.iter().partition(|s| s.exact);
        assert!(solved.iter().all(|s| s.value.is_none()));
        assert!(unsolved.len() > 20);
        // The opening's six positions, where random moves are played, too.
        assert!(
            unsolved
                .iter()
                .all(|s| s.value.is_some_and(|v| (-64..=64).contains(&v)))
        );
        // The engine's value of the position just before the solved stage is a search to the end
        // (nodes enough for 7 empties): it is the exact score.
        let last = unsolved.last().unwrap();
        let exact = Solver::with_table_bits(16).solve(last.board).unwrap().score;
        assert_eq!(last.value.map(i32::from), Some(exact), "{last:?}");
    }

    #[test]
    fn a_value_player_labels_the_same_games_with_its_own_values() {
        let plain = SelfPlayConfig {
            player: "engine:nodes=1000".parse().unwrap(),
            opening_plies: 6..=6,
            random_percent: 10,
            exact_empties: 8,
            ..config()
        };
        let valued = SelfPlayConfig {
            value_player: Some("engine:nodes=30000".parse().unwrap()),
            ..plain.clone()
        };
        // Its files are not continued with another value player's games.
        assert!(valued.describe().contains(" seed=7 values=engine:nodes=30000 weights="));
        assert!(!plain.describe().contains("values="));
        let (a, b) = (play_game(&plain, 2).unwrap(), play_game(&valued, 2).unwrap());
        // The same positions and scores: the player alone chose the moves.
        let played = |game: &SelfPlayGame| -> Vec<(Board, i8, bool)> {
            game.samples.iter().map(|s| (s.board, s.score, s.exact)).collect()
        };
        assert_eq!(played(&a), played(&b));
        // The first position's value is what a fresh value player says of it, and the deeper
        // search disagrees with the shallow one somewhere.
        let first = b.samples[0];
        assert_eq!(first.board, Position::START.board);
        let said = valued
            .value_player
            .as_ref()
            .unwrap()
            .build(2, &EngineSettings::default())
            .choose(Position::START)
            .unwrap()
            .value;
        assert_eq!(first.value, said.and_then(Value::discs).map(|v| v as i8));
        assert!(a.samples.iter().zip(&b.samples).any(|(x, y)| x.value != y.value));
        assert!(b.samples.iter().filter(|s| !s.exact).all(|s| s.value.is_some()));
    }

    /// The moves of a played game, read off its samples: each next sample's board holds one disc
    /// more than the one before (a pass adds none); the last move is one that ends the game.
    fn moves_of(game: &SelfPlayGame) -> Vec<Square> {
        let occupied = |board: Board| (board.player | board.opponent).0;
        let mut moves: Vec<Square> = game
            .samples
            .windows(2)
            .map(|w| Square::new((occupied(w[1].board) & !occupied(w[0].board)).trailing_zeros() as u8).unwrap())
            .collect();
        let last = game.samples.last().unwrap().board;
        let ending = last
            .moves()
            .into_iter()
            .find(|&square| {
                let after = last.play(square);
                after.moves().is_empty() && after.opponent_moves().is_empty()
            })
            .unwrap();
        moves.push(ending);
        moves
    }

    #[test]
    fn a_game_replayed_from_its_moves_gets_the_samples_it_got_when_played() {
        let config = SelfPlayConfig {
            player: "engine:nodes=2000".parse().unwrap(),
            random_percent: 10,
            exact_empties: 8,
            ..config()
        };
        for index in [1, 2] {
            let played = play_game(&config, index).unwrap();
            let game = Recorded {
                moves: moves_of(&played),
                values: None,
            };
            assert_eq!(check_replay(index, &game), Ok(()));
            assert_eq!(replay_game(&config, index, &game), Ok(played));
        }
    }

    #[test]
    fn recorded_values_label_their_positions_and_the_player_labels_the_rest() {
        let config = SelfPlayConfig {
            player: "engine:nodes=2000".parse().unwrap(),
            exact_empties: 8,
            ..config()
        };
        let played = play_game(&config, 4).unwrap();
        let moves = moves_of(&played);
        // Values for the odd plies only, each unlike anything a search of this game says.
        let values: Vec<Option<i8>> = (0..moves.len())
            .map(|ply| (ply % 2 == 1).then_some(50 + (ply % 7) as i8))
            .collect();
        let game = Recorded {
            moves,
            values: Some(values.clone()),
        };
        let replayed = replay_game(&config, 4, &game).unwrap();
        assert_eq!(replayed.samples.len(), played.samples.len());
        let unsolved = played.samples.iter().filter(|sample| !sample.exact).count();
        assert!(unsolved > 10);
        for (ply, (ours, theirs)) in replayed.samples.iter().zip(&played.samples).enumerate() {
            match (ply < unsolved, values[ply.min(values.len() - 1)]) {
                (true, Some(value)) => assert_eq!(ours.value, Some(value), "ply {ply}"),
                // The player searched there (its table saw fewer positions than in play: the
                // value may differ from the played game's by a little).
                (true, None) => assert!(ours.value.is_some_and(|v| v.abs() < 50), "ply {ply}"),
                (false, _) => assert_eq!(ours.value, None, "ply {ply}"),
            }
            assert_eq!(
                (ours.board, ours.score, ours.exact),
                (theirs.board, theirs.score, theirs.exact)
            );
        }
        assert_eq!(replay_game(&config, 4, &game).unwrap(), replayed);
        // One value too few is refused, before any search.
        let short = Recorded {
            values: Some(values[1..].to_vec()),
            ..game.clone()
        };
        let error = ReplayError::Values {
            game: 4,
            values: values.len() - 1,
            moves: values.len(),
        };
        assert_eq!(check_replay(4, &short), Err(error.clone()));
        assert_eq!(replay_game(&config, 4, &short), Err(error));
    }

    #[test]
    fn a_replay_refuses_an_illegal_move_and_a_game_cut_short_or_run_on() {
        let config = config();
        let moves = moves_of(&play_game(&config, 3).unwrap());
        let mut illegal = moves.clone();
        illegal[4] = illegal[2];
        let short = &moves[..moves.len() - 1];
        let mut long = moves.clone();
        long.push(moves[0]);
        for (moves, error) in [
            (
                &illegal[..],
                ReplayError::Illegal {
                    game: 3,
                    ply: 5,
                    square: moves[2],
                },
            ),
            (
                short,
                ReplayError::Unfinished {
                    game: 3,
                    moves: short.len(),
                },
            ),
            (&long[..], ReplayError::TooLong { game: 3 }),
        ] {
            let game = Recorded {
                moves: moves.to_vec(),
                values: None,
            };
            assert_eq!(check_replay(3, &game), Err(error.clone()));
            assert_eq!(replay_game(&config, 3, &game), Err(error));
        }
    }
}

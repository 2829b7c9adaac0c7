//! Training samples from games other players played (the public collections: WTHOR's tournament
//! games, Logistello's book): each position labelled by what the collection says of the game's
//! end, with no search of ours.

use crate::training::train::Sample;
use othello_core::color::Color;
use othello_core::game::Game;
use othello_core::position::Position;

/// What a collection says of a game's end, from black's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// The final disc difference as recorded (the empty squares to the winner): a game stopped
    /// early has the result its players agreed on.
    pub black_margin: i8,
    /// The difference with perfect play from the position with this many empty squares on, as
    /// WTHOR records it (its `theoretical score`); Logistello's games have none.
    pub theoretical: Option<Theoretical>,
}

/// A perfect-play score from one position of the game on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theoretical {
    pub empties: u32,
    pub black_margin: i8,
}

/// The samples of one recorded game, a position before each move in the order played (the
/// positions where a side had to pass carry no decision and are left out).
///
/// The theoretical score is the exact value of the position at its depth (`exact`), and the value
/// perfect play would give every earlier position on the line, so it labels those (as a self-play
/// game's first solved position labels the ones before it). Later positions, where the players
/// could still err, take the recorded result; so do all of a game without a theoretical score,
/// or one that stopped before reaching the depth.
///
/// ```
/// use othello_core::notation::transcript;
/// use othello_core::position::Position;
/// use othello_engine::training::collections::{Ending, Theoretical, samples};
/// let game = transcript::play(Position::START, "f5d6c3d3c4f4f6f3e6e7").unwrap();
/// let ending = Ending { black_margin: 10, theoretical: Some(Theoretical { empties: 52, black_margin: -4 }) };
/// let labelled = samples(&game, ending);
/// assert_eq!(labelled.len(), 10);
/// // Black to move at the start: the theoretical score, not yet exact.
/// assert_eq!((labelled[0].score, labelled[0].exact), (-4, false));
/// // Black to move again with 52 empty squares, the depth: the score, exact.
/// assert_eq!((labelled[8].score, labelled[8].exact), (-4, true));
/// // White to move before it: the same score from white's side.
/// assert_eq!((labelled[7].score, labelled[7].exact), (4, false));
/// // After the depth: the recorded result, white to move.
/// assert_eq!(labelled[9].score, -10);
/// ```
pub fn samples(game: &Game, ending: Ending) -> Vec<Sample> {
    let theoretical = ending.theoretical.filter(|t| reaches(game, t.empties));
    let mut position = game.start();
    let mut samples = Vec::with_capacity(60);
    for square in game.moves() {
        position = position.after_forced_pass();
        let empties = position.board.empty_count();
        let (black_margin, exact) = match theoretical {
            Some(t) if empties >= t.empties => (t.black_margin, empties == t.empties),
            _ => (ending.black_margin, false),
        };
        samples.push(Sample {
            board: position.board,
            score: for_side(black_margin, position),
            exact,
            value: None,
        });
        position = position.play(square);
    }
    samples
}

/// Whether a position with `empties` empty squares and a move to make comes up in the game.
fn reaches(game: &Game, empties: u32) -> bool {
    let mut position = game.start();
    for square in game.moves() {
        position = position.after_forced_pass();
        if position.board.empty_count() == empties {
            return true;
        }
        position = position.play(square);
    }
    false
}

fn for_side(black_margin: i8, position: Position) -> i8 {
    if position.to_move == Color::Black {
        black_margin
    } else {
        -black_margin
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::notation::transcript;

    #[test]
    fn a_game_without_a_theoretical_score_is_labelled_by_its_result_from_each_sides_view() {
        let game = transcript::play(Position::START, "f5d6c3d3c4").unwrap();
        let labelled = samples(
            &game,
            Ending {
                black_margin: 6,
                theoretical: None,
            },
        );
        let scores: Vec<i8> = labelled.iter().map(|s| s.score).collect();
        assert_eq!(scores, [6, -6, 6, -6, 6]);
        assert!(labelled.iter().all(|s| !s.exact && s.value.is_none()));
        assert_eq!(labelled[0].board, Position::START.board);
    }

    #[test]
    fn a_depth_the_game_never_reached_leaves_the_result() {
        let game = transcript::play(Position::START, "f5d6c3").unwrap();
        let ending = Ending {
            black_margin: 2,
            theoretical: Some(Theoretical {
                empties: 20,
                black_margin: 64,
            }),
        };
        assert!(samples(&game, ending).iter().all(|s| s.score.abs() == 2 && !s.exact));
    }

    #[test]
    fn positions_where_a_side_passed_are_left_out() {
        // Random games until one has a pass: every sample's side to move has a move, and the
        // sides follow the game's turns.
        let mut rng = othello_core::rng::SeededRng::new(7);
        let game = loop {
            let mut game = Game::new(Position::START);
            while !game.is_over() {
                match game.status() {
                    othello_core::game::Status::MustPass(_) => game.pass().unwrap(),
                    _ => {
                        let square = rng.pick_square(game.position().moves());
                        game.play(square, None).unwrap();
                    }
                }
            }
            if game.turns().len() > game.moves().count() {
                break game;
            }
        };
        let labelled = samples(
            &game,
            Ending {
                black_margin: 4,
                theoretical: None,
            },
        );
        assert_eq!(labelled.len(), game.moves().count());
        assert!(labelled.iter().all(|s| !s.board.moves().is_empty()));
        let movers = game.turns().iter().filter_map(|turn| match turn {
            othello_core::game::Turn::Move { side, .. } => Some(*side),
            othello_core::game::Turn::Pass { .. } => None,
        });
        for (sample, side) in labelled.iter().zip(movers) {
            assert_eq!(sample.score, if side == Color::Black { 4 } else { -4 });
        }
    }
}

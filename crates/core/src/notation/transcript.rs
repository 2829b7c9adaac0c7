//! Plain transcripts, the form every Othello tool reads: the squares played in order, `f5d6c3d3c4`,
//! passes left out (a forced pass is implied), case and separators (spaces, commas) free; an
//! explicit `pa` or `--` pass is accepted where one is forced.

use crate::game::Game;
use crate::position::Position;
use crate::square::Square;

/// Why a text is not a transcript, or not one the rules allow from its start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TranscriptError {
    #[error("{text:?} at move {number} is not a square: a transcript is squares a1..h8 in order, such as f5d6c3")]
    NotASquare { number: usize, text: String },
    #[error("move {number}, {square}, is illegal: {side} can play {legal}")]
    Illegal {
        number: usize,
        square: String,
        side: &'static str,
        legal: String,
    },
    #[error("move {number}, {square}, comes after the end of the game")]
    AfterTheEnd { number: usize, square: String },
    #[error("move {number} is a pass, but {side} has a legal move ({legal})")]
    PassNotForced {
        number: usize,
        side: &'static str,
        legal: String,
    },
}

/// One written move: a square, or an explicit pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    Square(Square),
    Pass,
}

/// Whether `text` looks like a transcript (so that a command can tell it from a file name): letters
/// a-h and digits 1-8 in pairs, or passes, with separators only.
pub fn has_shape(text: &str) -> bool {
    let compact: String = text.chars().filter(|c| !is_separator(*c)).collect();
    !compact.is_empty() && read(&compact).is_ok()
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ',' || c == ';' || c == '.'
}

/// The written moves, in order.
pub fn read(text: &str) -> Result<Vec<Written>, TranscriptError> {
    let compact: Vec<char> = text.chars().filter(|c| !is_separator(*c)).collect();
    compact
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| {
            let word: String = pair.iter().collect();
            if word.eq_ignore_ascii_case("pa") || word == "--" {
                return Ok(Written::Pass);
            }
            Square::from_a1(&word)
                .map(Written::Square)
                .ok_or(TranscriptError::NotASquare {
                    number: i + 1,
                    text: word,
                })
        })
        .collect()
}

/// Plays a transcript from `start`, inserting the forced passes it leaves out.
pub fn play(start: Position, text: &str) -> Result<Game, TranscriptError> {
    let mut game = Game::new(start);
    for (i, written) in read(text)?.into_iter().enumerate() {
        play_one(&mut game, written, i + 1)?;
    }
    Ok(game)
}

/// Plays move `number` of a record onto `game`: a forced pass first when the record leaves it out.
pub fn play_one(game: &mut Game, written: Written, number: usize) -> Result<(), TranscriptError> {
    let position = game.position();
    let legal = |position: Position| {
        position
            .moves()
            .squares()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    match written {
        Written::Pass => game.pass().map_err(|_| TranscriptError::PassNotForced {
            number,
            side: position.to_move.name(),
            legal: legal(position),
        }),
        Written::Square(square) => {
            let name = square.to_string();
            if game.is_over() {
                return Err(TranscriptError::AfterTheEnd { number, square: name });
            }
            if position.moves().is_empty() {
                game.pass().expect("the side to move has no move and the game goes on");
            }
            let position = game.position();
            game.play(square, None).map_err(|_| TranscriptError::Illegal {
                number,
                square: name,
                side: position.to_move.name(),
                legal: legal(position),
            })?;
            Ok(())
        }
    }
}

/// A game's moves as a transcript: lower case, passes left out.
pub fn format(game: &Game) -> String {
    game.moves().map(|square| square.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Turn;

    #[test]
    fn transcripts_read_in_any_case_with_separators() {
        let game = play(Position::START, "F5 d6, c3d3 C4").unwrap();
        assert_eq!(format(&game), "f5d6c3d3c4");
        assert_eq!(game.turns().len(), 5);
    }

    /// A game in which white must pass: the transcript leaves the pass out, or writes it.
    #[test]
    fn forced_passes_are_implied_or_written() {
        // The shortest game: black wins after nine moves and no pass, so build one with a pass.
        let mut rng = crate::rng::SeededRng::new(5);
        let game = loop {
            let mut game = Game::new(Position::START);
            while !game.is_over() {
                let moves = game.position().moves();
                if moves.is_empty() {
                    game.pass().unwrap();
                } else {
                    game.play(rng.pick_square(moves), None).unwrap();
                }
            }
            if game.turns().iter().any(|t| matches!(t, Turn::Pass { .. })) {
                break game;
            }
        };
        let implied = play(Position::START, &format(&game)).unwrap();
        assert_eq!(
            implied.turns(),
            game.turns().iter().map(|t| strip(*t)).collect::<Vec<_>>()
        );
        let written: String = game
            .turns()
            .iter()
            .map(|t| match t {
                Turn::Move { square, .. } => square.to_string(),
                Turn::Pass { .. } => "pa".to_string(),
            })
            .collect();
        assert_eq!(play(Position::START, &written).unwrap().turns(), implied.turns());
    }

    fn strip(turn: Turn) -> Turn {
        match turn {
            Turn::Move {
                side, square, flipped, ..
            } => Turn::Move {
                side,
                square,
                flipped,
                stats: None,
            },
            pass => pass,
        }
    }

    #[test]
    fn bad_transcripts_name_the_move() {
        assert_eq!(
            play(Position::START, "f5d6x9").unwrap_err().to_string(),
            "\"x9\" at move 3 is not a square: a transcript is squares a1..h8 in order, such as f5d6c3"
        );
        assert_eq!(
            play(Position::START, "f5a1").unwrap_err().to_string(),
            "move 2, a1, is illegal: white can play f4 d6 f6"
        );
        assert_eq!(
            play(Position::START, "pa").unwrap_err().to_string(),
            "move 1 is a pass, but black has a legal move (d3 c4 f5 e6)"
        );
        assert!(has_shape("f5d6c3") && has_shape("F5 D6") && !has_shape("game.json") && !has_shape("f5d"));
    }
}

//! Logistello's `.gam` lines (its opening book's games): `+d3-c3+c4...: -04 10`, each move with
//! its colour (`+` black, `-` white; passes not written), then the final disc difference from
//! black's side and a number the collection does not document.
//!
//! ```
//! use othello_core::notation::gam;
//! let line = gam::parse("+f5-d6+c3-d3+c4: +02 7").unwrap();
//! assert_eq!((line.game.turns().len(), line.black_margin, line.extra), (5, 2, Some(7)));
//! ```

use crate::color::Color;
use crate::game::{Game, Status};
use crate::position::Position;
use crate::square::Square;

/// One line: its game from the start position, and what it says of the end.
#[derive(Clone, Debug)]
pub struct GamGame {
    pub game: Game,
    /// The final disc difference from black's side, as the line gives it.
    pub black_margin: i32,
    /// The number after it, if there is one.
    pub extra: Option<i64>,
}

/// What is wrong with a line, and where (the byte from 0 within the line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GamError {
    #[error("byte {byte}: {found:?} where a move (+d3 or -c3) or the ':' before the result belongs")]
    Shape { byte: usize, found: String },
    #[error("byte {byte}: {square} is not legal for {side} there")]
    Illegal {
        byte: usize,
        square: String,
        side: &'static str,
    },
    #[error("byte {byte}: a move for {said} where {side} is to move")]
    WrongSide {
        byte: usize,
        said: &'static str,
        side: &'static str,
    },
    #[error("byte {byte}: {found:?} where the result (a disc difference such as -04) belongs")]
    Result { byte: usize, found: String },
}

/// Reads one line.
pub fn parse(line: &str) -> Result<GamGame, GamError> {
    let bytes = line.as_bytes();
    let mut game = Game::new(Position::START);
    let mut at = 0;
    let shape = |at: usize| GamError::Shape {
        byte: at,
        found: line.get(at..(at + 3).min(line.len())).unwrap_or("").to_string(),
    };
    while at < bytes.len() && bytes[at] != b':' {
        let said = match bytes[at] {
            b'+' => Color::Black,
            b'-' => Color::White,
            _ => return Err(shape(at)),
        };
        let square = line
            .get(at + 1..at + 3)
            .and_then(Square::from_a1)
            .ok_or_else(|| shape(at))?;
        if let Status::MustPass(_) = game.status()
            && game.position().to_move != said
        {
            game.pass().expect("a pass the status asks for");
        }
        let side = game.position().to_move;
        if side != said {
            return Err(GamError::WrongSide {
                byte: at,
                said: said.name(),
                side: side.name(),
            });
        }
        game.play(square, None).map_err(|_| GamError::Illegal {
            byte: at + 1,
            square: String::from_utf8_lossy(&square.a1()).into_owned(),
            side: side.name(),
        })?;
        at += 3;
    }
    if at >= bytes.len() {
        return Err(GamError::Result {
            byte: at,
            found: String::new(),
        });
    }
    let rest = &line[at + 1..];
    let mut words = rest.split_whitespace();
    let result_at = at + 1 + rest.len() - rest.trim_start().len();
    let margin = words.next().unwrap_or("");
    let black_margin = margin
        .parse::<i32>()
        .ok()
        .filter(|m| m.abs() <= 64)
        .ok_or_else(|| GamError::Result {
            byte: result_at,
            found: margin.to_string(),
        })?;
    Ok(GamGame {
        game,
        black_margin,
        extra: words.next().and_then(|word| word.parse().ok()),
    })
}

/// A game as a `.gam` line, its result the final disc difference (empty squares to the winner).
pub fn format(game: &Game) -> String {
    let mut out = String::new();
    for turn in game.turns() {
        if let crate::game::Turn::Move { side, square, .. } = turn {
            out.push(if *side == Color::Black { '+' } else { '-' });
            out.push_str(std::str::from_utf8(&square.a1()).expect("a1 names are ASCII"));
        }
    }
    let margin = game.position().board.final_score() * if game.position().to_move == Color::Black { 1 } else { -1 };
    out.push_str(&format!(": {margin:+03}"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_read_back_as_written() {
        let line = parse("+f5-f6+e6-f4+g5-d6: -04 10").unwrap();
        assert_eq!(line.black_margin, -4);
        assert_eq!(line.extra, Some(10));
        let again = parse(&format(&line.game)).unwrap();
        assert_eq!(again.game.turns(), line.game.turns());
    }

    #[test]
    fn a_bad_line_names_the_byte() {
        assert_eq!(
            parse("+f5+d6: +00").unwrap_err(),
            GamError::WrongSide {
                byte: 3,
                said: "black",
                side: "white"
            }
        );
        assert_eq!(
            parse("+f5-a1: +00").unwrap_err(),
            GamError::Illegal {
                byte: 4,
                square: "a1".to_string(),
                side: "white"
            }
        );
        assert!(matches!(
            parse("+f5*d6: +00").unwrap_err(),
            GamError::Shape { byte: 3, .. }
        ));
        assert!(matches!(
            parse("+f5-d6: x").unwrap_err(),
            GamError::Result { byte: 8, .. }
        ));
        assert!(matches!(parse("+f5-d6").unwrap_err(), GamError::Result { byte: 6, .. }));
    }
}

//! JSON game logs (seed 003): who played, every move with its flips and a computer's statistics,
//! passes, the result; replayed against the rules (the command line writes them atomically, cli/output.rs).

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::game::{Forfeit, Game, MoveStats, Turn};
use crate::notation::condensed::{self, Entry};
use crate::notation::lab_board;
use crate::position::Position;
use crate::square::Square;
use crate::value::Value;

pub const FORMAT: &str = "othello-game-log";
pub const VERSION: u32 = 1;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct GameLog {
    pub format: String,
    pub version: u32,
    pub start_time: String,
    pub end_time: String,
    /// Who played black and white: `human` or a strategy name.
    pub black: String,
    pub white: String,
    /// The game's number within a match, when it was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<u32>,
    pub start: StartLog,
    pub moves: Vec<MoveLog>,
    /// The moves as the course writes a game (two characters a move, `-1` a pass, a failure's code
    /// last); checked by `replay` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    pub result: ResultLog,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct StartLog {
    /// The lab's 64-character board.
    pub board: String,
    pub to_move: Color,
}

/// One turn: a move (square in both notations, flipped squares, a computer's statistics) or a pass.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct MoveLog {
    pub side: Color,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pass: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub square: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flipped: Vec<u8>,
    /// The flipped squares by name (`"d4"`), as seed 003's log has them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flipped_names: Vec<String>,
    /// The board after the turn, in the lab's 64-character form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    /// A computer's value for the position after its move, from its side: the number, its kind
    /// (`exact`, `proven`, `estimate` or `score`), whether it is exact, the depth searched (for an
    /// exact value the empty squares solved) and the unit (`discs`, or a seed evaluation's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ResultLog {
    pub black: u32,
    pub white: u32,
    /// `black`, `white`, `draw`, or `unfinished` for a game stopped before its end.
    pub winner: String,
    /// A player that gave no usable move: the game stopped there and the other side won.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<ForfeitLog>,
}

/// Who forfeited, with the course's code (-2 time-out, -3 illegal move, -4 no move, -5 error).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ForfeitLog {
    pub side: Color,
    pub code: i32,
    pub reason: String,
}

/// A log that does not agree with the rules or with itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("not an {FORMAT} version {VERSION} log (format {0:?}, version {1})")]
    Format(String, u32),
    #[error("bad start board: {0}")]
    Start(String),
    #[error("turn {turn}: {message}")]
    Turn { turn: usize, message: String },
    #[error("result: {0}")]
    Result(String),
}

/// Whether a turn's logged board, when the log has one, is the board the moves give.
fn check_board(game: &Game, logged: &MoveLog) -> Result<(), String> {
    let actual = lab_board::format(game.position()).to_ascii_lowercase();
    match &logged.board {
        Some(board) if board.to_ascii_lowercase() != actual => {
            Err(format!("the board after it is {actual}, the log says {board}"))
        }
        _ => Ok(()),
    }
}

/// A game's condensed transcript, with a failure's code last.
pub fn transcript(turns: &[Turn], code: Option<u8>) -> String {
    let mut entries: Vec<Entry> = turns
        .iter()
        .map(|turn| match *turn {
            Turn::Move { square, .. } => Entry::Move(square),
            Turn::Pass { .. } => Entry::Pass,
        })
        .collect();
    entries.extend(code.map(Entry::Code));
    condensed::format(&entries)
}

/// The winner field for a position: who leads if the game is over.
fn verdict(game: &Game) -> String {
    if !game.is_over() {
        return "unfinished".to_string();
    }
    game.position()
        .leader()
        .map_or("draw".to_string(), |color| color.name().to_string())
}

impl GameLog {
    pub fn from_game(game: &Game, black: &str, white: &str, times: (SystemTime, SystemTime)) -> GameLog {
        let mut replayed = Game::new(game.start());
        let moves = game
            .turns()
            .iter()
            .map(|turn| {
                match *turn {
                    Turn::Pass { .. } => replayed.pass().expect("the game's own pass"),
                    Turn::Move { square, .. } => {
                        replayed.play(square, None).expect("the game's own move");
                    }
                }
                let board = Some(lab_board::format(replayed.position()).to_ascii_lowercase());
                match *turn {
                    Turn::Pass { side } => MoveLog {
                        side,
                        pass: true,
                        square: None,
                        name: None,
                        flipped: Vec::new(),
                        flipped_names: Vec::new(),
                        board,
                        value: None,
                        value_kind: None,
                        exact: None,
                        depth: None,
                        unit: None,
                        nodes: None,
                        ms: None,
                    },
                    Turn::Move {
                        side,
                        square,
                        flipped,
                        stats,
                    } => {
                        let value = stats.and_then(|s| s.value);
                        MoveLog {
                            side,
                            pass: false,
                            square: Some(square.index() as u8),
                            name: Some(square.to_string()),
                            flipped: flipped.squares().map(|s| s.index() as u8).collect(),
                            flipped_names: flipped.squares().map(|s| s.to_string()).collect(),
                            board,
                            value: value.map(Value::number),
                            value_kind: value.map(|v| v.kind().to_string()),
                            exact: value.map(Value::is_exact),
                            depth: value.and_then(Value::depth),
                            unit: value.map(|v| v.unit().to_string()),
                            nodes: stats.map(|s| s.nodes),
                            ms: stats.map(|s| (s.seconds * 1e6).round() / 1e3),
                        }
                    }
                }
            })
            .collect();
        let (black_count, white_count) = game.position().counts();
        GameLog {
            format: FORMAT.to_string(),
            version: VERSION,
            start_time: rfc3339(times.0),
            end_time: rfc3339(times.1),
            black: black.to_string(),
            white: white.to_string(),
            game: None,
            start: StartLog {
                board: lab_board::format(game.start()),
                to_move: game.start().to_move,
            },
            moves,
            transcript: Some(transcript(game.turns(), None)),
            result: ResultLog {
                black: black_count,
                white: white_count,
                winner: verdict(game),
                forfeit: None,
            },
        }
    }

    /// Marks the game as forfeited by a player that gave no usable move.
    pub fn record_forfeit(&mut self, forfeit: &Forfeit) {
        self.result.winner = (!forfeit.side).name().to_string();
        if let Some(text) = &mut self.transcript {
            text.push_str(&Entry::Code(forfeit.failed.failure.code().unsigned_abs() as u8).to_string());
        }
        self.result.forfeit = Some(ForfeitLog {
            side: forfeit.side,
            code: forfeit.failed.failure.code(),
            reason: forfeit.failed.describe(),
        });
    }

    /// Plays the log through the rules; every move, flip, pass and the result must agree.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        if self.format != FORMAT || self.version != VERSION {
            return Err(ReplayError::Format(self.format.clone(), self.version));
        }
        let (black, white) = lab_board::parse(&self.start.board).map_err(|e| ReplayError::Start(e.to_string()))?;
        if !(black & white).is_empty() {
            return Err(ReplayError::Start("a square holds both colours".into()));
        }
        let mut game = Game::new(Position::from_discs(black, white, self.start.to_move));
        for (i, logged) in self.moves.iter().enumerate() {
            let fail = |message: String| ReplayError::Turn { turn: i + 1, message };
            let to_move = game.position().to_move;
            if logged.side != to_move {
                return Err(fail(format!(
                    "the log has {} moving, but it is {to_move}'s turn",
                    logged.side
                )));
            }
            if logged.pass {
                game.pass()
                    .map_err(|_| fail(format!("{to_move} passes but has a legal move or the game is over")))?;
                check_board(&game, logged).map_err(fail)?;
                continue;
            }
            let index = logged.square.ok_or_else(|| fail("a move without a square".into()))?;
            let square = Square::new(index).ok_or_else(|| fail(format!("square {index} is off the board")))?;
            if let Some(name) = &logged.name
                && name.parse::<Square>().ok() != Some(square)
            {
                return Err(fail(format!("the name {name:?} is not square {index}")));
            }
            // A value reads back with its kind; one without (from an older log) is left out.
            let value = match (logged.value, &logged.value_kind) {
                (Some(number), Some(kind)) => Some(
                    Value::from_parts(number, kind, logged.unit.as_deref(), logged.depth)
                        .ok_or_else(|| fail(format!("the value {number} ({kind}) is not a value")))?,
                ),
                _ => None,
            };
            let stats = logged.nodes.map(|nodes| MoveStats {
                value,
                nodes,
                seconds: logged.ms.unwrap_or(0.0) / 1e3,
            });
            let flipped = game
                .play(square, stats)
                .map_err(|why| fail(format!("{index} ({square}) is illegal for {to_move}: {why}")))?;
            let logged_flips: Bitboard = logged.flipped.iter().filter_map(|&s| Square::new(s)).collect();
            if logged_flips != flipped || logged_flips.count() as usize != logged.flipped.len() {
                let actual: Vec<usize> = flipped.squares().map(Square::index).collect();
                return Err(fail(format!(
                    "{square} flips {actual:?}, the log says {:?}",
                    logged.flipped
                )));
            }
            let names: Vec<String> = flipped.squares().map(|s| s.to_string()).collect();
            if !logged.flipped_names.is_empty() && logged.flipped_names != names {
                return Err(fail(format!(
                    "{square} flips {names:?}, the log names {:?}",
                    logged.flipped_names
                )));
            }
            check_board(&game, logged).map_err(fail)?;
        }
        let (black_count, white_count) = game.position().counts();
        if (black_count, white_count) != (self.result.black, self.result.white) {
            return Err(ReplayError::Result(format!(
                "the log says black {}, white {}, the moves give black {black_count}, white {white_count}",
                self.result.black, self.result.white
            )));
        }
        if let Some(text) = &self.transcript {
            let code = self.result.forfeit.as_ref().map(|f| f.code.unsigned_abs() as u8);
            let expected = transcript(game.turns(), code);
            if *text != expected {
                return Err(ReplayError::Result(format!(
                    "the transcript {text:?} is not the moves', {expected:?}"
                )));
            }
        }
        let expected = match &self.result.forfeit {
            Some(forfeit) if game.is_over() || game.position().to_move != forfeit.side => {
                return Err(ReplayError::Result(format!(
                    "the log says {} forfeited, but it was not {}'s turn to move",
                    forfeit.side, forfeit.side
                )));
            }
            Some(forfeit) => (!forfeit.side).name().to_string(),
            None => verdict(&game),
        };
        if self.result.winner != expected {
            return Err(ReplayError::Result(format!(
                "the log says {:?}, the moves give {expected:?}",
                self.result.winner
            )));
        }
        Ok(game)
    }
}

/// A UTC timestamp such as `2026-11-22T12:55:03.123Z` (a clock set before 1970 gives the epoch).
pub fn rfc3339(time: SystemTime) -> String {
    humantime::format_rfc3339_millis(time.max(UNIX_EPOCH)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let day = UNIX_EPOCH + Duration::from_millis(1_795_352_103_250);
        assert_eq!(rfc3339(day), "2026-11-22T12:55:03.250Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(rfc3339(UNIX_EPOCH - Duration::from_secs(1)), "1970-01-01T00:00:00.000Z");
    }
}

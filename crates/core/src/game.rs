//! `Game`: a position plus its history of moves and passes, with undo, and the loop that lets two
//! strategies play one to the end.

use std::time::Instant;

use crate::bitboard::Bitboard;
use crate::board::IllegalMove;
use crate::color::Color;
use crate::player::{Failed, Strategy};
use crate::position::Position;
use crate::square::Square;

/// What a computer reported about one of its moves.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct MoveStats {
    pub value: Option<crate::value::Value>,
    pub nodes: u64,
    pub seconds: f64,
}

/// One turn of a game.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Turn {
    Move {
        side: Color,
        square: Square,
        flipped: Bitboard,
        stats: Option<MoveStats>,
    },
    /// A forced pass: the side had no legal move and the other side had one.
    Pass { side: Color },
}

impl Turn {
    pub fn side(&self) -> Color {
        match *self {
            Turn::Move { side, .. } | Turn::Pass { side } => side,
        }
    }
}

/// Where a game stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    ToMove(Color),
    MustPass(Color),
    Over,
}

#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    turns: Vec<Turn>,
}

/// A player that gave no usable move: the game stops there, lost by that side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    pub side: Color,
    pub failed: Failed,
}

/// Why a pass was refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
#[error("a pass is only allowed when the side to move has no legal move and the game is not over")]
pub struct PassNotForced;

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            start,
            position: start,
            turns: Vec::new(),
        }
    }

    pub fn start(&self) -> Position {
        self.start
    }

    /// The current position; its side to move is the side whose turn it is (it may have to pass).
    pub fn position(&self) -> Position {
        self.position
    }

    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The squares played, in order, passes left out.
    pub fn moves(&self) -> impl Iterator<Item = Square> + '_ {
        self.turns.iter().filter_map(|turn| match turn {
            Turn::Move { square, .. } => Some(*square),
            Turn::Pass { .. } => None,
        })
    }

    pub fn status(&self) -> Status {
        let board = self.position.board;
        if !board.moves().is_empty() {
            Status::ToMove(self.position.to_move)
        } else if !board.opponent_moves().is_empty() {
            Status::MustPass(self.position.to_move)
        } else {
            Status::Over
        }
    }

    pub fn is_over(&self) -> bool {
        self.status() == Status::Over
    }

    /// Plays a move for the side to move.
    pub fn play(&mut self, square: Square, stats: Option<MoveStats>) -> Result<Bitboard, IllegalMove> {
        let flipped = self.position.board.flips(square);
        let side = self.position.to_move;
        self.position = self.position.try_play(square)?;
        self.turns.push(Turn::Move {
            side,
            square,
            flipped,
            stats,
        });
        Ok(flipped)
    }

    /// Passes for the side to move, which must have no legal move.
    pub fn pass(&mut self) -> Result<(), PassNotForced> {
        if self.status() != Status::MustPass(self.position.to_move) {
            return Err(PassNotForced);
        }
        self.turns.push(Turn::Pass {
            side: self.position.to_move,
        });
        self.position = self.position.pass();
        Ok(())
    }

    /// Takes back the last turn.
    pub fn undo(&mut self) -> Option<Turn> {
        let turn = self.turns.pop()?;
        self.position = match turn {
            // The flips are known, so the earlier position is rebuilt without replaying the game.
            Turn::Move {
                side, square, flipped, ..
            } => {
                let mover = self.position.discs(side) ^ flipped ^ square.bitboard();
                let other = self.position.discs(!side) | flipped;
                let (black, white) = if side == Color::Black {
                    (mover, other)
                } else {
                    (other, mover)
                };
                Position::from_discs(black, white, side)
            }
            Turn::Pass { side } => self.position.with_to_move(side),
        };
        Some(turn)
    }

    /// Lets the side to move's strategy move, or passes when it must; false once the game is over.
    pub fn step(&mut self, players: &mut [&mut dyn Strategy; 2]) -> Result<bool, Forfeit> {
        match self.status() {
            Status::Over => Ok(false),
            Status::MustPass(_) => {
                self.pass().expect("the status says the pass is forced");
                Ok(true)
            }
            Status::ToMove(side) => {
                let clock = Instant::now();
                let decision = players[side.index()]
                    .choose(self.position)
                    .map_err(|failed| Forfeit { side, failed })?;
                let seconds = decision.time.unwrap_or_else(|| clock.elapsed()).as_secs_f64();
                let stats = MoveStats {
                    value: decision.value,
                    nodes: decision.nodes,
                    seconds,
                };
                // A strategy that returned an illegal move is a bug in it, not a rule to bend (programs'
                // moves are checked before they get here).
                self.play(decision.square, Some(stats))
                    .expect("strategies return legal moves");
                Ok(true)
            }
        }
    }

    /// Plays on to the end of the game, `players[0]` for black and `players[1]` for white, or until a
    /// player fails.
    pub fn play_out(&mut self, players: &mut [&mut dyn Strategy; 2]) -> Result<(), Forfeit> {
        while self.step(players)? {}
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::RandomStrategy;
    use crate::rng::SeededRng;

    #[test]
    fn undo_restores_every_earlier_position() {
        let (mut black, mut white) = (RandomStrategy(SeededRng::new(1)), RandomStrategy(SeededRng::new(2)));
        let mut game = Game::new(Position::START);
        let mut history = vec![game.position()];
        while game.step(&mut [&mut black, &mut white]).unwrap() {
            history.push(game.position());
        }
        assert!(game.is_over());
        while game.undo().is_some() {
            history.pop();
            assert_eq!(Some(&game.position()), history.last());
        }
        assert_eq!(game.position(), Position::START);
    }

    #[test]
    fn a_pass_is_refused_when_a_move_exists() {
        assert_eq!(Game::new(Position::START).pass(), Err(PassNotForced));
    }
}

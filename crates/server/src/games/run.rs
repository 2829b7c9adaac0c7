//! Playing a game on a thread of its own: a game of programs waits in line for a core and holds it
//! to its end; a person's game runs at once, the computer's moves on a core if one is free.
//! Every move goes to the watchers and the database; a failure is a forfeit with its reason.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use othello_core::color::Color;
use othello_core::game::{Forfeit, Game, Status};
use othello_core::log::GameLog;
use othello_core::player::{Decision, Failed, Failure, Strategy};
use othello_core::position::Position;
use othello_core::square::Square;
use othello_engine::settings::EngineSettings;

use super::live::{Live, LiveGame};
use super::seat::Seat;
use crate::cores::Cores;
use crate::db;
use crate::error::ServerError;

/// A person's time for a move; then the game is theirs lost on time.
pub(crate) const PERSON_MOVE: Duration = Duration::from_secs(600);

/// What a game's thread needs of the server.
pub(crate) struct Runner {
    pub(crate) db: Arc<Mutex<rusqlite::Connection>>,
    pub(crate) data: PathBuf,
    pub(crate) cores: Arc<Cores>,
    pub(crate) live: Live,
    pub(crate) settings: EngineSettings,
}

impl Runner {
    fn with_db<T>(&self, work: impl FnOnce(&rusqlite::Connection) -> Result<T, ServerError>) -> Result<T, ServerError> {
        work(&self.db.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Starts `game`'s thread.
    pub(crate) fn start(self: &Arc<Runner>, game: Arc<LiveGame>) -> Result<(), ServerError> {
        self.live.add(Arc::clone(&game));
        let runner = Arc::clone(self);
        std::thread::Builder::new()
            .name(format!("game {}", game.id))
            .spawn(move || runner.run(&game))
            .map(drop)
            .map_err(|e| ServerError::Io(format!("cannot start a game's thread: {e}")))
    }

    fn run(&self, game: &Arc<LiveGame>) {
        let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.play(game)));
        if let Err(why) = played
            .map_err(|_| "a panic".to_string())
            .and_then(|r| r.map_err(|e| e.to_string()))
        {
            eprintln!("game {}: stopped by {why}; marked interrupted", game.id);
            let _ = self.with_db(|connection| db::game_interrupted(connection, game.id));
            game.ended("interrupted", None);
        }
        self.live.remove(game.id);
    }

    fn play(&self, live: &Arc<LiveGame>) -> Result<(), ServerError> {
        let people = live.seats.iter().any(|seat| seat.person().is_some());
        // Programs against programs: one core for the whole game, both sides pinned to it.
        let core = (!people).then(|| self.cores.take());
        self.with_db(|connection| db::game_started(connection, live.id))?;
        live.started();
        let started = SystemTime::now();
        let mut players: Vec<Box<dyn Strategy>> = Vec::new();
        for (k, seat) in live.seats.iter().enumerate() {
            let side = if k == 0 { Color::Black } else { Color::White };
            players.push(self.player(live, seat, side, people)?);
        }
        let mut game = Game::new(Position::START);
        let forfeit = loop {
            let [black, white] = players.as_mut_slice() else {
                unreachable!("two players")
            };
            match game.step(&mut [black.as_mut(), white.as_mut()]) {
                // A forced pass follows at once: watchers see the move and the pass together.
                Ok(true) if matches!(game.status(), Status::MustPass(_)) => {}
                Ok(true) => {
                    live.moved(&game);
                    let moves = othello_core::notation::transcript::format(&game);
                    self.with_db(|connection| db::game_moved(connection, live.id, &moves))?;
                }
                Ok(false) => break None,
                Err(forfeit) => break Some(forfeit),
            }
        };
        drop(core);
        let names = [live.seats[0].name(), live.seats[1].name()];
        let mut log = GameLog::from_game(&game, &names[0], &names[1], (started, SystemTime::now()));
        if let Some(forfeit) = &forfeit {
            log.record_forfeit(forfeit);
            // Everyone sees the result; the program's stderr is its owner's and the teacher's.
            if let Some(logged) = &mut log.result.forfeit {
                logged.reason = format!("{} (code {})", forfeit.failed.failure, forfeit.failed.failure.code());
            }
        }
        let stderr = [players[0].stderr_tail(), players[1].stderr_tail()];
        let forfeit_tail = |side: Color| {
            forfeit
                .as_ref()
                .filter(|f: &&Forfeit| f.side == side)
                .map(|f| f.failed.stderr_tail.clone())
        };
        let tails = [Color::Black, Color::White].map(|side| {
            let tail = forfeit_tail(side).unwrap_or_else(|| stderr[side.index()].clone());
            (live.seats[side.index()].program().is_some()).then(|| tail.join("\n"))
        });
        self.with_db(|connection| db::game_finished(connection, live.id, &log, &tails))?;
        live.ended("finished", Some((&log.result).into()));
        Ok(())
    }

    fn player(
        &self,
        live: &Arc<LiveGame>,
        seat: &Seat,
        side: Color,
        people: bool,
    ) -> Result<Box<dyn Strategy>, ServerError> {
        let seed = (live.id as u64) << 1 | side.index() as u64;
        let computer = match seat {
            Seat::Person { .. } => {
                let inbox = live
                    .take_inbox()
                    .ok_or_else(|| ServerError::Io(format!("game {}: its person's moves have no way in", live.id)))?;
                return Ok(Box::new(Person { inbox }));
            }
            Seat::Program { id, form, .. } => crate::programs::player(&self.data, *id, *form),
            Seat::Engine { .. } | Seat::Builtin(_) => seat.spec().expect("a computer's seat has a spec"),
        }
        .build(seed, &self.settings);
        Ok(if people {
            Box::new(OnCore {
                inner: computer,
                cores: Arc::clone(&self.cores),
            })
        } else {
            computer
        })
    }
}

/// A person at the board: their moves come through the API.
struct Person {
    inbox: Receiver<Square>,
}

impl Strategy for Person {
    fn choose(&mut self, _: Position) -> Result<Decision, Failed> {
        let clock = std::time::Instant::now();
        let square = self.inbox.recv_timeout(PERSON_MOVE).map_err(|why| match why {
            RecvTimeoutError::Timeout => Failed::from(Failure::TimedOut),
            RecvTimeoutError::Disconnected => Failed::from(Failure::NoMove),
        })?;
        Ok(Decision {
            square,
            value: None,
            nodes: 0,
            time: Some(clock.elapsed()),
        })
    }
}

/// A computer in a person's game: each move on a core free at that moment, or unpinned (a person
/// does not wait behind the games of programs).
struct OnCore {
    inner: Box<dyn Strategy>,
    cores: Arc<Cores>,
}

impl Strategy for OnCore {
    fn choose(&mut self, position: Position) -> Result<Decision, Failed> {
        let _core = self.cores.try_take();
        self.inner.choose(position)
    }

    fn stderr_tail(&mut self) -> Vec<String> {
        self.inner.stderr_tail()
    }
}

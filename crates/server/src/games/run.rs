//! Playing games, each on a thread of its own. Games of programs wait in the database's queue (a
//! restart finds them there): the dispatcher takes a core, claims the oldest, and its thread holds
//! the core to the game's end; a person's game runs at once, the computer's moves on a core if one
//! is free. Every move goes to the watchers and the database; a failure is a forfeit with its reason.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use othello_core::color::Color;
use othello_core::game::{Forfeit, Status};
use othello_core::log::GameLog;
use othello_core::player::{Decision, Failed, Failure, Strategy};
use othello_core::position::Position;
use othello_core::square::Square;
use othello_engine::settings::EngineSettings;

use super::live::{Live, LiveGame};
use super::seat::Seat;
use crate::cores::{Core, Cores};
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
    /// Rung when games join the queue.
    pub(crate) bell: (Mutex<u64>, std::sync::Condvar),
}

impl Runner {
    fn with_db<T>(&self, work: impl FnOnce(&rusqlite::Connection) -> Result<T, ServerError>) -> Result<T, ServerError> {
        work(&self.db.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Starts a person's game at once.
    pub(crate) fn start_now(self: &Arc<Runner>, game: Arc<LiveGame>) -> Result<(), ServerError> {
        self.live.add(Arc::clone(&game));
        self.spawn(game, None)
    }

    fn spawn(self: &Arc<Runner>, game: Arc<LiveGame>, core: Option<Core>) -> Result<(), ServerError> {
        let runner = Arc::clone(self);
        std::thread::Builder::new()
            .name(format!("game {}", game.id))
            .spawn(move || runner.run(&game, core))
            .map(drop)
            .map_err(|e| ServerError::Io(format!("cannot start a game's thread: {e}")))
    }

    /// Tells the dispatcher that games joined the queue.
    pub(crate) fn ring(&self) {
        let (count, bell) = &self.bell;
        *count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        bell.notify_all();
    }

    /// The dispatcher: for each free core, the oldest queued game of programs, claimed and started.
    pub(crate) fn dispatch(self: &Arc<Runner>) {
        loop {
            let core = self.cores.take();
            let live = loop {
                let rung = *self.bell.0.lock().unwrap_or_else(PoisonError::into_inner);
                // Claimed and put in memory under the database's lock: whoever reads it running
                // finds it here (a watcher, say, who came before it started shares it).
                let claimed = self.with_db(|connection| {
                    let Some(id) = db::claim_next(connection)? else {
                        return Ok(None);
                    };
                    let made = super::stored_live(connection, id)?;
                    Ok(Some(self.live.get_or_add(id, || made)))
                });
                match claimed {
                    Ok(Some(found)) => break found,
                    Ok(None) => {}
                    Err(error) => eprintln!("the queue: {error}"),
                }
                // Nothing queued: wait for the bell (or a while, whatever happens).
                let (count, bell) = &self.bell;
                let guard = count.lock().unwrap_or_else(PoisonError::into_inner);
                if *guard == rung {
                    let _ = bell.wait_timeout(guard, Duration::from_secs(1));
                }
            };
            let id = live.id;
            if let Err(error) = self.spawn(live, Some(core)) {
                eprintln!("game {id}: {error}");
            }
        }
    }

    fn run(&self, game: &Arc<LiveGame>, core: Option<Core>) {
        let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.play(game, core)));
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

    /// Plays the game; a game of programs holds `core` (its thread pinned to it) to its end.
    fn play(&self, live: &Arc<LiveGame>, core: Option<Core>) -> Result<(), ServerError> {
        let people = live.seats.iter().any(|seat| seat.person().is_some());
        if people {
            self.with_db(|connection| db::game_started(connection, live.id))?;
        }
        live.started();
        let started = SystemTime::now();
        let mut players: Vec<Box<dyn Strategy>> = Vec::new();
        for (k, seat) in live.seats.iter().enumerate() {
            let side = if k == 0 { Color::Black } else { Color::White };
            players.push(self.player(live, seat, side, people)?);
        }
        let mut game = live
            .setup
            .start()
            .map_err(|why| ServerError::Db(format!("game {}: {why}", live.id)))?;
        let forfeit = loop {
            let [black, white] = players.as_mut_slice() else {
                unreachable!("two players")
            };
            match game.step(&mut [black.as_mut(), white.as_mut()]) {
                // A forced pass follows at once: watchers see the move and the pass together.
                Ok(true) if matches!(game.status(), Status::MustPass(_)) => {}
                Ok(true) => {
                    // Kept before it is shown: what a watcher saw survives a stop.
                    let moves = othello_core::notation::transcript::format(&game);
                    self.with_db(|connection| db::game_moved(connection, live.id, &moves))?;
                    live.moved(&game);
                }
                Ok(false) => break None,
                Err(forfeit) => break Some(forfeit),
            }
        };
        drop(core);
        let names = [live.seats[0].name(), live.seats[1].name()];
        let mut log = GameLog::from_game(&game, &names[0], &names[1], (started, SystemTime::now()));
        let mut result = None;
        if let Some(forfeit) = &forfeit {
            log.record_forfeit(forfeit);
            // Everyone sees the result; the program's stderr is its owner's and the teacher's.
            if let Some(logged) = &mut log.result.forfeit {
                logged.reason = format!("{} (code {})", forfeit.failed.failure, forfeit.failed.failure.code());
            }
            let mut view = super::live::ResultView::from(&log.result);
            if let Some(view) = &mut view.forfeit {
                view.server_code = Some(forfeit.failed.failure.server_code());
            }
            result = Some(view);
        }
        let result = result.unwrap_or_else(|| (&log.result).into());
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
        self.with_db(|connection| {
            db::game_finished(connection, live.id, &log, &result, &tails)?;
            // A Swiss round that ends pairs the next; a ladder pair that ends makes room for another.
            crate::tournaments::after_game(connection, live.id)?;
            crate::ladder::after_game(connection, live.id, self.cores.places())
        })?;
        live.ended("finished", Some(result));
        self.ring();
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
            Seat::Program { id, form, .. } => crate::programs::player(&self.data, *id, *form, live.setup.tournament),
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

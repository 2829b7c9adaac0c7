//! Games in progress, in memory: each one's board, moves and clocks as the API shows them, the
//! channel its watchers hear every move on, and the door a person's move comes in by.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use othello_core::color::Color;
use othello_core::game::{Game, Turn};
use othello_core::log::{ResultLog, rfc3339};
use othello_core::notation::lab_board;
use othello_core::square::Square;
use schemars::JsonSchema;
use serde::Serialize;
use tokio::sync::broadcast;

use super::seat::Seat;
use crate::error::ApiError;

/// A game as `GET /api/games/ID` and every event show it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub(crate) struct GameView {
    pub(crate) id: i64,
    pub(crate) black: SideView,
    pub(crate) white: SideView,
    /// `queued`, `running`, `finished` or `interrupted`.
    pub(crate) status: &'static str,
    pub(crate) created: String,
    pub(crate) started: Option<String>,
    pub(crate) ended: Option<String>,
    /// The board now: 64 characters of `x` (black), `o` (white) and `.`, a1 to h8 row by row.
    pub(crate) board: String,
    /// Who moves now (`black` or `white`); none once the game is over or stopped.
    pub(crate) to_move: Option<&'static str>,
    /// The side to move's legal squares.
    pub(crate) legal: Vec<String>,
    pub(crate) moves: Vec<MoveView>,
    pub(crate) clocks: Clocks,
    /// None until the game ends: then the discs, the winner and any forfeit with its reason.
    pub(crate) result: Option<ResultView>,
}

/// A finished game's result.
#[derive(Clone, Debug, Serialize, serde::Deserialize, JsonSchema)]
pub(crate) struct ResultView {
    /// Discs on the board at the end.
    pub(crate) black: u32,
    pub(crate) white: u32,
    /// `black`, `white` or `draw` (a forfeit is the other side's win).
    pub(crate) winner: String,
    pub(crate) forfeit: Option<ForfeitView>,
}

/// A side that gave no usable move: a crash, a time-out, an illegal move, nothing printed.
#[derive(Clone, Debug, Serialize, serde::Deserialize, JsonSchema)]
pub(crate) struct ForfeitView {
    pub(crate) side: String,
    /// The course's code: -2 time-out, -3 illegal move, -4 no move, -5 error.
    pub(crate) code: i32,
    /// The code the course's tournament server records for it (-2, -3 or -4).
    #[serde(default)]
    pub(crate) server_code: Option<i32>,
    pub(crate) reason: String,
}

impl ResultView {
    /// Black's points: 1 a win, 1/2 a tie, 0 a loss (a forfeit is the other side's win).
    pub(crate) fn black_points(&self) -> f64 {
        match self.winner.as_str() {
            "black" => 1.0,
            "white" => 0.0,
            _ => 0.5,
        }
    }
}

impl From<&ResultLog> for ResultView {
    fn from(result: &ResultLog) -> ResultView {
        ResultView {
            black: result.black,
            white: result.white,
            winner: result.winner.clone(),
            forfeit: result.forfeit.as_ref().map(|forfeit| ForfeitView {
                side: forfeit.side.name().to_string(),
                code: forfeit.code,
                server_code: None,
                reason: forfeit.reason.clone(),
            }),
        }
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub(crate) struct SideView {
    pub(crate) name: String,
    /// `person:ID`, `program:ID`, `engine:LEVEL` or a strategy's name.
    pub(crate) seat: String,
    /// Its time a move, as the rules give it (none for a built-in player).
    pub(crate) clock: Option<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub(crate) struct MoveView {
    pub(crate) ply: usize,
    /// `black` or `white`.
    pub(crate) side: &'static str,
    /// The square, or none for a pass.
    pub(crate) square: Option<String>,
    /// The move's time by the player's clock (a program's CPU time), when known.
    pub(crate) seconds: Option<f64>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub(crate) struct Clocks {
    /// Seconds each side's moves took in all.
    pub(crate) black: f64,
    pub(crate) white: f64,
    /// When the side to move began (milliseconds since 1970), while a game runs.
    pub(crate) thinking_since: Option<u64>,
    /// When this view was made (milliseconds since 1970): a watcher's latency is its arrival less this.
    pub(crate) at: u64,
}

pub(crate) fn millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// What is known of a game besides its moves.
#[derive(Clone, Debug)]
pub(crate) struct Meta {
    pub(crate) id: i64,
    pub(crate) black: SideView,
    pub(crate) white: SideView,
    pub(crate) created: String,
    pub(crate) started: Option<String>,
    pub(crate) ended: Option<String>,
}

/// The view of `game` as it stands.
pub(crate) fn view(
    meta: &Meta,
    status: &'static str,
    game: &Game,
    thinking_since: Option<SystemTime>,
    result: Option<ResultView>,
) -> GameView {
    let position = game.position();
    // The side to move, while the game runs (a forced pass is made at once: nobody's turn).
    let to_move = match game.status() {
        othello_core::game::Status::ToMove(side) if status == "running" => Some(side),
        _ => None,
    };
    let playing = to_move.is_some();
    let (mut black, mut white) = (0.0, 0.0);
    let moves = game
        .turns()
        .iter()
        .enumerate()
        .map(|(k, turn)| {
            let (square, seconds) = match *turn {
                // To the microsecond, as the game's log keeps it: a game shows the same live and kept.
                Turn::Move { square, stats, .. } => {
                    (Some(square.to_string()), stats.map(|s| (s.seconds * 1e6).round() / 1e6))
                }
                Turn::Pass { .. } => (None, None),
            };
            match turn.side() {
                Color::Black => black += seconds.unwrap_or(0.0),
                Color::White => white += seconds.unwrap_or(0.0),
            }
            MoveView {
                ply: k + 1,
                side: turn.side().name(),
                square,
                seconds,
            }
        })
        .collect();
    GameView {
        id: meta.id,
        black: meta.black.clone(),
        white: meta.white.clone(),
        status,
        created: meta.created.clone(),
        started: meta.started.clone(),
        ended: meta.ended.clone(),
        board: lab_board::format(position).to_ascii_lowercase(),
        to_move: to_move.map(Color::name),
        legal: if playing {
            position.moves().squares().map(|s| s.to_string()).collect()
        } else {
            Vec::new()
        },
        moves,
        clocks: Clocks {
            black: (black * 1e3).round() / 1e3,
            white: (white * 1e3).round() / 1e3,
            thinking_since: thinking_since.filter(|_| playing).map(millis),
            at: millis(SystemTime::now()),
        },
        result,
    }
}

/// One event of a game's stream: its kind (`state` first, `move`, then `end`) and its view as JSON,
/// made once for every watcher.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub(crate) kind: &'static str,
    pub(crate) data: Arc<str>,
}

/// How a game is set up besides its players.
#[derive(Clone, Debug, Default)]
pub(crate) struct Setup {
    /// The moves it starts with, as the course writes a game (a tournament's balanced opening).
    pub(crate) opening: String,
    /// A tournament's game: programs play on the tournament's clock (1 s a move, time carried over).
    pub(crate) tournament: bool,
}

impl Setup {
    /// The game it starts from.
    pub(crate) fn start(&self) -> Result<Game, String> {
        othello_core::notation::transcript::play(othello_core::position::Position::START, &self.opening)
            .map_err(|e| format!("its opening {:?}: {e}", self.opening))
    }
}

/// A game in progress.
pub(crate) struct LiveGame {
    pub(crate) id: i64,
    pub(crate) seats: [Seat; 2],
    pub(crate) setup: Setup,
    state: Mutex<State>,
    events: broadcast::Sender<Event>,
    inbox: Mutex<Option<Receiver<Square>>>,
}

struct State {
    meta: Meta,
    status: &'static str,
    game: Game,
    thinking_since: Option<SystemTime>,
    result: Option<ResultView>,
    /// Where a person's move goes, in a game with a person.
    door: Option<SyncSender<Square>>,
    /// A person's move was taken and is not yet played.
    pending: bool,
}

/// Events a watcher may fall behind by before it is sent the whole game again (more than a game's
/// turns: only a watcher that stopped reading falls so far).
const EVENTS_KEPT: usize = 128;

impl LiveGame {
    pub(crate) fn new(meta: Meta, seats: [Seat; 2], status: &'static str, setup: Setup) -> Arc<LiveGame> {
        let game = setup
            .start()
            .unwrap_or_else(|_| Game::new(othello_core::position::Position::START));
        let (door, inbox) = if seats.iter().any(|seat| seat.person().is_some()) {
            let (door, inbox) = sync_channel(1);
            (Some(door), Some(inbox))
        } else {
            (None, None)
        };
        Arc::new(LiveGame {
            id: meta.id,
            seats,
            setup,
            state: Mutex::new(State {
                meta,
                status,
                game,
                thinking_since: None,
                result: None,
                door,
                pending: false,
            }),
            events: broadcast::channel(EVENTS_KEPT).0,
            inbox: Mutex::new(inbox),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn view(&self) -> GameView {
        let state = self.state();
        view(
            &state.meta,
            state.status,
            &state.game,
            state.thinking_since,
            state.result.clone(),
        )
    }

    fn publish(&self, kind: &'static str, state: &State) {
        let view = view(
            &state.meta,
            state.status,
            &state.game,
            state.thinking_since,
            state.result.clone(),
        );
        let data: Arc<str> = serde_json::to_string(&view).expect("a view serializes").into();
        // No watcher is not a failure.
        let _ = self.events.send(Event { kind, data });
    }

    /// The game as it stands (a `state` event) and a receiver of what happens next.
    pub(crate) fn watch(&self) -> (Event, broadcast::Receiver<Event>) {
        // Subscribed under the lock: no move falls between the snapshot and the stream.
        let state = self.state();
        let receiver = self.events.subscribe();
        let data = serde_json::to_string(&view(
            &state.meta,
            state.status,
            &state.game,
            state.thinking_since,
            state.result.clone(),
        ))
        .expect("a view serializes");
        // A game that has ended has nothing more to say: its watcher hears the end at once.
        let kind = match state.status {
            "queued" | "running" => "state",
            _ => "end",
        };
        (
            Event {
                kind,
                data: data.into(),
            },
            receiver,
        )
    }

    pub(crate) fn started(&self) {
        let mut state = self.state();
        let now = SystemTime::now();
        state.status = "running";
        state.meta.started = Some(rfc3339(now));
        state.thinking_since = Some(now);
        self.publish("state", &state);
    }

    pub(crate) fn moved(&self, game: &Game) {
        let mut state = self.state();
        state.game = game.clone();
        state.pending = false;
        state.thinking_since = Some(SystemTime::now());
        self.publish("move", &state);
    }

    pub(crate) fn ended(&self, status: &'static str, result: Option<ResultView>) {
        let mut state = self.state();
        state.status = status;
        state.meta.ended = Some(rfc3339(SystemTime::now()));
        state.result = result;
        state.door = None;
        self.publish("end", &state);
    }

    /// Where the person's moves come out, for the game's thread (once).
    pub(crate) fn take_inbox(&self) -> Option<Receiver<Square>> {
        self.inbox.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// A person's move, if it is theirs to make and legal: it goes to the game's thread, and
    /// until the thread has played it no other is taken. The receiver hears it played.
    pub(crate) fn person_moves(&self, user: i64, square: Square) -> Result<broadcast::Receiver<Event>, ApiError> {
        let mut state = self.state();
        let sides: Vec<Color> = [Color::Black, Color::White]
            .into_iter()
            .filter(|side| self.seats[side.index()].person() == Some(user))
            .collect();
        if sides.is_empty() {
            return Err(ApiError::forbidden(format!("game {} is not yours to play", self.id)));
        }
        let not_now = || {
            ApiError(
                axum::http::StatusCode::CONFLICT,
                format!("it is not your move in game {}", self.id),
            )
        };
        let turn = match state.game.status() {
            othello_core::game::Status::ToMove(side) if state.status == "running" => side,
            _ => return Err(not_now()),
        };
        if state.pending || !sides.contains(&turn) {
            return Err(not_now());
        }
        let position = state.game.position();
        if !position.moves().contains(square) {
            return Err(ApiError::bad_request(format!(
                "{square} is not a legal move here: expected one of {}",
                position
                    .moves()
                    .squares()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let door = state.door.as_ref().ok_or_else(not_now)?;
        door.try_send(square).map_err(|_| not_now())?;
        state.pending = true;
        // Heard from before the move is played: its event cannot be missed.
        Ok(self.events.subscribe())
    }
}

/// Every game in progress, by id.
#[derive(Default)]
pub(crate) struct Live {
    games: Mutex<HashMap<i64, Arc<LiveGame>>>,
}

impl Live {
    fn games(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Arc<LiveGame>>> {
        self.games.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn add(&self, game: Arc<LiveGame>) {
        self.games().insert(game.id, game);
    }

    pub(crate) fn get(&self, id: i64) -> Option<Arc<LiveGame>> {
        self.games().get(&id).cloned()
    }

    /// The game by id, made by `make` if it is not here yet.
    pub(crate) fn get_or_add(&self, id: i64, make: impl FnOnce() -> Arc<LiveGame>) -> Arc<LiveGame> {
        Arc::clone(self.games().entry(id).or_insert_with(make))
    }

    pub(crate) fn remove(&self, id: i64) {
        self.games().remove(&id);
    }
}

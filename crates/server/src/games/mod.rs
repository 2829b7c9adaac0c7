//! Games over the API: asking for one (a person against a computer, or a scrimmage of two
//! computers), a person's moves, a game as it stands, its live events, and a finished game's
//! record (JSON log, GGF, and the programs' stderr for their owners and the teacher).

pub(crate) mod live;
pub(crate) mod run;
pub(crate) mod seat;

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use othello_core::game::Game;
use othello_core::log::GameLog;
use othello_core::position::Position;
use othello_core::square::Square;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::auth::SignedIn;
use crate::db::{self, GameRow, Role};
use crate::error::{ApiError, ServerError, Valid};
use live::{GameView, LiveGame, Meta, SideView};
use seat::Seat;

/// Games one account may have queued or running at once.
pub(crate) const MAX_UNFINISHED: usize = 4;
/// Games people asked for, queued or running on the whole server (a tournament's and a check's
/// are the teacher's and not counted): beyond, new ones wait to be asked again.
pub(crate) const MAX_LIVE: usize = 256;
/// Games a list shows.
const LISTED: usize = 100;

#[derive(Deserialize)]
pub(crate) struct NewGame {
    black: Value,
    white: Value,
}

fn side_view(seat: &Seat) -> SideView {
    SideView {
        name: seat.name(),
        seat: seat.key(),
        clock: seat.clock(),
    }
}

/// `POST /api/games`: `{"black", "white"}`, each `"me"`, a program version's id, `"engine:LEVEL"` or a
/// built-in strategy; the game comes back as it stands, with its id.
/// (The whole queue, for the teacher, is `queue` below.)
pub(crate) async fn create(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(Json(body)): Valid<Json<NewGame>>,
) -> Result<Json<GameView>, ApiError> {
    let (live, people) = state
        .with_db(move |connection| -> Result<(Arc<LiveGame>, bool), ApiError> {
            let seats = [
                Seat::requested(connection, &user, &body.black)?,
                Seat::requested(connection, &user, &body.white)?,
            ];
            let people = seats.iter().filter(|seat| seat.person().is_some()).count();
            if people == 2 {
                return Err(ApiError::bad_request(
                    "a game has at most one person: \"me\" plays one side",
                ));
            }
            // Counted in the database, the queue itself (a queued game is not in memory).
            if db::unfinished_asked(connection)? >= MAX_LIVE {
                return Err(ApiError(
                    StatusCode::TOO_MANY_REQUESTS,
                    format!("the server has {MAX_LIVE} games queued or running: ask again when some have ended"),
                ));
            }
            if db::unfinished_of(connection, user.id)? >= MAX_UNFINISHED {
                return Err(ApiError(
                    StatusCode::TOO_MANY_REQUESTS,
                    format!("you have {MAX_UNFINISHED} games queued or running: wait for one to end"),
                ));
            }
            let transaction = connection.unchecked_transaction().map_err(ServerError::from)?;
            let (id, created) = db::add_game(&transaction, user.id, [&seats[0], &seats[1]], "", None)?;
            db::audit(
                &transaction,
                &user.name,
                &format!("asked for a game: {} against {}", seats[0].name(), seats[1].name()),
                &format!("game #{id}"),
            )?;
            transaction.commit().map_err(ServerError::from)?;
            let meta = Meta {
                id,
                black: side_view(&seats[0]),
                white: side_view(&seats[1]),
                created,
                started: None,
                ended: None,
            };
            Ok((
                LiveGame::new(meta, seats, "queued", live::Setup::default()),
                people == 1,
            ))
        })
        .await?;
    let view = live.view();
    if people {
        state.runner.start_now(live)?;
    } else {
        // Into the queue: the dispatcher starts it when a core is free.
        state.runner.ring();
    }
    Ok(Json(view))
}

/// A game of the database as a game in memory (to be played, or watched before it starts).
pub(crate) fn stored_live(connection: &rusqlite::Connection, id: i64) -> Result<Arc<LiveGame>, ServerError> {
    let row = db::game(connection, id)?.ok_or_else(|| ServerError::Db(format!("game {id} is gone")))?;
    let seats = [
        Seat::stored(connection, &row.seats[0])?,
        Seat::stored(connection, &row.seats[1])?,
    ];
    let meta = Meta {
        id,
        black: side_view(&seats[0]),
        white: side_view(&seats[1]),
        created: row.created,
        started: None,
        ended: None,
    };
    let setup = live::Setup {
        opening: row.opening,
        tournament: row.place.is_some(),
    };
    Ok(LiveGame::new(meta, seats, "queued", setup))
}

/// `GET /api/games`: the newest games, live or over.
pub(crate) async fn list(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
) -> Result<Json<Vec<db::GameSummary>>, ApiError> {
    Ok(Json(
        state.with_db(|connection| db::recent_games(connection, LISTED)).await?,
    ))
}

/// A game's row, or 404.
async fn row(state: &AppState, id: i64) -> Result<GameRow, ApiError> {
    state
        .with_db(move |connection| db::game(connection, id))
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no game {id}")))
}

/// The game a row keeps, its moves with their times when it finished.
fn replayed(row: &GameRow) -> Result<(Game, Option<GameLog>), ServerError> {
    let broken = |why: String| ServerError::Db(format!("game {}: {why}", row.id));
    match &row.log {
        Some(text) => {
            let log: GameLog = serde_json::from_str(text).map_err(|e| broken(e.to_string()))?;
            let game = log.replay().map_err(|e| broken(e.to_string()))?;
            Ok((game, Some(log)))
        }
        None => {
            let moves = if row.moves.is_empty() { &row.opening } else { &row.moves };
            Ok((
                othello_core::notation::transcript::play(Position::START, moves).map_err(|e| broken(e.to_string()))?,
                None,
            ))
        }
    }
}

/// The view of a game no longer in memory.
fn stored_view(connection: &rusqlite::Connection, row: &GameRow) -> Result<GameView, ServerError> {
    let (game, log) = replayed(row)?;
    let side = |k: usize| -> Result<SideView, ServerError> {
        let seat = Seat::stored(connection, &row.seats[k])?;
        Ok(SideView {
            name: row.names[k].clone(),
            ..side_view(&seat)
        })
    };
    let meta = Meta {
        id: row.id,
        black: side(0)?,
        white: side(1)?,
        created: row.created.clone(),
        started: row.started.clone(),
        ended: row.ended.clone(),
    };
    let status = match row.status.as_str() {
        "finished" => "finished",
        "queued" => "queued",
        "running" => "running",
        _ => "interrupted",
    };
    let result = match &row.result {
        Some(text) => Some(serde_json::from_str(text).map_err(|e| ServerError::Db(format!("game {}: {e}", row.id)))?),
        None => log.map(|log| (&log.result).into()),
    };
    Ok(live::view(&meta, status, &game, None, result))
}

/// `GET /api/games/ID`.
pub(crate) async fn one(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
    Valid(Path(id)): Valid<Path<i64>>,
) -> Result<Json<GameView>, ApiError> {
    if let Some(live) = state.runner.live.get(id) {
        return Ok(Json(live.view()));
    }
    let row = row(&state, id).await?;
    Ok(Json(
        state.with_db(move |connection| stored_view(connection, &row)).await?,
    ))
}

#[derive(Deserialize)]
pub(crate) struct MoveBody {
    square: String,
}

/// `POST /api/games/ID/moves`: `{"square": "d3"}`, the signed-in person's move; the game after it.
pub(crate) async fn person_moves(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(Path(id)): Valid<Path<i64>>,
    Valid(Json(body)): Valid<Json<MoveBody>>,
) -> Result<Response, ApiError> {
    let square: Square = body
        .square
        .trim()
        .parse()
        .map_err(|_| ApiError::bad_request(format!("bad square {:?}: expected a1 to h8", body.square)))?;
    let Some(live) = state.runner.live.get(id) else {
        row(&state, id).await?;
        return Err(ApiError(StatusCode::CONFLICT, format!("game {id} is over")));
    };
    let mut played = live.person_moves(user.id, square)?;
    // The answer is the game once the move is on the board (the computer's reply comes later).
    let waited = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        loop {
            match played.recv().await {
                Ok(event) if event.kind == "move" || event.kind == "end" => return Some(event),
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            }
        }
    })
    .await;
    let body = match waited {
        Ok(Some(event)) => event.data.to_string(),
        _ => serde_json::to_string(&live.view()).expect("a view serializes"),
    };
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// A live game and the receiver of its events.
type Watching = (Arc<LiveGame>, tokio::sync::broadcast::Receiver<live::Event>);

/// `GET /api/games/ID/events`: server-sent events, `state` (the game as it stands), a `move` for
/// each turn, and `end`; each carries the whole game as `GET /api/games/ID` shows it.
pub(crate) async fn events(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
    Valid(Path(id)): Valid<Path<i64>>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let live = match state.runner.live.get(id) {
        Some(live) => live,
        None => {
            let status = row(&state, id).await?.status;
            // A game is put in memory when it is claimed, under the database's lock: one read
            // running is found there now, unless it has ended since.
            let now_live = state.runner.live.get(id).filter(|_| status == "running");
            match (status.as_str(), now_live) {
                (_, Some(live)) => live,
                ("queued", None) => {
                    // Watched before it starts: the game in memory, which the dispatcher will play.
                    let runner = Arc::clone(&state.runner);
                    state
                        .with_db(move |connection| {
                            let made = stored_live(connection, id)?;
                            Ok::<_, ServerError>(runner.live.get_or_add(id, || made))
                        })
                        .await?
                }
                _ => {
                    // Read again: it may have ended since.
                    let row = row(&state, id).await?;
                    let view = state.with_db(move |connection| stored_view(connection, &row)).await?;
                    let data = serde_json::to_string(&view).expect("a view serializes");
                    let end = live::Event {
                        kind: "end",
                        data: data.into(),
                    };
                    return Ok(Sse::new(events_of(end, None)).keep_alive(KeepAlive::default()));
                }
            }
        }
    };
    let (first, receiver) = live.watch();
    Ok(Sse::new(events_of(first, Some((live, receiver)))).keep_alive(KeepAlive::default()))
}

/// A game's events: `first`, then what the game's channel brings, until its end.
fn events_of(first: live::Event, watching: Option<Watching>) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    futures_util::stream::unfold((Some(first), watching), |(next, mut watching)| async move {
        let event = match next {
            Some(event) => event,
            None => {
                let (live, receiver) = watching.as_mut()?;
                match receiver.recv().await {
                    Ok(event) => event,
                    // Fallen behind: the whole game again, and on from there.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        let (event, fresh) = live.watch();
                        *receiver = fresh;
                        event
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                }
            }
        };
        let last = event.kind == "end";
        let sse = SseEvent::default().event(event.kind).data(&*event.data);
        Some((Ok(sse), (None, if last { None } else { watching })))
    })
}

/// A finished game's row, or 409 while it is not.
async fn finished(state: &AppState, id: i64) -> Result<(GameRow, Game, GameLog), ApiError> {
    let row = row(state, id).await?;
    let (game, log) = replayed(&row)?;
    match log {
        Some(log) => Ok((row, game, log)),
        None => Err(ApiError(
            StatusCode::CONFLICT,
            format!("game {id} is {}: its record is kept once it ends", row.status),
        )),
    }
}

/// A finished game's players' names and its game, for the replay page.
pub(crate) async fn finished_game(state: &AppState, id: i64) -> Result<([String; 2], Game), ApiError> {
    let (row, game, _) = finished(state, id).await?;
    Ok((row.names, game))
}

/// `GET /api/games/ID/log`: the JSON game log `othello replay` reads.
pub(crate) async fn log(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
    Valid(Path(id)): Valid<Path<i64>>,
) -> Result<Response, ApiError> {
    let (_, _, log) = finished(&state, id).await?;
    Ok(download(
        "application/json",
        &format!("game-{id}.json"),
        serde_json::to_string_pretty(&log).expect("a log serializes") + "\n",
    ))
}

/// `GET /api/games/ID/ggf`: the game in GGF.
pub(crate) async fn ggf(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
    Valid(Path(id)): Valid<Path<i64>>,
) -> Result<Response, ApiError> {
    let (row, game, _) = finished(&state, id).await?;
    let text = othello_core::notation::ggf::format(&game, &row.names[0], &row.names[1]);
    Ok(download(
        "text/plain; charset=utf-8",
        &format!("game-{id}.ggf"),
        text + "\n",
    ))
}

fn download(kind: &str, name: &str, body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind.to_string()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
        ],
        body,
    )
        .into_response()
}

/// `GET /api/games/ID/stderr`: the last lines each program wrote to stderr, for the sides the
/// signed-in user may read (their own programs; the teacher every one); 403 if none.
pub(crate) async fn stderr(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(Path(id)): Valid<Path<i64>>,
) -> Result<Json<Value>, ApiError> {
    let (row, _, _) = finished(&state, id).await?;
    let seats = row.seats.clone();
    let owners = state
        .with_db(move |connection| {
            seats
                .iter()
                .map(|key| match Seat::stored(connection, key)? {
                    Seat::Program { id, .. } => Ok(db::program_owner(connection, id)?.map(|(owner, _)| owner)),
                    _ => Ok(None),
                })
                .collect::<Result<Vec<Option<i64>>, ServerError>>()
        })
        .await?;
    let readable: Vec<bool> = owners
        .iter()
        .map(|owner| owner.is_some() && (user.role == Role::Teacher || *owner == Some(user.id)))
        .collect();
    if !readable.contains(&true) {
        return Err(ApiError::forbidden(
            "a program's stderr is its owner's and the teacher's only",
        ));
    }
    let shown = |k: usize| readable[k].then(|| row.stderr[k].clone().unwrap_or_default());
    Ok(Json(json!({ "black": shown(0), "white": shown(1) })))
}

/// The longest queue shown.
const QUEUE_SHOWN: usize = 1000;

/// `GET /api/queue` (the teacher's): the games running and queued, in the order the queue serves
/// them (the ladder's last), each with what it is for and who asked.
pub(crate) async fn queue(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
) -> Result<Json<Vec<db::GameSummary>>, ApiError> {
    if user.role != crate::db::Role::Teacher {
        return Err(ApiError::forbidden("the whole queue is the teacher's"));
    }
    Ok(Json(
        state.with_db(|connection| db::queue(connection, QUEUE_SHOWN)).await?,
    ))
}

//! Students' programs: each upload a version of its own, kept under the data folder by its id
//! (never by the name it came with), checked at once by a game against `random` in the sandbox
//! under the server's rules; the newest that passed is the one others play.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use axum::Json;
use axum::extract::{Multipart, Path as UrlPath, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::AppState;
use crate::auth::SignedIn;
use crate::db::{self, Role};
use crate::error::{ApiError, ServerError};
use othello_course::matches::{MatchConfig, Openings, play_game};
use othello_course::programs::rules::Rules;
use othello_course::programs::{ProgramForm, ProgramSpec};
use othello_course::strategy::StrategySpec;

/// The largest program accepted (a file of the course's forms is a few kilobytes).
pub(crate) const MAX_PROGRAM: usize = 1 << 20;

/// Uploads an account may make a minute (each is checked by a game in the sandbox).
pub(crate) const UPLOADS_A_MINUTE: u32 = 10;

/// A version as the API shows it.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct Version {
    pub(crate) id: i64,
    pub(crate) owner: String,
    pub(crate) form: String,
    pub(crate) created: String,
    /// What its check game said: `ok: 71% of the discs against random`, or why it failed.
    pub(crate) verdict: String,
    pub(crate) passed: bool,
    /// The teacher took it out of play.
    pub(crate) disabled: bool,
}

/// A version with what it did: for its owner and the teacher.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct VersionDetail {
    pub(crate) version: Version,
    /// Its owner's active version (the one that plays).
    pub(crate) active: bool,
    /// Each lab check's run on it.
    pub(crate) checks: Vec<crate::checks::VersionCheck>,
    /// Its newest games (at most 100).
    pub(crate) games: Vec<VersionGame>,
}

/// One of a version's games, from its side.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct VersionGame {
    pub(crate) id: i64,
    pub(crate) kind: String,
    pub(crate) status: String,
    /// `black` or `white`: the side it played.
    pub(crate) side: String,
    pub(crate) opponent: String,
    /// `won`, `lost` or `tied`, once over.
    pub(crate) outcome: Option<String>,
    /// Why it forfeited, if it did.
    pub(crate) failure: Option<String>,
    /// The last lines it wrote to stderr in that game (a failure's, or the game's end).
    pub(crate) stderr: Option<String>,
}

/// A version's newest games.
const DETAIL_GAMES: usize = 100;

/// `GET /api/programs/ID` (its owner and the teacher): the version, its checks and its newest
/// games, with the stderr tail of each.
pub(crate) async fn detail(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    crate::error::Valid(UrlPath(id)): crate::error::Valid<UrlPath<i64>>,
) -> Result<Json<VersionDetail>, ApiError> {
    Ok(Json(
        state
            .with_db(move |connection| detail_of(connection, &user, id))
            .await?,
    ))
}

pub(crate) fn detail_of(
    connection: &rusqlite::Connection,
    user: &crate::db::User,
    id: i64,
) -> Result<VersionDetail, ApiError> {
    let version = db::program(connection, id)?.ok_or_else(|| ApiError::not_found(format!("no program {id}")))?;
    let owner = db::program_owner(connection, id)?.map(|(owner, _)| owner);
    if owner != Some(user.id) && user.role != Role::Teacher {
        return Err(ApiError::forbidden(
            "a version's games and stderr are its owner's and the teacher's only",
        ));
    }
    let active = owner
        .map(|owner| db::active_version(connection, owner))
        .transpose()?
        .flatten()
        == Some(id);
    let seat = format!("program:{id}");
    let games = db::version_games(connection, id, DETAIL_GAMES)?
        .into_iter()
        .map(|game| {
            let black = game.black_seat == seat;
            let (side, opponent) = if black {
                ("black", game.white)
            } else {
                ("white", game.black)
            };
            let outcome = game.result.as_ref().map(|result| {
                match (result.winner.as_str(), black) {
                    ("draw", _) => "tied",
                    ("black", true) | ("white", false) => "won",
                    _ => "lost",
                }
                .to_string()
            });
            let failure = game
                .result
                .as_ref()
                .and_then(|result| result.forfeit.as_ref())
                .filter(|forfeit| forfeit.side == side)
                .map(|forfeit| forfeit.reason.clone());
            let [black_stderr, white_stderr] = game.stderr;
            VersionGame {
                id: game.id,
                kind: game.kind,
                status: game.status,
                side: side.to_string(),
                opponent,
                outcome,
                failure,
                stderr: if black { black_stderr } else { white_stderr }.filter(|tail| !tail.is_empty()),
            }
        })
        .collect();
    Ok(VersionDetail {
        version,
        active,
        checks: crate::checks::runs_of_version(connection, id)?,
        games,
    })
}

/// Where a version's file lives: `programs/ID/FORM.py` under the data folder.
fn file_of(data: &Path, id: i64, form: ProgramForm) -> PathBuf {
    let name = match form {
        ProgramForm::Argv => "argv.py",
        ProgramForm::QuickMove => "quickmove.py",
        ProgramForm::Strategy => "strategy.py",
    };
    data.join("programs").join(id.to_string()).join(name)
}

/// Version `id` as a player: under the server's rules (on a tournament's clock, in a tournament),
/// in the sandbox.
pub(crate) fn player(data: &Path, id: i64, form: ProgramForm, tournament: bool) -> StrategySpec {
    let file = file_of(data, id, form).display().to_string();
    // An argv program is a Python file run with the board and token after it.
    let target = match form {
        ProgramForm::Argv => format!("python3 {}", shell_words::quote(&file)),
        _ => file,
    };
    StrategySpec::Program(std::sync::Arc::new(ProgramSpec::new(form, &target))).with_program(|program| {
        program.rules = Rules::Server;
        program.clock = Rules::Server.clock(form, tournament);
        // The server carries a move's unused time over to the next in its tournaments.
        program.runoff = tournament;
    })
}

/// Plays the check game: the program against `random`.
fn check(data: &Path, id: i64, form: ProgramForm) -> (String, bool) {
    let spec = player(data, id, form, false);
    if let Err(error) = spec.check() {
        return (error.why, false);
    }
    let config = MatchConfig {
        a: spec,
        b: StrategySpec::Random,
        games: 1,
        seed: id as u64,
        openings: Openings::Random(0),
        engine: Default::default(),
    };
    let played = play_game(&config, 0);
    match &played.forfeit {
        Some(forfeit) if forfeit.side == played.a_color => (format!("forfeit: {}", forfeit.failed.describe()), false),
        _ => {
            let (own, other) = played.discs();
            let share = 100.0 * f64::from(own) / f64::from((own + other).max(1));
            (format!("ok: {share:.0}% of the discs against random"), true)
        }
    }
}

/// `POST /api/programs`: a multipart body with `form` (strategy, quickmove or argv) and `file`.
pub(crate) async fn upload(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    mut body: Multipart,
) -> Result<axum::Json<Version>, ApiError> {
    if !state.uploads.allows(&user.name) {
        return Err(ApiError(
            StatusCode::TOO_MANY_REQUESTS,
            format!("at most {UPLOADS_A_MINUTE} uploads a minute: wait a minute"),
        ));
    }
    state.uploads.count(&user.name);
    let (mut form, mut file) = (None, None);
    while let Some(field) = body
        .next_field()
        .await
        .map_err(|e| ApiError(e.status(), e.body_text()))?
    {
        match field.name() {
            Some("form") => {
                let text = field.text().await.map_err(|e| ApiError(e.status(), e.body_text()))?;
                form = Some(ProgramForm::from_str(text.trim()).map_err(|_| {
                    ApiError::bad_request(format!("bad form {text:?}: expected strategy, quickmove or argv"))
                })?);
            }
            Some("file") => {
                let bytes = field.bytes().await.map_err(|e| ApiError(e.status(), e.body_text()))?;
                if bytes.len() > MAX_PROGRAM {
                    return Err(ApiError(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "a program is at most 1 MiB".to_string(),
                    ));
                }
                file = Some(bytes);
            }
            _ => {}
        }
    }
    let form = form.ok_or_else(|| ApiError::bad_request("no form: expected strategy, quickmove or argv"))?;
    let file = file.ok_or_else(|| ApiError::bad_request("no file"))?;
    let (db, data, places) = (state.db.clone(), state.data.clone(), state.runner.cores.places());
    let version = tokio::task::spawn_blocking(move || -> Result<Version, ServerError> {
        let id = {
            let connection = db.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            db::add_program(&connection, &user, form.prefix().trim_end_matches(':'))?
        };
        let path = file_of(&data, id, form);
        othello_plumbing::files::write_whole(&path, &file)
            .map_err(|e| ServerError::Io(format!("cannot keep program {id}: {e}")))?;
        let (verdict, passed) = check(&data, id, form);
        let connection = db.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        db::set_verdict(&connection, id, &verdict, passed)?;
        if passed {
            // The teacher's checks run on every version that can play; a resting ladder has a
            // newcomer to pair.
            crate::checks::on_new_version(&connection, id)?;
            crate::ladder::top_up(&connection, places)?;
        }
        db::program(&connection, id)?.ok_or_else(|| ServerError::Db(format!("program {id} is gone")))
    })
    .await
    .map_err(|e| ServerError::Io(e.to_string()))??;
    state.runner.ring();
    Ok(axum::Json(version))
}

/// `GET /api/programs`: the signed-in student's versions, newest first (every student's for the
/// teacher).
pub(crate) async fn list(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
) -> Result<axum::Json<Vec<Version>>, ApiError> {
    let owner = (user.role != Role::Teacher).then_some(user.id);
    Ok(axum::Json(
        state.with_db(move |connection| db::programs(connection, owner)).await?,
    ))
}

/// `GET /api/programs/ID/source`: the file, to its owner and the teacher only.
pub(crate) async fn source(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    UrlPath(id): UrlPath<i64>,
) -> Result<Response, ApiError> {
    let found = state
        .with_db(move |connection| db::program_owner(connection, id))
        .await?;
    let Some((owner, form)) = found else {
        return Err(ApiError(StatusCode::NOT_FOUND, format!("no program {id}")));
    };
    if owner != user.id && user.role != Role::Teacher {
        return Err(ApiError::forbidden(
            "a program's source is its owner's and the teacher's only",
        ));
    }
    let form = ProgramForm::from_str(&form).map_err(|e| ServerError::Db(e.to_string()))?;
    let bytes =
        std::fs::read(file_of(&state.data, id, form)).map_err(|e| ServerError::Io(format!("program {id}: {e}")))?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], bytes).into_response())
}

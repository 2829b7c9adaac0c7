//! The teacher's tournaments: every student's active version, round robin or Swiss, on the
//! tournament server's clock (1 s a move, unused time carried over), each pairing two games from a
//! balanced opening with the colours swapped. Its games go into the queue like any other, in the
//! database from the start (a round robin's all at once, a Swiss round's when the one before
//! ends): a restart plays on, no finished game lost and none played twice. The standings are
//! computed from the stored games, with every forfeit's reason, by the tournament's scoring:
//! othello's, or as the course's server scored (its time-out ties, cumulative tie-break, Swiss
//! pairing and bye opponent).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use othello_core::color::Color;
use othello_course::json::StandingJson;
use othello_course::matches::OpeningList;
use othello_course::tournament::{ForfeitNote, Format, Scoring, Standing, Table};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::AppState;
use crate::auth::SignedIn;
use crate::db::{self, InTournament, Role};
use crate::error::{ApiError, ServerError, Valid};
use crate::games::live::ResultView;
use crate::games::seat::Seat;

/// The most rounds a tournament may ask for.
const MAX_ROUNDS: u32 = 20;

#[derive(Deserialize)]
pub(crate) struct NewTournament {
    name: String,
    /// `round robin` or `swiss`.
    format: String,
    rounds: u32,
    /// `othello` (the default) or `course-server`.
    #[serde(default)]
    scoring: Option<String>,
    /// Who plays a Swiss round's odd player out under the course server's scoring (a built-in
    /// strategy, `engine:N` or a program version; default `random`).
    #[serde(default)]
    bye_opponent: Option<serde_json::Value>,
}

/// A tournament as the API shows it.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct TournamentView {
    pub(crate) id: i64,
    pub(crate) name: String,
    pub(crate) format: String,
    pub(crate) rounds: u32,
    /// How failures scored and ties were broken: `othello` or `course-server`, and in words.
    pub(crate) scoring: String,
    pub(crate) scoring_rules: String,
    /// `running` or `finished`.
    pub(crate) status: String,
    pub(crate) created: String,
    /// The players: each student's active version when it began.
    pub(crate) players: Vec<String>,
    /// Games played and to play (a Swiss round's are made when the round before ends).
    pub(crate) finished: usize,
    pub(crate) games: usize,
    /// Best first, every forfeit's reason (no program's stderr: that is its owner's).
    pub(crate) standings: Vec<StandingJson>,
    /// Points each player (row) took from each other (column); null on the diagonal and for
    /// players who have not met.
    pub(crate) crosstable: Vec<Vec<Option<f64>>>,
    /// Its games in the order made: id, round, black, white, status, result.
    pub(crate) list: Vec<TournamentGame>,
}

#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct TournamentGame {
    pub(crate) id: i64,
    pub(crate) round: u32,
    pub(crate) black: String,
    pub(crate) white: String,
    pub(crate) status: String,
    pub(crate) result: Option<ResultView>,
}

struct Row {
    id: i64,
    name: String,
    format: Format,
    scoring: Scoring,
    /// The bye opponent's seat key (it plays only under the course server's scoring).
    bye_opponent: String,
    status: String,
    created: String,
}

fn format_of(name: &str, rounds: u32) -> Option<Format> {
    match name {
        "round robin" => Some(Format::RoundRobin { rounds }),
        "swiss" => Some(Format::Swiss { rounds }),
        _ => None,
    }
}

fn tournament_row(connection: &Connection, id: i64) -> Result<Option<Row>, ServerError> {
    Ok(connection
        .query_row(
            "SELECT id, name, format, rounds, status, created, scoring, bye_opponent FROM tournaments WHERE id = ?1",
            params![id],
            |row| {
                let (format, rounds, scoring): (String, u32, String) = (row.get(2)?, row.get(3)?, row.get(6)?);
                Ok(Row {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    format: format_of(&format, rounds).unwrap_or(Format::RoundRobin { rounds }),
                    scoring: scoring.parse().unwrap_or_default(),
                    bye_opponent: row.get(7)?,
                    status: row.get(4)?,
                    created: row.get(5)?,
                })
            },
        )
        .optional()?)
}

/// The entrants' program versions and names (their owners'), by position; under the course
/// server's scoring the bye opponent last.
fn entrants(connection: &Connection, tournament: &Row) -> Result<Vec<(Seat, String)>, ServerError> {
    let mut entrants = students(connection, tournament.id)?;
    if tournament.scoring == Scoring::CourseServer {
        let seat = Seat::stored(connection, &tournament.bye_opponent)?;
        let name = format!("bye opponent ({})", seat.name());
        entrants.push((seat, name));
    }
    Ok(entrants)
}

/// The students' program versions and names (their owners'), by position.
fn students(connection: &Connection, tournament: i64) -> Result<Vec<(Seat, String)>, ServerError> {
    let mut statement = connection.prepare(
        "SELECT entrants.program, users.name FROM entrants JOIN programs ON programs.id = entrants.program
         JOIN users ON users.id = programs.owner WHERE entrants.tournament = ?1 ORDER BY entrants.position",
    )?;
    let rows = statement.query_map(params![tournament], |row| Ok((row.get::<_, i64>(0)?, row.get(1)?)))?;
    rows.map(|row| {
        let (program, name) = row?;
        Ok((Seat::stored(connection, &format!("program:{program}"))?, name))
    })
    .collect()
}

/// A tournament's game as stored.
struct Played {
    id: i64,
    round: u32,
    /// The pairing's entrants, by position.
    first: usize,
    second: usize,
    /// Black's seat (`program:ID`), and the players' names.
    black: String,
    names: [String; 2],
    status: String,
    result: Option<ResultView>,
    turns: usize,
}

fn games_of(connection: &Connection, tournament: i64) -> Result<Vec<Played>, ServerError> {
    let mut statement = connection.prepare(
        "SELECT id, round, first, second, black_name, white_name, status, result, moves, black
         FROM games WHERE tournament = ?1 ORDER BY id",
    )?;
    let rows = statement.query_map(params![tournament], |row| {
        let result: Option<String> = row.get(7)?;
        let moves: String = row.get(8)?;
        Ok(Played {
            id: row.get(0)?,
            round: row.get(1)?,
            first: row.get::<_, i64>(2)? as usize,
            second: row.get::<_, i64>(3)? as usize,
            black: row.get(9)?,
            names: [row.get(4)?, row.get(5)?],
            status: row.get(6)?,
            result: result.and_then(|text| serde_json::from_str(&text).ok()),
            turns: othello_core::notation::transcript::read(&moves).map_or(0, |turns| turns.len()),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Where a tournament stands: its table from the stored games, in the order they were made (the
/// order the command line plays them in), and its byes.
fn table(
    connection: &Connection,
    tournament: &Row,
    players: usize,
    games: &[Played],
    entrants: &[(Seat, String)],
) -> Result<Table, ServerError> {
    let mut table = Table::new(players, tournament.scoring);
    let mut statement = connection.prepare("SELECT position FROM byes WHERE tournament = ?1")?;
    for position in statement.query_map(params![tournament.id], |row| row.get::<_, i64>(0))? {
        table.bye(position? as usize);
    }
    for game in games {
        table.meet(game.first, game.second);
        let Some(result) = game.result.as_ref().filter(|_| game.status == "finished") else {
            continue;
        };
        let (black, white) = if game.black == entrants[game.first].0.key() {
            (game.first, game.second)
        } else {
            (game.second, game.first)
        };
        let failure = result.forfeit.as_ref().map(|f| ForfeitNote {
            round: game.round,
            opponent: 0,
            color: if f.side == "black" { Color::Black } else { Color::White },
            ply: game.turns + 1,
            code: f.code,
            server_code: f.server_code.unwrap_or(f.code),
            failure: f.reason.clone(),
            stderr: None,
        });
        table.add_game(black, white, (result.black, result.white), failure);
    }
    Ok(table)
}

/// Adds round `round`'s games (and its bye): each pairing two games from its balanced opening,
/// the colours swapped.
fn add_round(
    connection: &Connection,
    tournament: &Row,
    creator: i64,
    round: u32,
    entrants: &[(Seat, String)],
    table: &Table,
    pairings_before: usize,
) -> Result<(), ServerError> {
    let (pairs, bye) = table.pairs(tournament.format);
    if let Some(position) = bye {
        connection.execute(
            "INSERT INTO byes (tournament, round, position) VALUES (?1, ?2, ?3)",
            params![tournament.id, round, position as i64],
        )?;
    }
    let openings = OpeningList::balanced((pairings_before + pairs.len()) as u32);
    for (k, (first, second)) in pairs.into_iter().enumerate() {
        let opening = othello_core::notation::transcript::format(openings.for_pair((pairings_before + k) as u32));
        let place = InTournament {
            tournament: tournament.id,
            round,
            first,
            second,
        };
        for (black, white) in [(first, second), (second, first)] {
            db::add_game(
                connection,
                creator,
                [&entrants[black].0, &entrants[white].0],
                &opening,
                Some(place),
            )?;
        }
    }
    Ok(())
}

/// Moves a tournament on: a Swiss round that has ended pairs the next; a tournament whose games
/// have all ended is finished. Safe to run again at any time (the server runs it after each of
/// the tournament's games, and at start for every tournament still running).
pub(crate) fn advance(connection: &Connection, tournament: i64) -> Result<(), ServerError> {
    let Some(row) = tournament_row(connection, tournament)? else {
        return Ok(());
    };
    if row.status != "running" {
        return Ok(());
    }
    let transaction = connection.unchecked_transaction()?;
    let entrants = entrants(&transaction, &row)?;
    let players = students(&transaction, tournament)?.len();
    let games = games_of(&transaction, tournament)?;
    if games.iter().any(|game| game.status != "finished") {
        return Ok(());
    }
    let (_, rounds) = row.format.system();
    let made = games.iter().map(|game| game.round + 1).max().unwrap_or(0);
    if made < rounds {
        let table = table(&transaction, &row, players, &games, &entrants)?;
        let creator: i64 = transaction.query_row(
            "SELECT creator FROM tournaments WHERE id = ?1",
            params![tournament],
            |r| r.get(0),
        )?;
        add_round(&transaction, &row, creator, made, &entrants, &table, games.len() / 2)?;
    } else {
        transaction.execute(
            "UPDATE tournaments SET status = 'finished' WHERE id = ?1",
            params![tournament],
        )?;
    }
    transaction.commit()?;
    Ok(())
}

/// After a game: moves its tournament on, if it has one.
pub(crate) fn after_game(connection: &Connection, game: i64) -> Result<(), ServerError> {
    let tournament: Option<i64> = connection
        .query_row("SELECT tournament FROM games WHERE id = ?1", params![game], |row| {
            row.get(0)
        })
        .optional()?
        .flatten();
    match tournament {
        Some(tournament) => advance(connection, tournament),
        None => Ok(()),
    }
}

/// At start: every tournament still running, moved on (a stop may have come between a round's
/// last game and the next round's pairing).
pub(crate) fn advance_all(connection: &Connection) -> Result<(), ServerError> {
    let running: Vec<i64> = {
        let mut statement = connection.prepare("SELECT id FROM tournaments WHERE status = 'running'")?;
        let rows = statement.query_map([], |row| row.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    running.into_iter().try_for_each(|id| advance(connection, id))
}

/// `POST /api/tournaments` (the teacher's): `{"name", "format": "round robin" | "swiss", "rounds"}`
/// over every student's active version.
pub(crate) async fn create(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(Json(body)): Valid<Json<NewTournament>>,
) -> Result<Json<TournamentView>, ApiError> {
    if user.role != Role::Teacher {
        return Err(ApiError::forbidden("only the teacher starts a tournament"));
    }
    let name = body.name.trim().to_string();
    if name.is_empty() || name.chars().count() > 80 {
        return Err(ApiError::bad_request(format!(
            "bad name {name:?}: expected 1 to 80 characters"
        )));
    }
    if !(1..=MAX_ROUNDS).contains(&body.rounds) {
        return Err(ApiError::bad_request(format!(
            "bad rounds {}: expected 1 to {MAX_ROUNDS}",
            body.rounds
        )));
    }
    let format = format_of(&body.format, body.rounds).ok_or_else(|| {
        ApiError::bad_request(format!(
            "bad format {:?}: expected \"round robin\" or \"swiss\"",
            body.format
        ))
    })?;
    let scoring: Scoring = match &body.scoring {
        Some(name) => name.parse().map_err(ApiError::bad_request)?,
        None => Scoring::Othello,
    };
    let id = state
        .with_db(move |connection| -> Result<i64, ApiError> {
            let bye_opponent = match &body.bye_opponent {
                Some(named) => Seat::requested(connection, &user, named)?,
                None => Seat::Builtin("random".parse().expect("random is a strategy")),
            };
            if bye_opponent.person().is_some() {
                return Err(ApiError::bad_request(
                    "bad bye_opponent \"me\": expected a computer player (a strategy, engine:N or a version)",
                ));
            }
            let transaction = connection.unchecked_transaction().map_err(ServerError::from)?;
            let versions: Vec<i64> = db::active_versions(&transaction)?
                .into_iter()
                .map(|(version, _)| version)
                .collect();
            if versions.len() < 2 {
                return Err(ApiError::bad_request(format!(
                    "a tournament needs two students with a program that passed its check, and {} has one",
                    versions.len()
                )));
            }
            let (system, rounds) = format.system();
            transaction
                .execute(
                    "INSERT INTO tournaments (name, format, rounds, seed, status, creator, scoring, bye_opponent)
                     VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6, ?7)",
                    params![name, system, rounds, 0, user.id, scoring.name(), bye_opponent.key()],
                )
                .map_err(ServerError::from)?;
            let id = transaction.last_insert_rowid();
            db::audit(
                &transaction,
                &user.name,
                &format!(
                    "started the tournament {name:?} ({system}, {rounds} rounds, {} scoring)",
                    scoring.name()
                ),
                &format!("tournament #{id}"),
            )?;
            for (position, version) in versions.iter().enumerate() {
                transaction
                    .execute(
                        "INSERT INTO entrants (tournament, position, program) VALUES (?1, ?2, ?3)",
                        params![id, position as i64, version],
                    )
                    .map_err(ServerError::from)?;
            }
            let row =
                tournament_row(&transaction, id)?.ok_or_else(|| ServerError::Db("a new tournament is gone".into()))?;
            let entrants = entrants(&transaction, &row)?;
            let fresh = Table::new(versions.len(), scoring);
            // A round robin's rounds are known at once; a Swiss round waits for the one before.
            let first_rounds = match format {
                Format::RoundRobin { rounds } => rounds,
                Format::Swiss { .. } => 1,
            };
            for round in 0..first_rounds {
                let pairings_before = round as usize * versions.len() * (versions.len() - 1) / 2;
                add_round(&transaction, &row, user.id, round, &entrants, &fresh, pairings_before)?;
            }
            transaction.commit().map_err(ServerError::from)?;
            Ok(id)
        })
        .await?;
    state.runner.ring();
    Ok(Json(view(&state, id).await?))
}

/// A tournament as stored: its row, entrants (the bye opponent last, if it has one), the number
/// of students among them, its games and its table.
struct Stored {
    row: Row,
    entrants: Vec<(Seat, String)>,
    players: usize,
    games: Vec<Played>,
    table: Table,
}

fn stored(connection: &Connection, id: i64) -> Result<Stored, ApiError> {
    let row = tournament_row(connection, id)?.ok_or_else(|| ApiError::not_found(format!("no tournament {id}")))?;
    let entrants = entrants(connection, &row)?;
    let players = students(connection, id)?.len();
    let games = games_of(connection, id)?;
    let table = table(connection, &row, players, &games, &entrants)?;
    Ok(Stored {
        row,
        entrants,
        players,
        games,
        table,
    })
}

async fn view(state: &AppState, id: i64) -> Result<TournamentView, ApiError> {
    state
        .with_db(move |connection| -> Result<TournamentView, ApiError> {
            let Stored {
                row,
                entrants,
                players,
                games,
                table,
            } = stored(connection, id)?;
            let names: Vec<String> = entrants.iter().map(|(_, name)| name.clone()).collect();
            let (system, rounds) = row.format.system();
            Ok(TournamentView {
                id: row.id,
                name: row.name,
                format: system.to_string(),
                rounds,
                scoring: row.scoring.name().to_string(),
                scoring_rules: row.scoring.describe().to_string(),
                status: row.status,
                created: row.created,
                finished: games.iter().filter(|g| g.status == "finished").count(),
                games: games.len(),
                standings: table
                    .ranked()
                    .iter()
                    .enumerate()
                    .map(|(k, standing)| StandingJson::new(k + 1, standing, &names))
                    .collect(),
                crosstable: table.crosstable(),
                list: games
                    .into_iter()
                    .map(|game| {
                        let [black, white] = game.names;
                        TournamentGame {
                            id: game.id,
                            round: game.round + 1,
                            black,
                            white,
                            status: game.status,
                            result: game.result,
                        }
                    })
                    .collect(),
                players: names[..players].to_vec(),
            })
        })
        .await
}

/// `GET /api/tournaments/ID`: the tournament, its standings, crosstable and games.
pub(crate) async fn one(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
    Valid(Path(id)): Valid<Path<i64>>,
) -> Result<Json<TournamentView>, ApiError> {
    Ok(Json(view(&state, id).await?))
}

/// `GET /api/tournaments/ID/csv`: the standings as CSV, every forfeit's reason in its last column.
pub(crate) async fn csv(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
    Valid(Path(id)): Valid<Path<i64>>,
) -> Result<Response, ApiError> {
    let text = state
        .with_db(move |connection| -> Result<String, ApiError> {
            let Stored { entrants, table, .. } = stored(connection, id)?;
            let names: Vec<String> = entrants.iter().map(|(_, name)| name.clone()).collect();
            let ranked = table.ranked();
            let rows: Vec<(usize, &Standing)> = (1..).zip(&ranked).collect();
            Ok(othello_course::table::csv(
                &othello_course::table::standings(&names, table.scoring()),
                &rows,
            ))
        })
        .await?;
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"tournament-{id}.csv\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// A line of the list of tournaments.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct TournamentLine {
    pub(crate) id: i64,
    pub(crate) name: String,
    pub(crate) format: String,
    pub(crate) status: String,
}

/// `GET /api/tournaments`: the newest 100.
pub(crate) async fn list(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
) -> Result<Json<Vec<TournamentLine>>, ApiError> {
    Ok(Json(state.with_db(list_rows).await?))
}

/// The tournaments, newest first, for lists.
pub(crate) fn list_rows(connection: &Connection) -> Result<Vec<TournamentLine>, ServerError> {
    let mut statement =
        connection.prepare("SELECT id, name, format, status FROM tournaments ORDER BY id DESC LIMIT 100")?;
    let rows = statement.query_map([], |row| {
        Ok(TournamentLine {
            id: row.get(0)?,
            name: row.get(1)?,
            format: row.get(2)?,
            status: row.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The view, for the tournament's page.
pub(crate) async fn page_view(state: &AppState, id: i64) -> Result<TournamentView, ApiError> {
    view(state, id).await
}

//! The teacher's lab checks ("Lab 4: 100 games against random, 75% of the discs"): each is run on
//! every student's active version when it is made, and on every new version that passes its check
//! game; its games go into the queue like any other, half with each colour, in pairs from the
//! balanced openings. A run's result is computed from its stored games; the gradebook (CSV) and a
//! student's Gradescope-style results.json come from the runs.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use othello_course::report::{Cell, csv_table};
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

use crate::AppState;
use crate::auth::SignedIn;
use crate::db::{self, Role, User};
use crate::error::{ApiError, ServerError, Valid};
use crate::games::live::ResultView;
use crate::games::seat::Seat;

/// The most games a check may play a version.
const MAX_GAMES: u32 = 200;

#[derive(Deserialize)]
pub(crate) struct NewCheck {
    name: String,
    /// The opponent, as a game names it: `random`, `engine:2`, a program version's id.
    opponent: serde_json::Value,
    games: u32,
    /// `discs` (the share of the discs at the ends, as Lab 4 counts) or `wins` (a win 1, a tie 1/2).
    measure: String,
    /// The share a version needs, 0 to 1.
    pass: f64,
}

/// A check and how each student's versions did.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct CheckView {
    pub(crate) id: i64,
    pub(crate) name: String,
    pub(crate) opponent: String,
    pub(crate) games: u32,
    pub(crate) measure: String,
    pub(crate) pass: f64,
    /// Every run, newest version first.
    pub(crate) runs: Vec<RunView>,
}

/// A check run on one version.
#[derive(Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct RunView {
    pub(crate) student: String,
    pub(crate) program: i64,
    /// Games played and to play.
    pub(crate) finished: u32,
    pub(crate) games: u32,
    /// The version's share so far (discs or points, as the check measures), from 0 to 1.
    pub(crate) share: Option<f64>,
    /// Whether it passed: none until its games are all played.
    pub(crate) passed: Option<bool>,
}

struct Check {
    id: i64,
    name: String,
    opponent: String,
    games: u32,
    measure: String,
    pass: f64,
    creator: i64,
}

fn checks(connection: &Connection) -> Result<Vec<Check>, ServerError> {
    let mut statement =
        connection.prepare("SELECT id, name, opponent, games, measure, pass, creator FROM checks ORDER BY id")?;
    let rows = statement.query_map([], |row| {
        Ok(Check {
            id: row.get(0)?,
            name: row.get(1)?,
            opponent: row.get(2)?,
            games: row.get(3)?,
            measure: row.get(4)?,
            pass: row.get(5)?,
            creator: row.get(6)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Queues `check`'s run on `program` (once: a version is checked by a check once).
fn add_run(connection: &Connection, check: &Check, program: i64) -> Result<(), ServerError> {
    let made = connection.execute(
        "INSERT OR IGNORE INTO check_runs (\"check\", program) VALUES (?1, ?2)",
        params![check.id, program],
    )?;
    if made == 0 {
        return Ok(());
    }
    let run = connection.last_insert_rowid();
    let own = Seat::stored(connection, &format!("program:{program}"))?;
    let opponent = Seat::stored(connection, &check.opponent)?;
    let openings = othello_course::matches::OpeningList::balanced(check.games.div_ceil(2));
    for game in 0..check.games {
        let opening = othello_core::notation::transcript::format(openings.for_pair(game / 2));
        let seats = if game % 2 == 0 {
            [&own, &opponent]
        } else {
            [&opponent, &own]
        };
        let (id, _) = db::add_game(connection, check.creator, seats, &opening, None)?;
        connection.execute("UPDATE games SET check_run = ?1 WHERE id = ?2", params![run, id])?;
    }
    Ok(())
}

/// After a version passes its check game: every check's run on it, queued.
pub(crate) fn on_new_version(connection: &Connection, program: i64) -> Result<(), ServerError> {
    let transaction = connection.unchecked_transaction()?;
    for check in checks(&transaction)? {
        add_run(&transaction, &check, program)?;
    }
    transaction.commit()?;
    Ok(())
}

/// A run's result from its games: (finished, share so far).
fn run_result(
    connection: &Connection,
    run: i64,
    program: i64,
    measure: &str,
) -> Result<(u32, Option<f64>), ServerError> {
    let mut statement =
        connection.prepare("SELECT black, result FROM games WHERE check_run = ?1 AND status = 'finished'")?;
    let rows = statement.query_map(params![run], |row| {
        Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?))
    })?;
    let (mut finished, mut own, mut all, mut points) = (0u32, 0u64, 0u64, 0.0);
    for row in rows {
        let (black, result) = row?;
        let Some(result) = result.and_then(|text| serde_json::from_str::<ResultView>(&text).ok()) else {
            continue;
        };
        let black_is_own = black == format!("program:{program}");
        let (b, w) = match &result.forfeit {
            Some(f) if f.side == "black" => (0, 64),
            Some(_) => (64, 0),
            None => (result.black, result.white),
        };
        let (mine, theirs) = if black_is_own { (b, w) } else { (w, b) };
        finished += 1;
        own += u64::from(mine);
        all += u64::from(mine + theirs);
        points += match mine.cmp(&theirs) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        };
    }
    let share = match measure {
        "wins" => (finished > 0).then(|| points / f64::from(finished)),
        _ => (all > 0).then(|| own as f64 / all as f64),
    };
    Ok((finished, share))
}

/// A check's run on one version, as the version's page shows it.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct VersionCheck {
    pub(crate) check: String,
    pub(crate) run: RunView,
}

/// Every check's run on `program`, in the order the checks were made.
pub(crate) fn runs_of_version(connection: &Connection, program: i64) -> Result<Vec<VersionCheck>, ServerError> {
    let mut found = Vec::new();
    for check in checks(connection)? {
        if let Some(run) = runs_of(connection, &check)?
            .into_iter()
            .find(|run| run.program == program)
        {
            found.push(VersionCheck { check: check.name, run });
        }
    }
    Ok(found)
}

fn runs_of(connection: &Connection, check: &Check) -> Result<Vec<RunView>, ServerError> {
    let mut statement = connection.prepare(
        "SELECT check_runs.id, check_runs.program, users.name FROM check_runs
         JOIN programs ON programs.id = check_runs.program JOIN users ON users.id = programs.owner
         WHERE check_runs.\"check\" = ?1 ORDER BY check_runs.program DESC",
    )?;
    let rows = statement.query_map(params![check.id], |row| {
        Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?, row.get::<_, String>(2)?))
    })?;
    let mut runs = Vec::new();
    for row in rows {
        let (run, program, student) = row?;
        let (finished, share) = run_result(connection, run, program, &check.measure)?;
        runs.push(RunView {
            student,
            program,
            finished,
            games: check.games,
            share,
            passed: (finished == check.games).then(|| share.unwrap_or(0.0) >= check.pass),
        });
    }
    Ok(runs)
}

fn view_of(connection: &Connection, check: &Check) -> Result<CheckView, ServerError> {
    Ok(CheckView {
        id: check.id,
        name: check.name.clone(),
        opponent: check.opponent.clone(),
        games: check.games,
        measure: check.measure.clone(),
        pass: check.pass,
        runs: runs_of(connection, check)?,
    })
}

fn teacher(user: &User) -> Result<(), ApiError> {
    if user.role == Role::Teacher {
        Ok(())
    } else {
        Err(ApiError::forbidden("checks and grades are the teacher's"))
    }
}

/// `POST /api/checks` (the teacher's): a check, run at once on every student's active version.
pub(crate) async fn create(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(Json(body)): Valid<Json<NewCheck>>,
) -> Result<Json<CheckView>, ApiError> {
    teacher(&user)?;
    let name = body.name.trim().to_string();
    if name.is_empty() || name.chars().count() > 80 {
        return Err(ApiError::bad_request(format!(
            "bad name {name:?}: expected 1 to 80 characters"
        )));
    }
    if !(1..=MAX_GAMES).contains(&body.games) {
        return Err(ApiError::bad_request(format!(
            "bad games {}: expected 1 to {MAX_GAMES}",
            body.games
        )));
    }
    if !matches!(body.measure.as_str(), "discs" | "wins") {
        return Err(ApiError::bad_request(format!(
            "bad measure {:?}: expected \"discs\" or \"wins\"",
            body.measure
        )));
    }
    if !(0.0..=1.0).contains(&body.pass) {
        return Err(ApiError::bad_request(format!(
            "bad pass {}: expected a share from 0 to 1",
            body.pass
        )));
    }
    let view = state
        .with_db(move |connection| -> Result<CheckView, ApiError> {
            let opponent = Seat::requested(connection, &user, &body.opponent)?;
            if opponent.person().is_some() {
                return Err(ApiError::bad_request("a check's opponent is a computer, not \"me\""));
            }
            let transaction = connection.unchecked_transaction().map_err(ServerError::from)?;
            transaction
                .execute(
                    "INSERT INTO checks (name, opponent, games, measure, pass, creator) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![name, opponent.key(), body.games, body.measure, body.pass, user.id],
                )
                .map_err(ServerError::from)?;
            let id = transaction.last_insert_rowid();
            db::audit(&transaction, &user.name, &format!("defined the check {name:?}"), &format!("check #{id}"))?;
            let check = checks(&transaction)?
                .into_iter()
                .find(|c| c.id == id)
                .ok_or_else(|| ServerError::Db("a new check is gone".into()))?;
            let students: Vec<i64> = {
                let mut statement = transaction
                    .prepare("SELECT id FROM users WHERE role = 'student' ORDER BY name")
                    .map_err(ServerError::from)?;
                let rows = statement.query_map([], |row| row.get(0)).map_err(ServerError::from)?;
                rows.collect::<Result<_, _>>().map_err(ServerError::from)?
            };
            for student in students {
                if let Some(version) = db::active_version(&transaction, student)? {
                    add_run(&transaction, &check, version)?;
                }
            }
            transaction.commit().map_err(ServerError::from)?;
            Ok(view_of(connection, &check)?)
        })
        .await?;
    state.runner.ring();
    Ok(Json(view))
}

/// `GET /api/checks` (the teacher's): every check with its runs.
pub(crate) async fn list(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
) -> Result<Json<Vec<CheckView>>, ApiError> {
    teacher(&user)?;
    Ok(Json(state.with_db(views).await?))
}

/// Every check with its runs.
pub(crate) fn views(connection: &Connection) -> Result<Vec<CheckView>, ServerError> {
    checks(connection)?
        .iter()
        .map(|check| view_of(connection, check))
        .collect()
}

/// A student's best run of each check (none where no version of theirs ran it), in the checks' order.
type Marks = (String, Vec<Option<RunView>>);

/// The checks, and each student's marks, by name.
fn gradebook(connection: &Connection) -> Result<(Vec<Check>, Vec<Marks>), ServerError> {
    let checks = checks(connection)?;
    let students: Vec<String> = {
        let mut statement = connection.prepare("SELECT name FROM users WHERE role = 'student' ORDER BY name")?;
        let rows = statement.query_map([], |row| row.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut runs = Vec::new();
    for check in &checks {
        runs.push(runs_of(connection, check)?);
    }
    let book = students
        .into_iter()
        .map(|student| {
            let best = runs
                .iter()
                .map(|of_check| {
                    of_check
                        .iter()
                        .filter(|run| run.student == student)
                        // A passed run first, then the best share.
                        .max_by(|a, b| {
                            a.passed
                                .unwrap_or(false)
                                .cmp(&b.passed.unwrap_or(false))
                                .then(a.share.unwrap_or(0.0).total_cmp(&b.share.unwrap_or(0.0)))
                        })
                        .cloned()
                })
                .collect();
            (student, best)
        })
        .collect();
    Ok((checks, book))
}

/// The checks' names, and each student's best run of each, by name: for the class page.
pub(crate) fn class_marks(connection: &Connection) -> Result<(Vec<String>, Vec<Marks>), ServerError> {
    let (checks, book) = gradebook(connection)?;
    Ok((checks.into_iter().map(|check| check.name).collect(), book))
}

/// `GET /api/grades.csv` (the teacher's): a row a student, for each check its best run's share and
/// whether it passed.
pub(crate) async fn grades_csv(State(state): State<AppState>, SignedIn(user): SignedIn) -> Result<Response, ApiError> {
    teacher(&user)?;
    let (checks, book) = state.with_db(gradebook).await?;
    let mut head = vec!["student".to_string()];
    for check in &checks {
        head.push(format!("{} (share)", check.name));
        head.push(format!("{} (passed)", check.name));
    }
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let rows = book.iter().map(|(student, runs)| {
        let mut row = vec![Cell::text(student)];
        for run in runs {
            row.push(match run.as_ref().and_then(|r| r.share) {
                Some(share) => Cell::number(format!("{share:.4}")),
                None => Cell::text(""),
            });
            row.push(Cell::text(match run.as_ref().and_then(|r| r.passed) {
                Some(true) => "yes",
                Some(false) => "no",
                None => "",
            }));
        }
        row
    });
    let bytes = csv_table(&head, rows);
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (header::CONTENT_DISPOSITION, "attachment; filename=\"grades.csv\""),
        ],
        bytes,
    )
        .into_response())
}

/// `GET /api/students/NAME/results.json` (the teacher's): the student's checks as Gradescope's
/// results.json has them: a test each, 1 point if its best run passed.
pub(crate) async fn results_json(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(Path(name)): Valid<Path<String>>,
) -> Result<Json<serde_json::Value>, ApiError> {
    teacher(&user)?;
    let shown = name.clone();
    let (checks, book) = state.with_db(gradebook).await?;
    let Some((_, runs)) = book.into_iter().find(|(student, _)| *student == name) else {
        return Err(ApiError::not_found(format!("no student {shown:?}")));
    };
    let tests: Vec<serde_json::Value> = checks
        .iter()
        .zip(&runs)
        .map(|(check, run)| {
            let passed = run.as_ref().and_then(|r| r.passed) == Some(true);
            let output = match run {
                Some(run) => format!(
                    "version #{}: {} of {} games played, {} {} (needs {:.0}%)",
                    run.program,
                    run.finished,
                    run.games,
                    run.share
                        .map_or("no share yet".to_string(), |s| format!("{:.1}%", 100.0 * s)),
                    if check.measure == "wins" {
                        "of the points"
                    } else {
                        "of the discs"
                    },
                    100.0 * check.pass
                ),
                None => "no version that passed its check game".to_string(),
            };
            serde_json::json!({
                "name": check.name,
                "score": if passed { 1 } else { 0 },
                "max_score": 1,
                "output": output,
            })
        })
        .collect();
    let score: i64 = tests.iter().filter_map(|t| t["score"].as_i64()).sum();
    Ok(Json(serde_json::json!({ "score": score, "tests": tests })))
}

//! The data folder's database (SQLite in WAL mode, so that a stop at any moment keeps every
//! transaction that was committed): its schema, and the few statements the server runs.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::ServerError;

/// The database's file in a data folder.
const FILE: &str = "othello.db";

/// The schema, by version (`PRAGMA user_version`): a database is brought up to the last.
const SCHEMA: &[&str] = &[
    "CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        password TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('teacher', 'student')),
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    CREATE TABLE sessions (
        token TEXT PRIMARY KEY,
        user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        csrf TEXT NOT NULL,
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );",
    "CREATE TABLE programs (
        id INTEGER PRIMARY KEY,
        owner INTEGER NOT NULL REFERENCES users(id),
        form TEXT NOT NULL CHECK (form IN ('argv', 'quickmove', 'strategy')),
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
        verdict TEXT NOT NULL DEFAULT 'being checked',
        passed INTEGER NOT NULL DEFAULT 0
    );",
    "ALTER TABLE users ADD COLUMN open INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        creator INTEGER NOT NULL REFERENCES users(id),
        black TEXT NOT NULL,
        white TEXT NOT NULL,
        black_name TEXT NOT NULL,
        white_name TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'finished', 'interrupted')),
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        started TEXT,
        ended TEXT,
        moves TEXT NOT NULL DEFAULT '',
        log TEXT,
        result TEXT,
        black_stderr TEXT,
        white_stderr TEXT
    );
    CREATE INDEX games_by_status ON games (status);",
    "CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('round robin', 'swiss')),
        rounds INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished')),
        creator INTEGER NOT NULL REFERENCES users(id),
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE TABLE entrants (
        tournament INTEGER NOT NULL REFERENCES tournaments(id),
        position INTEGER NOT NULL,
        program INTEGER NOT NULL REFERENCES programs(id),
        PRIMARY KEY (tournament, position)
    );
    CREATE TABLE byes (
        tournament INTEGER NOT NULL REFERENCES tournaments(id),
        round INTEGER NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (tournament, round)
    );
    ALTER TABLE games ADD COLUMN tournament INTEGER REFERENCES tournaments(id);
    ALTER TABLE games ADD COLUMN round INTEGER;
    ALTER TABLE games ADD COLUMN first INTEGER;
    ALTER TABLE games ADD COLUMN second INTEGER;
    ALTER TABLE games ADD COLUMN opening TEXT NOT NULL DEFAULT '';
    CREATE INDEX games_by_tournament ON games (tournament, round);",
    "CREATE TABLE checks (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        opponent TEXT NOT NULL,
        games INTEGER NOT NULL,
        measure TEXT NOT NULL CHECK (measure IN ('discs', 'wins')),
        pass REAL NOT NULL,
        creator INTEGER NOT NULL REFERENCES users(id),
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE TABLE check_runs (
        id INTEGER PRIMARY KEY,
        \"check\" INTEGER NOT NULL REFERENCES checks(id),
        program INTEGER NOT NULL REFERENCES programs(id),
        UNIQUE (\"check\", program)
    );
    ALTER TABLE games ADD COLUMN check_run INTEGER REFERENCES check_runs(id);
    CREATE INDEX games_by_check_run ON games (check_run);",
    "ALTER TABLE tournaments ADD COLUMN scoring TEXT NOT NULL DEFAULT 'othello'
        CHECK (scoring IN ('othello', 'course-server'));
    ALTER TABLE tournaments ADD COLUMN bye_opponent TEXT NOT NULL DEFAULT 'random';",
    "CREATE TABLE ladder (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        running INTEGER NOT NULL,
        creator INTEGER NOT NULL REFERENCES users(id)
    );
    CREATE TABLE ladder_pairs (
        id INTEGER PRIMARY KEY,
        first INTEGER NOT NULL REFERENCES programs(id),
        second INTEGER NOT NULL REFERENCES programs(id),
        done INTEGER UNIQUE,
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    ALTER TABLE games ADD COLUMN ladder_pair INTEGER REFERENCES ladder_pairs(id);
    CREATE INDEX games_by_ladder_pair ON games (ladder_pair);",
    "ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE programs ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
    CREATE VIEW playable AS SELECT programs.id, programs.owner FROM programs
        JOIN users ON users.id = programs.owner
        WHERE programs.passed AND NOT programs.disabled AND NOT users.disabled;
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT NOT NULL
    );",
];

/// Who an account is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Teacher,
    Student,
}

impl Role {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Role::Teacher => "teacher",
            Role::Student => "student",
        }
    }
}

/// A signed-in user, as a session names them.
#[derive(Clone, Debug)]
pub(crate) struct User {
    pub(crate) id: i64,
    pub(crate) name: String,
    pub(crate) role: Role,
    /// The session's token against cross-site forms.
    pub(crate) csrf: String,
}

fn connect(path: &Path) -> Result<Connection, ServerError> {
    let connection = Connection::open(path)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    connection.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(connection)
}

/// Makes a data folder's database (the folder too, if it is not there).
pub(crate) fn create(data: &Path) -> Result<Connection, ServerError> {
    std::fs::create_dir_all(data).map_err(|e| ServerError::Io(format!("cannot make {}: {e}", data.display())))?;
    let path = data.join(FILE);
    if path.exists() {
        return Err(ServerError::AlreadyMade(data.to_path_buf()));
    }
    let mut connection = connect(&path)?;
    migrate(&mut connection)?;
    Ok(connection)
}

/// Opens a data folder's database, bringing its schema up to date.
pub(crate) fn open(data: &Path) -> Result<Connection, ServerError> {
    let path = data.join(FILE);
    if !path.is_file() {
        return Err(ServerError::NotMade(data.to_path_buf()));
    }
    let mut connection = connect(&path)?;
    migrate(&mut connection)?;
    Ok(connection)
}

fn migrate(connection: &mut Connection) -> Result<(), ServerError> {
    let version: usize = connection.pragma_query_value(None, "user_version", |row| row.get(0))?;
    for (number, step) in SCHEMA.iter().enumerate().skip(version) {
        let transaction = connection.transaction()?;
        transaction.execute_batch(step)?;
        transaction.pragma_update(None, "user_version", number + 1)?;
        transaction.commit()?;
    }
    Ok(())
}

pub(crate) fn add_user(connection: &mut Connection, name: &str, hash: &str, role: Role) -> Result<(), ServerError> {
    let transaction = connection.transaction()?;
    transaction
        .execute(
            "INSERT INTO users (name, password, role) VALUES (?1, ?2, ?3)",
            params![name, hash, role.name()],
        )
        .map_err(|e| taken(e, name))?;
    audit(
        &transaction,
        COMMAND_LINE,
        &format!("made the {}'s account", role.name()),
        name,
    )?;
    transaction.commit()?;
    Ok(())
}

/// The actor the audit log names for `othello serve init` and `add-students`.
pub(crate) const COMMAND_LINE: &str = "command line";

/// A name already taken says so; other failures stay the database's.
fn taken(error: rusqlite::Error, name: &str) -> ServerError {
    match error {
        rusqlite::Error::SqliteFailure(ref failure, _) if failure.code == rusqlite::ErrorCode::ConstraintViolation => {
            ServerError::NameTaken(name.to_string())
        }
        other => other.into(),
    }
}

/// Adds every student in one transaction: all of them, or none.
pub(crate) fn add_students(
    connection: &mut Connection,
    accounts: &[(crate::Credentials, String)],
) -> Result<(), ServerError> {
    let transaction = connection.transaction()?;
    for (credentials, hash) in accounts {
        transaction
            .execute(
                "INSERT INTO users (name, password, role) VALUES (?1, ?2, 'student')",
                params![credentials.name, hash],
            )
            .map_err(|e| taken(e, &credentials.name))?;
        audit(&transaction, COMMAND_LINE, "added the student", &credentials.name)?;
    }
    transaction.commit()?;
    Ok(())
}

/// A new version of `owner`'s program, its check to come: its id.
pub(crate) fn add_program(connection: &Connection, owner: &User, form: &str) -> Result<i64, ServerError> {
    let transaction = connection.unchecked_transaction()?;
    transaction.execute(
        "INSERT INTO programs (owner, form) VALUES (?1, ?2)",
        params![owner.id, form],
    )?;
    let id = transaction.last_insert_rowid();
    audit(
        &transaction,
        &owner.name,
        &format!("uploaded a {form} program"),
        &format!("version #{id}"),
    )?;
    transaction.commit()?;
    Ok(id)
}

pub(crate) fn set_verdict(connection: &Connection, id: i64, verdict: &str, passed: bool) -> Result<(), ServerError> {
    connection.execute(
        "UPDATE programs SET verdict = ?1, passed = ?2 WHERE id = ?3",
        params![verdict, passed, id],
    )?;
    Ok(())
}

const VERSION_COLUMNS: &str =
    "programs.id, users.name, programs.form, programs.created, programs.verdict, programs.passed, programs.disabled";

fn version(row: &rusqlite::Row) -> rusqlite::Result<crate::programs::Version> {
    Ok(crate::programs::Version {
        id: row.get(0)?,
        owner: row.get(1)?,
        form: row.get(2)?,
        created: row.get(3)?,
        verdict: row.get(4)?,
        passed: row.get(5)?,
        disabled: row.get(6)?,
    })
}

pub(crate) fn program(connection: &Connection, id: i64) -> Result<Option<crate::programs::Version>, ServerError> {
    Ok(connection
        .query_row(
            &format!(
                "SELECT {VERSION_COLUMNS} FROM programs JOIN users ON users.id = programs.owner WHERE programs.id = ?1"
            ),
            params![id],
            version,
        )
        .optional()?)
}

/// Every version, newest first: one owner's, or everyone's.
pub(crate) fn programs(
    connection: &Connection,
    owner: Option<i64>,
) -> Result<Vec<crate::programs::Version>, ServerError> {
    let mut statement = connection.prepare(&format!(
        "SELECT {VERSION_COLUMNS} FROM programs JOIN users ON users.id = programs.owner
         WHERE ?1 IS NULL OR programs.owner = ?1 ORDER BY programs.id DESC"
    ))?;
    let rows = statement.query_map(params![owner], version)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A version's owner and form.
pub(crate) fn program_owner(connection: &Connection, id: i64) -> Result<Option<(i64, String)>, ServerError> {
    Ok(connection
        .query_row("SELECT owner, form FROM programs WHERE id = ?1", params![id], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?)
}

/// An account's id and password hash, by name.
pub(crate) fn password_of(connection: &Connection, name: &str) -> Result<Option<(i64, String)>, ServerError> {
    Ok(connection
        .query_row(
            "SELECT id, password FROM users WHERE name = ?1 AND NOT disabled",
            params![name],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?)
}

/// A user's id by name.
pub(crate) fn user_id(connection: &Connection, name: &str) -> Result<Option<i64>, ServerError> {
    Ok(connection
        .query_row("SELECT id FROM users WHERE name = ?1", params![name], |row| row.get(0))
        .optional()?)
}

pub(crate) fn password_of_id(connection: &Connection, id: i64) -> Result<String, ServerError> {
    Ok(
        connection.query_row("SELECT password FROM users WHERE id = ?1", params![id], |row| {
            row.get(0)
        })?,
    )
}

pub(crate) fn set_password(connection: &Connection, id: i64, hash: &str) -> Result<(), ServerError> {
    connection.execute("UPDATE users SET password = ?1 WHERE id = ?2", params![hash, id])?;
    Ok(())
}

pub(crate) fn add_session(connection: &Connection, token: &str, user: i64, csrf: &str) -> Result<(), ServerError> {
    connection.execute(
        "INSERT INTO sessions (token, user, csrf) VALUES (?1, ?2, ?3)",
        params![token, user, csrf],
    )?;
    Ok(())
}

pub(crate) fn end_session(connection: &Connection, token: &str) -> Result<(), ServerError> {
    connection.execute("DELETE FROM sessions WHERE token = ?1", params![token])?;
    Ok(())
}

/// The user a session token belongs to, if it is one.
pub(crate) fn session_user(connection: &Connection, token: &str) -> Result<Option<User>, ServerError> {
    Ok(connection
        .query_row(
            "SELECT users.id, users.name, users.role, sessions.csrf FROM sessions
             JOIN users ON users.id = sessions.user WHERE sessions.token = ?1 AND NOT users.disabled",
            params![token],
            |row| {
                let role: String = row.get(2)?;
                Ok(User {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    role: if role == "teacher" {
                        Role::Teacher
                    } else {
                        Role::Student
                    },
                    csrf: row.get(3)?,
                })
            },
        )
        .optional()?)
}

/// The current time as the database writes it.
const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

pub(crate) fn user_name(connection: &Connection, id: i64) -> Result<Option<String>, ServerError> {
    Ok(connection
        .query_row("SELECT name FROM users WHERE id = ?1", params![id], |row| row.get(0))
        .optional()?)
}

/// Opens (or closes) a student's programs to the class as opponents; false if no such student.
/// Records what `actor` did to `target`, in the transaction that did it.
pub(crate) fn audit(connection: &Connection, actor: &str, action: &str, target: &str) -> Result<(), ServerError> {
    connection.execute(
        "INSERT INTO audit (actor, action, target) VALUES (?1, ?2, ?3)",
        params![actor, action, target],
    )?;
    Ok(())
}

/// An action as the audit log keeps it.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct AuditLine {
    pub(crate) id: i64,
    pub(crate) at: String,
    /// The account's name, or `command line`.
    pub(crate) actor: String,
    pub(crate) action: String,
    pub(crate) target: String,
}

/// The newest `limit` actions before `before` (every one if None), newest first.
pub(crate) fn audit_lines(
    connection: &Connection,
    before: Option<i64>,
    limit: usize,
) -> Result<Vec<AuditLine>, ServerError> {
    let mut statement = connection
        .prepare("SELECT id, at, actor, action, target FROM audit WHERE id < ?1 ORDER BY id DESC LIMIT ?2")?;
    let rows = statement.query_map(params![before.unwrap_or(i64::MAX), limit as i64], |row| {
        Ok(AuditLine {
            id: row.get(0)?,
            at: row.get(1)?,
            actor: row.get(2)?,
            action: row.get(3)?,
            target: row.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Disables or enables a student's account (false: no such student).
pub(crate) fn set_student_disabled(connection: &Connection, name: &str, disabled: bool) -> Result<bool, ServerError> {
    let changed = connection.execute(
        "UPDATE users SET disabled = ?1 WHERE name = ?2 AND role = 'student'",
        params![disabled, name],
    )? == 1;
    if changed && disabled {
        connection.execute(
            "DELETE FROM sessions WHERE user = (SELECT id FROM users WHERE name = ?1)",
            params![name],
        )?;
        unqueue(connection, "owner = (SELECT id FROM users WHERE name = ?1)", name)?;
    }
    Ok(changed)
}

/// Disables or enables a version (false: no such version).
pub(crate) fn set_program_disabled(connection: &Connection, id: i64, disabled: bool) -> Result<bool, ServerError> {
    let changed = connection.execute("UPDATE programs SET disabled = ?1 WHERE id = ?2", params![disabled, id])? == 1;
    if changed && disabled {
        unqueue(connection, "id = ?1", id)?;
    }
    Ok(changed)
}

/// Takes the queued games of the versions `which` selects (a condition on `programs`, with one
/// parameter) out of the queue: the ladder's pairs not begun go, the games people asked for and
/// the checks' are marked interrupted. A tournament's stay: its players were fixed when it began.
fn unqueue(connection: &Connection, which: &str, parameter: impl rusqlite::ToSql) -> Result<(), ServerError> {
    let seats: Vec<String> = {
        let mut statement = connection.prepare(&format!("SELECT 'program:' || id FROM programs WHERE {which}"))?;
        let rows = statement.query_map(params![parameter], |row| row.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    drop_unbegun_pairs(connection, |players| players.iter().any(|seat| seats.contains(seat)))?;
    for seat in &seats {
        connection.execute(
            &format!(
                "UPDATE games SET status = 'interrupted', ended = {NOW} WHERE status = 'queued' AND tournament IS NULL
                 AND ladder_pair IS NULL AND (black = ?1 OR white = ?1)"
            ),
            params![seat],
        )?;
    }
    Ok(())
}

/// Takes out of the queue the ladder's pairs not begun (both games still queued) whose players
/// (seat keys) `which` picks.
pub(crate) fn drop_unbegun_pairs(
    connection: &Connection,
    which: impl Fn(&[String]) -> bool,
) -> Result<(), ServerError> {
    let unbegun: Vec<(i64, String, String)> = {
        let mut statement = connection.prepare(
            "SELECT ladder_pairs.id, games.black, games.white FROM ladder_pairs
             JOIN games ON games.ladder_pair = ladder_pairs.id
             WHERE ladder_pairs.done IS NULL AND NOT EXISTS
                 (SELECT 1 FROM games AS begun WHERE begun.ladder_pair = ladder_pairs.id AND begun.status != 'queued')",
        )?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    for (pair, black, white) in unbegun {
        if which(&[black, white]) {
            connection.execute("DELETE FROM games WHERE ladder_pair = ?1", params![pair])?;
            connection.execute("DELETE FROM ladder_pairs WHERE id = ?1", params![pair])?;
        }
    }
    Ok(())
}

pub(crate) fn set_open(connection: &Connection, name: &str, open: bool) -> Result<bool, ServerError> {
    Ok(connection.execute(
        "UPDATE users SET open = ?1 WHERE name = ?2 AND role = 'student'",
        params![open, name],
    )? == 1)
}

/// A program version with what choosing it as a player needs.
pub(crate) fn program_seat(
    connection: &Connection,
    id: i64,
) -> Result<Option<crate::games::seat::ProgramSeat>, ServerError> {
    let found = connection
        .query_row(
            "SELECT programs.owner, users.name, programs.form, programs.passed, programs.verdict, users.open,
                 programs.disabled OR users.disabled
             FROM programs JOIN users ON users.id = programs.owner WHERE programs.id = ?1",
            params![id],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, bool>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, bool>(5)?,
                    row.get::<_, bool>(6)?,
                ))
            },
        )
        .optional()?;
    found
        .map(|(owner_id, owner, form, passed, verdict, open, disabled)| {
            Ok(crate::games::seat::ProgramSeat {
                owner_id,
                owner,
                form: form
                    .parse()
                    .map_err(|_| ServerError::Db(format!("program {id}'s form {form:?}")))?,
                passed,
                verdict,
                open,
                disabled,
            })
        })
        .transpose()
}

/// Where a tournament's game belongs: its tournament, round and the pairing's entrants (`first`
/// plays black in the pairing's first game).
#[derive(Clone, Copy, Debug)]
pub(crate) struct InTournament {
    pub(crate) tournament: i64,
    pub(crate) round: u32,
    pub(crate) first: usize,
    pub(crate) second: usize,
}

/// A new game, queued: its id and when it was asked for.
pub(crate) fn add_game(
    connection: &Connection,
    creator: i64,
    seats: [&crate::games::seat::Seat; 2],
    opening: &str,
    place: Option<InTournament>,
) -> Result<(i64, String), ServerError> {
    connection.execute(
        "INSERT INTO games (creator, black, white, black_name, white_name, status, opening, tournament, round, first, second)
         VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7, ?8, ?9, ?10)",
        params![
            creator,
            seats[0].key(),
            seats[1].key(),
            seats[0].name(),
            seats[1].name(),
            opening,
            place.map(|p| p.tournament),
            place.map(|p| p.round),
            place.map(|p| p.first as i64),
            place.map(|p| p.second as i64),
        ],
    )?;
    let id = connection.last_insert_rowid();
    let created = connection.query_row("SELECT created FROM games WHERE id = ?1", params![id], |row| row.get(0))?;
    Ok((id, created))
}

/// The oldest game of programs waiting for a core, the ladder's last (it fills the cores nobody
/// else wants), claimed (marked running) in the same statement: no two claim one.
pub(crate) fn claim_next(connection: &Connection) -> Result<Option<i64>, ServerError> {
    Ok(connection
        .query_row(
            &format!(
                "UPDATE games SET status = 'running', started = {NOW} WHERE id = (
                     SELECT id FROM games WHERE status = 'queued'
                     AND black NOT LIKE 'person:%' AND white NOT LIKE 'person:%'
                     ORDER BY ladder_pair IS NOT NULL, id LIMIT 1)
                 RETURNING id"
            ),
            [],
            |row| row.get(0),
        )
        .optional()?)
}

/// Games not yet over that people asked for.
pub(crate) fn unfinished_asked(connection: &Connection) -> Result<usize, ServerError> {
    Ok(connection.query_row(
        &format!("SELECT count(*) FROM games WHERE status IN ('queued', 'running') AND {ASKED_FOR}"),
        [],
        |row| row.get::<_, i64>(0),
    )? as usize)
}

/// Games not yet over that `user` asked for (a teacher's tournaments, checks and ladder aside).
pub(crate) fn unfinished_of(connection: &Connection, user: i64) -> Result<usize, ServerError> {
    Ok(connection.query_row(
        &format!("SELECT count(*) FROM games WHERE creator = ?1 AND status IN ('queued', 'running') AND {ASKED_FOR}"),
        params![user],
        |row| row.get::<_, i64>(0),
    )? as usize)
}

pub(crate) fn game_started(connection: &Connection, id: i64) -> Result<(), ServerError> {
    connection.execute(
        &format!("UPDATE games SET status = 'running', started = {NOW} WHERE id = ?1"),
        params![id],
    )?;
    Ok(())
}

/// The moves so far (as the course writes a game): an interrupted game keeps them.
pub(crate) fn game_moved(connection: &Connection, id: i64, moves: &str) -> Result<(), ServerError> {
    connection.execute("UPDATE games SET moves = ?1 WHERE id = ?2", params![moves, id])?;
    Ok(())
}

/// A game's end, all of it in one statement: its log, result and the programs' stderr tails.
pub(crate) fn game_finished(
    connection: &Connection,
    id: i64,
    log: &othello_core::log::GameLog,
    result: &crate::games::live::ResultView,
    stderr: &[Option<String>; 2],
) -> Result<(), ServerError> {
    connection.execute(
        &format!(
            "UPDATE games SET status = 'finished', ended = {NOW}, moves = ?1, log = ?2, result = ?3,
             black_stderr = ?4, white_stderr = ?5 WHERE id = ?6"
        ),
        params![
            log.transcript.clone().unwrap_or_default(),
            serde_json::to_string(log).expect("a game's log serializes"),
            serde_json::to_string(result).expect("a result serializes"),
            stderr[0],
            stderr[1],
            id
        ],
    )?;
    Ok(())
}

pub(crate) fn game_interrupted(connection: &Connection, id: i64) -> Result<(), ServerError> {
    connection.execute(
        &format!(
            "UPDATE games SET status = 'interrupted', ended = {NOW} WHERE id = ?1 AND status IN ('queued', 'running')"
        ),
        params![id],
    )?;
    Ok(())
}

/// The games a person asked for (not a tournament's, a check's or the ladder's).
const ASKED_FOR: &str = "(tournament IS NULL AND check_run IS NULL AND ladder_pair IS NULL)";

/// At start: the games people asked for that were running when the server stopped are
/// interrupted (kept, not scored); a tournament's, a check's and the ladder's go back to the queue
/// to be played again from their start (each played to its end exactly once): how many of each.
pub(crate) fn recover_games(connection: &mut Connection) -> Result<(usize, usize), ServerError> {
    let transaction = connection.transaction()?;
    let interrupted = transaction.execute(
        &format!("UPDATE games SET status = 'interrupted', ended = {NOW} WHERE status = 'running' AND {ASKED_FOR}"),
        [],
    )?;
    let again = transaction.execute(
        &format!("UPDATE games SET status = 'queued', started = NULL, moves = '' WHERE status = 'running' AND NOT {ASKED_FOR}"),
        [],
    )?;
    transaction.commit()?;
    Ok((interrupted, again))
}

/// A game as the database keeps it.
pub(crate) struct GameRow {
    pub(crate) id: i64,
    pub(crate) seats: [String; 2],
    pub(crate) names: [String; 2],
    pub(crate) status: String,
    pub(crate) created: String,
    pub(crate) started: Option<String>,
    pub(crate) ended: Option<String>,
    pub(crate) moves: String,
    pub(crate) log: Option<String>,
    pub(crate) stderr: [Option<String>; 2],
    pub(crate) opening: String,
    pub(crate) place: Option<InTournament>,
    pub(crate) result: Option<String>,
}

const GAME_COLUMNS: &str = "id, black, white, black_name, white_name, status, created, started, ended, moves, log,
     black_stderr, white_stderr, opening, tournament, round, first, second, result";

fn game_row(row: &rusqlite::Row) -> rusqlite::Result<GameRow> {
    Ok(GameRow {
        id: row.get(0)?,
        seats: [row.get(1)?, row.get(2)?],
        names: [row.get(3)?, row.get(4)?],
        status: row.get(5)?,
        created: row.get(6)?,
        started: row.get(7)?,
        ended: row.get(8)?,
        moves: row.get(9)?,
        log: row.get(10)?,
        stderr: [row.get(11)?, row.get(12)?],
        opening: row.get(13)?,
        place: match row.get::<_, Option<i64>>(14)? {
            Some(tournament) => Some(InTournament {
                tournament,
                round: row.get(15)?,
                first: row.get::<_, i64>(16)? as usize,
                second: row.get::<_, i64>(17)? as usize,
            }),
            None => None,
        },
        result: row.get(18)?,
    })
}

pub(crate) fn game(connection: &Connection, id: i64) -> Result<Option<GameRow>, ServerError> {
    Ok(connection
        .query_row(
            &format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1"),
            params![id],
            game_row,
        )
        .optional()?)
}

/// The newest games (`limit` of them), with their status and result, for lists.
pub(crate) fn recent_games(connection: &Connection, limit: usize) -> Result<Vec<GameSummary>, ServerError> {
    summaries(connection, "1 ORDER BY games.id DESC LIMIT ?1", params![limit as i64])
}

/// The games queued and running, in the order the queue serves them: the running ones, then the
/// queued by age, the ladder's last (at most `limit`).
pub(crate) fn queue(connection: &Connection, limit: usize) -> Result<Vec<GameSummary>, ServerError> {
    summaries(
        connection,
        "games.status IN ('queued', 'running')
         ORDER BY games.status = 'queued', games.ladder_pair IS NOT NULL, games.id LIMIT ?1",
        params![limit as i64],
    )
}

/// The newest `limit` games of a version.
pub(crate) fn version_games(
    connection: &Connection,
    version: i64,
    limit: usize,
) -> Result<Vec<GameSummary>, ServerError> {
    summaries(
        connection,
        "(games.black = ?1 OR games.white = ?1) ORDER BY games.id DESC LIMIT ?2",
        params![format!("program:{version}"), limit as i64],
    )
}

/// The games `condition` (with its order and limit) picks, as lists show them.
fn summaries(
    connection: &Connection,
    condition: &str,
    parameters: &[&dyn rusqlite::ToSql],
) -> Result<Vec<GameSummary>, ServerError> {
    let mut statement = connection.prepare(&format!(
        "SELECT games.id, games.black_name, games.white_name, games.status, games.created, games.result,
             CASE WHEN games.tournament IS NOT NULL THEN 'tournament' WHEN games.check_run IS NOT NULL THEN 'check'
                  WHEN games.ladder_pair IS NOT NULL THEN 'ladder' ELSE 'asked' END,
             users.name, games.started, games.black, games.black_stderr, games.white_stderr
         FROM games JOIN users ON users.id = games.creator WHERE {condition}"
    ))?;
    let rows = statement.query_map(parameters, |row| {
        let result: Option<String> = row.get(5)?;
        Ok(GameSummary {
            id: row.get(0)?,
            black: row.get(1)?,
            white: row.get(2)?,
            black_seat: row.get(9)?,
            status: row.get(3)?,
            created: row.get(4)?,
            started: row.get(8)?,
            kind: row.get(6)?,
            asked_by: row.get(7)?,
            result: result.and_then(|text| serde_json::from_str(&text).ok()),
            stderr: [row.get(10)?, row.get(11)?],
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A line of a list of games.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct GameSummary {
    pub(crate) id: i64,
    pub(crate) black: String,
    pub(crate) white: String,
    /// Black's seat (`program:ID`, ...): which side a version played.
    #[serde(skip)]
    pub(crate) black_seat: String,
    pub(crate) status: String,
    pub(crate) created: String,
    pub(crate) started: Option<String>,
    /// Who it is for: `asked` (a person asked for it), `tournament`, `check` or `ladder`.
    pub(crate) kind: String,
    /// The account that asked for it (the teacher for a tournament's, a check's or the ladder's).
    pub(crate) asked_by: String,
    pub(crate) result: Option<crate::games::live::ResultView>,
    /// Each side's stderr tail: its owner's and the teacher's only, never in a list.
    #[serde(skip)]
    pub(crate) stderr: [Option<String>; 2],
}

/// The versions `user` may choose as a player: passed and not disabled, and their own, or the
/// active one of an owner opened to the class (every one for the teacher); their own
/// first, then newest first, at most `limit`.
pub(crate) fn playable_programs(
    connection: &Connection,
    user: &User,
    limit: usize,
) -> Result<Vec<crate::programs::Version>, ServerError> {
    let mut statement = connection.prepare(&format!(
        "SELECT {VERSION_COLUMNS} FROM programs JOIN users ON users.id = programs.owner
         WHERE programs.id IN (SELECT id FROM playable) AND (?1 OR programs.owner = ?2 OR (users.open AND programs.id =
             (SELECT max(id) FROM playable AS newer WHERE newer.owner = programs.owner)))
         ORDER BY programs.owner = ?2 DESC, programs.id DESC LIMIT ?3"
    ))?;
    let rows = statement.query_map(params![user.role == Role::Teacher, user.id, limit as i64], version)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A student's active version: the newest that passed its check and is not disabled (nor its
/// owner).
pub(crate) fn active_version(connection: &Connection, owner: i64) -> Result<Option<i64>, ServerError> {
    Ok(
        connection.query_row("SELECT max(id) FROM playable WHERE owner = ?1", params![owner], |row| {
            row.get(0)
        })?,
    )
}

/// Every student's active version and its owner, by the students' names.
pub(crate) fn active_versions(connection: &Connection) -> Result<Vec<(i64, i64)>, ServerError> {
    let mut statement = connection.prepare(
        "SELECT max(playable.id), users.id FROM playable JOIN users ON users.id = playable.owner
         WHERE users.role = 'student' GROUP BY users.id ORDER BY users.name",
    )?;
    let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A student as the teacher's class page shows them.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct StudentLine {
    pub(crate) name: String,
    /// Classmates may choose their active version.
    pub(crate) open: bool,
    /// The teacher has disabled the account: no sign-in, no game.
    pub(crate) disabled: bool,
    /// Versions uploaded.
    pub(crate) versions: u32,
    /// The newest that passed its check and is not disabled, the one that plays.
    pub(crate) active: Option<i64>,
    /// The newest upload and its check's verdict.
    pub(crate) latest: Option<i64>,
    pub(crate) latest_verdict: Option<String>,
}

/// Every student, by name.
pub(crate) fn students(connection: &Connection) -> Result<Vec<StudentLine>, ServerError> {
    let mut statement = connection.prepare(
        "SELECT users.name, users.open, users.disabled,
             (SELECT count(*) FROM programs WHERE owner = users.id),
             (SELECT max(id) FROM playable WHERE owner = users.id),
             (SELECT max(id) FROM programs WHERE owner = users.id),
             (SELECT verdict FROM programs WHERE owner = users.id ORDER BY id DESC LIMIT 1)
         FROM users WHERE role = 'student' ORDER BY name",
    )?;
    let rows = statement.query_map([], |row| {
        Ok(StudentLine {
            name: row.get(0)?,
            open: row.get(1)?,
            disabled: row.get(2)?,
            versions: row.get(3)?,
            active: row.get(4)?,
            latest: row.get(5)?,
            latest_verdict: row.get(6)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

//! Who plays a side of a game: the person who asked, a student's program version, the engine at a
//! level, or a built-in strategy; as a request names it, as the database keeps it (`person:ID`,
//! `program:ID`, `engine:LEVEL`, a strategy's name) and as the player that makes the moves.

use std::str::FromStr;

use othello_course::programs::rules::Rules;
use othello_course::programs::{ProgramForm, ProgramSpec};
use othello_course::strategy::StrategySpec;
use othello_engine::search::engine::EngineStyle;
use serde_json::Value;

use crate::db::{self, Role, User};
use crate::error::{ApiError, ServerError};

/// Nodes a move of the engine's levels (the same moves on every machine, whatever it does besides).
pub(crate) const LEVELS: [u64; 6] = [500, 5_000, 50_000, 250_000, 1_000_000, 4_000_000];

/// The deepest fixed-depth search a game may ask for (deeper ones take longer than a move's time).
const MAX_BUILTIN_DEPTH: u32 = 6;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Seat {
    Person { user: i64, name: String },
    Program { id: i64, owner: String, form: ProgramForm },
    Engine { level: usize },
    Builtin(StrategySpec),
}

impl Seat {
    /// How the database keeps it.
    pub(crate) fn key(&self) -> String {
        match self {
            Seat::Person { user, .. } => format!("person:{user}"),
            Seat::Program { id, .. } => format!("program:{id}"),
            Seat::Engine { level } => format!("engine:{level}"),
            Seat::Builtin(spec) => spec.to_string(),
        }
    }

    /// How pages show it.
    pub(crate) fn name(&self) -> String {
        match self {
            Seat::Person { name, .. } => name.clone(),
            Seat::Program { id, owner, .. } => format!("{owner}'s program #{id}"),
            Seat::Engine { level } => format!("engine level {level}"),
            Seat::Builtin(spec) => spec.to_string(),
        }
    }

    /// Its time a move as the server's rules give it; none for a built-in player (it is quick).
    pub(crate) fn clock(&self) -> Option<String> {
        match self {
            Seat::Person { .. } => Some(format!("{} min a move", super::run::PERSON_MOVE.as_secs() / 60)),
            Seat::Program { form, .. } => {
                let mut spec = ProgramSpec::new(*form, "program");
                spec.rules = Rules::Server;
                spec.clock = Rules::Server.clock(*form, false);
                Some(spec.clock_text())
            }
            Seat::Engine { .. } | Seat::Builtin(_) => None,
        }
    }

    pub(crate) fn person(&self) -> Option<i64> {
        match self {
            Seat::Person { user, .. } => Some(*user),
            _ => None,
        }
    }

    /// The program version it plays, if it plays one.
    pub(crate) fn program(&self) -> Option<i64> {
        match self {
            Seat::Program { id, .. } => Some(*id),
            _ => None,
        }
    }

    /// What a built-in player or the engine at its level is.
    pub(crate) fn spec(&self) -> Option<StrategySpec> {
        match self {
            Seat::Engine { level } => Some(StrategySpec::EngineNodes {
                nodes: LEVELS[level - 1],
                style: EngineStyle::default(),
            }),
            Seat::Builtin(spec) => Some(spec.clone()),
            Seat::Person { .. } | Seat::Program { .. } => None,
        }
    }

    /// The seat a request names for `user`: `"me"`, a program version's id (a number, or its
    /// digits), `"engine:LEVEL"`, or a built-in strategy. A program must have passed its check and
    /// be the user's own, or the active version (the newest that passed) of an owner the teacher
    /// opened to the class (the teacher may choose any).
    pub(crate) fn requested(connection: &rusqlite::Connection, user: &User, named: &Value) -> Result<Seat, ApiError> {
        let bad = || {
            ApiError::bad_request(format!(
                "bad player {named}: expected \"me\", a program version's id, \"engine:1\" to \"engine:{}\", or random, greedy, weighted, preferred, minimax:D, alphabeta:D, lookahead:D (D 1..{MAX_BUILTIN_DEPTH})",
                LEVELS.len()
            ))
        };
        let text = match named {
            Value::Number(number) => number.to_string(),
            Value::String(text) => text.trim().to_string(),
            _ => return Err(bad()),
        };
        if text == "me" {
            return Ok(Seat::Person {
                user: user.id,
                name: user.name.clone(),
            });
        }
        if let Ok(id) = text.parse::<i64>() {
            return Seat::program_for(connection, user, id);
        }
        if let Some(level) = text.strip_prefix("engine:") {
            return match level.parse::<usize>() {
                Ok(level @ 1..=6) => Ok(Seat::Engine { level }),
                _ => Err(bad()),
            };
        }
        match StrategySpec::from_str(&text) {
            Ok(
                spec @ (StrategySpec::Random | StrategySpec::Greedy | StrategySpec::Weighted | StrategySpec::Preferred),
            ) => Ok(Seat::Builtin(spec)),
            Ok(
                spec @ (StrategySpec::Minimax { depth, .. }
                | StrategySpec::AlphaBeta { depth, .. }
                | StrategySpec::Lookahead { depth }),
            ) if depth <= MAX_BUILTIN_DEPTH => Ok(Seat::Builtin(spec)),
            // Never a program by its path, nor an engine reading a file: only what is listed.
            _ => Err(bad()),
        }
    }

    fn program_for(connection: &rusqlite::Connection, user: &User, id: i64) -> Result<Seat, ApiError> {
        let Some(found) = db::program_seat(connection, id)? else {
            return Err(ApiError::not_found(format!("no program {id}")));
        };
        if found.disabled {
            return Err(ApiError::bad_request(format!(
                "program {id} is disabled by the teacher: it plays no more games"
            )));
        }
        if !found.passed {
            return Err(ApiError::bad_request(format!(
                "program {id} did not pass its check game ({}): only a version that passed plays",
                found.verdict
            )));
        }
        if found.owner_id != user.id && user.role != Role::Teacher {
            if !found.open {
                return Err(ApiError::forbidden(format!(
                    "program {id} is {}'s, and the teacher has not opened {}'s programs to the class",
                    found.owner, found.owner
                )));
            }
            // A classmate plays the owner's active version (their own older ones are theirs to try).
            let active = db::active_version(connection, found.owner_id)?;
            if active != Some(id) {
                return Err(ApiError::forbidden(format!(
                    "program {id} is not {}'s active version: choose #{}, the newest that passed",
                    found.owner,
                    active.unwrap_or(id)
                )));
            }
        }
        Ok(Seat::Program {
            id,
            owner: found.owner,
            form: found.form,
        })
    }

    /// The seat a database key names (for games that wait in the queue across a restart).
    pub(crate) fn stored(connection: &rusqlite::Connection, key: &str) -> Result<Seat, ServerError> {
        let bad = || ServerError::Db(format!("a game's player {key:?} is not one the server makes"));
        if let Some(id) = key.strip_prefix("person:") {
            let id = id.parse::<i64>().map_err(|_| bad())?;
            let name = db::user_name(connection, id)?.ok_or_else(bad)?;
            return Ok(Seat::Person { user: id, name });
        }
        if let Some(id) = key.strip_prefix("program:") {
            let id = id.parse::<i64>().map_err(|_| bad())?;
            let found = db::program_seat(connection, id)?.ok_or_else(bad)?;
            return Ok(Seat::Program {
                id,
                owner: found.owner,
                form: found.form,
            });
        }
        if let Some(level) = key.strip_prefix("engine:")
            && let Ok(level @ 1..=6) = level.parse::<usize>()
        {
            return Ok(Seat::Engine { level });
        }
        StrategySpec::from_str(key).map(Seat::Builtin).map_err(|_| bad())
    }
}

/// A program version as a seat needs it.
pub(crate) struct ProgramSeat {
    pub(crate) owner_id: i64,
    pub(crate) owner: String,
    pub(crate) form: ProgramForm,
    pub(crate) passed: bool,
    pub(crate) verdict: String,
    /// The teacher opened its owner's programs to the class.
    pub(crate) open: bool,
    /// The teacher disabled it, or its owner.
    pub(crate) disabled: bool,
}

//! Accounts and sessions: passwords made at random and kept as argon2id hashes, session tokens in
//! HttpOnly, SameSite cookies, a CSRF token per session for forms, and a brake on guessing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use axum::extract::FromRequestParts;
use axum::http::HeaderMap;
use axum::http::request::Parts;

use crate::AppState;
use crate::db::{self, User};
use crate::error::{ApiError, ServerError};

/// An account's name and the password made for it, shown once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credentials {
    pub name: String,
    pub password: String,
}

/// The session cookie, and the cookie the sign-in form's token is checked against.
pub(crate) const SESSION_COOKIE: &str = "othello_session";
pub(crate) const FORM_COOKIE: &str = "othello_form";

/// Letters and digits no one misreads (no 0, o, 1, l, i).
const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // The system's random source does not fail on Linux once booted; a server without one
    // must not make guessable passwords.
    getrandom::fill(&mut bytes).expect("the system's random source works");
    bytes
}

/// A new password: 14 characters of `ALPHABET` (about 69 bits).
pub(crate) fn new_password() -> String {
    let mut password = String::new();
    while password.len() < 14 {
        for byte in random_bytes::<32>() {
            // Rejection sampling: every character equally likely.
            if (byte as usize) < 256 - 256 % ALPHABET.len() && password.len() < 14 {
                password.push(ALPHABET[byte as usize % ALPHABET.len()] as char);
            }
        }
    }
    password
}

/// A session or form token: 32 random bytes, in hex.
pub(crate) fn new_token() -> String {
    random_bytes::<32>().iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn hash(password: &str) -> Result<String, ServerError> {
    let salt = SaltString::encode_b64(&random_bytes::<16>()).map_err(|e| ServerError::Io(e.to_string()))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| ServerError::Io(format!("cannot hash a password: {e}")))
}

pub(crate) fn verify(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// A name an account may have: 1-40 letters, digits, `.`, `_` or `-` (what a roster holds; a
/// name shows in pages and file names).
pub(crate) fn check_name(name: &str) -> Result<(), ServerError> {
    if name.is_empty() || name.len() > 40 {
        return Err(ServerError::BadName(name.to_string(), "expected 1 to 40 characters"));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) {
        return Err(ServerError::BadName(
            name.to_string(),
            "expected letters, digits, '.', '_' and '-' only",
        ));
    }
    Ok(())
}

/// A password its owner may choose: 8 to 128 characters.
pub(crate) fn check_password(password: &str) -> Result<(), ApiError> {
    match password.chars().count() {
        8..=128 => Ok(()),
        _ => Err(ApiError::bad_request("a password has 8 to 128 characters")),
    }
}

/// A cookie's value in a request, if it has it.
pub(crate) fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// A `Set-Cookie` value: only this server's pages send it, and never to another site's request.
pub(crate) fn set_cookie(name: &str, value: &str) -> String {
    format!("{name}={value}; Path=/; HttpOnly; SameSite=Strict")
}

pub(crate) fn clear_cookie(name: &str) -> String {
    format!("{name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// The signed-in user of a request, if its session cookie names a session.
pub(crate) async fn user_of(state: &AppState, headers: &HeaderMap) -> Result<Option<User>, ApiError> {
    let Some(token) = cookie(headers, SESSION_COOKIE).map(str::to_string) else {
        return Ok(None);
    };
    Ok(state
        .with_db(move |connection| db::session_user(connection, &token))
        .await?)
}

/// A request's signed-in user: a handler that takes one answers 401 to anyone else.
pub(crate) struct SignedIn(pub User);

impl FromRequestParts<AppState> for SignedIn {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<SignedIn, ApiError> {
        user_of(state, &parts.headers)
            .await?
            .map(SignedIn)
            .ok_or_else(ApiError::unauthorized)
    }
}

/// Events by key within a window (failed sign-ins by name, uploads by account): after `max`
/// within `window`, the key waits out the window. Bounded: at most `MAX_KEYS` keys are remembered
/// (the oldest forgotten first).
pub(crate) struct Brake {
    max: u32,
    window: Duration,
    seen: Mutex<HashMap<String, (u32, Instant)>>,
}

const MAX_KEYS: usize = 10_000;

impl Brake {
    pub(crate) fn new(max: u32, window: Duration) -> Brake {
        Brake {
            max,
            window,
            seen: Mutex::default(),
        }
    }

    /// Five wrong passwords for a name a minute.
    pub(crate) fn sign_ins() -> Brake {
        Brake::new(5, Duration::from_secs(60))
    }

    /// Whether `key` may go on now.
    pub(crate) fn allows(&self, key: &str) -> bool {
        let seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        seen.get(key)
            .is_none_or(|(count, first)| *count < self.max || first.elapsed() > self.window)
    }

    pub(crate) fn count(&self, key: &str) {
        let mut seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if seen.len() >= MAX_KEYS {
            seen.retain(|_, (_, first)| first.elapsed() <= self.window);
            if seen.len() >= MAX_KEYS {
                seen.clear();
            }
        }
        let entry = seen.entry(key.to_string()).or_insert((0, Instant::now()));
        if entry.1.elapsed() > self.window {
            *entry = (0, Instant::now());
        }
        entry.0 += 1;
    }

    pub(crate) fn forget(&self, key: &str) {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(key);
    }
}

/// Signs `name` in if `password` is theirs: the new session's token and the user.
pub(crate) async fn sign_in(state: &AppState, name: String, password: String) -> Result<(String, User), ApiError> {
    if !state.brake.allows(&name) {
        return Err(ApiError(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            "too many failed sign-ins for this name: wait a minute".to_string(),
        ));
    }
    let db = state.db.clone();
    let checked = tokio::task::spawn_blocking(move || -> Result<Option<(String, User)>, ServerError> {
        let connection = db.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let found = db::password_of(&connection, &name)?;
        drop(connection);
        // A name that is no account costs the same time as a wrong password.
        let (id, hash) = found.unwrap_or_else(|| (-1, dummy_hash().to_string()));
        if id < 0 || !verify(&password, &hash) {
            return Ok(None);
        }
        let (token, csrf) = (new_token(), new_token());
        let connection = db.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        db::add_session(&connection, &token, id, &csrf)?;
        Ok(db::session_user(&connection, &token)?.map(|user| (token, user)))
    })
    .await
    .map_err(|e| ServerError::Io(e.to_string()))??;
    match checked {
        Some((token, user)) => {
            state.brake.forget(&user.name);
            Ok((token, user))
        }
        None => Err(ApiError(
            axum::http::StatusCode::UNAUTHORIZED,
            "wrong name or password".to_string(),
        )),
    }
}

/// Records a failed sign-in of `name`.
pub(crate) fn failed(state: &AppState, name: &str) {
    state.brake.count(name);
}

/// The hash of a password no one has, checked when a name is no account (made once).
fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash(&new_password()).unwrap_or_default())
}

/// Changes `user`'s password if `old` is theirs.
pub(crate) async fn change_password(state: &AppState, user: &User, old: String, new: String) -> Result<(), ApiError> {
    check_password(&new)?;
    let (db, id, name) = (state.db.clone(), user.id, user.name.clone());
    let changed = tokio::task::spawn_blocking(move || -> Result<bool, ServerError> {
        let hash_now = {
            let connection = db.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            db::password_of_id(&connection, id)?
        };
        if !verify(&old, &hash_now) {
            return Ok(false);
        }
        let new_hash = hash(&new)?;
        let connection = db.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        db::set_password(&connection, id, &new_hash)?;
        db::audit(&connection, &name, "changed their password", &name)?;
        Ok(true)
    })
    .await
    .map_err(|e| ServerError::Io(e.to_string()))??;
    if changed {
        Ok(())
    } else {
        Err(ApiError::forbidden("the old password is not this account's"))
    }
}

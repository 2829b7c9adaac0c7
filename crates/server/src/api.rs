//! The JSON API beside the pages: every answer JSON, every error `{"error": "..."}` with a 4xx.
//! A cookie-signed request cannot come from another site's form: the session cookie is
//! SameSite=Strict, and a JSON body needs a preflight no other origin is granted.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::auth::{self, SESSION_COOKIE, SignedIn};
use crate::error::{ApiError, ServerError, Valid};

pub(crate) async fn healthz() -> axum::Json<Value> {
    axum::Json(json!({ "ok": true }))
}

#[derive(Deserialize)]
pub(crate) struct SignInBody {
    name: String,
    password: String,
}

pub(crate) async fn sign_in(
    State(state): State<AppState>,
    Valid(Json(body)): Valid<Json<SignInBody>>,
) -> Result<Response, ApiError> {
    let name = body.name.clone();
    let (token, user) = auth::sign_in(&state, body.name, body.password)
        .await
        .inspect_err(|error| {
            if error.0 == StatusCode::UNAUTHORIZED {
                auth::failed(&state, &name);
            }
        })?;
    Ok((
        [(header::SET_COOKIE, auth::set_cookie(SESSION_COOKIE, &token))],
        axum::Json(json!({ "name": user.name, "role": user.role.name() })),
    )
        .into_response())
}

pub(crate) async fn sign_out(
    State(state): State<AppState>,
    SignedIn(_): SignedIn,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    end_session(&state, &headers).await?;
    Ok((
        [(header::SET_COOKIE, auth::clear_cookie(SESSION_COOKIE))],
        axum::Json(json!({ "ok": true })),
    )
        .into_response())
}

/// Ends the request's session, if it has one.
pub(crate) async fn end_session(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    if let Some(token) = auth::cookie(headers, SESSION_COOKIE).map(str::to_string) {
        state
            .with_db(move |connection| crate::db::end_session(connection, &token))
            .await?;
    }
    Ok(())
}

pub(crate) async fn me(SignedIn(user): SignedIn) -> axum::Json<Value> {
    axum::Json(json!({ "name": user.name, "role": user.role.name() }))
}

#[derive(Deserialize)]
pub(crate) struct PasswordBody {
    old: String,
    new: String,
}

pub(crate) async fn change_password(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(Json(body)): Valid<Json<PasswordBody>>,
) -> Result<axum::Json<Value>, ApiError> {
    auth::change_password(&state, &user, body.old, body.new).await?;
    Ok(axum::Json(json!({ "ok": true })))
}

pub(crate) async fn not_found(uri: Uri) -> ApiError {
    ApiError(StatusCode::NOT_FOUND, format!("no such page: {}", uri.path()))
}

#[derive(Deserialize)]
pub(crate) struct StudentBody {
    open: Option<bool>,
    disabled: Option<bool>,
}

/// `PUT /api/students/NAME` (the teacher's): `{"open": true}` lets classmates choose the student's
/// programs (those that passed their check) as opponents, false takes that back; `{"disabled":
/// true}` ends their sessions, refuses their sign-ins and takes their programs out of play (their
/// queued games out of the queue; a tournament already begun keeps them), false gives it back.
pub(crate) async fn set_student(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(axum::extract::Path(name)): Valid<axum::extract::Path<String>>,
    Valid(Json(body)): Valid<Json<StudentBody>>,
) -> Result<axum::Json<Value>, ApiError> {
    if user.role != crate::db::Role::Teacher {
        return Err(ApiError::forbidden("only the teacher changes a student's account"));
    }
    if body.open.is_none() && body.disabled.is_none() {
        return Err(ApiError::bad_request(
            "nothing to change: expected \"open\" or \"disabled\"",
        ));
    }
    let (shown, places) = (name.clone(), state.runner.cores.places());
    let found = state
        .with_db(move |connection| -> Result<bool, ServerError> {
            let transaction = connection.unchecked_transaction()?;
            let mut found = true;
            if let Some(open) = body.open {
                found &= crate::db::set_open(&transaction, &name, open)?;
                let action = if open {
                    "opened the programs to the class of"
                } else {
                    "closed the programs to the class of"
                };
                crate::db::audit(&transaction, &user.name, action, &name)?;
            }
            if let Some(disabled) = body.disabled {
                found &= crate::db::set_student_disabled(&transaction, &name, disabled)?;
                let action = if disabled {
                    "disabled the student"
                } else {
                    "enabled the student"
                };
                crate::db::audit(&transaction, &user.name, action, &name)?;
            }
            if found {
                transaction.commit()?;
                // A student enabled again may have a version for the ladder.
                crate::ladder::top_up(connection, places)?;
            }
            Ok(found)
        })
        .await?;
    if !found {
        return Err(ApiError::not_found(format!("no student {shown:?}")));
    }
    state.runner.ring();
    Ok(axum::Json(
        json!({ "name": shown, "open": body.open, "disabled": body.disabled }),
    ))
}

#[derive(Deserialize)]
pub(crate) struct ProgramBody {
    disabled: bool,
}

/// `PUT /api/programs/ID` (the teacher's): `{"disabled": true}` takes a version out of play (the
/// student's newest other version that passed becomes the active one; its queued games leave the
/// queue, a tournament already begun keeps it), false gives it back.
pub(crate) async fn set_program(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(axum::extract::Path(id)): Valid<axum::extract::Path<i64>>,
    Valid(Json(body)): Valid<Json<ProgramBody>>,
) -> Result<axum::Json<Value>, ApiError> {
    if user.role != crate::db::Role::Teacher {
        return Err(ApiError::forbidden("only the teacher disables a version"));
    }
    let (disabled, places) = (body.disabled, state.runner.cores.places());
    let found = state
        .with_db(move |connection| -> Result<bool, ServerError> {
            let transaction = connection.unchecked_transaction()?;
            if !crate::db::set_program_disabled(&transaction, id, disabled)? {
                return Ok(false);
            }
            let action = if disabled {
                "disabled the version"
            } else {
                "enabled the version"
            };
            crate::db::audit(&transaction, &user.name, action, &format!("version #{id}"))?;
            transaction.commit()?;
            crate::ladder::top_up(connection, places)?;
            Ok(true)
        })
        .await?;
    if !found {
        return Err(ApiError::not_found(format!("no program {id}")));
    }
    state.runner.ring();
    Ok(axum::Json(json!({ "id": id, "disabled": disabled })))
}

#[derive(Deserialize)]
pub(crate) struct AuditQuery {
    pub(crate) before: Option<i64>,
}

/// How many actions one call of the audit log gives.
pub(crate) const AUDIT_PAGE: usize = 200;

/// `GET /api/audit[?before=ID]` (the teacher's): the newest 200 actions (before action ID), newest
/// first: who did what to what, and when.
pub(crate) async fn audit(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(axum::extract::Query(query)): Valid<axum::extract::Query<AuditQuery>>,
) -> Result<axum::Json<Vec<crate::db::AuditLine>>, ApiError> {
    if user.role != crate::db::Role::Teacher {
        return Err(ApiError::forbidden("the audit log is the teacher's"));
    }
    Ok(axum::Json(
        state
            .with_db(move |connection| crate::db::audit_lines(connection, query.before, AUDIT_PAGE))
            .await?,
    ))
}

/// `GET /api/students` (the teacher's): every student with their versions' count, active and
/// latest version, and whether their programs are open to the class.
pub(crate) async fn students(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
) -> Result<axum::Json<Vec<crate::db::StudentLine>>, ApiError> {
    if user.role != crate::db::Role::Teacher {
        return Err(ApiError::forbidden("the class's list is the teacher's"));
    }
    Ok(axum::Json(state.with_db(crate::db::students).await?))
}

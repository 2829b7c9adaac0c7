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
use crate::error::{ApiError, Valid};

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
    open: bool,
}

/// `PUT /api/students/NAME` (the teacher's): `{"open": true}` lets classmates choose the student's
/// programs (those that passed their check) as opponents; false takes that back.
pub(crate) async fn set_student(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(axum::extract::Path(name)): Valid<axum::extract::Path<String>>,
    Valid(Json(body)): Valid<Json<StudentBody>>,
) -> Result<axum::Json<Value>, ApiError> {
    if user.role != crate::db::Role::Teacher {
        return Err(ApiError::forbidden(
            "only the teacher opens a student's programs to the class",
        ));
    }
    let (shown, open) = (name.clone(), body.open);
    let found = state
        .with_db(move |connection| crate::db::set_open(connection, &name, open))
        .await?;
    if !found {
        return Err(ApiError::not_found(format!("no student {shown:?}")));
    }
    Ok(axum::Json(json!({ "name": shown, "open": open })))
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

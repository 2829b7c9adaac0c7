//! The pages for people: plain HTML from the binary (maud escapes every value it is given), no
//! script needed. Every form carries a token its session (or, to sign in, its own cookie) must
//! match: another site's page cannot post one.

use axum::Form;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use maud::{DOCTYPE, Markup, html};
use serde::Deserialize;

use crate::AppState;
use crate::auth::{self, FORM_COOKIE, SESSION_COOKIE};
use crate::db::User;
use crate::error::{ApiError, Valid};

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em;color:#222}\
form{margin:1em 0;display:grid;gap:.5em;max-width:20em}input{padding:.4em;font-size:1em}\
label{display:grid;gap:.25em}button{padding:.5em;font-size:1em}.error{color:#b00}header{display:flex;justify-content:space-between;align-items:baseline}";

fn page(title: &str, body: Markup) -> Html<String> {
    Html(
        html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    meta name="viewport" content="width=device-width, initial-scale=1";
                    title { (title) " - Othello" }
                    style { (maud::PreEscaped(STYLE)) }
                }
                body { (body) }
            }
        }
        .into_string(),
    )
}

fn login_page(token: &str, error: Option<&str>) -> Html<String> {
    page(
        "Sign in",
        html! {
            h1 { "Othello: sign in" }
            @if let Some(error) = error { p.error { (error) } }
            form method="post" action="/login" {
                input type="hidden" name="csrf" value=(token);
                label { "Name " input name="name" autocomplete="username" required; }
                label { "Password " input name="password" type="password" autocomplete="current-password" required; }
                button type="submit" { "Sign in" }
            }
        },
    )
}

/// The sign-in form, with a fresh token in its cookie and in the form.
pub(crate) async fn login_form() -> Response {
    let token = auth::new_token();
    (
        [(header::SET_COOKIE, auth::set_cookie(FORM_COOKIE, &token))],
        login_page(&token, None),
    )
        .into_response()
}

#[derive(Deserialize)]
pub(crate) struct LoginFields {
    name: String,
    password: String,
    csrf: String,
}

pub(crate) async fn login(
    State(state): State<AppState>,
    headers: HeaderMap,
    Valid(Form(fields)): Valid<Form<LoginFields>>,
) -> Result<Response, ApiError> {
    if auth::cookie(&headers, FORM_COOKIE) != Some(fields.csrf.as_str()) {
        return Err(ApiError::forbidden(
            "the form's token does not match: load the sign-in page again",
        ));
    }
    match auth::sign_in(&state, fields.name.clone(), fields.password).await {
        Ok((token, _)) => Ok((
            [(header::SET_COOKIE, auth::set_cookie(SESSION_COOKIE, &token))],
            Redirect::to("/"),
        )
            .into_response()),
        Err(error) => {
            if error.0 == StatusCode::UNAUTHORIZED {
                auth::failed(&state, &fields.name);
            }
            Ok((error.0, login_page(&fields.csrf, Some(&error.1))).into_response())
        }
    }
}

fn home_page(user: &User, message: Option<&str>) -> Html<String> {
    page(
        "Home",
        html! {
            header {
                h1 { "Othello" }
                form method="post" action="/logout" {
                    input type="hidden" name="csrf" value=(user.csrf);
                    button type="submit" { "Sign out" }
                }
            }
            p { "Signed in as " strong { (user.name) } " (" (user.role.name()) ")." }
            @if let Some(message) = message { p { (message) } }
            h2 { "Change your password" }
            form method="post" action="/password" {
                input type="hidden" name="csrf" value=(user.csrf);
                label { "Old password " input name="old" type="password" autocomplete="current-password" required; }
                label { "New password (8 to 128 characters) " input name="new" type="password" autocomplete="new-password" minlength="8" maxlength="128" required; }
                button type="submit" { "Change it" }
            }
        },
    )
}

/// The home page of a signed-in user; anyone else is sent to sign in.
pub(crate) async fn home(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    Ok(match auth::user_of(&state, &headers).await? {
        Some(user) => home_page(&user, None).into_response(),
        None => Redirect::to("/login").into_response(),
    })
}

#[derive(Deserialize)]
pub(crate) struct TokenFields {
    csrf: String,
}

/// The request's user, if its form carries their session's token.
async fn checked_user(state: &AppState, headers: &HeaderMap, csrf: &str) -> Result<User, ApiError> {
    let user = auth::user_of(state, headers)
        .await?
        .ok_or_else(ApiError::unauthorized)?;
    if user.csrf != csrf {
        return Err(ApiError::forbidden(
            "the form's token does not match: load the page again",
        ));
    }
    Ok(user)
}

pub(crate) async fn logout(
    State(state): State<AppState>,
    headers: HeaderMap,
    Valid(Form(fields)): Valid<Form<TokenFields>>,
) -> Result<Response, ApiError> {
    checked_user(&state, &headers, &fields.csrf).await?;
    crate::api::end_session(&state, &headers).await?;
    Ok((
        [(header::SET_COOKIE, auth::clear_cookie(SESSION_COOKIE))],
        Redirect::to("/login"),
    )
        .into_response())
}

#[derive(Deserialize)]
pub(crate) struct PasswordFields {
    csrf: String,
    old: String,
    new: String,
}

pub(crate) async fn password(
    State(state): State<AppState>,
    headers: HeaderMap,
    Valid(Form(fields)): Valid<Form<PasswordFields>>,
) -> Result<Response, ApiError> {
    let user = checked_user(&state, &headers, &fields.csrf).await?;
    let message = match auth::change_password(&state, &user, fields.old, fields.new).await {
        Ok(()) => "Your password is changed.".to_string(),
        Err(error) => error.1,
    };
    Ok(home_page(&user, Some(&message)).into_response())
}

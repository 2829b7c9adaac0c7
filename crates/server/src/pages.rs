//! The pages for people: plain HTML from the binary (maud escapes every value it is given), with
//! one script and one style sheet of the binary's own (no inline script: the pages forbid it).
//! Every form carries a token its session (or, to sign in, its own cookie) must match: another
//! site's page cannot post one; the script's calls are the JSON API's.

use axum::Form;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use maud::{DOCTYPE, Markup, html};
use serde::Deserialize;

use crate::AppState;
use crate::auth::{self, FORM_COOKIE, SESSION_COOKIE};
use crate::db::{self, Role, User};
use crate::error::{ApiError, ServerError, Valid};

/// The pages' style sheet and script, served from the binary.
pub(crate) const STYLE: &str = include_str!("../assets/app.css");
pub(crate) const SCRIPT: &str = include_str!("../assets/app.js");

/// What a page may load: only this server's own script and style sheet, no frame of another site.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

fn page(title: &str, body: Markup) -> Response {
    let html = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " - Othello" }
                link rel="stylesheet" href="/assets/app.css";
            }
            body {
                (body)
                script src="/assets/app.js" {}
            }
        }
    };
    (
        [
            (header::CONTENT_SECURITY_POLICY, POLICY),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        Html(html.into_string()),
    )
        .into_response()
}

/// `/assets/app.css` and `/assets/app.js`.
pub(crate) async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}

pub(crate) async fn script() -> Response {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

fn asset(kind: &'static str, text: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        text,
    )
        .into_response()
}

/// The top of every signed-in page: where to go, who is signed in, signing out.
fn top(user: &User) -> Markup {
    html! {
        header {
            h1 { a href="/" { "Othello" } }
            nav {
                a href="/" { "Home" }
                a href="/games" { "Games" }
                a href="/ladder" { "Ladder" }
                @if user.role == Role::Teacher {
                    a href="/class" { "Class" }
                    a href="/checks" { "Checks" }
                    a href="/queue" { "Queue" }
                    a href="/audit" { "Audit log" }
                }
                span.muted { (user.name) " (" (user.role.name()) ")" }
                form method="post" action="/logout" {
                    input type="hidden" name="csrf" value=(user.csrf);
                    button type="submit" { "Sign out" }
                }
            }
        }
    }
}

/// The sign-in form; after a refusal, with why and the name that was tried.
fn login_page(token: &str, error: Option<&str>, name: &str) -> Response {
    page(
        "Sign in",
        html! {
            h1 { "Othello: sign in" }
            @if let Some(error) = error { p.error { (error) } }
            form method="post" action="/login" {
                input type="hidden" name="csrf" value=(token);
                label { "Name " input name="name" value=(name) autocomplete="username" required; }
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
        login_page(&token, None, ""),
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
            Ok((error.0, login_page(&fields.csrf, Some(&error.1), &fields.name)).into_response())
        }
    }
}

/// What the home page lists.
struct Home {
    programs: Vec<crate::programs::Version>,
    playable: Vec<crate::programs::Version>,
}

/// The players a game may have, as the new game's choices show them.
fn player_choices(home: &Home, chosen: &str) -> Markup {
    let builtins = ["random", "greedy", "weighted", "preferred", "alphabeta:4"];
    html! {
        option value="me" selected[chosen == "me"] { "me (click the squares)" }
        optgroup label="The engine" {
            @for level in 1..=crate::games::seat::LEVELS.len() {
                @let value = format!("engine:{level}");
                option value=(value) selected[chosen == value] { "engine level " (level) }
            }
        }
        optgroup label="Built-in strategies" {
            @for name in builtins { option value=(name) { (name) } }
        }
        @if !home.playable.is_empty() {
            optgroup label="Programs" {
                @for version in &home.playable {
                    option value=(version.id) { (version.owner) "'s program #" (version.id) " (" (version.form) ")" }
                }
            }
        }
    }
}

fn home_page(user: &User, home: &Home, message: Option<&str>) -> Response {
    page(
        "Home",
        html! {
            (top(user))
            @if let Some(message) = message { p { (message) } }
            h2 { "Play" }
            p.muted { "A game against a computer, or two computers against each other (a scrimmage). Programs play under the tournament server's rules: 5 s of CPU time a move, in the sandbox." }
            form #new-game {
                label { "Black (moves first) " select name="black" { (player_choices(home, "me")) } }
                label { "White " select name="white" { (player_choices(home, "engine:2")) } }
                button type="submit" { "Start the game" }
                p.error #new-game-error {}
            }
            @if user.role == Role::Teacher {
                h2 { "Start a tournament" }
                p.muted { "Every student's active version (the newest that passed its check), on the tournament server's clock: 1 s a move, unused time carried over. Each pairing plays two games from a balanced opening, the colours swapped." }
                form #new-tournament {
                    label { "Name " input name="name" required maxlength="80"; }
                    label { "Format " select name="format" { option value="round robin" { "round robin" } option value="swiss" { "Swiss" } } }
                    label { "Rounds " input name="rounds" type="number" min="1" max="20" value="1" required; }
                    label { "Scoring "
                        select name="scoring" {
                            option value="othello" { "othello's: a failure loses; ties by disc margin, then head-to-head" }
                            option value="course-server" { "as the course's server: a time-out ties; ties by cumulative points; a bye opponent" }
                        }
                    }
                    button type="submit" { "Start it" }
                    p.error #new-tournament-error {}
                }
            }
            // The teacher's list is everyone's.
            h2 { @if user.role == Role::Teacher { "Programs" } @else { "Your programs" } }
            form #upload enctype="multipart/form-data" {
                label { "Its form "
                    select name="form" {
                        option value="strategy" { "strategy: class Strategy, best_strategy(board, player, best_move, still_running)" }
                        option value="quickmove" { "quickmove: quickMove(board, player)" }
                        option value="argv" { "argv: python3 FILE BOARD TOKEN prints its move" }
                    }
                }
                label { "File (a .py of at most 1 MiB) " input type="file" name="file" accept=".py,text/x-python" required; }
                button type="submit" { "Upload and check it" }
                p #upload-verdict {}
            }
            @if home.programs.is_empty() {
                p.muted { "No program uploaded yet." }
            } @else {
                table {
                    tr { th { "version" } th { "owner" } th { "form" } th { "uploaded" } th { "its check game" } th { "source" } }
                    @for version in &home.programs {
                        tr {
                            td { a href=(format!("/programs/{}", version.id)) { "#" (version.id) } }
                            td.name { (version.owner) }
                            td { (version.form) }
                            td { (version.created) }
                            td class=(if version.passed { "ok" } else { "error" }) {
                                (version.verdict) @if version.disabled { " (disabled by the teacher)" }
                            }
                            td { a href=(format!("/api/programs/{}/source", version.id)) { "source" } }
                        }
                    }
                }
            }
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

/// Versions a list shows.
const VERSIONS_SHOWN: usize = 200;

async fn home_of(state: &AppState, user: &User) -> Result<Home, ApiError> {
    let user = user.clone();
    state
        .with_db(move |connection| {
            let owner = (user.role != Role::Teacher).then_some(user.id);
            let mut programs = db::programs(connection, owner)?;
            programs.truncate(VERSIONS_SHOWN);
            Ok(Home {
                programs,
                playable: db::playable_programs(connection, &user, VERSIONS_SHOWN)?,
            })
        })
        .await
}

/// The home page of a signed-in user; anyone else is sent to sign in.
pub(crate) async fn home(State(state): State<AppState>, Reader(user): Reader) -> Result<Response, ApiError> {
    let home = home_of(&state, &user).await?;
    Ok(home_page(&user, &home, None))
}

/// A page's signed-in user: anyone else is sent to sign in.
pub(crate) struct Reader(User);

impl axum::extract::FromRequestParts<AppState> for Reader {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &AppState) -> Result<Reader, Response> {
        match auth::user_of(state, &parts.headers).await {
            Ok(Some(user)) => Ok(Reader(user)),
            Ok(None) => Err(Redirect::to("/login").into_response()),
            Err(error) => Err(error.into_response()),
        }
    }
}

/// `/games`: the games in progress and the newest ones over.
pub(crate) async fn games(State(state): State<AppState>, Reader(user): Reader) -> Result<Response, ApiError> {
    let (games, tournaments) = state
        .with_db(|connection| {
            Ok::<_, ApiError>((
                db::recent_games(connection, 100)?,
                crate::tournaments::list_rows(connection)?,
            ))
        })
        .await?;
    let (live, over): (Vec<_>, Vec<_>) = games
        .iter()
        .partition(|game| matches!(game.status.as_str(), "queued" | "running"));
    let rows = |games: &[&db::GameSummary]| {
        html! {
            table {
                tr { th { "game" } th { "black" } th { "white" } th { "status" } th { "result" } th { "asked for" } }
                @for game in games {
                    tr {
                        td { a href=(format!("/games/{}", game.id)) { "#" (game.id) } }
                        td.name { (game.black) }
                        td.name { (game.white) }
                        td { (game.status) }
                        td {
                            @if let Some(result) = &game.result {
                                (result.black) "-" (result.white) " " (result.winner)
                                @if let Some(forfeit) = &result.forfeit { " (" (forfeit.side) " forfeited)" }
                            }
                        }
                        td { (game.created) }
                    }
                }
            }
        }
    };
    Ok(page(
        "Games",
        html! {
            (top(&user))
            h2 { "In progress" }
            @if live.is_empty() { p.muted { "No game is being played." } } @else { (rows(&live)) }
            h2 { "Over" }
            @if over.is_empty() { p.muted { "No game has ended yet." } } @else { (rows(&over)) }
            h2 { "Tournaments" }
            @if tournaments.is_empty() { p.muted { "No tournament yet." } } @else {
                ul {
                    @for t in &tournaments {
                        li { a href=(format!("/tournaments/{}", t.id)) { (t.name) } " (" (t.format) ", " (t.status) ")" }
                    }
                }
            }
        },
    ))
}

/// `/ladder`: the ratings, each with its uncertainty, best first; the teacher's button starts or
/// stops it. While it runs the page follows it.
pub(crate) async fn ladder(State(state): State<AppState>, Reader(user): Reader) -> Result<Response, ApiError> {
    let view = state.with_db(crate::ladder::view).await?;
    let (active, older): (Vec<_>, Vec<_>) = view.ratings.iter().partition(|r| r.active);
    let rows = |ratings: &[&crate::ladder::VersionRating]| {
        html! {
            table.ladder {
                tr { th { "rank" } th { "student" } th { "version" } th { "rating" } th { "± 2 deviations" } th { "pairs" } th { "points" } th { "last ratings" } }
                @for (k, r) in ratings.iter().enumerate() {
                    tr {
                        td { (k + 1) } td.name { (r.student) } td { "#" (r.version) }
                        td { (format!("{:.0}", r.rating)) } td { (format!("± {:.0}", 2.0 * r.deviation)) }
                        td { (r.pairs) } td { (r.points) }
                        td.muted {
                            (r.history.iter().rev().take(5).rev().map(|h| format!("{:.0}", h.rating)).collect::<Vec<_>>().join(" → "))
                        }
                    }
                }
            }
        }
    };
    Ok(page(
        "Ladder",
        html! {
            (top(&user))
            @if view.running { meta http-equiv="refresh" content="5"; }
            h2 { "Ladder" }
            p #ladder-status {
                @if view.running {
                    "Running: " (view.unfinished) @if view.unfinished == 1 { " pair" } @else { " pairs" }
                    " queued or being played, behind every other game."
                }
                @else { "Stopped." }
                " " (view.pairs.len()) " pairs played. · " a href="/api/ladder" { "JSON" }
            }
            p.muted { "Scrimmages between the students' active versions, two games a pair (colours swapped, from a balanced opening), rated by Glicko-2 after each pair. A new version starts afresh at 1500 ± 700; older versions keep their ratings below." }
            @if user.role == Role::Teacher {
                form #ladder-switch data-running=(view.running) {
                    button type="submit" { @if view.running { "Stop the ladder" } @else { "Start the ladder" } }
                    p.error #ladder-error {}
                }
            }
            h3 { "Active versions" }
            @if active.is_empty() { p.muted { "No active version has played a pair yet." } } @else { (rows(&active)) }
            @if !older.is_empty() {
                h3 { "Older versions" }
                (rows(&older))
            }
        },
    ))
}

/// `/class` (the teacher's): every student, their versions, which one plays, and whether
/// classmates may choose it.
pub(crate) async fn class(State(state): State<AppState>, Reader(user): Reader) -> Result<Response, ApiError> {
    if user.role != Role::Teacher {
        return Err(ApiError::forbidden("the class's page is the teacher's"));
    }
    let (students, (checks, marks), ladder) = state
        .with_db(|connection| -> Result<_, ServerError> {
            Ok((
                db::students(connection)?,
                crate::checks::class_marks(connection)?,
                crate::ladder::view(connection)?,
            ))
        })
        .await?;
    let rating = |version: Option<i64>| ladder.ratings.iter().find(|r| Some(r.version) == version);
    let marks_of = |name: &str| marks.iter().find(|(student, _)| student == name).map(|(_, runs)| runs);
    Ok(page(
        "Class",
        html! {
            (top(&user))
            h2 { "The class" }
            p.muted { "A student's active version is the newest that passed its check: it plays in tournaments, and classmates may choose it when its box is ticked." }
            table #class {
                tr {
                    th { "student" } th { "versions" } th { "active" } th { "latest, and its check" }
                    @for check in &checks { th { (check) " (best run)" } }
                    th { "ladder rating" } th { "open to the class" } th { "disabled" }
                }
                @for student in &students {
                    tr {
                        td.name { a href=(format!("/students/{}", student.name)) { (student.name) } }
                        td { (student.versions) }
                        td { @if let Some(id) = student.active { a href=(format!("/programs/{id}")) { "#" (id) } } @else { span.muted { "none" } } }
                        td {
                            @if let Some(id) = student.latest { "#" (id) ": " }
                            (student.latest_verdict.as_deref().unwrap_or(""))
                        }
                        @for k in 0..checks.len() {
                            td {
                                @match marks_of(&student.name).and_then(|runs| runs[k].as_ref()) {
                                    Some(run) => {
                                        a href=(format!("/programs/{}", run.program)) { "#" (run.program) } " "
                                        @match run.passed { Some(true) => span.ok { "passed" }, Some(false) => span.error { "failed" }, None => span.muted { "running" } }
                                        @if let Some(share) = run.share { " (" (format!("{:.0}%", 100.0 * share)) ")" }
                                    }
                                    None => span.muted { "none" },
                                }
                            }
                        }
                        td {
                            @if let Some(r) = rating(student.active) { (format!("{:.0} ± {:.0}", r.rating, 2.0 * r.deviation)) } @else { span.muted { "unrated" } }
                        }
                        td { input type="checkbox" class="open" data-student=(student.name) checked[student.open] aria-label=(format!("open {}'s programs to the class", student.name)); }
                        td { input type="checkbox" class="disable-student" data-student=(student.name) checked[student.disabled] aria-label=(format!("disable {}", student.name)); }
                    }
                }
            }
            p.error #class-error {}
            p.muted { "A disabled student cannot sign in and their programs play no game: their queued games leave the queue (a tournament already begun keeps them)." }
        },
    ))
}

/// `/students/NAME` (the teacher's): a student's versions, each with its check game's verdict, a
/// link to what it did, and a box to disable it.
pub(crate) async fn student(
    State(state): State<AppState>,
    Reader(user): Reader,
    Valid(axum::extract::Path(name)): Valid<axum::extract::Path<String>>,
) -> Result<Response, ApiError> {
    if user.role != Role::Teacher {
        return Err(ApiError::forbidden("a student's page is the teacher's"));
    }
    let shown = name.clone();
    let (line, versions) = state
        .with_db(move |connection| -> Result<_, ApiError> {
            let line = db::students(connection)?
                .into_iter()
                .find(|s| s.name == name)
                .ok_or_else(|| ApiError::not_found(format!("no student {name:?}")))?;
            let owner =
                db::user_id(connection, &name)?.ok_or_else(|| ApiError::not_found(format!("no student {name:?}")))?;
            Ok((line, db::programs(connection, Some(owner))?))
        })
        .await?;
    Ok(page(
        &shown,
        html! {
            (top(&user))
            h2 { (shown) @if line.disabled { " (disabled)" } }
            p.muted {
                (line.versions) " versions; the active one (the newest that passed and is not disabled): "
                @if let Some(id) = line.active { a href=(format!("/programs/{id}")) { "#" (id) } } @else { "none" }
            }
            table #versions {
                tr { th { "version" } th { "form" } th { "uploaded" } th { "its check game" } th { "source" } th { "disabled" } }
                @for version in &versions {
                    tr {
                        td { a href=(format!("/programs/{}", version.id)) { "#" (version.id) } }
                        td { (version.form) }
                        td { (version.created) }
                        td class=(if version.passed { "ok" } else { "error" }) { (version.verdict) }
                        td { a href=(format!("/api/programs/{}/source", version.id)) { "source" } }
                        td { input type="checkbox" class="disable-version" data-version=(version.id) checked[version.disabled] aria-label=(format!("disable version {}", version.id)); }
                    }
                }
            }
            p.error #class-error {}
        },
    ))
}

/// `/programs/ID` (its owner and the teacher): a version, its checks, its games with their
/// outcomes, failures and stderr tails.
pub(crate) async fn version(
    State(state): State<AppState>,
    Reader(user): Reader,
    Valid(axum::extract::Path(id)): Valid<axum::extract::Path<i64>>,
) -> Result<Response, ApiError> {
    let reader = user.clone();
    let detail = state
        .with_db(move |connection| crate::programs::detail_of(connection, &reader, id))
        .await?;
    let v = &detail.version;
    Ok(page(
        &format!("Version {id}"),
        html! {
            (top(&user))
            h2 { (v.owner) "'s version #" (v.id) }
            p #version-status {
                (v.form) ", uploaded " (v.created) ". Its check game: "
                span class=(if v.passed { "ok" } else { "error" }) { (v.verdict) }
                @if detail.active { ". The active version." }
                @if v.disabled { ". Disabled by the teacher." }
                " · " a href=(format!("/api/programs/{id}/source")) { "source" }
                " · " a href=(format!("/api/programs/{id}")) { "JSON" }
            }
            h3 { "Lab checks" }
            @if detail.checks.is_empty() { p.muted { "No check has run on it." } } @else {
                table #version-checks {
                    tr { th { "check" } th { "games" } th { "share" } th { "passed" } }
                    @for c in &detail.checks {
                        tr {
                            td { (c.check) }
                            td { (c.run.finished) " of " (c.run.games) }
                            td { @if let Some(share) = c.run.share { (format!("{:.1}%", 100.0 * share)) } }
                            td { @match c.run.passed { Some(true) => span.ok { "yes" }, Some(false) => span.error { "no" }, None => span.muted { "not yet" } } }
                        }
                    }
                }
            }
            h3 { "Its newest games" }
            @if detail.games.is_empty() { p.muted { "No game yet." } } @else {
                table #version-games {
                    tr { th { "game" } th { "for" } th { "as" } th { "against" } th { "status" } th { "outcome" } th { "failure, and its stderr" } }
                    @for g in &detail.games {
                        tr {
                            td { a href=(format!("/games/{}", g.id)) { "#" (g.id) } }
                            td { (g.kind) } td { (g.side) } td.name { (g.opponent) } td { (g.status) }
                            td { (g.outcome.as_deref().unwrap_or("")) }
                            td {
                                @if let Some(failure) = &g.failure { span.error { (failure) } }
                                @if let (Some(_), Some(tail)) = (&g.failure, &g.stderr) { pre.stderr { (tail) } }
                            }
                        }
                    }
                }
            }
        },
    ))
}

/// `/checks` (the teacher's): the lab checks, each run on every version, and a form for a new one.
pub(crate) async fn checks(State(state): State<AppState>, Reader(user): Reader) -> Result<Response, ApiError> {
    if user.role != Role::Teacher {
        return Err(ApiError::forbidden("checks and grades are the teacher's"));
    }
    let checks = state.with_db(crate::checks::views).await?;
    Ok(page(
        "Lab checks",
        html! {
            (top(&user))
            h2 { "Lab checks" }
            p.muted { "A check runs on every student's active version, and on every new version that passes its check game. " a href="/api/grades.csv" { "Gradebook (CSV)" } }
            form #new-check {
                label { "Name " input name="name" required maxlength="80" placeholder="Lab 4: 75% of the discs against random"; }
                label { "Opponent (random, greedy, engine:2, a version's number) " input name="opponent" required value="random"; }
                label { "Games " input name="games" type="number" min="1" max="200" value="100" required; }
                label { "Measure " select name="measure" { option value="discs" { "share of the discs (as Lab 4 counts)" } option value="wins" { "share of the points (a win 1, a tie 1/2)" } } }
                label { "Share to pass (0 to 1) " input name="pass" type="number" min="0" max="1" step="0.01" value="0.75" required; }
                button type="submit" { "Define it" }
                p.error #new-check-error {}
            }
            @for check in &checks {
                h3 { (check.name) }
                p.muted { (check.games) " games against " (check.opponent) ", " (check.measure) ", " (format!("{:.0}%", 100.0 * check.pass)) " to pass" }
                @if check.runs.is_empty() { p.muted { "No version to run it on yet." } } @else {
                    table.check {
                        tr { th { "student" } th { "version" } th { "games" } th { "share" } th { "passed" } }
                        @for run in &check.runs {
                            tr {
                                td.name { (run.student) }
                                td { a href=(format!("/programs/{}", run.program)) { "#" (run.program) } }
                                td { (run.finished) " of " (run.games) }
                                td { @if let Some(share) = run.share { (format!("{:.1}%", 100.0 * share)) } }
                                td { @match run.passed { Some(true) => span.ok { "yes" }, Some(false) => span.error { "no" }, None => span.muted { "not yet" } } }
                            }
                        }
                    }
                }
            }
        },
    ))
}

/// `/queue` (the teacher's): the whole server's games running and queued, in the order served.
pub(crate) async fn queue(State(state): State<AppState>, Reader(user): Reader) -> Result<Response, ApiError> {
    if user.role != Role::Teacher {
        return Err(ApiError::forbidden("the whole queue is the teacher's"));
    }
    let games = state.with_db(|connection| db::queue(connection, 1000)).await?;
    Ok(page(
        "Queue",
        html! {
            (top(&user))
            meta http-equiv="refresh" content="5";
            h2 { "The queue" }
            p.muted { "Games running, then queued in the order they will be played: the oldest first, the ladder's behind every other. This page follows it." }
            @if games.is_empty() { p.muted #queue-empty { "Nothing is queued or running." } } @else {
                table #queue {
                    tr { th { "game" } th { "for" } th { "asked by" } th { "black" } th { "white" } th { "status" } th { "asked for" } th { "started" } }
                    @for g in &games {
                        tr {
                            td { a href=(format!("/games/{}", g.id)) { "#" (g.id) } }
                            td { (g.kind) } td.name { (g.asked_by) } td.name { (g.black) } td.name { (g.white) }
                            td { (g.status) } td { (g.created) } td { (g.started.as_deref().unwrap_or("")) }
                        }
                    }
                }
            }
        },
    ))
}

/// `/audit` (the teacher's): who did what, newest first, 200 a page.
pub(crate) async fn audit(
    State(state): State<AppState>,
    Reader(user): Reader,
    Valid(axum::extract::Query(query)): Valid<axum::extract::Query<crate::api::AuditQuery>>,
) -> Result<Response, ApiError> {
    if user.role != Role::Teacher {
        return Err(ApiError::forbidden("the audit log is the teacher's"));
    }
    let lines = state
        .with_db(move |connection| db::audit_lines(connection, query.before, crate::api::AUDIT_PAGE))
        .await?;
    Ok(page(
        "Audit log",
        html! {
            (top(&user))
            h2 { "Audit log" }
            p.muted { "Every change to the class, its programs and its games, with who made it and when (UTC)." }
            table #audit {
                tr { th { "when" } th { "who" } th { "did" } th { "to" } }
                @for line in &lines {
                    tr { td { (line.at) } td.name { (line.actor) } td { (line.action) } td.name { (line.target) } }
                }
            }
            @if lines.len() == crate::api::AUDIT_PAGE {
                @if let Some(last) = lines.last() { p { a href=(format!("/audit?before={}", last.id)) { "Older" } } }
            }
        },
    ))
}

/// `/tournaments/ID`: the standings, the crosstable and the games, again every few seconds while
/// it runs.
pub(crate) async fn tournament(
    State(state): State<AppState>,
    Reader(user): Reader,
    Valid(axum::extract::Path(id)): Valid<axum::extract::Path<i64>>,
) -> Result<Response, ApiError> {
    let view = crate::tournaments::page_view(&state, id).await?;
    let running = view.status == "running";
    let body = html! {
        (top(&user))
        @if running { meta http-equiv="refresh" content="3"; }
        h2 { (view.name) }
        p #tournament-status {
            (view.format) ", " (view.rounds) " round" @if view.rounds != 1 { "s" } ": "
            (view.finished) " of " (view.games) " games played"
            @if running { " (this page follows it)" } @else { ", finished" }
            " · " a href=(format!("/api/tournaments/{id}/csv")) { "CSV" }
            " · " a href=(format!("/api/tournaments/{id}")) { "JSON" }
        }
        p.muted #tournament-scoring { "Scoring: " (view.scoring_rules) "." }
        @let cumulative = view.scoring == "course-server";
        table #standings {
            tr {
                th { "rank" } th { "player" } th { "points" } th { "games" } th { "wins" } th { "draws" } th { "losses" } th { "forfeits" } th { "discs" }
                @if cumulative { th { "cumulative" } }
            }
            @for s in &view.standings {
                tr {
                    td { (s.rank) } td.name { (s.player) } td { (s.points) } td { (s.games) } td { (s.wins) }
                    td { (s.draws) } td { (s.losses) } td class=(if s.forfeits > 0 { "error" } else { "" }) { (s.forfeits) } td { (s.discs) }
                    @if cumulative { td { (s.cumulative) } }
                }
            }
        }
        @for s in view.standings.iter().filter(|s| !s.forfeit_reasons.is_empty()) {
            h3 { (s.player) ": " (s.forfeits) " forfeited" }
            ul {
                @for f in &s.forfeit_reasons {
                    li { "round " (f.round) " as " (f.color) " against " (f.opponent) ", move " (f.ply) ": " (f.failure) }
                }
            }
        }
        h3 { "Crosstable (points of the row's player against the column's)" }
        table #crosstable {
            tr { th {} @for name in &view.players { th.name { (name) } } }
            @for (k, row) in view.crosstable.iter().enumerate() {
                tr {
                    th.name { (view.players[k]) }
                    @for cell in row { td { @if let Some(points) = cell { (points) } @else { "-" } } }
                }
            }
        }
        h3 { "Games" }
        table {
            tr { th { "game" } th { "round" } th { "black" } th { "white" } th { "status" } th { "result" } }
            @for g in &view.list {
                tr {
                    td {
                        a href=(format!("/games/{}", g.id)) { "#" (g.id) }
                        @if g.status == "finished" { " " a href=(format!("/games/{}/replay", g.id)) { "replay" } }
                    }
                    td { (g.round) } td.name { (g.black) } td.name { (g.white) } td { (g.status) }
                    td { @if let Some(r) = &g.result { (r.black) "-" (r.white) " " (r.winner) @if let Some(f) = &r.forfeit { " (" (f.side) " forfeited)" } } }
                }
            }
        }
    };
    Ok(page(&view.name, body))
}

/// `/games/ID`: the game, live (its events stream keeps the page up to date) or over.
pub(crate) async fn game(
    State(state): State<AppState>,
    Reader(user): Reader,
    Valid(axum::extract::Path(id)): Valid<axum::extract::Path<i64>>,
) -> Result<Response, ApiError> {
    let known = state.runner.live.get(id).is_some()
        || state
            .with_db(move |connection| db::game(connection, id))
            .await?
            .is_some();
    if !known {
        return Err(ApiError::not_found(format!("no game {id}")));
    }
    let side = |color: &str| {
        html! {
            div.side #(color) {
                div { span.name {} " (" (color) ")" }
                div.discs {}
                div.clock.muted {}
                div.thinking.muted {}
            }
        }
    };
    Ok(page(
        &format!("Game {id}"),
        html! {
            (top(&user))
            main data-game=(id) data-me=(user.id) {
                h2 { "Game " (id) }
                div.game {
                    div.board #board role="grid" aria-label="the board" {}
                    div.players {
                        (side("black"))
                        (side("white"))
                        div #status aria-live="polite" {}
                        div.error #move-error {}
                        div #moves {}
                        p #records hidden {
                            a href=(format!("/games/{id}/replay")) { "Replay it move by move" } " · "
                            a href=(format!("/api/games/{id}/ggf")) { "GGF" } " · "
                            a href=(format!("/api/games/{id}/log")) { "JSON log" } " · "
                            a href=(format!("/api/games/{id}/stderr")) { "the programs' stderr" }
                        }
                    }
                }
            }
        },
    ))
}

/// `/games/ID/replay`: a finished game on the replay page of `othello replay --html`.
pub(crate) async fn replay(
    State(state): State<AppState>,
    _: Reader,
    Valid(axum::extract::Path(id)): Valid<axum::extract::Path<i64>>,
) -> Result<Response, ApiError> {
    let (names, game) = crate::games::finished_game(&state, id).await?;
    let html = othello_course::replay_page::page(
        &format!("Game {id}: {} vs {}", names[0], names[1]),
        &[(names[0].clone(), names[1].clone(), &game)],
    );
    // The replay page is one file with its script inside: that script, and nothing from elsewhere.
    Ok((
        [
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        Html(html),
    )
        .into_response())
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
    let home = home_of(&state, &user).await?;
    Ok(home_page(&user, &home, Some(&message)))
}

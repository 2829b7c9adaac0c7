//! The class's Othello server (`othello serve`): one machine, one data folder holding an embedded
//! SQLite database. Accounts (the teacher's, made by [`init`], the students', by [`add_students`])
//! with argon2id passwords and HttpOnly, SameSite session cookies; uploads checked by a game in the
//! sandbox (`programs`); games of people and programs, queued one a core (`games`, `cores`) and
//! watched live; the teacher's tournaments (`tournaments`) and lab checks (`checks`); the pages and
//! the JSON API ([`serve`]), whose answers' schemas [`schemas`] gives.
//!
//! ```
//! let data = tempfile::tempdir().unwrap();
//! let teacher = othello_server::init(data.path()).unwrap();
//! assert_eq!(teacher.name, "teacher");
//! let students = othello_server::add_students(data.path(), &["ann".to_string()]).unwrap();
//! assert_eq!(students[0].name, "ann");
//! assert!(othello_server::init(data.path()).is_err(), "a data folder is made once");
//! ```

mod api;
mod auth;
mod checks;
mod cores;
mod db;
mod error;
mod games;
mod ladder;
mod pages;
mod programs;
mod tournaments;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use auth::Credentials;
pub use error::ServerError;

/// Makes a new data folder's database and the teacher's account; the password comes back once.
pub fn init(data: &Path) -> Result<Credentials, ServerError> {
    let mut connection = db::create(data)?;
    let password = auth::new_password();
    db::add_user(&mut connection, "teacher", &auth::hash(&password)?, db::Role::Teacher)?;
    Ok(Credentials {
        name: "teacher".to_string(),
        password,
    })
}

/// Adds a student account for each name (all or none: a name taken or not allowed refuses them
/// all); each password comes back once.
pub fn add_students(data: &Path, names: &[String]) -> Result<Vec<Credentials>, ServerError> {
    let mut connection = db::open(data)?;
    let accounts: Vec<(Credentials, String)> = names
        .iter()
        .map(|name| {
            auth::check_name(name)?;
            let password = auth::new_password();
            let hash = auth::hash(&password)?;
            Ok((
                Credentials {
                    name: name.clone(),
                    password,
                },
                hash,
            ))
        })
        .collect::<Result<_, ServerError>>()?;
    db::add_students(&mut connection, &accounts)?;
    Ok(accounts.into_iter().map(|(credentials, _)| credentials).collect())
}

/// The JSON Schemas of the API's answers, by name (docs/schemas/ holds them, docs/server.md says
/// which call answers which): a game, a list of games, a program version and a list of them, a
/// tournament and a list of them, the class, the checks, the ladder, an error.
pub fn schemas() -> Vec<(&'static str, serde_json::Value)> {
    fn of<T: schemars::JsonSchema>(name: &str) -> serde_json::Value {
        let mut schema = serde_json::to_value(schemars::schema_for!(T)).expect("a schema serializes");
        schema["title"] = name.into();
        schema
    }
    vec![
        (
            "othello-server-game",
            of::<games::live::GameView>("othello-server-game"),
        ),
        (
            "othello-server-games",
            of::<Vec<db::GameSummary>>("othello-server-games"),
        ),
        (
            "othello-server-program",
            of::<programs::Version>("othello-server-program"),
        ),
        (
            "othello-server-programs",
            of::<Vec<programs::Version>>("othello-server-programs"),
        ),
        (
            "othello-server-tournament",
            of::<tournaments::TournamentView>("othello-server-tournament"),
        ),
        (
            "othello-server-tournaments",
            of::<Vec<tournaments::TournamentLine>>("othello-server-tournaments"),
        ),
        (
            "othello-server-students",
            of::<Vec<db::StudentLine>>("othello-server-students"),
        ),
        (
            "othello-server-checks",
            of::<Vec<checks::CheckView>>("othello-server-checks"),
        ),
        (
            "othello-server-version",
            of::<programs::VersionDetail>("othello-server-version"),
        ),
        ("othello-server-audit", of::<Vec<db::AuditLine>>("othello-server-audit")),
        (
            "othello-server-ladder",
            of::<ladder::LadderView>("othello-server-ladder"),
        ),
        ("othello-server-error", of::<error::ErrorBody>("othello-server-error")),
    ]
}

/// What `serve` is given.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub data: PathBuf,
    pub listen: SocketAddr,
    /// Games of programs played at once, each pinned to a core (more than the cores share them).
    pub games: usize,
}

/// What every request's handler shares: the database.
#[derive(Clone)]
pub(crate) struct AppState {
    pub(crate) db: Arc<Mutex<rusqlite::Connection>>,
    /// Failed sign-ins by name.
    pub(crate) brake: Arc<auth::Brake>,
    /// Uploads by account: each costs a check game.
    pub(crate) uploads: Arc<auth::Brake>,
    /// The data folder: the programs' files are under it.
    pub(crate) data: PathBuf,
    pub(crate) runner: Arc<games::run::Runner>,
}

impl AppState {
    /// Runs `work` with the database, on a thread that may block (SQLite does).
    /// Its error is the work's: a `ServerError`, or an `ApiError` when the work refuses a request.
    pub(crate) async fn with_db<T: Send + 'static, E: From<ServerError> + Send + 'static>(
        &self,
        work: impl FnOnce(&rusqlite::Connection) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E> {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || work(&db.lock().unwrap_or_else(std::sync::PoisonError::into_inner)))
            .await
            .map_err(|e| E::from(ServerError::Io(e.to_string())))?
    }
}

/// Serves until the process is stopped; `listening` hears the address once it is bound (with
/// port 0, the one the system chose).
pub fn serve(options: &ServeOptions, listening: impl FnOnce(SocketAddr)) -> Result<(), ServerError> {
    let mut connection = db::open(&options.data)?;
    let (interrupted, again) = db::recover_games(&mut connection)?;
    if interrupted + again > 0 {
        eprintln!(
            "{} games were running when the server stopped: {interrupted} marked interrupted, {again} of tournaments, checks and the ladder queued to be played again",
            interrupted + again
        );
    }
    tournaments::advance_all(&connection)?;
    ladder::top_up(&connection, options.games)?;
    let db = Arc::new(Mutex::new(connection));
    let runner = Arc::new(games::run::Runner {
        db: Arc::clone(&db),
        data: options.data.clone(),
        cores: Arc::new(cores::Cores::new(options.games)),
        live: games::live::Live::default(),
        settings: othello_engine::settings::EngineSettings::default(),
        bell: Default::default(),
    });
    {
        let runner = Arc::clone(&runner);
        std::thread::Builder::new()
            .name("dispatcher".to_string())
            .spawn(move || runner.dispatch())
            .map_err(|e| ServerError::Io(format!("cannot start the queue: {e}")))?;
    }
    let state = AppState {
        db,
        brake: Arc::new(auth::Brake::sign_ins()),
        uploads: Arc::new(auth::Brake::new(
            programs::UPLOADS_A_MINUTE,
            std::time::Duration::from_secs(60),
        )),
        data: options.data.clone(),
        runner,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ServerError::Io(format!("cannot start the server's runtime: {e}")))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|e| ServerError::Io(format!("cannot listen on {}: {e}", options.listen)))?;
        let address = listener
            .local_addr()
            .map_err(|e| ServerError::Io(format!("cannot listen on {}: {e}", options.listen)))?;
        listening(address);
        axum::serve(listener, router(state))
            .await
            .map_err(|e| ServerError::Io(format!("the server stopped: {e}")))
    })
}

/// Every route: the pages for people and the JSON API beside them.
fn router(state: AppState) -> axum::Router {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/healthz", get(api::healthz))
        .route("/api/session", post(api::sign_in).delete(api::sign_out))
        .route("/api/me", get(api::me))
        .route("/api/password", post(api::change_password))
        .route(
            "/api/programs",
            post(programs::upload)
                .get(programs::list)
                // A program and its form's field, with room for the multipart framing.
                .layer(axum::extract::DefaultBodyLimit::max(programs::MAX_PROGRAM + (16 << 10))),
        )
        .route("/api/programs/{id}/source", get(programs::source))
        .route("/api/programs/{id}", get(programs::detail).put(api::set_program))
        .route("/api/queue", get(games::queue))
        .route("/api/audit", get(api::audit))
        .route("/api/students", get(api::students))
        .route("/api/students/{name}/results.json", get(checks::results_json))
        .route("/api/checks", post(checks::create).get(checks::list))
        .route("/api/grades.csv", get(checks::grades_csv))
        .route("/api/students/{name}", axum::routing::put(api::set_student))
        .route("/api/ladder", get(ladder::get).put(ladder::set))
        .route("/api/tournaments", post(tournaments::create).get(tournaments::list))
        .route("/api/tournaments/{id}", get(tournaments::one))
        .route("/api/tournaments/{id}/csv", get(tournaments::csv))
        .route("/api/games", post(games::create).get(games::list))
        .route("/api/games/{id}", get(games::one))
        .route("/api/games/{id}/moves", post(games::person_moves))
        .route("/api/games/{id}/events", get(games::events))
        .route("/api/games/{id}/log", get(games::log))
        .route("/api/games/{id}/ggf", get(games::ggf))
        .route("/api/games/{id}/stderr", get(games::stderr))
        .route("/", get(pages::home))
        .route("/games", get(pages::games))
        .route("/class", get(pages::class))
        .route("/ladder", get(pages::ladder))
        .route("/queue", get(pages::queue))
        .route("/checks", get(pages::checks))
        .route("/audit", get(pages::audit))
        .route("/students/{name}", get(pages::student))
        .route("/programs/{id}", get(pages::version))
        .route("/tournaments/{id}", get(pages::tournament))
        .route("/games/{id}", get(pages::game))
        .route("/games/{id}/replay", get(pages::replay))
        .route("/assets/app.css", get(pages::style))
        .route("/assets/app.js", get(pages::script))
        .route("/login", get(pages::login_form).post(pages::login))
        .route("/logout", post(pages::logout))
        .route("/password", post(pages::password))
        .fallback(api::not_found)
        .layer(axum::middleware::from_fn(same_origin))
        // No request of this layer is more than a form: bigger bodies are refused unread.
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// Refuses a request that changes something when a browser says another site's page sent it (its
/// `Origin` is not this server, or `Sec-Fetch-Site` says cross-site): with the SameSite cookies and
/// the forms' tokens, a third guard, and the one that covers an upload's multipart form.
async fn same_origin(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    use axum::http::{Method, header};
    use axum::response::IntoResponse;
    if !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        let headers = request.headers();
        let text = |name| {
            headers
                .get(name)
                .and_then(|value: &axum::http::HeaderValue| value.to_str().ok())
        };
        let cross_site = matches!(text("sec-fetch-site"), Some("cross-site" | "same-site"));
        let other_origin = text(header::ORIGIN.as_str())
            .is_some_and(|origin| origin.split_once("://").map(|(_, host)| host) != text(header::HOST.as_str()));
        if cross_site || other_origin {
            return error::ApiError::forbidden("refused: the request came from another site's page").into_response();
        }
    }
    next.run(request).await
}

/// The largest request body read (uploads, to come, will have their own limit).
const MAX_BODY: usize = 64 << 10;

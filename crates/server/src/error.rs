//! What can go wrong: for the command line, one line naming the bad value; over HTTP, a status and
//! `{"error": "..."}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// Why the server, or one of its set-up commands, could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("{0}")]
    Io(String),
    #[error("the database: {0}")]
    Db(String),
    #[error("{} already holds a server's data (othello serve init is run once)", .0.display())]
    AlreadyMade(std::path::PathBuf),
    #[error("{} holds no server's data: make it with othello serve init --data {}", .0.display(), .0.display())]
    NotMade(std::path::PathBuf),
    #[error("bad name {0:?}: {1}")]
    BadName(String, &'static str),
    #[error("the name {0:?} is taken")]
    NameTaken(String),
}

impl From<rusqlite::Error> for ServerError {
    fn from(error: rusqlite::Error) -> ServerError {
        ServerError::Db(error.to_string())
    }
}

/// An HTTP error: its status and the one line that says what was wrong.
#[derive(Debug)]
pub(crate) struct ApiError(pub StatusCode, pub String);

impl ApiError {
    pub(crate) fn unauthorized() -> ApiError {
        ApiError(StatusCode::UNAUTHORIZED, "sign in first".to_string())
    }

    pub(crate) fn forbidden(why: &str) -> ApiError {
        ApiError(StatusCode::FORBIDDEN, why.to_string())
    }

    pub(crate) fn bad_request(why: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, why.into())
    }
}

// The server's own failures say little to the client: the details go to its log.
impl From<ServerError> for ApiError {
    fn from(error: ServerError) -> ApiError {
        match error {
            ServerError::BadName(..) | ServerError::NameTaken(_) => ApiError::bad_request(error.to_string()),
            other => {
                eprintln!("othello serve: {other}");
                ApiError(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the server failed; its log says why".to_string(),
                )
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(serde_json::json!({ "error": self.1 }))).into_response()
    }
}

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

    pub(crate) fn not_found(why: impl Into<String>) -> ApiError {
        ApiError(StatusCode::NOT_FOUND, why.into())
    }

    pub(crate) fn forbidden(why: impl Into<String>) -> ApiError {
        ApiError(StatusCode::FORBIDDEN, why.into())
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

/// An extractor whose refusal is a JSON error, as every error here is (axum's own are text):
/// `Valid<Json<T>>` for a JSON body, `Valid<Form<T>>` for a form's fields.
pub(crate) struct Valid<E>(pub E);

/// What an extractor's refusal says: its status and why.
pub(crate) trait Refusal {
    fn status(&self) -> StatusCode;
    fn text(&self) -> String;
}

impl Refusal for axum::extract::rejection::JsonRejection {
    fn status(&self) -> StatusCode {
        self.status()
    }
    fn text(&self) -> String {
        self.body_text()
    }
}

impl Refusal for axum::extract::rejection::FormRejection {
    fn status(&self) -> StatusCode {
        self.status()
    }
    fn text(&self) -> String {
        self.body_text()
    }
}

/// A refusal of a request's parts (its path, its query) as an `ApiError`, for each extractor.
macro_rules! valid_parts {
    ($($extractor:ident: $rejection:ident),*) => {$(
        impl Refusal for axum::extract::rejection::$rejection {
            fn status(&self) -> StatusCode {
                self.status()
            }
            fn text(&self) -> String {
                self.body_text()
            }
        }

        impl<S: Send + Sync, T> axum::extract::FromRequestParts<S> for Valid<axum::extract::$extractor<T>>
        where
            T: serde::de::DeserializeOwned + Send,
        {
            type Rejection = ApiError;

            async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &S) -> Result<Self, ApiError> {
                axum::extract::$extractor::<T>::from_request_parts(parts, state)
                    .await
                    .map(Valid)
                    .map_err(|refusal| ApiError(Refusal::status(&refusal), Refusal::text(&refusal)))
            }
        }
    )*};
}

valid_parts!(Path: PathRejection, Query: QueryRejection);

impl<E> axum::extract::FromRequest<crate::AppState> for Valid<E>
where
    E: axum::extract::FromRequest<crate::AppState>,
    E::Rejection: Refusal,
{
    type Rejection = ApiError;

    async fn from_request(request: axum::extract::Request, state: &crate::AppState) -> Result<Self, ApiError> {
        E::from_request(request, state)
            .await
            .map(Valid)
            .map_err(|refusal| ApiError(refusal.status(), refusal.text()))
    }
}

/// Every error's body.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct ErrorBody {
    /// One line: what was wrong, naming the bad value and what was expected.
    error: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(ErrorBody { error: self.1 })).into_response()
    }
}

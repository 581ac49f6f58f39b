//! One error type for every operation, classified once; `http/error.rs` and
//! `grpc/error.rs` are the only places that turn it into a transport status.

use std::fmt;

use bgref_core::IllegalPlay;
use bgref_core::notation::move_text::{IllegalMoveText, ParseMoveTextError};

/// What kind of failure, independent of the transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is malformed or names an impossible value (HTTP 400 /
    /// 422, gRPC INVALID_ARGUMENT).
    InvalidInput,
    /// Well-formed, but the rules refuse it (HTTP 422, gRPC FAILED_PRECONDITION).
    IllegalMove,
    /// The body is larger than the configured limit (HTTP 413).
    TooLarge,
    /// The body is in an encoding the server does not read, e.g.
    /// `content-encoding: gzip` (HTTP 415).
    UnsupportedMediaType,
    /// Credentials are missing or wrong (HTTP 401, gRPC UNAUTHENTICATED).
    Unauthenticated,
    /// The operation is disabled by configuration (HTTP 403, gRPC PERMISSION_DENIED).
    Forbidden,
    /// No such route, or no such match in the ledger (HTTP 404, gRPC NOT_FOUND).
    NotFound,
    /// The state token is not the head of its match (HTTP 409, gRPC ABORTED).
    Conflict,
    /// The match exists already (HTTP 409, gRPC ALREADY_EXISTS).
    AlreadyExists,
    /// The server is overloaded or shutting down (HTTP 503, gRPC UNAVAILABLE).
    Unavailable,
    /// A bug: never the caller's fault (HTTP 500, gRPC INTERNAL).
    Internal,
}

/// An error with a stable slug (the problem `type`), a sentence saying
/// exactly what is wrong, and the JSON path of the field at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The classification.
    pub kind: ErrorKind,
    /// Stable machine-readable slug, e.g. `invalid-position`.
    pub slug: &'static str,
    /// What is wrong, for a human.
    pub detail: String,
    /// JSON path of the offending field (`position.board.points[3]`), if any.
    pub field: Option<String>,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for ApiError {}

impl ApiError {
    /// Malformed input in `field`.
    pub fn invalid(
        slug: &'static str,
        field: impl Into<String>,
        detail: impl fmt::Display,
    ) -> ApiError {
        ApiError {
            kind: ErrorKind::InvalidInput,
            slug,
            detail: detail.to_string(),
            field: Some(field.into()),
        }
    }

    /// Malformed input not tied to one field.
    pub fn invalid_request(slug: &'static str, detail: impl fmt::Display) -> ApiError {
        ApiError {
            kind: ErrorKind::InvalidInput,
            slug,
            detail: detail.to_string(),
            field: None,
        }
    }

    /// A request the rules refuse.
    pub fn illegal(slug: &'static str, field: Option<&str>, detail: impl fmt::Display) -> ApiError {
        ApiError {
            kind: ErrorKind::IllegalMove,
            slug,
            detail: detail.to_string(),
            field: field.map(str::to_owned),
        }
    }

    /// Any other kind.
    pub fn new(kind: ErrorKind, slug: &'static str, detail: impl fmt::Display) -> ApiError {
        ApiError {
            kind,
            slug,
            detail: detail.to_string(),
            field: None,
        }
    }

    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Client mistakes are `warn`, faults `error`.
    pub fn tracing_level(&self) -> tracing::Level {
        match self.kind {
            ErrorKind::Internal => tracing::Level::ERROR,
            _ => tracing::Level::WARN,
        }
    }

    /// Records the error on the current span and logs it at its level.
    ///
    /// The detail and the field may quote the request: they are escaped
    /// and cut ([`crate::telemetry::log_safe`]).
    pub fn log(&self) {
        use crate::telemetry::log_safe;
        let detail = log_safe(&self.detail);
        let field = self.field.as_deref().map(log_safe);
        match self.tracing_level() {
            tracing::Level::ERROR => {
                tracing::error!(slug = self.slug, detail = %detail, "request failed")
            }
            _ => {
                tracing::warn!(slug = self.slug, detail = %detail, field = field.as_deref(), "request refused")
            }
        }
    }
}

/// A conversion that cannot fail (`From` seen as `TryFrom`).
impl From<std::convert::Infallible> for ApiError {
    fn from(never: std::convert::Infallible) -> ApiError {
        match never {}
    }
}

impl From<IllegalMoveText> for ApiError {
    fn from(err: IllegalMoveText) -> ApiError {
        match err {
            IllegalMoveText::Ambiguous => ApiError::illegal("ambiguous-play", Some("play"), err),
            IllegalMoveText::Illegal(reason) => reason.into(),
        }
    }
}

impl From<IllegalPlay> for ApiError {
    fn from(err: IllegalPlay) -> ApiError {
        match err {
            IllegalPlay::GameOver => ApiError::illegal("game-over", None, err),
            _ => ApiError::illegal("illegal-play", Some("play"), err),
        }
    }
}

impl From<bgref_core::tables::TablesIllegalPlay> for ApiError {
    fn from(err: bgref_core::tables::TablesIllegalPlay) -> ApiError {
        match err {
            bgref_core::tables::TablesIllegalPlay::GameOver => {
                ApiError::illegal("game-over", None, err)
            }
            _ => ApiError::illegal("illegal-play", Some("play"), err),
        }
    }
}

impl From<ParseMoveTextError> for ApiError {
    fn from(err: ParseMoveTextError) -> ApiError {
        ApiError::invalid("invalid-play", "play", err)
    }
}

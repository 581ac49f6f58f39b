//! `ApiJson` and `TranscriptJson`: the JSON body extractors whose every
//! failure is a problem document naming the field (via
//! serde_path_to_error), and a too-large body a 413 naming the limit and
//! the option that sets it.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ErrorKind};

/// The request body limits in force, in bytes: what the server layers
/// put in each request's extensions (a router served without them, as in
/// tests, has the defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyLimits {
    /// Every body but a transcript's (`BGREF_MAX_BODY_BYTES`).
    pub body: usize,
    /// The bodies of `/games/verify` and `/games/export`
    /// (`BGREF_MAX_TRANSCRIPT_BYTES`).
    pub transcript: usize,
}

impl Default for BodyLimits {
    fn default() -> Self {
        crate::config::Config::defaults().body_limits()
    }
}

impl BodyLimits {
    /// The limits of `req` (the defaults when no layer gave them).
    fn of(req: &Request) -> BodyLimits {
        req.extensions()
            .get::<BodyLimits>()
            .copied()
            .unwrap_or_default()
    }
}

/// The 413 of a body over `limit` bytes, which `option` sets.
pub fn too_large(limit: usize, option: &str) -> ApiError {
    ApiError::new(
        ErrorKind::TooLarge,
        "payload-too-large",
        format!(
            "the request body is larger than the limit of {limit} bytes ({}; the server's \
             {option} sets it)",
            human_bytes(limit)
        ),
    )
}

/// `bytes` in KiB or MiB when it is a whole number of them.
fn human_bytes(bytes: usize) -> String {
    const KIB: usize = 1024;
    if bytes >= KIB * KIB && bytes.is_multiple_of(KIB * KIB) {
        format!("{} MiB", bytes / (KIB * KIB))
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} B")
    }
}

/// A JSON request body. Any content type is accepted (curl's default
/// included); the body must be one JSON value of the expected shape.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let limit = BodyLimits::of(&req).body;
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                too_large(limit, "BGREF_MAX_BODY_BYTES")
            } else {
                ApiError::invalid_request("malformed-json", rejection.body_text())
            }
        })?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// A transcript's JSON body (`/games/verify`, `/games/export`): as
/// [`ApiJson`], under the transcript limit (`BGREF_MAX_TRANSCRIPT_BYTES`)
/// instead of the global one.
#[derive(Debug, Clone, Copy, Default)]
pub struct TranscriptJson<T>(pub T);

impl<S, T> FromRequest<S> for TranscriptJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, ApiError> {
        let limit = BodyLimits::of(&req).transcript;
        let bytes = axum::body::to_bytes(req.into_body(), limit)
            .await
            .map_err(|err| {
                let over =
                    std::iter::successors(Some(&err as &(dyn std::error::Error + 'static)), |e| {
                        e.source()
                    })
                    .any(|e| e.is::<http_body_util::LengthLimitError>());
                if over {
                    too_large(limit, "BGREF_MAX_TRANSCRIPT_BYTES")
                } else {
                    ApiError::invalid_request(
                        "malformed-json",
                        format!("failed to read the request body: {err}"),
                    )
                }
            })?;
        parse_json(&bytes).map(TranscriptJson)
    }
}

/// Parses a JSON body into `T`, naming the field of any error.
///
/// A body that parses is read by serde_json alone: tracking the path of
/// every value (serde_path_to_error) cost a valid request a few thousand
/// instructions for nothing. Only a failed body is read again, with the
/// path tracked, to say which field is wrong; the parse is deterministic,
/// so the second reading fails where the first did.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|err| explain_failure::<T>(bytes, &err))
}

/// The problem of a body `T` could not be parsed from (`err`, the error
/// of the first reading): the same error, located by serde_path_to_error.
#[cold]
fn explain_failure<T: DeserializeOwned>(bytes: &[u8], err: &serde_json::Error) -> ApiError {
    let malformed = |e: &dyn std::fmt::Display| {
        ApiError::invalid_request("malformed-json", format!("the body is not valid JSON: {e}"))
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Err(err) => {
            let path = err.path().to_string();
            let inner = err.into_inner();
            if inner.is_syntax() || inner.is_eof() || path == "." {
                malformed(&inner)
            } else {
                ApiError::invalid("invalid-request", path, inner)
            }
        }
        // The value parsed: what failed is the end (trailing characters).
        Ok(_) => match de.end() {
            Err(end) => malformed(&end),
            // Cannot happen (the same bytes failed a moment ago): the
            // first error, without a field, rather than a panic.
            Ok(()) if err.is_data() => ApiError::invalid_request("invalid-request", err),
            Ok(()) => malformed(err),
        },
    }
}

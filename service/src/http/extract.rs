//! `ApiJson`: the JSON body extractor whose every failure is a problem
//! document naming the field (via serde_path_to_error).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ErrorKind};

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
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    ErrorKind::TooLarge,
                    "payload-too-large",
                    "the request body is larger than the limit",
                )
            } else {
                ApiError::invalid_request("malformed-json", rejection.body_text())
            }
        })?;
        parse_json(&bytes).map(ApiJson)
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

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
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        if inner.is_syntax() || inner.is_eof() || path == "." {
            ApiError::invalid_request(
                "malformed-json",
                format!("the body is not valid JSON: {inner}"),
            )
        } else {
            ApiError::invalid("invalid-request", path, inner)
        }
    })?;
    de.end().map_err(|e| {
        ApiError::invalid_request("malformed-json", format!("the body is not valid JSON: {e}"))
    })?;
    Ok(value)
}

//! `ApiError` as `application/problem+json` (RFC 9457).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorKind};

/// A problem document (RFC 9457). Each response of the OpenAPI document
/// shows its own (`http/examples.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Problem {
    /// Stable slug naming the kind of problem, e.g. `invalid-position`, `illegal-play`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The HTTP status phrase.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What exactly is wrong.
    pub detail: String,
    /// JSON path of the field at fault, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl From<ErrorKind> for StatusCode {
    fn from(kind: ErrorKind) -> StatusCode {
        match kind {
            ErrorKind::InvalidInput => StatusCode::BAD_REQUEST,
            ErrorKind::IllegalMove => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorKind::Unauthenticated => StatusCode::UNAUTHORIZED,
            ErrorKind::Forbidden => StatusCode::FORBIDDEN,
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::Conflict | ErrorKind::AlreadyExists => StatusCode::CONFLICT,
            ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// A problem document response with `status`.
pub fn problem_response(
    status: StatusCode,
    slug: &str,
    detail: String,
    field: Option<String>,
) -> Response {
    let problem = Problem {
        kind: slug.to_owned(),
        title: status.canonical_reason().unwrap_or("Error").to_owned(),
        status: status.as_u16(),
        detail,
        field,
    };
    let mut response = (status, axum::Json(problem)).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.log();
        let mut response = problem_response(
            StatusCode::from(self.kind),
            self.slug,
            self.detail,
            self.field,
        );
        // RFC 9110, 15.5.16: the codings a 415 for a content coding accepts.
        if self.kind == ErrorKind::UnsupportedMediaType {
            response
                .headers_mut()
                .insert(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        }
        // The bearer challenge is for the operator's tokens, not for a seat.
        if self.kind == ErrorKind::Unauthenticated && self.slug != "invalid-seat" {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

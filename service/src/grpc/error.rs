//! `ApiError` as a gRPC status: the same slug (as `ErrorInfo.reason`) and
//! detail, and the field as a `BadRequest` violation.

use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::error::{ApiError, ErrorKind};

/// The gRPC code of each kind.
pub fn code(kind: ErrorKind) -> Code {
    match kind {
        ErrorKind::InvalidInput => Code::InvalidArgument,
        ErrorKind::IllegalMove => Code::FailedPrecondition,
        ErrorKind::TooLarge => Code::ResourceExhausted,
        // gRPC negotiates its own compression (grpc-encoding); an HTTP
        // content-encoding never reaches here.
        ErrorKind::UnsupportedMediaType => Code::Unimplemented,
        ErrorKind::Unauthenticated => Code::Unauthenticated,
        ErrorKind::Forbidden => Code::PermissionDenied,
        ErrorKind::NotFound => Code::NotFound,
        ErrorKind::Conflict => Code::Aborted,
        ErrorKind::AlreadyExists => Code::AlreadyExists,
        ErrorKind::Unavailable => Code::Unavailable,
        ErrorKind::Internal => Code::Internal,
    }
}

impl From<ApiError> for Status {
    fn from(err: ApiError) -> Status {
        err.log();
        let mut details = ErrorDetails::with_error_info(err.slug, "bgref", HashMap::new());
        if let Some(field) = &err.field {
            details.add_bad_request_violation(field.clone(), err.detail.clone());
        }
        Status::with_error_details(code(err.kind), err.detail, details)
    }
}

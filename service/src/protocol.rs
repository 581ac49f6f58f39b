//! The protocol constants every layer reads: gRPC's status headers, how a
//! gRPC (or gRPC-Web) request is told from an HTTP one, which paths take a
//! transcript and which are probes. A leaf: it imports nothing from the
//! crate, so the adapters, the middleware and telemetry can all depend on
//! it without depending on each other.

/// The gRPC status header. A `HeaderName`, not a `&str`, which every lookup
/// or insert would parse again (the unary hot path reads it in the response
/// head and in the trailers).
pub const GRPC_STATUS: http::HeaderName = http::HeaderName::from_static("grpc-status");

/// The gRPC status message header (see [`GRPC_STATUS`]).
pub const GRPC_MESSAGE: http::HeaderName = http::HeaderName::from_static("grpc-message");

/// Whether a request with `headers` is gRPC (or gRPC-Web): its content
/// type is `application/grpc…`.
pub fn is_grpc(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|ct| ct.as_bytes().starts_with(b"application/grpc"))
}

/// Whether a request with `headers` is gRPC-Web: its content type is
/// `application/grpc-web…`.
pub fn is_grpc_web(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|ct| ct.as_bytes().starts_with(b"application/grpc-web"))
}

/// Whether `path` is an operation that takes a transcript (HTTP
/// `/games/verify`, `/games/export`, gRPC `VerifyGame`, `ExportGame`),
/// whose body has `BGREF_MAX_TRANSCRIPT_BYTES` for its limit.
pub fn takes_transcript(path: &str) -> bool {
    matches!(
        path,
        "/games/verify"
            | "/games/export"
            | "/bgref.v1.Referee/VerifyGame"
            | "/bgref.v1.Referee/ExportGame"
    )
}

/// Health checks and scrapes: logged at debug, and let past the
/// concurrency gate.
pub fn is_probe(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/metrics")
        || path.starts_with("/grpc.health.v1.Health/")
}

/// The request id header, read or generated, and echoed in the response.
/// (A `HeaderName`, not a `&str`, which every lookup would parse.)
pub const REQUEST_ID_HEADER: http::HeaderName = http::HeaderName::from_static("x-request-id");

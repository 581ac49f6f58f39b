//! The concurrency gate: at most `BGREF_MAX_CONCURRENCY` requests computed
//! at once, HTTP and gRPC together, as a `from_fn` over a semaphore. A
//! request takes its slot once its body has arrived, and gives it back
//! once its answer is made (before it is sent): a slow uploader or a slow
//! reader holds memory within its limits, never a slot.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use http_body::Body as _;
use http_body_util::BodyExt as _;
use tokio::sync::Semaphore;

use crate::error::{ApiError, ErrorKind};
use crate::http::extract::BodyLimits;

/// At most `max` requests at once, HTTP and gRPC together. A request waits
/// at most `queue_timeout` for a slot, then gets a 503 problem with
/// `Retry-After` (gRPC clients read it as UNAVAILABLE). Probes
/// (`/healthz`, `/readyz`, `/metrics`, gRPC health) never wait: a
/// saturated server still answers its orchestrator, and `/readyz` says
/// `overloaded` (503) while every slot is taken.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    slots: Arc<Semaphore>,
    queue_timeout: Duration,
    limits: BodyLimits,
}

impl Gate {
    /// `max` slots; bodies read before a slot is taken are refused beyond
    /// `limits` (as the handlers would refuse them).
    pub(crate) fn new(max: usize, queue_timeout: Duration, limits: BodyLimits) -> Gate {
        Gate {
            slots: Arc::new(Semaphore::new(max.max(1))),
            queue_timeout,
            limits,
        }
    }
}

/// The middleware of [`Gate`]: the body read in full, then a slot taken
/// and held until the response is out of the handler.
pub(crate) async fn admit(State(gate): State<Gate>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if crate::protocol::is_probe(path) {
        if path == "/readyz" && gate.slots.available_permits() == 0 {
            return not_ready();
        }
        return next.run(req).await;
    }
    let req = match arrived(req, &gate.limits).await {
        Ok(req) => req,
        Err(refused) => return refused,
    };
    // A free slot is taken at once; only a full server queues.
    let permit = match gate.slots.clone().try_acquire_owned() {
        Ok(permit) => permit,
        Err(_) => {
            let acquire = gate.slots.clone().acquire_owned();
            match tokio::time::timeout(gate.queue_timeout, acquire).await {
                Ok(Ok(permit)) => permit,
                _ => return overloaded(),
            }
        }
    };
    let response = next.run(req).await;
    drop(permit);
    response
}

/// gRPC methods whose request is a stream (server reflection): passed on
/// as they come.
const STREAMING_REQUESTS: [&str; 2] = [
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];

/// `req` with its body read in full, or the refusal of a body over its
/// limit (said by `Content-Length` before a byte is read, so a client
/// sending `Expect: 100-continue` is not told to go on), or of a body that
/// could not be read. Reading it here also drains it before any answer,
/// so an HTTP/1 connection answered early (a 401) can carry the next
/// request.
async fn arrived(req: Request, limits: &BodyLimits) -> Result<Request, Response> {
    if req.body().is_end_stream() || STREAMING_REQUESTS.contains(&req.uri().path()) {
        return Ok(req);
    }
    let limit = Limit::of(&req, limits);
    let declared = req
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit.wire as u64) {
        return Err(limit.refusal());
    }
    let (parts, body) = req.into_parts();
    match http_body_util::Limited::new(body, limit.wire)
        .collect()
        .await
    {
        Ok(collected) => Ok(Request::from_parts(parts, Body::new(collected))),
        Err(err) if err.is::<http_body_util::LengthLimitError>() => Err(limit.refusal()),
        // The client gone mid-body: `problems` answers 499 or CANCELLED.
        Err(_) if limit.grpc => Err(tonic::Status::invalid_argument(
            "the request message could not be read",
        )
        .into_http()),
        Err(_) => Err(ApiError::invalid_request(
            "unreadable-body",
            "the request body could not be read",
        )
        .into_response()),
    }
}

/// The size limit of one request's body.
struct Limit {
    /// The limit of the content (a gRPC message, an HTTP body).
    content: usize,
    /// The option that sets it.
    option: &'static str,
    /// The bytes on the wire it allows: gRPC's 5-byte frame header, and
    /// base64 for gRPC-Web text.
    wire: usize,
    grpc: bool,
}

impl Limit {
    fn of(req: &Request, limits: &BodyLimits) -> Limit {
        let (content, option) = if crate::protocol::takes_transcript(req.uri().path()) {
            (limits.transcript, "BGREF_MAX_TRANSCRIPT_BYTES")
        } else {
            (limits.body, "BGREF_MAX_BODY_BYTES")
        };
        let content_type = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .map_or(&b""[..], |v| v.as_bytes());
        let grpc = content_type.starts_with(b"application/grpc");
        let wire = if content_type.starts_with(b"application/grpc-web-text") {
            (content + 5).div_ceil(3) * 4
        } else if grpc {
            content + 5
        } else {
            content
        };
        Limit {
            content,
            option,
            wire,
            grpc,
        }
    }

    /// 413 problem, or gRPC's RESOURCE_EXHAUSTED.
    fn refusal(&self) -> Response {
        if self.grpc {
            return tonic::Status::resource_exhausted(format!(
                "the request message is larger than the limit of {} bytes \
                 (the server's {} sets it)",
                self.content, self.option
            ))
            .into_http();
        }
        crate::http::extract::too_large(self.content, self.option).into_response()
    }
}

/// The 503 of a request that found no slot within the queue timeout.
fn overloaded() -> Response {
    let mut response = ApiError::new(
        ErrorKind::Unavailable,
        "overloaded",
        "the server is handling as many requests as it may \
         (BGREF_MAX_CONCURRENCY); retry shortly",
    )
    .into_response();
    response.headers_mut().insert(
        http::header::RETRY_AFTER,
        http::HeaderValue::from_static("1"),
    );
    response
}

/// `/readyz` while every slot is taken: 503 `overloaded`.
fn not_ready() -> Response {
    (
        http::StatusCode::SERVICE_UNAVAILABLE,
        axum::Json(crate::http::ops::Health {
            status: "overloaded",
        }),
    )
        .into_response()
}

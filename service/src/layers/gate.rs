//! The concurrency gate: at most `BGREF_MAX_CONCURRENCY` requests at once,
//! HTTP and gRPC together, as a `from_fn` over a semaphore.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tokio::sync::Semaphore;

use crate::error::{ApiError, ErrorKind};

/// At most `max` requests at once, HTTP and gRPC together. A request waits
/// at most `queue_timeout` for a slot, then gets a 503 problem with
/// `Retry-After` (gRPC clients read it as UNAVAILABLE). Probes
/// (`/healthz`, `/readyz`, `/metrics`, gRPC health) never wait: a
/// saturated server still answers its orchestrator.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    slots: Arc<Semaphore>,
    queue_timeout: Duration,
}

impl Gate {
    pub(crate) fn new(max: usize, queue_timeout: Duration) -> Gate {
        Gate {
            slots: Arc::new(Semaphore::new(max.max(1))),
            queue_timeout,
        }
    }
}

/// The middleware of [`Gate`]: the slot is held until the response is out
/// of the handler.
pub(crate) async fn admit(State(gate): State<Gate>, req: Request, next: Next) -> Response {
    if crate::protocol::is_probe(req.uri().path()) {
        return next.run(req).await;
    }
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

/// The 503 of a request that found no slot within the queue timeout.
fn overloaded() -> Response {
    let mut response = axum::response::IntoResponse::into_response(ApiError::new(
        ErrorKind::Unavailable,
        "overloaded",
        "the server is handling as many requests as it may \
         (BGREF_MAX_CONCURRENCY); retry shortly",
    ));
    response.headers_mut().insert(
        http::header::RETRY_AFTER,
        http::HeaderValue::from_static("1"),
    );
    response
}

//! The whole application: HTTP and gRPC on one router, with request ids,
//! request spans, metrics, limits, and graceful shutdown.

use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::{Extension, Router};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::extract::State;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::sync::watch;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;
use tower::ServiceBuilder;
use tower::util::MapRequestLayer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::config::Config;
use crate::error::{ApiError, ErrorKind};
use crate::metrics::{Metrics, ObserveLayer};
use crate::proto::referee_server::RefereeServer;
use crate::state::AppState;
use crate::streams::{SendDeadline, StreamGuard};
use crate::telemetry;

/// The service's routers and what they share.
#[derive(Debug)]
pub struct App {
    /// HTTP and gRPC on one router, every layer applied.
    pub router: Router,
    /// gRPC only (for `--grpc-listen`), the same layers, health and metrics.
    pub grpc_router: Router,
    /// The gRPC health status of both routers.
    pub health: HealthReporter,
    /// The request metrics of both routers (served at `/metrics`).
    pub metrics: Metrics,
    /// Send `true` when the server stops accepting: open gRPC streams then
    /// end with UNAVAILABLE instead of holding the exit ([`StreamGuard`]).
    pub stop_streams: Arc<watch::Sender<bool>>,
}

/// HTTP and gRPC routes with every layer, and the gRPC health reporter.
pub fn app(state: AppState, config: &Config) -> (Router, HealthReporter) {
    let app = build(state, config);
    (app.router, app.health)
}

/// Builds both routers over one state, health reporter, metrics registry
/// and concurrency limit.
pub fn build(state: AppState, config: &Config) -> App {
    let (grpc, health) = crate::grpc::router(state.clone(), config.max_body_bytes);
    let metrics = Metrics::new();
    let limit = ConcurrencyGate::new(config.max_concurrency, config.queue_timeout);
    let (stop_streams, stop) = watch::channel(false);
    let streams = StreamGuard::new(config.stream_timeout, stop);
    let deadline = SendDeadline::new(config.response_send_timeout, metrics.clone());
    let router = layers(
        crate::http::router(state).merge(grpc.clone()),
        config,
        &metrics,
        &limit,
        (&streams, &deadline),
    );
    let grpc_router = layers(grpc, config, &metrics, &limit, (&streams, &deadline));
    App {
        router,
        grpc_router,
        health,
        metrics,
        stop_streams: Arc::new(stop_streams),
    }
}

/// Applied to every route (after routing, so spans and metrics know the
/// matched route), outermost first:
///
/// 0. CORS, when `BGREF_CORS_ORIGINS` names origins: preflights are
///    answered here, and responses to those origins carry the CORS headers
///    (gRPC-Web's headers allowed and its trailers exposed);
/// 1. request id: an incoming `x-request-id` (up to 128 printable ASCII
///    characters) is kept, otherwise a UUID is made
///    ([`telemetry::MakeRequestId`]); echoed in the response; the
///    operation is classified once ([`telemetry::classify`]);
/// 2. the request span ([`telemetry::request_span`]);
/// 3. metrics, outcome and completion log ([`ObserveLayer`]), which see
///    what the client sees, panics and timeouts included;
/// 4. a 413 closes the HTTP/1 connection (its body was not read); gRPC
///    streams have a bounded life, and undecodable messages are
///    INVALID_ARGUMENT ([`StreamGuard`]); every other response must be
///    sent within `BGREF_RESPONSE_SEND_TIMEOUT` ([`SendDeadline`]);
/// 5. panics become a 500 problem, slow requests a 503 problem (408 when
///    the body had not arrived), and at most `max_concurrency` requests
///    run at once (HTTP and gRPC together; [`ConcurrencyGate`]).
fn layers(
    router: Router,
    config: &Config,
    metrics: &Metrics,
    limit: &ConcurrencyGate,
    streams: (&StreamGuard, &SendDeadline),
) -> Router {
    let router = observed(router, config, metrics, limit, streams);
    match cors(&config.cors_origins) {
        Some(cors) => router.layer(cors),
        None => router,
    }
}

/// The CORS layer for `origins` (`None`: CORS off).
fn cors(origins: &[String]) -> Option<tower_http::cors::CorsLayer> {
    use axum::http::{HeaderName, HeaderValue, Method, header};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    let name = HeaderName::from_static;
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
            .allow_headers([
                header::CONTENT_TYPE,
                header::AUTHORIZATION,
                name("x-request-id"),
                name("x-grpc-web"),
                name("x-user-agent"),
                name("grpc-timeout"),
            ])
            .expose_headers([
                name("x-request-id"),
                name("grpc-status"),
                name("grpc-message"),
                name("grpc-status-details-bin"),
            ])
            .max_age(Duration::from_secs(600)),
    )
}

fn observed(
    router: Router,
    config: &Config,
    metrics: &Metrics,
    limit: &ConcurrencyGate,
    (streams, deadline): (&StreamGuard, &SendDeadline),
) -> Router {
    router
        .layer(DefaultBodyLimit::max(config.max_body_bytes))
        .layer(
            ServiceBuilder::new()
                .layer(MapRequestLayer::new(
                    telemetry::sanitize_request_id::<axum::body::Body>,
                ))
                .layer(MapRequestLayer::new(
                    telemetry::classify::<axum::body::Body>,
                ))
                .layer(SetRequestIdLayer::x_request_id(
                    telemetry::MakeRequestId::default(),
                ))
                .layer(PropagateRequestIdLayer::x_request_id())
                .layer(
                    TraceLayer::new_for_http()
                        .make_span_with(telemetry::request_span::<axum::body::Body>)
                        .on_request(())
                        .on_response(())
                        .on_body_chunk(())
                        .on_eos(())
                        .on_failure(()),
                )
                .layer(ObserveLayer::new(metrics.clone()))
                .layer(Extension(metrics.clone()))
                .layer(axum::middleware::from_fn(close_after_refused_body))
                .layer(axum::middleware::from_fn(refuse_non_utf8_query))
                .layer(axum::middleware::from_fn_with_state(
                    streams.clone(),
                    StreamGuard::layer,
                ))
                .layer(axum::middleware::from_fn_with_state(
                    deadline.clone(),
                    SendDeadline::layer,
                ))
                .layer(axum::middleware::from_fn(timeout_as_problem))
                .layer(CatchPanicLayer::custom(
                    |panic: Box<dyn std::any::Any + Send>| {
                        let message = panic
                            .downcast_ref::<&str>()
                            .map(|s| (*s).to_owned())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        tracing::error!(panic = %message, "the handler panicked");
                        axum::response::IntoResponse::into_response(ApiError::new(
                            ErrorKind::Internal,
                            "internal",
                            "the referee failed on this request; it has been logged",
                        ))
                    },
                ))
                .layer(TimeoutLayer::with_status_code(
                    StatusCode::SERVICE_UNAVAILABLE,
                    config.request_timeout,
                ))
                .layer(axum::middleware::from_fn_with_state(
                    limit.clone(),
                    ConcurrencyGate::admit,
                )),
        )
}

/// At most `max` requests at once, HTTP and gRPC together. A request waits
/// at most `queue_timeout` for a slot, then gets a 503 problem with
/// `Retry-After` (gRPC clients read it as UNAVAILABLE). Probes
/// (`/healthz`, `/readyz`, `/metrics`, gRPC health) never wait: a
/// saturated server still answers its orchestrator.
#[derive(Debug, Clone)]
struct ConcurrencyGate {
    slots: Arc<Semaphore>,
    queue_timeout: Duration,
}

impl ConcurrencyGate {
    fn new(max: usize, queue_timeout: Duration) -> ConcurrencyGate {
        ConcurrencyGate {
            slots: Arc::new(Semaphore::new(max.max(1))),
            queue_timeout,
        }
    }

    async fn admit(
        State(gate): State<ConcurrencyGate>,
        req: axum::extract::Request,
        next: axum::middleware::Next,
    ) -> axum::response::Response {
        if is_probe(req.uri().path()) {
            return next.run(req).await;
        }
        let permit = match tokio::time::timeout(
            gate.queue_timeout,
            gate.slots.clone().acquire_owned(),
        )
        .await
        {
            Ok(Ok(permit)) => permit,
            _ => {
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
                return response;
            }
        };
        let response = next.run(req).await;
        drop(permit);
        response
    }
}

/// Health checks and scrapes.
fn is_probe(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/metrics")
        || path.starts_with("/grpc.health.v1.Health/")
}

/// The timeout layer answers a bare 503; say what happened in a problem
/// document like every other error (a 503 with a body, such as `/readyz`
/// while draining, is left alone).
async fn timeout_as_problem(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let received = Arc::new(AtomicBool::new(false));
    let client_closed = Arc::new(AtomicBool::new(false));
    let grpc = req
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/grpc"));
    let req = req.map(|body| {
        axum::body::Body::new(Tracked {
            inner: body,
            received: received.clone(),
            client_closed: client_closed.clone(),
        })
    });
    let response = next.run(req).await;
    if client_closed.load(Ordering::Relaxed) {
        return client_closed_response(grpc);
    }
    if response.status() == StatusCode::SERVICE_UNAVAILABLE
        && !response.headers().contains_key(http::header::CONTENT_TYPE)
    {
        if !received.load(Ordering::Relaxed) {
            // The client's fault: its body did not arrive in time.
            tracing::warn!(slug = "request-timeout", "request refused");
            let mut response = crate::http::error::problem_response(
                StatusCode::REQUEST_TIMEOUT,
                "request-timeout",
                "the request body did not arrive within the server's time limit \
                 (BGREF_REQUEST_TIMEOUT)"
                    .to_owned(),
                None,
            );
            response.headers_mut().insert(
                http::header::CONNECTION,
                http::HeaderValue::from_static("close"),
            );
            return response;
        }
        return axum::response::IntoResponse::into_response(ApiError::new(
            ErrorKind::Unavailable,
            "timeout",
            "the request took longer than the server's time limit (BGREF_REQUEST_TIMEOUT)",
        ));
    }
    response
}

/// A request body that notes when it has been received in full, and when
/// the client went away before sending it all.
struct Tracked {
    inner: axum::body::Body,
    received: Arc<AtomicBool>,
    client_closed: Arc<AtomicBool>,
}

/// Whether a body error means the client closed the connection (or reset
/// the stream) before the body was complete: hyper's incomplete message or
/// canceled body, or a reset or broken connection underneath.
fn is_client_gone(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut source = Some(err);
    while let Some(err) = source {
        if let Some(hyper) = err.downcast_ref::<hyper::Error>()
            && (hyper.is_incomplete_message() || hyper.is_canceled() || hyper.is_closed())
        {
            return true;
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::BrokenPipe
                    | std::io::ErrorKind::UnexpectedEof
                    | std::io::ErrorKind::ConnectionAborted
            )
        {
            return true;
        }
        if let Some(h2) = err.downcast_ref::<h2::Error>()
            && (h2.is_io() || h2.is_remote() && h2.reason() == Some(h2::Reason::CANCEL))
        {
            return true;
        }
        source = err.source();
    }
    false
}

/// The answer to a request whose client went away in the middle of its
/// body: nobody receives it, but the logs and metrics say what happened,
/// as nginx does: 499 "client closed request" (gRPC: CANCELLED), not a 400
/// or UNKNOWN blamed on the request.
fn client_closed_response(grpc: bool) -> axum::response::Response {
    tracing::info!(
        slug = "client-closed",
        "the client closed the connection before sending the whole request"
    );
    if grpc {
        let mut response = axum::response::Response::new(axum::body::Body::empty());
        let headers = response.headers_mut();
        headers.insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/grpc"),
        );
        headers.insert("grpc-status", http::HeaderValue::from_static("1"));
        headers.insert(
            "grpc-message",
            http::HeaderValue::from_static("client%20closed%20the%20request"),
        );
        return response;
    }
    crate::http::error::problem_response(
        StatusCode::from_u16(499).unwrap_or(StatusCode::BAD_REQUEST),
        "client-closed",
        "the client closed the connection before sending the whole request".to_owned(),
        None,
    )
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let poll = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        if let std::task::Poll::Ready(Some(Err(err))) = &poll
            && is_client_gone(err)
        {
            self.client_closed.store(true, Ordering::Relaxed);
        }
        if matches!(poll, std::task::Poll::Ready(None)) || self.inner.is_end_stream() {
            self.received.store(true, Ordering::Relaxed);
        }
        poll
    }

    fn is_end_stream(&self) -> bool {
        let end = self.inner.is_end_stream();
        if end {
            self.received.store(true, Ordering::Relaxed);
        }
        end
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// A query string whose percent-decoding is not UTF-8 is refused (400
/// `invalid-query`) instead of being read with U+FFFD in place of the bad
/// bytes, which would make two different queries (`%FF`, `%FE`) the same.
async fn refuse_non_utf8_query(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if let Some(query) = req.uri().query()
        && !decodes_to_utf8(query)
    {
        return axum::response::IntoResponse::into_response(ApiError::invalid_request(
            "invalid-query",
            "the query string is not UTF-8 once percent-decoded",
        ));
    }
    next.run(req).await
}

/// Whether each `&`/`=`-separated part of a query percent-decodes
/// (`+` as a space) to UTF-8.
fn decodes_to_utf8(query: &str) -> bool {
    fn hex(b: u8) -> Option<u8> {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    }
    let bytes = query.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    decoded.push(h << 4 | l);
                    i += 3;
                    continue;
                }
                _ => decoded.push(b'%'),
            },
            b'&' | b'=' => {
                if std::str::from_utf8(&decoded).is_err() {
                    return false;
                }
                decoded.clear();
            }
            b => decoded.push(b),
        }
        i += 1;
    }
    std::str::from_utf8(&decoded).is_ok()
}

/// A body refused as too large is left unread, so the HTTP/1 connection
/// cannot carry another request: say so (`Connection: close`), or a client
/// reusing it would fail on its next request.
async fn close_after_refused_body(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let http1 = req.version() <= http::Version::HTTP_11;
    let mut response = next.run(req).await;
    if http1 && response.status() == StatusCode::PAYLOAD_TOO_LARGE {
        response.headers_mut().insert(
            http::header::CONNECTION,
            http::HeaderValue::from_static("close"),
        );
    }
    response
}

/// Serves `router` on `listener` until `shutdown` resolves: then stops
/// accepting and lets in-flight requests finish for at most `grace`. The
/// connection limits of `config` apply ([`crate::conn`]).
///
/// # Errors
/// I/O errors of the listener.
pub fn serve(
    listener: TcpListener,
    router: Router,
    config: &Config,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> impl std::future::Future<Output = std::io::Result<()>> + Send + 'static {
    crate::conn::serve(
        listener,
        router,
        crate::conn::ConnLimits::from_config(config),
        shutdown,
        grace,
    )
}

/// Starts draining on the first SIGTERM or Ctrl-C: `/readyz` answers 503
/// and gRPC health reports NOT_SERVING (for `""` and `bgref.v1.Referee`)
/// at once; after `delay` (or a second signal) the returned receiver turns
/// `true`, which is when the servers stop accepting ([`stopped`]).
pub fn drain_on_signal(
    state: AppState,
    health: HealthReporter,
    delay: Duration,
) -> watch::Receiver<bool> {
    let (tx, rx) = watch::channel(false);
    let signal = signal_now();
    tokio::spawn(async move {
        signal.await;
        state.set_draining();
        health
            .set_service_status("", ServingStatus::NotServing)
            .await;
        health
            .set_not_serving::<RefereeServer<crate::grpc::RefereeService>>()
            .await;
        // Logged once readiness and gRPC health both say so: whoever reads
        // this line (an operator, the ops tests) finds them already failing.
        tracing::info!(
            delay_secs = delay.as_secs_f64(),
            "shutdown signal: draining"
        );
        if !delay.is_zero() {
            tokio::select! {
                () = tokio::time::sleep(delay) => {},
                () = shutdown_signal() => tracing::info!("second signal: not waiting any longer"),
            }
        }
        tracing::info!("no longer accepting connections; finishing in-flight requests");
        let _ = tx.send(true);
    });
    rx
}

/// Resolves once `drain` (from [`drain_on_signal`]) says to stop.
pub async fn stopped(mut drain: watch::Receiver<bool>) {
    let _ = drain.wait_for(|&stop| stop).await;
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    signal_now().await;
}

/// Like [`shutdown_signal`], but the SIGTERM handler is installed before
/// this returns (not at the first poll), so a signal sent right after
/// start-up is not lost.
fn signal_now() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    async move {
        let ctrl_c = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        #[cfg(unix)]
        let terminate = async move {
            match terminate {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let terminate = std::future::pending::<()>();
        tokio::select! {
            () = ctrl_c => {},
            () = terminate => {},
        }
    }
}

#[cfg(test)]
mod query_tests {
    #[test]
    fn percent_decoding_must_give_utf8() {
        for ok in [
            "match_id=abc",
            "match_id=%C3%A9",
            "a=%",
            "a=%4",
            "a=%zz",
            "a=b&c=%E2%82%AC",
        ] {
            assert!(super::decodes_to_utf8(ok), "{ok}");
        }
        for bad in ["match_id=%FF", "a=%C3&b=%A9", "%FE=x"] {
            assert!(!super::decodes_to_utf8(bad), "{bad}");
        }
    }
}

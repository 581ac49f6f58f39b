//! The request middleware, applied to every route (HTTP and gRPC): request
//! ids, the request log and metrics ([`crate::metrics::ObserveLayer`]),
//! the limits on answers ([`streams`]), problems for panics, timeouts and
//! refused requests, and the concurrency gate.

pub mod streams;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse as _, Response};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tower::ServiceBuilder;

use crate::config::Config;
use crate::error::{ApiError, ErrorKind};
use crate::metrics::{Metrics, Observe, ObserveLayer};
use streams::{AnswerLimits, Hooked, SendDeadline, StreamGuard};

/// Applied to every route (after routing, so spans and metrics know the
/// matched route), outermost first:
///
/// 0. CORS, when `BGREF_CORS_ORIGINS` names origins: preflights are
///    answered here, and responses to those origins carry the CORS headers
///    (gRPC-Web's headers allowed and its trailers exposed);
/// 1. [`ObserveLayer`]: the request id (an incoming `x-request-id` of up
///    to 128 printable ASCII characters is kept, otherwise one is made:
///    [`crate::telemetry::MakeRequestId`]; echoed in the response), the
///    request log and span ([`crate::telemetry::RequestLog`]), metrics, outcome
///    and completion log, which see what the client sees, panics and
///    timeouts included;
/// 2. gRPC streams have a bounded life ([`StreamGuard`]); every other
///    response must be sent within `BGREF_RESPONSE_SEND_TIMEOUT`
///    ([`SendDeadline`]); undecodable gRPC messages are INVALID_ARGUMENT
///    ([`AnswerLimits`]);
/// 3. a query that is not UTF-8 is refused, panics become a 500 problem,
///    slow requests a 503 problem (408 when the body had not arrived), a
///    client gone mid-body a 499, and a 413 closes the HTTP/1 connection
///    (its body was not read) ([`ProblemLayer`]);
/// 4. at most `max_concurrency` requests run at once (HTTP and gRPC
///    together; [`ConcurrencyGate`]);
/// 5. HTTP request bodies are limited to `max_body_bytes` (axum's
///    `DefaultBodyLimit`, which the extractors read; gRPC messages have
///    the same limit as each service's maximum decoding message size),
///    transcripts (`/games/verify`, `/games/export`, VerifyGame,
///    ExportGame) to `max_transcript_bytes` (the limits travel in the
///    request's extensions as [`crate::http::extract::BodyLimits`], so
///    each 413 names its limit and option).
///
/// 1 to 4 are [`RequestLayers`]. `router`'s routes get them here (with 5);
/// the gRPC routes get them before they are routed ([`crate::grpc::routes`]).
pub(crate) fn layered(router: Router, config: &Config, layers: &RequestLayers) -> Router {
    // One `Router::layer` call: each wraps every route in a `Route` of
    // its own (a boxed service cloned per request and a future around the
    // next), so the body limit is the innermost layer of the one stack,
    // not a layer of its own.
    router.layer(
        ServiceBuilder::new()
            .layer(layers.clone())
            .layer(axum::Extension(config.body_limits()))
            .layer(DefaultBodyLimit::max(config.max_body_bytes)),
    )
}

/// `router` with CORS, when `BGREF_CORS_ORIGINS` names origins.
pub(crate) fn with_cors(router: Router, config: &Config) -> Router {
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

/// The layers 1 to 4 of [`layered`], built once and shared by both routers
/// (one metrics registry, one concurrency limit).
///
/// HTTP routes get them through `Router::layer`; each gRPC service gets
/// them before it is routed ([`crate::grpc::routes`]), so that a gRPC call
/// passes one axum `Route` (a boxed service, cloned for every call, and a
/// boxed future), not two: the layers' and the service's own. The
/// gRPC routes skip axum's body limit, which only the HTTP extractors read
/// (one request extension fewer).
#[derive(Debug, Clone)]
pub(crate) struct RequestLayers {
    observe: ObserveLayer,
    limits: AnswerLimits,
    problems: ProblemLayer,
    gate: ConcurrencyGate,
}

impl RequestLayers {
    /// The layers of `config`, counting in `metrics`; open gRPC streams
    /// end when `stop` turns `true` ([`StreamGuard`]).
    pub(crate) fn new(
        config: &Config,
        metrics: &Metrics,
        stop: watch::Receiver<bool>,
    ) -> RequestLayers {
        let streams = StreamGuard::new(config.stream_timeout, stop);
        let deadline = SendDeadline::new(config.response_send_timeout, metrics.clone());
        RequestLayers {
            observe: ObserveLayer::new(metrics.clone()),
            limits: AnswerLimits::new(streams, deadline),
            problems: ProblemLayer {
                request_timeout: config.request_timeout,
            },
            gate: ConcurrencyGate::new(config.max_concurrency, config.queue_timeout),
        }
    }
}

impl<S> tower::Layer<S> for RequestLayers {
    type Service = Observe<Hooked<Problems<Admit<S>>>>;

    /// Outermost first: observe, answer limits, problems, gate.
    fn layer(&self, inner: S) -> Self::Service {
        let inner = self.gate.layer(inner);
        let inner = self.problems.layer(inner);
        let inner = self.limits.layer(inner);
        self.observe.layer(inner)
    }
}

/// At most `max` requests at once, HTTP and gRPC together. A request waits
/// at most `queue_timeout` for a slot, then gets a 503 problem with
/// `Retry-After` (gRPC clients read it as UNAVAILABLE). Probes
/// (`/healthz`, `/readyz`, `/metrics`, gRPC health) never wait: a
/// saturated server still answers its orchestrator.
#[derive(Debug, Clone)]
pub(crate) struct ConcurrencyGate {
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
}

impl<S> tower::Layer<S> for ConcurrencyGate {
    type Service = Admit<S>;

    fn layer(&self, inner: S) -> Admit<S> {
        Admit {
            inner,
            gate: self.clone(),
        }
    }
}

/// The service of [`ConcurrencyGate`].
#[derive(Debug, Clone)]
pub(crate) struct Admit<S> {
    inner: S,
    gate: ConcurrencyGate,
}

/// Waiting for a slot: the permit (or the queue timeout's end).
type Acquire = Pin<
    Box<
        dyn Future<
                Output = Result<
                    Result<OwnedSemaphorePermit, tokio::sync::AcquireError>,
                    tokio::time::error::Elapsed,
                >,
            > + Send,
    >,
>;

impl<S> tower::Service<Request> for Admit<S>
where
    S: tower::Service<Request, Response = Response> + Clone,
{
    type Response = Response;
    type Error = S::Error;
    type Future = AdmitFuture<S, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        if crate::protocol::is_probe(req.uri().path()) {
            return AdmitFuture::Running {
                inner: self.inner.call(req),
                permit: None,
            };
        }
        // A free slot is taken at once; only a full server queues.
        match self.gate.slots.clone().try_acquire_owned() {
            Ok(permit) => AdmitFuture::Running {
                inner: self.inner.call(req),
                permit: Some(permit),
            },
            Err(_) => {
                // The inner service, ready, is called once a slot is free;
                // a clone takes its place.
                let clone = self.inner.clone();
                AdmitFuture::Queued {
                    acquire: Box::pin(tokio::time::timeout(
                        self.gate.queue_timeout,
                        self.gate.slots.clone().acquire_owned(),
                    )),
                    call: Some((std::mem::replace(&mut self.inner, clone), req)),
                }
            }
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Admit`].
    #[project = AdmitProj]
    pub(crate) enum AdmitFuture<S, F> {
        Queued {
            acquire: Acquire,
            call: Option<(S, Request)>,
        },
        Running {
            #[pin]
            inner: F,
            // Held until the response is out of the handler.
            permit: Option<OwnedSemaphorePermit>,
        },
    }
}

impl<S, F, E> Future for AdmitFuture<S, F>
where
    S: tower::Service<Request, Response = Response, Future = F, Error = E>,
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        loop {
            match self.as_mut().project() {
                AdmitProj::Queued { acquire, call } => {
                    let Ok(Ok(permit)) = ready!(acquire.as_mut().poll(cx)) else {
                        return Poll::Ready(Ok(overloaded()));
                    };
                    let Some((mut service, req)) = call.take() else {
                        return Poll::Ready(Ok(overloaded()));
                    };
                    let inner = service.call(req);
                    self.set(AdmitFuture::Running {
                        inner,
                        permit: Some(permit),
                    });
                }
                AdmitProj::Running { inner, permit } => {
                    let response = ready!(inner.poll(cx));
                    drop(permit.take());
                    return Poll::Ready(response);
                }
            }
        }
    }
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

/// The request's time limit, panics, and the checks before the handler,
/// each answered with a problem document:
///
/// - a query string that is not UTF-8 once percent-decoded is refused
///   ([`decodes_to_utf8`]);
/// - a panic in the handler is a 500 (and an `error` log line);
/// - a request still running after `BGREF_REQUEST_TIMEOUT` is dropped:
///   408 when its body had not arrived (the client's fault, and the
///   connection is closed), 503 otherwise ([`timeout_as_problem`]);
/// - a client that went away in the middle of its body gets a 499
///   ([`client_closed_response`]);
/// - a 413 closes the HTTP/1 connection ([`close_after_refused_body`]).
///
/// One hand-written layer instead of tower-http's `CatchPanic` and
/// `Timeout` and three `from_fn` middlewares (each a boxed clone of the
/// inner service and two boxed futures per request); the timer is only
/// armed when the handler does not answer at its first poll.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProblemLayer {
    request_timeout: Duration,
}

impl<S> tower::Layer<S> for ProblemLayer {
    type Service = Problems<S>;

    fn layer(&self, inner: S) -> Problems<S> {
        Problems {
            inner,
            request_timeout: self.request_timeout,
        }
    }
}

/// The service of [`ProblemLayer`].
#[derive(Debug, Clone)]
pub(crate) struct Problems<S> {
    inner: S,
    request_timeout: Duration,
}

impl<S, E> tower::Service<Request> for Problems<S>
where
    S: tower::Service<Request, Response = Response, Error = E>,
{
    type Response = Response;
    type Error = E;
    type Future = ProblemsFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), E>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        if let Some(query) = req.uri().query()
            && !decodes_to_utf8(query)
        {
            return ProblemsFuture::Answered {
                answer: Some(Answer::Refused(ApiError::invalid_request(
                    "invalid-query",
                    "the query string is not UTF-8 once percent-decoded",
                ))),
            };
        }
        let grpc = crate::protocol::is_grpc(req.headers());
        let http1 = req.version() <= http::Version::HTTP_11;
        // A body with nothing to send (a GET) has arrived, whether or
        // not the handler reads it.
        let body = Arc::new(BodyProgress {
            received: AtomicBool::new(http_body::Body::is_end_stream(req.body())),
            client_closed: AtomicBool::new(false),
        });
        let req = req.map(|inner| {
            axum::body::Body::new(Tracked {
                inner,
                progress: body.clone(),
            })
        });
        let deadline = tokio::time::Instant::now() + self.request_timeout;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.inner.call(req))) {
            Ok(inner) => ProblemsFuture::Running {
                inner,
                deadline,
                sleep: None,
                body,
                grpc,
                http1,
            },
            Err(panic) => ProblemsFuture::Answered {
                answer: Some(Answer::Panicked(panic)),
            },
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Problems`].
    #[project = ProblemsProj]
    pub(crate) enum ProblemsFuture<F> {
        // Answered without the handler: made into a response (and logged)
        // when polled, inside the request span.
        Answered {
            answer: Option<Answer>,
        },
        Running {
            #[pin]
            inner: F,
            // The time limit, counted from the call.
            deadline: tokio::time::Instant,
            // Its timer, made only when the handler does not answer at
            // its first poll (most answer at once: no timer, and a
            // smaller future to move).
            sleep: Option<Pin<Box<tokio::time::Sleep>>>,
            body: Arc<BodyProgress>,
            grpc: bool,
            http1: bool,
        },
    }
}

impl<F, E> Future for ProblemsFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            ProblemsProj::Answered { answer } => Poll::Ready(Ok(match answer.take() {
                Some(Answer::Refused(error)) => error.into_response(),
                Some(Answer::Panicked(panic)) => panic_response(panic),
                None => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
            })),
            ProblemsProj::Running {
                inner,
                deadline,
                sleep,
                body,
                grpc,
                http1,
            } => {
                // Once armed, the time limit is looked at first: a handler
                // that would answer after it does not.
                let timed_out = sleep
                    .as_mut()
                    .is_some_and(|sleep| sleep.as_mut().poll(cx).is_ready());
                let polled = (!timed_out).then(|| {
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.poll(cx)))
                });
                let response = match polled {
                    Some(Ok(Poll::Ready(Ok(response)))) => response,
                    Some(Ok(Poll::Ready(Err(err)))) => return Poll::Ready(Err(err)),
                    Some(Ok(Poll::Pending)) => {
                        let sleep = sleep
                            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(*deadline)));
                        ready!(sleep.as_mut().poll(cx));
                        StatusCode::SERVICE_UNAVAILABLE.into_response()
                    }
                    // Out of time: the bare 503 that `timeout_as_problem`
                    // explains (the handler is dropped with this future).
                    None => StatusCode::SERVICE_UNAVAILABLE.into_response(),
                    Some(Err(panic)) => panic_response(panic),
                };
                let response = if body.client_closed.load(Ordering::Relaxed) {
                    client_closed_response(*grpc)
                } else {
                    timeout_as_problem(response, body.received.load(Ordering::Relaxed))
                };
                Poll::Ready(Ok(close_after_refused_body(response, *http1)))
            }
        }
    }
}

/// What [`Problems`] answers without the handler.
enum Answer {
    Refused(ApiError),
    Panicked(Box<dyn std::any::Any + Send>),
}

/// The 500 of a handler that panicked, logged with the panic's message.
fn panic_response(panic: Box<dyn std::any::Any + Send>) -> Response {
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
}

/// The timeout layer answers a bare 503; say what happened in a problem
/// document like every other error (a 503 with a body, such as `/readyz`
/// while draining, is left alone). `received`: whether the request body
/// had arrived in full.
fn timeout_as_problem(response: Response, received: bool) -> Response {
    if response.status() != StatusCode::SERVICE_UNAVAILABLE
        || response.headers().contains_key(http::header::CONTENT_TYPE)
    {
        return response;
    }
    if !received {
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
    axum::response::IntoResponse::into_response(ApiError::new(
        ErrorKind::Unavailable,
        "timeout",
        "the request took longer than the server's time limit (BGREF_REQUEST_TIMEOUT)",
    ))
}

/// What a [`Tracked`] request body tells the layer that made it.
#[derive(Debug)]
struct BodyProgress {
    /// The body was received in full.
    received: AtomicBool,
    /// The client went away before sending it all.
    client_closed: AtomicBool,
}

/// A request body that notes when it has been received in full, and when
/// the client went away before sending it all.
struct Tracked {
    inner: axum::body::Body,
    progress: Arc<BodyProgress>,
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
        headers.insert(
            crate::protocol::GRPC_STATUS,
            http::HeaderValue::from_static("1"),
        );
        headers.insert(
            crate::protocol::GRPC_MESSAGE,
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
            self.progress.client_closed.store(true, Ordering::Relaxed);
        }
        if matches!(poll, std::task::Poll::Ready(None)) || self.inner.is_end_stream() {
            self.progress.received.store(true, Ordering::Relaxed);
        }
        poll
    }

    fn is_end_stream(&self) -> bool {
        let end = self.inner.is_end_stream();
        if end {
            self.progress.received.store(true, Ordering::Relaxed);
        }
        end
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// A query string whose percent-decoding is not UTF-8 is refused (400
/// `invalid-query`, by [`ProblemLayer`]) instead of being read with U+FFFD
/// in place of the bad bytes, which would make two different queries
/// (`%FF`, `%FE`) the same.
///
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
fn close_after_refused_body(mut response: Response, http1: bool) -> Response {
    if http1 && response.status() == StatusCode::PAYLOAD_TOO_LARGE {
        response.headers_mut().insert(
            http::header::CONNECTION,
            http::HeaderValue::from_static("close"),
        );
    }
    response
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

#[cfg(test)]
mod layer_tests {
    use std::sync::Arc;
    use std::time::Duration;

    use axum::Router;
    use axum::body::Body;
    use axum::routing::{get, post};
    use http::{Request, StatusCode, Version};
    use http_body_util::BodyExt as _;
    use tokio::sync::{Notify, watch};
    use tower::ServiceExt as _;

    use crate::config::Config;
    use crate::metrics::Metrics;

    /// `/hold` runs until the test lets it go.
    #[derive(Clone, Default)]
    struct Hold {
        /// Notified when `/hold` is running.
        running: Arc<Notify>,
        /// Lets `/hold` answer.
        release: Arc<Notify>,
    }

    /// Routes behind every layer: `/hold` answers when let go, `/never`
    /// never, `/body` once it has read its body, `/fast` and `/healthz` at
    /// once, `/panic` panics.
    fn app(config: &Config, hold: &Hold) -> Router {
        let metrics = Metrics::new();
        let (_, stop) = watch::channel(false);
        let layers = super::RequestLayers::new(
            &Config {
                stream_timeout: Duration::from_secs(60),
                response_send_timeout: Duration::from_secs(60),
                ..config.clone()
            },
            &metrics,
            stop,
        );
        let hold = hold.clone();
        let routes = Router::new()
            .route(
                "/hold",
                get(|| async move {
                    hold.running.notify_one();
                    hold.release.notified().await;
                    "held"
                }),
            )
            .route("/never", get(std::future::pending::<()>))
            .route("/fast", get(|| async { "fast" }))
            .route("/healthz", get(|| async { "ok" }))
            .route(
                "/panic",
                get(|| async {
                    if true {
                        panic!("on purpose");
                    }
                    "never"
                }),
            )
            .route(
                "/body",
                post(|body: axum::body::Bytes| async move { body.len().to_string() }),
            );
        super::layered(routes, config, &layers)
    }

    async fn send(app: &Router, req: Request<Body>) -> (http::response::Parts, String) {
        let response = app.clone().oneshot(req).await.unwrap();
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await.unwrap().to_bytes();
        (parts, String::from_utf8_lossy(&bytes).into_owned())
    }

    fn get_(path: &str) -> Request<Body> {
        Request::get(path).body(Body::empty()).unwrap()
    }

    /// `/hold`, and `second` once `/hold` is running; `/hold` is let go
    /// after `second` has its answer, or `release_early` after 50 ms.
    async fn while_held(
        config: &Config,
        second: &str,
        release_early: bool,
    ) -> (
        (http::response::Parts, String),
        (http::response::Parts, String),
    ) {
        let hold = Hold::default();
        let app = app(config, &hold);
        tokio::join!(send(&app, get_("/hold")), async {
            hold.running.notified().await;
            if release_early {
                let release = hold.release.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    release.notify_one();
                });
                send(&app, get_(second)).await
            } else {
                let answer = send(&app, get_(second)).await;
                hold.release.notify_one();
                answer
            }
        })
    }

    #[tokio::test]
    async fn a_queued_request_runs_once_a_slot_frees() {
        let mut config = Config::defaults();
        config.max_concurrency = 1;
        config.queue_timeout = Duration::from_secs(60);
        let (first, second) = while_held(&config, "/fast", true).await;
        assert_eq!((first.0.status, first.1.as_str()), (StatusCode::OK, "held"));
        assert_eq!(
            (second.0.status, second.1.as_str()),
            (StatusCode::OK, "fast")
        );
    }

    #[tokio::test]
    async fn a_request_that_finds_no_slot_in_time_is_a_503_but_probes_never_wait() {
        let mut config = Config::defaults();
        config.max_concurrency = 1;
        config.queue_timeout = Duration::from_millis(50);
        let (first, second) = while_held(&config, "/fast", false).await;
        assert_eq!(first.0.status, StatusCode::OK);
        assert_eq!(second.0.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(second.0.headers["retry-after"], "1");
        assert!(second.1.contains(r#""type":"overloaded""#), "{}", second.1);
        config.queue_timeout = Duration::from_secs(60);
        let (first, probe) = while_held(&config, "/healthz", false).await;
        assert_eq!(first.0.status, StatusCode::OK);
        assert_eq!((probe.0.status, probe.1.as_str()), (StatusCode::OK, "ok"));
    }

    #[tokio::test]
    async fn a_slow_answer_is_a_503_problem_and_a_slow_body_a_408_that_closes() {
        let mut config = Config::defaults();
        config.request_timeout = Duration::from_millis(100);
        let app = app(&config, &Hold::default());
        let (parts, body) = send(&app, get_("/never")).await;
        assert_eq!(parts.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(parts.headers["content-type"], "application/problem+json");
        assert!(body.contains(r#""type":"timeout""#), "{body}");

        let req = Request::post("/body").body(Body::new(Endless)).unwrap();
        let (parts, body) = send(&app, req).await;
        assert_eq!(parts.status, StatusCode::REQUEST_TIMEOUT);
        assert_eq!(parts.headers["connection"], "close");
        assert!(body.contains(r#""type":"request-timeout""#), "{body}");
    }

    /// A request body that never ends.
    struct Endless;

    impl http_body::Body for Endless {
        type Data = axum::body::Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
            std::task::Poll::Pending
        }
    }

    #[tokio::test]
    async fn a_panic_is_a_500_problem_and_the_server_goes_on() {
        let app = app(&Config::defaults(), &Hold::default());
        let (parts, body) = send(&app, get_("/panic")).await;
        assert_eq!(parts.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(parts.headers["content-type"], "application/problem+json");
        assert!(body.contains(r#""type":"internal""#), "{body}");
        let (parts, body) = send(&app, get_("/fast")).await;
        assert_eq!((parts.status, body.as_str()), (StatusCode::OK, "fast"));
    }

    #[tokio::test]
    async fn a_refused_body_closes_an_http1_connection_only() {
        let mut config = Config::defaults();
        config.max_body_bytes = 16;
        let app = app(&config, &Hold::default());
        for (version, closes) in [(Version::HTTP_11, true), (Version::HTTP_2, false)] {
            let req = Request::post("/body")
                .version(version)
                .body(Body::from("x".repeat(100)))
                .unwrap();
            let (parts, _) = send(&app, req).await;
            assert_eq!(parts.status, StatusCode::PAYLOAD_TOO_LARGE, "{version:?}");
            assert_eq!(
                parts.headers.get("connection").is_some(),
                closes,
                "{version:?}"
            );
        }
        let req = Request::post("/body")
            .body(Body::from("x".repeat(16)))
            .unwrap();
        let (parts, body) = send(&app, req).await;
        assert_eq!((parts.status, body.as_str()), (StatusCode::OK, "16"));
        assert!(parts.headers.get("connection").is_none());
    }

    #[tokio::test]
    async fn a_query_that_is_not_utf8_is_refused() {
        let app = app(&Config::defaults(), &Hold::default());
        let (parts, body) = send(&app, get_("/fast?a=%FF")).await;
        assert_eq!(parts.status, StatusCode::BAD_REQUEST);
        assert!(body.contains(r#""type":"invalid-query""#), "{body}");
        // Refused requests have an id too.
        assert_eq!(parts.headers["x-request-id"].len(), 36);
        let (parts, body) = send(&app, get_("/fast?a=%C3%A9")).await;
        assert_eq!((parts.status, body.as_str()), (StatusCode::OK, "fast"));
    }

    #[tokio::test]
    async fn a_valid_request_id_is_echoed_and_any_other_replaced() {
        let app = app(&Config::defaults(), &Hold::default());
        let with = |ids: &[&str]| {
            let mut req = get_("/fast");
            for id in ids {
                req.headers_mut()
                    .append("x-request-id", id.parse().unwrap());
            }
            req
        };
        let (parts, _) = send(&app, with(&["client-1"])).await;
        assert_eq!(parts.headers["x-request-id"], "client-1");
        // Never indexed by HPACK (unique to each response).
        assert!(parts.headers["x-request-id"].is_sensitive());
        let long = "x".repeat(129);
        let mut made = Vec::new();
        for ids in [&[][..], &["a", "b"], &[long.as_str()], &["with space"]] {
            let (parts, _) = send(&app, with(ids)).await;
            assert!(parts.headers["x-request-id"].is_sensitive(), "{ids:?}");
            let id = parts.headers["x-request-id"].to_str().unwrap().to_owned();
            assert_eq!(id.len(), 36, "{ids:?}: {id}");
            made.push(id);
        }
        made.dedup();
        assert_eq!(made.len(), 4, "{made:?}");
    }
}

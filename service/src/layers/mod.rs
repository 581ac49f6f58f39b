//! The request middleware, applied to every route (HTTP and gRPC): request
//! ids, the request log and metrics ([`crate::metrics::ObserveLayer`]),
//! the limits on answers ([`streams`]), problems for panics, timeouts and
//! refused requests, and the concurrency gate.

mod gate;
mod problems;
pub mod request_id;
pub mod streams;

use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request};
use axum::response::{IntoResponse, Response};
use tokio::sync::watch;
use tower::util::Either;
use tower::{Layer as _, ServiceBuilder};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::decompression::{DecompressionBody, RequestDecompressionLayer};
use tower_http::request_id::{PropagateRequestIdLayer, SetRequestIdLayer};

use crate::config::Config;
use crate::metrics::{Metrics, ObserveLayer};
use gate::Gate;
use request_id::{MakeRequestId, REQUEST_ID_HEADER};
use streams::{AnswerLimits, SendDeadline, StreamGuard, WatchSlots};

/// Applied to every route (after routing, so spans and metrics know the
/// matched route), outermost first:
///
/// 0. CORS, when `BGREF_CORS_ORIGINS` names origins: preflights are
///    answered here, and responses to those origins carry the CORS headers
///    (gRPC-Web's headers allowed and its trailers exposed);
/// 1. the request id, tower-http's `SetRequestIdLayer` and
///    `PropagateRequestIdLayer` (an incoming `x-request-id` of up to 128
///    printable ASCII characters is kept, otherwise one is made:
///    [`request_id`]; echoed in the response), then [`ObserveLayer`]: the
///    request log and span ([`crate::telemetry::RequestLog`]), metrics,
///    outcome and completion log, which see what the client sees, panics
///    and timeouts included;
/// 2. gRPC streams have a bounded life ([`StreamGuard`]), health Watch
///    streams a cap ([`WatchSlots`]: one more is RESOURCE_EXHAUSTED); every other
///    response must be sent within `BGREF_RESPONSE_SEND_TIMEOUT`
///    ([`SendDeadline`]); undecodable gRPC messages are INVALID_ARGUMENT
///    ([`AnswerLimits`]);
/// 3. a query that is not UTF-8 is refused, panics become a 500 problem,
///    slow requests a 503 problem (408 when the body had not arrived;
///    gRPC: UNAVAILABLE, or DEADLINE_EXCEEDED for a message that did not
///    arrive or a call past its own `grpc-timeout`), a client gone
///    mid-body a 499, and a 413 closes the HTTP/1 connection (its body was
///    not read) (`problems`, around tower-http's `CatchPanicLayer`);
/// 4. the request body is read in full (a body over its limit is refused
///    here, by its `Content-Length` when it has one: 413, gRPC
///    RESOURCE_EXHAUSTED), then at most `max_concurrency` requests are
///    computed at once (HTTP and gRPC together; `gate`);
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
///
/// Outside them, for the HTTP routes only (gRPC has its own `grpc-encoding`,
/// which bgref does not use) and the requests that name a coding
/// ([`codings`]): tower-http's compression, which gzips an
/// answer of more than 32 bytes when the request's `Accept-Encoding`
/// allows it (the answer limits of 2 see the uncompressed answer), and its
/// request decompression, which decodes a body sent with
/// `Content-Encoding: gzip` as it is read, so that the gate (4) counts the
/// decoded bytes against the body limit (a small body that inflates past
/// it is a 413, decoded no further) and an undecodable one is
/// `unreadable-body`. Other codings pass undecoded to the extractors,
/// which refuse them with 415.
pub(crate) fn layered(router: Router, config: &Config, layers: &RequestLayers) -> Router {
    // One `Router::layer` call: each wraps every route in a `Route` of
    // its own (a boxed service cloned per request and a future around the
    // next), so the body limit is the innermost layer of the one stack,
    // not a layer of its own.
    let layers = layers.clone();
    let limits = ServiceBuilder::new()
        .layer(axum::Extension(config.body_limits()))
        .layer(DefaultBodyLimit::max(config.max_body_bytes));
    router.layer(tower::layer::layer_fn(move |route| {
        codings(layers.apply(limits.service(route)))
    }))
}

/// `inner` with tower-http's compression and request decompression
/// ([`layered`]) for the requests that use them (an `Accept-Encoding`
/// that names gzip, or a `Content-Encoding`); the others (`Accept-Encoding:
/// identity` included) go to `inner` directly, without the 4 000
/// instructions the two layers cost a request that uses neither
/// (bench/README.md, "Compression").
fn codings<S>(
    inner: S,
) -> Codings<
    S,
    impl tower::Service<Request, Response = Response, Error = Infallible, Future: Send>
    + Clone
    + Send
    + Sync
    + use<S>,
>
where
    S: tower::Service<Request, Response = Response, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let coded = ServiceBuilder::new()
        .map_response(IntoResponse::into_response)
        .layer(CompressionLayer::new())
        .layer(RequestDecompressionLayer::new().pass_through_unaccepted(true))
        .map_request(|req: Request<DecompressionBody<Body>>| req.map(Body::new))
        .service(inner.clone());
    Codings {
        plain: Either::Left(inner),
        coded: Either::Right(coded),
    }
}

/// [`codings`]: the same service with and without the coding layers, each
/// in the [`Either`] whose future the other's must match. (tower's `Steer`
/// picks the same way, but keeps its services in a `Vec` and a readiness
/// `VecDeque`, which axum's per-request clone of the route would allocate
/// anew for every request.)
#[derive(Debug, Clone)]
struct Codings<S, C> {
    plain: Either<S, C>,
    coded: Either<S, C>,
}

impl<S, C> tower::Service<Request> for Codings<S, C>
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
    C: tower::Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = tower::util::future::EitherResponseFuture<S::Future, C::Future>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::ready!(self.plain.poll_ready(cx))?;
        self.coded.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let headers = req.headers();
        let accepts_gzip = headers
            .get_all(http::header::ACCEPT_ENCODING)
            .iter()
            .any(|v| {
                v.as_bytes()
                    .windows(4)
                    .any(|w| w.eq_ignore_ascii_case(b"gzip"))
            });
        if accepts_gzip || headers.contains_key(http::header::CONTENT_ENCODING) {
            self.coded.call(req)
        } else {
            self.plain.call(req)
        }
    }
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
    make_id: MakeRequestId,
    observe: ObserveLayer,
    limits: AnswerLimits,
    request_timeout: Duration,
    gate: Gate,
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
        let deadline = SendDeadline::new(
            config.response_send_timeout,
            config.max_pending_answer_bytes,
            metrics.clone(),
        );
        RequestLayers {
            make_id: MakeRequestId::default(),
            observe: ObserveLayer::new(metrics.clone()),
            limits: AnswerLimits::new(
                streams,
                WatchSlots::new(config.max_watch_streams, metrics.clone()),
                deadline,
            ),
            request_timeout: config.request_timeout,
            gate: Gate::new(
                config.max_concurrency,
                config.queue_timeout,
                config.body_limits(),
            ),
        }
    }

    /// `inner` behind the layers, outermost first: request id, observe,
    /// answer limits, problems (catching panics, timing out), gate.
    pub(crate) fn apply<S>(
        &self,
        inner: S,
    ) -> impl tower::Service<
        Request,
        Response = Response,
        Error = Infallible,
        Future: Send + 'static,
    >
    + Clone
    + Send
    + Sync
    + 'static
    + use<S>
    where
        S: tower::Service<Request, Error = Infallible> + Clone + Send + Sync + 'static,
        S::Response: IntoResponse,
        S::Future: Send + 'static,
    {
        let inner =
            axum::middleware::from_fn_with_state(self.gate.clone(), gate::admit).layer(inner);
        let inner =
            CatchPanicLayer::custom(problems::panic_response as fn(_) -> Response).layer(inner);
        let inner = axum::middleware::from_fn_with_state(self.request_timeout, problems::problems)
            .layer(inner);
        let inner = self.limits.layer(inner);
        let inner = self.observe.layer(inner);
        let inner = PropagateRequestIdLayer::new(REQUEST_ID_HEADER).layer(inner);
        let inner = SetRequestIdLayer::new(REQUEST_ID_HEADER, self.make_id.clone()).layer(inner);
        let inner =
            tower::util::MapRequestLayer::new(request_id::keep_valid_id::<axum::body::Body>)
                .layer(inner);
        tower::util::MapResponseLayer::new(|r: http::Response<_>| r.map(axum::body::Body::new))
            .layer(inner)
    }
}

#[cfg(test)]
mod tests {
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
            .route("/readyz", get(|| async { "ready" }))
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
    async fn readiness_says_overloaded_while_every_slot_is_taken() {
        let mut config = Config::defaults();
        config.max_concurrency = 1;
        let (first, probe) = while_held(&config, "/readyz", false).await;
        assert_eq!(first.0.status, StatusCode::OK);
        assert_eq!(probe.0.status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(probe.1.contains(r#""status":"overloaded""#), "{}", probe.1);
        let app = app(&config, &Hold::default());
        let (parts, body) = send(&app, get_("/readyz")).await;
        assert_eq!((parts.status, body.as_str()), (StatusCode::OK, "ready"));
    }

    #[tokio::test]
    async fn a_body_is_read_before_a_slot_is_taken() {
        let mut config = Config::defaults();
        config.max_concurrency = 1;
        config.queue_timeout = Duration::from_millis(50);
        config.request_timeout = Duration::from_secs(60);
        let app = app(&config, &Hold::default());
        // A body that never ends holds no slot: a request after it runs.
        let stalled = tokio::spawn({
            let app = app.clone();
            async move {
                let req = Request::post("/body").body(Body::new(Endless)).unwrap();
                send(&app, req).await
            }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        let (parts, body) = send(&app, get_("/fast")).await;
        assert_eq!((parts.status, body.as_str()), (StatusCode::OK, "fast"));
        assert!(!stalled.is_finished());
        stalled.abort();
        // A body over the limit is refused by its length, before it is read.
        config.max_body_bytes = 16;
        let app = self::app(&config, &Hold::default());
        let req = Request::post("/body")
            .header("content-length", "1000")
            .body(Body::new(Endless))
            .unwrap();
        let (parts, body) = send(&app, req).await;
        assert_eq!(parts.status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(body.contains("16 B"), "{body}");
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

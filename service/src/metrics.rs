//! Prometheus metrics for HTTP and gRPC alike, served at `GET /metrics`.
//!
//! [`ObserveLayer`] sits on the merged router (after routing, so the
//! matched route is known), sets each request's id and starts its log
//! ([`RequestLog::start`]) and, once its response is complete (for gRPC:
//! when the `grpc-status` trailer has gone out): counts it and times it
//! per protocol, operation and outcome, and logs it
//! ([`RequestOutcome::record`]). A request
//! whose client goes away first is counted too (`499` / `CANCELLED`).
//!
//! Label values are bounded: HTTP operations are the method and the route
//! template (`POST /legal-moves`, `GET unmatched`), gRPC operations the
//! method path of a served service (`/bgref.v1.Referee/LegalMoves`) or
//! `unknown`; outcomes are the HTTP status or the gRPC code name.
//!
//! Hand-rolled on atomics: a few dozen series do not need an exporter
//! crate. The text format is Prometheus' `text/plain; version=0.0.4`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::protocol::REQUEST_ID_HEADER;
use crate::telemetry::{Operation, Protocol, RequestLog, RequestOutcome};
use http::{HeaderMap, HeaderValue, Request, Response, StatusCode};
use http_body::{Body, Frame, SizeHint};

/// The route that serves [`Metrics::render`] (`GET /metrics`).
const METRICS_ROUTE: &str = "/metrics";

/// `Content-Type` of [`Metrics::render`]'s output.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds (seconds) of the latency histogram's buckets. Referee
/// operations take microseconds to a few milliseconds.
const BUCKETS: [f64; 14] = [
    0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// Series are keyed by protocol, operation and outcome.
type Key = (Protocol, String, String);

/// The series of one protocol: by operation, then by outcome (looked up
/// by `&str`, with no allocation once a series exists).
type BySeries = BTreeMap<String, BTreeMap<String, Arc<Series>>>;

/// One series: a counter and a latency histogram.
#[derive(Debug, Default)]
struct Series {
    count: AtomicU64,
    sum_nanos: AtomicU64,
    /// Non-cumulative: `buckets[i]` counts latencies in `(BUCKETS[i-1], BUCKETS[i]]`.
    buckets: [AtomicU64; BUCKETS.len()],
}

#[derive(Debug)]
struct Registry {
    /// HTTP's series, then gRPC's ([`Protocol`]'s order).
    series: RwLock<[BySeries; 2]>,
    in_flight: AtomicI64,
    abandoned: AtomicU64,
    watch_streams: AtomicI64,
    start_time: f64,
}

/// The request metrics of one server. Cloning shares them.
#[derive(Debug, Clone)]
pub struct Metrics {
    inner: Arc<Registry>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    /// Empty metrics.
    pub fn new() -> Metrics {
        let start_time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        Metrics {
            inner: Arc::new(Registry {
                series: RwLock::new([BTreeMap::new(), BTreeMap::new()]),
                in_flight: AtomicI64::new(0),
                abandoned: AtomicU64::new(0),
                watch_streams: AtomicI64::new(0),
                start_time,
            }),
        }
    }

    /// Counts one completed request.
    pub fn observe(&self, protocol: Protocol, operation: &str, outcome: &str, latency: Duration) {
        let series = self.series(protocol, operation, outcome);
        let seconds = latency.as_secs_f64();
        series.count.fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX);
        series.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
        if let Some(i) = BUCKETS.iter().position(|&le| seconds <= le) {
            series.buckets[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Counts one response dropped because its client did not read it in
    /// time (`BGREF_RESPONSE_SEND_TIMEOUT`).
    pub fn response_abandoned(&self) {
        self.inner.abandoned.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a gRPC health Watch stream opened (`1`) or ended (`-1`).
    pub fn watch_streams_add(&self, delta: i64) {
        self.inner.watch_streams.fetch_add(delta, Ordering::Relaxed);
    }

    fn series(&self, protocol: Protocol, operation: &str, outcome: &str) -> Arc<Series> {
        let index = protocol_index(protocol);
        let existing = self
            .inner
            .series
            .read()
            .unwrap_or_else(PoisonError::into_inner)[index]
            .get(operation)
            .and_then(|by_outcome| by_outcome.get(outcome))
            .cloned();
        existing.unwrap_or_else(|| {
            self.inner
                .series
                .write()
                .unwrap_or_else(PoisonError::into_inner)[index]
                .entry(operation.to_owned())
                .or_default()
                .entry(outcome.to_owned())
                .or_default()
                .clone()
        })
    }

    /// The Prometheus text exposition of every series.
    pub fn render(&self) -> String {
        let series: Vec<(Key, Arc<Series>)> = {
            let all = self
                .inner
                .series
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            [Protocol::Http, Protocol::Grpc]
                .into_iter()
                .flat_map(|protocol| {
                    all[protocol_index(protocol)]
                        .iter()
                        .flat_map(move |(operation, by_outcome)| {
                            by_outcome.iter().map(move |(outcome, s)| {
                                ((protocol, operation.clone(), outcome.clone()), s.clone())
                            })
                        })
                })
                .collect()
        };
        let mut out = String::with_capacity(256 + series.len() * 1600);
        let labels = |(protocol, operation, status): &Key| {
            format!(
                "protocol=\"{}\",operation=\"{}\",status=\"{}\"",
                protocol.as_str(),
                escape(operation),
                escape(status)
            )
        };

        out.push_str(
            "# HELP bgref_requests_total Requests completed, by protocol, operation and outcome \
             (HTTP status or gRPC code).\n# TYPE bgref_requests_total counter\n",
        );
        for (key, s) in &series {
            let _ = writeln!(
                out,
                "bgref_requests_total{{{}}} {}",
                labels(key),
                s.count.load(Ordering::Relaxed)
            );
        }

        out.push_str(
            "# HELP bgref_request_duration_seconds Time from receiving a request to the end of \
             its response, by protocol, operation and outcome.\n\
             # TYPE bgref_request_duration_seconds histogram\n",
        );
        for (key, s) in &series {
            let labels = labels(key);
            let count = s.count.load(Ordering::Relaxed);
            let mut cumulative = 0;
            for (le, bucket) in BUCKETS.iter().zip(&s.buckets) {
                cumulative += bucket.load(Ordering::Relaxed);
                let _ = writeln!(
                    out,
                    "bgref_request_duration_seconds_bucket{{{labels},le=\"{le}\"}} {cumulative}"
                );
            }
            // The counts are read one by one: keep +Inf >= every bucket.
            let count = count.max(cumulative);
            let _ = writeln!(
                out,
                "bgref_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {count}\n\
                 bgref_request_duration_seconds_sum{{{labels}}} {}\n\
                 bgref_request_duration_seconds_count{{{labels}}} {count}",
                s.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9,
            );
        }

        let _ = write!(
            out,
            "# HELP bgref_requests_in_flight Requests being handled now.\n\
             # TYPE bgref_requests_in_flight gauge\n\
             bgref_requests_in_flight {}\n\
             # HELP bgref_responses_abandoned_total Responses dropped unsent because the client \
             did not read them within BGREF_RESPONSE_SEND_TIMEOUT.\n\
             # TYPE bgref_responses_abandoned_total counter\n\
             bgref_responses_abandoned_total {}\n\
             # HELP bgref_health_watch_streams gRPC health Watch streams open now \
             (at most BGREF_MAX_WATCH_STREAMS).\n\
             # TYPE bgref_health_watch_streams gauge\n\
             bgref_health_watch_streams {}\n\
             # HELP bgref_build_info The running version; always 1.\n\
             # TYPE bgref_build_info gauge\n\
             bgref_build_info{{version=\"{}\"}} 1\n\
             # HELP process_start_time_seconds Start time of the process since the Unix epoch, in seconds.\n\
             # TYPE process_start_time_seconds gauge\n\
             process_start_time_seconds {}\n",
            self.inner.in_flight.load(Ordering::Relaxed),
            self.inner.abandoned.load(Ordering::Relaxed),
            self.inner.watch_streams.load(Ordering::Relaxed),
            env!("CARGO_PKG_VERSION"),
            self.inner.start_time,
        );
        out
    }
}

/// The index of a protocol's series in the registry.
fn protocol_index(protocol: Protocol) -> usize {
    match protocol {
        Protocol::Http => 0,
        Protocol::Grpc => 1,
    }
}

/// Escapes a label value (backslash, double quote, line feed).
fn escape(value: &str) -> String {
    value
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

/// Identifies, traces, counts and logs every request; see the module doc.
///
/// One layer instead of classification and `TraceLayer`: the operation is
/// classified once, and the span entered while the response future is
/// polled (and a gRPC body, which runs the method's stream) without a
/// wrapper of its own. The request id is tower-http's, set outside
/// ([`crate::layers::request_id`]).
#[derive(Debug, Clone)]
pub struct ObserveLayer {
    metrics: Metrics,
}

impl ObserveLayer {
    /// A layer feeding `metrics`.
    pub fn new(metrics: Metrics) -> ObserveLayer {
        ObserveLayer { metrics }
    }
}

impl<S> tower::Layer<S> for ObserveLayer {
    type Service = Observe<S>;

    fn layer(&self, inner: S) -> Observe<S> {
        Observe {
            inner,
            metrics: self.metrics.clone(),
        }
    }
}

/// The service of [`ObserveLayer`].
#[derive(Debug, Clone)]
pub struct Observe<S> {
    inner: S,
    metrics: Metrics,
}

impl<S, ReqB, ResB> tower::Service<Request<ReqB>> for Observe<S>
where
    S: tower::Service<Request<ReqB>, Response = Response<ResB>>,
    ResB: Body,
{
    type Response = Response<ObservedBody<ResB>>;
    type Error = S::Error;
    type Future = ObservedFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    /// Starts the request's log, and calls the inner
    /// service (with the metrics in the request's extensions for
    /// `GET /metrics`). The span is entered when the response future is
    /// polled, not here: the services inside only build their futures in
    /// `call`, and what they log, they log when polled.
    fn call(&mut self, mut req: Request<ReqB>) -> Self::Future {
        let request_id = req
            .headers()
            .get(REQUEST_ID_HEADER)
            .cloned()
            .unwrap_or_else(|| HeaderValue::from_static("-"));
        let operation = Operation::shared(&req);
        let log = RequestLog::start(&req, &operation, request_id);
        if operation.route.as_deref() == Some(METRICS_ROUTE) {
            // Only its handler reads it (another extension for every
            // request would grow the extension map).
            req.extensions_mut().insert(self.metrics.clone());
        }
        let web_status = crate::protocol::is_grpc_web(req.headers()).then(|| {
            let note = GrpcWebStatus::default();
            req.extensions_mut().insert(note.clone());
            note
        });
        let inner = self.inner.call(req);
        let mut pending = Pending::new(self.metrics.clone(), operation, log);
        pending.tally.web_status = web_status;
        ObservedFuture {
            inner,
            pending: Some(pending),
        }
    }
}

/// One request being observed: its log (and span), and its tally, which
/// records itself exactly once, at the latest when dropped.
#[derive(Debug)]
struct Pending {
    log: RequestLog,
    tally: Tally,
}

impl Pending {
    fn new(metrics: Metrics, operation: Arc<Operation>, log: RequestLog) -> Pending {
        metrics.inner.in_flight.fetch_add(1, Ordering::Relaxed);
        Pending {
            log,
            tally: Tally {
                metrics,
                operation,
                start: Instant::now(),
                status: None,
                done: false,
                web_status: None,
            },
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.tally.done {
            // Dropped before the end: the client went away.
            let outcome = match (self.tally.operation.protocol, self.tally.status) {
                (Protocol::Http, Some(status)) => RequestOutcome::Http(status),
                (protocol, _) => cancelled(protocol),
            };
            self.tally.finish(&self.log, outcome);
        }
    }
}

/// What [`Pending`] counts: apart from its log, so that the span can be
/// entered while the tally changes.
#[derive(Debug)]
struct Tally {
    metrics: Metrics,
    operation: Arc<Operation>,
    start: Instant,
    /// The HTTP status, once the response head is out.
    status: Option<StatusCode>,
    done: bool,
    /// A gRPC-Web call's status, noted before tonic-web writes it into the
    /// body.
    web_status: Option<GrpcWebStatus>,
}

impl Tally {
    /// Counts the request and logs its completion, once.
    fn finish(&mut self, log: &RequestLog, outcome: RequestOutcome) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let latency = self.start.elapsed();
        self.metrics.inner.in_flight.fetch_sub(1, Ordering::Relaxed);
        let label = match outcome {
            // Unknown methods of a served gRPC service are one series.
            RequestOutcome::Grpc(tonic::Code::Unimplemented) => "unknown",
            _ => self.operation.label(),
        };
        self.metrics
            .observe(self.operation.protocol, label, &outcome.label(), latency);
        outcome.record(log, &self.operation, latency);
    }

    /// The outcome when the response ends without saying more: for HTTP the
    /// status, for gRPC the status mapped as gRPC clients map it.
    fn outcome_at_end(&self) -> RequestOutcome {
        match (self.operation.protocol, self.status) {
            (Protocol::Http, Some(status)) => RequestOutcome::Http(status),
            (Protocol::Grpc, Some(status)) if status != StatusCode::OK => {
                RequestOutcome::Grpc(grpc_code_of_http(status))
            }
            (Protocol::Grpc, Some(_)) => RequestOutcome::Grpc(
                self.web_status
                    .as_ref()
                    .and_then(|noted| noted.0.get().copied())
                    .unwrap_or(tonic::Code::Unknown),
            ),
            (protocol, None) => cancelled(protocol),
        }
    }
}

/// The gRPC status of a gRPC-Web call. tonic-web writes the trailers into
/// the response body, where the observer cannot read them: the observer
/// puts this in the request's extensions, and [`NoteGrpcWebStatus`],
/// inside tonic-web, notes the status in it.
#[derive(Debug, Clone, Default)]
pub(crate) struct GrpcWebStatus(Arc<std::sync::OnceLock<tonic::Code>>);

/// A gRPC service under tonic-web whose answers note their status in the
/// request's [`GrpcWebStatus`], if it has one.
#[derive(Debug, Clone)]
pub(crate) struct NoteGrpcWebStatus<S>(pub(crate) S);

impl<S, B, ResB> tower::Service<Request<B>> for NoteGrpcWebStatus<S>
where
    S: tower::Service<Request<B>, Response = Response<ResB>>,
    ResB: Body<Data = axum::body::Bytes> + Send + 'static,
    ResB::Error: Into<tonic::codegen::StdError>,
{
    type Response = Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = Noting<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let note = req.extensions().get::<GrpcWebStatus>().cloned();
        Noting {
            inner: self.0.call(req),
            note,
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`NoteGrpcWebStatus`].
    pub(crate) struct Noting<F> {
        #[pin]
        inner: F,
        note: Option<GrpcWebStatus>,
    }
}

impl<F, ResB, E> Future for Noting<F>
where
    F: Future<Output = Result<Response<ResB>, E>>,
    ResB: Body<Data = axum::body::Bytes> + Send + 'static,
    ResB::Error: Into<tonic::codegen::StdError>,
{
    type Output = Result<Response<tonic::body::Body>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?;
        let note = this.note.take();
        Poll::Ready(Ok(response.map(|inner| match note {
            Some(note) => tonic::body::Body::new(NotedBody { inner, note }),
            None => tonic::body::Body::new(inner),
        })))
    }
}

pin_project_lite::pin_project! {
    /// A response body that notes the status of its trailers.
    struct NotedBody<B> {
        #[pin]
        inner: B,
        note: GrpcWebStatus,
    }
}

impl<B: Body> Body for NotedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.project();
        let frame = ready!(this.inner.poll_frame(cx));
        if let Some(Ok(frame)) = &frame
            && let Some(code) = frame.trailers_ref().and_then(grpc_status)
        {
            let _ = this.note.0.set(code);
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

fn cancelled(protocol: Protocol) -> RequestOutcome {
    match protocol {
        // nginx's "client closed request".
        Protocol::Http => {
            RequestOutcome::Http(StatusCode::from_u16(499).unwrap_or(StatusCode::BAD_REQUEST))
        }
        Protocol::Grpc => RequestOutcome::Grpc(tonic::Code::Cancelled),
    }
}

/// gRPC's mapping of an HTTP status without `grpc-status` (a proxy's or a
/// limit's answer), as clients apply it.
fn grpc_code_of_http(status: StatusCode) -> tonic::Code {
    use tonic::Code;
    match status.as_u16() {
        400 => Code::Internal,
        401 => Code::Unauthenticated,
        403 => Code::PermissionDenied,
        404 => Code::Unimplemented,
        429 | 502 | 503 | 504 => Code::Unavailable,
        _ => Code::Unknown,
    }
}

fn grpc_status(headers: &HeaderMap) -> Option<tonic::Code> {
    headers
        .get(&crate::protocol::GRPC_STATUS)
        .map(|v| tonic::Code::from_bytes(v.as_bytes()))
}

pin_project_lite::pin_project! {
    /// The response future of [`Observe`].
    pub struct ObservedFuture<F> {
        #[pin]
        inner: F,
        pending: Option<Pending>,
    }
}

impl<F, ResB, E> Future for ObservedFuture<F>
where
    F: Future<Output = Result<Response<ResB>, E>>,
    ResB: Body,
{
    type Output = Result<Response<ObservedBody<ResB>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let Some(Pending { log, tally }) = this.pending.as_mut() else {
            let result = ready!(this.inner.poll(cx));
            return Poll::Ready(result.map(|r| r.map(ObservedBody::done)));
        };
        let entered = log.span.enter();
        let result = ready!(this.inner.poll(cx));
        let response = match result {
            Ok(response) => response,
            Err(err) => {
                tally.finish(
                    log,
                    match tally.operation.protocol {
                        Protocol::Http => RequestOutcome::Http(StatusCode::INTERNAL_SERVER_ERROR),
                        Protocol::Grpc => RequestOutcome::Grpc(tonic::Code::Internal),
                    },
                );
                return Poll::Ready(Err(err));
            }
        };
        tally.status = Some(response.status());
        if tally.operation.protocol == Protocol::Grpc
            && let Some(code) = grpc_status(response.headers())
        {
            // Trailers-only response: the status is in the head.
            tally.finish(log, RequestOutcome::Grpc(code));
        } else if response.body().is_end_stream() {
            let outcome = tally.outcome_at_end();
            tally.finish(log, outcome);
        }
        drop(entered);
        let pending = this.pending.take();
        Poll::Ready(Ok(response.map(|body| ObservedBody {
            inner: body,
            pending,
            polled: false,
        })))
    }
}

pin_project_lite::pin_project! {
    /// A response body that completes its request's observation when it
    /// ends (or is dropped); a gRPC body is polled inside the request span.
    pub struct ObservedBody<B> {
        #[pin]
        inner: B,
        pending: Option<Pending>,
        // Whether it has been polled.
        polled: bool,
    }
}

impl<B> ObservedBody<B> {
    fn done(inner: B) -> ObservedBody<B> {
        ObservedBody {
            inner,
            pending: None,
            polled: false,
        }
    }
}

impl<B: Body> Body for ObservedBody<B>
where
    B::Error: std::error::Error + 'static,
{
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let mut this = self.project();
        let Some(Pending { log, tally }) = this.pending.as_mut() else {
            return this.inner.poll_frame(cx);
        };
        // A gRPC body runs the method's response stream; an HTTP body is
        // the answer, polled in the span only the first time (when the
        // send deadline decides whether it needs a timer, which logs
        // in the span: `crate::layers::streams::SendDeadline`).
        let first = !std::mem::replace(this.polled, true);
        let enter = first || tally.operation.protocol == Protocol::Grpc;
        let _entered = enter.then(|| log.span.enter());
        let frame = ready!(this.inner.as_mut().poll_frame(cx));
        if tally.done {
            return Poll::Ready(frame);
        }
        match &frame {
            Some(Ok(frame)) => {
                if let Some(trailers) = frame.trailers_ref() {
                    let outcome = match (tally.operation.protocol, grpc_status(trailers)) {
                        (Protocol::Grpc, Some(code)) => RequestOutcome::Grpc(code),
                        _ => tally.outcome_at_end(),
                    };
                    tally.finish(log, outcome);
                } else if this.inner.is_end_stream() {
                    let outcome = tally.outcome_at_end();
                    tally.finish(log, outcome);
                }
            }
            Some(Err(err)) => {
                let outcome = match tally.operation.protocol {
                    Protocol::Http => tally.outcome_at_end(),
                    // Not sent in time: the client's fault.
                    Protocol::Grpc
                        if crate::layers::streams::ResponseAbandoned::is_cause_of(err) =>
                    {
                        cancelled(Protocol::Grpc)
                    }
                    Protocol::Grpc => RequestOutcome::Grpc(tonic::Code::Internal),
                };
                tally.finish(log, outcome);
            }
            None => {
                let outcome = tally.outcome_at_end();
                tally.finish(log, outcome);
            }
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_cumulative_buckets() {
        let m = Metrics::new();
        let op = "POST /legal-moves";
        m.observe(Protocol::Http, op, "200", Duration::from_micros(100));
        m.observe(Protocol::Http, op, "200", Duration::from_millis(3));
        m.observe(Protocol::Http, op, "200", Duration::from_secs(60));
        m.observe(Protocol::Grpc, "/a\"b\\c", "OK", Duration::from_millis(1));
        let text = m.render();
        let l = r#"protocol="http",operation="POST /legal-moves",status="200""#;
        assert!(text.contains(&format!("bgref_requests_total{{{l}}} 3\n")));
        assert!(text.contains(&format!(
            "bgref_request_duration_seconds_bucket{{{l},le=\"0.00025\"}} 1\n"
        )));
        assert!(text.contains(&format!(
            "bgref_request_duration_seconds_bucket{{{l},le=\"0.005\"}} 2\n"
        )));
        assert!(text.contains(&format!(
            "bgref_request_duration_seconds_bucket{{{l},le=\"10\"}} 2\n"
        )));
        assert!(text.contains(&format!(
            "bgref_request_duration_seconds_bucket{{{l},le=\"+Inf\"}} 3\n"
        )));
        assert!(text.contains(&format!("bgref_request_duration_seconds_count{{{l}}} 3\n")));
        assert!(text.contains(r#"operation="/a\"b\\c""#));
        assert!(text.contains("bgref_requests_in_flight 0\n"));
        // Every line is a comment or `name{labels} value`.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let value = line.rsplit(' ').next().unwrap();
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
    }

    #[test]
    fn http_statuses_map_to_grpc_codes_as_clients_do() {
        assert_eq!(
            grpc_code_of_http(StatusCode::SERVICE_UNAVAILABLE),
            tonic::Code::Unavailable
        );
        assert_eq!(
            grpc_code_of_http(StatusCode::NOT_FOUND),
            tonic::Code::Unimplemented
        );
        assert_eq!(
            grpc_code_of_http(StatusCode::PAYLOAD_TOO_LARGE),
            tonic::Code::Unknown
        );
    }
}

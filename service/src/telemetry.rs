//! Logs, request spans and (with an OTLP endpoint set) trace export.
//!
//! - Logs: `tracing_subscriber::fmt` with an `EnvFilter` (`--log-filter`,
//!   else `RUST_LOG`, else `info`): its default text format, or its JSON
//!   format flattened (each line's fields at the top level, no span
//!   lists), on stderr through `tracing_appender::non_blocking` (a thread
//!   of its own, lossy off: a full queue waits rather than drops lines).
//! - One `request completed` line per request, HTTP and gRPC alike,
//!   carrying the request's fields ([`RequestOutcome::record`]): the
//!   operation, the request id, the trace id when there is one, the
//!   outcome and the latency, each fact once.
//! - OpenTelemetry: only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//!   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, each request gets a span
//!   ([`RequestLog`], with the fields OpenTelemetry's conventions ask
//!   for) and the spans are exported over OTLP/gRPC in batches; the
//!   standard `OTEL_*` variables apply (`OTEL_SERVICE_NAME`, default
//!   `bgref`; `OTEL_RESOURCE_ATTRIBUTES`; `OTEL_TRACES_SAMPLER`;
//!   `OTEL_BSP_*`; `OTEL_EXPORTER_OTLP_HEADERS`, ...; `OTEL_SDK_DISABLED=true`
//!   or `OTEL_TRACES_EXPORTER=none` turn it off). A W3C `traceparent`
//!   header makes the request span a child of the caller's span. `hyper`,
//!   `h2`, `tonic` and `tower` are filtered to `error` in that layer, so
//!   the exporter's own traffic is not traced. Without export there is no
//!   request span, and handler spans
//!   (`#[instrument(target = "bgref_service::handler")]`) that carry no
//!   field are off ([`HANDLER_TARGET`]).
//!
//! [`TelemetryGuard`] flushes the pending spans and log lines when dropped.

use std::borrow::Cow;
use std::io::IsTerminal as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue, Request};
use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry::trace::{TraceContextExt as _, TraceId, TracerProvider as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Span;
use tracing::field::Empty;
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::config::{LogFormat, TelemetryConfig};
use crate::error::log_safe;
use crate::protocol::is_probe;

/// Whether spans go to an OpenTelemetry exporter (set once by [`init`]).
static OTEL_ENABLED: AtomicBool = AtomicBool::new(false);

/// The W3C trace context header.
const TRACEPARENT_HEADER: HeaderName = HeaderName::from_static("traceparent");

/// Flushes pending trace spans and log lines when dropped (shuts the
/// tracer provider down, then the log writer's thread).
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
    /// Dropped after the provider's shutdown (fields drop after `drop`):
    /// writes the lines still pending, those of the shutdown included.
    _lines: WorkerGuard,
}

impl std::fmt::Debug for TelemetryGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TelemetryGuard")
            .field("otlp", &self.provider.is_some())
            .finish()
    }
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        if let Some(provider) = self.provider.take() {
            // Bounded, so that an unreachable collector cannot hold the exit.
            if let Err(err) = provider.shutdown_with_timeout(Duration::from_secs(5)) {
                tracing::warn!(error = %err, "flushing traces at exit failed");
            }
        }
    }
}

/// Installs the global subscriber: the log filter, text or JSON lines on
/// stderr and, when an OTLP endpoint is configured, the OpenTelemetry
/// layer.
///
/// Must run inside the Tokio runtime (the OTLP exporter's gRPC channel
/// lives on it). Never fails: a bad filter or exporter setting is reported
/// in the log and the service runs on without it.
pub fn init(config: &TelemetryConfig) -> TelemetryGuard {
    let (filter, filter_error) = log_filter(config.log_filter.as_deref());
    // Buffered: the writer's thread flushes once it has written all the
    // lines queued, a write per batch rather than per line.
    let (lines, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("bgref-log")
        .finish(std::io::BufWriter::new(std::io::stderr()));
    let ansi = config.log_format == LogFormat::Text && std::io::stderr().is_terminal();
    let fmt = fmt_layer(config.log_format, ansi, lines);
    let (provider, otel_error) = if otlp_configured() {
        match tracer_provider() {
            Ok(provider) => (Some(provider), None),
            Err(err) => (None, Some(err)),
        }
    } else {
        (None, None)
    };
    let otel = provider.as_ref().map(|provider| {
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("bgref"))
            .with_filter(otel_targets())
    });
    tracing_subscriber::registry()
        .with(filter)
        .with(handler_spans(provider.is_some()))
        .with(fmt)
        .with(otel)
        .init();
    OTEL_ENABLED.store(provider.is_some(), Ordering::Relaxed);
    if let Some(err) = filter_error {
        tracing::warn!(error = %err, "invalid log filter; using `info`");
    }
    if let Some(err) = otel_error {
        tracing::error!(error = %err, "cannot set up the OTLP trace exporter; traces are not exported");
    }
    if provider.is_some() {
        tracing::info!("exporting traces over OTLP/gRPC");
    }
    TelemetryGuard {
        provider,
        _lines: guard,
    }
}

/// The log lines: tracing-subscriber's default text format (colours on a
/// terminal), or its JSON format with each line's fields at the top level
/// and no span lists (as text-embeddings-inference logs).
fn fmt_layer<S, W>(
    format: LogFormat,
    ansi: bool,
    writer: W,
) -> Box<dyn tracing_subscriber::Layer<S> + Send + Sync>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    let layer = tracing_subscriber::fmt::layer().with_writer(writer);
    match format {
        LogFormat::Json => layer
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .boxed(),
        LogFormat::Text => layer.with_ansi(ansi).boxed(),
    }
}

/// The target of the handlers' own spans (`#[instrument(target = ...)]`
/// on each HTTP handler and gRPC method).
pub const HANDLER_TARGET: &str = "bgref_service::handler";

/// Turns off the handlers' spans that carry no field but their name,
/// unless spans are exported: they would tell a log line nothing, and a
/// span costs a few thousand instructions per request to open, enter and
/// close. Handler spans with fields (a match id, a game number) are kept.
fn handler_spans<S: tracing::Subscriber>(exported: bool) -> impl tracing_subscriber::Layer<S> {
    tracing_subscriber::filter::filter_fn(move |meta| {
        exported || !(meta.is_span() && meta.target() == HANDLER_TARGET && meta.fields().is_empty())
    })
}

/// `--log-filter`, else `RUST_LOG`, else `info`; with the error when the
/// filter given is not valid (then `info`).
fn log_filter(flag: Option<&str>) -> (EnvFilter, Option<String>) {
    let spec = flag
        .map(str::to_owned)
        .or_else(|| std::env::var("RUST_LOG").ok())
        .filter(|s| !s.trim().is_empty());
    match spec {
        None => (EnvFilter::new("info"), None),
        Some(spec) => match EnvFilter::try_new(&spec) {
            Ok(filter) => (filter, None),
            Err(err) => (EnvFilter::new("info"), Some(format!("{spec:?}: {err}"))),
        },
    }
}

/// The OTel layer's own filter: transport crates only at `error`, and never
/// the exporter's internal logs (they would trace the exporter itself).
fn otel_targets() -> Targets {
    Targets::new()
        .with_default(LevelFilter::TRACE)
        .with_target("hyper", LevelFilter::ERROR)
        .with_target("h2", LevelFilter::ERROR)
        .with_target("tonic", LevelFilter::ERROR)
        .with_target("tower", LevelFilter::ERROR)
        .with_target("opentelemetry", LevelFilter::OFF)
}

fn env_set(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.trim().is_empty())
}

/// Whether the standard variables ask for OTLP trace export.
fn otlp_configured() -> bool {
    let disabled = std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim() == "true")
        || std::env::var("OTEL_TRACES_EXPORTER").is_ok_and(|v| v.trim() == "none");
    !disabled
        && (env_set("OTEL_EXPORTER_OTLP_ENDPOINT") || env_set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
}

/// Batch OTLP/gRPC exporter with the service's resource.
fn tracer_provider() -> Result<SdkTracerProvider, String> {
    for var in [
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    ] {
        if let Ok(protocol) = std::env::var(var)
            && !protocol.trim().is_empty()
            && protocol.trim() != "grpc"
        {
            return Err(format!(
                "{var}={protocol:?}: bgref exports OTLP over gRPC only (unset it or use \"grpc\")"
            ));
        }
    }
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .build()
        .map_err(|e| e.to_string())?;
    Ok(SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource())
        .build())
}

/// `service.name` is `bgref` unless `OTEL_SERVICE_NAME` or a `service.name`
/// in `OTEL_RESOURCE_ATTRIBUTES` says otherwise; `service.version` is the
/// crate version.
fn resource() -> opentelemetry_sdk::Resource {
    use opentelemetry::KeyValue;
    use opentelemetry_sdk::resource::{EnvResourceDetector, TelemetryResourceDetector};
    let mut builder = opentelemetry_sdk::Resource::builder_empty()
        .with_service_name("bgref")
        .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .with_detectors(&[
            Box::new(TelemetryResourceDetector),
            Box::new(EnvResourceDetector::new()),
        ]);
    if let Ok(name) = std::env::var("OTEL_SERVICE_NAME")
        && !name.trim().is_empty()
    {
        builder = builder.with_service_name(name);
    }
    builder.build()
}

/// The protocol of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Protocol {
    /// HTTP/JSON (and the service endpoints).
    Http,
    /// gRPC (`content-type: application/grpc...`).
    Grpc,
}

impl Protocol {
    /// `http` or `grpc`.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Http => "http",
            Protocol::Grpc => "grpc",
        }
    }
}

/// What a request asks for, with bounded names fit for metric labels.
///
/// Classified once per request (by the metrics layer, for itself and the
/// request span) and shared: the names of each operation are made once
/// and cached ([`Operation::shared`]), so a request allocates nothing for
/// them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// HTTP or gRPC.
    pub protocol: Protocol,
    /// The HTTP method, `_OTHER` for non-standard ones.
    pub method: &'static str,
    /// The matched route (`/legal-moves`), or `None` when no route matched.
    pub route: Option<String>,
    /// gRPC: `(service, method)` from the path of a routed service.
    pub rpc: Option<(String, String)>,
    /// Health checks and scrapes: logged at `debug`, not `info`.
    pub probe: bool,
    /// [`Operation::span_name`].
    span_name: String,
    /// [`Operation::label`].
    label: String,
}

/// Most operations cached by [`Operation::shared`]: the routes and served
/// gRPC methods fit many times over; beyond it (unknown gRPC methods sent
/// on purpose) requests are classified each time instead of growing the
/// cache.
const MAX_CACHED_OPERATIONS: usize = 512;

/// The cache of [`Operation::shared`], keyed by [`operation_key`]. Hashed
/// by foldhash, seeded at random: a gRPC key holds the request's path, but
/// the cache is small and bounded, so its weaker guard against chosen
/// collisions than SipHash's is enough.
static OPERATIONS: std::sync::LazyLock<std::sync::RwLock<OperationCache>> =
    std::sync::LazyLock::new(Default::default);

/// [`OPERATIONS`]' map.
type OperationCache =
    std::collections::HashMap<Box<str>, Arc<Operation>, foldhash::fast::RandomState>;

/// What classifies a request: protocol, method, route and, for gRPC, the
/// path; written into `buf` (`None` when it does not fit: not cached).
fn operation_key<'a, B>(req: &Request<B>, buf: &'a mut [u8; 320]) -> Option<&'a str> {
    let grpc = is_grpc(req);
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or("", |m| m.as_str());
    let path = if grpc { req.uri().path() } else { "" };
    let parts: [&[u8]; 6] = [
        if grpc { b"g" } else { b"h" },
        standard_method(req.method()).as_bytes(),
        b" ",
        route.as_bytes(),
        b" ",
        path.as_bytes(),
    ];
    let mut len = 0;
    for part in parts {
        buf.get_mut(len..len + part.len())?.copy_from_slice(part);
        len += part.len();
    }
    std::str::from_utf8(&buf[..len]).ok()
}

fn is_grpc<B>(req: &Request<B>) -> bool {
    crate::protocol::is_grpc(req.headers())
}

impl Operation {
    /// Classifies a request (after routing, so the matched route is known).
    pub fn of<B>(req: &Request<B>) -> Operation {
        let grpc = is_grpc(req);
        let route = req
            .extensions()
            .get::<axum::extract::MatchedPath>()
            .map(|m| m.as_str().to_owned());
        let path = req.uri().path();
        let rpc = (grpc && route.is_some())
            .then(|| {
                let (service, method) = path.strip_prefix('/')?.split_once('/')?;
                let valid = |s: &str| {
                    !s.is_empty()
                        && s.len() <= 128
                        && s.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
                };
                (valid(service) && valid(method)).then(|| (service.to_owned(), method.to_owned()))
            })
            .flatten();
        let probe = is_probe(path);
        let protocol = if grpc { Protocol::Grpc } else { Protocol::Http };
        let method = standard_method(req.method());
        Operation::new(protocol, method, route, rpc, probe)
    }

    /// An operation, with its names worked out.
    fn new(
        protocol: Protocol,
        method: &'static str,
        route: Option<String>,
        rpc: Option<(String, String)>,
        probe: bool,
    ) -> Operation {
        let span_name = match (protocol, &rpc, &route) {
            (Protocol::Grpc, Some((service, method)), _) => format!("{service}/{method}"),
            (Protocol::Grpc, None, _) => "grpc unknown".to_owned(),
            (Protocol::Http, _, Some(route)) => format!("{method} {route}"),
            (Protocol::Http, _, None) => method.to_owned(),
        };
        let label = match (protocol, &rpc, &route) {
            (Protocol::Grpc, Some((service, method)), _) => format!("/{service}/{method}"),
            (Protocol::Grpc, None, _) => "unknown".to_owned(),
            (Protocol::Http, _, Some(route)) => format!("{method} {route}"),
            (Protocol::Http, _, None) => format!("{method} unmatched"),
        };
        Operation {
            protocol,
            method,
            route,
            rpc,
            probe,
            span_name,
            label,
        }
    }

    /// Whether the completion line of a request of this operation to
    /// `path` gives the `url.path` field: unless the path is the matched
    /// HTTP route or a served gRPC method's (`/service/method`, whose parts
    /// are given). The request span, when exported, always has it.
    fn logs_path(&self, path: &str) -> bool {
        match self.protocol {
            Protocol::Grpc => self.rpc.is_none(),
            Protocol::Http => self.route.as_deref() != Some(path),
        }
    }

    /// The operation of a request, from the cache when it has been seen
    /// before.
    pub fn shared<B>(req: &Request<B>) -> Arc<Operation> {
        let mut buf = [0u8; 320];
        let Some(key) = operation_key(req, &mut buf) else {
            return Arc::new(Operation::of(req));
        };
        let cached = OPERATIONS
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(key)
            .cloned();
        if let Some(op) = cached {
            return op;
        }
        let op = Arc::new(Operation::of(req));
        let mut cache = OPERATIONS
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.len() < MAX_CACHED_OPERATIONS {
            cache.insert(key.into(), op.clone());
        }
        op
    }

    /// The span name, as OpenTelemetry's conventions have it:
    /// `POST /legal-moves`, `bgref.v1.Referee/LegalMoves`.
    pub fn span_name(&self) -> &str {
        &self.span_name
    }

    /// The metric label: `POST /legal-moves`, `POST unmatched`,
    /// `/bgref.v1.Referee/LegalMoves`, or `unknown` for a gRPC method that
    /// does not exist.
    pub fn label(&self) -> &str {
        &self.label
    }
}

fn standard_method(method: &http::Method) -> &'static str {
    use http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        Method::TRACE => "TRACE",
        Method::CONNECT => "CONNECT",
        _ => "_OTHER",
    }
}

/// Reads W3C trace context from request headers.
struct HeaderExtractor<'a>(&'a HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// The span of one request, at a given level (the level must be a
/// constant), with the fields OpenTelemetry's conventions ask for.
macro_rules! request_span {
    ($level:expr, $op:expr, $request_id:expr, $path:expr) => {{
        let op: &Operation = $op;
        let grpc = op.protocol == Protocol::Grpc;
        let rpc = op.rpc.as_ref();
        tracing::span!(
            $level,
            "request",
            "otel.name" = op.span_name(),
            "otel.kind" = "server",
            "otel.status_code" = Empty,
            protocol = op.protocol.as_str(),
            request_id = $request_id,
            trace_id = Empty,
            "http.request.method" = op.method,
            "http.route" = op.route.as_deref().filter(|_| !grpc),
            "url.path" = $path,
            "http.response.status_code" = Empty,
            "rpc.system" = rpc.map(|_| "grpc"),
            "rpc.service" = rpc.map(|r| r.0.as_str()),
            "rpc.method" = rpc.map(|r| r.1.as_str()),
            "rpc.grpc.status_code" = Empty,
        )
    }};
}

/// What one request (HTTP or gRPC) logs when it completes, besides its
/// outcome and latency ([`RequestOutcome::record`]): its id, its path
/// when the operation does not tell it, the trace id, and its span.
#[derive(Debug)]
pub struct RequestLog {
    /// The request span: only while OpenTelemetry exports spans
    /// (otherwise disabled, `Span::none()`). A valid `traceparent` makes
    /// it a child of the caller's span.
    pub span: Span,
    /// From its `x-request-id` header ([`crate::layers::request_id`]).
    request_id: HeaderValue,
    /// `url.path`, made safe ([`crate::error::log_safe`]), when the operation does not
    /// tell it ([`Operation::logs_path`]).
    path: Option<Box<str>>,
    /// The trace's id: the request span's, or else the caller's
    /// (`traceparent`), so that it is logged without export too.
    trace_id: Option<TraceId>,
}

impl RequestLog {
    /// Starts the log of a request of operation `op`, with its id (its
    /// `x-request-id` header).
    pub fn start<B>(req: &Request<B>, op: &Operation, request_id: HeaderValue) -> RequestLog {
        let raw_path = req.uri().path();
        let path = op.logs_path(raw_path).then(|| log_safe(raw_path).into());
        let otel = OTEL_ENABLED.load(Ordering::Relaxed);
        let span = if !otel {
            Span::none()
        } else {
            let id = request_id.to_str().unwrap_or_default();
            // The exporter reads every path.
            let path = log_safe(raw_path);
            if op.probe {
                request_span!(tracing::Level::DEBUG, op, id, path.as_ref())
            } else {
                request_span!(tracing::Level::INFO, op, id, path.as_ref())
            }
        };
        let mut log = RequestLog {
            span,
            request_id,
            path,
            trace_id: None,
        };
        if !otel && !req.headers().contains_key(&TRACEPARENT_HEADER) {
            // Nothing to extract, nothing to export: no trace id.
            return log;
        }
        let remote = TraceContextPropagator::new().extract(&HeaderExtractor(req.headers()));
        let mut trace_id = remote.span().span_context().trace_id();
        if !log.span.is_disabled() {
            if remote.span().span_context().is_valid() {
                let _ = log.span.set_parent(remote);
            }
            trace_id = log.span.context().span().span_context().trace_id();
            if trace_id != TraceId::INVALID {
                log.span
                    .record("trace_id", tracing::field::display(trace_id));
            }
        }
        log.trace_id = Some(trace_id).filter(|&id| id != TraceId::INVALID);
        log
    }
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestOutcome {
    /// An HTTP response status (499: the client went away first).
    Http(http::StatusCode),
    /// A gRPC status code.
    Grpc(tonic::Code),
}

impl RequestOutcome {
    /// The metric label: `200`, `OK`, `INVALID_ARGUMENT`.
    pub fn label(self) -> Cow<'static, str> {
        match self {
            RequestOutcome::Http(status) => match status.as_u16() {
                // The usual ones without an allocation.
                200 => Cow::Borrowed("200"),
                400 => Cow::Borrowed("400"),
                404 => Cow::Borrowed("404"),
                422 => Cow::Borrowed("422"),
                _ => Cow::Owned(status.as_str().to_owned()),
            },
            RequestOutcome::Grpc(code) => Cow::Borrowed(grpc_code_name(code)),
        }
    }

    /// Whether the service, not the client, is to blame (5xx, or a gRPC
    /// server-side code as OpenTelemetry classifies them).
    pub fn is_fault(self) -> bool {
        use tonic::Code;
        match self {
            RequestOutcome::Http(status) => status.is_server_error(),
            RequestOutcome::Grpc(code) => matches!(
                code,
                Code::Unknown
                    | Code::DeadlineExceeded
                    | Code::Unimplemented
                    | Code::Internal
                    | Code::Unavailable
                    | Code::DataLoss
            ),
        }
    }

    /// Logs the completed request of operation `op` (`error` for faults,
    /// `debug` for probes, `info` otherwise): one `request completed` line
    /// with the request's fields, its status and latency, each fact once
    /// (no gRPC method when it is `POST`, no path that is the route's). On
    /// the request span, when there is one, it records the outcome, and
    /// the line is the span's event.
    pub fn record(self, request: &RequestLog, op: &Operation, latency: Duration) {
        // Nanoseconds over 1e6: the double nearest the exact decimal
        // (`0.330189`); `as_secs_f64() * 1000.0` rounds twice and often
        // ends in 17 digits (`44.413016999999996`).
        let latency_ms = latency.as_nanos() as f64 / 1e6;
        let (http_status, grpc_status) = match self {
            RequestOutcome::Http(status) => (Some(i64::from(status.as_u16())), None),
            RequestOutcome::Grpc(code) => (None, Some(code as i64)),
        };
        let fault = self.is_fault();
        let span = &request.span;
        if !span.is_disabled() {
            span.record("http.response.status_code", http_status);
            span.record("rpc.grpc.status_code", grpc_status);
            if fault {
                span.record("otel.status_code", "error");
            }
        }
        let label = self.label();
        let status = label.as_ref();
        let grpc = op.protocol == Protocol::Grpc;
        let rpc = op.rpc.as_ref();
        let method = (!grpc || op.method != "POST").then_some(op.method);
        let route = op.route.as_deref().filter(|_| !grpc);
        let trace_id = request.trace_id.map(tracing::field::display);
        // Defined here, so that it sees the values above.
        macro_rules! completed {
            ($level:expr) => {
                tracing::event!(
                    parent: span,
                    $level,
                    protocol = op.protocol.as_str(),
                    request_id = request.request_id.to_str().unwrap_or_default(),
                    trace_id,
                    "http.request.method" = method,
                    "http.route" = route,
                    "url.path" = request.path.as_deref(),
                    "http.response.status_code" = http_status,
                    "rpc.service" = rpc.map(|r| r.0.as_str()),
                    "rpc.method" = rpc.map(|r| r.1.as_str()),
                    "rpc.grpc.status_code" = grpc_status,
                    status,
                    latency_ms,
                    "request completed"
                )
            };
        }
        if fault {
            completed!(tracing::Level::ERROR);
        } else if op.probe {
            completed!(tracing::Level::DEBUG);
        } else {
            completed!(tracing::Level::INFO);
        }
    }
}

/// The canonical upper-case name of a gRPC code.
pub fn grpc_code_name(code: tonic::Code) -> &'static str {
    use tonic::Code;
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

#[cfg(test)]
mod completion_tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use tracing_subscriber::layer::SubscriberExt as _;

    use super::{LogFormat, Operation, Protocol, RequestLog, RequestOutcome, fmt_layer};

    /// Log lines written into a shared buffer.
    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Capture {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The line logged for a request of `op` to `path` ending in `outcome`,
    /// 330 189 ns after it began.
    fn completion(
        format: LogFormat,
        op: &Operation,
        path: &str,
        outcome: RequestOutcome,
    ) -> String {
        let capture = Capture::default();
        let writer = capture.clone();
        let subscriber =
            tracing_subscriber::registry().with(fmt_layer(format, false, move || writer.clone()));
        let req = http::Request::post(path).body(()).unwrap();
        tracing::subscriber::with_default(subscriber, || {
            let log = RequestLog::start(&req, op, http::HeaderValue::from_static("id-1"));
            outcome.record(&log, op, Duration::from_nanos(330_189));
        });
        String::from_utf8(capture.0.lock().unwrap().clone()).unwrap()
    }

    fn http_op(route: Option<&str>) -> Operation {
        Operation::new(
            Protocol::Http,
            "POST",
            route.map(str::to_owned),
            None,
            false,
        )
    }

    fn grpc_op() -> Operation {
        let rpc = Some(("bgref.v1.Referee".to_owned(), "LegalMoves".to_owned()));
        Operation::new(Protocol::Grpc, "POST", Some("/x".to_owned()), rpc, false)
    }

    #[test]
    fn the_json_line_has_the_request_fields_at_the_top_level() {
        let ok = RequestOutcome::Http(http::StatusCode::OK);
        let line = completion(
            LogFormat::Json,
            &http_op(Some("/legal-moves")),
            "/legal-moves",
            ok,
        );
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "http.request.method",
                "http.response.status_code",
                "http.route",
                "latency_ms",
                "level",
                "message",
                "protocol",
                "request_id",
                "status",
                "target",
                "timestamp",
            ],
            "{line}"
        );
        assert_eq!(v["message"], "request completed");
        assert_eq!(v["level"], "INFO");
        assert_eq!(v["request_id"], "id-1");
        assert_eq!(v["http.response.status_code"], 200);
        assert_eq!(v["status"], "200");
        assert_eq!(v["latency_ms"], 0.330189);

        // An unmatched path is logged, made safe; a fault at `error`.
        let fault = RequestOutcome::Http(http::StatusCode::INTERNAL_SERVER_ERROR);
        let line = completion(LogFormat::Json, &http_op(None), "/a%1b", fault);
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["url.path"], "/a%1b");
        assert_eq!(v["level"], "ERROR");
        assert!(v.get("http.route").is_none(), "{line}");

        let code = RequestOutcome::Grpc(tonic::Code::InvalidArgument);
        let path = "/bgref.v1.Referee/LegalMoves";
        let line = completion(LogFormat::Json, &grpc_op(), path, code);
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["rpc.service"], "bgref.v1.Referee");
        assert_eq!(v["rpc.method"], "LegalMoves");
        assert_eq!(v["rpc.grpc.status_code"], 3);
        assert_eq!(v["status"], "INVALID_ARGUMENT");
        for gone in [
            "http.request.method",
            "http.route",
            "url.path",
            "span",
            "spans",
        ] {
            assert!(v.get(gone).is_none(), "{gone} in {line}");
        }
    }

    #[test]
    fn the_text_line_has_the_request_fields_after_the_message() {
        let ok = RequestOutcome::Http(http::StatusCode::OK);
        let line = completion(
            LogFormat::Text,
            &http_op(Some("/legal-moves")),
            "/legal-moves",
            ok,
        );
        assert!(
            line.starts_with("20") && line.contains("Z  INFO "),
            "{line}"
        );
        assert!(
            line.ends_with(
                " bgref_service::telemetry: request completed protocol=\"http\" \
                 request_id=\"id-1\" http.request.method=\"POST\" http.route=\"/legal-moves\" \
                 http.response.status_code=200 status=\"200\" latency_ms=0.330189\n"
            ),
            "{line}"
        );
    }
}

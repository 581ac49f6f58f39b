//! Logs, request spans and (with an OTLP endpoint set) trace export.
//!
//! - Logs: `tracing` with an `EnvFilter` (`--log-filter`, else `RUST_LOG`,
//!   else `info`), text or JSON lines on stderr.
//! - One span per request, HTTP and gRPC alike ([`request_span`]): the
//!   operation, the request id, and, once the response is complete, the
//!   outcome and the latency ([`RequestOutcome::record`], called by the
//!   metrics layer).
//! - OpenTelemetry: only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//!   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, spans are exported over
//!   OTLP/gRPC in batches; the standard `OTEL_*` variables apply
//!   (`OTEL_SERVICE_NAME`, default `bgref`; `OTEL_RESOURCE_ATTRIBUTES`;
//!   `OTEL_TRACES_SAMPLER`; `OTEL_BSP_*`; `OTEL_EXPORTER_OTLP_HEADERS`, ...;
//!   `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn it off).
//!   A W3C `traceparent` header makes the request span a child of the
//!   caller's span. `hyper`, `h2`, `tonic` and `tower` are filtered to
//!   `error` in that layer, so the exporter's own traffic is not traced.
//!   [`TelemetryGuard`] flushes the pending spans when dropped.

use std::borrow::Cow;
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use http::{HeaderMap, HeaderValue, Request};
use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry::trace::{TraceContextExt as _, TraceId, TracerProvider as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Span;
use tracing::field::Empty;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::config::{LogFormat, TelemetryConfig};

/// Whether spans go to an OpenTelemetry exporter (set once by [`init`]).
static OTEL_ENABLED: AtomicBool = AtomicBool::new(false);

/// The request id header, read or generated, and echoed in the response.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Longest accepted incoming request id; longer ones are replaced.
const MAX_REQUEST_ID_LEN: usize = 128;

/// Flushes pending trace spans when dropped (shuts the tracer provider down).
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
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
/// stderr and, when an OTLP endpoint is configured, the OpenTelemetry layer.
///
/// Must run inside the Tokio runtime (the OTLP exporter's gRPC channel
/// lives on it). Never fails: a bad filter or exporter setting is reported
/// in the log and the service runs on without it.
pub fn init(config: &TelemetryConfig) -> TelemetryGuard {
    let (filter, filter_error) = log_filter(config.log_filter.as_deref());
    let fmt = match config.log_format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_ansi(std::io::stderr().is_terminal())
            .with_writer(std::io::stderr)
            .boxed(),
    };
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
    TelemetryGuard { provider }
}

/// `--log-filter`, else `RUST_LOG`, else `info`.
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
}

impl Operation {
    /// Classifies a request (after routing, so the matched route is known).
    pub fn of<B>(req: &Request<B>) -> Operation {
        let grpc = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .is_some_and(|ct| ct.as_bytes().starts_with(b"application/grpc"));
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
        let probe = matches!(path, "/healthz" | "/readyz" | "/metrics")
            || path.starts_with("/grpc.health.v1.Health/");
        Operation {
            protocol: if grpc { Protocol::Grpc } else { Protocol::Http },
            method: standard_method(req.method()),
            route,
            rpc,
            probe,
        }
    }

    /// The span name, as OpenTelemetry's conventions have it:
    /// `POST /legal-moves`, `bgref.v1.Referee/LegalMoves`.
    pub fn span_name(&self) -> String {
        match (self.protocol, &self.rpc, &self.route) {
            (Protocol::Grpc, Some((service, method)), _) => format!("{service}/{method}"),
            (Protocol::Grpc, None, _) => "grpc unknown".to_owned(),
            (Protocol::Http, _, Some(route)) => format!("{} {route}", self.method),
            (Protocol::Http, _, None) => self.method.to_owned(),
        }
    }

    /// The metric label: `POST /legal-moves`, `POST unmatched`,
    /// `/bgref.v1.Referee/LegalMoves`, or `unknown` for a gRPC method that
    /// does not exist.
    pub fn label(&self) -> String {
        match (self.protocol, &self.rpc, &self.route) {
            (Protocol::Grpc, Some((service, method)), _) => format!("/{service}/{method}"),
            (Protocol::Grpc, None, _) => "unknown".to_owned(),
            (Protocol::Http, _, Some(route)) => format!("{} {route}", self.method),
            (Protocol::Http, _, None) => format!("{} unmatched", self.method),
        }
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

/// Drops an incoming `x-request-id` that is empty, longer than 128 bytes or
/// not printable ASCII, so that a fresh one is generated instead.
pub fn sanitize_request_id<B>(mut req: Request<B>) -> Request<B> {
    let valid = |v: &HeaderValue| {
        let b = v.as_bytes();
        !b.is_empty() && b.len() <= MAX_REQUEST_ID_LEN && b.iter().all(|c| c.is_ascii_graphic())
    };
    if req
        .headers()
        .get_all(REQUEST_ID_HEADER)
        .iter()
        .enumerate()
        .any(|(i, v)| i > 0 || !valid(v))
    {
        req.headers_mut().remove(REQUEST_ID_HEADER);
    }
    req
}

/// Longest request-derived text written to a log field, in characters.
pub const MAX_LOGGED_CHARS: usize = 256;

/// Request-derived text made safe for a log line: control characters
/// (line breaks, terminal escapes) written as escapes (`\n`, `\u{1b}`),
/// and at most [`MAX_LOGGED_CHARS`] characters kept (then `…` and the
/// number of bytes left out). A forged log line or a 60 KB line cannot
/// come from a request.
pub fn log_safe(text: &str) -> Cow<'_, str> {
    let clean = text.chars().count() <= MAX_LOGGED_CHARS && !text.chars().any(char::is_control);
    if clean {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(MAX_LOGGED_CHARS + 32);
    for (kept, (i, c)) in text.char_indices().enumerate() {
        if kept == MAX_LOGGED_CHARS {
            use std::fmt::Write as _;
            let _ = write!(out, "\u{2026} ({} more bytes)", text.len() - i);
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
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

/// One span's field list, at a given level (the level must be a constant).
macro_rules! request_span {
    ($level:expr, $name:expr, $op:expr, $request_id:expr, $path:expr) => {
        tracing::span!(
            $level,
            "request",
            "otel.name" = $name,
            "otel.kind" = "server",
            "otel.status_code" = Empty,
            protocol = $op.protocol.as_str(),
            request_id = $request_id,
            trace_id = Empty,
            "http.request.method" = $op.method,
            "http.route" = $op
                .route
                .as_deref()
                .filter(|_| $op.protocol == Protocol::Http),
            "url.path" = $path,
            "http.response.status_code" = Empty,
            "rpc.system" = $op.rpc.as_ref().map(|_| "grpc"),
            "rpc.service" = $op.rpc.as_ref().map(|r| r.0.as_str()),
            "rpc.method" = $op.rpc.as_ref().map(|r| r.1.as_str()),
            "rpc.grpc.status_code" = Empty,
        )
    };
}

/// The span of one request (HTTP or gRPC): `TraceLayer`'s `make_span_with`.
///
/// Carries the operation, the request id (set by the request-id layer
/// before this runs), the trace id, and later the outcome and latency. With
/// OpenTelemetry on, a valid `traceparent` makes it a child of the caller's
/// span; without, the caller's trace id is still logged.
pub fn request_span<B>(req: &Request<B>) -> Span {
    let op = Operation::of(req);
    let name = op.span_name();
    let request_id = req
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let path = log_safe(req.uri().path());
    let path = path.as_ref();
    let span = if op.probe {
        request_span!(tracing::Level::DEBUG, name, op, request_id, path)
    } else {
        request_span!(tracing::Level::INFO, name, op, request_id, path)
    };
    if span.is_disabled() {
        return span;
    }
    let remote = TraceContextPropagator::new().extract(&HeaderExtractor(req.headers()));
    let mut trace_id = remote.span().span_context().trace_id();
    if OTEL_ENABLED.load(Ordering::Relaxed) {
        if remote.span().span_context().is_valid() {
            let _ = span.set_parent(remote);
        }
        trace_id = span.context().span().span_context().trace_id();
    }
    if trace_id != TraceId::INVALID {
        span.record("trace_id", tracing::field::display(trace_id));
    }
    span
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
            RequestOutcome::Http(status) => Cow::Owned(status.as_str().to_owned()),
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

    /// Records the outcome on the request span and logs the completed
    /// request, with its status and latency, inside it (`error` for faults, `debug` for probes,
    /// `info` otherwise).
    pub fn record(self, span: &Span, probe: bool, latency: Duration) {
        let latency_ms = latency.as_secs_f64() * 1000.0;
        match self {
            RequestOutcome::Http(status) => {
                span.record("http.response.status_code", i64::from(status.as_u16()));
            }
            RequestOutcome::Grpc(code) => {
                span.record("rpc.grpc.status_code", code as i64);
            }
        }
        let status = self.label();
        let status = status.as_ref();
        let fault = self.is_fault();
        if fault {
            span.record("otel.status_code", "error");
        }
        span.in_scope(|| {
            if fault {
                tracing::error!(status, latency_ms, "request completed");
            } else if probe {
                tracing::debug!(status, latency_ms, "request completed");
            } else {
                tracing::info!(status, latency_ms, "request completed");
            }
        });
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
mod log_safe_tests {
    use super::log_safe;

    #[test]
    fn control_characters_are_escaped_and_long_text_cut() {
        assert_eq!(log_safe("plain"), "plain");
        let forged = "x\n2026-12-01T00:00:00Z ERROR forged\u{1b}[31m";
        let safe = log_safe(forged);
        assert!(!safe.contains('\n') && !safe.contains('\u{1b}'), "{safe}");
        assert!(safe.contains("\\n") && safe.contains("\\u{1b}"), "{safe}");
        let long = "a".repeat(60_000);
        let safe = log_safe(&long);
        assert!(safe.len() < 300, "{}", safe.len());
        assert!(safe.ends_with("(59744 more bytes)"), "{safe}");
    }
}

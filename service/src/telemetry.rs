//! Logs, request spans and (with an OTLP endpoint set) trace export.
//!
//! - Logs: `tracing` with an `EnvFilter` (`--log-filter`, else `RUST_LOG`,
//!   else `info`), text or JSON lines on stderr, written in batches by a
//!   thread of their own ([`crate::log_writer`]). The text line is
//!   tracing-subscriber's default format, byte for byte, written by
//!   [`TextLine`] and [`TextFields`]; the JSON line is its JSON format,
//!   byte for byte, written by [`JsonLine`].
//! - One span per request, HTTP and gRPC alike ([`request_span`]): the
//!   operation, the request id, and, once the response is complete, the
//!   outcome and the latency ([`RequestOutcome::record`], called by the
//!   metrics layer). Unless spans are exported, its fields are compact:
//!   each fact once, without what OpenTelemetry's conventions repeat
//!   (`otel.name`, `otel.kind`, `rpc.system`, a path that is the route's;
//!   `Operation::span_values`). In JSON and in text without colours the
//!   request span's fields are not formatted when it opens: [`TextLine`] or
//!   [`JsonLine`] writes them from what the request holds
//!   ([`DeferRequestFields`]), the same bytes, when a line is written in
//!   the span. The completion line's own fields are handed to them by
//!   [`RequestOutcome::record`] and written without visiting the event.
//! - Handler spans (`#[instrument(target = "bgref_service::handler")]`)
//!   that carry no field are on only while OpenTelemetry exports spans
//!   ([`HANDLER_TARGET`]).
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
use std::cell::{Cell, RefCell};
use std::io::IsTerminal as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue, Request};
use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry::trace::{TraceContextExt as _, TraceId, TracerProvider as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Span;
use tracing::field::{Empty, Field, FieldSet, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_log::NormalizeEvent as _;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer as _;
use tracing_subscriber::field::{RecordFields, VisitOutput as _};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::fmt::format::{DefaultFields, DefaultVisitor, JsonFields, Writer};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::layer::Context;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::config::{LogFormat, TelemetryConfig};
use crate::log_writer::BatchedWriter;

mod json;

pub use json::JsonLine;

/// Whether spans go to an OpenTelemetry exporter (set once by [`init`]).
static OTEL_ENABLED: AtomicBool = AtomicBool::new(false);

/// Whether request spans carry only the fields a reader needs
/// ([`Operation::span_values`]): set once by [`init`] when no span is
/// exported (OpenTelemetry's exporter reads the fields left out). Off
/// (every field) until then.
static COMPACT_SPANS: AtomicBool = AtomicBool::new(false);

/// Whether an event with an explicit parent span must also be emitted
/// inside it (set once by [`init`]): the JSON format reads its `spans`
/// list from the spans entered on the thread, not from the event's
/// parent, as the text format and OpenTelemetry do.
static ENTER_FOR_EVENTS: AtomicBool = AtomicBool::new(true);

/// The request id header, read or generated, and echoed in the response.
/// (A `HeaderName`, not a `&str`, which every lookup would parse.)
pub const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The W3C trace context header.
const TRACEPARENT_HEADER: HeaderName = HeaderName::from_static("traceparent");

/// Longest accepted incoming request id; longer ones are replaced.
const MAX_REQUEST_ID_LEN: usize = 128;

/// Flushes pending trace spans when dropped (shuts the tracer provider down).
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
    /// Dropped after the provider's shutdown (fields drop after `drop`):
    /// writes the lines still pending, those of the shutdown included.
    _lines: BatchedWriter<std::io::Stderr>,
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
/// stderr (written by a thread of their own: [`crate::log_writer`]) and,
/// when an OTLP endpoint is configured, the OpenTelemetry layer.
///
/// Must run inside the Tokio runtime (the OTLP exporter's gRPC channel
/// lives on it). Never fails: a bad filter or exporter setting is reported
/// in the log and the service runs on without it.
pub fn init(config: &TelemetryConfig) -> TelemetryGuard {
    let (filter, filter_error) = log_filter(config.log_filter.as_deref());
    let lines = BatchedWriter::spawn(std::io::stderr());
    let fmt = match config.log_format {
        LogFormat::Json => DeferRequestFields::<_, JsonFields>::new(
            tracing_subscriber::fmt::layer()
                .fmt_fields(JsonFields::new())
                .event_format(JsonLine::default())
                .with_ansi(false)
                .with_writer(lines.handle()),
        )
        .boxed(),
        LogFormat::Text => {
            let ansi = std::io::stderr().is_terminal();
            let layer = tracing_subscriber::fmt::layer()
                .fmt_fields(TextFields)
                .event_format(TextLine::default())
                .with_ansi(ansi)
                .with_writer(lines.handle());
            if ansi {
                // Colours: the default format writes the lines.
                layer.boxed()
            } else {
                DeferRequestFields::<_, TextFields>::new(layer).boxed()
            }
        }
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
        .with(handler_spans(provider.is_some()))
        .with(fmt)
        .with(otel)
        .init();
    OTEL_ENABLED.store(provider.is_some(), Ordering::Relaxed);
    COMPACT_SPANS.store(provider.is_none(), Ordering::Relaxed);
    ENTER_FOR_EVENTS.store(config.log_format == LogFormat::Json, Ordering::Relaxed);
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
        _lines: lines,
    }
}

/// The target of the handlers' own spans (`#[instrument(target = ...)]`
/// on each HTTP handler and gRPC method).
pub const HANDLER_TARGET: &str = "bgref_service::handler";

/// Turns off the handlers' spans that carry no field but their name,
/// unless spans are exported: a line logged in a handler is in its
/// request's span, whose `otel.name` names the operation already
/// (`POST /legal-moves`, `bgref.v1.Referee/LegalMoves`), and a span costs
/// a few thousand instructions per request to open, enter and close.
/// Handler spans with fields (a match id, a game number) are kept.
fn handler_spans<S: tracing::Subscriber>(exported: bool) -> impl tracing_subscriber::Layer<S> {
    tracing_subscriber::filter::filter_fn(move |meta| {
        exported || !(meta.is_span() && meta.target() == HANDLER_TARGET && meta.fields().is_empty())
    })
}

/// The text log format's fields, byte for byte as tracing-subscriber's
/// `DefaultFields` writes them (`name="value"` for strings, escaped as
/// `Debug` escapes them; `name=value` for numbers), with a fast path for
/// the common case: a string of printable ASCII with no quote or
/// backslash (nothing to escape) is copied between quotes instead of
/// going through `Debug` one character at a time, a printable ASCII
/// message is copied as it is, integers are written by `itoa` and floats
/// by `ryu` (where `Debug` writes the same digits), all gathered in a
/// buffer and handed to the writer at once. Everything else (errors,
/// `Debug` values, escapes, colours on a terminal) is handed to
/// `DefaultFields`' own visitor.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextFields;

impl<'writer> FormatFields<'writer> for TextFields {
    fn format_fields<R: RecordFields>(
        &self,
        writer: Writer<'writer>,
        fields: R,
    ) -> std::fmt::Result {
        if writer.has_ansi_escapes() {
            return DefaultFields::new().format_fields(writer, fields);
        }
        let mut visitor = TextVisitor::new(writer);
        fields.record(&mut visitor);
        visitor.flush();
        visitor.result
    }
}

/// Whether `DefaultFields` writes `value` as it is between quotes (its
/// `Debug` form): printable ASCII with no quote or backslash.
///
/// Eight bytes at a time: a request id and a path are checked for every
/// request.
fn quotes_as_is(value: &str) -> bool {
    use words::{ONES, TOPS, any_below};
    words::all(
        value,
        // No top bit (not ASCII), nothing below 0x20, no 0x7f, `"` or `\`.
        |word| {
            word & TOPS == 0
                && !any_below(word, 0x20)
                && !any_below(word ^ (ONES * 0x7f), 1)
                && !any_below(word ^ (ONES * u64::from(b'"')), 1)
                && !any_below(word ^ (ONES * u64::from(b'\\')), 1)
        },
        |b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\',
    )
}

/// Whether `value` is printable ASCII (`0x20` to `0x7e`), eight bytes at a
/// time: it then has no control character, one byte per character.
fn printable_ascii(value: &str) -> bool {
    use words::{ONES, TOPS, any_below};
    words::all(
        value,
        |word| word & TOPS == 0 && !any_below(word, 0x20) && !any_below(word ^ (ONES * 0x7f), 1),
        |b| (0x20..0x7f).contains(&b),
    )
}

/// Checking the bytes of a text eight at a time, for [`quotes_as_is`] and
/// the JSON writer's escape check.
mod words {
    /// A byte of `1`s, and each byte's top bit.
    pub(super) const ONES: u64 = u64::from_le_bytes([1; 8]);
    pub(super) const TOPS: u64 = ONES * 0x80;

    /// Whether a byte of `word` is below `n` (at most 0x80; exact as a
    /// whole, for any bytes: a borrow only runs on past such a byte).
    pub(super) fn any_below(word: u64, n: u64) -> bool {
        word.wrapping_sub(ONES * n) & !word & TOPS != 0
    }

    /// Whether every eight bytes of `text` (little-endian) pass `word_ok`
    /// and every byte left over passes `byte_ok`.
    pub(super) fn all(
        text: &str,
        word_ok: impl Fn(u64) -> bool,
        byte_ok: impl Fn(u8) -> bool,
    ) -> bool {
        let mut words = text.as_bytes().chunks_exact(8);
        for chunk in &mut words {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            if !word_ok(u64::from_le_bytes(word)) {
                return false;
            }
        }
        words.remainder().iter().all(|&b| byte_ok(b))
    }
}

/// Whether `DefaultFields` writes a field of this name as `name=` and the
/// value (not the message, a raw identifier or `log` metadata).
fn plain_name(name: &str) -> bool {
    name != "message" && !name.starts_with("r#") && !name.starts_with("log.")
}

/// How many request spans [`DeferRequestFields`] layers have been made
/// (zero: nothing takes [`HANDOFF`], so [`request_span`] leaves it alone).
static DEFERRING: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// What [`request_span`] hands to [`DeferRequestFields::on_new_span`]
    /// for the span it is opening, on the same thread.
    static HANDOFF: RefCell<Option<RequestFields>> = const { RefCell::new(None) };

    /// What [`RequestOutcome::record`] hands to [`TextLine`] or
    /// [`JsonLine`] for the completion line it is logging, on the same
    /// thread ([`Completion::of`]).
    static COMPLETION: Cell<Option<Completion>> = const { Cell::new(None) };
}

/// The values of the completion line's fields (`message`, `status`,
/// `latency_ms`), as [`RequestOutcome::record`] logs them: [`TextLine`]
/// and [`JsonLine`] write them as their field formats would, without
/// visiting the event's values one by one (dispatched through `dyn Value`,
/// each field name checked): about 1 000 instructions per request, text
/// or JSON. The event itself is emitted as before, so filters and
/// OpenTelemetry see it as any other.
#[derive(Debug, Clone, Copy)]
struct Completion {
    /// The outcome's label ([`RequestOutcome::label`]), when it needs no
    /// allocation; the line is formatted the usual way otherwise.
    status: &'static str,
    latency_ms: f64,
    /// The latency in nanoseconds, of which `latency_ms` is the millionth.
    nanos: u64,
}

/// The completion line's message.
const COMPLETION_MESSAGE: &str = "request completed";

/// The completion line's fields, in order.
const COMPLETION_FIELDS: [&str; 3] = ["message", "status", "latency_ms"];

impl Completion {
    /// The values of `event`'s fields, when it is the completion line
    /// being logged on this thread: an event of this module with the
    /// completion line's fields, while [`RequestOutcome::record`] logs one.
    fn of(event: &tracing::Event<'_>) -> Option<Completion> {
        let completion = COMPLETION.get()?;
        let meta = event.metadata();
        let fields = meta.fields();
        (meta.target() == module_path!()
            && fields.len() == COMPLETION_FIELDS.len()
            && fields.iter().map(|f| f.name()).eq(COMPLETION_FIELDS))
        .then_some(completion)
    }

    /// The fields as [`TextFields`] writes them
    /// (`request completed status="OK" latency_ms=0.317182`), or `None`
    /// where it writes them another way (a status to escape; a latency
    /// under 100 ns or of years, which `Debug` writes with an exponent
    /// or more digits): then the event's fields are visited as usual.
    /// The latency's digits come from the nanoseconds, as
    /// [`debug_millionths`] writes them, without the float.
    fn write_text(self, writer: &mut Writer<'_>) -> Option<std::fmt::Result> {
        if !quotes_as_is(self.status) || !MILLIONTHS.contains(&self.nanos) {
            return None;
        }
        // One write: 17 + 9 + at most 19 (`FAILED_PRECONDITION`) + 13 + 17 bytes.
        let mut line = [0u8; 96];
        let mut len = 0;
        for part in [
            COMPLETION_MESSAGE,
            " status=\"",
            self.status,
            "\" latency_ms=",
        ] {
            let end = len + part.len();
            line.get_mut(len..end)?.copy_from_slice(part.as_bytes());
            len = end;
        }
        len += millionths(self.nanos, line.get_mut(len..)?)?;
        // Whole `&str`s and digits, so UTF-8.
        let text = std::str::from_utf8(&line[..len]).ok()?;
        Some(writer.write_str(text))
    }
}

/// A request span's fields as the request holds them, kept in the span in
/// place of their formatted text when the text format runs without
/// colours, or the JSON format ([`DeferRequestFields`]). [`TextLine`] or
/// [`JsonLine`] writes them when a line is written inside the span (the
/// request's completion line, and what its handler logs): byte for byte
/// what [`TextFields`] or `JsonFields` would have kept when the span
/// opened and at each later record, but without formatting seven fields
/// into a string per request first, then copying it (JSON: parsing it
/// back at each record and line, and writing it again).
#[derive(Debug)]
pub struct RequestFields {
    operation: Arc<Operation>,
    request_id: HeaderValue,
    /// The `url.path` field ([`RequestFields::url_path`]).
    path: UrlPath,
    /// The fields recorded since, in order; each record starts with
    /// [`Recorded::Start`].
    recorded: Vec<Recorded>,
}

/// A value recorded on a request span after it opened, kept to be written
/// as [`TextFields`] writes it.
#[derive(Debug)]
enum Recorded {
    /// The start of one `record` call.
    Start,
    I64(Field, i64),
    U64(Field, u64),
    Bool(Field, bool),
    F64(Field, f64),
    Str(Field, Box<str>),
    /// What `Debug` wrote for the value (which `DefaultFields` writes as
    /// it is): the values with no visitor method of their own.
    Debug(Field, String),
}

impl Recorded {
    /// Hands the value to `visitor` as it was recorded.
    fn replay(&self, visitor: &mut TextVisitor<'_>) {
        match self {
            Recorded::Start => {}
            Recorded::I64(field, value) => visitor.record_i64(field, *value),
            Recorded::U64(field, value) => visitor.record_u64(field, *value),
            Recorded::Bool(field, value) => visitor.record_bool(field, *value),
            Recorded::F64(field, value) => visitor.record_f64(field, *value),
            Recorded::Str(field, value) => visitor.record_str(field, value),
            Recorded::Debug(field, text) => {
                visitor.record_debug(field, &tracing::field::display(text));
            }
        }
    }
}

/// Keeps a record's values ([`Recorded`]); `exact` turns false for a
/// value it cannot keep as it was (an error, with its sources; bytes; a
/// float unless `floats`).
struct Capture<'a> {
    into: &'a mut Vec<Recorded>,
    exact: bool,
    floats: bool,
}

impl Visit for Capture<'_> {
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.into.push(Recorded::I64(field.clone(), value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.into.push(Recorded::U64(field.clone(), value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if self.floats {
            self.into.push(Recorded::F64(field.clone(), value));
        } else {
            self.exact = false;
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.into.push(Recorded::Bool(field.clone(), value));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.into.push(Recorded::Str(field.clone(), value.into()));
    }

    fn record_bytes(&mut self, _: &Field, _: &[u8]) {
        self.exact = false;
    }

    fn record_error(&mut self, _: &Field, _: &(dyn std::error::Error + 'static)) {
        self.exact = false;
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.into
            .push(Recorded::Debug(field.clone(), format!("{value:?}")));
    }
}

/// A request span's `url.path` field as [`RequestFields`] keeps it.
#[derive(Debug)]
enum UrlPath {
    /// The path is the matched route's own text (most requests'): no copy.
    Route,
    /// Not given ([`Operation::writes_path`]).
    Omitted,
    /// The path (log-safe, [`log_safe`]).
    Other(Box<str>),
}

impl UrlPath {
    /// The field of a request of `op` whose `url.path` value is `path`
    /// (log-safe; `None`: not given).
    fn of(op: &Operation, path: Option<&str>) -> UrlPath {
        match path {
            None => UrlPath::Omitted,
            Some(path) if op.route.as_deref() == Some(path) => UrlPath::Route,
            Some(path) => UrlPath::Other(path.into()),
        }
    }
}

impl RequestFields {
    /// The `url.path` field's value, `None` when it is not given.
    pub(super) fn url_path(&self) -> Option<&str> {
        match &self.path {
            UrlPath::Route => Some(self.operation.route.as_deref().unwrap_or_default()),
            UrlPath::Omitted => None,
            UrlPath::Other(path) => Some(path),
        }
    }

    /// The span's fields as [`TextFields`] writes them: those given when
    /// it opened, then each record after a space (as `add_fields` does).
    fn write_text(&self, fields: &FieldSet, writer: &mut Writer<'_>) -> std::fmt::Result {
        let request_id = self.request_id.to_str().unwrap_or_default();
        let path = self.url_path();
        match &self.operation.span_text {
            Some(text) if quotes_as_is(request_id) && path.is_none_or(quotes_as_is) => {
                writer.write_str(&text.head)?;
                writer.write_str(request_id)?;
                writer.write_str(&text.middle)?;
                if let Some(path) = path {
                    writer.write_str(" url.path=\"")?;
                    writer.write_str(path)?;
                    writer.write_char('"')?;
                }
                writer.write_str(&text.tail)?;
            }
            _ => {
                let mut visitor = TextVisitor::new(writer.by_ref());
                for (name, value) in self.operation.span_values(request_id, path) {
                    if let (Some(value), Some(field)) = (value, fields.field(name)) {
                        visitor.record_str(&field, value);
                    }
                }
                visitor.flush();
                visitor.result?;
            }
        }
        // Each record's values (the list starts with a `Start`).
        let records = self.recorded.split(|r| matches!(r, Recorded::Start));
        for record in records.skip(1) {
            writer.write_char(' ')?;
            if let [Recorded::I64(field, value)] = record
                && plain_name(field.name())
            {
                // The usual record, a status code, as `TextVisitor` writes it.
                writer.write_str(field.name())?;
                writer.write_char('=')?;
                writer.write_str(itoa::Buffer::new().format(*value))?;
                continue;
            }
            let mut visitor = TextVisitor::new(writer.by_ref());
            for value in record {
                value.replay(&mut visitor);
            }
            visitor.flush();
            visitor.result?;
        }
        Ok(())
    }
}

/// A log format whose request span fields [`DeferRequestFields`] can keep
/// unformatted: text ([`TextFields`], lines by [`TextLine`]) and JSON
/// (`JsonFields`, lines by [`JsonLine`]).
pub trait DeferredFormat: for<'writer> FormatFields<'writer> + Sized + 'static {
    /// Whether a float recorded on the span is kept (or the span's fields
    /// formatted from then on).
    const KEEPS_FLOATS: bool;

    /// What the format would have kept for the span by now (for a record
    /// the layer cannot keep as it was: the usual way from then on).
    fn formatted(fields: &RequestFields, set: &FieldSet) -> FormattedFields<Self>;
}

impl DeferredFormat for TextFields {
    const KEEPS_FLOATS: bool = true;

    fn formatted(fields: &RequestFields, set: &FieldSet) -> FormattedFields<TextFields> {
        let mut text = String::new();
        // Writing into a `String` does not fail.
        let _ = fields.write_text(set, &mut Writer::new(&mut text));
        FormattedFields::new(text)
    }
}

/// Whether `meta` is the request span's ([`request_span`]).
fn is_request_span(meta: &tracing::Metadata<'_>) -> bool {
    meta.name() == "request" && meta.target() == module_path!()
}

/// A log layer (text without colours, or JSON), with request spans kept
/// unformatted ([`RequestFields`]): the layer formats every other span's
/// fields when it opens, as usual, and writes every line; request spans'
/// fields are written by [`TextLine`] or [`JsonLine`] from what the
/// request holds, only when a line is written in the span.
#[derive(Debug)]
pub struct DeferRequestFields<L, N> {
    inner: L,
    format: std::marker::PhantomData<fn() -> N>,
}

impl<L, N> DeferRequestFields<L, N> {
    /// Wraps `inner`, a layer with the fields `N` and the line that goes
    /// with them: [`TextFields`] and [`TextLine`] without colours, or
    /// `JsonFields` and [`JsonLine`].
    pub fn new(inner: L) -> DeferRequestFields<L, N> {
        DEFERRING.fetch_add(1, Ordering::Relaxed);
        DeferRequestFields {
            inner,
            format: std::marker::PhantomData,
        }
    }
}

impl<S, L, N> tracing_subscriber::Layer<S> for DeferRequestFields<L, N>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    L: tracing_subscriber::Layer<S>,
    N: DeferredFormat,
{
    fn on_register_dispatch(&self, subscriber: &tracing::Dispatch) {
        self.inner.on_register_dispatch(subscriber);
    }

    fn on_layer(&mut self, subscriber: &mut S) {
        self.inner.on_layer(subscriber);
    }

    fn register_callsite(
        &self,
        metadata: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        self.inner.register_callsite(metadata)
    }

    fn enabled(&self, metadata: &tracing::Metadata<'_>, ctx: Context<'_, S>) -> bool {
        self.inner.enabled(metadata, ctx)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        self.inner.max_level_hint()
    }

    fn event_enabled(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) -> bool {
        self.inner.event_enabled(event, ctx)
    }

    /// A request span keeps what [`request_span`] handed over; any other
    /// span is formatted by the inner layer.
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if is_request_span(attrs.metadata())
            && let Some(span) = ctx.span(id)
            && let Some(fields) = HANDOFF.with(|handoff| handoff.borrow_mut().take())
        {
            span.extensions_mut().insert(fields);
            return;
        }
        self.inner.on_new_span(attrs, id, ctx);
    }

    /// A record on a kept request span is kept with it; one that cannot be
    /// kept as it was turns the span's fields into text, and the inner layer
    /// adds the record to it as to any span.
    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            let mut extensions = span.extensions_mut();
            if extensions.get_mut::<FormattedFields<N>>().is_none()
                && let Some(fields) = extensions.get_mut::<RequestFields>()
            {
                let before = fields.recorded.len();
                fields.recorded.push(Recorded::Start);
                let mut capture = Capture {
                    into: &mut fields.recorded,
                    exact: true,
                    floats: N::KEEPS_FLOATS,
                };
                values.record(&mut capture);
                if capture.exact {
                    return;
                }
                fields.recorded.truncate(before);
                let formatted = N::formatted(fields, span.metadata().fields());
                extensions.insert(formatted);
            }
        }
        self.inner.on_record(id, values, ctx);
    }

    fn on_follows_from(&self, span: &Id, follows: &Id, ctx: Context<'_, S>) {
        self.inner.on_follows_from(span, follows, ctx);
    }

    fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
        self.inner.on_event(event, ctx);
    }

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        self.inner.on_enter(id, ctx);
    }

    fn on_exit(&self, id: &Id, ctx: Context<'_, S>) {
        self.inner.on_exit(id, ctx);
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        self.inner.on_close(id, ctx);
    }

    fn on_id_change(&self, old: &Id, new: &Id, ctx: Context<'_, S>) {
        self.inner.on_id_change(old, new, ctx);
    }
}

/// The text log line, byte for byte as tracing-subscriber's default
/// (`Full`) format writes it without colours: the time (RFC 3339, UTC,
/// microseconds), the level, the spans from the root with their fields,
/// the target, the event's fields.
///
/// Cheaper than the default: each piece is copied in place instead of
/// going through `write!` and `nu_ansi_term`'s styles (which run, with no
/// style, even when colours are off), and the date and time of day are
/// worked out once a second per thread. With
/// colours (a terminal) the default format writes the line.
#[derive(Debug, Default)]
pub struct TextLine {
    /// What writes the line with colours.
    coloured: tracing_subscriber::fmt::format::Format,
    /// No time at the start of the line (tests compare lines).
    without_time: bool,
}

impl<S, N> FormatEvent<S, N> for TextLine
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        if writer.has_ansi_escapes() {
            return self.coloured.format_event(ctx, writer, event);
        }
        // Records of the `log` crate carry their own target and level.
        let normalized = event.normalized_metadata();
        let meta = normalized.as_ref().unwrap_or_else(|| event.metadata());
        if !self.without_time {
            write_timestamp(&mut writer)?;
            writer.write_char(' ')?;
        }
        writer.write_str(match *meta.level() {
            tracing::Level::TRACE => "TRACE ",
            tracing::Level::DEBUG => "DEBUG ",
            tracing::Level::INFO => " INFO ",
            tracing::Level::WARN => " WARN ",
            tracing::Level::ERROR => "ERROR ",
        })?;
        if let Some(scope) = ctx.event_scope() {
            let mut seen = false;
            for span in scope.from_root() {
                writer.write_str(span.metadata().name())?;
                seen = true;
                let extensions = span.extensions();
                if let Some(fields) = extensions.get::<FormattedFields<N>>() {
                    if !fields.is_empty() {
                        writer.write_char('{')?;
                        writer.write_str(fields)?;
                        writer.write_char('}')?;
                    }
                } else if let Some(fields) = extensions.get::<RequestFields>() {
                    // A request span whose fields were not formatted when
                    // it opened ([`DeferRequestFields`]): never empty.
                    writer.write_char('{')?;
                    fields.write_text(span.metadata().fields(), &mut writer)?;
                    writer.write_char('}')?;
                }
                writer.write_char(':')?;
            }
            if seen {
                writer.write_char(' ')?;
            }
        }
        writer.write_str(meta.target())?;
        writer.write_str(": ")?;
        match Completion::of(event).and_then(|c| c.write_text(&mut writer)) {
            Some(written) => written?,
            None => ctx.format_fields(writer.by_ref(), event)?,
        }
        writer.write_char('\n')
    }
}

/// Writes the time now as the default format does
/// (`2026-12-01T13:03:03.062714Z`), the part up to the second computed
/// once a second per thread.
fn write_timestamp(writer: &mut Writer<'_>) -> std::fmt::Result {
    use tracing_subscriber::fmt::time::FormatTime as _;
    thread_local! {
        /// The second last written, and its `YYYY-MM-DDTHH:MM:SS.`.
        static SECOND: std::cell::Cell<(u64, [u8; 20])> = const { std::cell::Cell::new((u64::MAX, [0; 20])) };
    }
    let Ok(since_epoch) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) else {
        // Before 1970: the default format's own way.
        return tracing_subscriber::fmt::time::SystemTime.format_time(writer);
    };
    let second = since_epoch.as_secs();
    let (cached, mut prefix) = SECOND.get();
    if cached != second {
        match second_prefix(second) {
            Some(computed) => {
                prefix = computed;
                SECOND.set((second, prefix));
            }
            // After the year 9999.
            None => return tracing_subscriber::fmt::time::SystemTime.format_time(writer),
        }
    }
    // One piece, checked and written once.
    let mut stamp = [b'Z'; 27];
    stamp[..20].copy_from_slice(&prefix);
    let mut micros = since_epoch.subsec_micros();
    for digit in stamp[20..26].iter_mut().rev() {
        *digit = b'0' + (micros % 10) as u8;
        micros /= 10;
    }
    writer.write_str(std::str::from_utf8(&stamp).map_err(|_| std::fmt::Error)?)
}

/// `YYYY-MM-DDTHH:MM:SS.` of `second` seconds after the Unix epoch (UTC,
/// proleptic Gregorian calendar); `None` after the year 9999.
fn second_prefix(second: u64) -> Option<[u8; 20]> {
    let days = second / 86_400;
    let of_day = second % 86_400;
    // Howard Hinnant's `civil_from_days`, for days since 1970-01-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    if year > 9999 {
        return None;
    }
    let mut out = *b"0000-00-00T00:00:00.";
    let mut put = |at: usize, width: usize, mut value: u64| {
        for digit in out[at..at + width].iter_mut().rev() {
            *digit = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, month);
    put(8, 2, day);
    put(11, 2, of_day / 3600);
    put(14, 2, of_day / 60 % 60);
    put(17, 2, of_day % 60);
    Some(out)
}

/// What `Debug` writes for `value` when it is a whole number of
/// millionths, `n / 1e6` for an integer `n` from 100 to 10^15 (a latency in
/// milliseconds from nanoseconds): the decimal of `n / 1e6` with its
/// trailing zeros dropped (`0.317182`, `12.5`, `3.0`), worked out without
/// `ryu`. `Debug` writes the shortest decimal that reads back as `value`;
/// this one does, and has at most 15 significant digits, so no shorter one
/// can (two decimals of 15 digits or fewer never read back as the same
/// double). `None` for any other value.
fn debug_millionths(value: f64, out: &mut [u8; 24]) -> Option<&str> {
    let scaled = value * 1e6;
    if !(100.0..1e15).contains(&scaled) {
        return None;
    }
    let n = scaled.round() as u64;
    if !MILLIONTHS.contains(&n) || n as f64 / 1e6 != value {
        return None;
    }
    let len = millionths(n, out)?;
    std::str::from_utf8(&out[..len]).ok()
}

/// The whole numbers of millionths [`debug_millionths`] writes.
const MILLIONTHS: std::ops::Range<u64> = 100..1_000_000_000_000_000;

/// The decimal of `n / 1e6` with its trailing zeros dropped, as
/// [`debug_millionths`] writes it, at the start of `out`; its length
/// (`None` if `out` is too short: 17 bytes are enough for
/// [`MILLIONTHS`]).
fn millionths(n: u64, out: &mut [u8]) -> Option<usize> {
    const MILLION: u64 = 1_000_000;
    let mut itoa = itoa::Buffer::new();
    let whole = itoa.format(n / MILLION).as_bytes();
    out.get_mut(..whole.len())?.copy_from_slice(whole);
    let mut len = whole.len();
    *out.get_mut(len)? = b'.';
    len += 1;
    let mut fraction = n % MILLION;
    let mut digits = [b'0'; 6];
    for digit in digits.iter_mut().rev() {
        *digit = b'0' + (fraction % 10) as u8;
        fraction /= 10;
    }
    let kept = digits
        .iter()
        .rposition(|&d| d != b'0')
        .map_or(1, |last| last + 1);
    out.get_mut(len..len + kept)?
        .copy_from_slice(&digits[..kept]);
    Some(len + kept)
}

/// What `Debug` writes for `value` (`0.25`, `83.329043`, `1.0`), by
/// `ryu`, where `Debug` writes decimal notation (magnitudes from 1e-4 to
/// 1e16) and the digits are at most 15: both write the shortest digits
/// that read back as `value`. With 16 or 17 digits two candidates can be
/// equally close, and they break the tie differently (`ryu` to even,
/// `Debug` up). `None` otherwise (exponents, long digits, infinities,
/// NaN), left to `Debug`.
fn debug_f64(value: f64, buffer: &mut ryu::Buffer) -> Option<&str> {
    if !(1e-4..1e16).contains(&value.abs()) {
        return None;
    }
    let digits = buffer.format_finite(value);
    let significant = digits
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&b| b == b'0')
        .count();
    (significant <= 15 && !digits.contains('e')).then_some(digits)
}

/// How many bytes [`TextVisitor`] gathers before handing them to the
/// writer: a span's field string starts empty and grows by doubling, and
/// a write per piece (five per field) would reallocate it several times.
const PENDING: usize = 512;

/// [`TextFields`]' visitor: `empty` until a field is written; what it
/// writes itself waits in `pending` ([`TextVisitor::flush`]).
struct TextVisitor<'writer> {
    writer: Writer<'writer>,
    empty: bool,
    result: std::fmt::Result,
    pending: [u8; PENDING],
    pending_len: usize,
}

impl<'writer> TextVisitor<'writer> {
    /// A visitor writing the first field to `writer`.
    fn new(writer: Writer<'writer>) -> TextVisitor<'writer> {
        TextVisitor {
            writer,
            empty: true,
            result: Ok(()),
            pending: [0; PENDING],
            pending_len: 0,
        }
    }

    /// Whether `DefaultFields` writes the field as `name=` and the value
    /// (not the message, a raw identifier or `log` metadata).
    fn plain(&self, field: &Field) -> bool {
        self.result.is_ok() && plain_name(field.name())
    }

    /// `name=` then `value`, after a space unless it is the first field.
    fn write(&mut self, field: &Field, value: &[&str]) {
        self.separate();
        self.put(field.name());
        self.put("=");
        for part in value {
            self.put(part);
        }
    }

    /// A space unless this is the first field.
    fn separate(&mut self) {
        if !std::mem::take(&mut self.empty) {
            self.put(" ");
        }
    }

    /// Appends `text` to what is pending.
    fn put(&mut self, text: &str) {
        if self.pending_len + text.len() > PENDING {
            self.flush();
            if text.len() > PENDING {
                if self.result.is_ok() {
                    self.result = self.writer.write_str(text);
                }
                return;
            }
        }
        self.pending[self.pending_len..self.pending_len + text.len()]
            .copy_from_slice(text.as_bytes());
        self.pending_len += text.len();
    }

    /// Hands what is pending to the writer.
    fn flush(&mut self) {
        let pending = &self.pending[..std::mem::take(&mut self.pending_len)];
        if self.result.is_ok() && !pending.is_empty() {
            // Whole `&str`s, so UTF-8.
            self.result = std::str::from_utf8(pending)
                .map_err(|_| std::fmt::Error)
                .and_then(|text| self.writer.write_str(text));
        }
    }

    /// The field as `DefaultFields` writes it, by its own visitor (which
    /// writes nothing for `log.` metadata, so those leave `empty` as is).
    fn default(&mut self, field: &Field, record: impl FnOnce(&mut DefaultVisitor<'_>)) {
        self.flush();
        if self.result.is_ok() {
            let mut visitor = DefaultVisitor::new(self.writer.by_ref(), self.empty);
            record(&mut visitor);
            self.result = visitor.finish();
        }
        self.empty &= field.name().starts_with("log.");
    }

    /// A number field: `name=digits`, or `DefaultFields`' way.
    fn number(
        &mut self,
        field: &Field,
        digits: &str,
        record: impl FnOnce(&mut DefaultVisitor<'_>),
    ) {
        if self.plain(field) {
            self.write(field, &[digits]);
        } else {
            self.default(field, record);
        }
    }
}

impl Visit for TextVisitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if self.plain(field) && quotes_as_is(value) {
            // What `Debug` writes for such a string.
            self.write(field, &["\"", value, "\""]);
        } else if field.name() == "message"
            && self.result.is_ok()
            && value.bytes().all(|b| (0x20..0x7f).contains(&b))
        {
            // A message is written as it is, but for control characters
            // (escaped): printable ASCII has none.
            self.separate();
            self.put(value);
        } else {
            self.default(field, |v| v.record_str(field, value));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.number(field, itoa::Buffer::new().format(value), |v| {
            v.record_i64(field, value);
        });
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.number(field, itoa::Buffer::new().format(value), |v| {
            v.record_u64(field, value);
        });
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        let mut decimal = [0; 24];
        if let Some(digits) = debug_millionths(value, &mut decimal) {
            return self.number(field, digits, |v| v.record_f64(field, value));
        }
        let mut buffer = ryu::Buffer::new();
        match debug_f64(value, &mut buffer) {
            Some(digits) => self.number(field, digits, |v| v.record_f64(field, value)),
            None => self.default(field, |v| v.record_f64(field, value)),
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.default(field, |v| v.record_error(field, value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.default(field, |v| v.record_debug(field, value));
    }
}

/// `--log-filter`, else `RUST_LOG`, else `info`.
fn log_filter(flag: Option<&str>) -> (LogFilter, Option<String>) {
    let spec = flag
        .map(str::to_owned)
        .or_else(|| std::env::var("RUST_LOG").ok())
        .filter(|s| !s.trim().is_empty());
    let (filter, spans, error) = match spec {
        None => (EnvFilter::new("info"), false, None),
        Some(spec) => match EnvFilter::try_new(&spec) {
            // Span and field filters are written in brackets.
            Ok(filter) => (filter, spec.contains('['), None),
            Err(err) => (
                EnvFilter::new("info"),
                false,
                Some(format!("{spec:?}: {err}")),
            ),
        },
    };
    (LogFilter { filter, spans }, error)
}

/// The log filter, and whether a directive of it names a span or a field
/// (`target[span{field=value}]=level`). Without one, `EnvFilter` has
/// nothing to track as spans open, are entered and left, record and
/// close, but each of those calls still takes a lock and looks the span
/// up in a map: they are not made.
#[derive(Debug)]
struct LogFilter {
    filter: EnvFilter,
    spans: bool,
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for LogFilter {
    fn register_callsite(
        &self,
        metadata: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing_subscriber::Layer::<S>::register_callsite(&self.filter, metadata)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        tracing_subscriber::Layer::<S>::max_level_hint(&self.filter)
    }

    fn enabled(&self, metadata: &tracing::Metadata<'_>, ctx: Context<'_, S>) -> bool {
        tracing_subscriber::Layer::<S>::enabled(&self.filter, metadata, ctx)
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if self.spans {
            tracing_subscriber::Layer::<S>::on_new_span(&self.filter, attrs, id, ctx);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if self.spans {
            tracing_subscriber::Layer::<S>::on_record(&self.filter, id, values, ctx);
        }
    }

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        if self.spans {
            tracing_subscriber::Layer::<S>::on_enter(&self.filter, id, ctx);
        }
    }

    fn on_exit(&self, id: &Id, ctx: Context<'_, S>) {
        if self.spans {
            tracing_subscriber::Layer::<S>::on_exit(&self.filter, id, ctx);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if self.spans {
            tracing_subscriber::Layer::<S>::on_close(&self.filter, id, ctx);
        }
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
    /// Whether its request spans carry only the fields a reader needs
    /// ([`Operation::span_values`]).
    compact: bool,
    /// [`Operation::span_name`].
    span_name: String,
    /// [`Operation::label`].
    label: String,
    /// The request span's fixed fields as the text format writes them
    /// ([`RequestFields`]); `None` when one needs escaping.
    span_text: Option<SpanText>,
    /// The request span's fields given when it opens that do not change
    /// from request to request, as JSON strings (`"POST /legal-moves"`), in
    /// [`Operation::span_values`]' order; `None` for the request id, the
    /// path and fields not given ([`json::fixed_values`]).
    span_json: [Option<Box<str>>; json::GIVEN],
}

/// An operation's request span fields that do not change from request to
/// request, as [`TextFields`] writes them, around the two that do: `head`
/// (`otel.name` to `protocol`, then `request_id="`), the request id,
/// `middle` (`"`, then the method and route), the `url.path` field when
/// given, and `tail` (the gRPC system, service and method).
#[derive(Debug, Clone, PartialEq, Eq)]
struct SpanText {
    head: String,
    middle: String,
    tail: String,
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
    crate::grpc::is_grpc(req.headers())
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
        let compact = COMPACT_SPANS.load(Ordering::Relaxed);
        Operation::new(protocol, method, route, rpc, probe, compact)
    }

    /// An operation, with its names worked out; `compact`: its request
    /// spans carry only the fields a reader needs.
    fn new(
        protocol: Protocol,
        method: &'static str,
        route: Option<String>,
        rpc: Option<(String, String)>,
        probe: bool,
        compact: bool,
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
        let mut operation = Operation {
            protocol,
            method,
            route,
            rpc,
            probe,
            compact,
            span_name,
            label,
            span_text: None,
            span_json: Default::default(),
        };
        operation.span_text = operation.text_of_fixed_fields();
        operation.span_json = json::fixed_values(&operation);
        operation
    }

    /// The request span's fields given when it opens, in the order of
    /// [`request_span`]'s field list (`None`: not given), with `path` the
    /// `url.path` field's value ([`RequestFields::url_path`]).
    ///
    /// Compact spans ([`COMPACT_SPANS`]: no export) leave out
    /// what OpenTelemetry's conventions repeat and a reader can tell from
    /// the fields given: `otel.name` (the route, or the gRPC service and
    /// method), `otel.kind` (`server`), `rpc.system` (`protocol`), a gRPC
    /// call's method when it is `POST`, and `url.path` when it is the
    /// route or the gRPC service and method ([`Operation::writes_path`]).
    fn span_values<'a>(
        &'a self,
        request_id: &'a str,
        path: Option<&'a str>,
    ) -> [(&'static str, Option<&'a str>); json::GIVEN] {
        let rpc = self.rpc.as_ref();
        let full = !self.compact;
        let grpc = self.protocol == Protocol::Grpc;
        [
            ("otel.name", full.then(|| self.span_name())),
            ("otel.kind", full.then_some("server")),
            ("protocol", Some(self.protocol.as_str())),
            ("request_id", Some(request_id)),
            (
                "http.request.method",
                (full || !grpc || self.method != "POST").then_some(self.method),
            ),
            ("http.route", self.route.as_deref().filter(|_| !grpc)),
            ("url.path", path),
            ("rpc.system", rpc.filter(|_| full).map(|_| "grpc")),
            ("rpc.service", rpc.map(|r| r.0.as_str())),
            ("rpc.method", rpc.map(|r| r.1.as_str())),
        ]
    }

    /// Whether a request of this operation to `path` gives the `url.path`
    /// field: always, but in compact spans when the path is the matched
    /// HTTP route or a served gRPC method's (`/service/method`, whose
    /// parts are given).
    fn writes_path(&self, path: &str) -> bool {
        !self.compact
            || match self.protocol {
                Protocol::Grpc => self.rpc.is_none(),
                Protocol::Http => self.route.as_deref() != Some(path),
            }
    }

    /// [`SpanText`]: `name="value"` for each field, as `TextFields` writes
    /// a string with nothing to escape; `None` if one has something.
    fn text_of_fixed_fields(&self) -> Option<SpanText> {
        let values = self.span_values("", None);
        if !values
            .iter()
            .all(|(_, value)| value.is_none_or(quotes_as_is))
        {
            return None;
        }
        let text = |fields: &[(&str, Option<&str>)]| {
            fields
                .iter()
                .filter_map(|(name, value)| value.map(|value| format!(" {name}=\"{value}\"")))
                .collect::<String>()
        };
        let head = text(&values[..3]);
        // The first field has no space before it.
        let head = head.strip_prefix(' ').unwrap_or(&head);
        Some(SpanText {
            head: format!("{head} request_id=\""),
            middle: format!("\"{}", text(&values[4..6])),
            tail: text(&values[7..]),
        })
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

/// Makes request ids cheaply: UUID-shaped (RFC 9562 version 8, custom),
/// 64 random bits drawn once per process followed by a counter, so ids are
/// unique within a process and, with overwhelming odds, across replicas,
/// without a system call per request as a random (v4) UUID costs.
#[derive(Debug, Clone)]
pub struct MakeRequestId {
    /// The first 64 bits as text, with the version: `xxxxxxxx-xxxx-8xxx-`
    /// (written once, not for every id).
    head: [u8; 19],
    counter: Arc<AtomicU64>,
}

/// Lower-case hexadecimal digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// The 16 hexadecimal digits of `word`, most significant first.
fn hex_digits(word: u64) -> [u8; 16] {
    let mut digits = [0u8; 16];
    for (i, digit) in digits.iter_mut().enumerate() {
        *digit = HEX[((word >> (60 - 4 * i)) & 15) as usize];
    }
    digits
}

impl Default for MakeRequestId {
    fn default() -> MakeRequestId {
        let mut seed = [0u8; 8];
        if getrandom::fill(&mut seed).is_err() {
            // No entropy source: the clock still tells processes apart.
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            seed = (nanos as u64 ^ u64::from(std::process::id())).to_le_bytes();
        }
        seed[6] = (seed[6] & 0x0f) | 0x80; // version 8
        let digits = hex_digits(u64::from_be_bytes(seed));
        let mut head = [b'-'; 19];
        head[..8].copy_from_slice(&digits[..8]);
        head[9..13].copy_from_slice(&digits[8..12]);
        head[14..18].copy_from_slice(&digits[12..]);
        MakeRequestId {
            head,
            counter: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl MakeRequestId {
    /// The next id: `xxxxxxxx-xxxx-8xxx-yxxx-xxxxxxxxxxxx`, the counter in
    /// the last 64 bits (with the variant).
    pub fn next_id(&self) -> HeaderValue {
        let count = self.counter.fetch_add(1, Ordering::Relaxed);
        // Variant 10 in the top two bits.
        let digits = hex_digits((count & !(0b11 << 62)) | (0b10 << 62));
        let mut text = [b'-'; 36];
        text[..19].copy_from_slice(&self.head);
        text[19..23].copy_from_slice(&digits[..4]);
        text[24..].copy_from_slice(&digits[4..]);
        // One allocation that the clones (the request's header, the
        // response's, the request span's) share: `HeaderValue::from_bytes`
        // copies into a `Bytes` whose first clone allocates again.
        HeaderValue::from_maybe_shared(axum::body::Bytes::from_owner(text))
            .unwrap_or_else(|_| HeaderValue::from_static("-"))
    }
}

/// The request's id, also left in its `x-request-id` header (where
/// handlers and gRPC methods find it): the incoming one if it is valid
/// (a single value of 1 to 128 printable ASCII characters), otherwise a
/// new one from `make`.
pub fn set_request_id<B>(req: &mut Request<B>, make: &MakeRequestId) -> HeaderValue {
    let valid = |v: &HeaderValue| {
        let b = v.as_bytes();
        !b.is_empty() && b.len() <= MAX_REQUEST_ID_LEN && b.iter().all(|c| c.is_ascii_graphic())
    };
    // One lookup for both the check and the insertion.
    match req.headers_mut().entry(REQUEST_ID_HEADER) {
        http::header::Entry::Occupied(mut entry) => {
            let mut incoming = entry.iter();
            if let (Some(id), None) = (incoming.next(), incoming.next())
                && valid(id)
            {
                return id.clone();
            }
            let id = make.next_id();
            // Replaces every value given.
            entry.insert(id.clone());
            id
        }
        http::header::Entry::Vacant(entry) => entry.insert(make.next_id()).clone(),
    }
}

/// Longest request-derived text written to a log field, in characters.
pub const MAX_LOGGED_CHARS: usize = 256;

/// Request-derived text made safe for a log line: control characters
/// (line breaks, terminal escapes) written as escapes (`\n`, `\u{1b}`),
/// and at most [`MAX_LOGGED_CHARS`] characters kept (then `…` and the
/// number of bytes left out). A forged log line or a 60 KB line cannot
/// come from a request.
pub fn log_safe(text: &str) -> Cow<'_, str> {
    if text.len() <= MAX_LOGGED_CHARS && printable_ascii(text) {
        // The usual path: nothing to escape or cut (checked a word at a
        // time, where counting and classifying `char`s costs hundreds of
        // instructions per request).
        return Cow::Borrowed(text);
    }
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

/// One span's field list, at a given level (the level must be a
/// constant), with the values given ([`Operation::span_values`]).
macro_rules! request_span {
    ($level:expr, $values:expr) => {
        tracing::span!(
            $level,
            "request",
            "otel.name" = $values[0].1,
            "otel.kind" = $values[1].1,
            "otel.status_code" = Empty,
            protocol = $values[2].1,
            request_id = $values[3].1,
            trace_id = Empty,
            "http.request.method" = $values[4].1,
            "http.route" = $values[5].1,
            "url.path" = $values[6].1,
            "http.response.status_code" = Empty,
            "rpc.system" = $values[7].1,
            "rpc.service" = $values[8].1,
            "rpc.method" = $values[9].1,
            "rpc.grpc.status_code" = Empty,
        )
    };
}

/// The span of one request (HTTP or gRPC), of operation `op`.
///
/// Carries the operation, the request id (from [`set_request_id`]), the
/// trace id, and later the outcome and latency. With
/// OpenTelemetry on, a valid `traceparent` makes it a child of the caller's
/// span; without, the caller's trace id is still logged.
pub fn request_span<B>(req: &Request<B>, op: &Arc<Operation>, request_id: &HeaderValue) -> Span {
    let request_id_value = request_id;
    let request_id = request_id.to_str().unwrap_or_default();
    let path = log_safe(req.uri().path());
    let url_path = Some(path.as_ref()).filter(|path| op.writes_path(path));
    // Nothing to hand over when no layer takes it, or when no span at the
    // level can be enabled (logs off).
    let deferring = DEFERRING.load(Ordering::Relaxed) > 0
        && if op.probe {
            tracing::level_enabled!(tracing::Level::DEBUG)
        } else {
            tracing::level_enabled!(tracing::Level::INFO)
        };
    if deferring {
        let fields = RequestFields {
            operation: op.clone(),
            request_id: request_id_value.clone(),
            path: UrlPath::of(op, url_path),
            recorded: Vec::new(),
        };
        HANDOFF.with(|handoff| *handoff.borrow_mut() = Some(fields));
    }
    let values = op.span_values(request_id, url_path);
    let span = if op.probe {
        request_span!(tracing::Level::DEBUG, values)
    } else {
        request_span!(tracing::Level::INFO, values)
    };
    if deferring {
        // Not taken when the span is disabled.
        HANDOFF.with(|handoff| handoff.borrow_mut().take());
    }
    if span.is_disabled() {
        return span;
    }
    let otel = OTEL_ENABLED.load(Ordering::Relaxed);
    if !otel && !req.headers().contains_key(&TRACEPARENT_HEADER) {
        // Nothing to extract, nothing to export: no trace id.
        return span;
    }
    let remote = TraceContextPropagator::new().extract(&HeaderExtractor(req.headers()));
    let mut trace_id = remote.span().span_context().trace_id();
    if otel {
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

    /// Records the outcome on the request span and logs the completed
    /// request, with its status and latency, inside it (`error` for faults, `debug` for probes,
    /// `info` otherwise). `entered`: whether the caller is inside `span`
    /// (it is the current span), which spares the JSON format entering it
    /// again for the line.
    pub fn record(self, span: &Span, entered: bool, probe: bool, latency: Duration) {
        // Nanoseconds over 1e6: the double nearest the exact decimal
        // (`0.330189`), which the text format writes as it is
        // ([`debug_f64`]); `as_secs_f64() * 1000.0` rounds twice and
        // often ends in 17 digits (`44.413016999999996`).
        let nanos = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX);
        let latency_ms = nanos as f64 / 1e6;
        match self {
            RequestOutcome::Http(status) => {
                span.record("http.response.status_code", i64::from(status.as_u16()));
            }
            RequestOutcome::Grpc(code) => {
                span.record("rpc.grpc.status_code", code as i64);
            }
        }
        let label = self.label();
        let status = label.as_ref();
        let fault = self.is_fault();
        if fault {
            span.record("otel.status_code", "error");
        }
        // The message as a `&str` field (the same line in every format),
        // which the text format copies instead of formatting; the span as
        // the explicit parent, which costs no entering and leaving.
        let message = COMPLETION_MESSAGE;
        let log = || {
            if fault {
                tracing::error!(parent: span, message, status, latency_ms);
            } else if probe {
                tracing::debug!(parent: span, message, status, latency_ms);
            } else {
                tracing::info!(parent: span, message, status, latency_ms);
            }
        };
        if let Cow::Borrowed(status) = label {
            COMPLETION.set(Some(Completion {
                status,
                latency_ms,
                nanos,
            }));
        }
        if !entered && ENTER_FOR_EVENTS.load(Ordering::Relaxed) {
            span.in_scope(log);
        } else {
            log();
        }
        COMPLETION.set(None);
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
mod request_id_tests {
    use super::{MakeRequestId, REQUEST_ID_HEADER, set_request_id};

    #[test]
    fn a_single_valid_incoming_id_is_kept_and_anything_else_replaced() {
        let make = MakeRequestId::default();
        let request = |ids: &[&[u8]]| {
            let mut req = http::Request::new(());
            for id in ids {
                let value = http::HeaderValue::from_bytes(id).unwrap();
                req.headers_mut().append(REQUEST_ID_HEADER, value);
            }
            req
        };
        let long = [b'a'; 129];
        for (ids, kept) in [
            (&[][..], false),
            (&[&b"abc-123"[..]][..], true),
            (&[&[b'a'; 128][..]][..], true),
            (&[&long[..]][..], false),
            (&[&b"a b"[..]][..], false),
            (&[&b"one"[..], &b"two"[..]][..], false),
        ] {
            let mut req = request(ids);
            let id = set_request_id(&mut req, &make);
            let values: Vec<_> = req.headers().get_all(REQUEST_ID_HEADER).iter().collect();
            assert_eq!(values, [&id], "{ids:?}");
            if kept {
                assert_eq!(id.as_bytes(), ids[0]);
            } else {
                assert_eq!(id.len(), 36, "{ids:?}: {id:?}");
            }
        }
    }

    #[test]
    fn request_ids_are_distinct_version_8_uuids() {
        let make = MakeRequestId::default();
        let a = make.next_id();
        let b = make.clone().next_id();
        assert_ne!(a, b);
        for id in [a, b] {
            let id = id.to_str().unwrap();
            assert_eq!(id.len(), 36, "{id}");
            let groups: Vec<&str> = id.split('-').collect();
            assert_eq!(
                groups.iter().map(|g| g.len()).collect::<Vec<_>>(),
                [8, 4, 4, 4, 12]
            );
            assert!(groups[2].starts_with('8'), "{id}");
            assert!(matches!(&groups[3][..1], "8" | "9" | "a" | "b"), "{id}");
            assert!(id.bytes().all(|c| c == b'-' || c.is_ascii_hexdigit()));
        }
        // The counter's bits, with the variant's two in place of its top two.
        let make = MakeRequestId::default();
        let head = String::from_utf8(make.head.to_vec()).unwrap();
        for count in [0, 1, 0xabc, u64::MAX >> 2, u64::MAX - 1] {
            make.counter
                .store(count, std::sync::atomic::Ordering::Relaxed);
            let low = (count & (u64::MAX >> 2)) | (1 << 63);
            let expected = format!("{head}{:04x}-{:012x}", low >> 48, low & ((1 << 48) - 1));
            assert_eq!(make.next_id().to_str().unwrap(), expected);
        }
        // Another process (another maker) draws another prefix.
        assert_ne!(
            MakeRequestId::default().next_id().to_str().unwrap()[..18],
            make.next_id().to_str().unwrap()[..18]
        );
    }
}

#[cfg(test)]
mod log_safe_tests {
    use super::{log_safe, printable_ascii};

    #[test]
    fn printable_ascii_checks_every_byte_at_every_place_in_a_word() {
        for c in (0..=0x100).filter_map(char::from_u32) {
            for len in 1..=17 {
                for at in 0..len {
                    let text: String = (0..len).map(|i| if i == at { c } else { 'a' }).collect();
                    let expected = text.bytes().all(|b| (0x20..0x7f).contains(&b));
                    assert_eq!(printable_ascii(&text), expected, "{text:?}");
                }
            }
        }
        assert!(printable_ascii(""));
    }

    #[test]
    fn text_at_the_length_limit_is_kept_and_past_it_cut() {
        let most = "/".repeat(super::MAX_LOGGED_CHARS);
        assert_eq!(log_safe(&most), most.as_str());
        let over = format!("{most}/");
        assert!(log_safe(&over).ends_with("(1 more bytes)"));
        // Characters, not bytes, are counted.
        let wide = "é".repeat(super::MAX_LOGGED_CHARS);
        assert_eq!(log_safe(&wide), wide.as_str());
    }

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

/// Health checks and scrapes: logged at debug, and let past the
/// concurrency limit (`crate::server`).
pub(crate) fn is_probe(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/metrics")
        || path.starts_with("/grpc.health.v1.Health/")
}

#[cfg(test)]
mod capture {
    use std::sync::{Arc, Mutex};

    use tracing::Dispatch;
    use tracing_subscriber::fmt::MakeWriter;

    /// Log lines written into a shared buffer, for the tests that compare
    /// our line writers with tracing-subscriber's.
    #[derive(Clone, Default)]
    pub(super) struct Capture(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Capture {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl MakeWriter<'_> for Capture {
        type Writer = Capture;

        fn make_writer(&self) -> Capture {
            self.clone()
        }
    }

    /// The lines `log` writes with the subscriber `subscribe` makes
    /// around a capture, and what `log` returns.
    pub(super) fn logged<T>(
        subscribe: impl FnOnce(Capture) -> Dispatch,
        log: impl FnOnce() -> T,
    ) -> (String, T) {
        let capture = Capture::default();
        let returned = tracing::dispatcher::with_default(&subscribe(capture.clone()), log);
        let lines = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
        (lines, returned)
    }
}

#[cfg(test)]
mod text_fields_tests {
    use tracing::Dispatch;
    use tracing_subscriber::fmt::format::DefaultFields;

    use super::capture::logged;
    use super::{TextFields, TextLine};

    /// Spans and events with every kind of field, some needing escapes.
    fn log_some() {
        let err = std::io::Error::other("disk \"full\"\n");
        let span = tracing::info_span!(
            "request",
            "otel.name" = "POST /legal-moves",
            plain = "abc-123_x/y",
            quoted = "say \"hi\"",
            backslash = r"a\b",
            newline = "line\nbreak",
            escape = "\u{1b}[31mred",
            unicode = "caf\u{e9} \u{2026}",
            tab = "a\tb",
            empty = "",
            neg = -42i64,
            big = u64::MAX,
            flag = true,
            ratio = 0.25f64,
            absent = Option::<&str>::None,
            present = Some("yes"),
            later = tracing::field::Empty,
            r#type = "raw",
            // Past the visitor's pending buffer, alone and together.
            medium = "m".repeat(300).as_str(),
            long = "l".repeat(600).as_str(),
        );
        span.record("later", 200i64);
        span.record("later", "twice");
        span.in_scope(|| {
            tracing::info!(status = "200", latency_ms = 0.5, "request completed");
            tracing::info!(message = "a str message", status = "200");
            tracing::info!(message = "a str \u{1b}[31m message", tab = "\t");
            tracing::warn!(
                error = &err as &(dyn std::error::Error + 'static),
                code = 7u64,
                "it \"failed\"\n"
            );
            tracing::info!(debug = ?vec!["a", "b"], text = %"shown", "");
            tracing::info_span!("inner").in_scope(|| {
                tracing::error!(target: "elsewhere", "nested, another target");
                tracing::info_span!("with", n = 1).in_scope(|| tracing::debug!("three deep"));
            });
        });
        tracing::info!(only = "fields");
        tracing::trace!("the lowest level");
        // A `log` record, as the `log` bridge hands it on: its own target
        // and level, and no `log.*` fields in the line.
        let _ = tracing_log::format_trace(
            &log::Record::builder()
                .args(format_args!("from the log crate"))
                .level(log::Level::Warn)
                .target("some::crate")
                .module_path_static(Some("some::crate"))
                .file_static(Some("src/lib.rs"))
                .line(Some(7))
                .build(),
        );
    }

    fn lines(text: bool) -> String {
        lines_with(text, false)
    }

    /// The lines of [`log_some`]: with our fields (`text`) or the default
    /// ones, and with our line format (`line`) or the default one.
    fn lines_with(text: bool, line: bool) -> String {
        let subscribe = |writer| {
            let builder = tracing_subscriber::fmt()
                .with_writer(writer)
                .with_ansi(false)
                .with_max_level(tracing::Level::TRACE)
                .without_time();
            let ours = TextLine {
                without_time: true,
                ..TextLine::default()
            };
            match (text, line) {
                (true, true) => {
                    Dispatch::new(builder.fmt_fields(TextFields).event_format(ours).finish())
                }
                (true, false) => Dispatch::new(builder.fmt_fields(TextFields).finish()),
                (false, true) => Dispatch::new(
                    builder
                        .fmt_fields(DefaultFields::new())
                        .event_format(ours)
                        .finish(),
                ),
                (false, false) => Dispatch::new(builder.fmt_fields(DefaultFields::new()).finish()),
            }
        };
        logged(subscribe, log_some).0
    }

    #[test]
    fn text_fields_write_what_default_fields_write() {
        let expected = lines(false);
        // Ten events, seven of them at INFO or WARN (the message and
        // error of the fourth write their line breaks as they are, in both).
        assert_eq!(
            expected.matches(" INFO ").count() + expected.matches(" WARN ").count(),
            7,
            "{expected}"
        );
        assert!(expected.contains(r#"quoted="say \"hi\"""#), "{expected}");
        assert!(expected.contains("plain=\"abc-123_x/y\""), "{expected}");
        assert_eq!(lines(true), expected);
    }

    /// The JSON lines of [`log_some`]: by tracing-subscriber's JSON format
    /// or (`ours`) by [`JsonLine`](super::JsonLine).
    fn json_lines(ours: bool) -> String {
        let subscribe = |writer| {
            let builder = tracing_subscriber::fmt()
                .with_writer(writer)
                .with_max_level(tracing::Level::TRACE)
                .json()
                .without_time();
            if ours {
                let line = super::JsonLine { without_time: true };
                Dispatch::new(builder.event_format(line).finish())
            } else {
                Dispatch::new(builder.finish())
            }
        };
        logged(subscribe, log_some).0
    }

    #[test]
    fn json_line_writes_what_the_json_format_writes() {
        let expected = json_lines(false);
        for needle in [
            "\"quoted\":\"say \\\"hi\\\"\"",
            "\"escape\":\"\\u001b[31mred\"",
            "\"unicode\":\"caf\u{e9} \u{2026}\"",
            "\"later\":\"twice\"",
            "\"error\":\"disk \\\"full\\\"\\n\"",
            "\"debug\":\"[\\\"a\\\", \\\"b\\\"]\"",
            "\"ratio\":0.25",
            "{\"level\":\"WARN\",\"fields\":{\"message\":\"from the log crate\",\"log.target\":\"some::crate\"",
            "\"target\":\"some::crate\"}\n",
            "{\"level\":\"TRACE\",\"fields\":{\"message\":\"the lowest level\"},\
             \"target\":\"bgref_service::telemetry::text_fields_tests\"}\n",
            "{\"n\":1,\"name\":\"with\"}]}\n",
        ] {
            assert!(expected.contains(needle), "{needle:?} in {expected}");
        }
        assert_eq!(json_lines(true), expected);
    }

    #[test]
    fn text_line_writes_what_the_default_format_writes() {
        let expected = lines_with(false, false);
        for needle in [
            " WARN some::crate: from the log crate\n",
            "ERROR request{",
            ":inner: elsewhere: nested, another target\n",
            ":inner:with{n=1}: bgref_service::telemetry::text_fields_tests: three deep\n",
            "TRACE bgref_service::telemetry::text_fields_tests: the lowest level\n",
        ] {
            assert!(expected.contains(needle), "{needle:?} in {expected}");
        }
        assert_eq!(lines_with(false, true), expected);
        assert_eq!(lines_with(true, true), expected);
    }

    /// The time as the default format writes it: the same up to the second
    /// (the two clocks are read a moment apart), then six digits and `Z`.
    #[test]
    fn the_timestamp_is_the_default_formats() {
        use tracing_subscriber::fmt::format::Writer;
        use tracing_subscriber::fmt::time::{FormatTime as _, SystemTime};
        for _ in 0..5 {
            let (mut ours, mut theirs) = (String::new(), String::new());
            SystemTime
                .format_time(&mut Writer::new(&mut theirs))
                .unwrap();
            super::write_timestamp(&mut Writer::new(&mut ours)).unwrap();
            assert_eq!(ours.len(), 27, "{ours}");
            assert!(ours.ends_with('Z') && ours[20..26].bytes().all(|b| b.is_ascii_digit()));
            if ours[..20] == theirs[..20] {
                return;
            }
            // A second began between the two readings: again.
        }
        panic!("the timestamps never agreed to the second");
    }

    /// `debug_f64` writes what `Debug` writes, where it writes anything.
    #[test]
    fn floats_are_written_as_debug_writes_them() {
        let mut buffer = ryu::Buffer::new();
        let mut check = |value: f64| {
            if let Some(digits) = super::debug_f64(value, &mut buffer) {
                assert_eq!(digits, format!("{value:?}"), "{value:e}");
                true
            } else {
                false
            }
        };
        for value in [
            0.25,
            1.0,
            0.1,
            0.3,
            0.1 + 0.2,
            83.329043,
            1e-4,
            1e15,
            9.999_999_999_999_998e15,
            -2.5,
            123_456.789,
            5e-324,
            1e16,
            0.0,
            f64::NAN,
            f64::INFINITY,
        ] {
            check(value);
        }
        // Random bit patterns and latencies: millisecond values with
        // microsecond and nanosecond parts.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Ties, where the two part ways.
        for value in [1_690_060_720_831_323.2, 1e9 + 1.0 / 256.0] {
            assert!(!check(value), "{value}");
        }
        let mut decimal = 0;
        for _ in 0..200_000 {
            decimal += usize::from(check(f64::from_bits(next())));
            let nanos = next() % 10_000_000_000;
            decimal += usize::from(check(nanos as f64 / 1e6));
            decimal += usize::from(check(
                std::time::Duration::from_nanos(nanos).as_secs_f64() * 1000.0,
            ));
        }
        assert!(decimal > 300_000, "{decimal}");
    }

    /// `quotes_as_is` agrees with the plain check, byte by byte, for
    /// every length and position of every byte.
    #[test]
    fn quotes_as_is_checks_every_byte() {
        let plain = |text: &[u8]| {
            text.iter()
                .all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
        };
        let mut text = Vec::new();
        for len in 0..20 {
            text.clear();
            text.resize(len, b'a');
            assert!(super::quotes_as_is(std::str::from_utf8(&text).unwrap()));
            for at in 0..len {
                for byte in 0..0x80u8 {
                    text[at] = byte;
                    let s = std::str::from_utf8(&text).unwrap();
                    assert_eq!(super::quotes_as_is(s), plain(&text), "{s:?}");
                }
                text[at] = b'a';
            }
        }
        for s in [
            "caf\u{e9} latte, plain and long",
            "0123456789abcdef\u{2026}",
        ] {
            assert!(!super::quotes_as_is(s), "{s}");
        }
    }

    /// `debug_millionths` writes what `Debug` writes, for every whole
    /// number of millionths it takes, and takes latencies.
    #[test]
    fn millionths_are_written_as_debug_writes_them() {
        let mut out = [0; 24];
        let mut check = |value: f64| {
            let written = super::debug_millionths(value, &mut out).map(str::to_owned);
            if let Some(digits) = &written {
                assert_eq!(digits, &format!("{value:?}"), "{value:e}");
            }
            written.is_some()
        };
        for (nanos, taken) in [
            (317_182_u64, true),
            (100, true),
            (99, false),
            (1_000_000, true),
            (12_500_000, true),
            (999_999_999_999_999, true),
            (1_000_000_000_000_000, false),
        ] {
            assert_eq!(check(nanos as f64 / 1e6), taken, "{nanos}");
        }
        for value in [0.1 + 0.2, -1.5, 1.0 / 3.0, f64::NAN, f64::INFINITY, 5e-324] {
            assert!(!check(value), "{value}");
        }
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut taken = 0;
        for _ in 0..300_000 {
            // Latencies of every magnitude, and random doubles.
            let nanos = next() % 10u64.pow(1 + (next() % 15) as u32);
            taken += usize::from(check(nanos as f64 / 1e6));
            check(f64::from_bits(next()));
            check((next() % 1_000_000_000) as f64 / 1e3);
        }
        assert!(taken > 250_000, "{taken}");
        // The completion line's latency, from the nanoseconds.
        for nanos in (0..20_000).map(|_| next() % 10u64.pow(1 + (next() % 17) as u32)) {
            let latency_ms = nanos as f64 / 1e6;
            let completion = super::Completion {
                status: "OK",
                latency_ms,
                nanos,
            };
            let mut text = String::new();
            let written =
                completion.write_text(&mut tracing_subscriber::fmt::format::Writer::new(&mut text));
            assert_eq!(written.is_some(), check(latency_ms), "{nanos}");
            if written.is_some() {
                assert_eq!(
                    text,
                    format!("request completed status=\"OK\" latency_ms={latency_ms:?}")
                );
            }
        }
    }

    #[test]
    fn second_prefixes_follow_the_calendar() {
        for (second, text) in [
            (0, "1970-01-01T00:00:00."),
            (951_782_400, "2000-02-29T00:00:00."),
            (951_868_799, "2000-02-29T23:59:59."),
            (951_868_800, "2000-03-01T00:00:00."),
            (1_796_083_200, "2026-12-01T00:00:00."),
            (4_107_542_399, "2100-02-28T23:59:59."),
            (4_107_542_400, "2100-03-01T00:00:00."),
            (253_402_300_799, "9999-12-31T23:59:59."),
        ] {
            let prefix = super::second_prefix(second).unwrap();
            assert_eq!(std::str::from_utf8(&prefix).unwrap(), text, "{second}");
        }
        assert_eq!(super::second_prefix(253_402_300_800), None);
    }
}

#[cfg(test)]
mod deferred_fields_tests {
    use std::sync::Arc;
    use std::time::Duration;

    use http::{HeaderValue, Request};
    use tracing::Dispatch;
    use tracing_subscriber::layer::SubscriberExt as _;

    use tracing_subscriber::fmt::format::JsonFields;

    use super::capture::logged;
    use super::{
        DeferRequestFields, JsonLine, Operation, Protocol, RequestFields, RequestOutcome,
        TextFields, TextLine, request_span,
    };

    /// Operations of every kind, with request spans of every field
    /// (`compact` false) or compact ones.
    fn operations(compact: bool) -> Vec<Arc<Operation>> {
        let rpc = Some(("bgref.v1.Referee".to_owned(), "LegalMoves".to_owned()));
        vec![
            Operation::new(
                Protocol::Http,
                "POST",
                Some("/legal-moves".into()),
                None,
                false,
                compact,
            ),
            Operation::new(
                Protocol::Grpc,
                "POST",
                Some("/bgref.v1.Referee/{*rest}".into()),
                rpc,
                false,
                compact,
            ),
            Operation::new(Protocol::Grpc, "POST", None, None, false, compact),
            // A probe: its span is at `debug`.
            Operation::new(
                Protocol::Http,
                "GET",
                Some("/healthz".into()),
                None,
                true,
                compact,
            ),
            Operation::new(Protocol::Http, "_OTHER", None, None, false, compact),
            // A route with something to escape: no fixed text.
            Operation::new(
                Protocol::Http,
                "POST",
                Some("/odd\"route\\x".into()),
                None,
                false,
                compact,
            ),
        ]
        .into_iter()
        .map(Arc::new)
        .collect()
    }

    /// Requests, each with an id: plain, with quotes and a backslash,
    /// not UTF-8 (logged as empty), and with a caller's trace context.
    fn requests() -> Vec<(Request<()>, HeaderValue)> {
        let request = |path: &str, traceparent: Option<&str>| {
            let mut builder = Request::builder().method("POST").uri(path);
            if let Some(tp) = traceparent {
                builder = builder.header("traceparent", tp);
            }
            builder.body(()).unwrap()
        };
        vec![
            (
                request("/legal-moves", None),
                HeaderValue::from_static("d695134e-eb9e-89ee-8000-00000000015d"),
            ),
            (
                request("/a%22b/caf%C3%A9?q=1", None),
                HeaderValue::from_static("id \"quoted\" and \\ back"),
            ),
            (
                request("/legal-moves", None),
                HeaderValue::from_bytes(b"caf\xe9").unwrap(),
            ),
            (
                request(
                    "/games/act",
                    Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
                ),
                HeaderValue::from_static("with-trace"),
            ),
        ]
    }

    /// Requests of every operation (of [`operations`]), with lines logged
    /// in them and in a handler's span, records of every kind, and their
    /// completion lines; returns how many request spans kept their fields
    /// unformatted.
    fn log_requests(compact: bool) -> usize {
        let mut deferred = 0;
        let err = std::io::Error::other("disk \"full\"");
        for (i, op) in operations(compact).into_iter().enumerate() {
            for (j, (req, id)) in requests().into_iter().enumerate() {
                let span = request_span(&req, &op, &id);
                span.with_subscriber(|(id, dispatch)| {
                    use tracing_subscriber::registry::{LookupSpan as _, SpanData as _};
                    let registry = dispatch.downcast_ref::<tracing_subscriber::Registry>();
                    if let Some(data) = registry.and_then(|r| r.span_data(id))
                        && data.extensions().get::<RequestFields>().is_some()
                    {
                        deferred += 1;
                    }
                });
                span.in_scope(|| {
                    tracing::warn!(slug = "bad", detail = "x\ny", "request refused");
                    let handler =
                        tracing::info_span!("legal_moves", match_id = tracing::field::Empty);
                    handler.in_scope(|| {
                        tracing::Span::current().record("match_id", "m-1");
                        tracing::info!(n = 3, "in the handler");
                    });
                });
                match (i + j) % 4 {
                    0 => {}
                    1 => {
                        // Each kind of value, and a record that writes nothing.
                        span.record("http.response.status_code", 7u64);
                        span.record("rpc.grpc.status_code", 2.5f64);
                        span.record("otel.status_code", true);
                        span.record("trace_id", None::<&str>);
                        tracing::info!(parent: &span, "after records");
                    }
                    2 => {
                        // An error: the fields are formatted from here on.
                        span.record(
                            "otel.status_code",
                            &err as &(dyn std::error::Error + 'static),
                        );
                        tracing::info!(parent: &span, "after an error");
                    }
                    _ => {
                        span.record("otel.status_code", "quoted \"text\"");
                    }
                }
                let outcome = match j {
                    0 => RequestOutcome::Http(http::StatusCode::OK),
                    1 => RequestOutcome::Grpc(tonic::Code::Internal),
                    2 => RequestOutcome::Http(http::StatusCode::SERVICE_UNAVAILABLE),
                    // A label made for the line (not handed to it).
                    3 if i % 2 == 1 => RequestOutcome::Http(http::StatusCode::IM_A_TEAPOT),
                    _ => RequestOutcome::Grpc(tonic::Code::Ok),
                };
                let latency = match (i + j) % 5 {
                    // Written with an exponent (`4.2e-5`), and in years.
                    3 => Duration::from_nanos(42),
                    4 => Duration::from_secs(40_000_000),
                    _ => Duration::from_nanos(317_182 * (j as u64 + 1)),
                };
                if i % 2 == 0 {
                    outcome.record(&span, false, op.probe, latency);
                } else {
                    // As the metrics layer does while it polls the request.
                    span.in_scope(|| outcome.record(&span, true, op.probe, latency));
                }
            }
        }
        deferred
    }

    /// The lines of [`log_requests`], and how many request spans were
    /// kept: by tracing-subscriber's default format and fields (`ours`
    /// false), or by [`TextLine`] and [`TextFields`] with request spans
    /// formatted when they open (`defer` false) or kept
    /// ([`DeferRequestFields`]).
    fn lines(ours: bool, defer: bool) -> (String, usize) {
        lines_of(ours, defer, false)
    }

    /// [`lines`], with compact request spans or not.
    fn lines_of(ours: bool, defer: bool, compact: bool) -> (String, usize) {
        let subscribe = |writer| {
            let registry = tracing_subscriber::registry();
            if !ours {
                let layer = tracing_subscriber::fmt::layer()
                    .with_writer(writer)
                    .with_ansi(false)
                    .without_time();
                return Dispatch::new(registry.with(layer));
            }
            let layer = tracing_subscriber::fmt::layer()
                .with_writer(writer)
                .with_ansi(false)
                .fmt_fields(TextFields)
                .event_format(TextLine {
                    without_time: true,
                    ..TextLine::default()
                });
            if defer {
                Dispatch::new(registry.with(DeferRequestFields::<_, TextFields>::new(layer)))
            } else {
                Dispatch::new(registry.with(layer))
            }
        };
        logged(subscribe, || log_requests(compact))
    }

    #[test]
    fn kept_request_fields_are_written_as_formatted_ones() {
        let (expected, none) = lines(false, false);
        assert_eq!(none, 0);
        let requests = operations(false).len() * requests().len();
        assert_eq!(expected.matches("request completed").count(), requests);
        for needle in [
            "request{otel.name=\"POST /legal-moves\" otel.kind=\"server\" protocol=\"http\" \
             request_id=\"d695134e-eb9e-89ee-8000-00000000015d\" http.request.method=\"POST\" \
             http.route=\"/legal-moves\" url.path=\"/legal-moves\" http.response.status_code=200}: \
             bgref_service::telemetry: request completed status=\"200\" latency_ms=0.317182\n",
            "rpc.system=\"grpc\" rpc.service=\"bgref.v1.Referee\" rpc.method=\"LegalMoves\"",
            r#"request_id="id \"quoted\" and \\ back""#,
            "request_id=\"\"",
            "trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
            "http.route=\"/odd\\\"route\\\\x\"",
            "http.response.status_code=7 rpc.grpc.status_code=2.5 otel.status_code=true }",
            "otel.status_code=disk \"full\"",
            "otel.status_code=\"quoted \\\"text\\\"\"",
            ":legal_moves{match_id=\"m-1\"}: bgref_service::telemetry::deferred_fields_tests: in the handler n=3\n",
            "DEBUG request{otel.name=\"GET /healthz\"",
            "status=\"418\"",
            "latency_ms=4.2e-5\n",
            "latency_ms=40000000000.0\n",
        ] {
            assert!(expected.contains(needle), "{needle:?} in {expected}");
        }
        assert_eq!(lines(true, false), (expected.clone(), 0));
        let (kept, deferred) = lines(true, true);
        assert_eq!(deferred, requests);
        assert_eq!(kept, expected);
    }

    /// Compact request spans (text lines, no export): what a reader can
    /// tell from the other fields is left out, in tracing-subscriber's
    /// lines as in ours, kept or formatted.
    #[test]
    fn compact_request_spans_leave_out_what_the_other_fields_tell() {
        let (expected, none) = lines_of(false, false, true);
        assert_eq!(none, 0);
        let requests = operations(true).len() * requests().len();
        assert_eq!(expected.matches("request completed").count(), requests);
        for needle in [
            // A route's path, a served gRPC method's path and method.
            "request{protocol=\"http\" request_id=\"d695134e-eb9e-89ee-8000-00000000015d\" \
             http.request.method=\"POST\" http.route=\"/legal-moves\" \
             http.response.status_code=200}: bgref_service::telemetry: \
             request completed status=\"200\" latency_ms=0.317182\n",
            " WARN request{protocol=\"grpc\" request_id=\"d695134e-eb9e-89ee-8000-00000000015d\" \
             rpc.service=\"bgref.v1.Referee\" rpc.method=\"LegalMoves\"}: \
             bgref_service::telemetry::deferred_fields_tests: request refused",
            "request{protocol=\"grpc\" request_id=\"with-trace\" rpc.service=\"bgref.v1.Referee\" \
             rpc.method=\"LegalMoves\" trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
            // A path that is not the route's, and an unknown gRPC method's.
            "http.route=\"/legal-moves\" url.path=\"/a%22b/caf%C3%A9\"",
            "request{protocol=\"grpc\" request_id=\"with-trace\" url.path=\"/games/act\" \
             trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
            // Methods other than a gRPC call's `POST`.
            "http.request.method=\"GET\" http.route=\"/healthz\" url.path=\"/legal-moves\"",
            "http.request.method=\"_OTHER\" url.path=\"/legal-moves\"",
            r#"request_id="id \"quoted\" and \\ back""#,
            "http.route=\"/odd\\\"route\\\\x\"",
            "otel.status_code=disk \"full\"",
        ] {
            assert!(expected.contains(needle), "{needle:?} in {expected}");
        }
        for gone in [
            "otel.name=",
            "otel.kind=",
            "rpc.system=",
            "url.path=\"/bgref",
        ] {
            assert!(!expected.contains(gone), "{gone:?} in {expected}");
        }
        assert_eq!(lines_of(true, false, true), (expected.clone(), 0));
        let (kept, deferred) = lines_of(true, true, true);
        assert_eq!(deferred, requests);
        assert_eq!(kept, expected);
        // Shorter than every field's lines, with the same lines and ids.
        let (full, _) = lines(false, false);
        assert_eq!(full.lines().count(), expected.lines().count());
        assert!(expected.len() < full.len());
    }

    /// The JSON lines of [`log_requests`]: by tracing-subscriber's JSON
    /// format (`ours` false), or by [`JsonLine`] with request spans kept
    /// ([`DeferRequestFields`]); and how many were kept. With `time`, the
    /// lines have their timestamps.
    fn json_lines(ours: bool, time: bool) -> (String, usize) {
        json_lines_of(ours, time, false)
    }

    /// [`json_lines`], with compact request spans or not.
    fn json_lines_of(ours: bool, time: bool, compact: bool) -> (String, usize) {
        let subscribe = |writer| {
            let registry = tracing_subscriber::registry();
            if ours {
                let layer = tracing_subscriber::fmt::layer()
                    .with_writer(writer)
                    .with_ansi(false)
                    .fmt_fields(JsonFields::new())
                    .event_format(JsonLine {
                        without_time: !time,
                    });
                Dispatch::new(registry.with(DeferRequestFields::<_, JsonFields>::new(layer)))
            } else if time {
                let layer = tracing_subscriber::fmt::layer().json().with_writer(writer);
                Dispatch::new(registry.with(layer))
            } else {
                let layer = tracing_subscriber::fmt::layer()
                    .json()
                    .without_time()
                    .with_writer(writer);
                Dispatch::new(registry.with(layer))
            }
        };
        logged(subscribe, || log_requests(compact))
    }

    #[test]
    fn json_lines_are_written_as_the_json_format_writes_them() {
        let (expected, none) = json_lines(false, false);
        assert_eq!(none, 0);
        let requests = operations(false).len() * requests().len();
        assert_eq!(expected.matches("request completed").count(), requests);
        for needle in [
            "{\"level\":\"INFO\",\"fields\":{\"message\":\"request completed\",\"status\":\"200\",\
             \"latency_ms\":0.317182},\"target\":\"bgref_service::telemetry\",\"span\":{\
             \"http.request.method\":\"POST\",\"http.response.status_code\":200,\
             \"http.route\":\"/legal-moves\",\"otel.kind\":\"server\",\"otel.name\":\
             \"POST /legal-moves\",\"protocol\":\"http\",\"request_id\":\
             \"d695134e-eb9e-89ee-8000-00000000015d\",\"url.path\":\"/legal-moves\",\
             \"name\":\"request\"},\"spans\":[{\"http.request.method\":\"POST\",",
            "\"rpc.method\":\"LegalMoves\",\"rpc.service\":\"bgref.v1.Referee\",\"rpc.system\":\"grpc\"",
            r#""request_id":"id \"quoted\" and \\ back""#,
            "\"request_id\":\"\"",
            "\"trace_id\":\"4bf92f3577b34da6a3ce929d0e0e4736\"",
            "\"http.route\":\"/odd\\\"route\\\\x\"",
            "\"otel.status_code\":true,\"protocol\"",
            "\"rpc.grpc.status_code\":2.5",
            "\"otel.status_code\":\"disk \\\"full\\\"\"",
            "\"otel.status_code\":\"quoted \\\"text\\\"\"",
            "{\"match_id\":\"m-1\",\"name\":\"legal_moves\"}]}\n",
            "\"fields\":{\"message\":\"after records\"},\"target\":\
             \"bgref_service::telemetry::deferred_fields_tests\",\"span\":{",
            "\"name\":\"request\"},\"spans\":[]}\n",
            "{\"level\":\"DEBUG\",\"fields\":{\"message\":\"request completed\"",
        ] {
            assert!(expected.contains(needle), "{needle:?} in {expected}");
        }
        let (kept, deferred) = json_lines(true, false);
        assert_eq!(deferred, requests);
        assert_eq!(kept, expected);
    }

    /// Compact request spans in JSON lines: the same fields as in text
    /// lines, written as the JSON format writes them.
    #[test]
    fn compact_json_lines_are_written_as_the_json_format_writes_them() {
        let (expected, none) = json_lines_of(false, false, true);
        assert_eq!(none, 0);
        let requests = operations(true).len() * requests().len();
        assert_eq!(expected.matches("request completed").count(), requests);
        for needle in [
            "{\"level\":\"INFO\",\"fields\":{\"message\":\"request completed\",\"status\":\"200\",\
             \"latency_ms\":0.317182},\"target\":\"bgref_service::telemetry\",\"span\":{\
             \"http.request.method\":\"POST\",\"http.response.status_code\":200,\
             \"http.route\":\"/legal-moves\",\"protocol\":\"http\",\"request_id\":\
             \"d695134e-eb9e-89ee-8000-00000000015d\",\"name\":\"request\"},\"spans\":[{",
            "\"protocol\":\"grpc\",\"request_id\":\"with-trace\",\"rpc.method\":\"LegalMoves\",\
             \"rpc.service\":\"bgref.v1.Referee\",\"trace_id\"",
            "\"http.route\":\"/legal-moves\",\"protocol\":\"http\",\
             \"request_id\":\"id \\\"quoted\\\" and \\\\ back\",\"url.path\":\"/a%22b/caf%C3%A9\"",
        ] {
            assert!(expected.contains(needle), "{needle:?} in {expected}");
        }
        for gone in [
            "\"otel.name\"",
            "\"otel.kind\"",
            "\"rpc.system\"",
            "\"url.path\":\"/bgref",
        ] {
            assert!(!expected.contains(gone), "{gone:?} in {expected}");
        }
        let (kept, deferred) = json_lines_of(true, false, true);
        assert_eq!(deferred, requests);
        assert_eq!(kept, expected);
    }

    /// With timestamps: the same lines but for the time, which is written
    /// as the JSON format writes it.
    #[test]
    fn json_lines_have_the_json_formats_timestamps() {
        let untimed = |lines: &str| {
            lines
                .lines()
                .map(|line| {
                    let rest = line
                        .strip_prefix("{\"timestamp\":\"")
                        .unwrap_or_else(|| panic!("{line}"));
                    let (time, rest) = rest.split_at(27);
                    assert!(time.ends_with('Z') && time.as_bytes()[10] == b'T', "{line}");
                    assert!(rest.starts_with("\",\"level\":"), "{line}");
                    format!("{{{}", &rest[2..])
                })
                .collect::<Vec<_>>()
        };
        let (expected, _) = json_lines(false, true);
        let (ours, _) = json_lines(true, true);
        assert_eq!(untimed(&ours), untimed(&expected));
        assert_eq!(untimed(&ours).join("\n") + "\n", json_lines(false, false).0);
    }
}

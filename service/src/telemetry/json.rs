//! The JSON log line (`--log-format json`), byte for byte as
//! tracing-subscriber's JSON format (`fmt::layer().json()`) writes it:
//! `timestamp`, `level`, the event's `fields` in the order they were
//! given, `target`, then, in a span, the `span` (the event's parent, else
//! the current span) and the `spans` entered, from the root, each an
//! object of its fields in name order and its `name`. Strings are escaped
//! as serde_json escapes them, numbers written as it writes them.
//!
//! Cheaper than tracing-subscriber's: the pieces are written in place
//! instead of through serde_json's serializer and an `io::Write` adapter
//! that checks each piece is UTF-8, and a request span's fields, kept
//! unformatted by [`DeferRequestFields`](super::DeferRequestFields)
//! ([`RequestFields`]), are written from what the request holds instead of
//! being formatted into a JSON object when the span opens, parsed back
//! and written again at each record, and parsed back again for each of
//! `span` and `spans` in each line. Every other span's fields are kept by
//! `JsonFields` as usual and written as tracing-subscriber writes them.

use std::fmt::{self, Write as _};

use serde::ser::{SerializeMap as _, Serializer as _};
use tracing::field::{Field, FieldSet, Visit};
use tracing_log::NormalizeEvent as _;
use tracing_subscriber::fmt::format::{JsonFields, Writer};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormattedFields};
use tracing_subscriber::registry::{LookupSpan, SpanRef};

use super::{
    COMPLETION_MESSAGE, Completion, DeferredFormat, HEX, Operation, Recorded, RequestFields,
    write_timestamp,
};

/// The JSON log line (see the module doc).
#[derive(Debug, Default)]
pub struct JsonLine {
    /// No `timestamp` (tests compare lines).
    pub(super) without_time: bool,
}

impl<S> FormatEvent<S, JsonFields> for JsonLine
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, JsonFields>,
        mut writer: Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> fmt::Result {
        // Records of the `log` crate carry their own target and level.
        let normalized = event.normalized_metadata();
        let meta = normalized.as_ref().unwrap_or_else(|| event.metadata());
        writer.write_char('{')?;
        if !self.without_time {
            writer.write_str("\"timestamp\":\"")?;
            write_timestamp(&mut writer)?;
            writer.write_str("\",")?;
        }
        writer.write_str(match *meta.level() {
            tracing::Level::TRACE => "\"level\":\"TRACE\",\"fields\":{",
            tracing::Level::DEBUG => "\"level\":\"DEBUG\",\"fields\":{",
            tracing::Level::INFO => "\"level\":\"INFO\",\"fields\":{",
            tracing::Level::WARN => "\"level\":\"WARN\",\"fields\":{",
            tracing::Level::ERROR => "\"level\":\"ERROR\",\"fields\":{",
        })?;
        if let Some(completion) = Completion::of(event) {
            // The completion line's fields, as `EventFields` writes them.
            // The message has nothing to escape.
            writer.write_str("\"message\":\"")?;
            writer.write_str(COMPLETION_MESSAGE)?;
            writer.write_str("\",\"status\":")?;
            write_string(&mut writer, completion.status)?;
            writer.write_str(",\"latency_ms\":")?;
            write_f64(&mut writer, completion.latency_ms)?;
        } else {
            let mut fields = EventFields {
                writer: writer.by_ref(),
                first: true,
                result: Ok(()),
            };
            event.record(&mut fields);
            fields.result?;
        }
        writer.write_str("},\"target\":")?;
        write_string(&mut writer, meta.target())?;
        // As tracing-subscriber has them: `span` is the event's parent (or
        // the current span), `spans` the spans entered on this thread.
        let span = event
            .parent()
            .and_then(|id| ctx.span(id))
            .or_else(|| ctx.lookup_current());
        if let Some(span) = span {
            // The span's object is written once: usually `spans` holds the
            // same span, alone.
            let mut object = String::with_capacity(OBJECT_CAPACITY);
            write_span(&span, &mut object)?;
            writer.write_str(",\"span\":")?;
            writer.write_str(&object)?;
            writer.write_str(",\"spans\":[")?;
            if let Some(leaf) = ctx.lookup_current() {
                let mut other = String::new();
                for (i, entered) in leaf.scope().from_root().enumerate() {
                    if i > 0 {
                        writer.write_char(',')?;
                    }
                    if entered.id() == span.id() {
                        writer.write_str(&object)?;
                    } else {
                        other.clear();
                        write_span(&entered, &mut other)?;
                        writer.write_str(&other)?;
                    }
                }
            }
            writer.write_char(']')?;
        }
        writer.write_str("}\n")
    }
}

/// Room for a request span's object, with a long path.
const OBJECT_CAPACITY: usize = 512;

/// A span's object: its fields, then its `name`.
fn write_span<S>(span: &SpanRef<'_, S>, out: &mut String) -> fmt::Result
where
    S: for<'a> LookupSpan<'a>,
{
    let name = span.metadata().name();
    let extensions = span.extensions();
    if let Some(fields) = extensions.get::<FormattedFields<JsonFields>>() {
        write_formatted_span(fields, name, out)
    } else if let Some(fields) = extensions.get::<RequestFields>() {
        fields.write_json(span.metadata().fields(), Some(name), out)
    } else {
        // No fields kept at all (tracing-subscriber would panic): the name.
        out.push_str("{\"name\":");
        write_string(out, name)?;
        out.push('}');
        Ok(())
    }
}

/// A span's object from the fields `JsonFields` kept, exactly as
/// tracing-subscriber writes it: the object parsed, its entries written
/// by serde_json (a float read back may differ in its last digit from the
/// one written), then the name.
fn write_formatted_span(data: &str, name: &str, out: &mut String) -> fmt::Result {
    let mut bytes = Vec::with_capacity(data.len() + name.len() + 16);
    let mut serializer = serde_json::Serializer::new(&mut bytes);
    let written = (|| {
        let mut map = serializer.serialize_map(None)?;
        match serde_json::from_str::<serde_json::Value>(data) {
            Ok(serde_json::Value::Object(fields)) => {
                for (key, value) in &fields {
                    map.serialize_entry(key, value)?;
                }
            }
            // Not what `JsonFields` writes; as tracing-subscriber reports it
            // (in release builds).
            Ok(value) => {
                map.serialize_entry("field", &value)?;
                map.serialize_entry("field_error", "field was no a valid object")?;
            }
            Err(err) => map.serialize_entry("field_error", &err.to_string())?,
        }
        map.serialize_entry("name", name)?;
        map.end()
    })();
    written.map_err(|_| fmt::Error)?;
    out.push_str(std::str::from_utf8(&bytes).map_err(|_| fmt::Error)?);
    Ok(())
}

/// A value of a request span's field, as `JsonFields` keeps it.
#[derive(Debug, Clone, Copy)]
enum JsonValue<'a> {
    Str(&'a str),
    /// JSON text, written as it is ([`fixed_values`]).
    Raw(&'a str),
    I64(i64),
    U64(u64),
    Bool(bool),
    /// Only in the text format ([`DeferredFormat::KEEPS_FLOATS`]).
    F64(f64),
}

impl JsonValue<'_> {
    /// The value as `JsonFields` writes it.
    fn write(self, out: &mut String) -> fmt::Result {
        match self {
            JsonValue::Str(text) => write_string(out, text)?,
            JsonValue::Raw(text) => out.push_str(text),
            JsonValue::I64(n) => out.push_str(itoa::Buffer::new().format(n)),
            JsonValue::U64(n) => out.push_str(itoa::Buffer::new().format(n)),
            JsonValue::Bool(b) => out.push_str(if b { "true" } else { "false" }),
            JsonValue::F64(x) => write_f64(out, x)?,
        }
        Ok(())
    }
}

/// Most fields a span can have (tracing's limit for one callsite).
const MAX_FIELDS: usize = 32;

/// A span's fields by name, in name order, the last value of each (as
/// `JsonFields` keeps them, in a `BTreeMap`).
struct SortedFields<'a> {
    entries: [(&'a str, JsonValue<'a>); MAX_FIELDS],
    len: usize,
}

impl<'a> SortedFields<'a> {
    fn new() -> SortedFields<'a> {
        SortedFields {
            entries: [("", JsonValue::Bool(false)); MAX_FIELDS],
            len: 0,
        }
    }

    /// Sets `name` to `value`; `Err` past [`MAX_FIELDS`] names (a span
    /// cannot have them).
    fn set(&mut self, name: &'a str, value: JsonValue<'a>) -> fmt::Result {
        match self.entries[..self.len].binary_search_by(|(key, _)| key.cmp(&name)) {
            Ok(at) => self.entries[at].1 = value,
            Err(at) => {
                if self.len == MAX_FIELDS {
                    return Err(fmt::Error);
                }
                self.entries.copy_within(at..self.len, at + 1);
                self.entries[at] = (name, value);
                self.len += 1;
            }
        }
        Ok(())
    }

    /// The object, with `name` last if given.
    fn write(&self, name: Option<&str>, out: &mut String) -> fmt::Result {
        out.push('{');
        for (i, (key, value)) in self.entries[..self.len].iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_string(out, key)?;
            out.push(':');
            value.write(out)?;
        }
        if let Some(name) = name {
            if self.len > 0 {
                out.push(',');
            }
            out.push_str("\"name\":");
            write_string(out, name)?;
        }
        out.push('}');
        Ok(())
    }
}

/// How many fields [`RequestFields`] holds from when its span opened
/// (`Operation::span_values`).
pub(super) const GIVEN: usize = 10;

/// The fields of [`Operation::span_values`] that each request gives.
const PER_REQUEST: [&str; 2] = ["request_id", "url.path"];

/// [`Operation`]'s fixed request span fields as JSON strings, written
/// once per operation instead of escaped at every line.
pub(super) fn fixed_values(operation: &Operation) -> [Option<Box<str>>; GIVEN] {
    operation.span_values("", None).map(|(name, value)| {
        let value = value.filter(|_| !PER_REQUEST.contains(&name))?;
        let mut text = String::new();
        write_string(&mut text, value).ok()?;
        Some(text.into_boxed_str())
    })
}

/// Where a request span's fields go in its JSON object, worked out once
/// per callsite (the span's level makes two) instead of at every line:
/// each given field's index in the span's field set, and the fields in
/// name order with their keys written out. Only for a field set whose
/// names are written as they are and are all different (the request
/// span's): `JsonFields` leaves `log.` names out and cuts a raw
/// identifier's `r#`.
#[derive(Debug)]
struct Layout {
    /// The field index of each given field, in `span_values`' order.
    given: [Option<usize>; GIVEN],
    /// Each field's index, and its key: `"name":`.
    order: Vec<(usize, Box<str>)>,
}

impl Layout {
    /// The layout of `set`, given `names` (the given fields' names);
    /// `None` when the set does not qualify.
    fn of(set: &FieldSet, names: [&str; GIVEN]) -> Option<Layout> {
        let mut fields: Vec<Field> = set.iter().collect();
        if fields.len() > MAX_FIELDS
            || fields
                .iter()
                .any(|f| f.name().starts_with("log.") || f.name().starts_with("r#"))
        {
            return None;
        }
        fields.sort_by(|a, b| a.name().cmp(b.name()));
        if fields.windows(2).any(|w| w[0].name() == w[1].name()) {
            return None;
        }
        let mut order = Vec::with_capacity(fields.len());
        for field in &fields {
            let mut key = String::new();
            write_string(&mut key, field.name()).ok()?;
            key.push(':');
            order.push((field.index(), key.into_boxed_str()));
        }
        Some(Layout {
            given: names.map(|name| set.field(name).map(|f| f.index())),
            order,
        })
    }
}

/// Most callsites whose [`Layout`] a thread keeps (two are used).
const MAX_LAYOUTS: usize = 8;

thread_local! {
    /// The layouts worked out on this thread, by callsite (`None`: the
    /// callsite does not qualify).
    static LAYOUTS: std::cell::RefCell<Vec<(tracing::callsite::Identifier, Option<Layout>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl RequestFields {
    /// The span's fields as `JsonFields` keeps them (those given when it
    /// opened, then each record's, a later value replacing an earlier
    /// one), in name order, and `name` last if given: the span's object in
    /// a line, or (without a name) what `JsonFields` would have kept.
    pub(super) fn write_json(
        &self,
        set: &FieldSet,
        name: Option<&str>,
        out: &mut String,
    ) -> fmt::Result {
        let names = || self.operation.span_values("", None).map(|(name, _)| name);
        // A request span's set has fields; an empty one has nothing to lay out.
        let Some(callsite) = set.iter().next().map(|field| field.callsite()) else {
            return self.write_json_sorted(set, name, out);
        };
        let written = LAYOUTS.with(|layouts| {
            if let Ok(layouts) = layouts.try_borrow()
                && let Some((_, layout)) = layouts.iter().find(|(id, _)| *id == callsite)
            {
                return layout
                    .as_ref()
                    .map(|layout| self.write_json_laid_out(layout, name, out));
            }
            let layout = Layout::of(set, names());
            let written = layout
                .as_ref()
                .map(|layout| self.write_json_laid_out(layout, name, out));
            if let Ok(mut layouts) = layouts.try_borrow_mut()
                && layouts.len() < MAX_LAYOUTS
            {
                layouts.push((callsite, layout));
            }
            written
        });
        match written {
            Some(Some(result)) => result,
            // Not laid out, or a record of another callsite's field.
            _ => self.write_json_sorted(set, name, out),
        }
    }

    /// [`RequestFields::write_json`] by `layout`: `None` (nothing written)
    /// for a record of a field not in the layout's set.
    fn write_json_laid_out(
        &self,
        layout: &Layout,
        name: Option<&str>,
        out: &mut String,
    ) -> Option<fmt::Result> {
        let request_id = self.request_id.to_str().unwrap_or_default();
        let mut values: [Option<JsonValue<'_>>; MAX_FIELDS] = [None; MAX_FIELDS];
        let given = self.operation.span_values(request_id, self.url_path());
        let fixed = &self.operation.span_json;
        for (((_, value), index), fixed) in given.into_iter().zip(layout.given).zip(fixed) {
            if let (Some(value), Some(index)) = (value, index) {
                values[index] = Some(match fixed {
                    Some(json) => JsonValue::Raw(json),
                    None => JsonValue::Str(value),
                });
            }
        }
        for recorded in &self.recorded {
            let (field, value) = match recorded {
                Recorded::Start => continue,
                Recorded::I64(field, n) => (field, JsonValue::I64(*n)),
                Recorded::U64(field, n) => (field, JsonValue::U64(*n)),
                Recorded::Bool(field, b) => (field, JsonValue::Bool(*b)),
                Recorded::F64(field, x) => (field, JsonValue::F64(*x)),
                Recorded::Str(field, text) => (field, JsonValue::Str(text)),
                Recorded::Debug(field, text) => (field, JsonValue::Str(text)),
            };
            if !layout.order.iter().any(|(i, _)| *i == field.index()) {
                return None;
            }
            *values.get_mut(field.index())? = Some(value);
        }
        let mut write = || {
            out.push('{');
            let mut first = true;
            for (index, key) in &layout.order {
                if let Some(value) = values[*index] {
                    if !std::mem::take(&mut first) {
                        out.push(',');
                    }
                    out.push_str(key);
                    value.write(out)?;
                }
            }
            if let Some(name) = name {
                if !first {
                    out.push(',');
                }
                out.push_str("\"name\":");
                write_string(out, name)?;
            }
            out.push('}');
            Ok(())
        };
        Some(write())
    }

    /// [`RequestFields::write_json`] for any field set: the fields sorted
    /// by name for each line.
    fn write_json_sorted(
        &self,
        set: &FieldSet,
        name: Option<&str>,
        out: &mut String,
    ) -> fmt::Result {
        let request_id = self.request_id.to_str().unwrap_or_default();
        let mut fields = SortedFields::new();
        for (key, value) in self.operation.span_values(request_id, self.url_path()) {
            if let (Some(value), Some(field)) = (value, set.field(key)) {
                fields.set(field.name(), JsonValue::Str(value))?;
            }
        }
        for recorded in &self.recorded {
            match recorded {
                Recorded::Start => {}
                Recorded::I64(field, n) => fields.set(field.name(), JsonValue::I64(*n))?,
                Recorded::U64(field, n) => fields.set(field.name(), JsonValue::U64(*n))?,
                Recorded::Bool(field, b) => fields.set(field.name(), JsonValue::Bool(*b))?,
                Recorded::F64(field, x) => fields.set(field.name(), JsonValue::F64(*x))?,
                Recorded::Str(field, text) => fields.set(field.name(), JsonValue::Str(text))?,
                // `JsonFields` leaves `log` metadata out, and writes a raw
                // identifier's name without its `r#`, for `Debug` values.
                Recorded::Debug(field, text) => {
                    let name = field.name();
                    if !name.starts_with("log.") {
                        let name = name.strip_prefix("r#").unwrap_or(name);
                        fields.set(name, JsonValue::Str(text))?;
                    }
                }
            }
        }
        fields.write(name, out)
    }
}

impl DeferredFormat for JsonFields {
    /// `JsonFields` parses its object back at each record, and serde_json
    /// (without `float_roundtrip`) may read a float one step off and then
    /// write other digits: a float is not kept.
    const KEEPS_FLOATS: bool = false;

    fn formatted(fields: &RequestFields, set: &FieldSet) -> FormattedFields<JsonFields> {
        let mut text = String::new();
        // Writing into a `String` does not fail.
        let _ = fields.write_json(set, None, &mut text);
        FormattedFields::new(text)
    }
}

/// The event's fields as tracing-serde's map visitor hands them to
/// serde_json: `"name":value` in the order given. It takes the same values
/// as that visitor (the rest, errors included, come as `Debug` values, by
/// `Visit`'s own defaults).
struct EventFields<'writer> {
    writer: Writer<'writer>,
    first: bool,
    result: fmt::Result,
}

impl EventFields<'_> {
    /// `"name":` (after a comma unless first), then `value`.
    fn entry(&mut self, field: &Field, value: impl FnOnce(&mut Writer<'_>) -> fmt::Result) {
        if self.result.is_err() {
            return;
        }
        self.result = (|| {
            if !std::mem::take(&mut self.first) {
                self.writer.write_char(',')?;
            }
            write_string(&mut self.writer, field.name())?;
            self.writer.write_char(':')?;
            value(&mut self.writer)
        })();
    }
}

impl Visit for EventFields<'_> {
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.entry(field, |w| w.write_str(if value { "true" } else { "false" }));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.entry(field, |w| {
            w.write_char('"')?;
            write!(Escaping(w), "{value:?}")?;
            w.write_char('"')
        });
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.entry(field, |w| w.write_str(itoa::Buffer::new().format(value)));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.entry(field, |w| w.write_str(itoa::Buffer::new().format(value)));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.entry(field, |w| write_f64(w, value));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.entry(field, |w| write_string(w, value));
    }
}

/// A float as serde_json writes it: by `zmij` (the formatter serde_json
/// uses), `null` for infinities and NaN.
fn write_f64<W: fmt::Write + ?Sized>(writer: &mut W, value: f64) -> fmt::Result {
    if value.is_finite() {
        writer.write_str(zmij::Buffer::new().format_finite(value))
    } else {
        writer.write_str("null")
    }
}

/// A JSON string, escaped as serde_json escapes it.
fn write_string<W: fmt::Write + ?Sized>(writer: &mut W, text: &str) -> fmt::Result {
    writer.write_char('"')?;
    if nothing_to_escape(text) {
        writer.write_str(text)?;
    } else {
        write_escaped(writer, text)?;
    }
    writer.write_char('"')
}

/// Whether serde_json escapes `byte`: control characters, `"` and `\`
/// (not DEL, not non-ASCII).
fn escaped(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Whether no byte of `text` is [`escaped`]; eight bytes at a time (a
/// request id, a path and a dozen names per line).
fn nothing_to_escape(text: &str) -> bool {
    use super::words::{ONES, any_below};
    super::words::all(
        text,
        |word| {
            !any_below(word, 0x20)
                && !any_below(word ^ (ONES * u64::from(b'"')), 1)
                && !any_below(word ^ (ONES * u64::from(b'\\')), 1)
        },
        |b| !escaped(b),
    )
}

/// `text` as serde_json writes it between quotes: `\"`, `\\`, `\b`, `\t`,
/// `\n`, `\f`, `\r`, other control characters as `\u00xx` (lower-case),
/// everything else as it is.
fn write_escaped<W: fmt::Write + ?Sized>(writer: &mut W, text: &str) -> fmt::Result {
    let bytes = text.as_bytes();
    let mut start = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        if !escaped(byte) {
            continue;
        }
        // Cut at an ASCII byte: both sides are whole characters.
        writer.write_str(text.get(start..at).ok_or(fmt::Error)?)?;
        start = at + 1;
        match byte {
            b'"' => writer.write_str("\\\"")?,
            b'\\' => writer.write_str("\\\\")?,
            0x08 => writer.write_str("\\b")?,
            b'\t' => writer.write_str("\\t")?,
            b'\n' => writer.write_str("\\n")?,
            0x0c => writer.write_str("\\f")?,
            b'\r' => writer.write_str("\\r")?,
            _ => {
                writer.write_str("\\u00")?;
                writer.write_char(char::from(HEX[usize::from(byte >> 4)]))?;
                writer.write_char(char::from(HEX[usize::from(byte & 0xf)]))?;
            }
        }
    }
    writer.write_str(text.get(start..).ok_or(fmt::Error)?)
}

/// Escapes what is written through it ([`write_escaped`]), piece by piece
/// (the escapes depend on single bytes, so the pieces' boundaries do not
/// matter).
struct Escaping<'a, 'w>(&'a mut Writer<'w>);

impl fmt::Write for Escaping<'_, '_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        write_escaped(self.0, text)
    }
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::fmt::format::Writer;

    /// `write_escaped` escapes as serde_json does, every ASCII byte alone
    /// and among others, and non-ASCII text.
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut texts: Vec<String> = (0..0x80u8).map(|b| char::from(b).to_string()).collect();
        texts.extend((0..0x80u8).map(|b| format!("a{}b\u{e9}", char::from(b))));
        texts.extend(
            [
                "",
                "plain",
                "caf\u{e9} \u{2026} \u{1f600}",
                "\u{7f}\u{80}\u{9f}\u{a0}\u{2028}\u{2029}\u{feff}",
                "\"quoted\" \\ back\\slash\r\n\t\u{1b}[31m",
            ]
            .map(str::to_owned),
        );
        for text in texts {
            let mut ours = String::new();
            super::write_string(&mut Writer::new(&mut ours), &text).unwrap();
            assert_eq!(ours, serde_json::to_string(&text).unwrap(), "{text:?}");
        }
    }

    /// `nothing_to_escape` agrees with the plain check for every byte at
    /// every position of every length.
    #[test]
    fn nothing_to_escape_checks_every_byte() {
        let mut text = Vec::new();
        for len in 0..20 {
            for at in 0..len {
                for byte in 0..0x80u8 {
                    text.clear();
                    text.resize(len, b'a');
                    text[at] = byte;
                    let s = std::str::from_utf8(&text).unwrap();
                    let plain = !text.iter().any(|&b| super::escaped(b));
                    assert_eq!(super::nothing_to_escape(s), plain, "{s:?}");
                    // Beside non-ASCII text.
                    let wide = format!("\u{e9}{s}\u{2026}\u{1f600}");
                    assert_eq!(super::nothing_to_escape(&wide), plain, "{wide:?}");
                }
            }
        }
    }

    /// `write_f64` writes what serde_json writes.
    #[test]
    fn floats_are_written_as_serde_json_writes_them() {
        for value in [
            0.0,
            -0.0,
            0.317182,
            3.0,
            1e15,
            1e16,
            1e21,
            1e-7,
            5e-324,
            f64::MAX,
            0.1 + 0.2,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let mut ours = String::new();
            super::write_f64(&mut Writer::new(&mut ours), value).unwrap();
            assert_eq!(ours, serde_json::to_string(&value).unwrap(), "{value:e}");
        }
    }
}

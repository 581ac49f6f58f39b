//! `ApiJson` and `TranscriptJson`: the JSON body extractors whose every
//! failure is a problem document naming the field (via
//! serde_path_to_error), and a too-large body a 413 naming the limit and
//! the option that sets it.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ErrorKind};

/// The request body limits in force, in bytes: what the server layers
/// put in each request's extensions (a router served without them, as in
/// tests, has the defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyLimits {
    /// Every body but a transcript's (`BGREF_MAX_BODY_BYTES`).
    pub body: usize,
    /// The bodies of `/games/verify` and `/games/export`
    /// (`BGREF_MAX_TRANSCRIPT_BYTES`).
    pub transcript: usize,
}

impl Default for BodyLimits {
    fn default() -> Self {
        crate::config::Config::defaults().body_limits()
    }
}

impl BodyLimits {
    /// The limits of `req` (the defaults when no layer gave them).
    fn of(req: &Request) -> BodyLimits {
        req.extensions()
            .get::<BodyLimits>()
            .copied()
            .unwrap_or_default()
    }
}

/// The 413 of a body over `limit` bytes, which `option` sets.
pub fn too_large(limit: usize, option: &str) -> ApiError {
    ApiError::new(
        ErrorKind::TooLarge,
        "payload-too-large",
        format!(
            "the request body is larger than the limit of {limit} bytes ({}; the server's \
             {option} sets it)",
            human_bytes(limit)
        ),
    )
}

/// `bytes` in KiB or MiB when it is a whole number of them.
fn human_bytes(bytes: usize) -> String {
    const KIB: usize = 1024;
    if bytes >= KIB * KIB && bytes.is_multiple_of(KIB * KIB) {
        format!("{} MiB", bytes / (KIB * KIB))
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} B")
    }
}

/// A body sent in a content coding other than gzip (`content-encoding:
/// br`, ...) is refused with 415 before it is read: reading compressed
/// bytes as JSON would only say "not valid JSON". (A gzipped body is
/// decoded before it gets here: [`crate::layers`].)
fn check_encoding(req: &Request) -> Result<(), ApiError> {
    let codings = req.headers().get_all(header::CONTENT_ENCODING);
    let named: Vec<&str> = codings
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("?").split(','))
        .map(str::trim)
        .filter(|c| !c.is_empty() && !c.eq_ignore_ascii_case("identity"))
        .collect();
    if named.is_empty() {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorKind::UnsupportedMediaType,
        "unsupported-media-type",
        format!(
            "the body is sent with content-encoding {}, which bgref does not decode: send the \
             JSON body as it is, or gzipped with content-encoding gzip",
            crate::error::log_safe(&named.join(", "))
        ),
    ))
}

/// A JSON request body. Any content type is accepted (curl's default
/// included); the body must be one JSON value of the expected shape.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        check_encoding(&req)?;
        let limit = BodyLimits::of(&req).body;
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                too_large(limit, "BGREF_MAX_BODY_BYTES")
            } else {
                ApiError::invalid_request("malformed-json", rejection.body_text())
            }
        })?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// A transcript's JSON body (`/games/verify`, `/games/export`): as
/// [`ApiJson`], under the transcript limit (`BGREF_MAX_TRANSCRIPT_BYTES`)
/// instead of the global one.
#[derive(Debug, Clone, Copy, Default)]
pub struct TranscriptJson<T>(pub T);

impl<S, T> FromRequest<S> for TranscriptJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, ApiError> {
        check_encoding(&req)?;
        let limit = BodyLimits::of(&req).transcript;
        let bytes = axum::body::to_bytes(req.into_body(), limit)
            .await
            .map_err(|err| {
                let over =
                    std::iter::successors(Some(&err as &(dyn std::error::Error + 'static)), |e| {
                        e.source()
                    })
                    .any(|e| e.is::<http_body_util::LengthLimitError>());
                if over {
                    too_large(limit, "BGREF_MAX_TRANSCRIPT_BYTES")
                } else {
                    ApiError::invalid_request(
                        "malformed-json",
                        format!("failed to read the request body: {err}"),
                    )
                }
            })?;
        parse_json(&bytes).map(TranscriptJson)
    }
}

/// Parses a JSON body into `T`, naming the field of any error.
///
/// A body that parses is read by serde_json alone: tracking the path of
/// every value (serde_path_to_error) cost a valid request a few thousand
/// instructions for nothing. Only a failed body is read again, with the
/// path tracked, to say which field is wrong; the parse is deterministic,
/// so the second reading fails where the first did.
///
/// A body that is UTF-8 (every valid one) is checked as such once and
/// parsed as text: from bytes, serde_json checks each string it reads
/// again, about 70 instructions a string under callgrind, five strings
/// an action of a transcript (bench/README.md, "Sixth round"). Any other
/// body is parsed from its bytes as before, so its errors are the same.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
    .map_err(|err| explain_failure::<T>(bytes, &err))
}

/// The problem of a body `T` could not be parsed from (`err`, the error
/// of the first reading): the same error, located by serde_path_to_error.
#[cold]
fn explain_failure<T: DeserializeOwned>(bytes: &[u8], err: &serde_json::Error) -> ApiError {
    let malformed = |e: &dyn std::fmt::Display| {
        ApiError::invalid_request("malformed-json", format!("the body is not valid JSON: {e}"))
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Err(err) => {
            let path = err.path().to_string();
            let inner = err.into_inner();
            if inner.is_syntax() || inner.is_eof() {
                malformed(&inner)
            } else {
                let message = inner.to_string();
                // serde_json appends the place in the text: the field says
                // it better.
                let message = message
                    .rfind(" at line ")
                    .map_or(message.as_str(), |at| &message[..at]);
                in_api_words(&path, message, "invalid-request")
            }
        }
        // The value parsed: what failed is the end (trailing characters).
        Ok(_) => match de.end() {
            Err(end) => malformed(&end),
            // Cannot happen (the same bytes failed a moment ago): the
            // first error, without a field, rather than a panic.
            Ok(()) if err.is_data() => ApiError::invalid_request("invalid-request", err),
            Ok(()) => malformed(err),
        },
    }
}

/// The problem of a query string axum's `Query` could not read: as a
/// body's (`invalid-query` instead of `invalid-request`), the parameter
/// named in `field`.
#[cold]
pub fn query_problem(rejection: &axum::extract::rejection::QueryRejection) -> ApiError {
    let text = rejection.body_text();
    let text = text
        .strip_prefix("Failed to deserialize query string: ")
        .unwrap_or(&text);
    // axum tracks the path: `name: message`, or the message alone.
    match text.split_once(": ") {
        Some((path, message))
            if !path.is_empty() && !path.contains(' ') && !message.starts_with('`') =>
        {
            in_api_words(path, message, "invalid-query")
        }
        _ => in_api_words(".", text, "invalid-query"),
    }
}

/// The problem of a value of the wrong shape at `path` (serde_path_to_error's
/// path, `.` for the whole request): serde's `message` said in the API's
/// words, naming the field and what to send there; `slug` for all but a
/// missing field.
#[cold]
fn in_api_words(path: &str, message: &str, slug: &'static str) -> ApiError {
    let at = |name: &str| match path {
        "." => name.to_owned(),
        _ => format!("{path}.{name}"),
    };
    let whole = |field: &str| match field {
        "." if slug == "invalid-query" => "the query".to_owned(),
        "." => "the body".to_owned(),
        f => format!("`{f}`"),
    };
    if let Some(name) = quoted_after(message, "missing field ") {
        let field = at(name);
        let detail = format!("`{field}` is required: send it");
        return ApiError::invalid("missing-field", field, detail);
    }
    // serde_path_to_error's path of an unknown field ends with its name.
    if let Some(name) = quoted_after(message, "unknown field ") {
        let known = message
            .split_once(", expected ")
            .map_or_else(Vec::new, |(_, e)| backquoted(e));
        let noun = match slug {
            "invalid-query" => "parameter",
            _ => "field",
        };
        let detail = if known.is_empty() {
            format!("`{name}` is not a {noun} here: send none")
        } else {
            format!(
                "`{name}` is not a {noun} here: send only {}",
                known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return with_field(slug, path, detail);
    }
    let what = whole(path);
    if let Some(rest) = message.strip_prefix("unknown variant ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        let detail = format!(
            "{what} must be {}; got {}",
            api_expected(expected),
            got.replace('`', "\"")
        );
        return with_field(slug, path, detail);
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((got, expected)) = rest.split_once(", expected ")
        {
            let detail = format!(
                "{what} must be {}; got {}",
                api_expected(expected),
                api_unexpected(got)
            );
            return with_field(slug, path, detail);
        }
    }
    if let Some(rest) = message.strip_prefix("invalid length ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        let detail = format!(
            "{what} must be {}; got {got} values",
            api_expected(expected)
        );
        return with_field(slug, path, detail);
    }
    if let Some(name) = message.strip_prefix("data did not match any variant of untagged enum ") {
        let detail = format!("{what} is none of the forms a {name} takes (see its schema)");
        return with_field(slug, path, detail);
    }
    // A message of our own (a notation's parser, a bound): already in the
    // API's words.
    with_field(slug, path, message)
}

/// A `slug` problem at `path`, with no field for the whole request.
fn with_field(slug: &'static str, path: &str, detail: impl std::fmt::Display) -> ApiError {
    match path {
        "." => ApiError::invalid_request(slug, detail),
        _ => ApiError::invalid(slug, path, detail),
    }
}

/// The name in backquotes that follows `prefix` at the start of `message`.
fn quoted_after<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    message
        .strip_prefix(prefix)?
        .strip_prefix('`')?
        .split('`')
        .next()
}

/// The names serde quotes in backquotes (`` `x` or `o` ``).
fn backquoted(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// serde's "expected" (`` `x` or `o` ``, `one of ...`, `u8`, `a
/// sequence`, `struct Cube`) in the API's words.
fn api_expected(expected: &str) -> String {
    let names = backquoted(expected);
    if !names.is_empty() {
        let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        return match quoted.as_slice() {
            [one] => one.clone(),
            [a, b] => format!("{a} or {b}"),
            [init @ .., last] => format!("one of {} or {last}", init.join(", ")),
            [] => unreachable!("names is not empty"),
        };
    }
    let bounds = |max: u64| format!("a whole number from 0 to {max}");
    match expected {
        "u8" => bounds(u8::MAX.into()),
        "u16" => bounds(u16::MAX.into()),
        "u32" => bounds(u32::MAX.into()),
        "u64" | "usize" => bounds(u64::MAX),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".to_owned(),
        "f32" | "f64" => "a number".to_owned(),
        "a boolean" => "true or false".to_owned(),
        "a string" | "a borrowed string" | "a character" => "a string".to_owned(),
        "a sequence" => "an array".to_owned(),
        "a map" => "an object".to_owned(),
        e if e.starts_with("struct ") || e.starts_with("internally tagged enum") => {
            "an object".to_owned()
        }
        e => {
            if let Some(n) = e
                .strip_prefix("an array of length ")
                .or_else(|| e.strip_prefix("a tuple of size "))
                .or_else(|| e.strip_prefix("tuple of size "))
            {
                format!("an array of {n} values")
            } else {
                e.to_owned()
            }
        }
    }
}

/// serde's "unexpected" (`string "a"`, `integer `300``, `sequence`) in
/// the API's words.
fn api_unexpected(got: &str) -> String {
    let value = |s: &str| s.trim_matches('`').to_owned();
    if let Some(s) = got.strip_prefix("string ") {
        format!("the string {s}")
    } else if let Some(n) = got
        .strip_prefix("integer ")
        .or_else(|| got.strip_prefix("floating point "))
        .or_else(|| got.strip_prefix("boolean "))
    {
        value(n)
    } else {
        match got {
            "sequence" => "an array".to_owned(),
            "map" => "an object".to_owned(),
            "unit value" | "null" => "null".to_owned(),
            other => other.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::parse_json;
    use crate::http::types::dice::RollRequest;
    use crate::http::types::games::{ActRequest, VerifyGameRequest};

    fn refusal<T: serde::de::DeserializeOwned>(
        body: serde_json::Value,
    ) -> (&'static str, Option<String>, String) {
        let err = parse_json::<T>(body.to_string().as_bytes())
            .err()
            .expect("refused");
        (err.slug, err.field, err.detail)
    }

    #[test]
    fn a_missing_field_is_named() {
        let (slug, field, detail) =
            refusal::<RollRequest>(json!({"match_id": "m", "client_seed": "c", "game": 1}));
        assert_eq!((slug, field.as_deref()), ("missing-field", Some("turn")));
        assert_eq!(detail, "`turn` is required: send it");
        // Inside an object: the whole path.
        let (slug, field, _) = refusal::<VerifyGameRequest>(json!({
            "start": {"client_seed": "c"},
            "actions": [{"player": "x", "action": "roll"}],
        }));
        assert_eq!(
            (slug, field.as_deref()),
            ("missing-field", Some("start.match_id"))
        );
    }

    #[test]
    fn wrong_values_are_said_in_the_api_words() {
        let cases = [
            (
                json!({"state": "s", "player": "X", "action": "roll"}),
                "player",
                "`player` must be \"x\" or \"o\"; got \"X\"",
            ),
            (
                json!({"state": "s", "player": "x", "action": "roll", "match_id": 5}),
                "match_id",
                "`match_id` must be a string; got 5",
            ),
            (
                json!({"state": "s", "player": "x", "action": "roll", "extra": 1}),
                "extra",
                "`extra` is not a field here",
            ),
        ];
        for (body, expected_field, expected) in cases {
            let (slug, field, detail) = refusal::<ActRequest>(body.clone());
            assert_eq!(slug, "invalid-request", "{body}");
            assert_eq!(field.as_deref(), Some(expected_field), "{body}");
            assert!(detail.starts_with(expected), "{body}: {detail}");
        }
        let (slug, field, detail) = refusal::<RollRequest>(
            json!({"match_id": "m", "client_seed": "c", "game": "one", "turn": 1}),
        );
        assert_eq!((slug, field.as_deref()), ("invalid-request", Some("game")));
        assert!(
            !detail.contains("i64") && !detail.contains("u32"),
            "{detail}"
        );
        assert!(detail.contains("whole number"), "{detail}");
        // A body that is not an object: no field, the body named.
        let (slug, field, detail) = refusal::<RollRequest>(json!(["m", "c", 1, 1]));
        assert_eq!((slug, field), ("invalid-request", None));
        assert_eq!(detail, "the body must be an object; got an array");
        // Not JSON at all stays malformed-json.
        let err = parse_json::<RollRequest>(b"{\"match_id\": ").unwrap_err();
        assert_eq!(err.slug, "malformed-json");
    }
}

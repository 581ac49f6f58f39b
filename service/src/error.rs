//! One error type for every operation, classified once; `http/error.rs` and
//! `grpc/error.rs` are the only places that turn it into a transport status.

use std::borrow::Cow;
use std::fmt;

use bgref_core::IllegalPlay;
use bgref_core::notation::move_text::{IllegalMoveText, ParseMoveTextError};

/// What kind of failure, independent of the transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is malformed or names an impossible value (HTTP 400 /
    /// 422, gRPC INVALID_ARGUMENT).
    InvalidInput,
    /// Well-formed, but the rules refuse it (HTTP 422, gRPC FAILED_PRECONDITION).
    IllegalMove,
    /// The body is larger than the configured limit (HTTP 413).
    TooLarge,
    /// The body is in an encoding the server does not read, e.g.
    /// `content-encoding: gzip` (HTTP 415).
    UnsupportedMediaType,
    /// Credentials are missing or wrong (HTTP 401, gRPC UNAUTHENTICATED).
    Unauthenticated,
    /// The operation is disabled by configuration (HTTP 403, gRPC PERMISSION_DENIED).
    Forbidden,
    /// No such route, or no such match in the ledger (HTTP 404, gRPC NOT_FOUND).
    NotFound,
    /// The state token is not the head of its match (HTTP 409, gRPC ABORTED).
    Conflict,
    /// The match exists already (HTTP 409, gRPC ALREADY_EXISTS).
    AlreadyExists,
    /// The server is overloaded or shutting down (HTTP 503, gRPC UNAVAILABLE).
    Unavailable,
    /// A bug: never the caller's fault (HTTP 500, gRPC INTERNAL).
    Internal,
}

/// An error with a stable slug (the problem `type`), a sentence saying
/// exactly what is wrong, and the JSON path of the field at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The classification.
    pub kind: ErrorKind,
    /// Stable machine-readable slug, e.g. `invalid-position`.
    pub slug: &'static str,
    /// What is wrong, for a human.
    pub detail: String,
    /// JSON path of the offending field (`position.board.points[3]`), if any.
    pub field: Option<String>,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for ApiError {}

impl ApiError {
    /// Malformed input in `field`.
    pub fn invalid(
        slug: &'static str,
        field: impl Into<String>,
        detail: impl fmt::Display,
    ) -> ApiError {
        ApiError {
            kind: ErrorKind::InvalidInput,
            slug,
            detail: detail.to_string(),
            field: Some(field.into()),
        }
    }

    /// Malformed input not tied to one field.
    pub fn invalid_request(slug: &'static str, detail: impl fmt::Display) -> ApiError {
        ApiError {
            kind: ErrorKind::InvalidInput,
            slug,
            detail: detail.to_string(),
            field: None,
        }
    }

    /// A request the rules refuse.
    pub fn illegal(slug: &'static str, field: Option<&str>, detail: impl fmt::Display) -> ApiError {
        ApiError {
            kind: ErrorKind::IllegalMove,
            slug,
            detail: detail.to_string(),
            field: field.map(str::to_owned),
        }
    }

    /// Any other kind.
    pub fn new(kind: ErrorKind, slug: &'static str, detail: impl fmt::Display) -> ApiError {
        ApiError {
            kind,
            slug,
            detail: detail.to_string(),
            field: None,
        }
    }

    /// This error of the part of a request at `parent` (a transcript's
    /// `start`): its field named by the whole path, or `parent` itself.
    #[must_use]
    pub fn within(mut self, parent: &str) -> ApiError {
        self.field = Some(match self.field.take() {
            Some(field) => format!("{parent}.{field}"),
            None => parent.to_owned(),
        });
        self
    }

    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Client mistakes are `warn`, faults `error`.
    pub fn tracing_level(&self) -> tracing::Level {
        match self.kind {
            ErrorKind::Internal => tracing::Level::ERROR,
            _ => tracing::Level::WARN,
        }
    }

    /// Records the error on the current span and logs it at its level.
    ///
    /// The detail and the field may quote the request: they are escaped
    /// and cut ([`log_safe`]).
    pub fn log(&self) {
        let detail = log_safe(&self.detail);
        let field = self.field.as_deref().map(log_safe);
        match self.tracing_level() {
            tracing::Level::ERROR => {
                tracing::error!(slug = self.slug, detail = %detail, "request failed")
            }
            _ => {
                tracing::warn!(slug = self.slug, detail = %detail, field = field.as_deref(), "request refused")
            }
        }
    }
}

/// A conversion that cannot fail (`From` seen as `TryFrom`).
impl From<std::convert::Infallible> for ApiError {
    fn from(never: std::convert::Infallible) -> ApiError {
        match never {}
    }
}

impl From<IllegalMoveText> for ApiError {
    fn from(err: IllegalMoveText) -> ApiError {
        match err {
            IllegalMoveText::Ambiguous => ApiError::illegal("ambiguous-play", Some("play"), err),
            IllegalMoveText::Illegal(reason) => reason.into(),
        }
    }
}

impl From<IllegalPlay> for ApiError {
    fn from(err: IllegalPlay) -> ApiError {
        match err {
            IllegalPlay::GameOver => ApiError::illegal("game-over", None, err),
            _ => ApiError::illegal("illegal-play", Some("play"), err),
        }
    }
}

impl From<bgref_core::tables::TablesIllegalPlay> for ApiError {
    fn from(err: bgref_core::tables::TablesIllegalPlay) -> ApiError {
        match err {
            bgref_core::tables::TablesIllegalPlay::GameOver => {
                ApiError::illegal("game-over", None, err)
            }
            _ => ApiError::illegal("illegal-play", Some("play"), err),
        }
    }
}

impl From<bgref_core::IllegalVariantPlay> for ApiError {
    fn from(err: bgref_core::IllegalVariantPlay) -> ApiError {
        match err {
            bgref_core::IllegalVariantPlay::Board(reason) => reason.into(),
            bgref_core::IllegalVariantPlay::Ambiguous => IllegalMoveText::Ambiguous.into(),
            bgref_core::IllegalVariantPlay::Tables(reason) => reason.into(),
        }
    }
}

impl From<ParseMoveTextError> for ApiError {
    fn from(err: ParseMoveTextError) -> ApiError {
        ApiError::invalid("invalid-play", "play", err)
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

/// Whether `value` is printable ASCII (`0x20` to `0x7e`), eight bytes at a
/// time: it then has no control character, one byte per character.
fn printable_ascii(value: &str) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const TOPS: u64 = ONES * 0x80;
    // Whether a byte of `word` is below `n` (at most 0x80; exact as a
    // whole, for any bytes: a borrow only runs on past such a byte).
    let any_below = |word: u64, n: u64| word.wrapping_sub(ONES * n) & !word & TOPS != 0;
    let mut words = value.as_bytes().chunks_exact(8);
    for chunk in &mut words {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        if word & TOPS != 0 || any_below(word, 0x20) || any_below(word ^ (ONES * 0x7f), 1) {
            return false;
        }
    }
    words.remainder().iter().all(|b| (0x20..0x7f).contains(b))
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

//! The request's time limit, panics, and the checks before the handler,
//! each answered with a problem document (gRPC: a status): tower-http's
//! `CatchPanicLayer` inside, and one `from_fn` ([`problems`]) that keeps
//! the time limit and says what happened.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};

use crate::error::{ApiError, ErrorKind};

/// The checks and answers around the handler:
///
/// - a query string that is not UTF-8 once percent-decoded is refused
///   ([`decodes_to_utf8`]), and so is a gRPC path asked without a gRPC
///   content type (415, not a gRPC decoding error);
/// - a panic in the handler is a 500 (and an `error` log line:
///   [`panic_response`], called by `CatchPanicLayer`);
/// - a request still running after `BGREF_REQUEST_TIMEOUT` (or a gRPC
///   call's own `grpc-timeout`, if shorter) is dropped, its work with it
///   ([`timed_out`]);
/// - a client that went away in the middle of its body gets a 499
///   ([`client_closed_response`]);
/// - a 413 closes the HTTP/1 connection ([`close_after_refused_body`]).
pub(crate) async fn problems(
    State(request_timeout): State<Duration>,
    req: Request,
    next: Next,
) -> Response {
    if let Some(query) = req.uri().query()
        && !decodes_to_utf8(query)
    {
        return ApiError::invalid_request(
            "invalid-query",
            "the query string is not UTF-8 once percent-decoded",
        )
        .into_response();
    }
    let grpc = crate::protocol::is_grpc(req.headers());
    if !grpc && is_grpc_path(req.uri().path()) {
        return ApiError::new(
            ErrorKind::UnsupportedMediaType,
            "unsupported-media-type",
            "this path is a gRPC method: it takes application/grpc, \
             application/grpc-web or application/grpc-web-text",
        )
        .into_response();
    }
    let http1 = req.version() <= http::Version::HTTP_11;
    let client_deadline = grpc.then(|| grpc_timeout(req.headers())).flatten();
    let limit = client_deadline.map_or(request_timeout, |d| d.min(request_timeout));
    let client_limits = client_deadline.is_some_and(|d| d < request_timeout);
    let deadline = tokio::time::Instant::now() + limit;
    // A body with nothing to send (a GET) has arrived, whether or not the
    // handler reads it.
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
    let answer = tokio::time::timeout_at(deadline, next.run(req)).await;
    let response = if body.client_closed.load(Ordering::Relaxed) {
        client_closed_response(grpc)
    } else {
        match answer {
            // An answer made after the client's deadline is not sent: the
            // client has given up on it.
            Ok(response) if !(client_limits && tokio::time::Instant::now() >= deadline) => response,
            _ => timed_out(grpc, client_limits, body.received.load(Ordering::Relaxed)),
        }
    };
    close_after_refused_body(response, http1)
}

/// Whether `path` is one of the gRPC services' (no HTTP route starts so).
fn is_grpc_path(path: &str) -> bool {
    path.starts_with("/bgref.v1.") || path.starts_with("/grpc.")
}

/// A gRPC call's `grpc-timeout` header (1 to 8 digits and a unit: `H`,
/// `M`, `S`, `m`, `u`, `n`), if valid.
fn grpc_timeout(headers: &http::HeaderMap) -> Option<Duration> {
    let value = headers.get("grpc-timeout")?.to_str().ok()?;
    let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n * 3600),
        "M" => Duration::from_secs(n * 60),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// The 500 of a handler that panicked, logged with the panic's message.
pub(crate) fn panic_response(panic: Box<dyn std::any::Any + Send>) -> Response {
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

/// The answer to a request dropped at its time limit. gRPC: the client's
/// deadline passed, or the message did not arrive in time,
/// `DEADLINE_EXCEEDED`; the server's limit, `UNAVAILABLE`. HTTP: 408 when
/// the body had not arrived (`received`: the client's fault, and the
/// connection is closed), 503 otherwise.
fn timed_out(grpc: bool, client_limits: bool, received: bool) -> Response {
    if grpc {
        let status = if client_limits {
            tonic::Status::deadline_exceeded("the call's deadline (grpc-timeout) passed")
        } else if !received {
            tracing::warn!(slug = "request-timeout", "request refused");
            tonic::Status::deadline_exceeded(
                "the request message did not arrive within the server's time limit \
                 (BGREF_REQUEST_TIMEOUT)",
            )
        } else {
            tonic::Status::unavailable(
                "the call took longer than the server's time limit (BGREF_REQUEST_TIMEOUT)",
            )
        };
        return status.into_http();
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
/// `invalid-query`, by [`problems`]) instead of being read with U+FFFD
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
mod tests {
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

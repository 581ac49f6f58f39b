//! gRPC responses with a bounded life, and client faults reported as such.
//!
//! - A gRPC response body (a reflection or health Watch stream, say) that
//!   is still open after `BGREF_STREAM_TIMEOUT` ends with
//!   `DEADLINE_EXCEEDED`; once the server stops accepting (shutdown), one
//!   that is waiting for its next message ends at once with `UNAVAILABLE`,
//!   so an open stream does not hold the exit for the whole grace period.
//! - A request message that is not valid protobuf is the client's fault:
//!   tonic says `INTERNAL`, the answer says `INVALID_ARGUMENT`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use http::{HeaderMap, HeaderValue};
use http_body::Frame;
use tokio::sync::watch;
use tokio::time::Sleep;

/// What a response stream is told when the server stops.
#[derive(Debug, Clone)]
pub struct StreamGuard {
    life: Duration,
    stop: watch::Receiver<bool>,
}

impl StreamGuard {
    /// Streams live at most `life`, and end when `stop` turns `true`.
    pub fn new(life: Duration, stop: watch::Receiver<bool>) -> StreamGuard {
        StreamGuard { life, stop }
    }

    /// The middleware: gRPC responses only.
    pub async fn layer(
        axum::extract::State(guard): axum::extract::State<StreamGuard>,
        req: axum::extract::Request,
        next: axum::middleware::Next,
    ) -> axum::response::Response {
        let grpc = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .is_some_and(|ct| ct.as_bytes().starts_with(b"application/grpc"));
        let mut response = next.run(req).await;
        if !grpc {
            return response;
        }
        fix_decode_status(response.headers_mut());
        let mut stop = guard.stop.clone();
        response.map(|inner| {
            Body::new(Guarded {
                inner,
                deadline: Box::pin(tokio::time::sleep(guard.life)),
                stop: Box::pin(async move {
                    let _ = stop.wait_for(|&s| s).await;
                }),
                done: false,
            })
        })
    }
}

/// `grpc-status: 13` for a message tonic could not decode becomes 3.
fn fix_decode_status(headers: &mut HeaderMap) {
    let undecodable = headers.get("grpc-status").is_some_and(|s| s == "13")
        && headers.get("grpc-message").is_some_and(|m| {
            let m = m.as_bytes();
            m.starts_with(b"failed to decode Protobuf message")
                || m.starts_with(b"failed%20to%20decode%20Protobuf%20message")
        });
    if undecodable {
        headers.insert("grpc-status", HeaderValue::from_static("3"));
    }
}

fn end(status: &'static str, message: &'static str) -> Frame<Bytes> {
    let mut trailers = HeaderMap::new();
    trailers.insert("grpc-status", HeaderValue::from_static(status));
    trailers.insert("grpc-message", HeaderValue::from_static(message));
    Frame::trailers(trailers)
}

struct Guarded {
    inner: Body,
    deadline: Pin<Box<Sleep>>,
    stop: Pin<Box<dyn Future<Output = ()> + Send>>,
    done: bool,
}

impl http_body::Body for Guarded {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if self.done {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(mut frame))) => {
                if let Some(trailers) = frame.trailers_mut() {
                    fix_decode_status(trailers);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(other) => Poll::Ready(other),
            Poll::Pending => {
                if self.deadline.as_mut().poll(cx).is_ready() {
                    self.done = true;
                    tracing::info!("gRPC stream ended: BGREF_STREAM_TIMEOUT reached");
                    return Poll::Ready(Some(Ok(end(
                        "4",
                        "stream%20exceeded%20the%20server%27s%20time%20limit%20(BGREF_STREAM_TIMEOUT)",
                    ))));
                }
                if self.stop.as_mut().poll(cx).is_ready() {
                    self.done = true;
                    return Poll::Ready(Some(Ok(end("14", "the%20server%20is%20shutting%20down"))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        if self.done {
            http_body::SizeHint::with_exact(0)
        } else {
            self.inner.size_hint()
        }
    }
}

//! Responses with a bounded life, and client faults reported as such.
//!
//! - A response (HTTP or unary gRPC) must be handed in full to the
//!   connection within `BGREF_RESPONSE_SEND_TIMEOUT` of its handler's
//!   answer ([`SendDeadline`]); otherwise it is dropped, freeing its
//!   memory, and counted in `bgref_responses_abandoned_total`.
//! - A gRPC response body (a reflection or health Watch stream, say) that
//!   is still open after `BGREF_STREAM_TIMEOUT` ends with
//!   `DEADLINE_EXCEEDED`; once the server stops accepting (shutdown), one
//!   that is waiting for its next message ends at once with `UNAVAILABLE`,
//!   so an open stream does not hold the exit for the whole grace period.
//! - A request message that is not valid protobuf is the client's fault:
//!   tonic says `INTERNAL`, the answer says `INVALID_ARGUMENT`.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker, ready};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::response::Response;
use http::{HeaderMap, HeaderValue};
use http_body::Frame;
use tokio::sync::{oneshot, watch};
use tokio::time::Sleep;

use crate::conn::ConnCloser;
use crate::metrics::Metrics;

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
}

impl OnAnswer for StreamGuard {
    /// gRPC responses: the status fixed and the body guarded.
    fn on_answer(self, mut response: Response) -> Response {
        fix_decode_status(response.headers_mut());
        let mut stop = self.stop;
        response.map(|inner| {
            Body::new(Guarded {
                inner,
                deadline: Box::pin(tokio::time::sleep(self.life)),
                stop: Box::pin(async move {
                    let _ = stop.wait_for(|&s| s).await;
                }),
                done: false,
            })
        })
    }
}

/// The layer: gRPC responses only (a hand-written service, not a `from_fn`
/// middleware, which costs a boxed clone of the inner service and two
/// boxed futures per request).
impl<S> tower::Layer<S> for StreamGuard {
    type Service = Hooked<S, StreamGuard>;

    fn layer(&self, inner: S) -> Hooked<S, StreamGuard> {
        Hooked {
            inner,
            hooks: self.clone(),
        }
    }
}

impl AnswerHooks for StreamGuard {
    type Hook = StreamGuard;

    fn hook(&self, req: &Request) -> Option<StreamGuard> {
        let grpc = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .is_some_and(|ct| ct.as_bytes().starts_with(b"application/grpc"));
        grpc.then(|| self.clone())
    }
}

/// What a layer of this module does to a handler's answer.
pub trait OnAnswer {
    /// The response as it goes out.
    fn on_answer(self, response: Response) -> Response;
}

pin_project_lite::pin_project! {
    /// A response future whose response goes through `hook`, if any.
    pub struct Then<F, H> {
        #[pin]
        inner: F,
        hook: Option<H>,
    }
}

impl<F, H, E> Future for Then<F, H>
where
    F: Future<Output = Result<Response, E>>,
    H: OnAnswer,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?;
        Poll::Ready(Ok(match this.hook.take() {
            Some(hook) => hook.on_answer(response),
            None => response,
        }))
    }
}

/// What a layer of this module hooks onto a request's answer.
pub trait AnswerHooks: Clone {
    /// What the answer goes through.
    type Hook: OnAnswer;

    /// The hook for `req`'s answer; `None` leaves the answer as it is.
    fn hook(&self, req: &Request) -> Option<Self::Hook>;
}

/// The service of the layers of this module ([`StreamGuard`],
/// [`SendDeadline`]): `inner`'s answer through `hooks`' hook.
#[derive(Debug, Clone)]
pub struct Hooked<S, H> {
    inner: S,
    hooks: H,
}

impl<S, H> tower::Service<Request> for Hooked<S, H>
where
    S: tower::Service<Request, Response = Response>,
    H: AnswerHooks,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Then<S::Future, H::Hook>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let hook = self.hooks.hook(&req);
        Then {
            inner: self.inner.call(req),
            hook,
        }
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

/// The largest piece of a response body handed to the connection at once.
///
/// HTTP/2 takes a body frame whole into its send buffer as soon as the
/// client's window has one byte of room, and hyper holds the next frame
/// while it waits for that room: a 1 MB answer in one frame would sit
/// there, out of reach of the deadline. Larger frames are handed on in
/// copied pieces of this size, so the rest stays here, where the deadline
/// can drop it (a piece is a copy: a slice would keep the whole answer's
/// allocation alive).
const PIECE: usize = 8 * 1024;

/// After the deadline, how long hyper has to take the body's error (and
/// reset the HTTP/2 stream) before the whole connection is closed.
const RESET_GRACE: Duration = Duration::from_secs(1);

/// gRPC methods whose responses are streams: `BGREF_STREAM_TIMEOUT` bounds
/// them ([`StreamGuard`]), not the send deadline.
const STREAMING_METHODS: [&str; 3] = [
    "/grpc.health.v1.Health/Watch",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];

/// The per-response send deadline: once a handler has answered, its body
/// must be handed in full to the connection within `limit`.
///
/// HTTP/2 flow control keeps an unsent answer inside the server without
/// ever blocking the socket, so the connection's send timeout does not see
/// a client that shuts its stream window and keeps the connection alive
/// with PINGs. Hence a watchdog task per response (over HTTP/1 only for a
/// response not handed over whole at hyper's first poll, which comes as
/// soon as the head is written): at the deadline it drops
/// what is left of the body (the memory is freed at once) and counts the
/// response as abandoned (the client's fault). hyper resets the HTTP/2
/// stream (or ends the HTTP/1 connection) when it next asks the body for a
/// frame; if it does not within a second (it waits for window the
/// client never grants), the connection is closed ([`ConnCloser`]).
///
/// What is out of reach: the last piece of a body (at most `PIECE`
/// bytes, so a whole answer of that size or less) once hyper has handed it
/// to HTTP/2's send buffer, which a client that granted a byte of window
/// and then stopped can keep there: at most one piece per stream
/// (`BGREF_MAX_STREAMS_PER_CONNECTION` x 8 KiB per connection).
#[derive(Debug, Clone)]
pub struct SendDeadline {
    limit: Duration,
    metrics: Metrics,
}

impl SendDeadline {
    /// Responses are abandoned `limit` after their handler answered.
    pub fn new(limit: Duration, metrics: Metrics) -> SendDeadline {
        SendDeadline { limit, metrics }
    }

    /// The body of a response answered just now: watched from now on
    /// (`http1`: from the first poll that leaves it unfinished).
    fn watch(&self, inner: Body, closer: Option<ConnCloser>, http1: bool) -> Body {
        let answered = tokio::time::Instant::now();
        if http1 {
            // hyper asks an HTTP/1 body for its first frame as soon as
            // the head is written, and a body handed over whole then has
            // nothing left to drop: no watchdog unless some remains.
            return Body::new(Deadlined::Unwatched(Box::new(Unwatched {
                inner,
                rest: Bytes::new(),
                answered,
                deadline: self.clone(),
                closer,
            })));
        }
        let shared = Arc::new(Mutex::new(Pending {
            inner: Some(inner),
            rest: Bytes::new(),
            waker: None,
        }));
        Body::new(self.watchdog(shared, answered, closer, tracing::Span::current()))
    }

    /// Spawns the watchdog of `shared`, a body answered at `answered`; it
    /// logs in `span` (the request's).
    fn watchdog(
        &self,
        shared: Arc<Mutex<Pending>>,
        answered: tokio::time::Instant,
        closer: Option<ConnCloser>,
        span: tracing::Span,
    ) -> Deadlined {
        let (dropped_tx, mut dropped) = oneshot::channel::<()>();
        let watchdog = {
            let shared = shared.clone();
            let limit = self.limit;
            let metrics = self.metrics.clone();
            async move {
                tokio::select! {
                    () = tokio::time::sleep_until(answered + limit) => {}
                    _ = &mut dropped => return,
                }
                let (inner, rest, waker) = {
                    let mut pending = shared.lock().unwrap_or_else(PoisonError::into_inner);
                    let Some(inner) = pending.inner.take() else {
                        return;
                    };
                    (
                        inner,
                        std::mem::take(&mut pending.rest),
                        pending.waker.take(),
                    )
                };
                // Freed here, whatever hyper does next.
                drop((inner, rest));
                metrics.response_abandoned();
                span.in_scope(|| {
                    tracing::warn!(
                        slug = "client-stalled",
                        limit_secs = limit.as_secs_f64(),
                        "response abandoned: the client did not read it within \
                         BGREF_RESPONSE_SEND_TIMEOUT"
                    );
                });
                if let Some(waker) = waker {
                    waker.wake();
                }
                tokio::select! {
                    () = tokio::time::sleep(RESET_GRACE) => {
                        if let Some(closer) = closer {
                            closer.close();
                        }
                    }
                    _ = dropped => {}
                }
            }
        };
        // Not `instrument(span)`: that enters the span at each poll and
        // when the task is dropped, and the watchdog only logs in it once,
        // if ever.
        tokio::spawn(watchdog);
        Deadlined::Watched {
            shared,
            _dropped: dropped_tx,
        }
    }
}

/// The layer: every response but those of streaming gRPC methods (a
/// hand-written service, not a `from_fn` middleware).
impl<S> tower::Layer<S> for SendDeadline {
    type Service = Hooked<S, SendDeadline>;

    fn layer(&self, inner: S) -> Hooked<S, SendDeadline> {
        Hooked {
            inner,
            hooks: self.clone(),
        }
    }
}

impl AnswerHooks for SendDeadline {
    type Hook = Watch;

    fn hook(&self, req: &Request) -> Option<Watch> {
        (!STREAMING_METHODS.contains(&req.uri().path())).then(|| Watch {
            deadline: self.clone(),
            closer: req.extensions().get::<ConnCloser>().cloned(),
            http1: req.version() <= http::Version::HTTP_11,
        })
    }
}

/// A response to put under [`SendDeadline`] when it is answered.
#[derive(Debug)]
pub struct Watch {
    deadline: SendDeadline,
    closer: Option<ConnCloser>,
    http1: bool,
}

impl OnAnswer for Watch {
    fn on_answer(self, response: Response) -> Response {
        response.map(|inner| self.deadline.watch(inner, self.closer, self.http1))
    }
}

/// The error a body under [`SendDeadline`] ends with once abandoned: the
/// client's fault (metrics count it as `CANCELLED` over gRPC, not
/// `INTERNAL`). Its source is HTTP/2's `CANCEL`, the reason hyper finds
/// in it to reset the stream with.
#[derive(Debug)]
pub struct ResponseAbandoned(h2::Error);

impl std::fmt::Display for ResponseAbandoned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the client did not read the response within BGREF_RESPONSE_SEND_TIMEOUT")
    }
}

impl std::error::Error for ResponseAbandoned {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl ResponseAbandoned {
    /// Whether `err` or one of its sources is a [`ResponseAbandoned`].
    pub fn is_cause_of(err: &(dyn std::error::Error + 'static)) -> bool {
        let mut source = Some(err);
        while let Some(err) = source {
            if err.is::<ResponseAbandoned>() {
                return true;
            }
            source = err.source();
        }
        false
    }
}

/// What a [`Deadlined`] body shares with its watchdog.
struct Pending {
    /// The body; `None` once abandoned.
    inner: Option<Body>,
    /// What is left of a large frame, handed on in pieces.
    rest: Bytes,
    /// The task polling the body, woken when it is abandoned.
    waker: Option<Waker>,
}

/// The next piece of `rest` (at most [`PIECE`] bytes, copied).
fn piece(rest: &mut Bytes) -> Bytes {
    let n = rest.len().min(PIECE);
    let piece = Bytes::copy_from_slice(&rest[..n]);
    // The last piece lets go of the whole allocation.
    *rest = if n == rest.len() {
        Bytes::new()
    } else {
        rest.slice(n..)
    };
    piece
}

/// The next frame of `inner`, large data frames handed on in pieces
/// (what is left waits in `rest`).
fn next_frame(
    inner: &mut Body,
    rest: &mut Bytes,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
    if !rest.is_empty() {
        return Poll::Ready(Some(Ok(Frame::data(piece(rest)))));
    }
    match http_body::Body::poll_frame(Pin::new(inner), cx) {
        Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
            Ok(data) if data.len() > PIECE => {
                *rest = data;
                Poll::Ready(Some(Ok(Frame::data(piece(rest)))))
            }
            Ok(data) => Poll::Ready(Some(Ok(Frame::data(data)))),
            Err(frame) => Poll::Ready(Some(Ok(frame))),
        },
        other => other,
    }
}

/// The size hint of `inner` with `rest` still to send.
fn size_hint(inner: &Body, rest: &Bytes) -> http_body::SizeHint {
    let hint = http_body::Body::size_hint(inner);
    let rest = rest.len() as u64;
    let mut sum = http_body::SizeHint::new();
    sum.set_lower(hint.lower().saturating_add(rest));
    if let Some(upper) = hint.upper() {
        sum.set_upper(upper.saturating_add(rest));
    }
    sum
}

/// An HTTP/1 body not watched yet ([`SendDeadline::watch`]).
struct Unwatched {
    inner: Body,
    rest: Bytes,
    answered: tokio::time::Instant,
    deadline: SendDeadline,
    closer: Option<ConnCloser>,
}

impl Unwatched {
    /// Whether all of it has been handed on.
    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && http_body::Body::is_end_stream(&self.inner)
    }
}

/// A response body under [`SendDeadline`]. Dropping it (the response
/// went out, or the client went away) ends its watchdog.
enum Deadlined {
    /// HTTP/1, until a poll leaves the body unfinished: then watched.
    Unwatched(Box<Unwatched>),
    /// Watched by a task.
    Watched {
        shared: Arc<Mutex<Pending>>,
        _dropped: oneshot::Sender<()>,
    },
    /// Between the two, only while `Deadlined`'s `poll_frame` runs.
    Moving,
}

impl http_body::Body for Deadlined {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        let body = match this {
            Deadlined::Unwatched(body) => body,
            Deadlined::Watched { shared, .. } => return poll_watched(shared, cx),
            Deadlined::Moving => return Poll::Ready(None),
        };
        let poll = next_frame(&mut body.inner, &mut body.rest, cx);
        let finished = match &poll {
            Poll::Ready(Some(Ok(_))) => body.is_end_stream(),
            Poll::Ready(_) => true,
            Poll::Pending => false,
        };
        if !finished && let Deadlined::Unwatched(body) = std::mem::replace(this, Deadlined::Moving)
        {
            // Some is left: from now on under the watchdog, the
            // deadline counted from the answer.
            let Unwatched {
                inner,
                rest,
                answered,
                deadline,
                closer,
            } = *body;
            let shared = Arc::new(Mutex::new(Pending {
                inner: Some(inner),
                rest,
                waker: Some(cx.waker().clone()),
            }));
            // This is the body's first poll (a first poll either
            // finishes it or leaves some), which `ObservedBody` makes in
            // the request span: the watchdog logs in it.
            *this = deadline.watchdog(shared, answered, closer, tracing::Span::current());
        }
        poll
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Deadlined::Unwatched(body) => body.is_end_stream(),
            Deadlined::Watched { shared, .. } => {
                let pending = shared.lock().unwrap_or_else(PoisonError::into_inner);
                pending.rest.is_empty()
                    && pending
                        .inner
                        .as_ref()
                        .is_some_and(http_body::Body::is_end_stream)
            }
            Deadlined::Moving => true,
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self {
            Deadlined::Unwatched(body) => size_hint(&body.inner, &body.rest),
            Deadlined::Watched { shared, .. } => {
                let pending = shared.lock().unwrap_or_else(PoisonError::into_inner);
                match pending.inner.as_ref() {
                    Some(inner) => size_hint(inner, &pending.rest),
                    None => http_body::SizeHint::default(),
                }
            }
            Deadlined::Moving => http_body::SizeHint::with_exact(0),
        }
    }
}

/// `Deadlined`'s `poll_frame` under the watchdog.
fn poll_watched(
    shared: &Mutex<Pending>,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
    let mut pending = shared.lock().unwrap_or_else(PoisonError::into_inner);
    if !pending
        .waker
        .as_ref()
        .is_some_and(|w| w.will_wake(cx.waker()))
    {
        pending.waker = Some(cx.waker().clone());
    }
    let Pending { inner, rest, .. } = &mut *pending;
    let Some(inner) = inner.as_mut() else {
        // hyper resets the stream with the reason it finds in the
        // error: CANCEL (the answer is no longer sent), not the
        // INTERNAL_ERROR it would otherwise assume.
        return Poll::Ready(Some(Err(axum::Error::new(ResponseAbandoned(
            h2::Error::from(h2::Reason::CANCEL),
        )))));
    };
    next_frame(inner, rest, cx)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use axum::body::{Body, Bytes};
    use http_body_util::BodyExt as _;

    use super::{ResponseAbandoned, SendDeadline};
    use crate::metrics::Metrics;

    fn abandoned(metrics: &Metrics) -> String {
        metrics
            .render()
            .lines()
            .find(|l| l.starts_with("bgref_responses_abandoned_total "))
            .unwrap_or_default()
            .to_owned()
    }

    /// Over HTTP/1 a body handed over whole at the first poll is left
    /// alone; one that is not is dropped at the deadline, counted from the
    /// answer, whichever the protocol. (Over HTTP/2 hyper drops a body as
    /// soon as it ends.)
    #[tokio::test]
    async fn what_is_not_handed_over_in_time_is_abandoned() {
        for http1 in [true, false] {
            let metrics = Metrics::new();
            let deadline = SendDeadline::new(Duration::from_millis(100), metrics.clone());

            if http1 {
                // Kept past the deadline: no watchdog drops it.
                let mut small = deadline.watch(Body::from("small"), None, http1);
                let frame = small.frame().await.unwrap().unwrap();
                assert_eq!(frame.into_data().unwrap(), "small");
                tokio::time::sleep(Duration::from_millis(300)).await;
                assert!(small.frame().await.is_none());
                assert!(abandoned(&metrics).ends_with(" 0"));
            }

            let large = Bytes::from(vec![b'x'; 3 * super::PIECE]);
            let mut body = deadline.watch(Body::from(large), None, http1);
            let first = body.frame().await.unwrap().unwrap();
            assert_eq!(first.into_data().unwrap().len(), super::PIECE);
            tokio::time::sleep(Duration::from_millis(300)).await;
            let err = body.frame().await.unwrap().unwrap_err();
            assert!(ResponseAbandoned::is_cause_of(&err), "{err}");
            assert!(abandoned(&metrics).ends_with(" 1"), "http1: {http1}");
        }
    }
}

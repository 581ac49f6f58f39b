//! Responses with a bounded life, and client faults reported as such.
//!
//! - A response (HTTP or unary gRPC) must be handed in full to the
//!   connection within `BGREF_RESPONSE_SEND_TIMEOUT` of its handler's
//!   answer ([`SendDeadline`], one timer per response body); otherwise it
//!   is dropped, freeing its memory, and counted in
//!   `bgref_responses_abandoned_total`.
//! - A gRPC streaming response (reflection, health Watch) that is
//!   still open after `BGREF_STREAM_TIMEOUT` ends with
//!   `DEADLINE_EXCEEDED`; once the server stops accepting (shutdown), one
//!   that is waiting for its next message ends at once with `UNAVAILABLE`,
//!   so an open stream does not hold the exit for the whole grace period.
//! - At most `BGREF_MAX_WATCH_STREAMS` gRPC health Watch streams are open
//!   at once ([`WatchSlots`]); one more is refused with
//!   `RESOURCE_EXHAUSTED` before the health service sees it.
//! - A request message that tonic cannot decode is the client's fault:
//!   tonic says `INTERNAL`, the answer says `INVALID_ARGUMENT`; a message
//!   over the size limit (tonic's `OUT_OF_RANGE`) is `RESOURCE_EXHAUSTED`,
//!   told with the options that set the limit.

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
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::Sleep;

use crate::metrics::Metrics;
use crate::protocol::{GRPC_MESSAGE, GRPC_STATUS};
use crate::transport::ConnCloser;

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

impl StreamGuard {
    /// gRPC streams: the status fixed and the body guarded (holding its
    /// Watch slot, if any, until it ends).
    fn on_answer(self, mut response: Response, slot: Option<WatchSlot>) -> Response<Answered> {
        fix_decode_status(response.headers_mut());
        let mut stop = self.stop;
        response.map(|inner| {
            Answered(Kind::Guarded(Guarded {
                inner,
                deadline: Box::pin(tokio::time::sleep(self.life)),
                stop: Box::pin(async move {
                    let _ = stop.wait_for(|&s| s).await;
                }),
                done: false,
                _slot: slot,
            }))
        })
    }
}

/// The gRPC health Watch method, whose streams are capped.
const WATCH: &str = "/grpc.health.v1.Health/Watch";

/// The slots of gRPC health Watch streams: at most `BGREF_MAX_WATCH_STREAMS`
/// open at once, over every connection. A Watch stream costs memory and no
/// time until `BGREF_STREAM_TIMEOUT`: without a cap, 32 000 of them held
/// 241 MB (issue 24).
#[derive(Debug, Clone)]
pub struct WatchSlots {
    slots: Arc<Semaphore>,
    metrics: Metrics,
}

impl WatchSlots {
    /// At most `max` Watch streams, counted in `metrics`
    /// (`bgref_health_watch_streams`).
    pub fn new(max: usize, metrics: Metrics) -> WatchSlots {
        WatchSlots {
            slots: Arc::new(Semaphore::new(max.max(1))),
            metrics,
        }
    }

    /// A slot, if one is free.
    fn take(&self) -> Option<WatchSlot> {
        let permit = self.slots.clone().try_acquire_owned().ok()?;
        self.metrics.watch_streams_add(1);
        Some(WatchSlot {
            _permit: permit,
            metrics: self.metrics.clone(),
        })
    }
}

/// One open Watch stream's slot: freed when its body drops.
#[derive(Debug)]
pub struct WatchSlot {
    _permit: OwnedSemaphorePermit,
    metrics: Metrics,
}

impl Drop for WatchSlot {
    fn drop(&mut self) {
        self.metrics.watch_streams_add(-1);
    }
}

/// The answer to a Watch beyond the cap: `RESOURCE_EXHAUSTED`.
fn watch_refused() -> Response {
    tracing::debug!("health Watch refused: BGREF_MAX_WATCH_STREAMS streams are open");
    tonic::Status::resource_exhausted(
        "too many health Watch streams are open (BGREF_MAX_WATCH_STREAMS); \
         retry later or use Check",
    )
    .into_http::<Body>()
}

pin_project_lite::pin_project! {
    /// A response future whose response goes through `hook`, if any; with
    /// no `inner` (a request refused without calling the service), the
    /// refusal.
    pub struct Then<F> {
        #[pin]
        inner: Option<F>,
        hook: Option<Limit>,
    }
}

impl<F, E> Future for Then<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response<Answered>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match this.inner.as_pin_mut() {
            Some(inner) => ready!(inner.poll(cx))?,
            None => watch_refused(),
        };
        Poll::Ready(Ok(match this.hook.take() {
            Some(hook) => hook.on_answer(response),
            None => response.map(|body| Answered(Kind::Plain(body))),
        }))
    }
}

/// The service of [`AnswerLimits`]: `inner`'s answer through the limit
/// of its request.
#[derive(Debug, Clone)]
pub struct Hooked<S> {
    inner: S,
    hooks: AnswerLimits,
}

impl<S> tower::Service<Request> for Hooked<S>
where
    S: tower::Service<Request, Response = Response>,
{
    type Response = Response<Answered>;
    type Error = S::Error;
    type Future = Then<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        match self.hooks.hook(&req) {
            Some(Limit::Refused) => Then {
                inner: None,
                hook: None,
            },
            hook => Then {
                inner: Some(self.inner.call(req)),
                hook,
            },
        }
    }
}

/// A response body as [`AnswerLimits`] hands it on: guarded, under the send
/// deadline, or as it was. One type for the three, not a boxed body: the
/// response is boxed once, around the layers' bodies (by axum's `Route`).
pub struct Answered(Kind);

/// What an [`Answered`] body is.
enum Kind {
    /// Left alone.
    Plain(Body),
    /// A gRPC stream ([`StreamGuard`]).
    Guarded(Guarded),
    /// Under the send deadline ([`SendDeadline`]).
    Deadlined(Deadlined),
}

impl http_body::Body for Answered {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        match &mut self.get_mut().0 {
            Kind::Plain(body) => Pin::new(body).poll_frame(cx),
            Kind::Guarded(body) => Pin::new(body).poll_frame(cx),
            Kind::Deadlined(body) => Pin::new(body).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.0 {
            Kind::Plain(body) => body.is_end_stream(),
            Kind::Guarded(body) => body.is_end_stream(),
            Kind::Deadlined(body) => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match &self.0 {
            Kind::Plain(body) => body.size_hint(),
            Kind::Guarded(body) => body.size_hint(),
            Kind::Deadlined(body) => body.size_hint(),
        }
    }
}

/// `grpc-status: 13` for a message tonic could not decode (not protobuf,
/// a frame flag that is neither 0 nor 1, gRPC-Web text that is not base64)
/// becomes 3, INVALID_ARGUMENT; tonic's `OUT_OF_RANGE` for a message over
/// the size limit becomes 8, RESOURCE_EXHAUSTED, its message naming the
/// options that set the limit. (A compressed flag without `grpc-encoding`
/// stays INTERNAL, as the gRPC compression spec requires.)
fn fix_decode_status(headers: &mut HeaderMap) {
    const UNDECODABLE: [&str; 3] = [
        "failed to decode Protobuf message",
        "protocol error: received message with invalid compression flag",
        "tonic-web: ",
    ];
    const OPTIONS: &str = " (the server's BGREF_MAX_BODY_BYTES sets it; \
                           BGREF_MAX_TRANSCRIPT_BYTES for VerifyGame and ExportGame)";
    let Some(message) = headers.get(&GRPC_MESSAGE) else {
        return;
    };
    // tonic percent-encodes the message (a space is `%20`).
    let starts = |prefix: &str| {
        let m = message.as_bytes();
        m.starts_with(prefix.as_bytes()) || m.starts_with(prefix.replace(' ', "%20").as_bytes())
    };
    let status = headers.get(&GRPC_STATUS).map(HeaderValue::as_bytes);
    if status == Some(b"13") && UNDECODABLE.into_iter().any(starts) {
        headers.insert(GRPC_STATUS, HeaderValue::from_static("3"));
    } else if status == Some(b"11") && starts("Error, decoded message length too large") {
        let mut named = message.as_bytes().to_vec();
        named.extend_from_slice(OPTIONS.as_bytes());
        if let Ok(value) = HeaderValue::from_bytes(&named) {
            headers.insert(GRPC_STATUS, HeaderValue::from_static("8"));
            headers.insert(GRPC_MESSAGE, value);
        }
    }
}

fn end(status: &'static str, message: &'static str) -> Frame<Bytes> {
    let mut trailers = HeaderMap::new();
    trailers.insert(GRPC_STATUS, HeaderValue::from_static(status));
    trailers.insert(GRPC_MESSAGE, HeaderValue::from_static(message));
    Frame::trailers(trailers)
}

struct Guarded {
    inner: Body,
    deadline: Pin<Box<Sleep>>,
    stop: Pin<Box<dyn Future<Output = ()> + Send>>,
    done: bool,
    /// A Watch stream's slot, freed with the body.
    _slot: Option<WatchSlot>,
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
    WATCH,
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];

/// The per-response send deadline: once a handler has answered, its body
/// must be handed in full to the connection within `limit`.
///
/// HTTP/2 flow control keeps an unsent answer inside the server without
/// ever blocking the socket, so the connection's send timeout does not see
/// a client that shuts its stream window and keeps the connection alive
/// with PINGs; and hyper does not poll a body while it waits for window,
/// so the body cannot time itself out. Hence every response body being
/// sent has one timer of its own, a task (over HTTP/1 only a response not
/// handed over whole at hyper's first poll, which comes as soon as the
/// head is written): at the deadline it drops what is left of the body
/// (the memory is freed at once) and counts the response as abandoned (the
/// client's fault). hyper resets the HTTP/2 stream (or ends the HTTP/1
/// connection) when it next asks the body for a frame; if it does not
/// within a second (it waits for window the client never grants), the
/// connection is closed ([`ConnCloser`]). A body that is dropped (sent, or
/// its client gone) aborts its timer.
///
/// What is out of reach: the last piece of a body (at most `PIECE`
/// bytes, so a whole answer of that size or less) once hyper has handed it
/// to HTTP/2's send buffer, which a client that granted a byte of window
/// and then stopped can keep there: at most one piece per stream
/// (`BGREF_MAX_STREAMS_PER_CONNECTION` x 8 KiB per connection).
///
/// Answers of more than `PIECE` bytes also share a budget while they wait
/// to be sent (`BGREF_MAX_PENDING_ANSWER_BYTES`, over all connections), so
/// clients that do not read cannot make the server hold more than the
/// budget, however many connections they open. An answer that would pass
/// it makes room by dropping the answers that have waited longest, the
/// slowest readers' (as if their deadline had come: freed at once,
/// counted as abandoned); only an answer larger than the whole budget is
/// refused, with a 503. An HTTP/1 answer counts from its first poll that
/// leaves some unsent (before it, it is being written out and is not
/// dropped). Only answers whose size is known when they are answered count
/// (every HTTP answer; not gRPC's, which tonic encodes when sent: those
/// are held up to the stream limit per connection and the deadline).
#[derive(Debug, Clone)]
pub struct SendDeadline {
    limit: Duration,
    metrics: Metrics,
    /// The budget of pending answers, in KiB.
    budget: Arc<Semaphore>,
    /// The budget's size, in KiB.
    budget_kib: u32,
    /// The answers holding a share of it, oldest first.
    held: Arc<Mutex<Held>>,
}

/// The answers holding a share of the budget of pending answers, by the
/// time they were answered (then by arrival): the first is the one that
/// has waited longest.
#[derive(Debug, Default)]
struct Held {
    next: u64,
    bodies: std::collections::BTreeMap<HeldKey, HeldBody>,
}

/// An answer's place in [`Held`]: when it was answered, and its number.
type HeldKey = (tokio::time::Instant, u64);

/// One answer in [`Held`]: its body (gone once sent) and the span its
/// dropping is logged in.
#[derive(Debug)]
struct HeldBody {
    shared: std::sync::Weak<Mutex<Pending>>,
    span: tracing::Span,
}

impl SendDeadline {
    /// Responses are abandoned `limit` after their handler answered;
    /// answers waiting to be sent hold at most `pending_bytes` together.
    pub fn new(limit: Duration, pending_bytes: usize, metrics: Metrics) -> SendDeadline {
        let budget_kib = u32::try_from(pending_bytes.div_ceil(1024))
            .unwrap_or(u32::MAX)
            .clamp(1, Semaphore::MAX_PERMITS as u32);
        SendDeadline {
            limit,
            metrics,
            budget: Arc::new(Semaphore::new(budget_kib as usize)),
            budget_kib,
            held: Arc::default(),
        }
    }

    /// The budget's share of an answer of `size` bytes, made by dropping
    /// the answers that have waited longest if need be: `Ok(None)` when it
    /// is too small to count, `Err` when it is larger than the whole
    /// budget.
    fn reserve(&self, size: u64) -> Result<Option<OwnedSemaphorePermit>, ()> {
        if size <= PIECE as u64 {
            return Ok(None);
        }
        let kib = u32::try_from(size.div_ceil(1024)).unwrap_or(u32::MAX);
        if kib > self.budget_kib {
            return Err(());
        }
        loop {
            if let Ok(share) = self.budget.clone().try_acquire_many_owned(kib) {
                return Ok(Some(share));
            }
            let oldest = self
                .held
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .bodies
                .pop_first();
            // Nothing left to drop: the shares are held by answers being
            // handed over (or by other requests making room right now).
            let (_, held) = oldest.ok_or(())?;
            if let Some(shared) = held.shared.upgrade() {
                self.abandon(&shared, &held.span, Abandoned::ForRoom);
            }
        }
    }

    /// The body of a response answered just now: watched from now on
    /// (`http1`: from the first poll that leaves it unfinished).
    fn watch(
        &self,
        inner: Body,
        closer: Option<ConnCloser>,
        http1: bool,
        share: Option<OwnedSemaphorePermit>,
    ) -> Deadlined {
        let answered = tokio::time::Instant::now();
        if http1 {
            // hyper asks an HTTP/1 body for its first frame as soon as
            // the head is written, and a body handed over whole then has
            // nothing left to drop: not watched unless some remains.
            return Deadlined::Unwatched(Unwatched {
                inner,
                rest: Bytes::new(),
                answered,
                deadline: self.clone(),
                closer,
                share,
            });
        }
        let shared = Arc::new(Mutex::new(Pending {
            inner: Some(inner),
            rest: Bytes::new(),
            waker: None,
            share,
        }));
        self.arm(shared, answered, closer, tracing::Span::current())
    }

    /// Starts the timer of `shared`, a body answered at `answered`; its
    /// abandonment is logged in `span` (the request's).
    fn arm(
        &self,
        shared: Arc<Mutex<Pending>>,
        answered: tokio::time::Instant,
        closer: Option<ConnCloser>,
        span: tracing::Span,
    ) -> Deadlined {
        let held = {
            let counts = shared
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .share
                .is_some();
            counts.then(|| {
                let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
                let key = (answered, held.next);
                held.next += 1;
                held.bodies.insert(
                    key,
                    HeldBody {
                        shared: Arc::downgrade(&shared),
                        span: span.clone(),
                    },
                );
                (self.held.clone(), key)
            })
        };
        let deadline = self.clone();
        let pending = shared.clone();
        let timer = tokio::spawn(async move {
            tokio::time::sleep_until(answered + deadline.limit).await;
            deadline.abandon(&pending, &span, Abandoned::Deadline);
            drop(pending);
            // Still held after the grace (a dropped body aborts this
            // task): hyper waits for window the client never grants.
            tokio::time::sleep(RESET_GRACE).await;
            if let Some(closer) = closer {
                closer.close();
            }
        });
        Deadlined::Watched {
            shared,
            _timer: Timer {
                task: timer.abort_handle(),
                held,
            },
        }
    }

    /// Drops what is left of `shared` (freed here, whatever hyper does
    /// next), counts and logs it, and wakes the task sending it.
    fn abandon(&self, shared: &Mutex<Pending>, span: &tracing::Span, why: Abandoned) {
        let (inner, rest, waker, share) = {
            let mut pending = shared.lock().unwrap_or_else(PoisonError::into_inner);
            (
                pending.inner.take(),
                std::mem::take(&mut pending.rest),
                pending.waker.take(),
                pending.share.take(),
            )
        };
        if inner.is_none() {
            return;
        }
        drop((inner, rest, share));
        self.metrics.response_abandoned();
        span.in_scope(|| match why {
            Abandoned::Deadline => tracing::warn!(
                slug = "client-stalled",
                limit_secs = self.limit.as_secs_f64(),
                "response abandoned: the client did not read it within \
                 BGREF_RESPONSE_SEND_TIMEOUT"
            ),
            Abandoned::ForRoom => tracing::warn!(
                slug = "client-stalled",
                "response abandoned: it had waited longest of the answers holding \
                 BGREF_MAX_PENDING_ANSWER_BYTES, and a new answer needed room"
            ),
        });
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// Why an answer was abandoned.
#[derive(Debug, Clone, Copy)]
enum Abandoned {
    /// Its send deadline passed.
    Deadline,
    /// It had waited longest, and a new answer needed its room in the
    /// budget of pending answers.
    ForRoom,
}

/// A body's timer, and its place among the answers holding the budget:
/// dropping it (the body went out, or its client went away) stops the one
/// and leaves the other.
#[derive(Debug)]
struct Timer {
    task: tokio::task::AbortHandle,
    held: Option<(Arc<Mutex<Held>>, HeldKey)>,
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.task.abort();
        if let Some((held, key)) = self.held.take() {
            held.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .bodies
                .remove(&key);
        }
    }
}

/// The layer of both limits on a response, with one hook per request: a
/// gRPC streaming method's response has a bounded life ([`StreamGuard`]),
/// every other response must be sent within its deadline
/// ([`SendDeadline`]), and a gRPC response's undecodable-message status is
/// fixed either way.
///
/// Only streaming responses need [`StreamGuard`]'s body: a unary gRPC
/// body never waits (its one message is ready when the handler answers,
/// so neither its time limit nor the shutdown could end it), and a message
/// tonic cannot decode ends a unary call before it answers, with the
/// status in the head. One layer, not one per limit: one future and one
/// body wrapper fewer per request.
#[derive(Debug, Clone)]
pub struct AnswerLimits {
    streams: StreamGuard,
    watches: WatchSlots,
    deadline: SendDeadline,
}

impl AnswerLimits {
    /// Streaming responses under `streams` (health Watch streams also
    /// within `watches`), the others under `deadline`.
    pub fn new(streams: StreamGuard, watches: WatchSlots, deadline: SendDeadline) -> AnswerLimits {
        AnswerLimits {
            streams,
            watches,
            deadline,
        }
    }
}

/// A hand-written service, not a `from_fn` middleware (which costs a
/// boxed clone of the inner service and two boxed futures per request).
impl<S> tower::Layer<S> for AnswerLimits {
    type Service = Hooked<S>;

    fn layer(&self, inner: S) -> Hooked<S> {
        Hooked {
            inner,
            hooks: self.clone(),
        }
    }
}

impl AnswerLimits {
    /// The limit of `req`'s answer; `None` leaves the answer as it is.
    fn hook(&self, req: &Request) -> Option<Limit> {
        let grpc = crate::protocol::is_grpc(req.headers());
        let path = req.uri().path();
        if STREAMING_METHODS.contains(&path) {
            if !grpc {
                return None;
            }
            let slot = if path == WATCH {
                match self.watches.take() {
                    Some(slot) => Some(slot),
                    None => return Some(Limit::Refused),
                }
            } else {
                None
            };
            return Some(Limit::Stream(self.streams.clone(), slot));
        }
        Some(Limit::Send {
            watch: Watch {
                deadline: self.deadline.clone(),
                closer: req.extensions().get::<ConnCloser>().cloned(),
                http1: req.version() <= http::Version::HTTP_11,
            },
            grpc,
        })
    }
}

/// What [`AnswerLimits`] does to one answer.
#[derive(Debug)]
pub enum Limit {
    /// A gRPC stream: guarded (a Watch stream with its slot).
    Stream(StreamGuard, Option<WatchSlot>),
    /// A Watch stream beyond the cap: refused, the service not called.
    Refused,
    /// Anything else: under the send deadline (`grpc`: its status fixed).
    Send { watch: Watch, grpc: bool },
}

impl Limit {
    /// The response as it goes out.
    fn on_answer(self, mut response: Response) -> Response<Answered> {
        match self {
            Limit::Stream(guard, slot) => guard.on_answer(response, slot),
            Limit::Refused => response.map(|body| Answered(Kind::Plain(body))),
            Limit::Send { watch, grpc } => {
                if grpc {
                    fix_decode_status(response.headers_mut());
                }
                watch.on_answer(response)
            }
        }
    }
}

/// A response to put under [`SendDeadline`] when it is answered.
#[derive(Debug)]
pub struct Watch {
    deadline: SendDeadline,
    closer: Option<ConnCloser>,
    http1: bool,
}

impl Watch {
    fn on_answer(self, response: Response) -> Response<Answered> {
        let size = http_body::Body::size_hint(response.body()).lower();
        let Ok(share) = self.deadline.reserve(size) else {
            tracing::warn!(
                slug = "overloaded",
                size,
                "answer refused: larger than BGREF_MAX_PENDING_ANSWER_BYTES, or no room \
                 could be made in it"
            );
            return no_room_for_answer().map(|body| Answered(Kind::Plain(body)));
        };
        response.map(|inner| {
            Answered(Kind::Deadlined(self.deadline.watch(
                inner,
                self.closer,
                self.http1,
                share,
            )))
        })
    }
}

/// The 503 of an answer refused for want of room in the budget of pending
/// answers.
fn no_room_for_answer() -> Response {
    let mut response = axum::response::IntoResponse::into_response(crate::error::ApiError::new(
        crate::error::ErrorKind::Unavailable,
        "overloaded",
        "the server cannot hold this answer while it waits to be sent: it is larger than \
         BGREF_MAX_PENDING_ANSWER_BYTES, or answers being written out hold all of it; \
         ask for less, or retry shortly",
    ));
    response
        .headers_mut()
        .insert(http::header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
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

/// What a [`Deadlined`] body shares with its timer.
#[derive(Debug)]
struct Pending {
    /// The body; `None` once abandoned.
    inner: Option<Body>,
    /// What is left of a large frame, handed on in pieces.
    rest: Bytes,
    /// The task polling the body, woken when it is abandoned.
    waker: Option<Waker>,
    /// Its share of the budget of pending answers, if it counts.
    share: Option<OwnedSemaphorePermit>,
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
    share: Option<OwnedSemaphorePermit>,
}

impl Unwatched {
    /// Whether all of it has been handed on.
    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && http_body::Body::is_end_stream(&self.inner)
    }
}

/// A response body under [`SendDeadline`]. Dropping it (the response
/// went out, or the client went away) stops its timer.
enum Deadlined {
    /// HTTP/1, until a poll leaves the body unfinished: then watched.
    /// (Not boxed: the response body is boxed as a whole, outside.)
    Unwatched(Unwatched),
    /// Under its timer.
    Watched {
        shared: Arc<Mutex<Pending>>,
        _timer: Timer,
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
            // Some is left: from now on under a timer, the deadline
            // counted from the answer.
            let Unwatched {
                inner,
                rest,
                answered,
                deadline,
                closer,
                share,
            } = body;
            let shared = Arc::new(Mutex::new(Pending {
                inner: Some(inner),
                rest,
                waker: Some(cx.waker().clone()),
                share,
            }));
            // This is the body's first poll (a first poll either
            // finishes it or leaves some), which `ObservedBody` makes in
            // the request span: the abandonment is logged in it.
            *this = deadline.arm(shared, answered, closer, tracing::Span::current());
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

/// `Deadlined`'s `poll_frame` once under its timer.
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
    use crate::transport::ConnCloser;

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
            let deadline =
                SendDeadline::new(Duration::from_millis(100), usize::MAX, metrics.clone());

            if http1 {
                // Kept past the deadline: no timer, not dropped.
                let mut small = deadline.watch(Body::from("small"), None, http1, None);
                let frame = small.frame().await.unwrap().unwrap();
                assert_eq!(frame.into_data().unwrap(), "small");
                tokio::time::sleep(Duration::from_millis(300)).await;
                assert!(small.frame().await.is_none());
                assert!(abandoned(&metrics).ends_with(" 0"));
            }

            let large = Bytes::from(vec![b'x'; 3 * super::PIECE]);
            let mut body = deadline.watch(Body::from(large), None, http1, None);
            let first = body.frame().await.unwrap().unwrap();
            assert_eq!(first.into_data().unwrap().len(), super::PIECE);
            tokio::time::sleep(Duration::from_millis(300)).await;
            let err = body.frame().await.unwrap().unwrap_err();
            assert!(ResponseAbandoned::is_cause_of(&err), "{err}");
            assert!(abandoned(&metrics).ends_with(" 1"), "http1: {http1}");
        }
    }

    /// Answers over `PIECE` bytes share the budget while held; one that
    /// would pass it drops the answers that have waited longest (freed and
    /// counted as abandoned), and only one larger than the whole budget is
    /// refused. A share is freed with its body.
    #[tokio::test]
    async fn pending_answers_share_one_budget_and_the_oldest_make_room() {
        let metrics = Metrics::new();
        let deadline = SendDeadline::new(Duration::from_secs(60), 32 * 1024, metrics.clone());
        assert!(deadline.reserve(33 * 1024).is_err());
        assert!(deadline.reserve(super::PIECE as u64).unwrap().is_none());

        // Two answers of 12 KiB held (the first answered first), 8 KiB free.
        let share = deadline.reserve(12 * 1024).unwrap();
        let mut oldest = deadline.watch(Body::from("oldest"), None, false, share);
        tokio::time::sleep(Duration::from_millis(5)).await;
        let share = deadline.reserve(12 * 1024).unwrap();
        let mut newer = deadline.watch(Body::from("newer"), None, false, share);
        assert!(abandoned(&metrics).ends_with(" 0"));

        // 12 KiB more: the oldest is dropped to make room, the newer kept.
        let third = deadline.reserve(12 * 1024).unwrap();
        assert!(third.is_some());
        assert!(
            abandoned(&metrics).ends_with(" 1"),
            "{}",
            abandoned(&metrics)
        );
        let err = oldest.frame().await.unwrap().unwrap_err();
        assert!(ResponseAbandoned::is_cause_of(&err), "{err}");
        let frame = newer.frame().await.unwrap().unwrap();
        assert_eq!(frame.into_data().unwrap(), "newer");

        // A body sent and dropped lets go of its share and its place.
        drop((oldest, newer));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(deadline.reserve(20 * 1024).unwrap().is_some());
        assert!(deadline.held.lock().unwrap().bodies.is_empty());
        assert!(abandoned(&metrics).ends_with(" 1"));
    }

    /// A body dropped before its deadline is not counted; one still held
    /// at its deadline is abandoned, and one whose holder still has not
    /// let go a second later has its connection closed.
    #[tokio::test]
    async fn a_body_held_past_its_deadline_is_abandoned_then_its_connection_closed() {
        let metrics = Metrics::new();
        let deadline = SendDeadline::new(Duration::from_millis(100), usize::MAX, metrics.clone());
        let closer = ConnCloser::default();
        let held = deadline.watch(Body::from("held"), Some(closer.clone()), false, None);
        let sent_closer = ConnCloser::default();
        let sent = deadline.watch(Body::from("sent"), Some(sent_closer.clone()), false, None);
        drop(sent);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            abandoned(&metrics).ends_with(" 1"),
            "{}",
            abandoned(&metrics)
        );
        // `held` is never polled again: its connection is closed.
        tokio::time::timeout(2 * super::RESET_GRACE, closer.closed())
            .await
            .expect("the connection of a body held past the grace was not closed");
        drop(held);
        assert!(abandoned(&metrics).ends_with(" 1"));
        // The dropped body's connection was left alone.
        assert!(
            tokio::time::timeout(Duration::from_millis(10), sent_closer.closed())
                .await
                .is_err()
        );
    }
}

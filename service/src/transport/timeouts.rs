//! The socket timeouts: a connection where no byte has moved either way
//! for `BGREF_IDLE_TIMEOUT`, or whose write has been stuck for
//! `BGREF_SEND_TIMEOUT` (a client that does not read), or on which no
//! complete request head has arrived within `BGREF_FIRST_REQUEST_TIMEOUT`
//! of its accept, fails with `TimedOut`, and hyper closes it. On HTTP/2,
//! bytes count only while a stream is open ([`Activity`]): a client with
//! no request open is idle whatever frames it sends.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use super::activity::Activity;

/// A socket that fails with `TimedOut` when no byte has moved either way
/// for `idle`, or when a write has been stuck for `send`. hyper then
/// closes the connection.
#[derive(Debug)]
pub struct TimedIo<T> {
    inner: T,
    idle: Duration,
    send: Duration,
    last_progress: Instant,
    write_stuck_since: Option<Instant>,
    timer: Pin<Box<Sleep>>,
    /// The connection's requests, with the limit on the first one.
    requests: Option<Requests>,
}

/// What [`TimedIo`] knows of a connection's requests.
#[derive(Debug)]
struct Requests {
    activity: Arc<Activity>,
    /// No request head by then closes the connection.
    first_by: Instant,
    /// Whether bytes counted as progress at the last look: when they stop
    /// counting (the last HTTP/2 stream closed), the idle time starts.
    was_busy: bool,
}

impl<T> TimedIo<T> {
    /// Wraps `inner`.
    pub fn new(inner: T, idle: Duration, send: Duration) -> TimedIo<T> {
        let now = Instant::now();
        TimedIo {
            inner,
            idle,
            send,
            last_progress: now,
            write_stuck_since: None,
            timer: Box::pin(tokio::time::sleep_until(now + idle)),
            requests: None,
        }
    }

    /// Also closes the connection when no request head has arrived
    /// `first_request` after now (its accept), and, over HTTP/2, counts
    /// bytes as progress only while a stream is open (`activity`).
    #[must_use]
    pub fn with_requests(mut self, activity: Arc<Activity>, first_request: Duration) -> TimedIo<T> {
        let first_by = Instant::now() + first_request;
        if self.timer.deadline() > first_by {
            self.timer.as_mut().reset(first_by);
        }
        self.requests = Some(Requests {
            activity,
            first_by,
            was_busy: true,
        });
        self
    }

    /// The socket inside.
    pub fn get_ref(&self) -> &T {
        &self.inner
    }

    /// Bytes moved: progress, unless the connection is an HTTP/2 one with
    /// no stream open.
    fn progress(&mut self) {
        if self.busy() {
            self.last_progress = Instant::now();
        }
    }

    /// Whether bytes count as progress now; the moment they stop counting
    /// (the last stream closed) is the last progress.
    fn busy(&mut self) -> bool {
        let Some(requests) = &mut self.requests else {
            return true;
        };
        let busy = requests.activity.busy();
        if !busy && requests.was_busy {
            self.last_progress = Instant::now();
        }
        requests.was_busy = busy;
        busy
    }

    /// The nearest deadline, and what passing it means.
    fn deadline(&mut self) -> (Instant, &'static str) {
        self.busy();
        let idle = self.last_progress + self.idle;
        let nearest = match self.write_stuck_since {
            Some(since) if since + self.send < idle => (since + self.send, "client does not read"),
            _ => (idle, "idle connection"),
        };
        match &self.requests {
            Some(requests) if !requests.activity.served() && requests.first_by < nearest.0 => {
                (requests.first_by, "no request in time")
            }
            _ => nearest,
        }
    }

    /// Called when the inner socket is not ready: arms the timer for the
    /// nearest deadline, or fails if it has passed.
    ///
    /// The timer is moved only to an earlier deadline: armed for an
    /// earlier one than needed (there has been progress since), it fires
    /// early and is moved on then, instead of at every read and write.
    fn check(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        let (deadline, _) = self.deadline();
        if self.timer.deadline() > deadline {
            self.timer.as_mut().reset(deadline);
        }
        loop {
            ready!(self.timer.as_mut().poll(cx));
            let (deadline, what) = self.deadline();
            if Instant::now() >= deadline {
                return Poll::Ready(io::Error::new(io::ErrorKind::TimedOut, what));
            }
            self.timer.as_mut().reset(deadline);
        }
    }

    /// Books the outcome of a write to the inner socket: progress, or the
    /// start of a stuck write (and its deadline).
    fn wrote(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<usize>>,
    ) -> Poll<io::Result<usize>> {
        match result {
            Poll::Ready(Ok(n)) => {
                if n > 0 {
                    self.progress();
                }
                self.write_stuck_since = None;
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(err)) => Poll::Ready(Err(err)),
            Poll::Pending => {
                if self.write_stuck_since.is_none() {
                    self.write_stuck_since = Some(Instant::now());
                }
                self.check(cx).map(Err)
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for TimedIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    self.progress();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(err)) => Poll::Ready(Err(err)),
            Poll::Pending => self.check(cx).map(Err),
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for TimedIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.wrote(cx, result)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.wrote(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use super::TimedIo;

    /// Progress keeps a connection open past its idle timeout (the timer,
    /// armed for the first deadline, moves on when it fires); silence
    /// then closes it, with the reason.
    #[tokio::test]
    async fn progress_keeps_a_connection_and_silence_ends_it() {
        let (client, server) = tokio::io::duplex(1024);
        let idle = Duration::from_secs(1);
        let mut guarded = TimedIo::new(server, idle, Duration::from_secs(60));
        let mut client = client;
        let writer = tokio::spawn(async move {
            for _ in 0..10 {
                tokio::time::sleep(Duration::from_millis(150)).await;
                client.write_all(b"x").await.unwrap();
            }
            client
        });
        let mut byte = [0u8; 1];
        for _ in 0..10 {
            guarded.read_exact(&mut byte).await.unwrap();
        }
        let _client = writer.await.unwrap();
        let err = guarded.read_exact(&mut byte).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
        assert_eq!(err.to_string(), "idle connection");
    }

    /// A silent socket is closed at the first-request limit, before its
    /// idle timeout.
    #[tokio::test]
    async fn a_connection_without_a_request_ends_at_the_first_request_limit() {
        let (_client, server) = tokio::io::duplex(1024);
        let activity = std::sync::Arc::new(super::Activity::default());
        let mut guarded = TimedIo::new(server, Duration::from_secs(60), Duration::from_secs(60))
            .with_requests(activity, Duration::from_millis(100));
        let started = tokio::time::Instant::now();
        let err = guarded.read_exact(&mut [0u8; 1]).await.unwrap_err();
        assert_eq!(err.to_string(), "no request in time");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    /// Over HTTP/2 with no stream open, bytes (PINGs) do not keep the
    /// connection: it ends at its idle timeout all the same.
    #[tokio::test]
    async fn frames_without_a_stream_do_not_keep_an_http2_connection() {
        let (client, server) = tokio::io::duplex(1024);
        let idle = Duration::from_millis(500);
        let mut guarded = TimedIo::new(server, idle, Duration::from_secs(60))
            .with_requests(super::Activity::http2_between_requests(), idle);
        let mut client = client;
        let writer = tokio::spawn(async move {
            for _ in 0..20 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if client.write_all(b"x").await.is_err() {
                    break;
                }
            }
        });
        let started = tokio::time::Instant::now();
        let mut byte = [0u8; 1];
        let err = loop {
            if let Err(err) = guarded.read_exact(&mut byte).await {
                break err;
            }
        };
        assert_eq!(err.to_string(), "idle connection");
        let elapsed = started.elapsed();
        assert!(elapsed < Duration::from_millis(1500), "{elapsed:?}");
        drop(guarded);
        writer.await.unwrap();
    }

    /// A write that cannot go out (the peer does not read) fails after the
    /// send timeout, before the idle timeout.
    #[tokio::test]
    async fn a_stuck_write_ends_the_connection() {
        let (_client, server) = tokio::io::duplex(16);
        let mut guarded = TimedIo::new(server, Duration::from_secs(60), Duration::from_millis(100));
        let err = guarded.write_all(&[0u8; 64]).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
        assert_eq!(err.to_string(), "client does not read");
    }
}

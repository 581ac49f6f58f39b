//! The gathering of an HTTP/2 connection's writes into as few system
//! calls as it can ([`Gathered`]).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A socket that gathers an HTTP/2 connection's writes (see `Gather`):
/// h2 writes each large DATA frame in a system call of its own and the
/// frames after it (a gRPC answer's trailers) in the next one, so one
/// answer costs about two sends. Gathered, the frames of every answer
/// ready at once go out in one. Other connections write through.
#[derive(Debug)]
pub struct Gathered<T> {
    inner: T,
    gather: Gather,
    /// Whether the last write to `inner` could not go out (the socket was
    /// full).
    stuck: bool,
}

/// The HTTP/2 connection preface: a connection whose first bytes are these
/// is HTTP/2 (what hyper-util's `auto` builder looks at too).
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Most bytes gathered before they are sent, whatever else happens.
const GATHER_BYTES: usize = 64 * 1024;

/// A gathering buffer larger than this is freed once sent.
const GATHER_KEEP: usize = 8 * 1024;

/// Most flushes put off in a row: a bound on how long gathered bytes can
/// wait should a connection keep flushing without reading.
const GATHER_FLUSHES: u8 = 32;

/// Writes gathered on an HTTP/2 connection.
///
/// A workaround for h2 itself: it flushes after each DATA frame it chains
/// from the caller's buffer (hyperium/h2 issue 902, fixed by PR 903).
/// Gathering measured 24.7 -> 15.6 us of CPU per gRPC LegalMoves call
/// (`bench/cpu.sh grpc`); it can go once the h2 the service builds with
/// stops flushing after each chained DATA frame.
///
/// h2 flushes after each large DATA frame (it writes the payload from the
/// caller's buffer, so it sends it before it takes the next frame), and
/// once more at the end of each poll of the connection, after frames it
/// copied into its own buffer (a gRPC answer's trailers, the next
/// answer's headers). So:
/// - a write is copied here and reported done;
/// - a flush after a payload (a write of more than one slice) is put off,
///   and wakes the connection's task;
/// - any other flush sends what is here: for gRPC answers, the frames of
///   every answer h2 had ready go out in one system call.
///
/// Bytes put off also go out at the task's next read (h2 reads at the
/// start of every poll of the connection), at shutdown, when
/// [`GATHER_BYTES`] are here, or at the [`GATHER_FLUSHES`]th flush put off
/// in a row. The wake makes the next poll come even when the peer sends
/// nothing, so no byte waits for the peer however h2's poll ended. While
/// the socket cannot take more (a client that does not read), flushes wait
/// for it as usual.
#[derive(Debug, Default)]
struct Gather {
    /// Whether this connection gathers: `None` until its first bytes have
    /// been read.
    on: Option<bool>,
    buf: Vec<u8>,
    /// How much of `buf` has been sent.
    sent: usize,
    /// Flushes put off since bytes were last sent.
    put_off: u8,
    /// Whether the last write ended in a payload of its own (more than one
    /// slice): h2 flushes after each large DATA frame's payload, and its
    /// last flush of a poll follows frames it copied (one slice).
    ends_in_payload: bool,
}

impl Gather {
    /// Whether this connection gathers (HTTP/2).
    fn is_on(&self) -> bool {
        self.on == Some(true)
    }

    fn pending(&self) -> usize {
        self.buf.len() - self.sent
    }

    /// Decides, from a connection's first bytes, whether it gathers.
    fn first_bytes(&mut self, bytes: &[u8]) {
        if self.on.is_none() && !bytes.is_empty() {
            let n = bytes.len().min(H2_PREFACE.len());
            self.on = Some(n >= 4 && bytes[..n] == H2_PREFACE[..n]);
        }
    }
}

impl<T> Gathered<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> Gathered<T> {
        Gathered {
            inner,
            gather: Gather::default(),
            stuck: false,
        }
    }

    /// Books the outcome of a write to `inner`: whether the socket was
    /// full.
    fn wrote(&mut self, result: Poll<io::Result<usize>>) -> Poll<io::Result<usize>> {
        match &result {
            Poll::Ready(Ok(_)) => self.stuck = false,
            Poll::Pending => self.stuck = true,
            Poll::Ready(Err(_)) => {}
        }
        result
    }
}

impl<T: AsyncWrite + Unpin> Gathered<T> {
    /// Sends every gathered byte.
    fn send_gathered(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.gather.pending() > 0 {
            let sent = self.gather.sent;
            let result = Pin::new(&mut self.inner).poll_write(cx, &self.gather.buf[sent..]);
            match ready!(self.wrote(result))? {
                0 => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                n => self.gather.sent += n,
            }
        }
        if self.gather.buf.capacity() > GATHER_KEEP {
            // An idle connection holds no large buffer.
            self.gather.buf = Vec::new();
        } else {
            self.gather.buf.clear();
        }
        self.gather.sent = 0;
        self.gather.put_off = 0;
        Poll::Ready(Ok(()))
    }

    /// Copies `bufs` into the gathered bytes (sending those first if they
    /// would pass [`GATHER_BYTES`]), or writes them straight through when
    /// nothing is gathered and they are that large on their own.
    fn poll_gather(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let len: usize = bufs.iter().map(|buf| buf.len()).sum();
        if self.gather.pending() + len > GATHER_BYTES {
            ready!(self.send_gathered(cx))?;
        }
        if len > GATHER_BYTES {
            let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
            return self.wrote(result);
        }
        for buf in bufs {
            self.gather.buf.extend_from_slice(buf);
        }
        self.gather.ends_in_payload = bufs.iter().filter(|buf| !buf.is_empty()).count() > 1;
        Poll::Ready(Ok(len))
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncRead for Gathered<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.gather.pending() > 0 {
            // Whatever the socket cannot take yet waits for it: the read
            // goes on, and the write's waker is registered.
            if let Poll::Ready(Err(err)) = self.send_gathered(cx) {
                return Poll::Ready(Err(err));
            }
        }
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.gather.first_bytes(&buf.filled()[before..]);
        }
        result
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Gathered<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.gather.is_on() {
            return self.poll_gather(cx, &[io::IoSlice::new(buf)]);
        }
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.wrote(result)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.gather.is_on() {
            return self.poll_gather(cx, bufs);
        }
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.wrote(result)
    }

    fn is_write_vectored(&self) -> bool {
        self.gather.is_on() || self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.gather.pending() > 0 {
            // Put off after a payload, unless the socket was full at the
            // last try (then the flush waits for it, as any flush would) or
            // too many were.
            if self.gather.ends_in_payload && !self.stuck && self.gather.put_off < GATHER_FLUSHES {
                self.gather.put_off += 1;
                cx.waker().wake_by_ref();
                return Poll::Ready(Ok(()));
            }
            ready!(self.send_gathered(cx))?;
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.send_gathered(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::io::IoSlice;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Wake, Waker};
    use std::time::Duration;

    use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, ReadBuf};

    use super::{GATHER_BYTES, GATHER_FLUSHES, H2_PREFACE};
    use crate::transport::{GuardedIo, guarded};

    /// A socket that counts the writes that reach it.
    struct Counted {
        inner: tokio::io::DuplexStream,
        writes: usize,
    }

    impl AsyncRead for Counted {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            Pin::new(&mut self.inner).poll_read(cx, buf)
        }
    }

    impl AsyncWrite for Counted {
        fn poll_write(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            let result = Pin::new(&mut self.inner).poll_write(cx, buf);
            if result.is_ready() {
                self.writes += 1;
            }
            result
        }

        fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Pin::new(&mut self.inner).poll_flush(cx)
        }

        fn poll_shutdown(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<std::io::Result<()>> {
            Pin::new(&mut self.inner).poll_shutdown(cx)
        }
    }

    /// Counts its wakes.
    #[derive(Default)]
    struct Wakes(AtomicUsize);

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A guarded socket whose peer has sent `first`, read already, and the
    /// peer's end.
    async fn guarded_after(first: &[u8]) -> (GuardedIo<Counted>, tokio::io::DuplexStream) {
        guarded_with(first, 1 << 20, Duration::from_secs(60)).await
    }

    /// [`guarded_after`] on a socket that holds `socket_bytes` unread, with
    /// a send timeout of `send`.
    async fn guarded_with(
        first: &[u8],
        socket_bytes: usize,
        send: Duration,
    ) -> (GuardedIo<Counted>, tokio::io::DuplexStream) {
        let (mut client, server) = tokio::io::duplex(socket_bytes);
        let counted = Counted {
            inner: server,
            writes: 0,
        };
        let mut guarded = guarded(counted, Duration::from_secs(60), send);
        client.write_all(first).await.unwrap();
        let mut read = vec![0u8; first.len()];
        guarded.read_exact(&mut read).await.unwrap();
        (guarded, client)
    }

    /// Polls a write of `slices` then a flush, once each, as h2 does: both
    /// must be done at once. h2 writes a large DATA frame as two slices
    /// (its buffer, ending in the frame's head, and the payload), and
    /// frames it copied as one.
    fn write_and_flush(guarded: &mut GuardedIo<Counted>, cx: &mut Context<'_>, slices: &[&[u8]]) {
        let slices: Vec<IoSlice<'_>> = slices.iter().map(|slice| IoSlice::new(slice)).collect();
        let len: usize = slices.iter().map(|slice| slice.len()).sum();
        let mut guarded = Pin::new(guarded);
        match guarded.as_mut().poll_write_vectored(cx, &slices) {
            Poll::Ready(Ok(n)) => assert_eq!(n, len),
            other => panic!("write: {other:?}"),
        }
        assert!(matches!(guarded.poll_flush(cx), Poll::Ready(Ok(()))));
    }

    /// On an HTTP/2 connection, a flush after a payload is put off and wakes
    /// the task; the flush after copied frames (h2's last of a poll) sends
    /// everything, in order, in one write.
    #[tokio::test]
    async fn http2_writes_are_gathered_until_a_flush_after_copied_frames() {
        let (mut guarded, mut client) = guarded_after(H2_PREFACE).await;
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        write_and_flush(&mut guarded, &mut cx, &[b"headers 1 ", b"data 1 "]);
        write_and_flush(
            &mut guarded,
            &mut cx,
            &[b"trailers 1 headers 2 ", b"data 2 "],
        );
        assert_eq!(
            guarded.inner.get_ref().writes,
            0,
            "flushes after a payload are put off"
        );
        assert!(
            wakes.0.load(Ordering::SeqCst) >= 1,
            "a put-off flush wakes the task"
        );
        write_and_flush(&mut guarded, &mut cx, &[b"trailers 2"]);
        assert_eq!(
            guarded.inner.get_ref().writes,
            1,
            "one write for the five frames"
        );
        let expected = b"headers 1 data 1 trailers 1 headers 2 data 2 trailers 2";
        let mut sent = [0u8; 55];
        client.read_exact(&mut sent).await.unwrap();
        assert_eq!(&sent, expected);
    }

    /// Bytes put off go out at the task's next read (h2 reads first in
    /// every poll), wherever the last poll stopped.
    #[tokio::test]
    async fn gathered_writes_go_out_at_the_next_read() {
        let (mut guarded, mut client) = guarded_after(H2_PREFACE).await;
        let waker = Waker::from(Arc::new(Wakes::default()));
        let mut cx = Context::from_waker(&waker);
        write_and_flush(&mut guarded, &mut cx, &[b"headers ", b"data"]);
        assert_eq!(guarded.inner.get_ref().writes, 0);
        let mut buf = [0u8; 16];
        let mut read = ReadBuf::new(&mut buf);
        assert!(
            Pin::new(&mut guarded)
                .poll_read(&mut cx, &mut read)
                .is_pending()
        );
        assert_eq!(guarded.inner.get_ref().writes, 1);
        let mut sent = [0u8; 12];
        client.read_exact(&mut sent).await.unwrap();
        assert_eq!(&sent, b"headers data");
    }

    /// The other ways gathered bytes go out: at the flush after too many
    /// put off in a row, and at shutdown.
    #[tokio::test]
    async fn gathered_writes_go_out_after_a_bounded_wait_and_at_shutdown() {
        let (mut guarded, mut client) = guarded_after(H2_PREFACE).await;
        let waker = Waker::from(Arc::new(Wakes::default()));
        let mut cx = Context::from_waker(&waker);
        for _ in 0..GATHER_FLUSHES {
            write_and_flush(&mut guarded, &mut cx, &[b"h", b"x"]);
        }
        assert_eq!(guarded.inner.get_ref().writes, 0);
        write_and_flush(&mut guarded, &mut cx, &[b"h", b"y"]);
        assert_eq!(
            guarded.inner.get_ref().writes,
            1,
            "the flush past the bound sends"
        );

        write_and_flush(&mut guarded, &mut cx, &[b"h", b"z"]);
        assert_eq!(guarded.inner.get_ref().writes, 1);
        guarded.shutdown().await.unwrap();
        assert_eq!(
            guarded.inner.get_ref().writes,
            2,
            "shutdown sends what is gathered"
        );
        let mut sent = Vec::new();
        client.read_to_end(&mut sent).await.unwrap();
        let mut expected = b"hx".repeat(usize::from(GATHER_FLUSHES));
        expected.extend_from_slice(b"hyhz");
        assert_eq!(sent, expected);
    }

    /// An HTTP/1 connection writes through: each write reaches the socket
    /// at once.
    #[tokio::test]
    async fn http1_writes_are_not_gathered() {
        let (mut guarded, mut client) = guarded_after(b"POST / HTTP/1.1\r\n").await;
        let waker = Waker::from(Arc::new(Wakes::default()));
        let mut cx = Context::from_waker(&waker);
        write_and_flush(&mut guarded, &mut cx, &[b"HTTP/1.1 200 OK\r\n{}"]);
        assert_eq!(guarded.inner.get_ref().writes, 1);
        let mut sent = [0u8; 19];
        client.read_exact(&mut sent).await.unwrap();
        assert_eq!(&sent, b"HTTP/1.1 200 OK\r\n{}");
    }

    /// More than [`GATHER_BYTES`] at once are sent, not held; and a client
    /// that does not read still ends the connection after the send
    /// timeout on an HTTP/2 connection.
    #[tokio::test]
    async fn gathering_is_bounded_and_a_stuck_http2_write_still_times_out() {
        let (mut guarded, _client) = guarded_with(H2_PREFACE, 64, Duration::from_millis(100)).await;
        // Too many to gather: written through (the socket takes 64 bytes),
        // the rest gathered.
        guarded
            .write_all(&vec![0u8; GATHER_BYTES + 1])
            .await
            .unwrap();
        assert_eq!(guarded.inner.get_ref().writes, 1);
        assert_eq!(guarded.gather.pending(), GATHER_BYTES + 1 - 64);
        // Flushes are put off a bounded number of times, then wait for the
        // socket, which fails after the send timeout.
        let mut flushes = 0;
        let err = loop {
            flushes += 1;
            assert!(flushes <= GATHER_FLUSHES + 1, "a flush must wait at last");
            if let Err(err) = guarded.flush().await {
                break err;
            }
        };
        assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
        assert_eq!(err.to_string(), "client does not read");
    }
}

//! Connections: the accept loop with a connection cap, overall and per
//! client address ([`PeerSlots`]), HTTP/1 and HTTP/2 tuned against slow
//! and greedy clients, and the socket under each connection
//! ([`GuardedIo`]): timeouts that cut off idle connections (an HTTP/2 one
//! with no stream open is idle whatever frames it sends: [`Activity`]),
//! connections that send no request and clients that do not read
//! ([`TimedIo`]), and an HTTP/2 connection's frames sent in as few system
//! calls as it can ([`Gathered`]).
//!
//! Every request carries its connection's [`ConnCloser`] (a request
//! extension): a response that cannot be delivered in time uses it to end
//! the connection (the send deadline, `layers::streams::SendDeadline`).
//!
//! axum's `serve` offers none of these knobs, so connections are driven by
//! hyper-util's `auto::Builder` directly.

mod activity;
mod gather;
mod peers;
mod timeouts;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore};

use crate::config::Config;
pub use activity::{Activity, Tracked, TrackedBody};
pub use gather::Gathered;
pub use peers::{PeerSlot, PeerSlots};
pub use timeouts::TimedIo;

/// The socket under each connection: writes gathered ([`Gathered`]) over
/// the timeouts ([`TimedIo`]), which see every write that reaches the
/// socket.
pub type GuardedIo<T> = Gathered<TimedIo<T>>;

/// `inner` with the timeouts `idle` and `send`, its writes gathered on
/// HTTP/2.
pub fn guarded<T>(inner: T, idle: Duration, send: Duration) -> GuardedIo<T> {
    Gathered::new(TimedIo::new(inner, idle, send))
}

/// The connection-level limits (see [`Config`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// Open connections at once.
    pub max_connections: usize,
    /// Open connections at once from one client address.
    pub max_connections_per_peer: usize,
    /// Time from accept to the first complete request head.
    pub first_request_timeout: Duration,
    /// Largest request head.
    pub max_header_bytes: usize,
    /// Time to send an HTTP/1 request head.
    pub header_timeout: Duration,
    /// No byte either way for this long closes the connection.
    pub idle_timeout: Duration,
    /// A write stuck this long closes the connection.
    pub send_timeout: Duration,
    /// HTTP/2 streams per connection.
    pub max_streams: u32,
}

impl ConnLimits {
    /// The limits configured.
    pub fn from_config(config: &Config) -> ConnLimits {
        ConnLimits {
            max_connections: config.max_connections,
            max_connections_per_peer: config.max_connections_per_peer,
            first_request_timeout: config.first_request_timeout,
            max_header_bytes: config.max_header_bytes,
            header_timeout: config.header_timeout,
            idle_timeout: config.idle_timeout,
            send_timeout: config.send_timeout,
            max_streams: config.max_streams_per_connection,
        }
    }
}

/// Ends the connection a request came on (found in the request's
/// extensions when it came through [`serve`]). For what cannot be ended
/// otherwise: an HTTP/1 response cut short, or an HTTP/2 stream that hyper
/// will not reset because the client's flow-control window is shut.
#[derive(Debug, Clone, Default)]
pub struct ConnCloser(Arc<Notify>);

impl ConnCloser {
    /// Asks the connection to close now (its socket is dropped, with every
    /// stream still open on it).
    pub fn close(&self) {
        self.0.notify_one();
    }

    pub(crate) async fn closed(&self) {
        self.0.notified().await;
    }
}

/// A listener on `addr` whose kernel backlog holds `backlog` connections
/// not yet accepted (`BGREF_LISTEN_BACKLOG`; tokio's `TcpListener::bind`
/// asks for 128, as the standard library). Linux caps it at
/// `net.core.somaxconn`.
///
/// # Errors
/// When the socket cannot be made, bound or put to listen.
pub fn listen(addr: std::net::SocketAddr, backlog: u32) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As `TcpListener::bind`: a restart can bind while old connections linger.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(backlog)
}

/// Per-stream HTTP/2 flow-control window and send buffer: what one stream
/// may hold for a client that does not read.
const H2_STREAM_WINDOW: u32 = 256 * 1024;
const H2_CONNECTION_WINDOW: u32 = 1024 * 1024;
const H2_MAX_SEND_BUF: usize = 64 * 1024;

fn builder(limits: &ConnLimits) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_header_bytes.max(8192))
        .max_headers(100);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(limits.max_streams)
        .max_header_list_size(u32::try_from(limits.max_header_bytes).unwrap_or(u32::MAX))
        .initial_stream_window_size(H2_STREAM_WINDOW)
        .initial_connection_window_size(H2_CONNECTION_WINDOW)
        .max_send_buf_size(H2_MAX_SEND_BUF)
        .max_pending_accept_reset_streams(64)
        .max_local_error_reset_streams(256);
    builder
}

/// Resolves once the server stops (`stopping` turns `true`) and the
/// connection of `activity` has no request open: an HTTP/2 connection with
/// no stream has been sent its GOAWAY and has nothing left to finish, but
/// hyper would wait for the client to acknowledge it (one that does not
/// read would hold the exit for the whole grace period).
async fn idle_at_stop(mut stopping: tokio::sync::watch::Receiver<bool>, activity: Arc<Activity>) {
    let _ = stopping.wait_for(|&stop| stop).await;
    // Checked every 100 ms, the first time once hyper has sent its GOAWAY.
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if !activity.busy() {
            return;
        }
    }
}

/// Serves `router` on `listener` until `shutdown` resolves: then stops
/// accepting, asks every connection to finish (HTTP/2 GOAWAY, HTTP/1
/// `Connection: close` after the current request), closes HTTP/2
/// connections as soon as they have no request open (`idle_at_stop`),
/// and waits for the others at most `grace`.
///
/// At most `limits.max_connections` connections are open at once: the
/// next one is accepted only when one closes (until then it waits in the
/// kernel's listen backlog). A connection from a client address that
/// already holds `limits.max_connections_per_peer` is closed at once,
/// before a byte is read. Every accepted socket gets `TCP_NODELAY`.
///
/// # Errors
/// None so far: accept errors (out of file descriptors, say) are logged
/// and retried after a pause.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> std::io::Result<()> {
    let builder = Arc::new(builder(&limits));
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let peers = PeerSlots::new(limits.max_connections_per_peer);
    let graceful = GracefulShutdown::new();
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            permit = slots.clone().acquire_owned() => permit,
        };
        let Ok(permit) = permit else { break };
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // EMFILE and the like: back off instead of spinning.
                    tracing::warn!(error = %err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        // Dropped at once (closed) when its client holds its share.
        let Some(peer_slot) = peers.take(peer.ip()) else {
            continue;
        };
        // Every response goes out at once: without TCP_NODELAY a response
        // written in two pieces (HTTP/2 headers, then data) waits for the
        // client's delayed ACK, about 40 ms per gRPC call.
        if let Err(err) = stream.set_nodelay(true) {
            tracing::warn!(error = %err, "could not set TCP_NODELAY on a connection");
        }
        let activity = Arc::new(Activity::default());
        let io = TokioIo::new(Gathered::new(
            TimedIo::new(stream, limits.idle_timeout, limits.send_timeout)
                .with_requests(activity.clone(), limits.first_request_timeout),
        ));
        let closer = ConnCloser::default();
        let service = TowerToHyperService::new(Tracked::new(
            router.clone(),
            closer.clone(),
            activity.clone(),
        ));
        let conn = builder
            .serve_connection_with_upgrades(io, service)
            .into_owned();
        let conn = graceful.watch(conn);
        let idle_at_stop = idle_at_stop(stopping.clone(), activity);
        tokio::spawn(async move {
            tokio::select! {
                result = conn => if let Err(err) = result {
                    tracing::debug!(error = %err, "connection ended with an error");
                },
                () = closer.closed() => {
                    tracing::info!("connection closed: a response on it could not be delivered in time");
                }
                () = idle_at_stop => {
                    tracing::debug!("connection closed at shutdown: no request open");
                }
            }
            drop(peer_slot);
            drop(permit);
        });
    }
    drop(listener);
    let _ = stop.send(true);
    tokio::select! {
        () = graceful.shutdown() => {},
        () = tokio::time::sleep(grace) => {
            tracing::warn!(grace_secs = grace.as_secs_f64(), "in-flight requests did not finish in time; exiting");
        }
    }
    Ok(())
}

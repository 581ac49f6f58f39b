//! Shared pieces of the load harness (`bench/run.sh`): the listen address
//! argument and a listener that sets `TCP_NODELAY` like bgref does, so the
//! echo servers differ from bgref only in what they do per request.

use axum::serve::{ListenerExt as _, TapIo};
use tokio::net::TcpListener;

/// The first command-line argument as a socket address (default
/// `127.0.0.1:0`); prints the bound address on stdout.
///
/// # Panics
/// On a bad address or when the port cannot be bound: the harness stops.
pub async fn listen() -> TapIo<TcpListener, fn(&mut tokio::net::TcpStream)> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let listener = TcpListener::bind(&addr)
        .await
        .unwrap_or_else(|e| panic!("cannot listen on {addr}: {e}"));
    if let Ok(local) = listener.local_addr() {
        println!("listening on {local}");
    }
    listener.tap_io(nodelay as fn(&mut tokio::net::TcpStream))
}

fn nodelay(stream: &mut tokio::net::TcpStream) {
    let _ = stream.set_nodelay(true);
}

/// The size of the fixed answer of the echo servers' `answer` methods:
/// `$BENCH_ANSWER_BYTES`, default 7 705 (bgref's HTTP legal-moves answer
/// for the harness's request). `bench/run.sh` sets it to the size it
/// measured on bgref, per protocol.
///
/// # Panics
/// When the variable is set but is not a number: the harness stops.
#[must_use]
pub fn answer_bytes() -> usize {
    std::env::var("BENCH_ANSWER_BYTES").map_or(7_705, |v| {
        v.parse()
            .unwrap_or_else(|e| panic!("BENCH_ANSWER_BYTES={v}: {e}"))
    })
}

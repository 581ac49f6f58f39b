//! The attack client of `scripts/ci-attack.sh` (issue 24): one attack of
//! the issue's list against a running bgref on loopback, for a fixed time,
//! with probes and ordinary requests from other addresses alongside.
//!
//! ```text
//! bench-attack ADDR CASE SECONDS
//! ```
//!
//! `CASE` is one of:
//!
//! - `replay`: 4 clients sending gRPC VerifyGame transcripts of 64 KiB
//!   (a roll, then resign/reject pairs), each call after the last;
//! - `pings`: 512 HTTP/2 connections, each with one request, then a PING
//!   every second; reopened as they close;
//! - `silent`: 512 TCP connections that send nothing; reopened as they
//!   close;
//! - `bodies`: 20 HTTP/2 connections x 64 request bodies that stall after
//!   5 bytes; each stream reopened when answered;
//! - `readers4`, `readers20`: 4 or 20 HTTP/2 connections with a stream
//!   window of 0 (the client never reads), 64 streams each asking for an
//!   answer of about 1 MB; streams and connections reopened as they end;
//! - `none`: no attack (the baseline).
//!
//! The attackers connect from 127.0.0.1 (or `$ATTACK_FROM`); probes (`GET /healthz` and
//! `GET /readyz` in turn, every 200 ms, each on a fresh connection) come
//! from 127.0.0.3, ordinary requests (`POST /legal-moves`, 20 a second on
//! a kept-alive HTTP/1.1 connection, reopened after a failure, 2 s
//! timeout) from 127.0.0.2. Prints one line of `key=value` figures.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use prost::Message as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpSocket, TcpStream};

use bgref_service::proto;

const LEGAL_MOVES: &str = r#"{"position":{"position_id":"4HPwATDgc/ABMA"},"dice":[3,1]}"#;

/// A `/legal-moves` request whose answer is about 1 MB: 1 828 plays.
const HUGE_LEGAL_MOVES: &str = r#"{"position":{"board":{"points":[-15,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"turn":"x"}},"dice":[3,3]}"#;

const ORDINARY: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const PROBER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, addr, case, secs] = &args[..] else {
        eprintln!("usage: bench-attack ADDR CASE SECONDS");
        std::process::exit(2);
    };
    let addr: SocketAddr = addr.parse().expect("ADDR");
    let secs: u64 = secs.parse().expect("SECONDS");
    let sent = Arc::new(AtomicU64::new(0));
    let attack = {
        let sent = sent.clone();
        let case = case.clone();
        tokio::spawn(async move { run_attack(&case, addr, sent).await })
    };
    // The attack settles in before anything is measured.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let until = Instant::now() + Duration::from_secs(secs);
    let (probes, ordinary) = tokio::join!(probe(addr, until), ordinary(addr, until));
    attack.abort();
    let (health, ready): (Vec<_>, Vec<_>) = probes.iter().partition(|p| p.0 == "/healthz");
    let stats = |ps: &[&(&str, Duration, bool)]| {
        let mut ms: Vec<f64> = ps.iter().map(|p| p.1.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        let p50 = ms.get(ms.len() / 2).copied().unwrap_or(f64::NAN);
        let max = ms.last().copied().unwrap_or(f64::NAN);
        let failed = ps.iter().filter(|p| !p.2).count();
        (p50, max, failed, ps.len())
    };
    let (h50, hmax, hfail, hn) = stats(&health);
    let (r50, rmax, rfail, rn) = stats(&ready);
    println!(
        "case={case} healthz_p50_ms={h50:.1} healthz_max_ms={hmax:.1} healthz_failed={hfail}/{hn} \
         readyz_p50_ms={r50:.1} readyz_max_ms={rmax:.1} readyz_failed={rfail}/{rn} \
         ordinary_ok={}/{} attack_requests={}",
        ordinary.0,
        ordinary.1,
        sent.load(Ordering::Relaxed)
    );
}

async fn run_attack(case: &str, addr: SocketAddr, sent: Arc<AtomicU64>) {
    let mut tasks = tokio::task::JoinSet::new();
    match case {
        "none" => {}
        "replay" => {
            for _ in 0..4 {
                tasks.spawn(replay(addr, sent.clone()));
            }
        }
        "pings" => {
            for _ in 0..512 {
                tasks.spawn(pinger(addr, sent.clone()));
            }
        }
        "silent" => {
            for _ in 0..512 {
                tasks.spawn(silent(addr, sent.clone()));
            }
        }
        "bodies" => {
            for _ in 0..20 {
                tasks.spawn(staller(addr, sent.clone()));
            }
        }
        "readers4" | "readers20" => {
            let n = if case == "readers4" { 4 } else { 20 };
            for _ in 0..n {
                tasks.spawn(reader(addr, sent.clone()));
            }
        }
        other => panic!("unknown case {other}"),
    }
    while tasks.join_next().await.is_some() {}
}

/// The attackers' address: `$ATTACK_FROM`, or 127.0.0.1.
fn attacker() -> Ipv4Addr {
    std::env::var("ATTACK_FROM")
        .ok()
        .and_then(|a| a.parse().ok())
        .unwrap_or(Ipv4Addr::LOCALHOST)
}

async fn connect_from(from: Ipv4Addr, addr: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((from, 0)))?;
    socket.connect(addr).await
}

/// Probes on fresh connections every 200 ms until `until`: (path, latency,
/// answered 200).
async fn probe(addr: SocketAddr, until: Instant) -> Vec<(&'static str, Duration, bool)> {
    let mut out = Vec::new();
    let mut paths = ["/healthz", "/readyz"].into_iter().cycle();
    while Instant::now() < until {
        let path = paths.next().unwrap_or("/healthz");
        let start = Instant::now();
        let ok = tokio::time::timeout(Duration::from_secs(5), async {
            let mut s = connect_from(PROBER, addr).await.ok()?;
            let head = format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
            s.write_all(head.as_bytes()).await.ok()?;
            let mut answer = Vec::new();
            s.read_to_end(&mut answer).await.ok()?;
            Some(answer.starts_with(b"HTTP/1.1 200"))
        })
        .await
        .ok()
        .flatten()
        .unwrap_or(false);
        out.push((path, start.elapsed(), ok));
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    out
}

/// Ordinary requests until `until`: (answered 200, sent).
async fn ordinary(addr: SocketAddr, until: Instant) -> (u64, u64) {
    let (mut ok, mut total) = (0, 0);
    let mut conn: Option<TcpStream> = None;
    let request = format!(
        "POST /legal-moves HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{LEGAL_MOVES}",
        LEGAL_MOVES.len()
    );
    while Instant::now() < until {
        total += 1;
        let answered = tokio::time::timeout(Duration::from_secs(2), async {
            if conn.is_none() {
                conn = Some(connect_from(ORDINARY, addr).await.ok()?);
            }
            let s = conn.as_mut()?;
            s.write_all(request.as_bytes()).await.ok()?;
            read_http1_response(s).await
        })
        .await
        .ok()
        .flatten();
        match answered {
            Some(200) => ok += 1,
            _ => conn = None,
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (ok, total)
}

/// The status of one HTTP/1.1 response read from `s` (head and a
/// `content-length` body).
async fn read_http1_response(s: &mut TcpStream) -> Option<u16> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let head_end = loop {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let status = head.get(9..12)?.parse().ok()?;
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some(status)
}

/// VerifyGame transcripts of about 64 KiB, one after the other, by turns
/// with x and with o resigning.
async fn replay(addr: SocketAddr, sent: Arc<AtomicU64>) {
    let messages = [
        transcript(proto::Player::X, proto::Player::O),
        transcript(proto::Player::O, proto::Player::X),
    ];
    loop {
        let Ok(channel) = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .expect("endpoint")
            .local_address(Some(attacker().into()))
            .connect()
            .await
        else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let mut client = proto::referee_client::RefereeClient::new(channel)
            .max_encoding_message_size(usize::MAX)
            .max_decoding_message_size(usize::MAX);
        for message in messages.iter().cycle() {
            sent.fetch_add(1, Ordering::Relaxed);
            if let Err(status) = client.verify_game(message.clone()).await
                && matches!(
                    status.code(),
                    tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::Cancelled
                )
            {
                break;
            }
            // A channel whose connection task is gone fails every call at
            // once, without waiting: this loop then never yielded, so the
            // abort at the end of the case was never seen and the runtime
            // could not shut down (the process spun on one core until CI's
            // limit).
            tokio::task::yield_now().await;
        }
    }
}

/// A new game, the opening roll, then `resigner` resigning and `other`
/// rejecting, repeated to about 64 KiB.
fn transcript(resigner: proto::Player, other: proto::Player) -> proto::VerifyGameRequest {
    let step = |player: proto::Player, action: proto::GameAction| proto::TranscriptStep {
        player: player as i32,
        action: action as i32,
        level: if action == proto::GameAction::Resign {
            proto::GameResult::Single as i32
        } else {
            0
        },
        play: None,
        at_ms: None,
    };
    let mut request = proto::VerifyGameRequest {
        start: Some(proto::NewGameRequest {
            match_id: "attack".to_owned(),
            ..Default::default()
        }),
        actions: vec![step(proto::Player::X, proto::GameAction::Roll)],
        state: String::new(),
        started_at_ms: None,
    };
    while request.encoded_len() < 64 * 1024 {
        request
            .actions
            .push(step(resigner, proto::GameAction::Resign));
        request.actions.push(step(other, proto::GameAction::Reject));
    }
    request
}

/// An HTTP/2 connection from the attacker's address, if it can be made.
async fn h2_connect(
    addr: SocketAddr,
    builder: &h2::client::Builder,
) -> Option<(
    h2::client::SendRequest<Bytes>,
    tokio::task::JoinHandle<()>,
    Option<h2::PingPong>,
)> {
    let tcp = connect_from(attacker(), addr).await.ok()?;
    let (client, mut connection) = builder.handshake(tcp).await.ok()?;
    let ping = connection.ping_pong();
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    Some((client, driver, ping))
}

/// One request, then a PING every second; reopened when closed.
async fn pinger(addr: SocketAddr, sent: Arc<AtomicU64>) {
    loop {
        if let Some((client, driver, ping)) = h2_connect(addr, &h2::client::Builder::new()).await {
            let served = async {
                let mut client = client.ready().await.ok()?;
                let request = http::Request::get("/healthz").body(()).ok()?;
                let (response, _) = client.send_request(request, true).ok()?;
                sent.fetch_add(1, Ordering::Relaxed);
                let mut body = response.await.ok()?.into_body();
                while body.data().await.is_some() {}
                Some(client)
            }
            .await;
            if let (Some(_client), Some(mut ping)) = (served, ping) {
                while ping.ping(h2::Ping::opaque()).await.is_ok() {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
            driver.abort();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A connection that sends nothing; reopened when closed.
async fn silent(addr: SocketAddr, sent: Arc<AtomicU64>) {
    loop {
        if let Ok(mut s) = connect_from(attacker(), addr).await {
            sent.fetch_add(1, Ordering::Relaxed);
            let mut buf = [0u8; 1024];
            while matches!(s.read(&mut buf).await, Ok(n) if n > 0) {}
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// 64 streams whose bodies stall after 5 bytes, each reopened when
/// answered; the connection reopened when closed.
async fn staller(addr: SocketAddr, sent: Arc<AtomicU64>) {
    loop {
        if let Some((client, driver, _)) = h2_connect(addr, &h2::client::Builder::new()).await {
            let mut streams = tokio::task::JoinSet::new();
            for _ in 0..64 {
                let client = client.clone();
                let sent = sent.clone();
                streams.spawn(async move { while stall(&client, &sent).await.is_some() {} });
            }
            while streams.join_next().await.is_some() {}
            driver.abort();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// 64 streams asking for 1 MB answers with a window of 0, never read, each
/// reopened when it ends; a PING every second; the connection reopened
/// when closed.
async fn reader(addr: SocketAddr, sent: Arc<AtomicU64>) {
    let mut builder = h2::client::Builder::new();
    builder.initial_window_size(0);
    loop {
        if let Some((client, driver, ping)) = h2_connect(addr, &builder).await {
            let mut streams = tokio::task::JoinSet::new();
            for _ in 0..64 {
                let client = client.clone();
                let sent = sent.clone();
                streams.spawn(async move { while unread(&client, &sent).await.is_some() {} });
            }
            if let Some(mut ping) = ping {
                streams.spawn(async move {
                    while ping.ping(h2::Ping::opaque()).await.is_ok() {
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                });
            }
            // Any stream or the pinger ending means the connection is gone
            // (a stream loops for ever otherwise).
            streams.join_next().await;
            streams.abort_all();
            driver.abort();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One stream whose body stalls after 5 bytes, until it is answered.
async fn stall(client: &h2::client::SendRequest<Bytes>, sent: &AtomicU64) -> Option<()> {
    let mut ready = client.clone().ready().await.ok()?;
    let request = http::Request::post("/legal-moves")
        .header("content-type", "application/json")
        .header("content-length", LEGAL_MOVES.len().to_string())
        .body(())
        .ok()?;
    let (response, mut body) = ready.send_request(request, false).ok()?;
    body.send_data(Bytes::from_static(&LEGAL_MOVES.as_bytes()[..5]), false)
        .ok()?;
    sent.fetch_add(1, Ordering::Relaxed);
    let _ = response.await;
    Some(())
}

/// One stream asking for a 1 MB answer, held unread (the window is 0)
/// until the server ends it.
async fn unread(client: &h2::client::SendRequest<Bytes>, sent: &AtomicU64) -> Option<()> {
    let mut ready = client.clone().ready().await.ok()?;
    let request = http::Request::post("/legal-moves")
        .header("content-type", "application/json")
        .body(())
        .ok()?;
    let (response, mut body) = ready.send_request(request, false).ok()?;
    body.send_data(Bytes::from_static(HUGE_LEGAL_MOVES.as_bytes()), true)
        .ok()?;
    sent.fetch_add(1, Ordering::Relaxed);
    let mut body = response.await.ok()?.into_body();
    while let Some(Ok(_)) = body.data().await {}
    Some(())
}

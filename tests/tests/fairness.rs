//! No client takes more than its share of the connection layer (issue
//! 24): a cap per client address, HTTP/2 connections that only ping are
//! idle, a silent socket is closed at the first-request limit, and health
//! Watch streams are capped. Every client targets 127.0.0.0/8, is bounded
//! in count and time, and stops by itself.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use bgref_e2e::{Server, read_until_closed};
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpSocket, TcpStream};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

/// A connection to `server` from the loopback address `from`.
async fn connect_from(from: Ipv4Addr, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((from, 0))).unwrap();
    socket.connect(server).await.unwrap()
}

/// `GET /healthz` on `stream`, closing it after; the answer.
async fn healthz_on(mut stream: TcpStream) -> String {
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    read_until_closed(&mut stream, Duration::from_secs(5))
        .await
        .0
}

/// Before: one client held all 512 connection slots. Now one address holds
/// at most BGREF_MAX_CONNECTIONS_PER_PEER: one more is closed at once,
/// before a byte is read, while another address is served, and a slot
/// freed is taken again.
#[tokio::test]
async fn one_address_holds_at_most_its_share_of_connections() {
    const CAP: usize = 4;
    let server = Server::start(&[("BGREF_MAX_CONNECTIONS_PER_PEER", "4")]).await;
    let one = Ipv4Addr::new(127, 0, 0, 1);
    let mut held = Vec::new();
    for _ in 0..CAP {
        held.push(connect_from(one, server.addr).await);
    }
    let mut extra = connect_from(one, server.addr).await;
    let start = Instant::now();
    let (read, closed) = read_until_closed(&mut extra, Duration::from_secs(3)).await;
    assert!(closed, "the connection over the cap stayed open");
    assert_eq!(read, "", "the connection over the cap was answered");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "closed after {:?}",
        start.elapsed()
    );

    let other = connect_from(Ipv4Addr::new(127, 0, 0, 2), server.addr).await;
    let answer = healthz_on(other).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");

    // A connection closed frees its slot (the server sees the close
    // shortly after).
    drop(held.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let answer = healthz_on(connect_from(one, server.addr).await).await;
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the freed slot was not taken again"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Before: an HTTP/2 connection sending a PING every 20 s kept its slot
/// forever. Now, with no stream open, it is idle whatever frames it sends.
#[tokio::test]
async fn an_http2_connection_that_only_pings_is_closed_when_idle() {
    let server = Server::start(&[
        ("BGREF_IDLE_TIMEOUT", "1s"),
        ("BGREF_REQUEST_TIMEOUT", "500ms"),
    ])
    .await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let (client, mut connection) = h2::client::handshake(tcp).await.unwrap();
    let mut ping_pong = connection.ping_pong().expect("ping_pong");
    let connection = tokio::spawn(connection);
    // One request first: the connection is a served one.
    let mut client = client.ready().await.unwrap();
    let request = http::Request::get("/healthz").body(()).unwrap();
    let (response, _) = client.send_request(request, true).unwrap();
    let response = response.await.unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    while let Some(chunk) = body.data().await {
        chunk.unwrap();
    }
    drop(body);
    let start = Instant::now();
    let pings = tokio::time::timeout(Duration::from_secs(10), async {
        let mut pings = 0;
        while ping_pong.ping(h2::Ping::opaque()).await.is_ok() {
            pings += 1;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        pings
    })
    .await
    .expect("the pinging connection was not closed within 10 s");
    let took = start.elapsed();
    assert!(pings >= 3, "only {pings} PINGs answered");
    assert!(took < Duration::from_secs(4), "closed after {took:?}");
    let _ = tokio::time::timeout(Duration::from_secs(5), connection).await;
}

/// Before: a silent TCP socket lived 60 s (the idle timeout) before any
/// header timeout started. Now it is closed BGREF_FIRST_REQUEST_TIMEOUT
/// after its accept; a connection that sends a request in time is served.
#[tokio::test]
async fn a_silent_socket_is_closed_at_the_first_request_limit() {
    let server = Server::start(&[("BGREF_FIRST_REQUEST_TIMEOUT", "1s")]).await;
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    let start = Instant::now();
    let (read, closed) = read_until_closed(&mut silent, Duration::from_secs(10)).await;
    let took = start.elapsed();
    assert!(closed, "the silent socket stayed open");
    assert_eq!(read, "");
    assert!(
        took >= Duration::from_millis(800) && took < Duration::from_secs(4),
        "closed after {took:?}"
    );
    let answer = healthz_on(TcpStream::connect(server.addr).await.unwrap()).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");
}

/// Before: health Watch streams had no cap (32 000 held 241 MB). Now one
/// more than BGREF_MAX_WATCH_STREAMS is refused with RESOURCE_EXHAUSTED,
/// the open ones show in `bgref_health_watch_streams`, and a stream ended
/// frees its slot.
#[tokio::test]
async fn health_watch_streams_are_capped() {
    let server = Server::start(&[("BGREF_MAX_WATCH_STREAMS", "2")]).await;
    let mut health = HealthClient::new(server.channel().await);
    let watch = |mut health: HealthClient<tonic::transport::Channel>| async move {
        health
            .watch(HealthCheckRequest {
                service: String::new(),
            })
            .await
    };
    let mut open = Vec::new();
    for _ in 0..2 {
        let mut stream = watch(health.clone())
            .await
            .expect("a Watch under the cap")
            .into_inner();
        let first = stream.message().await.unwrap().expect("the current status");
        assert_eq!(first.status, 1, "SERVING");
        open.push(stream);
    }
    let refused = watch(health.clone())
        .await
        .expect_err("a Watch over the cap");
    assert_eq!(
        refused.code(),
        tonic::Code::ResourceExhausted,
        "{refused:?}"
    );
    assert!(
        refused.message().contains("BGREF_MAX_WATCH_STREAMS"),
        "{refused:?}"
    );
    // Check still answers.
    let check = health
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap();
    assert_eq!(check.into_inner().status, 1);
    let (_, metrics) = server.get("/metrics").await;
    assert!(
        metrics.contains("\nbgref_health_watch_streams 2\n"),
        "{metrics}"
    );
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("bgref_requests_total{")
                && l.contains("/grpc.health.v1.Health/Watch")
                && l.contains("RESOURCE_EXHAUSTED")),
        "the refusal is not counted: {metrics}"
    );

    drop(open.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match watch(health.clone()).await {
            Ok(_) => break,
            Err(status) => {
                assert_eq!(status.code(), tonic::Code::ResourceExhausted);
                assert!(
                    Instant::now() < deadline,
                    "the ended stream's slot was not freed"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

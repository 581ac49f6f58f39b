//! The concurrency gate sheds the right work, and gRPC errors follow gRPC's
//! conventions (issue 24): a body that uploads holds no slot, a body over
//! its limit is refused by its length, a connection answered early carries
//! the next request, `grpc-timeout` is honoured, and client faults on gRPC
//! paths get gRPC statuses (or a 415 for a client that is not gRPC). Every
//! client targets 127.0.0.0/8, is bounded in count and time, and stops by
//! itself.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use bgref_e2e::{LEGAL_MOVES, Server, read_until_closed, stalled_uploads};
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;

/// A client from 127.0.0.2 (its own per-peer share), no pooling.
fn other_client() -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)))
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

/// Before: 20 connections x 64 stalled bodies held all 1 024 slots, and
/// ordinary requests got 503 `overloaded` while `/readyz` said ready. Now a
/// request takes its slot once its body has arrived: 32 stalled bodies
/// against 8 slots leave every ordinary request served.
#[tokio::test]
async fn stalled_bodies_hold_no_slot() {
    let server = Server::start(&[
        ("BGREF_MAX_CONCURRENCY", "8"),
        ("BGREF_QUEUE_TIMEOUT", "200ms"),
        ("BGREF_REQUEST_TIMEOUT", "20s"),
    ])
    .await;
    let stalled = stalled_uploads(server.addr, 32).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let client = other_client();
    let mut statuses = Vec::new();
    for _ in 0..20 {
        let response = client
            .post(server.url("/legal-moves"))
            .header("content-type", "application/json")
            .body(LEGAL_MOVES)
            .send()
            .await
            .unwrap();
        statuses.push(response.status().as_u16());
    }
    assert!(statuses.iter().all(|&s| s == 200), "{statuses:?}");
    let ready = client.get(server.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    drop(stalled);
}

/// Before: `Expect: 100-continue` with a 100 MB length got `100 Continue`,
/// then the 413. Now the 413 comes first, told by the length alone.
#[tokio::test]
async fn a_body_too_large_by_its_length_is_refused_before_100_continue() {
    let server = Server::start(&[]).await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(
        b"POST /legal-moves HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
          content-length: 100000000\r\nexpect: 100-continue\r\n\r\n",
    )
    .await
    .unwrap();
    let (response, closed) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(closed, "{response}");
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    assert!(!response.contains("100 Continue"), "{response}");
    assert!(response.contains("BGREF_MAX_BODY_BYTES"), "{response}");
}

/// Before: 1.2 % of requests reusing a connection after a 401 failed (the
/// 401 was answered before the body was read). Now the body is read before
/// any answer: the connection carries the next request.
#[tokio::test]
async fn a_connection_answered_401_carries_the_next_request() {
    let server = Server::start(&[("BGREF_GAME_TOKEN", "a-game-token-for-tests")]).await;
    let body = format!(r#"{{"match_id":"m1","filler":"{}"}}"#, "x".repeat(4000));
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /games HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{}",
        body.len(),
        &body[..100]
    );
    s.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    s.write_all(&body.as_bytes()[100..]).await.unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    let (response, closed) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(closed, "{response}");
    assert!(response.starts_with("HTTP/1.1 401"), "{response}");
    let second = response.find("HTTP/1.1 200").map(|i| &response[i..]);
    assert!(
        second.is_some_and(|r| r.contains(r#"{"status":"ok"}"#)),
        "{response}"
    );
}

/// A gRPC call of `path` with the framed `message` and `headers`, over
/// HTTP/2 directly (tonic's client would apply a `grpc-timeout` itself):
/// the response head (a trailers-only answer carries its status there).
async fn grpc_head(
    server: &Server,
    path: &str,
    message: &[u8],
    headers: &[(&str, &str)],
) -> http::response::Parts {
    let mut framed = vec![0u8];
    framed.extend_from_slice(&u32::try_from(message.len()).unwrap().to_be_bytes());
    framed.extend_from_slice(message);
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let (client, connection) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let mut request = http::Request::post(path)
        .header("content-type", "application/grpc")
        .header("te", "trailers");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let mut client = client.ready().await.unwrap();
    let (response, mut send) = client
        .send_request(request.body(()).unwrap(), false)
        .unwrap();
    send.send_data(bytes::Bytes::from(framed), true).unwrap();
    response.await.unwrap().into_parts().0
}

fn grpc_status(head: &http::response::Parts) -> Option<&str> {
    head.headers.get("grpc-status").map(|v| v.to_str().unwrap())
}

/// Before: a 1 ns deadline still got a 318 kB OK answer. Now a call past
/// its `grpc-timeout` is DEADLINE_EXCEEDED, its answer not sent.
#[tokio::test]
async fn a_grpc_call_past_its_deadline_is_deadline_exceeded() {
    let server = Server::start(&[]).await;
    let path = "/bgref.v1.Referee/ListVariants";
    let head = grpc_head(&server, path, &[], &[("grpc-timeout", "1n")]).await;
    assert_eq!(grpc_status(&head), Some("4"), "{head:?}");
    // With time to spare, the same call answers.
    let head = grpc_head(&server, path, &[], &[("grpc-timeout", "10S")]).await;
    assert_eq!(grpc_status(&head), None, "{head:?}");
    assert_eq!(head.status, 200);
}

/// Before: a gRPC message that did not arrive got an HTTP 408 problem on
/// the gRPC stream (clients saw UNKNOWN). Now DEADLINE_EXCEEDED.
#[tokio::test]
async fn a_stalled_grpc_message_is_deadline_exceeded() {
    let server = Server::start(&[("BGREF_REQUEST_TIMEOUT", "500ms")]).await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let (client, connection) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let mut client = client.ready().await.unwrap();
    let request = http::Request::post("/bgref.v1.Referee/ListVariants")
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap();
    let (response, mut send) = client.send_request(request, false).unwrap();
    // Three bytes of the five-byte frame header, then nothing.
    send.send_data(bytes::Bytes::from_static(&[0, 0, 0]), false)
        .unwrap();
    let response = tokio::time::timeout(Duration::from_secs(5), response)
        .await
        .expect("no answer within 5 s")
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/grpc");
    assert_eq!(response.headers()["grpc-status"], "4", "{response:?}");
}

/// Before: JSON on a gRPC path, a frame flag that is neither 0 nor 1, and
/// gRPC-Web text that is not base64 all got INTERNAL. Now a client that is
/// not gRPC gets a 415 problem, and the others INVALID_ARGUMENT.
#[tokio::test]
async fn requests_that_are_not_grpc_are_told_so() {
    let server = Server::start(&[]).await;
    let path = "/bgref.v1.Referee/ListVariants";
    let client = reqwest::Client::new();
    let response = client
        .post(server.url(path))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 415);
    let text = response.text().await.unwrap();
    assert!(
        text.contains(r#""type":"unsupported-media-type""#),
        "{text}"
    );

    let response = client
        .post(server.url(path))
        .header("content-type", "application/grpc-web-text")
        .body("!!! not base64 !!!")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["grpc-status"], "3", "{response:?}");

    // `{` where the frame's compression flag goes: the frame header
    // claims 0x22613a31 bytes, so only the flag is read.
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let (client, connection) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let mut client = client.ready().await.unwrap();
    let request = http::Request::post(path)
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap();
    let (response, mut send) = client.send_request(request, false).unwrap();
    send.send_data(bytes::Bytes::from_static(br#"{"a":1}"#), true)
        .unwrap();
    let head = response.await.unwrap().into_parts().0;
    assert_eq!(grpc_status(&head), Some("3"), "{head:?}");
}

/// Before: the gRPC game flow decoded the message before checking the game
/// token. Now a call without the token is UNAUTHENTICATED whatever its
/// message (here one that is not protobuf).
#[tokio::test]
async fn the_grpc_game_flow_checks_the_token_before_the_message() {
    let server = Server::start(&[("BGREF_GAME_TOKEN", "a-game-token-for-tests")]).await;
    for method in ["VerifyGame", "Act"] {
        let path = format!("/bgref.v1.Referee/{method}");
        let head = grpc_head(&server, &path, &[0x0a, 0x7f, 0x01], &[]).await;
        assert_eq!(grpc_status(&head), Some("16"), "{method}: {head:?}");
    }
}

/// Before: gRPC-Web successes were counted and logged as UNKNOWN. Now OK.
#[tokio::test]
async fn grpc_web_successes_are_counted_as_ok() {
    let server = Server::start(&[]).await;
    for content_type in ["application/grpc-web+proto", "application/grpc-web-text"] {
        let body: &[u8] = if content_type.ends_with("text") {
            b"AAAAAAA="
        } else {
            &[0, 0, 0, 0, 0]
        };
        let response = reqwest::Client::new()
            .post(server.url("/bgref.v1.Referee/ListVariants"))
            .header("content-type", content_type)
            .body(body.to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{content_type}");
        response.bytes().await.unwrap();
    }
    let (_, metrics) = server.get("/metrics").await;
    let ok = r#"protocol="grpc",operation="/bgref.v1.Referee/ListVariants",status="OK"} 2"#;
    assert!(metrics.contains(ok), "{metrics}");
    assert!(!metrics.contains(r#"status="UNKNOWN""#), "{metrics}");
}

/// Before: an idle HTTP/2 connection whose client does not read (and so
/// never acknowledges the GOAWAY) held the exit for the whole shutdown
/// timeout. Now a connection with no request open is closed at once.
#[tokio::test]
async fn an_idle_http2_connection_does_not_hold_shutdown() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let server = Server::start(&[("BGREF_SHUTDOWN_TIMEOUT", "20s")]).await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let (client, connection) = h2::client::handshake(tcp).await.unwrap();
    // Driven until `paused`, then held open (pending in its task) and
    // never read again.
    let paused = Arc::new(AtomicBool::new(false));
    let driver = tokio::spawn({
        let paused = paused.clone();
        async move {
            let mut connection = Box::pin(connection);
            std::future::poll_fn(|cx| {
                if paused.load(Ordering::Relaxed) {
                    return std::task::Poll::Pending;
                }
                connection.as_mut().poll(cx).map(|_| ())
            })
            .await;
        }
    });
    let mut client = client.ready().await.unwrap();
    let request = http::Request::get("/healthz").body(()).unwrap();
    let (response, _) = client.send_request(request, true).unwrap();
    let mut body = response.await.unwrap().into_body();
    while body.data().await.is_some() {}
    drop(body);
    paused.store(true, Ordering::Relaxed);
    let start = std::time::Instant::now();
    assert_eq!(server.terminate().await, Some(0));
    let took = start.elapsed();
    assert!(took < Duration::from_secs(5), "exited after {took:?}");
    driver.abort();
}

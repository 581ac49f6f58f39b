//! Browser access through the real binary: CORS (`BGREF_CORS_ORIGINS`,
//! off by default) and gRPC-Web on the same port as HTTP and gRPC.

use bgref_e2e::Server;
use bgref_service::proto;
use prost::Message as _;

const ORIGIN: &str = "https://app.example.org";

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

#[tokio::test]
async fn cors_is_off_by_default_and_on_for_the_configured_origins() {
    let off = Server::start(&[]).await;
    let resp = client()
        .get(off.url("/variants"))
        .header("origin", ORIGIN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers().get("access-control-allow-origin").is_none());

    let on = Server::start(&[(
        "BGREF_CORS_ORIGINS",
        "https://app.example.org,http://localhost:5173",
    )])
    .await;
    // A preflight for a JSON POST is answered with the allowed origin.
    let preflight = client()
        .request(reqwest::Method::OPTIONS, on.url("/legal-moves"))
        .header("origin", ORIGIN)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{}", preflight.status());
    let h = preflight.headers();
    assert_eq!(h["access-control-allow-origin"], ORIGIN);
    assert!(
        h["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .contains("POST")
    );
    assert!(
        h["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .contains("content-type")
    );
    // The request itself carries the header; another origin gets none.
    let resp = client()
        .post(on.url("/legal-moves"))
        .header("origin", ORIGIN)
        .json(&serde_json::json!({"position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [3, 1]}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["access-control-allow-origin"], ORIGIN);
    let other = client()
        .get(on.url("/variants"))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());
    println!("CORS: off by default; preflight and response headers for the configured origin only");
}

#[tokio::test]
async fn a_bad_cors_origin_stops_the_binary() {
    let out = bgref_e2e::command(&[("BGREF_CORS_ORIGINS", "app.example.org/path")], true)
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an origin"));
}

/// One gRPC-Web frame: flag byte, big-endian length, payload.
fn frame(flag: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![flag];
    out.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// The message frame and the trailers of a gRPC-Web response body.
fn unframe(body: &[u8]) -> (Vec<u8>, String) {
    let (mut message, mut trailers) = (Vec::new(), String::new());
    let mut rest = body;
    while rest.len() >= 5 {
        let len = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
        let payload = &rest[5..5 + len];
        if rest[0] & 0x80 == 0 {
            message = payload.to_vec();
        } else {
            trailers = String::from_utf8_lossy(payload).into_owned();
        }
        rest = &rest[5 + len..];
    }
    (message, trailers)
}

#[tokio::test]
async fn grpc_web_over_http1_on_the_same_port() {
    let server = Server::start(&[("BGREF_CORS_ORIGINS", ORIGIN)]).await;
    let request = proto::LegalMovesRequest {
        position: Some(proto::PositionInput {
            encoding: Some(proto::position_input::Encoding::PositionId(
                "4HPwATDgc/ABMA".into(),
            )),
            turn: 0,
        }),
        dice: vec![3, 1],
        ..Default::default()
    };
    let resp = client()
        .post(server.url("/bgref.v1.Referee/LegalMoves"))
        .header("content-type", "application/grpc-web+proto")
        .header("x-grpc-web", "1")
        .header("origin", ORIGIN)
        .body(frame(0, &request.encode_to_vec()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.version(), reqwest::Version::HTTP_11);
    assert_eq!(resp.headers()["access-control-allow-origin"], ORIGIN);
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/grpc-web")
    );
    let body = resp.bytes().await.unwrap();
    let (message, trailers) = unframe(&body);
    assert!(trailers.contains("grpc-status:0"), "{trailers}");
    let reply = proto::LegalMovesResponse::decode(message.as_slice()).unwrap();
    assert!(!reply.plays.is_empty());
    // Every 3-1 play takes x from 167 pips to 163.
    for play in &reply.plays {
        assert_eq!(play.position.as_ref().unwrap().pips.unwrap().x, 163);
    }

    // An error keeps its status and message in the trailers.
    let bad = proto::LegalMovesRequest {
        dice: vec![7, 1],
        ..request
    };
    let resp = client()
        .post(server.url("/bgref.v1.Referee/LegalMoves"))
        .header("content-type", "application/grpc-web+proto")
        .body(frame(0, &bad.encode_to_vec()))
        .send()
        .await
        .unwrap();
    // A trailers-only answer: the status is in the headers (or, from
    // other servers, in a trailer frame).
    let headers: String = resp
        .headers()
        .iter()
        .map(|(k, v)| format!("{k}:{}\r\n", v.to_str().unwrap_or("")))
        .collect();
    let body = resp.bytes().await.unwrap();
    let (_, trailers) = unframe(&body);
    let status = headers + &trailers;
    assert!(status.contains("grpc-status:3"), "{status}");
    assert!(
        status.contains("a%20die%20shows%201%20to%206") || status.contains("a die shows 1 to 6"),
        "{status}"
    );
    println!("gRPC-Web: LegalMoves over HTTP/1.1 (trailers in the body), errors as grpc-status 3");
}

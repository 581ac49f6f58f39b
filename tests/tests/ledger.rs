//! The ledger through the real binary (docs/referee.md, "The ledger"): the
//! statuses and gRPC codes of its refusals, expiry, a store that is down or
//! lost its data, readiness and gRPC health, and its configuration. The
//! races between replicas behind nginx are `tests/ledger/run.sh`.

use bgref_e2e::{Redis, Server, command, grpc_slug, proto_act, start_until_serving};
use bgref_service::proto;
use serde_json::{Value, json};
use tonic::Code;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

async fn health(server: &Server) -> i32 {
    HealthClient::new(server.channel().await)
        .check(HealthCheckRequest {
            service: "bgref.v1.Referee".into(),
        })
        .await
        .map(|r| r.into_inner().status)
        .unwrap_or(-1)
}

async fn until<F: AsyncFnMut() -> bool>(mut ok: F) -> bool {
    for _ in 0..100 {
        if ok().await {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    false
}

fn roll(state: &Value, seats: &Value) -> Value {
    json!({"state": state, "seat": seats["x"], "action": "roll"})
}

#[tokio::test]
async fn refusals_over_both_protocols() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let server = Server::start(&[("BGREF_LEDGER_URL", &redis.url())]).await;
    let mut grpc = server.grpc().await;
    let start = json!({"match_id": "codes", "client_seed": "s"});
    let (status, game) = server.post("/games", &start).await;
    assert_eq!(status, 200, "{game}");
    // The same match again: HTTP 409, gRPC ALREADY_EXISTS.
    let (status, problem) = server.post("/games", &start).await;
    assert_eq!((status, &problem["type"]), (409, &json!("match-exists")));
    let err = grpc
        .new_game(proto::NewGameRequest {
            match_id: "codes".into(),
            client_seed: "s".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        (err.code(), grpc_slug(&err)),
        (Code::AlreadyExists, "match-exists".into())
    );
    // The opening roll, then the opening move; the opening token again
    // with another play is stale, on both protocols.
    let (status, opened) = server
        .post("/games/act", &roll(&game["state"], &game["seats"]))
        .await;
    assert_eq!(status, 200, "{opened}");
    let starter = opened["view"]["to_act"].as_str().unwrap();
    let plays = opened["view"]["plays"].as_array().unwrap();
    let play = |i: usize| {
        json!({"state": opened["state"], "seat": game["seats"][starter], "action": "move",
            "play": plays[i]["notation"]})
    };
    let (status, moved) = server.post("/games/act", &play(0)).await;
    assert_eq!(status, 200, "{moved}");
    let (status, problem) = server.post("/games/act", &play(1)).await;
    assert_eq!(
        (status, &problem["type"]),
        (409, &json!("stale-state")),
        "{problem}"
    );
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("game 1, turn 0"),
        "{problem}"
    );
    let err = grpc
        .act(proto_act(opened["state"].as_str().unwrap(), &play(1)))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code(), grpc_slug(&err)),
        (Code::Aborted, "stale-state".into())
    );
    assert_eq!(err.message(), problem["detail"]);
    // The retry of the action that won is answered again, on both.
    let (status, again) = server.post("/games/act", &play(0)).await;
    assert_eq!((status, &again["state"]), (200, &moved["state"]));
    let g = grpc
        .act(proto_act(opened["state"].as_str().unwrap(), &play(0)))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(g.state, moved["state"]);
    // The store loses its data (a restart without persistence): the match
    // is unknown, HTTP 404, gRPC NOT_FOUND.
    let mut redis = redis;
    redis.restart().await;
    let mover = moved["view"]["to_act"].as_str().unwrap();
    let next = json!({"state": moved["state"], "seat": game["seats"][mover], "action": "roll"});
    assert!(
        until(async || server.post("/games/act", &next).await.0 == 404).await,
        "unknown-match after the store lost its data"
    );
    let (_, problem) = server.post("/games/act", &next).await;
    assert_eq!(problem["type"], "unknown-match");
    let err = grpc
        .act(proto_act(moved["state"].as_str().unwrap(), &next))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code(), grpc_slug(&err)),
        (Code::NotFound, "unknown-match".into())
    );
    // Verify and export reach only the head, and not a forgotten match.
    let transcript = json!({"start": start, "actions": [{"player": "x", "action": "roll"}]});
    let (status, problem) = server.post("/games/verify", &transcript).await;
    assert_eq!((status, &problem["type"]), (404, &json!("unknown-match")));
}

#[tokio::test]
async fn a_match_expires_after_its_ttl() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let server = Server::start(&[
        ("BGREF_LEDGER_URL", &redis.url()),
        ("BGREF_LEDGER_TTL", "1s"),
    ])
    .await;
    let (_, game) = server
        .post("/games", &json!({"match_id": "short", "client_seed": "s"}))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(2200)).await;
    let (status, problem) = server
        .post("/games/act", &roll(&game["state"], &game["seats"]))
        .await;
    assert_eq!(
        (status, &problem["type"]),
        (404, &json!("unknown-match")),
        "{problem}"
    );
    // Forgotten, the match may start again.
    let (status, _) = server
        .post("/games", &json!({"match_id": "short", "client_seed": "s"}))
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn an_unreachable_ledger_refuses_play_and_fails_readiness() {
    let Some(mut redis) = Redis::start().await else {
        return;
    };
    let server = Server::start(&[
        ("BGREF_LEDGER_URL", &redis.url()),
        ("BGREF_LEDGER_TIMEOUT", "300ms"),
    ])
    .await;
    let mut grpc = server.grpc().await;
    let (status, game) = server
        .post("/games", &json!({"match_id": "outage", "client_seed": "s"}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(server.get("/readyz").await.0, 200);
    assert_eq!(health(&server).await, ServingStatus::Serving as i32);
    redis.stop().await;
    let body = roll(&game["state"], &game["seats"]);
    let (status, problem) = server.post("/games/act", &body).await;
    assert_eq!(
        (status, &problem["type"]),
        (503, &json!("ledger-unavailable")),
        "{problem}"
    );
    let err = grpc
        .act(proto_act(game["state"].as_str().unwrap(), &body))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code(), grpc_slug(&err)),
        (Code::Unavailable, "ledger-unavailable".into())
    );
    let (status, problem) = server
        .post(
            "/games",
            &json!({"match_id": "outage-2", "client_seed": "s"}),
        )
        .await;
    assert_eq!(
        (status, &problem["type"]),
        (503, &json!("ledger-unavailable"))
    );
    let (status, ready) = server.get("/readyz").await;
    assert_eq!(status, 503, "{ready}");
    assert!(ready.contains("ledger_unavailable"), "{ready}");
    assert!(until(async || health(&server).await == ServingStatus::NotServing as i32).await);
    // Liveness is not the ledger's business.
    assert_eq!(server.get("/healthz").await.0, 200);
    // Back (empty: no persistence here): ready again; the match was lost.
    redis.restart().await;
    assert!(until(async || server.get("/readyz").await.0 == 200).await);
    assert!(until(async || health(&server).await == ServingStatus::Serving as i32).await);
    let (status, problem) = server.post("/games/act", &body).await;
    assert_eq!((status, &problem["type"]), (404, &json!("unknown-match")));
}

#[tokio::test]
async fn ledger_configuration() {
    // Unreachable at start-up: it serves, not ready, and says so.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("redis://127.0.0.1:{port}/0");
    let server = Server::start(&[
        ("BGREF_LEDGER_URL", url.as_str()),
        ("BGREF_LEDGER_TIMEOUT", "200ms"),
    ])
    .await;
    assert!(until(async || server.get("/readyz").await.0 == 503).await);
    // A URL that is not one stops start-up, without quoting it (it may hold
    // a password).
    let secret = "hunter2-ledger-password";
    let (lines, mut child) = start_until_serving(command(
        &[("BGREF_LEDGER_URL", &format!("http://:{secret}@host/0"))],
        true,
    ))
    .await;
    let status = child.wait().await.unwrap();
    let text = lines.join("\n");
    assert_eq!(status.code(), Some(2), "{text}");
    assert!(text.contains("BGREF_LEDGER_URL"), "{text}");
    assert!(!text.contains(secret), "{text}");
    // A TTL of 0 is refused.
    let (lines, mut child) = start_until_serving(command(
        &[
            ("BGREF_LEDGER_URL", url.as_str()),
            ("BGREF_LEDGER_TTL", "0s"),
        ],
        true,
    ))
    .await;
    assert_ne!(child.wait().await.unwrap().code(), Some(0), "{lines:?}");
}

//! The dice endpoints through the real binary, over HTTP and gRPC: the
//! published vectors reproduced by the service, signatures that verify,
//! the protected reveal, statelessness (two instances, one configuration),
//! the two protocols agreeing, verification, input limits and the key
//! configuration.
//!
//! The harness starts `bgref` with `TEST_DICE_SECRET`, which is the master
//! secret of `core/tests/data/dice-vectors.json`.

use std::time::Duration;

use bgref_e2e::{
    Server, TEST_DICE_SECRET, TEST_REVEAL_TOKEN, TEST_ROLL_TOKEN, assert_grpc_error,
    with_roll_token,
};
use bgref_service::keys::{Signature, VerifyingKey, key_id};
use bgref_service::proto;
use serde_json::{Value, json};
use tonic::Code;
use tonic_types::StatusExt as _;

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/data/dice-vectors.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("dice vectors")).expect("JSON")
}

fn decode_hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Percent-encodes a query value (every byte but the unreserved ones).
fn query_value(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The documented signed bytes of a roll, written out here independently
/// of the core's `roll_signing_bytes`.
fn signed_bytes(
    match_id: &str,
    client_seed: &str,
    game: u64,
    turn: u64,
    dice: [u64; 2],
    commitment: &str,
) -> Vec<u8> {
    format!(
        "bgref-roll-v1\n{match_id}\n{client_seed}\n{game}\n{turn}\n{}\n{}\n{commitment}",
        dice[0], dice[1]
    )
    .into_bytes()
}

fn dice_of(v: &Value) -> [u64; 2] {
    let d = v.as_array().expect("dice array");
    assert_eq!(d.len(), 2, "{v}");
    [d[0].as_u64().unwrap(), d[1].as_u64().unwrap()]
}

async fn get_json(server: &Server, path: &str) -> (u16, Value) {
    let (status, text) = server.get(path).await;
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn commitment(server: &Server, match_id: &str) -> String {
    let (status, body) = get_json(
        server,
        &format!("/dice/commitment?match_id={}", query_value(match_id)),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["match_id"], match_id);
    body["commitment"].as_str().unwrap().to_owned()
}

/// The published keys by id.
async fn published_keys(server: &Server) -> Vec<(String, VerifyingKey, bool)> {
    let (status, body) = get_json(server, "/dice/keys").await;
    assert_eq!(status, 200, "{body}");
    body["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            assert_eq!(k["algorithm"], "ed25519");
            let bytes: [u8; 32] = decode_hex(k["public_key"].as_str().unwrap())
                .try_into()
                .expect("32-byte key");
            let vk = VerifyingKey::from_bytes(&bytes).expect("valid Ed25519 key");
            (
                k["key_id"].as_str().unwrap().to_owned(),
                vk,
                k["current"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn check_signature(keys: &[(String, VerifyingKey, bool)], body: &Value, message: &[u8]) {
    let id = body["key_id"].as_str().expect("key_id");
    let (_, vk, _) = keys
        .iter()
        .find(|(k, _, _)| k == id)
        .unwrap_or_else(|| panic!("key {id} is not published"));
    let sig: [u8; 64] = decode_hex(body["signature"].as_str().expect("signature"))
        .try_into()
        .expect("64-byte signature");
    vk.verify_strict(message, &Signature::from_bytes(&sig))
        .unwrap_or_else(|e| panic!("signature does not verify: {e}: {body}"));
}

fn roll_body(match_id: &str, client_seed: &str, game: u64, turn: u64) -> Value {
    json!({"match_id": match_id, "client_seed": client_seed, "game": game, "turn": turn})
}

fn opening_body(match_id: &str, client_seed: &str, game: u64) -> Value {
    json!({"match_id": match_id, "client_seed": client_seed, "game": game})
}

fn reveal_request(
    match_id: &str,
    authorization: Option<&str>,
) -> tonic::Request<proto::RevealSeedRequest> {
    let mut req = tonic::Request::new(proto::RevealSeedRequest {
        match_id: match_id.to_owned(),
    });
    if let Some(a) = authorization {
        req.metadata_mut()
            .insert("authorization", a.parse().expect("metadata value"));
    }
    req
}

#[tokio::test]
async fn the_service_reproduces_the_published_vectors() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let vectors = vectors();
    assert_eq!(vectors["master_secret_hex"], TEST_DICE_SECRET);
    let keys = published_keys(&server).await;
    let bearer = format!("Bearer {TEST_REVEAL_TOKEN}");
    for m in vectors["matches"].as_array().unwrap() {
        let mid = m["match_id"].as_str().unwrap();
        let cs = m["client_seed"].as_str().unwrap();
        let c = commitment(&server, mid).await;
        assert_eq!(c, m["commitment"], "{mid}");
        let grpc_c = grpc
            .get_commitment(proto::GetCommitmentRequest {
                match_id: mid.to_owned(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(grpc_c.commitment, c);

        for r in m["rolls"].as_array().unwrap() {
            let (game, turn) = (r["game"].as_u64().unwrap(), r["turn"].as_u64().unwrap());
            let (status, body) = server
                .post_roll("/dice/roll", &roll_body(mid, cs, game, turn))
                .await;
            assert_eq!(status, 200, "{body}");
            assert_eq!(body["dice"], r["dice"], "{mid} game {game} turn {turn}");
            assert_eq!(body["commitment"], m["commitment"]);
            assert_eq!(
                (
                    &body["match_id"],
                    &body["client_seed"],
                    &body["game"],
                    &body["turn"]
                ),
                (&json!(mid), &json!(cs), &json!(game), &json!(turn))
            );
            check_signature(
                &keys,
                &body,
                &signed_bytes(mid, cs, game, turn, dice_of(&r["dice"]), &c),
            );
            let g = grpc
                .roll_dice(with_roll_token(proto::RollDiceRequest {
                    match_id: mid.to_owned(),
                    client_seed: cs.to_owned(),
                    game: game as u32,
                    turn: turn as u32,
                }))
                .await
                .unwrap()
                .into_inner();
            assert_eq!(json!(g.dice), r["dice"]);
            assert_eq!(g.signature, body["signature"]);
        }

        for o in m["opening"].as_array().unwrap() {
            let game = o["game"].as_u64().unwrap();
            let (status, body) = server
                .post_roll("/dice/opening", &opening_body(mid, cs, game))
                .await;
            assert_eq!(status, 200, "{body}");
            for k in ["x_die", "o_die", "starts", "ties"] {
                assert_eq!(body[k], o[k], "{mid} opening {game}: {k}");
            }
            assert_eq!(body["turn"], 0);
            assert_eq!(body["dice"], json!([o["x_die"], o["o_die"]]));
            check_signature(
                &keys,
                &body,
                &signed_bytes(mid, cs, game, 0, dice_of(&body["dice"]), &c),
            );
        }

        let (status, _, body) = server
            .post_auth("/dice/reveal", &json!({"match_id": mid}), Some(&bearer))
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["server_seed"], m["server_seed_hex"]);
        assert_eq!(body["commitment"], m["commitment"]);
        let g = grpc
            .reveal_seed(reveal_request(mid, Some(&bearer)))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(g.server_seed, m["server_seed_hex"]);
    }

    // A byte >= 252 is skipped.
    let ex = &vectors["rejection_example"];
    let (status, body) = server
        .post_roll(
            "/dice/roll",
            &roll_body(
                ex["match_id"].as_str().unwrap(),
                ex["client_seed"].as_str().unwrap(),
                ex["game"].as_u64().unwrap(),
                ex["turn"].as_u64().unwrap(),
            ),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dice"], ex["dice"]);
}

#[tokio::test]
async fn keys_are_published_with_their_ids() {
    // A retired key (RFC 8032 test 2's public key) listed for verification.
    let retired = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c";
    let server = Server::start(&[("BGREF_VERIFY_KEYS", retired)]).await;
    let keys = published_keys(&server).await;
    assert_eq!(keys.len(), 2);
    assert!(keys[0].2, "the current key comes first");
    assert!(!keys[1].2);
    assert_eq!(bgref_service::keys::ALGORITHM, "ed25519");
    for (id, vk, _) in &keys {
        assert_eq!(id, &key_id(vk));
        assert_eq!(id.len(), 16);
    }
    assert_eq!(
        decode_hex(retired),
        keys[1].1.as_bytes().to_vec(),
        "the retired key is listed as configured"
    );
    let mut grpc = server.grpc().await;
    let g = grpc
        .get_keys(proto::GetKeysRequest {})
        .await
        .unwrap()
        .into_inner();
    let grpc_ids: Vec<(&str, bool)> = g
        .keys
        .iter()
        .map(|k| (k.key_id.as_str(), k.current))
        .collect();
    assert_eq!(
        grpc_ids,
        [(keys[0].0.as_str(), true), (keys[1].0.as_str(), false)]
    );
    // Every roll is signed by the current key.
    let (_, body) = server
        .post_roll("/dice/roll", &roll_body("m", "c", 1, 1))
        .await;
    assert_eq!(body["key_id"], keys[0].0.as_str());
}

#[tokio::test]
async fn reveal_needs_the_operator_token() {
    let server = Server::start(&[]).await;
    let body = json!({"match_id": "match-0001"});
    let mut grpc = server.grpc().await;
    for auth in [
        None,
        Some("Bearer wrong-token".to_owned()),
        Some(format!("Basic {TEST_REVEAL_TOKEN}")),
        Some(TEST_REVEAL_TOKEN.to_owned()),
        Some(format!("Bearer {TEST_REVEAL_TOKEN}x")),
    ] {
        let (status, www, problem) = server
            .post_auth("/dice/reveal", &body, auth.as_deref())
            .await;
        assert_eq!(status, 401, "{auth:?}: {problem}");
        assert_eq!(problem["type"], "unauthorized");
        assert_eq!(www.as_deref(), Some("Bearer"));
        assert!(
            !problem.to_string().contains("6025512f"),
            "no seed in an error"
        );
        let status = grpc
            .reveal_seed(reveal_request("match-0001", auth.as_deref()))
            .await
            .unwrap_err();
        assert_grpc_error(&status, Code::Unauthenticated, "unauthorized");
    }
    // The scheme is case-insensitive.
    let (status, _, ok) = server
        .post_auth(
            "/dice/reveal",
            &body,
            Some(&format!("bearer {TEST_REVEAL_TOKEN}")),
        )
        .await;
    assert_eq!(status, 200, "{ok}");

    // Without a configured token, reveal is disabled, whatever is sent.
    let disabled = Server::start(&[("BGREF_REVEAL_TOKEN", "")]).await;
    for auth in [None, Some(format!("Bearer {TEST_REVEAL_TOKEN}"))] {
        let (status, _, problem) = disabled
            .post_auth("/dice/reveal", &body, auth.as_deref())
            .await;
        assert_eq!(status, 403, "{problem}");
        assert_eq!(problem["type"], "reveal-disabled");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("BGREF_REVEAL_TOKEN"),
            "{problem}"
        );
    }
    let status = disabled
        .grpc()
        .await
        .reveal_seed(reveal_request(
            "match-0001",
            Some(&format!("Bearer {TEST_REVEAL_TOKEN}")),
        ))
        .await
        .unwrap_err();
    assert_grpc_error(&status, Code::PermissionDenied, "reveal-disabled");
    // Everything else works without the token.
    let (status, _) = disabled
        .post_roll("/dice/roll", &roll_body("m", "c", 1, 1))
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn two_instances_with_one_configuration_answer_alike() {
    let (a, b) = tokio::join!(Server::start(&[]), Server::start(&[]));
    assert_ne!(a.addr, b.addr);
    assert_eq!(
        get_json(&a, "/dice/keys").await,
        get_json(&b, "/dice/keys").await
    );
    for mid in ["stateless-1", "weekly/2026-11-29#12", "東京-ü"] {
        assert_eq!(commitment(&a, mid).await, commitment(&b, mid).await);
        for game in 1..=3 {
            let req = opening_body(mid, "p1:p2", game);
            assert_eq!(
                a.post_roll("/dice/opening", &req).await,
                b.post_roll("/dice/opening", &req).await
            );
            for turn in 1..=20 {
                let req = roll_body(mid, "p1:p2", game, turn);
                let (ra, rb) = (
                    a.post_roll("/dice/roll", &req).await,
                    b.post_roll("/dice/roll", &req).await,
                );
                assert_eq!(ra.0, 200);
                // Signatures included: Ed25519 signing is deterministic.
                assert_eq!(ra, rb, "{mid} game {game} turn {turn}");
            }
        }
    }
    // Asking again gives the same dice: no state advanced.
    let req = roll_body("stateless-1", "p1:p2", 1, 1);
    assert_eq!(
        a.post_roll("/dice/roll", &req).await,
        a.post_roll("/dice/roll", &req).await
    );
}

#[tokio::test]
async fn http_and_grpc_agree() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    for (mid, cs) in [("agree", "a:b"), ("agree", ""), ("ünï/cödé #1", "x y z")] {
        for game in [1u32, 7, 100_000] {
            let (status, mut http) = server
                .post_roll("/dice/opening", &opening_body(mid, cs, u64::from(game)))
                .await;
            assert_eq!(status, 200, "{http}");
            // The starting cube and position are compared in tests/referee.rs.
            let fields = http.as_object_mut().unwrap();
            fields.remove("cube");
            fields.remove("position");
            let g = grpc
                .opening_roll(with_roll_token(proto::OpeningRollRequest {
                    match_id: mid.to_owned(),
                    client_seed: cs.to_owned(),
                    game,
                    ..Default::default()
                }))
                .await
                .unwrap()
                .into_inner();
            let starts = if g.starts == proto::Player::X as i32 {
                "x"
            } else {
                "o"
            };
            assert_eq!(
                json!({"match_id": g.match_id, "client_seed": g.client_seed, "game": g.game,
                       "turn": g.turn, "x_die": g.x_die, "o_die": g.o_die, "starts": starts,
                       "ties": g.ties, "dice": g.dice, "dice_played": g.dice_played,
                       "commitment": g.commitment, "key_id": g.key_id,
                       "signature": g.signature}),
                http
            );
            for turn in [1u32, 2, 3, 10_000] {
                let (status, http) = server
                    .post_roll(
                        "/dice/roll",
                        &roll_body(mid, cs, u64::from(game), u64::from(turn)),
                    )
                    .await;
                assert_eq!(status, 200, "{http}");
                let g = grpc
                    .roll_dice(with_roll_token(proto::RollDiceRequest {
                        match_id: mid.to_owned(),
                        client_seed: cs.to_owned(),
                        game,
                        turn,
                    }))
                    .await
                    .unwrap()
                    .into_inner();
                assert_eq!(
                    json!({"match_id": g.match_id, "client_seed": g.client_seed, "game": g.game,
                           "turn": g.turn, "dice": g.dice, "commitment": g.commitment,
                           "key_id": g.key_id, "signature": g.signature}),
                    http
                );
            }
        }
    }
}

#[tokio::test]
async fn verify_checks_rolls_against_the_revealed_seed() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let (mid, cs) = ("verify-me", "alice:bob");
    let c = commitment(&server, mid).await;
    let mut rolls = Vec::new();
    for game in 1..=2u64 {
        let (_, o) = server
            .post_roll("/dice/opening", &opening_body(mid, cs, game))
            .await;
        rolls.push(json!({"client_seed": cs, "game": game, "turn": 0, "dice": o["dice"]}));
        for turn in 1..=30u64 {
            let (_, r) = server
                .post_roll("/dice/roll", &roll_body(mid, cs, game, turn))
                .await;
            rolls.push(json!({"client_seed": cs, "game": game, "turn": turn, "dice": r["dice"]}));
        }
    }
    let bearer = format!("Bearer {TEST_REVEAL_TOKEN}");
    let (_, _, revealed) = server
        .post_auth("/dice/reveal", &json!({"match_id": mid}), Some(&bearer))
        .await;
    let seed = revealed["server_seed"].as_str().unwrap();

    // Any instance verifies, even one with other secrets: it is pure.
    let other = Server::start(&[
        ("BGREF_DICE_SECRET", &"ab".repeat(32)),
        ("BGREF_REVEAL_TOKEN", ""),
    ])
    .await;
    let request = json!({"match_id": mid, "server_seed": seed, "commitment": c, "rolls": rolls});
    for s in [&server, &other] {
        let (status, v) = s.post("/dice/verify", &request).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["valid"], true, "{v}");
        assert_eq!(v["commitment_matches"], true);
        assert_eq!(v["seed_commitment"], c.as_str());
        assert_eq!(v["rolls"].as_array().unwrap().len(), rolls.len());
        assert_eq!(v["mismatches"], json!([]));
    }

    // A tampered roll and a wrong commitment are reported.
    let mut tampered = request.clone();
    let d = dice_of(&tampered["rolls"][5]["dice"]);
    tampered["rolls"][5]["dice"] = json!([d[1], d[0] % 6 + 1]);
    tampered["commitment"] = json!(commitment(&server, "another-match").await);
    let (status, v) = server.post("/dice/verify", &tampered).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["valid"], false);
    assert_eq!(v["commitment_matches"], false);
    assert_eq!(v["mismatches"], json!([5]));
    assert_eq!(v["rolls"][5]["expected"], rolls[5]["dice"]);
    assert_eq!(v["rolls"][5]["matches"], false);

    // gRPC gives the same verdict.
    let g = grpc
        .verify_dice(proto::VerifyDiceRequest {
            match_id: mid.to_owned(),
            server_seed: seed.to_owned(),
            commitment: tampered["commitment"].as_str().unwrap().to_owned(),
            rolls: tampered["rolls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| proto::ClaimedRoll {
                    client_seed: cs.to_owned(),
                    game: r["game"].as_u64().unwrap() as u32,
                    turn: r["turn"].as_u64().unwrap() as u32,
                    dice: dice_of(&r["dice"]).iter().map(|&d| d as u32).collect(),
                })
                .collect(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!g.valid && !g.commitment_matches);
    assert_eq!(g.mismatches, [5]);
    assert_eq!(g.seed_commitment, v["seed_commitment"]);
}

#[tokio::test]
async fn out_of_bounds_inputs_are_clear_4xx() {
    let server = Server::start(&[]).await;
    let long_id = "m".repeat(129);
    let long_seed = "s".repeat(257);
    let seed = "6025512f08ad4012896b8d1ad5ca00f965105f03adc2205032d249edbfc8bc2b";
    let commitment = "aebb1934451e5e78c63cde858fb88b5eac408be3bd1d8cdd9baf6312ec7443cc";
    let roll = |n: usize| {
        Value::Array(vec![
            json!({"client_seed": "", "game": 1, "turn": 1, "dice": [1, 1]});
            n
        ])
    };
    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "/dice/roll",
            roll_body("", "c", 1, 1),
            "invalid-match-id",
            "match_id",
        ),
        (
            "/dice/roll",
            roll_body(&long_id, "c", 1, 1),
            "invalid-match-id",
            "match_id",
        ),
        (
            "/dice/roll",
            roll_body("a\nb", "c", 1, 1),
            "invalid-match-id",
            "match_id",
        ),
        (
            "/dice/roll",
            roll_body("m", &long_seed, 1, 1),
            "invalid-client-seed",
            "client_seed",
        ),
        (
            "/dice/roll",
            roll_body("m", "tab\there", 1, 1),
            "invalid-client-seed",
            "client_seed",
        ),
        (
            "/dice/roll",
            roll_body("m", "c", 0, 1),
            "invalid-game",
            "game",
        ),
        (
            "/dice/roll",
            roll_body("m", "c", 100_001, 1),
            "invalid-game",
            "game",
        ),
        (
            "/dice/roll",
            json!({"match_id": "m", "client_seed": "c", "game": -3, "turn": 1}),
            "invalid-game",
            "game",
        ),
        (
            "/dice/roll",
            roll_body("m", "c", 1, 0),
            "invalid-turn",
            "turn",
        ),
        (
            "/dice/roll",
            roll_body("m", "c", 1, 10_001),
            "invalid-turn",
            "turn",
        ),
        (
            "/dice/roll",
            json!({"match_id": "m", "client_seed": "c", "game": 1}),
            "missing-field",
            "turn",
        ),
        (
            "/dice/roll",
            json!({"match_id": "m", "client_seed": "c", "game": 1, "turn": 1, "x": 1}),
            "invalid-request",
            "x",
        ),
        (
            "/dice/roll",
            json!({"match_id": 5, "client_seed": "c", "game": 1, "turn": 1}),
            "invalid-request",
            "match_id",
        ),
        (
            "/dice/opening",
            opening_body("m", "c", 0),
            "invalid-game",
            "game",
        ),
        (
            "/dice/opening",
            opening_body("", "c", 1),
            "invalid-match-id",
            "match_id",
        ),
        (
            "/dice/verify",
            json!({"match_id": "m", "server_seed": "00", "commitment": commitment, "rolls": []}),
            "invalid-server-seed",
            "server_seed",
        ),
        (
            "/dice/verify",
            json!({"match_id": "m", "server_seed": seed, "commitment": "xyz", "rolls": []}),
            "invalid-commitment",
            "commitment",
        ),
        (
            "/dice/verify",
            json!({"match_id": "m", "server_seed": seed, "commitment": commitment, "rolls": [{"client_seed": "", "game": 1, "turn": 1, "dice": [1, 7]}]}),
            "invalid-dice",
            "rolls[0].dice[1]",
        ),
        (
            "/dice/verify",
            json!({"match_id": "m", "server_seed": seed, "commitment": commitment, "rolls": [{"client_seed": "", "game": 1, "turn": 10_001, "dice": [1, 1]}]}),
            "invalid-turn",
            "rolls[0].turn",
        ),
        (
            "/dice/verify",
            json!({"match_id": "m", "server_seed": seed, "commitment": commitment, "rolls": roll(1001)}),
            "too-many-rolls",
            "rolls",
        ),
    ];
    for (path, body, slug, field) in cases {
        let (status, problem) = server.post_roll(path, &body).await;
        assert_eq!(status, 400, "{path} {body}: {problem}");
        assert_eq!(problem["type"], slug, "{path} {body}: {problem}");
        if field != "." {
            assert_eq!(problem["field"], field, "{path} {body}: {problem}");
        }
        assert!(!problem["detail"].as_str().unwrap().is_empty());
    }
    // 1000 rolls are fine.
    let (status, v) = server
        .post(
            "/dice/verify",
            &json!({"match_id": "m", "server_seed": seed, "commitment": commitment, "rolls": roll(1000)}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    // The commitment query.
    for path in [
        "/dice/commitment",
        "/dice/commitment?match_id=",
        "/dice/commitment?match_id=a%0Ab",
        "/dice/commitment?match_id=a&match_id=b",
    ] {
        let (status, problem) = get_json(&server, path).await;
        assert_eq!(status, 400, "{path}: {problem}");
        assert_eq!(problem["type"], "invalid-match-id", "{path}: {problem}");
        assert_eq!(problem["field"], "match_id");
    }

    // gRPC: INVALID_ARGUMENT with the same slug and field.
    let mut grpc = server.grpc().await;
    let status = grpc
        .roll_dice(with_roll_token(proto::RollDiceRequest {
            match_id: "m".into(),
            client_seed: "c".into(),
            game: 1,
            turn: 0,
        }))
        .await
        .unwrap_err();
    assert_grpc_error(&status, Code::InvalidArgument, "invalid-turn");
    let violations = status.get_details_bad_request().unwrap().field_violations;
    assert_eq!(violations[0].field, "turn");
    let status = grpc
        .get_commitment(proto::GetCommitmentRequest {
            match_id: long_id.clone(),
        })
        .await
        .unwrap_err();
    assert_grpc_error(&status, Code::InvalidArgument, "invalid-match-id");
    let status = grpc
        .opening_roll(with_roll_token(proto::OpeningRollRequest {
            match_id: "m".into(),
            client_seed: "c".into(),
            game: 0,
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_grpc_error(&status, Code::InvalidArgument, "invalid-game");
}

/// Runs the binary with `env` (and nothing else), returning its stderr
/// lines up to the "serving" line (or to exit) and the process.
async fn run_binary(env: &[(&str, &str)]) -> (Vec<String>, tokio::process::Child) {
    bgref_e2e::start_until_serving(bgref_e2e::command(env, false)).await
}

#[tokio::test]
async fn without_secrets_the_keys_are_ephemeral_and_one_warning_says_so() {
    let (lines, mut child) = run_binary(&[]).await;
    let _ = child.kill().await;
    assert!(
        lines.iter().any(|l| l.contains("bgref serving")),
        "{lines:#?}"
    );
    let warnings: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("\"WARN\"") && l.contains("restart"))
        .collect();
    assert_eq!(warnings.len(), 1, "{lines:#?}");

    // Two ephemeral instances differ.
    let a = Server::start(&[("BGREF_DICE_SECRET", ""), ("BGREF_SIGNING_KEY", "")]).await;
    let b = Server::start(&[("BGREF_DICE_SECRET", ""), ("BGREF_SIGNING_KEY", "")]).await;
    assert_ne!(commitment(&a, "m").await, commitment(&b, "m").await);
    assert_ne!(published_keys(&a).await[0].0, published_keys(&b).await[0].0);
}

#[tokio::test]
async fn a_bad_secret_stops_start_up_naming_the_option_not_the_value() {
    let value = "not-hex-and-secret-value";
    for (var, option) in [
        ("BGREF_DICE_SECRET", "BGREF_DICE_SECRET"),
        ("BGREF_SIGNING_KEY", "BGREF_SIGNING_KEY"),
        ("BGREF_VERIFY_KEYS", "BGREF_VERIFY_KEYS"),
    ] {
        let (lines, mut child) = run_binary(&[(var, value)]).await;
        let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
            .await
            .expect("exits")
            .expect("status");
        assert_eq!(status.code(), Some(2), "{lines:#?}");
        let text = lines.join("\n");
        assert!(text.contains(option), "{text}");
        assert!(!text.contains(value), "{text}");
    }
    // A short secret is refused too.
    let (lines, mut child) = run_binary(&[("BGREF_DICE_SECRET", "00112233")]).await;
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), Some(2));
    assert!(!lines.join("\n").contains("00112233"));
}

/// A roll asked before its turn is due shows the dice early: `/dice/roll`
/// and `/dice/opening` (gRPC `RollDice`, `OpeningRoll`) are for the holder
/// of the operator's roll token only, and disabled without one.
#[tokio::test]
async fn rolls_are_only_for_the_holder_of_the_roll_token() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let roll = roll_body("match-0001", "alice:bob", 1, 1);
    let opening = opening_body("match-0001", "alice:bob", 1);
    for auth in [
        None,
        Some("Bearer wrong-token-0000000000".to_owned()),
        Some(format!("Bearer {TEST_REVEAL_TOKEN}")),
        Some(format!("Basic {TEST_ROLL_TOKEN}")),
        Some(TEST_ROLL_TOKEN.to_owned()),
        Some(format!("Bearer {TEST_ROLL_TOKEN}x")),
    ] {
        for (path, body) in [("/dice/roll", &roll), ("/dice/opening", &opening)] {
            let (status, www, problem) = server.post_auth(path, body, auth.as_deref()).await;
            assert_eq!(status, 401, "{path} {auth:?}: {problem}");
            assert_eq!(problem["type"], "unauthorized", "{problem}");
            assert_eq!(www.as_deref(), Some("Bearer"));
            assert!(problem.get("dice").is_none() && problem.get("x_die").is_none());
        }
        let mut req = tonic::Request::new(proto::RollDiceRequest {
            match_id: "match-0001".into(),
            client_seed: "alice:bob".into(),
            game: 1,
            turn: 1,
        });
        let mut opening_req = tonic::Request::new(proto::OpeningRollRequest {
            match_id: "match-0001".into(),
            client_seed: "alice:bob".into(),
            game: 1,
            ..Default::default()
        });
        if let Some(a) = &auth {
            req.metadata_mut()
                .insert("authorization", a.parse().unwrap());
            opening_req
                .metadata_mut()
                .insert("authorization", a.parse().unwrap());
        }
        for status in [
            grpc.roll_dice(req).await.unwrap_err(),
            grpc.opening_roll(opening_req).await.unwrap_err(),
        ] {
            assert_grpc_error(&status, Code::Unauthenticated, "unauthorized");
        }
    }
    // The token is checked before the request: no hint about its fields.
    let (status, _, problem) = server
        .post_auth("/dice/opening", &opening_body("", "c", 0), None)
        .await;
    assert_eq!((status, &problem["type"]), (401, &json!("unauthorized")));
    // The holder of the token rolls (and so do the tests above).
    let (status, _, body) = server
        .post_auth(
            "/dice/roll",
            &roll,
            Some(&format!("bearer {TEST_ROLL_TOKEN}")),
        )
        .await;
    assert_eq!((status, &body["dice"]), (200, &json!([3, 5])), "{body}");

    // Without a configured roll token, rolling on demand is disabled, and
    // the answer points to the game flow, which still rolls.
    let disabled = Server::start(&[("BGREF_DICE_ROLL_TOKEN", "")]).await;
    for auth in [None, Some(format!("Bearer {TEST_ROLL_TOKEN}"))] {
        for (path, body) in [("/dice/roll", &roll), ("/dice/opening", &opening)] {
            let (status, _, problem) = disabled.post_auth(path, body, auth.as_deref()).await;
            assert_eq!(status, 403, "{path}: {problem}");
            assert_eq!(problem["type"], "roll-disabled");
            let detail = problem["detail"].as_str().unwrap();
            assert!(detail.contains("POST /games"), "{detail}");
        }
    }
    let status = disabled
        .grpc()
        .await
        .roll_dice(proto::RollDiceRequest {
            match_id: "match-0001".into(),
            client_seed: "alice:bob".into(),
            game: 1,
            turn: 1,
        })
        .await
        .unwrap_err();
    assert_grpc_error(&status, Code::PermissionDenied, "roll-disabled");
    let (status, game) = disabled
        .post(
            "/games",
            &json!({"match_id": "match-0001", "client_seed": "alice:bob"}),
        )
        .await;
    assert_eq!(status, 200, "{game}");
    let (status, rolled) = disabled
        .post(
            "/games/act",
            &json!({"state": game["state"], "player": "x", "action": "roll"}),
        )
        .await;
    assert_eq!(status, 200, "{rolled}");
    assert_eq!(rolled["roll"]["turn"], 0, "{rolled}");

    // A short roll token stops start-up, naming the option, not the value.
    let (lines, mut child) = run_binary(&[("BGREF_DICE_ROLL_TOKEN", "short-token")]).await;
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("exits")
        .expect("status");
    assert_eq!(status.code(), Some(2), "{lines:#?}");
    let text = lines.join("\n");
    assert!(text.contains("BGREF_DICE_ROLL_TOKEN"), "{text}");
    assert!(!text.contains("short-token"), "{text}");
}

/// The game flow's roll receipts: unsigned unless the action asks
/// (`sign_roll`), then signed by the published key over the receipt's
/// bytes; the same answer otherwise, over both protocols.
#[tokio::test]
async fn game_flow_receipts_are_signed_when_asked() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let keys = published_keys(&server).await;
    let (mid, cs) = ("receipts-0001", "alice:bob");
    let c = commitment(&server, mid).await;
    let (status, mut answer) = server
        .post("/games", &json!({"match_id": mid, "client_seed": cs}))
        .await;
    assert_eq!(status, 200, "{answer}");
    // The opening roll (turn 0), the opening move, then the other player's
    // first roll.
    for turn in [0, 1] {
        let state = answer["state"].as_str().unwrap().to_owned();
        let player = answer["view"]["to_act"].as_str().unwrap_or("x").to_owned();
        let mut rolled = Vec::new();
        for sign in [false, true] {
            let mut body = json!({"state": state, "player": player, "action": "roll"});
            if sign {
                body["sign_roll"] = json!(true);
            }
            let (status, reply) = server.post("/games/act", &body).await;
            assert_eq!(status, 200, "{reply}");
            let roll = &reply["roll"];
            assert_eq!(
                (&roll["commitment"], &roll["turn"]),
                (&json!(c), &json!(turn))
            );
            assert_eq!(roll.get("signature").is_some(), sign, "{roll}");
            if sign {
                let message = signed_bytes(mid, cs, 1, turn, dice_of(&roll["dice"]), &c);
                check_signature(&keys, roll, &message);
            }
            let g = grpc
                .act(bgref_e2e::proto_act(&state, &body))
                .await
                .unwrap()
                .into_inner();
            let g_roll = g.roll.expect("a roll's receipt");
            assert_eq!(g_roll.signature, roll["signature"].as_str().unwrap_or(""));
            assert_eq!(json!(g_roll.dice), roll["dice"]);
            rolled.push(reply);
        }
        // Asking for the signature changes nothing else.
        let signed = rolled.pop().unwrap();
        let mut unsigned = rolled.pop().unwrap();
        unsigned["roll"]["signature"] = signed["roll"]["signature"].clone();
        assert_eq!(unsigned, signed);
        answer = signed;
        if turn == 0 {
            let view = &answer["view"];
            let body = json!({
                "state": answer["state"],
                "player": view["to_act"],
                "action": "move",
                "play": view["plays"][0]["notation"],
            });
            let (status, moved) = server.post("/games/act", &body).await;
            assert_eq!(status, 200, "{moved}");
            assert_ne!(moved["view"]["to_act"], view["to_act"], "{moved}");
            answer = moved;
        }
    }
}

//! Refereed games through the real binary: two bots play a 5-point match
//! (doubles, a Crawford game, a post-Crawford game) and a money session
//! over HTTP and gRPC using only `state` and `view`; both protocols give
//! the same tokens; the transcript verifies; the tamper suite.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bgref_e2e::{
    Server, TEST_DICE_SECRET, act_over_both, authorized, grpc_slug, new_game_over_both, proto_act,
    proto_step, wire,
};
use bgref_service::proto;
use serde_json::{Value, json};
use tonic::Code;
use tonic::transport::Channel;

type Grpc = proto::referee_client::RefereeClient<Channel>;

/// A deterministic bot: what `player` does in `view` at step `n`.
fn choose(view: &Value, n: usize, doubling: bool) -> Value {
    let phase = view["phase"].as_str().unwrap();
    let to_act = view["to_act"].as_str().unwrap_or("x");
    let mut step = json!({"player": to_act});
    match phase {
        "opening_roll" | "game_over" => {
            step["action"] = json!(if phase == "game_over" {
                "next_game"
            } else {
                "roll"
            });
        }
        "roll_or_double" => {
            let double = doubling && view["may_double"] == true && n.is_multiple_of(5);
            step["action"] = json!(if double { "double" } else { "roll" });
        }
        "answer_double" => {
            step["action"] = json!(if n.is_multiple_of(3) { "pass" } else { "take" });
        }
        "move" => {
            let plays = view["plays"].as_array().unwrap();
            step["action"] = json!("move");
            step["play"] = plays[(n * 7) % plays.len()]["notation"].clone();
        }
        other => panic!("no bot move in phase {other}"),
    }
    step
}

/// Plays a match from `start` with the bots over HTTP, each action also
/// over gRPC on the gRPC token; both must give the same token. Returns the
/// actions, the states and the kinds of game played.
async fn play_match(
    server: &Server,
    grpc: &mut Grpc,
    start: &Value,
    doubling: bool,
    games: usize,
) -> (Vec<Value>, Vec<Value>) {
    let (first, _) = new_game_over_both(server, grpc, start).await;
    let mut state = first["state"].as_str().unwrap().to_owned();
    let mut view = first["view"].clone();
    let mut actions = Vec::new();
    let mut views = vec![view.clone()];
    let mut played = 0;
    for n in 0..20_000 {
        if view["phase"] == "match_over" || played == games {
            break;
        }
        let step = choose(&view, n, doubling);
        // Every other action asks for its roll's receipt signed (not part
        // of the transcript's step).
        let sign = n % 2 == 0;
        let mut body = step.clone();
        if sign {
            body["sign_roll"] = json!(true);
        }
        let (answer, g) = act_over_both(server, grpc, &state, &body).await;
        if let Some(roll) = answer.get("roll") {
            assert_eq!(roll["dice"].as_array().unwrap().len(), 2);
            let signature = roll.get("signature").map(|s| s.as_str().unwrap().len());
            assert_eq!(signature, sign.then_some(128), "{roll}");
            assert_eq!(g.roll.unwrap().signature.len(), if sign { 128 } else { 0 });
        }
        if answer.get("game_over").is_some() {
            played += 1;
        }
        state = answer["state"].as_str().unwrap().to_owned();
        view = answer["view"].clone();
        actions.push(step);
        views.push(view.clone());
    }
    (actions, views)
}

#[tokio::test]
async fn bots_play_a_five_point_match_and_money_games_over_both_protocols() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    // A 5-point match with doubles that goes through a Crawford game and a
    // post-Crawford game: the first match id (of a fixed list) that does.
    let mut found = None;
    for k in 0..30 {
        let start = json!({"match_id": format!("bots-{k}"), "client_seed": "alice:bob",
            "match": {"length": 5}});
        let (actions, views) = play_match(&server, &mut grpc, &start, true, usize::MAX).await;
        let kinds: Vec<&str> = views
            .iter()
            .filter(|v| v["phase"] == "opening_roll")
            .map(|v| v["match"]["game_kind"].as_str().unwrap())
            .collect();
        let doubled = actions.iter().any(|a| a["action"] == "double");
        if kinds.contains(&"crawford") && kinds.contains(&"post_crawford") && doubled {
            found = Some((start, actions, views));
            break;
        }
    }
    let (start, actions, views) =
        found.expect("no bot match with Crawford and post-Crawford games");
    let last = views.last().unwrap();
    assert_eq!(last["phase"], "match_over");
    let result = &last["result"];
    let winner = result["winner"].as_str().unwrap();
    assert!(
        result["match"]["score"][winner].as_u64().unwrap() >= 5,
        "{result}"
    );
    assert_eq!(result["match"]["winner"], winner);
    // No double was allowed in the Crawford game.
    for (view, action) in views.iter().zip(&actions) {
        if view["match"]["game_kind"] == "crawford" {
            assert_eq!(view["may_double"], false);
            assert_ne!(action["action"], "double");
        }
    }

    // The transcript verifies, and reaches the final state exactly.
    let final_state = {
        let (status, verdict) = server
            .post(
                "/games/verify",
                &json!({"start": start, "actions": actions}),
            )
            .await;
        assert_eq!(status, 200, "{verdict}");
        assert_eq!(verdict["valid"], true, "{verdict}");
        assert_eq!(verdict["actions"], actions.len());
        assert_eq!(verdict["view"], *last);
        verdict["state"].as_str().unwrap().to_owned()
    };
    let (_, verdict) = server
        .post(
            "/games/verify",
            &json!({"start": start, "actions": actions, "state": final_state}),
        )
        .await;
    assert_eq!(
        (verdict["valid"].clone(), verdict["state_matches"].clone()),
        (json!(true), json!(true))
    );
    // The transcript as a match file GNU Backgammon imports (the writer is
    // checked against gnubg itself by scripts/ci-gnubg-import.sh), the
    // same over gRPC.
    let (status, exported) = server
        .post(
            "/games/export",
            &json!({"start": start, "actions": actions}),
        )
        .await;
    assert_eq!(status, 200, "{exported}");
    let mat = exported["mat"].as_str().unwrap();
    assert!(mat.contains("\n 5 point match\n"), "{mat}");
    assert!(
        mat.contains(" Game 1") && mat.contains("Doubles => 2"),
        "{mat}"
    );
    assert!(mat.contains("and the match"), "{mat}");
    let steps: Vec<proto::TranscriptStep> = actions.iter().map(proto_step).collect();
    let g = grpc
        .export_game(proto::ExportGameRequest {
            start: Some(wire::to_message("NewGameRequest", &start)),
            actions: steps,
            started_at_ms: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(g.mat, mat);

    // A changed action does not verify: the replay stops there.
    let mut forged = actions.clone();
    let i = forged.iter().position(|a| a["action"] == "move").unwrap();
    forged[i]["player"] = json!(if forged[i]["player"] == "x" { "o" } else { "x" });
    let (_, verdict) = server
        .post("/games/verify", &json!({"start": start, "actions": forged}))
        .await;
    assert_eq!(verdict["valid"], false);
    assert_eq!(verdict["refused"]["index"], i);
    assert_eq!(verdict["refused"]["reason_slug"], "not-your-turn");
    let (status, problem) = server
        .post("/games/export", &json!({"start": start, "actions": forged}))
        .await;
    assert_eq!(status, 422, "{problem}");
    assert_eq!(problem["type"], "illegal-transcript");
    assert_eq!(problem["field"], format!("actions[{i}]"));

    // A money session: several games, the session score carried on.
    let money = json!({"match_id": "bots-money", "client_seed": "s",
        "rules": {"jacoby": true, "beavers": 1}});
    let (_, views) = play_match(&server, &mut grpc, &money, true, 3).await;
    let over: Vec<&Value> = views.iter().filter(|v| v["phase"] == "game_over").collect();
    assert_eq!(over.len(), 3);
    let last = over.last().unwrap();
    let score = &last["result"]["match"]["score"];
    let total: u64 = over
        .iter()
        .map(|v| v["result"]["points"].as_u64().unwrap())
        .sum();
    assert_eq!(
        score["x"].as_u64().unwrap() + score["o"].as_u64().unwrap(),
        total
    );
    assert_eq!(last["result"]["match"]["length"], 0);
}

/// Refusals over both protocols: the HTTP problem and the gRPC status carry
/// the same slug and detail.
async fn refused(
    server: &Server,
    grpc: &mut Grpc,
    body: Value,
    http_status: u16,
    expected: &str,
) -> String {
    let (status, problem) = server.post("/games/act", &body).await;
    assert_eq!(status, http_status, "{body}: {problem}");
    assert_eq!(problem["type"], expected, "{problem}");
    let mut request = proto_act(body["state"].as_str().unwrap(), &body);
    if let Some(m) = body["match_id"].as_str() {
        request.match_id = m.to_owned();
    }
    let err = grpc.act(request).await.unwrap_err();
    assert_eq!(grpc_slug(&err), expected);
    assert_eq!(err.message(), problem["detail"]);
    assert_eq!(
        err.code(),
        if http_status == 422 {
            Code::FailedPrecondition
        } else {
            Code::InvalidArgument
        }
    );
    problem["detail"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn tampered_tokens_and_wrong_actions_are_refused() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let (_, game) = server
        .post("/games", &json!({"match_id": "tamper", "client_seed": "c"}))
        .await;
    let token = game["state"].as_str().unwrap().to_owned();
    let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
    assert!(bytes.len() < 300, "{} bytes", bytes.len());
    // Any byte changed: refused, whichever byte it is.
    for i in 0..bytes.len() {
        let mut changed = bytes.clone();
        changed[i] ^= 0x01;
        let body =
            json!({"state": URL_SAFE_NO_PAD.encode(&changed), "player": "x", "action": "roll"});
        let (status, problem) = server.post("/games/act", &body).await;
        assert_eq!(status, 400, "byte {i}: {problem}");
        let kind = problem["type"].as_str().unwrap();
        assert!(
            kind == "invalid-state-token" || kind == "unknown-key",
            "byte {i}: {problem}"
        );
    }
    let roll = |state: &str| json!({"state": state, "player": "x", "action": "roll"});
    refused(
        &server,
        &mut grpc,
        roll("not a token"),
        400,
        "invalid-state-token",
    )
    .await;
    let mut truncated = token.clone();
    truncated.truncate(token.len() - 10);
    refused(
        &server,
        &mut grpc,
        roll(&truncated),
        400,
        "invalid-state-token",
    )
    .await;
    // Another match id than the caller expects.
    let mut body = roll(&token);
    body["match_id"] = json!("another-match");
    refused(&server, &mut grpc, body, 400, "wrong-match").await;
    // Wrong phase, wrong player, out of order.
    let opened = {
        let (_, a) = server.post("/games/act", &roll(&token)).await;
        a
    };
    let mover = opened["view"]["to_act"].as_str().unwrap().to_owned();
    let other = if mover == "x" { "o" } else { "x" };
    let state = opened["state"].as_str().unwrap();
    refused(
        &server,
        &mut grpc,
        json!({"state": state, "player": other, "action": "move", "play": "24/18"}),
        422,
        "not-your-turn",
    )
    .await;
    refused(
        &server,
        &mut grpc,
        json!({"state": state, "player": mover, "action": "double"}),
        422,
        "wrong-phase",
    )
    .await;
    refused(
        &server,
        &mut grpc,
        json!({"state": state, "player": mover, "action": "take"}),
        422,
        "wrong-phase",
    )
    .await;
    let detail = refused(
        &server,
        &mut grpc,
        json!({"state": state, "player": mover, "action": "move", "play": "25/off"}),
        422,
        "illegal-play",
    )
    .await;
    assert!(!detail.is_empty());
    // Re-sending an old token rolls the same dice: no advantage.
    let (_, again) = server.post("/games/act", &roll(&token)).await;
    assert_eq!(again["state"], opened["state"]);
    assert_eq!(again["roll"], opened["roll"]);

    // A token signed by another key: unknown here; known once that key is
    // published as a verify key (rotation), and then it verifies.
    let other_key = "1f".repeat(32);
    let other = Server::start(&[("BGREF_SIGNING_KEY", other_key.as_str())]).await;
    let (_, foreign) = other
        .post("/games", &json!({"match_id": "tamper", "client_seed": "c"}))
        .await;
    let foreign = foreign["state"].as_str().unwrap().to_owned();
    refused(&server, &mut grpc, roll(&foreign), 400, "unknown-key").await;
    let (_, keys) = other.get("/dice/keys").await;
    let keys: Value = serde_json::from_str(&keys).unwrap();
    let old_public = keys["keys"][0]["public_key"].as_str().unwrap();
    let rotated = Server::start(&[
        ("BGREF_SIGNING_KEY", "2e".repeat(32).as_str()),
        ("BGREF_VERIFY_KEYS", old_public),
        ("BGREF_DICE_SECRET", TEST_DICE_SECRET),
    ])
    .await;
    let (status, answer) = rotated.post("/games/act", &roll(&foreign)).await;
    assert_eq!(status, 200, "{answer}");
    // The new token is signed by the new key, and names it.
    let (_, new_keys) = rotated.get("/dice/keys").await;
    let new_keys: Value = serde_json::from_str(&new_keys).unwrap();
    let new_id = new_keys["keys"][0]["key_id"].as_str().unwrap();
    let new_token = URL_SAFE_NO_PAD
        .decode(answer["state"].as_str().unwrap())
        .unwrap();
    let named: String = new_token[1..9].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(named, new_id);
}

const GAME_TOKEN: &str = "test-game-token-0001";

/// The start-up log lines of `bgref` with the test secrets and `env`, up to
/// the line saying it serves; the process is killed.
async fn startup_lines(env: &[(&str, &str)]) -> Vec<String> {
    let (out, mut child) = bgref_e2e::start_until_serving(bgref_e2e::command(env, true)).await;
    let _ = child.kill().await;
    out
}

/// Whoever can reach an open game flow can start a match again and read its
/// dice early: with `BGREF_GAME_TOKEN` set, every game operation over both
/// protocols is for the token's holder only (checked before the request is
/// read), and the holder plays as before.
#[tokio::test]
async fn the_game_token_closes_the_game_flow_over_both_protocols() {
    let server = Server::start(&[("BGREF_GAME_TOKEN", GAME_TOKEN)]).await;
    let mut grpc = server.grpc().await;
    let bearer = format!("Bearer {GAME_TOKEN}");
    let start =
        json!({"match_id": "gated-0001", "client_seed": "alice:bob", "match": {"length": 3}});

    // The holder starts a game and plays a few actions.
    let (status, _, first) = server.post_auth("/games", &start, Some(&bearer)).await;
    assert_eq!(status, 200, "{first}");
    let mut state = first["state"].as_str().unwrap().to_owned();
    let mut view = first["view"].clone();
    let mut actions = Vec::new();
    for n in 0..8 {
        let step = choose(&view, n, false);
        let mut body = step.clone();
        body["state"] = json!(state);
        let (status, _, acted) = server.post_auth("/games/act", &body, Some(&bearer)).await;
        assert_eq!(status, 200, "{acted}");
        // gRPC with the token gives the same state.
        let g = grpc
            .act(authorized(proto_act(&state, &step), Some(&bearer)))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(g.state, acted["state"], "HTTP and gRPC differ at {n}");
        state = acted["state"].as_str().unwrap().to_owned();
        view = acted["view"].clone();
        actions.push(step);
    }
    assert!(
        actions.iter().filter(|a| a["action"] == "move").count() >= 2,
        "{actions:?}"
    );
    let transcript = json!({"start": start, "actions": actions});
    let (status, _, verdict) = server
        .post_auth("/games/verify", &transcript, Some(&bearer))
        .await;
    assert_eq!(status, 200, "{verdict}");
    assert_eq!(verdict["valid"], true, "{verdict}");
    assert_eq!(verdict["state"], json!(state), "{verdict}");
    let (status, _, exported) = server
        .post_auth("/games/export", &transcript, Some(&bearer))
        .await;
    assert_eq!(
        (status, &exported["format"]),
        (200, &json!("mat")),
        "{exported}"
    );

    // Without it, or with another: 401 on every game operation, nothing of
    // the game in the answer.
    let act = json!({"state": state, "player": "x", "action": "roll"});
    let gates = [
        ("/games", &start),
        ("/games/act", &act),
        ("/games/verify", &transcript),
        ("/games/export", &transcript),
    ];
    let wrong = [
        None,
        Some("Bearer wrong-token-0000000000".to_owned()),
        Some(format!("Bearer {}", bgref_e2e::TEST_ROLL_TOKEN)),
        Some(format!("Basic {GAME_TOKEN}")),
        Some(GAME_TOKEN.to_owned()),
        Some(format!("Bearer {GAME_TOKEN}x")),
    ];
    for auth in &wrong {
        for (path, body) in gates {
            let (status, www, problem) = server.post_auth(path, body, auth.as_deref()).await;
            assert_eq!(status, 401, "{path} {auth:?}: {problem}");
            assert_eq!(problem["type"], "unauthorized", "{problem}");
            assert_eq!(www.as_deref(), Some("Bearer"));
            assert!(problem.get("state").is_none() && problem.get("roll").is_none());
        }
        let auth = auth.as_deref();
        let new_game = proto::NewGameRequest {
            match_id: "gated-0001".into(),
            client_seed: "alice:bob".into(),
            ..Default::default()
        };
        let errors = [
            grpc.new_game(authorized(new_game.clone(), auth))
                .await
                .unwrap_err(),
            grpc.act(authorized(proto_act(&state, &act), auth))
                .await
                .unwrap_err(),
            grpc.verify_game(authorized(
                proto::VerifyGameRequest {
                    start: Some(new_game.clone()),
                    ..Default::default()
                },
                auth,
            ))
            .await
            .unwrap_err(),
            grpc.export_game(authorized(
                proto::ExportGameRequest {
                    start: Some(new_game),
                    ..Default::default()
                },
                auth,
            ))
            .await
            .unwrap_err(),
        ];
        for status in errors {
            assert_eq!(status.code(), Code::Unauthenticated, "{auth:?}");
            assert_eq!(grpc_slug(&status), "unauthorized");
        }
    }
    // The token is checked before the body: a malformed one is still a 401.
    let resp = reqwest::Client::new()
        .post(server.url("/games/act"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    let (status, _, problem) = server.post_auth("/games", &json!({}), Some(&bearer)).await;
    assert_eq!(status, 400, "the holder gets the body's error: {problem}");

    // The rest of the API stays open.
    let (status, body) = server.get("/dice/commitment?match_id=gated-0001").await;
    assert_eq!(status, 200, "{body}");
}

/// Without a game token the game flow is open (the development default),
/// and one start-up warning says so; with one, no such warning, and the
/// token is never logged. A short game token stops start-up.
#[tokio::test]
async fn an_open_game_flow_is_warned_about_once() {
    let open = startup_lines(&[]).await;
    assert!(
        open.iter().any(|l| l.contains("bgref serving")),
        "{open:#?}"
    );
    let warnings: Vec<&String> = open
        .iter()
        .filter(|l| l.contains("\"WARN\"") && l.contains("no game token configured"))
        .collect();
    assert_eq!(warnings.len(), 1, "{open:#?}");
    assert!(warnings[0].contains("read the dice"), "{}", warnings[0]);

    let closed = startup_lines(&[("BGREF_GAME_TOKEN", GAME_TOKEN)]).await;
    assert!(
        closed.iter().any(|l| l.contains("bgref serving")),
        "{closed:#?}"
    );
    assert!(
        !closed
            .iter()
            .any(|l| l.contains("no game token configured")),
        "{closed:#?}"
    );
    assert!(!closed.join("\n").contains(GAME_TOKEN));

    let short = startup_lines(&[("BGREF_GAME_TOKEN", "short-game")]).await;
    let text = short.join("\n");
    assert!(!text.contains("bgref serving"), "{text}");
    assert!(text.contains("BGREF_GAME_TOKEN"), "{text}");
    assert!(!text.contains("short-game"), "{text}");

    // Open: a game starts with no token at all.
    let server = Server::start(&[]).await;
    let (status, game) = server
        .post(
            "/games",
            &json!({"match_id": "open-0001", "client_seed": "c"}),
        )
        .await;
    assert_eq!(status, 200, "{game}");
}

/// A game allows 32 resignation offers (docs/referee.md, "Resignation
/// offers"): the 33rd is refused over both protocols, live and in a
/// replay, where a `reject` step is 6 bytes of protobuf.
#[tokio::test]
async fn resignation_offers_are_bounded_over_both_protocols() {
    const LIMIT: usize = 32;
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let start = json!({"match_id": "offers", "client_seed": "c"});
    let (_, game) = server.post("/games", &start).await;
    let roll = json!({"state": game["state"], "player": "x", "action": "roll"});
    let (_, mut answer) = server.post("/games/act", &roll).await;
    let mover = answer["view"]["to_act"].clone();
    let other = json!(if mover == "x" { "o" } else { "x" });
    let resign = |state: &Value| json!({"state": state, "player": mover, "action": "resign", "level": "single"});
    let mut actions = vec![json!({"player": "x", "action": "roll"})];
    for _ in 0..LIMIT {
        let (status, offered) = server.post("/games/act", &resign(&answer["state"])).await;
        assert_eq!(status, 200, "{offered}");
        let reject = json!({"state": offered["state"], "player": other, "action": "reject"});
        let (status, rejected) = server.post("/games/act", &reject).await;
        assert_eq!(status, 200, "{rejected}");
        answer = rejected;
        actions.push(json!({"player": mover, "action": "resign", "level": "single"}));
        actions.push(json!({"player": other, "action": "reject"}));
    }
    assert_eq!(answer["view"]["actions"], json!(["move"]));
    let detail = refused(
        &server,
        &mut grpc,
        resign(&answer["state"]),
        422,
        "too-many-offers",
    )
    .await;
    assert!(detail.contains("32"), "{detail}");
    // Play goes on.
    let play = answer["view"]["plays"][0]["notation"].clone();
    let moved = json!({"state": answer["state"], "player": mover, "action": "move", "play": play});
    let (status, moved) = server.post("/games/act", &moved).await;
    assert_eq!(status, 200, "{moved}");

    // A replay names the refused offer, over both protocols.
    actions.push(json!({"player": mover, "action": "resign", "level": "single"}));
    let (status, verdict) = server
        .post(
            "/games/verify",
            &json!({"start": start, "actions": actions}),
        )
        .await;
    assert_eq!(status, 200, "{verdict}");
    assert_eq!(verdict["valid"], false);
    assert_eq!(
        verdict["refused"]["index"].as_u64(),
        Some(2 * LIMIT as u64 + 1)
    );
    assert_eq!(verdict["refused"]["reason_slug"], "too-many-offers");
    let new_game = proto::NewGameRequest {
        match_id: "offers".into(),
        client_seed: "c".into(),
        ..Default::default()
    };
    let steps: Vec<_> = actions.iter().map(proto_step).collect();
    let grpc_verdict = grpc
        .verify_game(proto::VerifyGameRequest {
            start: Some(new_game.clone()),
            actions: steps.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let refusal = grpc_verdict.refused.unwrap();
    assert_eq!(
        (refusal.index as usize, refusal.reason_slug.as_str()),
        (2 * LIMIT + 1, "too-many-offers")
    );
    let (status, problem) = server
        .post(
            "/games/export",
            &json!({"start": start, "actions": actions}),
        )
        .await;
    assert_eq!(
        (status, problem["type"].as_str()),
        (422, Some("illegal-transcript"))
    );
    assert_eq!(problem["field"], format!("actions[{}]", 2 * LIMIT + 1));
    let err = grpc
        .export_game(proto::ExportGameRequest {
            start: Some(new_game),
            actions: steps,
            started_at_ms: None,
        })
        .await
        .unwrap_err();
    assert_eq!(grpc_slug(&err), "illegal-transcript");
}

/// `fields` on `/games/act` (gRPC `Act`) chooses what each legal play of
/// the view carries, as on `/legal-moves`; the token and the rest of the
/// answer are the same as without it.
#[tokio::test]
async fn fields_choose_what_the_views_plays_carry_over_both_protocols() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let (_, game) = server
        .post("/games", &json!({"match_id": "fields", "client_seed": "c"}))
        .await;
    let state = game["state"].as_str().unwrap();
    let roll = json!({"player": "x", "action": "roll"});
    let (full, _) = act_over_both(&server, &mut grpc, state, &roll).await;
    let plays = full["view"]["plays"].as_array().unwrap();
    assert!(!plays.is_empty(), "{full}");

    let mut step = roll.clone();
    step["fields"] = json!(["position_id"]);
    let (some, g) = act_over_both(&server, &mut grpc, state, &step).await;
    assert_eq!(some["state"], full["state"]);
    assert_eq!(some["view"]["position"], full["view"]["position"]);
    assert_eq!(some["event"], full["event"]);
    let chosen = some["view"]["plays"].as_array().unwrap();
    assert_eq!(chosen.len(), plays.len());
    for ((p, f), gp) in chosen
        .iter()
        .zip(plays)
        .zip(&g.view.as_ref().unwrap().plays)
    {
        assert_eq!(p["notation"], f["notation"]);
        assert!(p.get("moves").is_none(), "{p}");
        let position = &p["position"];
        let mut keys: Vec<&str> = position
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, ["gnubg_match_id", "position_id"], "{p}");
        assert_eq!(position["position_id"], f["position"]["position_id"]);
        assert_eq!(position["gnubg_match_id"], f["position"]["gnubg_match_id"]);
        // gRPC: the parts left out are empty.
        assert_eq!(gp.notation, p["notation"].as_str().unwrap());
        assert!(gp.moves.is_empty());
        let gpos = gp.position.as_ref().unwrap();
        assert_eq!(gpos.position_id, position["position_id"].as_str().unwrap());
        assert_eq!(
            gpos.gnubg_match_id,
            position["gnubg_match_id"].as_str().unwrap()
        );
        assert!(gpos.xgid.is_empty() && gpos.fibs.is_empty());
        assert!(gpos.board.is_none() && gpos.pips.is_none());
    }
    // The moves only: no position at all.
    step["fields"] = json!(["moves"]);
    let (moves, g) = act_over_both(&server, &mut grpc, state, &step).await;
    for (p, f) in moves["view"]["plays"].as_array().unwrap().iter().zip(plays) {
        assert_eq!(p, &json!({"notation": f["notation"], "moves": f["moves"]}));
    }
    assert!(g.view.unwrap().plays.iter().all(|p| p.position.is_none()));

    // Unknown names, over both protocols; an empty list over HTTP (over
    // gRPC an empty list is every field).
    let mut body = step.clone();
    body["state"] = json!(state);
    body["fields"] = json!(["position_id", "gnubg"]);
    let detail = refused(&server, &mut grpc, body.clone(), 400, "invalid-fields").await;
    assert!(detail.contains("\"gnubg\""), "{detail}");
    body["fields"] = json!([]);
    let (status, problem) = server.post("/games/act", &body).await;
    assert_eq!(
        (status, problem["type"].as_str()),
        (400, Some("invalid-fields"))
    );

    // Plakoto's plays carry its own encodings in full: fields refused.
    let (_, plakoto) = server
        .post(
            "/games",
            &json!({"match_id": "fields-p", "client_seed": "c", "variant": "plakoto"}),
        )
        .await;
    let mut body = roll.clone();
    body["state"] = plakoto["state"].clone();
    body["fields"] = json!(["position_id"]);
    let detail = refused(&server, &mut grpc, body, 400, "invalid-fields").await;
    assert!(detail.contains("plakoto"), "{detail}");
}

/// The players' names and the event given at the start are written into
/// the exported match file, over both protocols; they change no token;
/// labels gnubg could not read back are refused by name.
#[tokio::test]
async fn named_players_and_the_event_reach_the_export_over_both_protocols() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let plain = json!({"match_id": "named", "client_seed": "c", "match": {"length": 3}});
    let mut named = plain.clone();
    named["players"] = json!({"x": "Alice Smith", "o": "Bob"});
    named["event"] = json!("Club Final");
    named["date"] = json!("2026-12-06");
    named["round"] = json!("Semi-final 2");
    let (status, a) = server.post("/games", &plain).await;
    assert_eq!(status, 200, "{a}");
    let (status, b) = server.post("/games", &named).await;
    assert_eq!(status, 200, "{b}");
    assert_eq!(a["state"], b["state"], "labels are not in the token");
    let actions = vec![json!({"player": "x", "action": "roll"})];
    let (status, rolled) = server
        .post(
            "/games/act",
            &json!({"state": b["state"], "player": "x", "action": "roll"}),
        )
        .await;
    assert_eq!(status, 200, "{rolled}");
    let mover = rolled["view"]["to_act"].clone();
    let play = rolled["view"]["plays"][0]["notation"].clone();
    let mut actions = actions;
    actions.push(json!({"player": mover, "action": "move", "play": play}));

    let (status, exported) = server
        .post(
            "/games/export",
            &json!({"start": named, "actions": actions}),
        )
        .await;
    assert_eq!(status, 200, "{exported}");
    let mat = exported["mat"].as_str().unwrap();
    for line in [
        "; [Player 1 \"Alice Smith\"]\n",
        "; [Player 2 \"Bob\"]\n",
        "; [EventDate \"2026.12.06\"]\n",
        "; [Event \"Club Final\"]\n",
        "; [Round \"Semi-final 2\"]\n",
        "\n Alice Smith : 0                Bob : 0\n",
    ] {
        assert!(mat.contains(line), "{line:?} in {mat}");
    }
    let steps: Vec<proto::TranscriptStep> = actions.iter().map(proto_step).collect();
    let g = grpc
        .export_game(proto::ExportGameRequest {
            start: Some(wire::to_message("NewGameRequest", &named)),
            actions: steps,
            started_at_ms: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(g.mat, mat);
    // Without labels: players x and o, no header lines.
    let (_, exported) = server
        .post(
            "/games/export",
            &json!({"start": plain, "actions": actions}),
        )
        .await;
    let mat = exported["mat"].as_str().unwrap();
    assert!(
        mat.starts_with("; [Variation") && mat.contains("\n x : 0 "),
        "{mat}"
    );

    // Refused, by name, on every operation that takes a start.
    for (field, value, path) in [
        ("players", json!({"x": "Al:ice", "o": "Bob"}), "players.x"),
        ("players", json!({"x": "Alice", "o": " Bob"}), "players.o"),
        (
            "players",
            json!({"x": "Alice", "o": "B".repeat(32)}),
            "players.o",
        ),
        ("event", json!("the \"final\""), "event"),
        ("round", json!(""), "round"),
        ("date", json!("2026-02-29"), "date"),
        ("date", json!("6.12.2026"), "date"),
    ] {
        let mut start = plain.clone();
        start[field] = value;
        for (path_op, body, field) in [
            ("/games", start.clone(), path.to_owned()),
            (
                "/games/export",
                json!({"start": start, "actions": actions}),
                format!("start.{path}"),
            ),
            (
                "/games/verify",
                json!({"start": start, "actions": actions}),
                format!("start.{path}"),
            ),
        ] {
            let (status, problem) = server.post(path_op, &body).await;
            assert_eq!(
                (status, problem["type"].as_str()),
                (400, Some("invalid-label")),
                "{path_op} {body}: {problem}"
            );
            assert_eq!(problem["field"], field, "{problem}");
        }
        if start[field] == "" {
            continue; // over gRPC an empty string is no label
        }
        let err = grpc
            .new_game(wire::to_message::<proto::NewGameRequest>(
                "NewGameRequest",
                &start,
            ))
            .await
            .unwrap_err();
        assert_eq!(bgref_e2e::grpc_slug(&err), "invalid-label", "{start}");
    }
}

/// docs/referee.md, "The token": a game under way's token carries no
/// signature and is checked by its MAC; a finished game's token is signed
/// by the key `/dice/keys` publishes, which anyone can check; a token
/// written before the MAC (the body and its signature) still acts, over
/// both protocols.
#[tokio::test]
async fn finished_games_are_signed_and_tokens_from_before_the_mac_still_act() {
    use bgref_service::keys::{Signature, VerifyingKey};
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let (_, keys) = server.get("/dice/keys").await;
    let keys: Value = serde_json::from_str(&keys).unwrap();
    let hex = keys["keys"][0]["public_key"].as_str().unwrap();
    let public: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let public = VerifyingKey::from_bytes(&public.try_into().unwrap()).unwrap();
    // body, then [signature], the flag, 16 bytes of MAC.
    let seal = |token: &Value| {
        let bytes = URL_SAFE_NO_PAD.decode(token.as_str().unwrap()).unwrap();
        let (rest, _mac) = bytes.split_at(bytes.len() - 16);
        let (&flag, rest) = rest.split_last().unwrap();
        (flag, rest.to_vec())
    };

    let (_, game) = server
        .post("/games", &json!({"match_id": "sealed", "client_seed": "c"}))
        .await;
    let (flag, body) = seal(&game["state"]);
    assert_eq!(flag, 0, "a game under way is not signed");
    // The same state as a token of before the MAC: the body and its
    // signature (by the test signing key, the server's).
    let mut legacy = body.clone();
    legacy.extend_from_slice(&bgref_e2e::test_keys().sign(&body).to_bytes());
    let legacy = URL_SAFE_NO_PAD.encode(&legacy);
    let roll = json!({"player": "x", "action": "roll"});
    let (from_legacy, _) = act_over_both(&server, &mut grpc, &legacy, &roll).await;
    let (from_new, _) =
        act_over_both(&server, &mut grpc, game["state"].as_str().unwrap(), &roll).await;
    assert_eq!(from_legacy["state"], from_new["state"]);
    let (status, verdict) = server
        .post(
            "/games/verify",
            &json!({"start": {"match_id": "sealed", "client_seed": "c"}, "actions": [], "state": legacy}),
        )
        .await;
    assert_eq!(
        (status, &verdict["state_matches"]),
        (200, &json!(true)),
        "{verdict}"
    );

    // The game ends (a resignation accepted): its token is signed.
    let mover = from_new["view"]["to_act"].clone();
    let other = json!(if mover == "x" { "o" } else { "x" });
    let state = from_new["state"].as_str().unwrap();
    let resign = json!({"player": mover, "action": "resign", "level": "single"});
    let (offered, _) = act_over_both(&server, &mut grpc, state, &resign).await;
    let accept = json!({"player": other, "action": "accept"});
    let (over, _) = act_over_both(
        &server,
        &mut grpc,
        offered["state"].as_str().unwrap(),
        &accept,
    )
    .await;
    assert_eq!(over["view"]["phase"], "game_over", "{over}");
    let (flag, signed) = seal(&over["state"]);
    assert_eq!(flag, 1, "a finished game is signed");
    let (body, signature) = signed.split_at(signed.len() - 64);
    public
        .verify_strict(body, &Signature::from_slice(signature).unwrap())
        .expect("the signature verifies with the published key");
    // A changed signature byte is refused (the MAC covers it).
    let mut bytes = URL_SAFE_NO_PAD
        .decode(over["state"].as_str().unwrap())
        .unwrap();
    bytes[body.len() + 1] ^= 1;
    let next =
        json!({"state": URL_SAFE_NO_PAD.encode(&bytes), "player": "x", "action": "next_game"});
    refused(&server, &mut grpc, next, 400, "invalid-state-token").await;
}

/// docs/referee.md, "A match from a set position": a 9-point match whose
/// first game begins from a given position, cube and score is played to
/// its end by the bots over both protocols, every view marked `set_up`;
/// its transcript verifies to the final token; the export refuses it;
/// what cannot begin a match is refused by name on both protocols.
#[tokio::test]
async fn a_match_from_a_set_position_is_played_to_the_end_and_verified_over_both_protocols() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let start = json!({"match_id": "set-up", "client_seed": "c",
        "match": {"length": 9, "score": {"x": 2, "o": 1}},
        "position": {"position_id": "xGfwATDgc/ABMA", "turn": "o"},
        "cube": {"value": 2, "owner": "x"}});
    let (status, first) = server.post("/games", &start).await;
    assert_eq!(status, 200, "{first}");
    let view = &first["view"];
    assert_eq!(view["set_up"], true, "{view}");
    assert_eq!(
        (
            &view["phase"],
            &view["on_roll"],
            &view["to_act"],
            &view["turn"]
        ),
        (
            &json!("roll_or_double"),
            &json!("o"),
            &json!("o"),
            &json!(0)
        )
    );
    assert_eq!(view["position"]["position_id"], "xGfwATDgc/ABMA");
    assert_eq!(
        (&view["cube"]["value"], &view["cube"]["owner"]),
        (&json!(2), &json!("x"))
    );
    assert_eq!(view["may_double"], false, "x owns the cube");
    assert_eq!(view["match"]["score"], json!({"x": 2, "o": 1}));
    let g = grpc
        .new_game(wire::to_message::<proto::NewGameRequest>(
            "NewGameRequest",
            &start,
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(g.view.unwrap().set_up);
    // A match from the start is not marked.
    let plain = json!({"match_id": "set-up", "client_seed": "c", "match": {"length": 9}});
    let (_, from_start) = server.post("/games", &plain).await;
    assert!(from_start["view"].get("set_up").is_none(), "{from_start}");

    // The bots do not double: the set cube of 2 scores the first game
    // (at most 6 points: the match goes on).
    let (actions, views) = play_match(&server, &mut grpc, &start, false, usize::MAX).await;
    let last = views.last().unwrap();
    assert_eq!(last["phase"], "match_over", "{last}");
    assert!(views.iter().all(|v| v["set_up"] == true));
    let first_over = views.iter().find(|v| v["phase"] == "game_over").unwrap();
    assert!(
        first_over["result"]["points"].as_u64().unwrap() >= 2,
        "{first_over}"
    );
    // Later games begin at an opening roll from the starting position.
    let second = views
        .iter()
        .find(|v| v["game"] == 2)
        .unwrap_or_else(|| panic!("a second game: {} views, last {last}", views.len()));
    assert_eq!(second["phase"], "opening_roll");
    assert_eq!(second["position"]["position_id"], "4HPwATDgc/ABMA");

    let (status, verdict) = server
        .post(
            "/games/verify",
            &json!({"start": start, "actions": actions}),
        )
        .await;
    assert_eq!(status, 200, "{verdict}");
    assert_eq!(verdict["valid"], true, "{verdict}");
    assert_eq!(verdict["view"], *last);
    let (_, verdict) = server
        .post(
            "/games/verify",
            &json!({"start": start, "actions": actions, "state": verdict["state"]}),
        )
        .await;
    assert_eq!(verdict["state_matches"], true, "{verdict}");
    // The same transcript from the start is another match: its first
    // action already differs (o may not roll before the opening roll).
    let (_, other) = server
        .post(
            "/games/verify",
            &json!({"start": plain, "actions": actions}),
        )
        .await;
    assert_eq!(other["valid"], false, "{other}");

    let (status, problem) = server
        .post(
            "/games/export",
            &json!({"start": start, "actions": actions}),
        )
        .await;
    assert_eq!(status, 422, "{problem}");
    assert_eq!(
        (&problem["type"], &problem["field"]),
        (&json!("not-exportable"), &json!("start.position"))
    );
    let steps: Vec<proto::TranscriptStep> = actions.iter().map(proto_step).collect();
    let err = grpc
        .export_game(proto::ExportGameRequest {
            start: Some(wire::to_message("NewGameRequest", &start)),
            actions: steps,
            started_at_ms: None,
        })
        .await
        .unwrap_err();
    assert_eq!(grpc_slug(&err), "not-exportable");

    // Refused by name: an XGID with dice, a finished game, a cube waiting
    // for an answer or turned in the Crawford game, a cube without a
    // position, a tables game.
    let with = |changes: Value| {
        let mut body = start.clone();
        for (k, v) in changes.as_object().unwrap() {
            if v.is_null() {
                body.as_object_mut().unwrap().remove(k);
            } else {
                body[k] = v.clone();
            }
        }
        body
    };
    for (body, slug, field) in [
        (
            with(
                json!({"position": {"xgid": "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:2:1:0:5:10"},
                "cube": null, "match": null}),
            ),
            "invalid-position",
            "position.xgid",
        ),
        (
            with(
                json!({"position": {"board": {"points": vec![0; 24], "bar": {"x": 0, "o": 0},
                "off": {"x": 15, "o": 15}, "turn": "x"}}}),
            ),
            "invalid-position",
            "position.board",
        ),
        (
            with(json!({"cube": {"value": 2, "owner": "x", "offered_by": "o"}})),
            "invalid-cube",
            "cube",
        ),
        (
            with(json!({"match": {"length": 9, "score": {"x": 8, "o": 1}, "crawford": true}})),
            "invalid-cube",
            "cube",
        ),
        (with(json!({"position": null})), "invalid-request", "cube"),
        (
            with(json!({"variant": "plakoto", "cube": null, "match": null})),
            "invalid-position",
            "position.position_id",
        ),
        (
            with(json!({"variant": "portes", "match": null})),
            "no-cube-in-variant",
            "cube",
        ),
    ] {
        let (status, problem) = server.post("/games", &body).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(
            (problem["type"].as_str(), problem["field"].as_str()),
            (Some(slug), Some(field)),
            "{body}: {problem}"
        );
        let err = grpc
            .new_game(wire::to_message::<proto::NewGameRequest>(
                "NewGameRequest",
                &body,
            ))
            .await
            .unwrap_err();
        assert_eq!(
            (err.code(), grpc_slug(&err).as_str()),
            (Code::InvalidArgument, slug),
            "{body}"
        );
    }

    // The tables games too: Portes by its Position ID, Plakoto by its
    // board (x on roll with two checkers left, o fourteen on its 10
    // point), each a 3-point match played to its end and verified.
    let mut plakoto = vec![0; 24];
    plakoto[0] = 1;
    plakoto[1] = 1;
    plakoto[14] = -14;
    for (variant, position) in [
        (
            "portes",
            json!({"position_id": "xGfwATDgc/ABMA", "turn": "o"}),
        ),
        (
            "plakoto",
            json!({"board": {"points": plakoto, "bar": {"x": 0, "o": 0},
                "off": {"x": 13, "o": 1}, "turn": "x"}}),
        ),
    ] {
        let start = json!({"match_id": format!("set-up-{variant}"), "client_seed": "c",
            "variant": variant, "match": {"length": 3}, "position": position});
        let (actions, views) = play_match(&server, &mut grpc, &start, false, usize::MAX).await;
        assert_eq!(views[0]["phase"], "roll_or_double", "{variant}");
        assert_eq!(views.last().unwrap()["phase"], "match_over", "{variant}");
        assert!(views.iter().all(|v| v["set_up"] == true), "{variant}");
        let (status, verdict) = server
            .post(
                "/games/verify",
                &json!({"start": start, "actions": actions}),
            )
            .await;
        assert_eq!(status, 200, "{verdict}");
        assert_eq!(verdict["valid"], true, "{variant}: {verdict}");
        assert_eq!(verdict["view"], *views.last().unwrap(), "{variant}");
    }
}

/// Issue 29, item 5: `GET /play/` serves the page to play on, whole: no
/// script, style, font or image from anywhere but this service (its
/// Content-Security-Policy says so too), and the operations it calls are
/// the game flow's and the pictures'.
/// (`scripts/ci-play.sh` plays a whole match through it in Chromium.)
#[tokio::test]
async fn the_play_page_is_served_self_contained() {
    let server = Server::start(&[]).await;
    let resp = reqwest::get(server.url("/play/")).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        resp.headers()["content-type"].to_str().unwrap(),
        "text/html; charset=utf-8"
    );
    let csp = resp.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        csp.starts_with("default-src 'self'") && csp.contains("connect-src 'self'"),
        "{csp}"
    );
    let page = resp.text().await.unwrap();
    assert!(page.starts_with("<!doctype html>"), "{page}");
    for outside in [
        "http://",
        "https://",
        "//cdn",
        "<link",
        "@import",
        "src=\"http",
    ] {
        assert!(
            !page.contains(outside),
            "the page refers outside: {outside}"
        );
    }
    for call in [
        "\"/games\"",
        "\"/games/act\"",
        "\"/games/export\"",
        "\"/games/verify\"",
        "\"/render.svg?\"",
    ] {
        assert!(page.contains(call), "the page calls {call}");
    }
    // `/play` leads there.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let resp = client.get(server.url("/play")).send().await.unwrap();
    assert_eq!(resp.status(), 303);
    assert_eq!(resp.headers()["location"], "/play/");
}

//! Game views that describe the whole game: bots play matches and money
//! sessions through `/games` over HTTP and gRPC, and at every step the
//! view's XGID, FIBS board and gnubg Match ID, read back by the core's
//! parsers, must say the view's cube, owner, match length, score,
//! Crawford flag, dice and player on roll; the view's `actions` list what
//! the rules accept. And long transcripts: a 15-point match (more than the
//! 64 KiB global body limit) verifies and exports over HTTP with the
//! default settings, and every 413 names its limit and option.

use bgref_core::notation::fibs::FibsBoard;
use bgref_core::notation::match_id::{GameStatus, MatchId};
use bgref_core::notation::position_id::PositionId;
use bgref_core::notation::xgid::{Xgid, XgidDice};
use bgref_core::{CubeOwner, Player};
use bgref_e2e::{Server, act_over_both, wire};
use bgref_service::proto;
use serde_json::{Value, json};
use tonic::transport::Channel;

type Grpc = proto::referee_client::RefereeClient<Channel>;

fn player(v: &Value) -> Player {
    match v.as_str() {
        Some("x") => Player::X,
        Some("o") => Player::O,
        other => panic!("not a player: {other:?}"),
    }
}

fn owner(v: &Value) -> CubeOwner {
    match v.as_str() {
        Some("centre") => CubeOwner::Centre,
        _ => CubeOwner::Player(player(v)),
    }
}

fn u32_of(v: &Value) -> u32 {
    u32::try_from(v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))).unwrap()
}

fn names(actions: &Value) -> Vec<&str> {
    actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect()
}

/// A bot that takes only actions the view lists: what to do at step `n`.
fn choose(view: &Value, n: usize) -> Value {
    let actions = names(&view["actions"]);
    let to_act = view["to_act"].as_str().unwrap_or("x");
    let has = |a: &str| actions.contains(&a);
    let mut step = json!({"player": to_act});
    let action = if has("move") {
        let plays = view["plays"].as_array().unwrap();
        step["play"] = plays[(n * 7) % plays.len()]["notation"].clone();
        "move"
    } else if has("take") {
        // Beaver, raccoon, take and pass in turn, when offered.
        let options: Vec<&str> = ["beaver", "raccoon", "take", "take", "pass"]
            .into_iter()
            .filter(|a| has(a))
            .collect();
        options[(n / 4) % options.len()]
    } else if has("accept") {
        if n.is_multiple_of(2) {
            "accept"
        } else {
            "reject"
        }
    } else if has("double") && n.is_multiple_of(4) {
        "double"
    } else if has("resign") && n % 61 == 3 {
        step["level"] = json!("single");
        "resign"
    } else if has("roll") {
        "roll"
    } else if has("next_game") {
        "next_game"
    } else {
        panic!("no action for the bot in {view}")
    };
    step["action"] = json!(action);
    step
}

/// The view's dice as an array, when rolled.
fn view_dice(view: &Value) -> Option<[u8; 2]> {
    view["dice"].as_array().map(|d| {
        [
            u8::try_from(d[0].as_u64().unwrap()).unwrap(),
            u8::try_from(d[1].as_u64().unwrap()).unwrap(),
        ]
    })
}

/// Checks that the view's position strings, read by the core's parsers,
/// describe the view; and that its actions fit its phase.
fn check_view(view: &Value) {
    let phase = view["phase"].as_str().unwrap();
    let pos = &view["position"];
    let on_roll = player(&view["on_roll"]);
    let length = u32_of(&view["match"]["length"]);
    let score = (
        u32_of(&view["match"]["score"]["x"]),
        u32_of(&view["match"]["score"]["o"]),
    );
    let crawford = view["match"]["crawford"] == true;
    let cube = &view["cube"];
    let cube_value = u32_of(&cube["value"]);
    let cube_owner = owner(&cube["owner"]);
    let beavers = u32_of(&cube["beavers"]);
    // Portes and Tavla: a centred 1-cube nobody may turn.
    let tables = view.get("tables").is_some_and(|t| !t.is_null());
    let dice = if phase == "move" {
        view_dice(view)
    } else {
        None
    };
    let context = || format!("{phase}: {pos}");

    // XGID.
    let xgid: Xgid = pos["xgid"].as_str().unwrap().parse().unwrap();
    assert_eq!(xgid.setup.turn, on_roll, "xgid turn, {}", context());
    assert_eq!(
        xgid.cube_value.get(),
        cube_value,
        "xgid cube, {}",
        context()
    );
    assert_eq!(xgid.cube_owner, cube_owner, "xgid owner, {}", context());
    assert_eq!(xgid.match_length, length, "xgid length, {}", context());
    assert_eq!(
        (xgid.score.x, xgid.score.o),
        score,
        "xgid score, {}",
        context()
    );
    assert_eq!(
        xgid.match_state().crawford,
        crawford,
        "xgid crawford, {}",
        context()
    );
    let expected_dice = match (phase, dice) {
        (_, Some(d)) => XgidDice::Rolled(bgref_core::Dice::new(
            bgref_core::Die::new(d[0]),
            bgref_core::Die::new(d[1]),
        )),
        ("answer_double", None) if beavers == 0 => XgidDice::DoubleOffered,
        ("answer_double", None) if beavers % 2 == 1 => XgidDice::Beavered,
        ("answer_double", None) => XgidDice::Raccooned,
        _ => XgidDice::NotRolled,
    };
    assert_eq!(xgid.dice, expected_dice, "xgid dice, {}", context());
    if length == 0 {
        assert_eq!(
            xgid.cube_rules().beavers > 0,
            view["rules_beavers"] == true,
            "xgid beavers, {}",
            context()
        );
    }
    // The Position ID says the same checkers.
    let id: PositionId = pos["position_id"].as_str().unwrap().parse().unwrap();
    let mut from_id = id.to_setup(on_roll);
    from_id.off = None;
    assert_eq!(from_id, xgid.setup, "position id, {}", context());

    // FIBS board.
    let fibs: FibsBoard = pos["fibs"].as_str().unwrap().parse().unwrap();
    assert_eq!(fibs.setup.turn, on_roll, "fibs turn, {}", context());
    assert_eq!(
        (fibs.setup.points, fibs.setup.bar),
        (xgid.setup.points, xgid.setup.bar),
        "fibs checkers, {}",
        context()
    );
    let fibs_length = if length == 0 { 9999 } else { length };
    assert_eq!(fibs.match_length, fibs_length, "fibs length, {}", context());
    assert_eq!(
        (fibs.score.x, fibs.score.o),
        score,
        "fibs score, {}",
        context()
    );
    assert_eq!(fibs.cube, cube_value, "fibs cube, {}", context());
    assert_eq!(fibs.crawford, crawford, "fibs crawford, {}", context());
    assert_eq!(
        fibs.dice.map(|d| d.values()),
        dice,
        "fibs dice, {}",
        context()
    );
    for p in [Player::X, Player::O] {
        let may =
            !tables && !crawford && [CubeOwner::Centre, CubeOwner::Player(p)].contains(&cube_owner);
        assert_eq!(
            *fibs.may_double.get(p),
            may,
            "fibs may double {p}, {}",
            context()
        );
    }
    let x_doubled = phase == "answer_double" && view["to_act"] == "x";
    assert_eq!(fibs.doubled, x_doubled, "fibs doubled, {}", context());

    // gnubg Match ID.
    let id: MatchId = pos["gnubg_match_id"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        id.cube_value.get(),
        cube_value,
        "match id cube, {}",
        context()
    );
    assert_eq!(id.cube_owner, cube_owner, "match id owner, {}", context());
    assert_eq!(
        u32::from(id.match_length),
        length,
        "match id length, {}",
        context()
    );
    assert_eq!(id.crawford, crawford, "match id crawford, {}", context());
    if matches!(phase, "game_over" | "match_over") {
        assert_ne!(id.game_state, GameStatus::Playing, "{}", context());
        let after = if tables {
            &view["tables_result"]["match_score"]
        } else {
            &view["result"]["match"]["score"]
        };
        let cap = |n: u32| if length > 0 { n.min(length) } else { n };
        assert_eq!(
            (u32::from(id.score.x), u32::from(id.score.o)),
            (cap(u32_of(&after["x"])), cap(u32_of(&after["o"]))),
            "match id score after the game, {}",
            context()
        );
        assert_eq!(id.dice, None, "{}", context());
    } else {
        assert_eq!(id.game_state, GameStatus::Playing, "{}", context());
        assert_eq!(
            (u32::from(id.score.x), u32::from(id.score.o)),
            score,
            "match id score, {}",
            context()
        );
        assert_eq!(id.on_roll, on_roll, "match id on roll, {}", context());
        if let Some(to_act) = view["to_act"].as_str() {
            assert_eq!(
                id.turn,
                player(&json!(to_act)),
                "match id turn, {}",
                context()
            );
        }
        // gnubg writes the larger die first.
        let sorted = |d: [u8; 2]| [d[0].max(d[1]), d[0].min(d[1])];
        assert_eq!(
            id.dice.map(|d| sorted(d.values())),
            dice.map(sorted),
            "match id dice, {}",
            context()
        );
        assert_eq!(id.doubled, phase == "answer_double", "{}", context());
        assert_eq!(
            id.resignation.is_some(),
            phase == "answer_resignation",
            "{}",
            context()
        );
    }

    // The actions fit the phase.
    let actions = names(&view["actions"]);
    let expected: &[&str] = match phase {
        "opening_roll" => &["roll"],
        "move" => &["move", "resign"],
        "answer_resignation" => &["accept", "reject"],
        "game_over" => &["next_game"],
        "match_over" => &[],
        _ => &actions,
    };
    assert_eq!(actions, expected, "{phase}");
    match phase {
        "roll_or_double" => {
            assert!(actions.contains(&"roll") && actions.contains(&"resign"));
            assert_eq!(actions.contains(&"double"), view["may_double"] == true);
        }
        "answer_double" => {
            assert!(actions.starts_with(&["take", "pass"]), "{actions:?}");
            if length > 0 {
                assert_eq!(actions, ["take", "pass"]);
            }
        }
        _ => {}
    }
}

/// The gRPC view gives the same strings and actions as the HTTP one.
fn same_view(http: &Value, grpc: &proto::GameView) {
    let pos = grpc.position.as_ref().unwrap();
    let h = &http["position"];
    assert_eq!(pos.xgid, h["xgid"].as_str().unwrap());
    assert_eq!(pos.fibs, h["fibs"].as_str().unwrap());
    assert_eq!(pos.position_id, h["position_id"].as_str().unwrap());
    assert_eq!(pos.gnubg_match_id, h["gnubg_match_id"].as_str().unwrap());
    let actions: Vec<i32> = names(&http["actions"])
        .into_iter()
        .map(|a| wire::enum_number("GameAction", a).expect("an action"))
        .collect();
    assert_eq!(grpc.actions, actions, "{}", http["phase"]);
}

/// Plays `games` games (or to the match's end) from `start` with the bot
/// over HTTP and gRPC, checking every view; returns the phases seen and
/// the actions taken.
async fn play(
    server: &Server,
    grpc: &mut Grpc,
    start: &Value,
    games: usize,
) -> (Vec<String>, Vec<Value>) {
    let beavers = start["rules"]["beavers"].as_u64().unwrap_or(0) > 0;
    let (first, g) = bgref_e2e::new_game_over_both(server, grpc, start).await;
    let mut state = first["state"].as_str().unwrap().to_owned();
    let mut view = first["view"].clone();
    view["rules_beavers"] = json!(beavers);
    check_view(&view);
    same_view(&view, g.view.as_ref().unwrap());
    let mut phases = vec![view["phase"].as_str().unwrap().to_owned()];
    let mut actions = Vec::new();
    let mut played = 0;
    for n in 0..20_000 {
        if view["phase"] == "match_over" || played == games {
            break;
        }
        let step = choose(&view, n);
        let (answer, g) = act_over_both(server, grpc, &state, &step).await;
        if answer["view"]["phase"] == "game_over" || answer["view"]["phase"] == "match_over" {
            played += usize::from(view["phase"] != answer["view"]["phase"]);
        }
        state = answer["state"].as_str().unwrap().to_owned();
        view = answer["view"].clone();
        view["rules_beavers"] = json!(beavers);
        check_view(&view);
        same_view(&view, g.view.as_ref().unwrap());
        phases.push(view["phase"].as_str().unwrap().to_owned());
        actions.push(step);
    }
    (phases, actions)
}

#[tokio::test]
async fn every_view_string_describes_the_game_over_both_protocols() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;

    // 5-point matches: doubles, Crawford, resignations, to the end.
    let mut kinds = Vec::new();
    for k in 0..3 {
        let start = json!({"match_id": format!("views-{k}"), "client_seed": "alice:bob",
            "match": {"length": 5}});
        let (phases, actions) = play(&server, &mut grpc, &start, usize::MAX).await;
        assert_eq!(phases.last().map(String::as_str), Some("match_over"));
        kinds.extend(
            actions
                .iter()
                .map(|a| a["action"].as_str().unwrap().to_owned()),
        );
        kinds.extend(phases);
    }
    // Money sessions with beavers and raccoons, and Jacoby.
    for k in 0..3 {
        let start = json!({"match_id": format!("views-money-{k}"), "client_seed": "alice:bob",
            "rules": {"jacoby": true, "beavers": 2}});
        let (phases, actions) = play(&server, &mut grpc, &start, 6).await;
        kinds.extend(
            actions
                .iter()
                .map(|a| a["action"].as_str().unwrap().to_owned()),
        );
        kinds.extend(phases);
    }
    // Portes and Tavla on the backgammon board: a 3-point match and a
    // session, the cube centred at 1.
    for (k, variant) in ["portes", "tavla"].into_iter().enumerate() {
        let start = json!({"match_id": format!("views-tables-{k}"), "client_seed": "alice:bob",
            "variant": variant, "match": {"length": 3}});
        let (phases, _) = play(&server, &mut grpc, &start, usize::MAX).await;
        assert_eq!(phases.last().map(String::as_str), Some("match_over"));
        let start = json!({"match_id": format!("views-tables-session-{k}"),
            "client_seed": "alice:bob", "variant": variant});
        play(&server, &mut grpc, &start, 3).await;
    }
    for seen in [
        "double",
        "take",
        "pass",
        "beaver",
        "resign",
        "answer_double",
        "answer_resignation",
        "game_over",
        "match_over",
    ] {
        assert!(
            kinds.iter().any(|k| k == seen),
            "the bots never reached {seen}"
        );
    }
}

/// Plays a 15-point match with the bot over HTTP only (no doubles: a
/// long one); returns its start and actions.
async fn fifteen_point_match(server: &Server) -> (Value, Vec<Value>) {
    let start = json!({"match_id": "long-15", "client_seed": "alice:bob",
        "match": {"length": 15}});
    let (status, first) = server.post("/games", &start).await;
    assert_eq!(status, 200, "{first}");
    let mut state = first["state"].as_str().unwrap().to_owned();
    let mut view = first["view"].clone();
    let mut actions = Vec::new();
    for n in 0..20_000 {
        if view["phase"] == "match_over" {
            break;
        }
        let mut step = choose(&view, n);
        if step["action"] == "double" || step["action"] == "resign" {
            step = json!({"player": step["player"], "action": "roll"});
        }
        let mut body = step.clone();
        body["state"] = json!(state);
        let (status, answer) = server.post("/games/act", &body).await;
        assert_eq!(status, 200, "{body}: {answer}");
        state = answer["state"].as_str().unwrap().to_owned();
        view = answer["view"].clone();
        actions.push(step);
    }
    assert_eq!(view["phase"], "match_over");
    (start, actions)
}

#[tokio::test]
async fn a_fifteen_point_match_verifies_and_exports_with_the_default_limits() {
    let server = Server::start(&[]).await;
    let (start, actions) = fifteen_point_match(&server).await;
    let body = json!({"start": start, "actions": actions});
    let bytes = serde_json::to_vec(&body).unwrap().len();
    assert!(bytes > 64 * 1024, "the transcript is only {bytes} bytes");

    let (status, verdict) = server.post("/games/verify", &body).await;
    assert_eq!(status, 200, "{verdict}");
    assert_eq!(verdict["valid"], true, "{verdict}");
    assert_eq!(verdict["actions"], actions.len());
    let (status, exported) = server.post("/games/export", &body).await;
    assert_eq!(status, 200, "{exported}");
    assert!(
        exported["mat"]
            .as_str()
            .unwrap()
            .contains("\n 15 point match\n"),
        "{exported}"
    );

    // The same over gRPC.
    let mut grpc = server.grpc().await;
    let steps: Vec<proto::TranscriptStep> = actions.iter().map(bgref_e2e::proto_step).collect();
    let g = grpc
        .verify_game(proto::VerifyGameRequest {
            start: Some(proto::NewGameRequest {
                match_id: "long-15".into(),
                client_seed: "alice:bob".into(),
                r#match: Some(proto::MatchState {
                    length: 15,
                    ..Default::default()
                }),
                ..Default::default()
            }),
            actions: steps,
            state: String::new(),
            started_at_ms: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(g.valid);
    assert_eq!(
        g.view.unwrap().position.unwrap().xgid,
        verdict["view"]["position"]["xgid"]
    );

    // Past the transcript limit: a 413 naming it and its option.
    let mut huge = body.clone();
    huge["padding"] = json!("x".repeat(2 * 1024 * 1024));
    let (status, _, text) = server
        .post_raw("/games/verify", serde_json::to_vec(&huge).unwrap())
        .await;
    assert_eq!(status, 413, "{text}");
    assert!(
        text.contains("2097152 bytes") && text.contains("BGREF_MAX_TRANSCRIPT_BYTES"),
        "{text}"
    );
    // Any other body keeps the global limit, and its 413 names it.
    let mut act = json!({"state": "x", "player": "x", "action": "roll"});
    act["padding"] = json!("x".repeat(70 * 1024));
    let (status, _, text) = server
        .post_raw("/games/act", serde_json::to_vec(&act).unwrap())
        .await;
    assert_eq!(status, 413, "{text}");
    assert!(
        text.contains("65536 bytes") && text.contains("BGREF_MAX_BODY_BYTES"),
        "{text}"
    );
}

//! The referee clock through the real binary, on a test clock
//! (`BGREF_TEST_CLOCK_FILE`): each test moves the time by writing the file,
//! never by sleeping. Every action goes over HTTP and gRPC on the same
//! token at the same time, and both must give the same next token.

use std::path::PathBuf;

use bgref_e2e::{
    Server, act_over_both, grpc_slug, new_game_over_both, proto_act, proto_step, wire,
};
use bgref_service::proto;
use serde_json::{Value, json};
use tonic::transport::Channel;

type Grpc = proto::referee_client::RefereeClient<Channel>;

/// 2027-01-15T08:00:00Z.
const T0: u64 = 1_800_000_000_000;

/// The file the server reads the time from; removed on drop.
struct TestClock(PathBuf);

impl TestClock {
    fn new(name: &str) -> TestClock {
        let path =
            std::env::temp_dir().join(format!("bgref-test-clock-{name}-{}", std::process::id()));
        let clock = TestClock(path);
        clock.set(T0);
        clock
    }

    fn set(&self, ms: u64) {
        std::fs::write(&self.0, ms.to_string()).unwrap();
    }

    async fn server(&self) -> Server {
        Server::start(&[("BGREF_TEST_CLOCK_FILE", self.0.to_str().unwrap())]).await
    }
}

impl Drop for TestClock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `POST /games` and gRPC `NewGame` of `start`: the HTTP answer, after
/// checking both give the same token and clock.
async fn new_game(server: &Server, grpc: &mut Grpc, start: &Value) -> Value {
    let (first, g) = new_game_over_both(server, grpc, start).await;
    let clock = g.view.unwrap().clock.unwrap();
    assert_eq!(
        json!({"x": clock.reserve_ms.unwrap().x, "delay": clock.delay_ms, "at": clock.at_ms}),
        json!({"x": first["view"]["clock"]["reserve_ms"]["x"],
            "delay": first["view"]["clock"]["delay_ms"], "at": first["view"]["clock"]["at_ms"]})
    );
    first
}

/// A step of `player`, with the time its answer stamped, for a transcript.
fn timed(step: &Value, answer: &Value) -> Value {
    let mut step = step.clone();
    step["at_ms"] = answer["view"]["clock"]["at_ms"].clone();
    step
}

/// The transcript of `start` and `actions` (with their times) verifies to
/// `state` over HTTP.
async fn verifies(server: &Server, start: &Value, actions: &[Value], state: &str) {
    let (status, verdict) = server
        .post(
            "/games/verify",
            &json!({"start": start, "started_at_ms": T0, "actions": actions, "state": state}),
        )
        .await;
    assert_eq!(status, 200, "{verdict}");
    assert_eq!(verdict["state_matches"], true, "{verdict}");
}

/// A bot's step on `view` (rolls, first plays, takes; doubles now and
/// then), as the games tests' bot.
fn choose(view: &Value, n: usize) -> Value {
    let phase = view["phase"].as_str().unwrap();
    let mut step = json!({"player": view["to_act"].as_str().unwrap_or("x")});
    step["action"] = json!(match phase {
        "opening_roll" => "roll",
        "game_over" => "next_game",
        "roll_or_double" if view["may_double"] == true && n.is_multiple_of(9) => "double",
        "roll_or_double" => "roll",
        "answer_double" => "take",
        "move" => {
            let plays = view["plays"].as_array().unwrap();
            step["play"] = plays[(n * 7) % plays.len()]["notation"].clone();
            "move"
        }
        other => panic!("no bot move in phase {other}"),
    });
    step
}

/// The presets' reserves at several match lengths and scores (U.S. 2013,
/// 2.1; Unified 2001, 2.1), the same over both protocols, and the clocks
/// refused by name.
#[tokio::test]
async fn the_presets_reserve_follows_the_match_length_and_score_over_both_protocols() {
    let clock = TestClock::new("presets");
    let server = clock.server().await;
    let mut grpc = server.grpc().await;
    for (preset, length, x, o, reserve, delay) in [
        ("us-2013", 5, 0, 0, 10 * 60_000, 12_000),
        ("us-2013", 7, 3, 2, 9 * 60_000, 12_000),
        ("us-2013", 11, 9, 8, 5 * 60_000, 12_000),
        ("unified-2001", 9, 0, 0, 54 * 60_000, 0),
        ("unified-2001", 9, 5, 3, 30 * 60_000, 0),
    ] {
        let start = json!({"match_id": format!("preset-{preset}-{length}-{x}-{o}"),
            "match": {"length": length, "score": {"x": x, "o": o}},
            "clock": {"preset": preset}});
        let first = new_game(&server, &mut grpc, &start).await;
        let c = &first["view"]["clock"];
        assert_eq!(
            c,
            &json!({"reserve_ms": {"x": reserve, "o": reserve}, "delay_ms": delay,
                "overtime_ms": {"x": 0, "o": 0}, "running": null, "since_ms": null,
                "deadline_ms": null, "at_ms": T0, "expired": null}),
            "{start}"
        );
    }
    // Refused by name over both protocols.
    for (clock, slug, field) in [
        (json!({"preset": "fide"}), "invalid-clock", "clock.preset"),
        (
            json!({"preset": "us-2013", "reserve_ms": 1000}),
            "invalid-clock",
            "clock.preset",
        ),
        (
            json!({"delay_ms": 1000}),
            "invalid-clock",
            "clock.reserve_ms",
        ),
        (
            json!({"reserve_ms": 604_800_001u64}),
            "invalid-clock",
            "clock.reserve_ms",
        ),
        (
            json!({"reserve_ms": 1000, "delay_ms": 600_001}),
            "invalid-clock",
            "clock.delay_ms",
        ),
        (
            json!({"preset": "us-2013", "overtime_ms": 600_001}),
            "invalid-clock",
            "clock.overtime_ms",
        ),
    ] {
        let start = json!({"match_id": "refused", "match": {"length": 5}, "clock": clock});
        let (status, problem) = server.post("/games", &start).await;
        assert_eq!(
            (status, &problem["type"], &problem["field"]),
            (400, &json!(slug), &json!(field)),
            "{start}: {problem}"
        );
        // gRPC's preset is an enum: an unknown name has no number, so an
        // unknown number stands for it.
        let request = if clock["preset"] == "fide" {
            proto::NewGameRequest {
                match_id: "refused".into(),
                r#match: Some(proto::MatchState {
                    length: 5,
                    ..Default::default()
                }),
                clock: Some(proto::ClockRequest {
                    preset: 99,
                    ..Default::default()
                }),
                ..Default::default()
            }
        } else {
            wire::to_message("NewGameRequest", &start)
        };
        let err = grpc.new_game(request).await.unwrap_err();
        let want = if clock["preset"] == "fide" {
            "invalid-request"
        } else {
            slug
        };
        assert_eq!(grpc_slug(&err), want, "{start}");
    }
    // Money play has no match to lose.
    let (status, problem) = server
        .post(
            "/games",
            &json!({"match_id": "money", "clock": {"reserve_ms": 60_000}}),
        )
        .await;
    assert_eq!(
        (status, &problem["type"], &problem["field"]),
        (400, &json!("invalid-clock"), &json!("clock"))
    );
}

/// A clocked match over both protocols: nobody's time at the opening
/// roll; the starter's from then; the delay free, the rest off the
/// reserve; `claim_time` refused before the deadline, winning after it;
/// an action after the deadline loses the match on time; the transcript
/// with its times verifies to the final token.
#[tokio::test]
async fn a_clocked_match_times_every_action_and_is_lost_on_time_over_both_protocols() {
    let clock = TestClock::new("expiry");
    let server = clock.server().await;
    let mut grpc = server.grpc().await;
    let start = json!({"match_id": "clocked", "client_seed": "c", "match": {"length": 5},
        "clock": {"reserve_ms": 60_000, "delay_ms": 12_000}});
    let first = new_game(&server, &mut grpc, &start).await;
    let mut state = first["state"].as_str().unwrap().to_owned();
    let mut view: Value;
    let mut actions = Vec::new();
    // Acts `step` at `at` over both protocols.
    macro_rules! act {
        ($step:expr, $at:expr) => {{
            clock.set($at);
            let step = $step;
            let (answer, _) = act_over_both(&server, &mut grpc, &state, &step).await;
            assert_eq!(answer["view"]["clock"]["at_ms"], $at, "{answer}");
            actions.push(timed(&step, &answer));
            state = answer["state"].as_str().unwrap().to_owned();
            view = answer["view"].clone();
            answer
        }};
    }
    // The opening roll, 1 s in: the starter's time runs from then.
    let answer = act!(json!({"player": "x", "action": "roll"}), T0 + 1_000);
    let starter = answer["event"]["player"].as_str().unwrap().to_owned();
    let other = if starter == "x" { "o" } else { "x" };
    let c = &view["clock"];
    assert_eq!(c["running"], starter.as_str());
    assert_eq!(c["since_ms"], T0 + 1_000);
    assert_eq!(c["deadline_ms"], T0 + 1_000 + 12_000 + 60_000);
    // The starter moves 5 s later, within its delay: nothing spent.
    act!(choose(&view, 0), T0 + 6_000);
    assert_eq!(view["clock"]["reserve_ms"][&starter], 60_000);
    assert_eq!(view["clock"]["running"], other);
    // The other rolls after 10 s and moves after 30 s in all: one period,
    // 18 s off its reserve.
    act!(choose(&view, 1), T0 + 16_000);
    assert_eq!(view["clock"]["since_ms"], T0 + 6_000, "the same period");
    act!(choose(&view, 2), T0 + 36_000);
    assert_eq!(view["clock"]["reserve_ms"][other], 42_000);
    assert_eq!(view["clock"]["reserve_ms"][&starter], 60_000);
    assert_eq!(view["clock"]["running"], starter.as_str());
    let deadline = T0 + 36_000 + 12_000 + 60_000;
    assert_eq!(view["clock"]["deadline_ms"], deadline);

    // claim_time: too early for the waiting player; never the running
    // player's.
    clock.set(deadline);
    for (player, slug) in [(other, "too-early"), (starter.as_str(), "nothing-to-claim")] {
        let body = json!({"state": state, "player": player, "action": "claim_time"});
        let (status, problem) = server.post("/games/act", &body).await;
        assert_eq!((status, &problem["type"]), (422, &json!(slug)), "{problem}");
        let step = json!({"player": player, "action": "claim_time"});
        let err = grpc.act(proto_act(&state, &step)).await.unwrap_err();
        assert_eq!(grpc_slug(&err), slug);
    }
    // At the deadline the running player still acts in time; a
    // millisecond after, its action (whatever it is) loses the match, and
    // so would the opponent's claim.
    let before = (state.clone(), actions.clone());
    let answer = act!(choose(&view, 3), deadline + 1);
    assert_eq!(
        answer["event"],
        json!({"kind": "time_expired", "player": starter})
    );
    assert_eq!(view["phase"], "match_over");
    assert_eq!(view["actions"], json!([]));
    assert_eq!(view["clock"]["expired"], starter.as_str());
    assert_eq!(view["match_winner"], other);
    assert_eq!(view["clock"]["reserve_ms"][&starter], 0);
    assert_eq!(view["clock"]["running"], Value::Null);
    let late = (state.clone(), actions.clone());
    (state, actions) = before;
    let answer = act!(
        json!({"player": other, "action": "claim_time"}),
        deadline + 1
    );
    assert_eq!(answer["event"]["kind"], "time_expired");
    assert_eq!(answer["event"]["player"], starter.as_str());
    assert_eq!(view["phase"], "match_over");
    // Nothing more is taken.
    let body = json!({"state": state, "player": other, "action": "claim_time"});
    let (status, problem) = server.post("/games/act", &body).await;
    assert_eq!(
        (status, &problem["type"]),
        (422, &json!("nothing-to-claim"))
    );

    // Both endings' transcripts, with their times, verify to their final
    // tokens over both protocols.
    for (last, actions) in [late, (state.clone(), actions.clone())] {
        let (status, verdict) = server
            .post(
                "/games/verify",
                &json!({"start": start, "started_at_ms": T0, "actions": actions,
                    "state": last}),
            )
            .await;
        assert_eq!(status, 200, "{verdict}");
        assert_eq!(
            (&verdict["valid"], &verdict["state_matches"]),
            (&json!(true), &json!(true)),
            "{verdict}"
        );
        let g = grpc
            .verify_game(proto::VerifyGameRequest {
                start: Some(wire::to_message("NewGameRequest", &start)),
                actions: actions.iter().map(proto_step).collect(),
                state: last.clone(),
                started_at_ms: Some(T0),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(g.valid && g.state_matches == Some(true));
    }
    // A transcript without its times is refused by name.
    let (status, problem) = server
        .post(
            "/games/verify",
            &json!({"start": start, "actions": actions}),
        )
        .await;
    assert_eq!(
        (status, &problem["field"]),
        (400, &json!("started_at_ms")),
        "{problem}"
    );
    // claim_time in an untimed match.
    let (_, plain) = server
        .post(
            "/games",
            &json!({"match_id": "plain", "match": {"length": 5}}),
        )
        .await;
    let body = json!({"state": plain["state"], "player": "x", "action": "claim_time"});
    let (status, problem) = server.post("/games/act", &body).await;
    assert_eq!((status, &problem["type"]), (422, &json!("no-clock")));
}

/// A whole clocked 5-point match (the U.S. 2013 preset: 10 minutes each,
/// 12 s delay) played by the bots over both protocols, 1 to 9 s an
/// action: it ends by the points, both reserves left, and its transcript
/// with the times verifies; `/games/export` writes it without a clock.
#[tokio::test]
async fn bots_play_a_clocked_five_point_match_over_both_protocols() {
    let clock = TestClock::new("bots");
    let server = clock.server().await;
    let mut grpc = server.grpc().await;
    let start = json!({"match_id": "clocked-bots", "client_seed": "alice:bob",
        "match": {"length": 5}, "clock": {"preset": "us-2013"}});
    let first = new_game(&server, &mut grpc, &start).await;
    let mut state = first["state"].as_str().unwrap().to_owned();
    let mut view = first["view"].clone();
    let mut actions = Vec::new();
    let mut now = T0;
    let mut spent = json!({"x": 0, "o": 0});
    for n in 0..5_000 {
        if view["phase"] == "match_over" {
            break;
        }
        let step = choose(&view, n);
        let running = view["clock"]["running"].clone();
        let since = view["clock"]["since_ms"].as_u64();
        now += 1_000 + (n as u64 * 7_919) % 8_000;
        clock.set(now);
        let (answer, _) = act_over_both(&server, &mut grpc, &state, &step).await;
        let next = &answer["view"]["clock"];
        // A period that ended spent what passed beyond the delay.
        if let (Some(p), Some(since)) = (running.as_str(), since)
            && next["running"] != p
        {
            spent[p] = json!(spent[p].as_u64().unwrap() + (now - since).saturating_sub(12_000));
        }
        actions.push(timed(&step, &answer));
        state = answer["state"].as_str().unwrap().to_owned();
        view = answer["view"].clone();
    }
    assert_eq!(view["phase"], "match_over", "{view}");
    assert_eq!(view["clock"]["expired"], Value::Null);
    let winner = view["match_winner"].as_str().unwrap();
    assert!(
        view["result"]["match"]["score"][winner].as_u64().unwrap() >= 5,
        "{view}"
    );
    for p in ["x", "o"] {
        assert_eq!(
            view["clock"]["reserve_ms"][p].as_u64().unwrap(),
            600_000 - spent[p].as_u64().unwrap(),
            "{p}: {}",
            view["clock"]
        );
    }
    assert!(spent["x"].as_u64().unwrap() > 0 && spent["o"].as_u64().unwrap() > 0);
    verifies(&server, &start, &actions, &state).await;
    let (status, exported) = server
        .post(
            "/games/export",
            &json!({"start": start, "started_at_ms": T0, "actions": actions}),
        )
        .await;
    assert_eq!(status, 200, "{exported}");
    assert!(exported["mat"].as_str().unwrap().contains("5 point match"));
}

/// The USBGF's optional overtime (`overtime_ms`, beside a preset): the
/// first time a player's reserve runs out it plays on in its overtime;
/// once that is spent, the next expiry loses the match. Over both
/// protocols, and the transcript verifies.
#[tokio::test]
async fn the_usbgf_overtime_saves_a_player_once_over_both_protocols() {
    let clock = TestClock::new("overtime");
    let server = clock.server().await;
    let mut grpc = server.grpc().await;
    // 1 point of U.S. 2013: 2 minutes each, 12 s delay; 1 minute overtime.
    let start = json!({"match_id": "overtime", "client_seed": "c", "match": {"length": 1},
        "clock": {"preset": "us-2013", "overtime_ms": 60_000}});
    let first = new_game(&server, &mut grpc, &start).await;
    assert_eq!(
        first["view"]["clock"]["overtime_ms"],
        json!({"x": 60_000, "o": 60_000})
    );
    let mut state = first["state"].as_str().unwrap().to_owned();
    let mut actions = Vec::new();
    let mut at = T0 + 1_000;
    clock.set(at);
    let step = json!({"player": "x", "action": "roll"});
    let (answer, _) = act_over_both(&server, &mut grpc, &state, &step).await;
    actions.push(timed(&step, &answer));
    state = answer["state"].as_str().unwrap().to_owned();
    let mut view = answer["view"].clone();
    let starter = view["clock"]["running"].as_str().unwrap().to_owned();
    // The deadline counts the overtime: 12 s + 120 s + 60 s.
    assert_eq!(view["clock"]["deadline_ms"], at + 192_000);
    // The starter moves 162 s later: 30 s into its overtime.
    at += 162_000;
    clock.set(at);
    let step = choose(&view, 0);
    let (answer, _) = act_over_both(&server, &mut grpc, &state, &step).await;
    actions.push(timed(&step, &answer));
    state = answer["state"].as_str().unwrap().to_owned();
    view = answer["view"].clone();
    assert_eq!(view["clock"]["reserve_ms"][&starter], 30_000);
    assert_eq!(view["clock"]["overtime_ms"][&starter], 0);
    assert_eq!(view["clock"]["expired"], Value::Null);
    // Play on until the starter's time runs again: its deadline is now
    // its reserve's alone, and an action after it loses the match.
    loop {
        let running = view["clock"]["running"].as_str().unwrap().to_owned();
        let step = choose(&view, actions.len());
        at += 1_000;
        if running == starter && view["phase"] == "roll_or_double" {
            at = view["clock"]["deadline_ms"].as_u64().unwrap() + 1;
            assert_eq!(
                at,
                view["clock"]["since_ms"].as_u64().unwrap() + 12_000 + 30_000 + 1
            );
        }
        clock.set(at);
        let (answer, _) = act_over_both(&server, &mut grpc, &state, &step).await;
        actions.push(timed(&step, &answer));
        state = answer["state"].as_str().unwrap().to_owned();
        view = answer["view"].clone();
        if answer["event"]["kind"] == "time_expired" {
            assert_eq!(answer["event"]["player"], starter.as_str());
            break;
        }
        assert_ne!(
            view["phase"], "match_over",
            "the match ended before the test: {view}"
        );
    }
    verifies(&server, &start, &actions, &state).await;
}

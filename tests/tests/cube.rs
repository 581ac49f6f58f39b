//! `POST /score` and `POST /cube` (gRPC `ScoreGame`, `ResolveCube`)
//! through the real binary. Every request goes over both protocols and the
//! answers must agree: a whole 5-point match through the Crawford game,
//! money play with and without Jacoby, beavers and raccoons, the cube at
//! its maximum, results times the cube, drops and resignations, Match IDs
//! in and out (against gnubg's own self-play games), and bad input.

use bgref_e2e::Server;
use bgref_service::proto;
use bgref_service::proto::referee_client::RefereeClient;
use serde_json::{Map, Value, json};
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt as _;

/// The Match ID `id` once its game is under way with `player` on roll,
/// before rolling: what an app's own Match ID says after the opening roll
/// or after the opponent's move (the cube endpoints never pass the turn).
fn turn(id: &Value, player: &str) -> Value {
    use bgref_core::notation::match_id::{GameStatus, MatchId};
    let mut id: MatchId = id
        .as_str()
        .expect("a match id")
        .parse()
        .expect("a valid match id");
    let player = player.parse().expect("x or o");
    id.game_state = GameStatus::Playing;
    id.on_roll = player;
    id.turn = player;
    id.dice = None;
    json!(id.to_string())
}

// --- JSON request -> proto request (None when proto cannot say it) ---

fn p_player(v: &Value) -> Option<i32> {
    match v {
        Value::Null => Some(0),
        Value::String(s) if s == "x" => Some(proto::Player::X as i32),
        Value::String(s) if s == "o" => Some(proto::Player::O as i32),
        _ => None,
    }
}

fn p_variant(v: &Value) -> Option<i32> {
    Some(match v.as_str() {
        None if v.is_null() => 0,
        Some("standard") => proto::Variant::Standard as i32,
        Some("nackgammon") => proto::Variant::Nackgammon as i32,
        Some("hypergammon-1") => proto::Variant::Hypergammon1 as i32,
        Some("hypergammon-2") => proto::Variant::Hypergammon2 as i32,
        Some("hypergammon" | "hypergammon-3") => proto::Variant::Hypergammon3 as i32,
        _ => return None,
    })
}

fn p_result(v: &Value) -> Option<i32> {
    Some(match v.as_str() {
        None if v.is_null() => 0,
        Some("single") => proto::GameResult::Single as i32,
        Some("gammon") => proto::GameResult::Gammon as i32,
        Some("backgammon") => proto::GameResult::Backgammon as i32,
        _ => return None,
    })
}

fn p_u32(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|n| u32::try_from(n).ok())
}

fn p_opt_u32(v: &Value) -> Option<Option<u32>> {
    if v.is_null() {
        Some(None)
    } else {
        p_u32(v).map(Some)
    }
}

fn p_cube(v: &Value) -> Option<Option<proto::Cube>> {
    if v.is_null() {
        return Some(None);
    }
    let owner = match v["owner"].as_str() {
        None | Some("centre") => proto::CubeOwner::Centre,
        Some("x") => proto::CubeOwner::X,
        Some("o") => proto::CubeOwner::O,
        _ => return None,
    };
    let resignation = match &v["resignation"] {
        Value::Null => None,
        r => Some(proto::Resignation {
            by: p_player(&r["by"])?,
            level: p_result(&r["level"])?,
        }),
    };
    Some(Some(proto::Cube {
        value: p_opt_u32(&v["value"])?,
        owner: owner as i32,
        offered_by: p_player(&v["offered_by"])?,
        beavers: if v["beavers"].is_null() {
            0
        } else {
            p_u32(&v["beavers"])?
        },
        resignation,
    }))
}

fn p_match(v: &Value) -> Option<Option<proto::MatchState>> {
    if v.is_null() {
        return Some(None);
    }
    let or_zero = |v: &Value| if v.is_null() { Some(0) } else { p_u32(v) };
    Some(Some(proto::MatchState {
        length: or_zero(&v["length"])?,
        score: Some(proto::PerPlayer {
            x: or_zero(&v["score"]["x"])?,
            o: or_zero(&v["score"]["o"])?,
        }),
        crawford: v["crawford"].as_bool().unwrap_or(false),
    }))
}

fn p_rules(v: &Value) -> Option<Option<proto::CubeRules>> {
    if v.is_null() {
        return Some(None);
    }
    let jacoby = match &v["jacoby"] {
        Value::Null => None,
        Value::Bool(b) => Some(*b),
        _ => return None,
    };
    Some(Some(proto::CubeRules {
        jacoby,
        beavers: p_opt_u32(&v["beavers"])?,
        automatic_doubles: p_opt_u32(&v["automatic_doubles"])?,
        max_cube: p_opt_u32(&v["max_cube"])?,
    }))
}

fn p_position(v: &Value) -> Option<Option<proto::PositionInput>> {
    use proto::position_input::Encoding;
    if v.is_null() {
        return Some(None);
    }
    let encoding = if let Some(id) = v["position_id"].as_str() {
        Encoding::PositionId(id.to_owned())
    } else if let Some(x) = v["xgid"].as_str() {
        Encoding::Xgid(x.to_owned())
    } else {
        let b = &v["board"];
        Encoding::Board(proto::Board {
            points: b["points"]
                .as_array()?
                .iter()
                .map(|n| n.as_i64().map(|n| n as i32))
                .collect::<Option<_>>()?,
            bar: None,
            off: Some(proto::PerPlayer {
                x: p_u32(&b["off"]["x"])?,
                o: p_u32(&b["off"]["o"])?,
            }),
            turn: p_player(&b["turn"])?,
            pins: Vec::new(),
        })
    };
    Some(Some(proto::PositionInput {
        encoding: Some(encoding),
        turn: p_player(&v["turn"])?,
    }))
}

fn known_keys(body: &Value, keys: &[&str]) -> bool {
    body.as_object()
        .is_some_and(|o| o.keys().all(|k| keys.contains(&k.as_str())))
}

fn score_request(body: &Value) -> Option<proto::ScoreGameRequest> {
    let keys = [
        "variant",
        "ended_by",
        "position",
        "winner",
        "resign_level",
        "cube",
        "match",
        "rules",
        "match_id",
    ];
    if !known_keys(body, &keys) {
        return None;
    }
    Some(proto::ScoreGameRequest {
        variant: p_variant(&body["variant"])?,
        ended_by: match &body["ended_by"] {
            Value::Null => proto::EndedBy::Unspecified,
            v if v == "bearoff" => proto::EndedBy::Bearoff,
            v if v == "pass" => proto::EndedBy::Pass,
            v if v == "resign" => proto::EndedBy::Resign,
            _ => return None,
        } as i32,
        position: p_position(&body["position"])?,
        winner: p_player(&body["winner"])?,
        resign_level: p_result(&body["resign_level"])?,
        cube: p_cube(&body["cube"])?,
        r#match: p_match(&body["match"])?,
        rules: p_rules(&body["rules"])?,
        gnubg_match_id: body["match_id"].as_str().unwrap_or_default().to_owned(),
    })
}

fn cube_request(body: &Value) -> Option<proto::ResolveCubeRequest> {
    let keys = [
        "cube",
        "match",
        "rules",
        "match_id",
        "player",
        "action",
        "resign_level",
    ];
    if !known_keys(body, &keys) {
        return None;
    }
    Some(proto::ResolveCubeRequest {
        cube: p_cube(&body["cube"])?,
        r#match: p_match(&body["match"])?,
        rules: p_rules(&body["rules"])?,
        gnubg_match_id: body["match_id"].as_str().unwrap_or_default().to_owned(),
        player: p_player(&body["player"])?,
        action: match body["action"].as_str() {
            None if body["action"].is_null() => proto::CubeAction::Unspecified,
            Some("double") => proto::CubeAction::Double,
            Some("take") => proto::CubeAction::Take,
            Some("pass") => proto::CubeAction::Pass,
            Some("beaver") => proto::CubeAction::Beaver,
            Some("raccoon") => proto::CubeAction::Raccoon,
            Some("resign") => proto::CubeAction::Resign,
            Some("accept") => proto::CubeAction::Accept,
            Some("reject") => proto::CubeAction::Reject,
            _ => return None,
        } as i32,
        resign_level: p_result(&body["resign_level"])?,
        variant: 0,
    })
}

// --- proto response -> the JSON shape of the HTTP answer ---

fn j_player(p: i32) -> Value {
    match proto::Player::try_from(p) {
        Ok(proto::Player::X) => json!("x"),
        Ok(proto::Player::O) => json!("o"),
        _ => Value::Null,
    }
}

fn j_result(r: i32) -> Value {
    match proto::GameResult::try_from(r) {
        Ok(proto::GameResult::Single) => json!("single"),
        Ok(proto::GameResult::Gammon) => json!("gammon"),
        Ok(proto::GameResult::Backgammon) => json!("backgammon"),
        _ => Value::Null,
    }
}

fn j_match(m: &proto::MatchOutcome) -> Value {
    let score = m.score.unwrap_or_default();
    json!({
        "length": m.length,
        "score": {"x": score.x, "o": score.o},
        "winner": j_player(m.winner),
        "next_game": match proto::GameKind::try_from(m.next_game) {
            Ok(proto::GameKind::Normal) => json!("normal"),
            Ok(proto::GameKind::Crawford) => json!("crawford"),
            Ok(proto::GameKind::PostCrawford) => json!("post_crawford"),
            _ => Value::Null,
        },
    })
}

/// Inserts `key` unless `value` is the empty string.
fn put_str(map: &mut Map<String, Value>, key: &str, value: &str) {
    if !value.is_empty() {
        map.insert(key.to_owned(), json!(value));
    }
}

macro_rules! j_score {
    ($s:expr) => {{
        let s = $s;
        let mut map = Map::new();
        map.insert(
            "ended_by".into(),
            match proto::EndedBy::try_from(s.ended_by) {
                Ok(proto::EndedBy::Bearoff) => json!("bearoff"),
                Ok(proto::EndedBy::Pass) => json!("pass"),
                Ok(proto::EndedBy::Resign) => json!("resign"),
                _ => Value::Null,
            },
        );
        map.insert("winner".into(), j_player(s.winner));
        map.insert("result".into(), j_result(s.result));
        map.insert("points".into(), json!(s.points));
        map.insert("jacoby_applied".into(), json!(s.jacoby_applied));
        map.insert("match".into(), j_match(s.r#match.as_ref().unwrap()));
        put_str(&mut map, "match_id", &s.gnubg_match_id);
        put_str(&mut map, "game_match_id", &s.gnubg_game_match_id);
        Value::Object(map)
    }};
}

fn j_cube(c: &proto::Cube) -> Value {
    let mut map = Map::new();
    map.insert("value".into(), json!(c.value.unwrap()));
    map.insert(
        "owner".into(),
        match proto::CubeOwner::try_from(c.owner) {
            Ok(proto::CubeOwner::X) => json!("x"),
            Ok(proto::CubeOwner::O) => json!("o"),
            _ => json!("centre"),
        },
    );
    map.insert("offered_by".into(), j_player(c.offered_by));
    map.insert("beavers".into(), json!(c.beavers));
    if let Some(r) = &c.resignation {
        map.insert(
            "resignation".into(),
            json!({"by": j_player(r.by), "level": j_result(r.level)}),
        );
    }
    Value::Object(map)
}

fn j_cube_response(r: &proto::ResolveCubeResponse) -> Value {
    let mut map = Map::new();
    map.insert("allowed".into(), json!(r.allowed));
    put_str(&mut map, "reason", &r.reason);
    put_str(&mut map, "reason_slug", &r.reason_slug);
    if let Some(cube) = &r.cube {
        map.insert("cube".into(), j_cube(cube));
    }
    if r.to_act != 0 {
        map.insert("to_act".into(), j_player(r.to_act));
    }
    put_str(&mut map, "match_id", &r.gnubg_match_id);
    if let Some(s) = &r.game_over {
        map.insert("game_over".into(), j_score!(s));
    }
    Value::Object(map)
}

/// A gRPC error as the problem document the HTTP side gives.
fn j_problem(status: &tonic::Status) -> Value {
    let http = match status.code() {
        Code::InvalidArgument => 400,
        Code::FailedPrecondition => 422,
        other => panic!("unexpected gRPC code {other:?}: {status:?}"),
    };
    let slug = status.get_details_error_info().expect("ErrorInfo").reason;
    let field = status
        .get_details_bad_request()
        .and_then(|b| b.field_violations.first().map(|v| v.field.clone()));
    json!({"status": http, "type": slug, "detail": status.message(), "field": field})
}

/// The referee over both protocols.
struct Referee {
    server: Server,
    grpc: RefereeClient<Channel>,
}

impl Referee {
    async fn start() -> Referee {
        let server = Server::start(&[]).await;
        let grpc = server.grpc().await;
        Referee { server, grpc }
    }

    /// POSTs `body` to `path`; asks the same over gRPC (when proto can say
    /// it) and checks the answers agree. Returns the HTTP status and body.
    async fn call(&mut self, path: &str, body: &Value) -> (u16, Value) {
        let (status, http) = self.server.post(path, body).await;
        assert!(
            status == 200 || status == 400 || status == 422,
            "{path} {body}: {status} {http}"
        );
        let grpc = match path {
            "/score" => match score_request(body) {
                None => return (status, http),
                Some(req) => self
                    .grpc
                    .score_game(req)
                    .await
                    .map(|r| j_score!(r.into_inner())),
            },
            "/cube" => match cube_request(body) {
                None => return (status, http),
                Some(req) => self
                    .grpc
                    .resolve_cube(req)
                    .await
                    .map(|r| j_cube_response(&r.into_inner())),
            },
            _ => unreachable!(),
        };
        match grpc {
            Ok(answer) => {
                assert_eq!(status, 200, "{path} {body}: HTTP {http}, gRPC {answer}");
                assert_eq!(answer, http, "{path} {body}: gRPC and HTTP differ");
            }
            Err(err) => {
                let problem = j_problem(&err);
                let http_problem = json!({"status": status, "type": http["type"],
                    "detail": http["detail"], "field": http["field"]});
                assert_eq!(problem, http_problem, "{path} {body}: gRPC and HTTP differ");
            }
        }
        (status, http)
    }

    /// A 200 answer.
    async fn ok(&mut self, path: &str, body: Value) -> Value {
        let (status, answer) = self.call(path, &body).await;
        assert_eq!(status, 200, "{path} {body}: {answer}");
        answer
    }

    /// `/cube` must allow the action; returns the answer.
    async fn allowed(&mut self, body: Value) -> Value {
        let answer = self.ok("/cube", body.clone()).await;
        assert_eq!(answer["allowed"], true, "{body}: {answer}");
        answer
    }

    /// `/cube` must refuse the action with `slug`.
    async fn refused(&mut self, body: Value, slug: &str) {
        let answer = self.ok("/cube", body.clone()).await;
        assert_eq!(answer["allowed"], false, "{body}: {answer}");
        assert_eq!(answer["reason_slug"], slug, "{body}: {answer}");
        assert!(!answer["reason"].as_str().unwrap().is_empty());
        assert!(answer.get("cube").is_none() && answer.get("game_over").is_none());
    }

    /// A problem with `status`, `slug` and `field`.
    async fn problem(
        &mut self,
        path: &str,
        body: Value,
        status: u16,
        slug: &str,
        field: impl Into<Option<&str>>,
    ) {
        let (got, problem) = self.call(path, &body).await;
        assert_eq!(got, status, "{path} {body}: {problem}");
        assert_eq!(problem["type"], slug, "{path} {body}: {problem}");
        assert_eq!(
            problem["field"].as_str(),
            field.into(),
            "{path} {body}: {problem}"
        );
        assert!(!problem["detail"].as_str().unwrap().is_empty());
    }
}

/// A finished position as a board: `x` and `o` are the signed point counts
/// (x's view), the rest follows.
fn board(points: [i64; 24], off_x: i64, off_o: i64, turn: &str) -> Value {
    json!({"board": {"points": points, "bar": {"x": 0, "o": 0},
        "off": {"x": off_x, "o": off_o}, "turn": turn}})
}

/// A position where `winner` has just borne off the last checker and the
/// loser's checkers give `result`.
fn finished(winner: &str, result: &str) -> Value {
    let mut points = [0i64; 24];
    // The loser's 15 checkers, placed in their own view: home board, or
    // (backgammon) partly in the winner's home board.
    let (loser_points, loser_off): (&[(usize, i64)], i64) = match result {
        "single" => (&[(1, 4), (2, 3), (5, 3)], 5),
        "gammon" => (&[(1, 3), (2, 3), (3, 3), (4, 3), (6, 3)], 0),
        "backgammon" => (&[(1, 5), (6, 5), (20, 5)], 0),
        _ => unreachable!(),
    };
    for &(own_point, n) in loser_points {
        match winner {
            // o's point p is x's point 25 - p.
            "x" => points[24 - own_point] = -n,
            _ => points[own_point - 1] = n,
        }
    }
    match winner {
        "x" => board(points, 15, loser_off, "o"),
        _ => board(points, loser_off, 15, "x"),
    }
}

fn score_of(answer: &Value) -> (i64, i64) {
    let s = &answer["match"]["score"];
    (s["x"].as_i64().unwrap(), s["o"].as_i64().unwrap())
}

#[tokio::test]
async fn five_point_match_through_crawford_and_post_crawford() {
    let mut r = Referee::start().await;
    // Game 1, 0-0: x doubles, o takes (from the Match ID alone), x bears off
    // a single on the 2-cube.
    let offered = r
        .allowed(json!({"match": {"length": 5}, "player": "x", "action": "double"}))
        .await;
    assert_eq!(offered["to_act"], "o");
    assert_eq!(
        offered["cube"],
        json!({"value": 1, "owner": "centre", "offered_by": "x", "beavers": 0})
    );
    let taken = r
        .allowed(json!({"match_id": offered["match_id"], "action": "take"}))
        .await;
    assert_eq!(
        taken["cube"],
        json!({"value": 2, "owner": "o", "offered_by": null, "beavers": 0})
    );
    assert!(taken.get("to_act").is_none());
    r.refused(
        json!({"match_id": taken["match_id"], "player": "x", "action": "double"}),
        "not-your-cube",
    )
    .await;
    let game1 = r
        .ok(
            "/score",
            json!({"ended_by": "bearoff", "position": finished("x", "single"),
                "match_id": taken["match_id"]}),
        )
        .await;
    assert_eq!(
        (&game1["winner"], &game1["result"], &game1["points"]),
        (&json!("x"), &json!("single"), &json!(2))
    );
    assert_eq!(
        game1["match"],
        json!({"length": 5, "score": {"x": 2, "o": 0}, "winner": null, "next_game": "normal"})
    );

    // Game 2, 2-0: no double before the opening roll; then o (on roll)
    // doubles, x takes, x redoubles to 4 on x's next turn, o drops: x wins
    // 2 and reaches 4-0, one point from the match: the Crawford game is next.
    let id = &game1["match_id"];
    r.refused(
        json!({"match_id": id, "player": "o", "action": "double"}),
        "no-game",
    )
    .await;
    r.refused(
        json!({"match_id": turn(id, "x"), "player": "o", "action": "double"}),
        "not-your-turn",
    )
    .await;
    let offered = r
        .allowed(json!({"match_id": turn(id, "o"), "player": "o", "action": "double"}))
        .await;
    let taken = r
        .allowed(json!({"match_id": offered["match_id"], "action": "take"}))
        .await;
    assert_eq!(taken["cube"]["owner"], "x");
    // The take leaves o on roll: x's redouble waits for x's turn.
    r.refused(
        json!({"match_id": taken["match_id"], "player": "x", "action": "double"}),
        "not-your-turn",
    )
    .await;
    let redoubled = r
        .allowed(
            json!({"match_id": turn(&taken["match_id"], "x"), "player": "x", "action": "double"}),
        )
        .await;
    assert_eq!(redoubled["to_act"], "o");
    let dropped = r
        .allowed(json!({"match_id": redoubled["match_id"], "action": "pass"}))
        .await;
    let game2 = &dropped["game_over"];
    assert_eq!(
        (&game2["ended_by"], &game2["winner"], &game2["points"]),
        (&json!("pass"), &json!("x"), &json!(2))
    );
    assert_eq!(game2["match"]["next_game"], "crawford");
    assert_eq!(score_of(game2), (4, 0));
    // The same drop through /score gives the same answer.
    let scored = r
        .ok(
            "/score",
            json!({"ended_by": "pass", "winner": "x", "cube": {"value": 2, "owner": "x"},
                "match": {"length": 5, "score": {"x": 2, "o": 0}}}),
        )
        .await;
    assert_eq!(&scored, game2);

    // Game 3, the Crawford game at 4-0: nobody may double; o wins a gammon.
    let crawford_id = &game2["match_id"];
    for player in ["x", "o"] {
        r.refused(
            json!({"match_id": turn(crawford_id, player), "player": player, "action": "double"}),
            "crawford-game",
        )
        .await;
        r.refused(
            json!({"match": {"length": 5, "score": {"x": 4, "o": 0}, "crawford": true},
                "player": player, "action": "double"}),
            "crawford-game",
        )
        .await;
    }
    // Nor can a game in the Crawford game end by a drop.
    r.problem(
        "/score",
        json!({"ended_by": "pass", "winner": "o", "match_id": crawford_id}),
        422,
        "crawford-game",
        None,
    )
    .await;
    let game3 = r
        .ok(
            "/score",
            json!({"ended_by": "bearoff", "position": finished("o", "gammon"),
                "match_id": crawford_id}),
        )
        .await;
    assert_eq!(
        (&game3["result"], &game3["points"]),
        (&json!("gammon"), &json!(2))
    );
    assert_eq!(score_of(&game3), (4, 2));
    assert_eq!(game3["match"]["next_game"], "post_crawford");

    // Game 4, post-Crawford at 4-2: doubling is allowed again. o doubles,
    // x takes; x resigns a single (rejected once, then accepted): o wins 2.
    let post = &game3["match_id"];
    let offered = r
        .allowed(json!({"match_id": turn(post, "o"), "player": "o", "action": "double"}))
        .await;
    let taken = r
        .allowed(json!({"match_id": offered["match_id"], "action": "take"}))
        .await;
    let resigns = json!({"match_id": taken["match_id"], "player": "x", "action": "resign",
        "resign_level": "single"});
    let offer = r.allowed(resigns.clone()).await;
    assert_eq!(
        offer["cube"]["resignation"],
        json!({"by": "x", "level": "single"})
    );
    assert_eq!(offer["to_act"], "o");
    let rejected = r
        .allowed(json!({"match_id": offer["match_id"], "action": "reject"}))
        .await;
    assert_eq!(rejected["cube"], taken["cube"]);
    let accepted = r
        .allowed(json!({"match_id": offer["match_id"], "action": "accept"}))
        .await;
    let game4 = &accepted["game_over"];
    assert_eq!(
        (&game4["ended_by"], &game4["winner"], &game4["points"]),
        (&json!("resign"), &json!("o"), &json!(2))
    );
    assert_eq!(score_of(game4), (4, 4));
    assert_eq!(game4["match"]["next_game"], "post_crawford");

    // Game 5, double match point: x doubles, o drops: x wins the match 5-4.
    let offered = r
        .allowed(
            json!({"match_id": turn(&game4["match_id"], "x"), "player": "x", "action": "double"}),
        )
        .await;
    let dropped = r
        .allowed(json!({"match_id": offered["match_id"], "player": "o", "action": "pass"}))
        .await;
    let game5 = &dropped["game_over"];
    assert_eq!(
        game5["match"],
        json!({"length": 5, "score": {"x": 5, "o": 4}, "winner": "x", "next_game": null})
    );
    // Once the match is won, the Match ID is the finished game's; it
    // cannot start another game.
    assert_eq!(game5["match_id"], game5["game_match_id"]);
    r.problem(
        "/cube",
        json!({"match_id": game5["match_id"], "player": "o", "action": "double"}),
        400,
        "invalid-match-id",
        "match_id",
    )
    .await;
}

#[tokio::test]
async fn money_game_with_jacoby_on_and_off() {
    let mut r = Referee::start().await;
    let gammon = finished("x", "gammon");
    let score = |cube: Value, jacoby: bool| {
        json!({"ended_by": "bearoff", "position": gammon, "cube": cube,
            "match": {"length": 0}, "rules": {"jacoby": jacoby}})
    };
    let centred = json!({"value": 1, "owner": "centre"});
    let turned = json!({"value": 2, "owner": "o"});
    for (cube, jacoby, points, applied) in [
        (centred.clone(), true, 1, true),
        (centred.clone(), false, 2, false),
        (turned.clone(), true, 4, false),
        (turned.clone(), false, 4, false),
    ] {
        let answer = r.ok("/score", score(cube.clone(), jacoby)).await;
        assert_eq!(answer["result"], "gammon");
        assert_eq!(answer["points"], points, "{cube} jacoby {jacoby}");
        assert_eq!(answer["jacoby_applied"], applied);
        assert_eq!(answer["match"]["winner"], Value::Null);
        assert_eq!(answer["match"]["next_game"], "normal");
    }
    // A cube centred at 2 after an automatic double: Jacoby still counts a
    // single, times 2.
    let auto = r
        .ok(
            "/score",
            json!({"ended_by": "bearoff", "position": finished("o", "backgammon"),
                "cube": {"value": 2}, "rules": {"jacoby": true, "automatic_doubles": 1}}),
        )
        .await;
    assert_eq!(
        (&auto["points"], &auto["jacoby_applied"]),
        (&json!(2), &json!(true))
    );
    // Jacoby is a money rule: in a match the gammon counts.
    let in_match = r
        .ok(
            "/score",
            json!({"ended_by": "bearoff", "position": gammon, "match": {"length": 7},
                "rules": {"jacoby": true}}),
        )
        .await;
    assert_eq!(
        (&in_match["points"], &in_match["jacoby_applied"]),
        (&json!(2), &json!(false))
    );
    // A resigned gammon on a centred cube under Jacoby, through /cube.
    let offer = r
        .allowed(
            json!({"rules": {"jacoby": true}, "player": "o", "action": "resign",
            "resign_level": "gammon"}),
        )
        .await;
    let accepted = r
        .allowed(json!({"match_id": offer["match_id"], "action": "accept"}))
        .await;
    assert_eq!(accepted["game_over"]["points"], 1);
    assert_eq!(accepted["game_over"]["jacoby_applied"], true);
    // x accepted o's resignation: the session score is 1-0.
    assert_eq!(accepted["game_over"]["winner"], "x");
    assert_eq!(score_of(&accepted["game_over"]), (1, 0));
}

#[tokio::test]
async fn beavers_and_raccoons_with_limits() {
    let mut r = Referee::start().await;
    let offered = json!({"value": 1, "owner": "centre", "offered_by": "x"});
    let beaver = |beavers: i64| json!({"cube": offered, "rules": {"beavers": beavers}, "player": "o", "action": "beaver"});
    r.refused(beaver(0), "beavers-disabled").await;
    r.refused(
        json!({"cube": offered, "match": {"length": 5}, "rules": {"beavers": 2},
            "player": "o", "action": "beaver"}),
        "beavers-in-match-play",
    )
    .await;
    r.refused(
        json!({"cube": offered, "rules": {"beavers": 2}, "player": "o", "action": "raccoon"}),
        "no-beaver-to-raccoon",
    )
    .await;
    r.refused(
        json!({"cube": offered, "rules": {"beavers": 2}, "player": "x", "action": "beaver"}),
        "not-your-turn",
    )
    .await;
    // One beaver allowed: o beavers (the cube shows 2, x to answer), and x
    // may not raccoon.
    let beavered = r.allowed(beaver(1)).await;
    assert_eq!(
        beavered["cube"],
        json!({"value": 2, "owner": "centre", "offered_by": "o", "beavers": 1})
    );
    assert_eq!(beavered["to_act"], "x");
    r.refused(
        json!({"cube": beavered["cube"], "rules": {"beavers": 1}, "player": "x", "action": "raccoon"}),
        "beaver-limit-reached",
    )
    .await;
    r.refused(
        json!({"cube": beavered["cube"], "rules": {"beavers": 1}, "player": "x", "action": "beaver"}),
        "raccoon-expected",
    )
    .await;
    // Two allowed: x raccoons; o takes at 8 (the cube stays with o, who
    // was doubled), or drops and x wins 4.
    let raccooned = r
        .allowed(
            json!({"cube": beavered["cube"], "rules": {"beavers": 2}, "player": "x",
            "action": "raccoon"}),
        )
        .await;
    assert_eq!(
        raccooned["cube"],
        json!({"value": 4, "owner": "centre", "offered_by": "x", "beavers": 2})
    );
    r.refused(
        json!({"cube": raccooned["cube"], "rules": {"beavers": 2}, "player": "o", "action": "beaver"}),
        "beaver-limit-reached",
    )
    .await;
    let taken = r
        .allowed(
            json!({"cube": raccooned["cube"], "rules": {"beavers": 2}, "player": "o",
            "action": "take"}),
        )
        .await;
    assert_eq!(
        taken["cube"],
        json!({"value": 8, "owner": "o", "offered_by": null, "beavers": 0})
    );
    let dropped = r
        .allowed(
            json!({"cube": raccooned["cube"], "rules": {"beavers": 2}, "player": "o",
            "action": "pass"}),
        )
        .await;
    assert_eq!(
        (
            &dropped["game_over"]["winner"],
            &dropped["game_over"]["points"]
        ),
        (&json!("x"), &json!(4))
    );
    // More beavers counted than the rules allow is not a state at all.
    r.problem(
        "/cube",
        json!({"cube": raccooned["cube"], "rules": {"beavers": 1}, "player": "o", "action": "take"}),
        400,
        "invalid-cube",
        "cube.beavers",
    )
    .await;
}

#[tokio::test]
async fn the_cube_at_its_maximum() {
    let mut r = Referee::start().await;
    let at_64 = json!({"value": 64, "owner": "x"});
    r.refused(
        json!({"cube": at_64, "player": "x", "action": "double"}),
        "cube-at-maximum",
    )
    .await;
    let higher = r
        .allowed(
            json!({"cube": at_64, "rules": {"max_cube": 128}, "player": "x",
            "action": "double"}),
        )
        .await;
    assert_eq!(higher["cube"]["offered_by"], "x");
    // A beaver may not take the cube past the maximum either.
    r.refused(
        json!({"cube": {"value": 2, "owner": "x", "offered_by": "x"},
            "rules": {"beavers": 1, "max_cube": 4}, "player": "o", "action": "beaver"}),
        "cube-at-maximum",
    )
    .await;
    // A cube above the maximum is a bad state, not a refusal.
    r.problem(
        "/cube",
        json!({"cube": {"value": 128, "owner": "x"}, "player": "x", "action": "double"}),
        400,
        "invalid-cube",
        "cube.value",
    )
    .await;
    // Up to 32768 when the rules say so, and scored in full.
    let big = r
        .ok(
            "/score",
            json!({"ended_by": "bearoff", "position": finished("o", "backgammon"),
                "cube": {"value": 32768, "owner": "x"}, "rules": {"max_cube": 32768}}),
        )
        .await;
    assert_eq!(big["points"], 98304);
}

#[tokio::test]
async fn results_times_the_cube() {
    let mut r = Referee::start().await;
    for winner in ["x", "o"] {
        for (result, multiplier) in [("single", 1), ("gammon", 2), ("backgammon", 3)] {
            for value in [1, 2, 4, 64] {
                let owner = if value == 1 { "centre" } else { "o" };
                let answer = r
                    .ok(
                        "/score",
                        json!({"ended_by": "bearoff", "position": finished(winner, result),
                            "cube": {"value": value, "owner": owner}}),
                    )
                    .await;
                assert_eq!(answer["winner"], winner);
                assert_eq!(answer["result"], result);
                assert_eq!(answer["points"], multiplier * value);
            }
        }
    }
    // An XGID's cube and match stand in: a gammon on x's 4-cube at 1-3 in
    // a 7-point match; o has borne off every checker.
    let xgid = "XGID=-CCCCBA-------------------:2:1:1:00:1:3:0:7:10";
    let answer = r
        .ok(
            "/score",
            json!({"ended_by": "bearoff", "position": {"xgid": xgid}}),
        )
        .await;
    assert_eq!(
        (&answer["winner"], &answer["result"], &answer["points"]),
        (&json!("o"), &json!("gammon"), &json!(8))
    );
    assert_eq!(
        answer["match"],
        json!({"length": 7, "score": {"x": 1, "o": 11}, "winner": "o", "next_game": null})
    );
    // Explicit fields win over the XGID's.
    let answer = r
        .ok(
            "/score",
            json!({"ended_by": "bearoff", "position": {"xgid": xgid}, "cube": {"value": 1}}),
        )
        .await;
    assert_eq!(answer["points"], 2);
    // A position where nobody has finished cannot be scored as a bear-off.
    r.problem(
        "/score",
        json!({"ended_by": "bearoff", "position": {"position_id": "4HPwATDgc/ABMA"}}),
        422,
        "game-not-over",
        "position",
    )
    .await;
    r.problem(
        "/score",
        json!({"ended_by": "bearoff", "position": finished("x", "single"), "winner": "o"}),
        400,
        "invalid-request",
        "winner",
    )
    .await;
}

#[tokio::test]
async fn dropped_doubles_and_resignations() {
    let mut r = Referee::start().await;
    // A drop scores the value before the double, for the doubler.
    let drop = r
        .ok(
            "/score",
            json!({"ended_by": "pass", "winner": "o", "cube": {"value": 4, "owner": "o"},
                "match": {"length": 0, "score": {"x": 3, "o": 5}}}),
        )
        .await;
    assert_eq!(
        (&drop["result"], &drop["points"]),
        (&json!("single"), &json!(4))
    );
    assert_eq!(score_of(&drop), (3, 9));
    // Only the doubler can win a pass.
    r.problem(
        "/score",
        json!({"ended_by": "pass", "winner": "x", "cube": {"value": 4, "owner": "o"}}),
        400,
        "invalid-request",
        "winner",
    )
    .await;
    r.problem(
        "/score",
        json!({"ended_by": "pass", "winner": "x",
            "cube": {"value": 4, "owner": "o", "offered_by": "o"}}),
        400,
        "invalid-request",
        "winner",
    )
    .await;
    // Resignations: each level times the cube, never more than resigned.
    for (level, points) in [("single", 2), ("gammon", 4), ("backgammon", 6)] {
        let answer = r
            .ok(
                "/score",
                json!({"ended_by": "resign", "winner": "x", "resign_level": level,
                    "cube": {"value": 2, "owner": "x"}}),
            )
            .await;
        assert_eq!(
            (&answer["result"], &answer["points"]),
            (&json!(level), &json!(points))
        );
    }
    r.problem(
        "/score",
        json!({"ended_by": "resign", "winner": "x"}),
        400,
        "invalid-request",
        "resign_level",
    )
    .await;
    // Through /cube: a resignation waits for the opponent; the resigner
    // cannot answer it, nobody may double meanwhile.
    let offer = r
        .allowed(json!({"player": "x", "action": "resign", "resign_level": "backgammon"}))
        .await;
    let cube = offer["cube"].clone();
    r.refused(
        json!({"cube": cube, "player": "x", "action": "accept"}),
        "not-your-turn",
    )
    .await;
    r.refused(
        json!({"cube": cube, "player": "o", "action": "double"}),
        "resignation-already-offered",
    )
    .await;
    r.refused(
        json!({"player": "o", "action": "accept"}),
        "no-resignation-offered",
    )
    .await;
    r.refused(
        json!({"player": "o", "action": "take"}),
        "no-double-offered",
    )
    .await;
    let accepted = r
        .allowed(json!({"cube": cube, "player": "o", "action": "accept"}))
        .await;
    assert_eq!(
        (
            &accepted["game_over"]["winner"],
            &accepted["game_over"]["points"]
        ),
        (&json!("o"), &json!(3))
    );
}

/// Reads the cube value and owner of a gnubg Match ID.
fn match_id_cube(id: &str) -> (u32, &'static str) {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sextet = |c: u8| ALPHABET.iter().position(|&a| a == c).unwrap() as u32;
    let bytes = id.as_bytes();
    // The first byte of the key is the first 8 bits of the base64 text.
    let first = (sextet(bytes[0]) << 2) | (sextet(bytes[1]) >> 4);
    let owner = match (first >> 4) & 3 {
        0 => "x",
        1 => "o",
        _ => "centre",
    };
    (1 << (first & 15), owner)
}

#[tokio::test]
async fn match_ids_in_and_out_agree_with_gnubg() {
    let mut r = Referee::start().await;
    // gnubg's manual: 9-point match at 2-4, x owns the 2-cube, o has
    // rolled 52 and must act.
    let manual = "QYkqASAAIAAA";
    r.refused(
        json!({"match_id": manual, "action": "double"}),
        "not-your-cube",
    )
    .await;
    // x is not on roll: only the player on roll doubles, before rolling.
    r.refused(
        json!({"match_id": manual, "player": "x", "action": "double"}),
        "not-your-turn",
    )
    .await;
    let resigned = r
        .ok(
            "/score",
            json!({"ended_by": "resign", "winner": "x", "resign_level": "single",
                "match_id": manual}),
        )
        .await;
    assert_eq!(score_of(&resigned), (4, 4));
    // gnubg's new money session (Jacoby on): a resigned gammon is a single.
    let session = r
        .ok(
            "/score",
            json!({"ended_by": "resign", "winner": "o", "resign_level": "gammon",
                "match_id": "cAkAAAAAAAAA"}),
        )
        .await;
    assert_eq!(
        (&session["points"], &session["jacoby_applied"]),
        (&json!(1), &json!(true))
    );
    // rules.jacoby overrides the Match ID's.
    let no_jacoby = r
        .ok(
            "/score",
            json!({"ended_by": "resign", "winner": "o", "resign_level": "gammon",
                "match_id": "cAkAAAAAAAAA", "rules": {"jacoby": false}}),
        )
        .await;
    assert_eq!(no_jacoby["points"], 2);

    // Every one of gnubg's 1000 self-play money games: the points, the
    // session score, and the final Match ID exactly as gnubg wrote it.
    let corpus = include_str!("../../core/tests/data/selfplay_results.jsonl");
    let mut series = String::new();
    let mut session = (0i64, 0i64);
    for (n, line) in corpus.lines().enumerate() {
        let line: Value = serde_json::from_str(line).unwrap();
        if line["series"].as_str().unwrap() != series {
            series = line["series"].as_str().unwrap().to_owned();
            session = (0, 0);
        }
        let final_id = line["final_match_id"].as_str().unwrap();
        let (value, owner) = match_id_cube(final_id);
        assert_eq!(json!(value), line["cube"], "line {}", n + 1);
        let winner = line["winner"].as_str().unwrap().to_lowercase();
        let result = match line["result"].as_u64().unwrap() {
            1 => "single",
            2 => "gammon",
            _ => "backgammon",
        };
        let mut body = json!({"winner": winner, "cube": {"value": value, "owner": owner},
            "match": {"length": 0, "score": {"x": session.0, "o": session.1}},
            "rules": {"jacoby": false, "max_cube": 32768}});
        match line["ended_by"].as_str().unwrap() {
            "bearoff" => {
                body["ended_by"] = json!("bearoff");
                body["position"] = finished(&winner, result);
            }
            "drop" => body["ended_by"] = json!("pass"),
            _ => {
                body["ended_by"] = json!("resign");
                body["resign_level"] = json!(result);
            }
        }
        // Both protocols for the first games, HTTP for the rest.
        let answer = if n < 50 {
            r.ok("/score", body.clone()).await
        } else {
            let (status, answer) = r.server.post("/score", &body).await;
            assert_eq!(status, 200, "line {}: {answer}", n + 1);
            answer
        };
        assert_eq!(answer["points"], line["points_won"], "line {}", n + 1);
        assert_eq!(answer["game_match_id"], final_id, "line {}: {body}", n + 1);
        session = score_of(&answer);
        // The next game's Match ID carries the session score on (once its
        // opening roll is played: no double comes before it).
        if n < 50 {
            r.refused(
                json!({"match_id": answer["match_id"], "player": winner, "action": "double"}),
                "no-game",
            )
            .await;
            let next = r
                .allowed(json!({"match_id": turn(&answer["match_id"], &winner),
                    "player": winner, "action": "double"}))
                .await;
            let drop = r
                .allowed(json!({"match_id": next["match_id"], "action": "pass"}))
                .await;
            let (x, o) = score_of(&drop["game_over"]);
            let winner_score = if winner == "x" { x } else { o };
            assert_eq!(
                (x + o, winner_score),
                (
                    session.0 + session.1 + 1,
                    if winner == "x" { session.0 } else { session.1 } + 1
                )
            );
        }
    }
}

#[tokio::test]
async fn bad_input_is_a_400_naming_the_field() {
    let mut r = Referee::start().await;
    let cube_cases: Vec<(Value, &str, &str)> = vec![
        (
            json!({"cube": {"value": 3}, "player": "x", "action": "double"}),
            "invalid-cube",
            "cube.value",
        ),
        (
            json!({"cube": {"value": 0}, "player": "x", "action": "double"}),
            "invalid-cube",
            "cube.value",
        ),
        (
            json!({"cube": {"value": -2}, "player": "x", "action": "double"}),
            "invalid-cube",
            "cube.value",
        ),
        (
            json!({"cube": {"value": 65536}, "player": "x", "action": "double"}),
            "invalid-cube",
            "cube.value",
        ),
        (
            json!({"cube": {"owner": "y"}, "player": "x", "action": "double"}),
            "invalid-request",
            "cube.owner",
        ),
        (
            json!({"cube": {"value": 1, "owner": "x"}, "player": "x", "action": "double"}),
            "invalid-cube",
            "cube.owner",
        ),
        (
            json!({"cube": {"value": 2, "owner": "centre"}, "player": "x", "action": "double"}),
            "invalid-cube",
            "cube.value",
        ),
        (
            json!({"cube": {"value": 2, "owner": "o", "offered_by": "x"}, "player": "o", "action": "take"}),
            "invalid-cube",
            "cube.offered_by",
        ),
        (
            json!({"cube": {"beavers": 1}, "rules": {"beavers": 1}, "player": "x", "action": "double"}),
            "invalid-cube",
            "cube.beavers",
        ),
        (
            json!({"cube": {"beavers": 300}, "player": "x", "action": "double"}),
            "invalid-cube",
            "cube.beavers",
        ),
        (
            json!({"match": {"crawford": true}, "player": "x", "action": "double"}),
            "invalid-match",
            "match.crawford",
        ),
        (
            json!({"match": {"length": 5, "score": {"x": 2, "o": 2}, "crawford": true}, "player": "x", "action": "double"}),
            "invalid-match",
            "match.crawford",
        ),
        (
            json!({"match": {"length": 5, "score": {"x": 5, "o": 2}}, "player": "x", "action": "double"}),
            "invalid-match",
            "match.score",
        ),
        (
            json!({"match": {"length": 40000}, "player": "x", "action": "double"}),
            "invalid-match",
            "match.length",
        ),
        (
            json!({"match": {"length": 5, "score": {"x": -1, "o": 0}}, "player": "x", "action": "double"}),
            "invalid-match",
            "match.score.x",
        ),
        (
            json!({"match": {"length": 5, "crawford": true, "score": {"x": 4, "o": 0}},
            "cube": {"value": 2, "owner": "x"}, "player": "x", "action": "double"}),
            "invalid-cube",
            "cube",
        ),
        (
            json!({"rules": {"max_cube": 100}, "player": "x", "action": "double"}),
            "invalid-rules",
            "rules.max_cube",
        ),
        (
            json!({"rules": {"beavers": -1}, "player": "x", "action": "double"}),
            "invalid-rules",
            "rules.beavers",
        ),
        (
            json!({"rules": {"jacoby": "yes"}, "player": "x", "action": "double"}),
            "invalid-request",
            "rules.jacoby",
        ),
        (
            json!({"match_id": "not a match", "action": "double"}),
            "invalid-match-id",
            "match_id",
        ),
        (
            json!({"match_id": "cAkAAAAAAAAA", "cube": {"value": 2, "owner": "x"}, "action": "double"}),
            "invalid-request",
            "match_id",
        ),
        (json!({"action": "double"}), "invalid-request", "player"),
        (
            json!({"player": "z", "action": "double"}),
            "invalid-request",
            "player",
        ),
        (
            json!({"player": "x", "action": "redouble"}),
            "invalid-request",
            "action",
        ),
        (json!({"player": "x"}), "invalid-request", "action"),
        (
            json!({"player": "x", "action": "resign"}),
            "invalid-request",
            "resign_level",
        ),
        (
            json!({"player": "x", "action": "double", "resign_level": "gammon"}),
            "invalid-request",
            "resign_level",
        ),
        (
            json!({"player": "x", "action": "double", "extra": 1}),
            "invalid-request",
            "extra",
        ),
    ];
    for (body, slug, field) in cube_cases {
        r.problem("/cube", body, 400, slug, field).await;
    }
    let score_cases: Vec<(Value, &str, &str)> = vec![
        (
            json!({"ended_by": "bearoff"}),
            "invalid-request",
            "position",
        ),
        (json!({"ended_by": "pass"}), "invalid-request", "winner"),
        (
            json!({"ended_by": "timeout", "winner": "x"}),
            "invalid-request",
            "ended_by",
        ),
        (json!({"winner": "x"}), "invalid-request", "ended_by"),
        (
            json!({"ended_by": "pass", "winner": "x", "cube": {"value": 3}}),
            "invalid-cube",
            "cube.value",
        ),
        (
            json!({"ended_by": "pass", "winner": "x", "match": {"length": 3, "score": {"x": 3, "o": 0}}}),
            "invalid-match",
            "match.score",
        ),
        (
            json!({"ended_by": "resign", "winner": "x", "resign_level": "triple"}),
            "invalid-request",
            "resign_level",
        ),
        (
            json!({"ended_by": "pass", "winner": "x", "resign_level": "single"}),
            "invalid-request",
            "resign_level",
        ),
        (
            json!({"ended_by": "bearoff", "position": {"position_id": "nope"}}),
            "invalid-position",
            "position.position_id",
        ),
        (
            json!({"ended_by": "bearoff", "position": finished("x", "single"), "variant": "chess"}),
            "invalid-variant",
            "variant",
        ),
        (
            json!({"ended_by": "bearoff", "position": {"xgid": "XGID=-CCCCBA-------------------:2:0:1:00:1:3:0:7:10"}}),
            "invalid-cube",
            "position.xgid",
        ),
        (
            json!({"ended_by": "pass", "winner": "x", "match_id": "cAkAAAAAAAAA", "match": {"length": 3}}),
            "invalid-request",
            "match_id",
        ),
    ];
    for (body, slug, field) in score_cases {
        r.problem("/score", body, 400, slug, field).await;
    }
    // A finished game's Match ID already counts that game.
    let ended = r
        .ok("/score", json!({"ended_by": "pass", "winner": "x"}))
        .await;
    r.problem(
        "/score",
        json!({"ended_by": "pass", "winner": "x", "match_id": ended["game_match_id"]}),
        400,
        "invalid-match-id",
        "match_id",
    )
    .await;
    // Malformed bodies are problems too, never a 5xx.
    for raw in [&b"{"[..], b"", b"[]", b"null", b"{\"cube\": 3}"] {
        for path in ["/cube", "/score"] {
            let (status, ct, text) = r.server.post_raw(path, raw.to_vec()).await;
            assert_eq!(status, 400, "{path} {raw:?}: {text}");
            assert_eq!(ct, "application/problem+json");
        }
    }
    // gRPC-only shapes: an unspecified action, an out-of-range enum.
    let mut grpc = r.grpc.clone();
    let status = grpc
        .resolve_cube(proto::ResolveCubeRequest {
            player: proto::Player::X as i32,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(j_problem(&status)["field"], "action");
    let status = grpc
        .score_game(proto::ScoreGameRequest {
            ended_by: proto::EndedBy::Pass as i32,
            winner: 7,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(j_problem(&status)["field"], "winner");
}

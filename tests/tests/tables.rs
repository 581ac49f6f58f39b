//! The tables games (issue 13: Portes, Tavla, Plakoto, Fevga, Long Nardy)
//! through the real binary over HTTP and gRPC: whole seeded random games
//! through `/legal-moves` + `/apply-move` with both protocols agreeing,
//! scoring the end, and one probe per rule the service must refuse with
//! its exact reason.

use bgref_e2e::Server;
use bgref_service::proto;
use serde_json::{Value, json};
use tonic_types::StatusExt as _;

const GAMES: [&str; 5] = ["portes", "tavla", "plakoto", "fevga", "long-nardy"];

fn proto_variant(name: &str) -> i32 {
    (match name {
        "portes" => proto::Variant::Portes,
        "tavla" => proto::Variant::Tavla,
        "plakoto" => proto::Variant::Plakoto,
        "fevga" => proto::Variant::Fevga,
        "long-nardy" => proto::Variant::LongNardy,
        _ => proto::Variant::Standard,
    }) as i32
}

fn proto_player(v: &Value) -> i32 {
    match v.as_str() {
        Some("x") => proto::Player::X as i32,
        Some("o") => proto::Player::O as i32,
        _ => 0,
    }
}

fn ints(v: &Value) -> Vec<i32> {
    v.as_array().map_or_else(Vec::new, |a| {
        a.iter().map(|n| n.as_i64().unwrap() as i32).collect()
    })
}

fn per_player(v: &Value) -> Option<proto::PerPlayer> {
    v.is_object().then(|| proto::PerPlayer {
        x: v["x"].as_u64().unwrap() as u32,
        o: v["o"].as_u64().unwrap() as u32,
    })
}

/// A JSON request position as its proto message.
fn proto_position(p: &Value) -> proto::PositionInput {
    use proto::position_input::Encoding;
    let encoding = if let Some(id) = p["position_id"].as_str() {
        Encoding::PositionId(id.to_owned())
    } else {
        let b = &p["board"];
        Encoding::Board(proto::Board {
            points: ints(&b["points"]),
            bar: per_player(&b["bar"]),
            off: per_player(&b["off"]),
            turn: proto_player(&b["turn"]),
            pins: ints(&b["pins"]),
        })
    };
    proto::PositionInput {
        encoding: Some(encoding),
        turn: proto_player(&p["turn"]),
    }
}

/// A response position (either protocol) in one comparable JSON shape.
fn http_position(p: &Value) -> Value {
    let b = &p["board"];
    json!({
        "position_id": p["position_id"].as_str().unwrap_or_default(),
        "xgid": p["xgid"].as_str().unwrap_or_default(),
        "points": b["points"], "pins": ints(&b["pins"]),
        "off": b["off"], "turn": b["turn"],
    })
}

fn player_name(p: i32) -> Value {
    match proto::Player::try_from(p) {
        Ok(proto::Player::X) => json!("x"),
        Ok(proto::Player::O) => json!("o"),
        _ => Value::Null,
    }
}

fn grpc_position(p: &proto::Position) -> Value {
    let b = p.board.as_ref().unwrap();
    let off = b.off.unwrap();
    json!({
        "position_id": p.position_id, "xgid": p.xgid,
        "points": b.points, "pins": b.pins,
        "off": {"x": off.x, "o": off.o}, "turn": player_name(b.turn),
    })
}

fn http_play(p: &Value) -> Value {
    json!({"notation": p["notation"], "moves": p["moves"], "position": http_position(&p["position"])})
}

fn grpc_play(p: &proto::Play) -> Value {
    json!({
        "notation": p.notation,
        "moves": p.moves.iter().map(|m| json!({"from": m.from_point, "to": m.to_point, "hit": m.hit})).collect::<Vec<_>>(),
        "position": grpc_position(p.position.as_ref().unwrap()),
    })
}

/// The game over of either protocol as (winner, points).
fn http_over(o: &Value) -> Value {
    json!({"winner": o["winner"], "points": o["points"]})
}

fn grpc_over(o: &proto::GameOver) -> Value {
    json!({"winner": player_name(o.winner), "points": o.points})
}

/// A small seeded generator (xorshift64*), for the dice.
struct Rng(u64);

impl Rng {
    fn die(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as u32 % 6 + 1
    }
}

/// The variants' starting positions from `GET /variants`, by name.
async fn starts(server: &Server) -> Value {
    let (status, text) = server.get("/variants").await;
    assert_eq!(status, 200);
    let body: Value = serde_json::from_str(&text).unwrap();
    let mut out = json!({});
    for v in body["variants"].as_array().unwrap() {
        out[v["name"].as_str().unwrap()] = v.clone();
    }
    out
}

#[tokio::test]
async fn variants_list_the_tables_games() {
    let server = Server::start(&[]).await;
    let list = starts(&server).await;
    for game in GAMES {
        let v = &list[game];
        assert_eq!(v["checkers"], 15, "{game}");
        assert_eq!(
            v["rules"],
            json!({"cube": false, "gammons": true, "backgammons": false}),
            "{game}"
        );
    }
    // The encodings that apply to each game.
    assert_eq!(list["portes"]["start"]["position_id"], "4HPwATDgc/ABMA");
    assert!(list["tavla"]["start"]["xgid"].is_string());
    let plakoto = &list["plakoto"]["start"];
    assert!(plakoto.get("position_id").is_none() && plakoto.get("xgid").is_none());
    assert_eq!(plakoto["board"]["points"][0], -15);
    assert_eq!(plakoto["board"]["points"][23], 15);
    assert_eq!(plakoto["board"]["pins"], json!(vec![0; 24]));
    for game in ["fevga", "long-nardy"] {
        let start = &list[game]["start"];
        assert!(start["position_id"].is_string() && start.get("xgid").is_none());
        assert!(start["board"].get("pins").is_none());
        assert_eq!(
            start["board"]["points"][11], -15,
            "{game}: o's 24 is x's 12"
        );
        assert_eq!(start["board"]["points"][23], 15);
    }
    // gRPC lists the same.
    let mut grpc = server.grpc().await;
    let answer = grpc
        .list_variants(proto::ListVariantsRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer.variants.len(), list.as_object().unwrap().len());
    for info in answer.variants {
        let v = &list[info.name.as_str()];
        if GAMES.contains(&info.name.as_str()) {
            assert_eq!(proto_variant(&info.name), info.variant, "{}", info.name);
        }
        assert_eq!(
            grpc_position(info.start.as_ref().unwrap()),
            http_position(&v["start"]),
            "{}",
            info.name
        );
    }
}

/// Plays one whole game of `game` (first legal play each turn, seeded
/// dice) over both protocols; returns the number of turns and the final
/// game over.
async fn random_game(server: &Server, game: &str, seed: u64) -> (usize, Value) {
    let mut grpc = server.grpc().await;
    let mut rng = Rng(seed);
    let list = starts(server).await;
    let start = &list[game]["start"];
    let mut position = json!({"board": start["board"]});
    let mut game_start = true;
    for turn in 0..3000 {
        let dice = [rng.die(), rng.die()];
        let request =
            json!({"variant": game, "position": position, "dice": dice, "game_start": game_start});
        let (status, body) = server.post("/legal-moves", &request).await;
        assert_eq!(status, 200, "{game} turn {turn}: {request} {body}");
        let reply = grpc
            .legal_moves(proto::LegalMovesRequest {
                variant: proto_variant(game),
                position: Some(proto_position(&position)),
                dice: dice.to_vec(),
                game_start,
                fields: Vec::new(),
            })
            .await
            .unwrap()
            .into_inner();
        let http_plays: Vec<Value> = body["plays"]
            .as_array()
            .unwrap()
            .iter()
            .map(http_play)
            .collect();
        let grpc_plays: Vec<Value> = reply.plays.iter().map(grpc_play).collect();
        assert_eq!(http_plays, grpc_plays, "{game} turn {turn}");
        assert_eq!(body["forced"], reply.forced);

        // The first legal play (none: the turn passes), as a list of moves.
        let moves: Vec<Value> = body["plays"]
            .get(0)
            .map(|p| {
                p["moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| json!({"from": m["from"], "to": m["to"]}))
                    .collect()
            })
            .unwrap_or_default();
        let request = json!({"variant": game, "position": position, "dice": dice, "play": moves});
        let (status, applied) = server.post("/apply-move", &request).await;
        assert_eq!(status, 200, "{game} turn {turn}: {request} {applied}");
        let reply = grpc
            .apply_move(proto::ApplyMoveRequest {
                variant: proto_variant(game),
                position: Some(proto_position(&position)),
                dice: dice.to_vec(),
                play: Some(proto::apply_move_request::Play::Moves(proto::MoveList {
                    moves: moves
                        .iter()
                        .map(|m| proto::MoveInput {
                            from_point: m["from"].as_u64().unwrap() as u32,
                            to_point: m["to"].as_u64().unwrap() as u32,
                        })
                        .collect(),
                })),
                partial: false,
                game_start,
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            http_position(&applied["position"]),
            grpc_position(reply.position.as_ref().unwrap()),
            "{game} turn {turn}"
        );
        assert_eq!(
            applied["play"]["notation"],
            reply.play.as_ref().unwrap().notation
        );
        assert_eq!(applied["hits"], json!(reply.hits));
        if let Some(first) = body["plays"].get(0) {
            assert_eq!(
                http_position(&applied["position"]),
                http_position(&first["position"])
            );
        }
        match (applied.get("game_over"), reply.game_over.as_ref()) {
            (Some(over), Some(g)) => {
                assert_eq!(http_over(over), grpc_over(g), "{game}");
                // /score agrees on the finished position, over both protocols.
                let finished = json!({"board": applied["position"]["board"]});
                let (status, scored) = server
                    .post(
                        "/score",
                        &json!({"variant": game, "ended_by": "bearoff", "position": finished}),
                    )
                    .await;
                assert_eq!(status, 200, "{game}: {scored}");
                assert_eq!(scored["points"], over["points"], "{game}");
                assert_eq!(scored["variant"], game);
                let g_scored = grpc
                    .score_game(proto::ScoreGameRequest {
                        variant: proto_variant(game),
                        ended_by: proto::EndedBy::Bearoff as i32,
                        position: Some(proto_position(&finished)),
                        ..Default::default()
                    })
                    .await
                    .unwrap()
                    .into_inner();
                assert_eq!(json!(g_scored.points), scored["points"]);
                assert_eq!(player_name(g_scored.winner), over["winner"]);
                return (turn + 1, over.clone());
            }
            (None, None) => {}
            other => panic!("{game}: the protocols disagree on the end: {other:?}"),
        }
        // Alternate the encodings of the next request: the board, or the
        // Position ID and turn where one applies.
        let next = &applied["position"];
        position = match next["position_id"].as_str() {
            Some(id) if turn % 2 == 1 => json!({"position_id": id, "turn": next["board"]["turn"]}),
            _ => json!({"board": next["board"]}),
        };
        game_start = false;
    }
    panic!("{game}: no end after 3000 turns");
}

#[tokio::test]
async fn whole_random_games_over_both_protocols() {
    let server = Server::start(&[]).await;
    for (i, game) in GAMES.iter().enumerate() {
        let mut turns = 0;
        let mut ends = Vec::new();
        for seed in 0..2u64 {
            let (n, over) = random_game(&server, game, 0x9E37_79B9 + seed * 7919 + i as u64).await;
            turns += n;
            ends.push(over);
        }
        eprintln!("{game}: 2 games, {turns} turns, ends {ends:?}");
        for over in ends {
            let points = over["points"].as_u64().unwrap();
            assert!(points <= 2, "{game}: {over}");
        }
    }
}

/// A JSON refusal and the gRPC one for the same apply-move request.
async fn refused(server: &Server, request: Value) -> (Value, tonic::Status) {
    let (status, body) = server.post("/apply-move", &request).await;
    assert!(status == 400 || status == 422, "{request}: {status} {body}");
    let mut grpc = server.grpc().await;
    let moves = request["play"].as_array().unwrap();
    let reply = grpc
        .apply_move(proto::ApplyMoveRequest {
            variant: proto_variant(request["variant"].as_str().unwrap()),
            position: Some(proto_position(&request["position"])),
            dice: request["dice"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as u32)
                .collect(),
            play: Some(proto::apply_move_request::Play::Moves(proto::MoveList {
                moves: moves
                    .iter()
                    .map(|m| proto::MoveInput {
                        from_point: m["from"].as_u64().unwrap() as u32,
                        to_point: m["to"].as_u64().unwrap() as u32,
                    })
                    .collect(),
            })),
            partial: request["partial"].as_bool().unwrap_or(false),
            game_start: false,
        })
        .await
        .expect_err("gRPC refuses it too");
    assert_eq!(reply.message(), body["detail"].as_str().unwrap());
    assert_eq!(
        reply.get_details_error_info().expect("ErrorInfo").reason,
        body["type"].as_str().unwrap()
    );
    (body, reply)
}

fn mv(from: u8, to: u8) -> Value {
    json!({"from": from, "to": to})
}

#[tokio::test]
async fn plakoto_pins_and_the_pinned_checker_cannot_move() {
    let server = Server::start(&[]).await;
    // x: 15 on its 24-point. o: 14 on its 24-point (x's 1) and a blot on
    // its 7-point (x's 18). x on roll with 6-1.
    let mut points = vec![0; 24];
    points[23] = 15;
    points[0] = -14;
    points[17] = -1;
    let position = json!({"board": {"points": points, "turn": "x"}});
    let (status, body) = server
        .post(
            "/apply-move",
            &json!({"variant": "plakoto", "position": position, "dice": [6, 1], "play": "24/18* 24/23"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["hits"], json!([18]));
    assert_eq!(body["variant"], "plakoto");
    assert_eq!(body["turn"], "o");
    let board = &body["position"]["board"];
    assert_eq!(board["points"][17], 1, "the pinner's count");
    assert_eq!(board["pins"][17], -1, "an o checker pinned under x's");
    assert!(body["position"].get("position_id").is_none());

    // o's pinned checker (its 7-point) may not move.
    let pinned = json!({"board": board});
    let (status, legal) = server
        .post(
            "/legal-moves",
            &json!({"variant": "plakoto", "position": pinned, "dice": [6, 1]}),
        )
        .await;
    assert_eq!(status, 200);
    for play in legal["plays"].as_array().unwrap() {
        assert!(
            play["moves"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["from"] != 7),
            "{play}"
        );
    }
    let (body, _) = refused(
        &server,
        json!({"variant": "plakoto", "position": pinned, "dice": [6, 1], "play": [mv(7, 1), mv(24, 23)]}),
    )
    .await;
    assert_eq!(body["type"], "illegal-play");
    assert_eq!(body["status"], 422);
    assert_eq!(body["detail"], "the checker on point 7 is pinned");
    // The partial entry of the same move is refused for the same reason.
    let (body, _) = refused(
        &server,
        json!({"variant": "plakoto", "position": pinned, "dice": [6, 1], "play": [mv(7, 1)], "partial": true}),
    )
    .await;
    assert_eq!(body["detail"], "the checker on point 7 is pinned");
    // A Position ID and an XGID do not apply to Plakoto.
    let (status, body) = server
        .post(
            "/legal-moves",
            &json!({"variant": "plakoto", "position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [6, 1]}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["field"], "position.position_id");
}

#[tokio::test]
async fn fevga_single_checker_blocks_without_hitting() {
    let server = Server::start(&[]).await;
    // x: 15 on its 24-point. o: 14 on its 24-point (x's 12) and one
    // checker on its 6-point (x's 18). x on roll with 6-5: 24/18 is
    // blocked by the single o checker, which is never hit.
    let mut points = vec![0; 24];
    points[23] = 15;
    points[11] = -14;
    points[17] = -1;
    let position = json!({"board": {"points": points, "turn": "x"}});
    let (body, _) = refused(
        &server,
        json!({"variant": "fevga", "position": position, "dice": [6, 5], "play": [mv(24, 18), mv(18, 13)]}),
    )
    .await;
    assert_eq!(body["type"], "illegal-play");
    assert_eq!(body["detail"], "point 18 is blocked");
    let (status, legal) = server
        .post(
            "/legal-moves",
            &json!({"variant": "fevga", "position": position, "dice": [6, 5]}),
        )
        .await;
    assert_eq!(status, 200);
    for play in legal["plays"].as_array().unwrap() {
        for m in play["moves"].as_array().unwrap() {
            assert_ne!(m["to"], 18, "{play}");
            assert_eq!(m["hit"], false);
        }
    }
    // The same position as a Position ID (with turn) gives the same plays.
    let id = legal["plays"][0]["position"]["position_id"]
        .as_str()
        .unwrap();
    assert_eq!(id.len(), 14);
}

#[tokio::test]
async fn long_nardy_head_rule() {
    let server = Server::start(&[]).await;
    let list = starts(&server).await;
    let start = json!({"board": list["long-nardy"]["start"]["board"]});
    let (body, _) = refused(
        &server,
        json!({"variant": "long-nardy", "position": start, "dice": [5, 2], "play": [mv(24, 19), mv(24, 22)]}),
    )
    .await;
    assert_eq!(body["type"], "illegal-play");
    assert_eq!(
        body["detail"],
        "only one checker may leave the head this turn"
    );
    // The one legal play takes one checker with both dice.
    let (status, legal) = server
        .post(
            "/legal-moves",
            &json!({"variant": "long-nardy", "position": start, "dice": [5, 2], "game_start": true}),
        )
        .await;
    assert_eq!(status, 200, "{legal}");
    assert_eq!(legal["plays"].as_array().unwrap().len(), 1);
    assert_eq!(legal["forced"], true);
    // A position said to be the start that is not.
    let moved = json!({"board": legal["plays"][0]["position"]["board"]});
    let (status, body) = server
        .post(
            "/legal-moves",
            &json!({"variant": "long-nardy", "position": moved, "dice": [5, 2], "game_start": true}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["type"], "not-start-position");
}

#[tokio::test]
async fn no_cube_in_the_tables_games() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    for game in GAMES {
        let (status, body) = server
            .post(
                "/cube",
                &json!({"variant": game, "player": "x", "action": "double"}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["allowed"], false);
        assert_eq!(body["reason_slug"], "no-cube-in-variant");
        let reply = grpc
            .resolve_cube(proto::ResolveCubeRequest {
                variant: proto_variant(game),
                player: proto::Player::X as i32,
                action: proto::CubeAction::Double as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(!reply.allowed);
        assert_eq!(reply.reason_slug, "no-cube-in-variant");
        assert_eq!(reply.reason, body["reason"].as_str().unwrap());

        // Scoring with a turned cube is a clear 400.
        let (status, body) = server
            .post(
                "/score",
                &json!({"variant": game, "ended_by": "bearoff", "cube": {"value": 2, "owner": "x"},
                        "position": {"position_id": "4HPwATDgc/ABMA"}}),
            )
            .await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["type"], "no-cube-in-variant");
        assert_eq!(body["field"], "cube");
    }
    // The referee game flow stays backgammon-only, with a clear refusal.
    let (status, body) = server
        .post(
            "/games",
            &json!({"match_id": "tables-1", "variant": "plakoto"}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["type"], "unsupported-variant");
}

#[tokio::test]
async fn portes_scores_a_backgammon_as_two() {
    let server = Server::start(&[]).await;
    // x has borne off all 15; o none, with checkers in x's home board.
    let mut points = vec![0; 24];
    points[1] = -5;
    points[2] = -5;
    points[3] = -5;
    let finished = json!({"board": {"points": points, "off": {"x": 15, "o": 0}, "turn": "o"}});
    for (variant, points) in [("portes", 2), ("tavla", 2), ("standard", 3)] {
        let (status, body) = server
            .post(
                "/score",
                &json!({"variant": variant, "ended_by": "bearoff", "position": finished}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["points"], points, "{variant}");
        assert_eq!(body["result"], "backgammon");
    }
}

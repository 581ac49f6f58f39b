//! The tables games (issue 13: Portes, Tavla, Plakoto, Fevga, Long Nardy)
//! through the real binary over HTTP and gRPC: whole seeded random games
//! through `/legal-moves` + `/apply-move` with both protocols agreeing,
//! scoring the end, and one probe per rule the service must refuse with
//! its exact reason.

use bgref_e2e::{Server, proto_act, proto_step, wire, with_roll_token};
use bgref_service::proto;
use serde_json::{Value, json};
use tonic_types::StatusExt as _;

const GAMES: [&str; 5] = ["portes", "tavla", "plakoto", "fevga", "long-nardy"];

fn proto_variant(name: &str) -> i32 {
    wire::enum_number("Variant", name).unwrap_or_else(|| panic!("no variant {name}"))
}

fn ints(v: &Value) -> Vec<i32> {
    v.as_array().map_or_else(Vec::new, |a| {
        a.iter().map(|n| n.as_i64().unwrap() as i32).collect()
    })
}

/// A JSON request position as its proto message.
fn proto_position(p: &Value) -> proto::PositionInput {
    wire::to_message("PositionInput", p)
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
                tables_rules: None,
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
                tables_rules: None,
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
            tables_rules: None,
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
    // The referee game flow serves them without the cube (see
    // `tables_game_refusals_and_tampered_tokens`).
    let (status, body) = server
        .post(
            "/games",
            &json!({"match_id": "tables-1", "variant": "plakoto"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["view"]["may_double"], false);
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

// --- The refereed game flow (`/games`) of the tables games ---

type Grpc = proto::referee_client::RefereeClient<tonic::transport::Channel>;

fn proto_new_game(start: &Value) -> proto::NewGameRequest {
    wire::to_message("NewGameRequest", start)
}

/// How a bot picks among the legal plays.
#[derive(Clone, Copy, PartialEq)]
enum Bot {
    /// Any legal play, from the seeded generator.
    Random,
    /// Plakoto: a play that pins a checker on the mover's 1-point (the
    /// opponent's starting point) when there is one, else any.
    HuntMothers,
}

/// The action a bot takes in `view`.
fn bot_step(view: &Value, rng: &mut Rng, bot: Bot) -> Value {
    let phase = view["phase"].as_str().unwrap();
    let to_act = view["to_act"].as_str().unwrap_or("x");
    let mut step = json!({"player": to_act});
    step["action"] = json!(match phase {
        "opening_roll" | "roll_or_double" => "roll",
        "game_over" => "next_game",
        "move" => "move",
        other => panic!("no bot action in phase {other}"),
    });
    if phase == "move" {
        let plays = view["plays"].as_array().unwrap();
        assert!(
            !plays.is_empty(),
            "a move is due with no legal play: {view}"
        );
        let hunting: Vec<&Value> = plays
            .iter()
            .filter(|p| {
                p["moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|m| m["to"] == 1 && m["hit"] == true)
            })
            .collect();
        let pick = |list: &[&Value], rng: &mut Rng| {
            let i = (rng.die() as usize * 7919 + rng.die() as usize * 104_729) % list.len();
            list[i]["notation"].clone()
        };
        step["play"] = if bot == Bot::HuntMothers && !hunting.is_empty() {
            pick(&hunting, rng)
        } else {
            pick(&plays.iter().collect::<Vec<_>>(), rng)
        };
    }
    step
}

/// A game played through `/games`: the new-game request, every action,
/// every view, and the last token.
struct Played {
    actions: Vec<Value>,
    answers: Vec<Value>,
    views: Vec<Value>,
    state: String,
}

/// Plays from `start` until `stop` says so (or the match is over), over
/// HTTP and, when `grpc` is given, the same action over gRPC on the gRPC
/// token: both protocols must answer the same token.
async fn play_games(
    server: &Server,
    mut grpc: Option<&mut Grpc>,
    start: &Value,
    seed: u64,
    bot: Bot,
    stop: impl Fn(&Value) -> bool,
) -> Played {
    let (status, first) = server.post("/games", start).await;
    assert_eq!(status, 200, "{start}: {first}");
    if let Some(g) = grpc.as_deref_mut() {
        let answer = g
            .new_game(proto_new_game(start))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            answer.state, first["state"],
            "the protocols start differently"
        );
    }
    let mut rng = Rng(seed);
    let mut played = Played {
        actions: Vec::new(),
        answers: Vec::new(),
        views: vec![first["view"].clone()],
        state: first["state"].as_str().unwrap().to_owned(),
    };
    for _ in 0..20_000 {
        let view = played.views.last().unwrap();
        if view["phase"] == "match_over" || stop(view) {
            return played;
        }
        let step = bot_step(view, &mut rng, bot);
        let mut body = step.clone();
        body["state"] = json!(played.state);
        let (status, answer) = server.post("/games/act", &body).await;
        assert_eq!(status, 200, "{step}: {answer}");
        if let Some(g) = grpc.as_deref_mut() {
            let a = g
                .act(proto_act(&played.state, &step))
                .await
                .unwrap()
                .into_inner();
            assert_eq!(a.state, answer["state"], "{step}: the protocols disagree");
            assert_eq!(
                a.tables_game_over.is_some(),
                answer.get("tables_game_over").is_some()
            );
            if let Some(over) = &a.tables_game_over {
                assert_eq!(over.points, answer["tables_game_over"]["points"]);
            }
        }
        played.state = answer["state"].as_str().unwrap().to_owned();
        played.views.push(answer["view"].clone());
        played.actions.push(step);
        played.answers.push(answer);
    }
    panic!("{start}: no end after 20000 actions");
}

/// The transcript verifies over both protocols and reaches the final token.
async fn verifies(server: &Server, grpc: &mut Grpc, start: &Value, played: &Played) {
    let body = json!({"start": start, "actions": played.actions, "state": played.state});
    let (status, verdict) = server.post("/games/verify", &body).await;
    assert_eq!(status, 200, "{verdict}");
    assert_eq!(
        (verdict["valid"].clone(), verdict["state_matches"].clone()),
        (json!(true), json!(true)),
        "{verdict}"
    );
    assert_eq!(verdict["view"], *played.views.last().unwrap());
    let steps = played.actions.iter().map(proto_step).collect();
    let g = grpc
        .verify_game(proto::VerifyGameRequest {
            start: Some(proto_new_game(start)),
            actions: steps,
            state: played.state.clone(),
            started_at_ms: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(g.valid && g.state_matches == Some(true));
}

#[tokio::test]
async fn whole_tables_games_through_the_game_flow_over_both_protocols() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    for (i, game) in GAMES.into_iter().enumerate() {
        for k in 0..1u64 {
            let start = json!({"match_id": format!("flow-{game}-{k}"), "client_seed": "a:b",
                "variant": game, "match": {"length": 1}});
            let played = play_games(
                &server,
                Some(&mut grpc),
                &start,
                1000 + i as u64 * 10 + k,
                Bot::Random,
                |_| false,
            )
            .await;
            // The opening roll only picks the starter, who then rolls.
            let first = &played.answers[0];
            assert_eq!(first["event"]["kind"], "starter_chosen", "{first}");
            let starter = first["event"]["player"].clone();
            let dice = first["event"]["dice"].as_array().unwrap();
            assert_ne!(dice[0], dice[1]);
            assert_eq!(first["view"]["phase"], "roll_or_double");
            assert_eq!(first["view"]["to_act"], starter);
            assert_eq!(first["view"]["dice"], Value::Null);
            assert_eq!(played.answers[1]["event"]["kind"], "rolled");
            assert_eq!(first["roll"]["turn"], 0);
            assert_eq!(played.answers[1]["roll"]["turn"], 1);
            // Every view: the variant, no cube, the tables match.
            for view in &played.views {
                assert_eq!(view["variant"], game);
                assert_eq!(view["may_double"], false);
                assert_eq!(view["cube"]["value"], 1);
                assert_eq!(view["tables"]["tavli"], false);
                let has_pins = view["position"]["board"].get("pins").is_some();
                assert_eq!(has_pins, game == "plakoto", "{view}");
                assert_eq!(view["position"].get("xgid").is_some(), i < 2);
            }
            // A one-point match: the first decisive game ends it.
            let last = played.views.last().unwrap();
            let over = &played.answers.last().unwrap()["tables_game_over"];
            if over["outcome"] == "draw" {
                continue;
            }
            assert_eq!(last["phase"], "match_over", "{last}");
            let winner = over["winner"].as_str().unwrap();
            assert_eq!(over["game"], game);
            assert_eq!(over["match_winner"], winner);
            let points = over["points"].as_u64().unwrap();
            let expected = match over["outcome"].as_str().unwrap() {
                "single" => 1,
                "double" | "mother" => 2,
                other => panic!("{other}"),
            };
            assert_eq!(points, expected, "{over}");
            assert_eq!(over["match_score"][winner], points);
            if i < 2 {
                // Portes and Tavla: a gammon or backgammon counts 2.
                assert!(over["result"].is_string(), "{over}");
            }
            assert_eq!(last["tables_result"], *over);
            verifies(&server, &mut grpc, &start, &played).await;
            // A .mat file cannot hold a tables game.
            let (status, problem) = server
                .post(
                    "/games/export",
                    &json!({"start": start, "actions": played.actions}),
                )
                .await;
            assert_eq!(status, 422, "{problem}");
            assert_eq!(problem["type"], "not-exportable");
        }
    }
}

/// Tavla under "no hit-and-run in the home board" ([W-Tv], [BGE-Tv];
/// docs/variants.md, Tavla): whole games through the game flow, over both
/// protocols in lock step. No play the referee offers moves the hitter on:
/// on a home-board point where a hit happened (the mover had no checker
/// there, only the opposing blot), fewer checkers may leave than arrived,
/// as one of them, the hitter, stays. Every offered play is accepted, and
/// the transcripts verify.
#[tokio::test]
async fn tavla_games_under_the_hit_and_run_rule_through_the_game_flow() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    // The moves of a play as (from, to, hit).
    let moves = |play: &Value| -> Vec<(u64, u64, bool)> {
        play["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let at = |k: &str| m[k].as_u64().unwrap();
                (at("from"), at("to"), m["hit"] == true)
            })
            .collect()
    };
    let hitter_moved_on = |moves: &[(u64, u64, bool)]| {
        (1..=6).any(|n| {
            let hit = moves.iter().any(|&(_, to, hit)| hit && to == n);
            let arrived = moves.iter().filter(|&&(_, to, _)| to == n).count();
            let left = moves.iter().filter(|&&(from, _, _)| from == n).count();
            hit && left >= arrived
        })
    };
    // 8/5*/3 moves the hitter on; 6/4*/2 6/4 need not (the other checker
    // from 6 goes on).
    assert!(hitter_moved_on(&[(8, 5, true), (5, 3, false)]));
    assert!(!hitter_moved_on(&[
        (6, 4, true),
        (6, 4, false),
        (4, 2, false)
    ]));
    let (mut home_hits, mut plays_seen) = (0, 0);
    for k in 0..3u64 {
        let start = json!({"match_id": format!("tavla-har-{k}"), "client_seed": "a:b",
            "variant": "tavla", "match": {"length": 1},
            "tables_rules": {"hit_and_run": "forbidden_in_home"}});
        let played = play_games(
            &server,
            Some(&mut grpc),
            &start,
            7000 + k,
            Bot::Random,
            |_| false,
        )
        .await;
        for view in &played.views {
            for play in view["plays"].as_array().into_iter().flatten() {
                plays_seen += 1;
                let moves = moves(play);
                assert!(
                    !hitter_moved_on(&moves),
                    "{} offered in {view}",
                    play["notation"]
                );
                home_hits += usize::from(
                    moves
                        .iter()
                        .any(|&(_, to, hit)| hit && (1..=6).contains(&to)),
                );
            }
        }
        assert_eq!(played.views.last().unwrap()["phase"], "match_over");
        verifies(&server, &mut grpc, &start, &played).await;
    }
    // The rule had something to act on: plays that hit in the home board.
    assert!(
        home_hits > 0,
        "{home_hits} home-board hits in {plays_seen} plays"
    );
}

#[tokio::test]
async fn a_tavli_match_rotates_the_games_to_the_end() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let start = json!({"match_id": "tavli-final", "client_seed": "a:b", "tavli": true,
        "match": {"length": 5}});
    // Over HTTP (the protocols' agreement is checked game by game in
    // `whole_tables_games_through_the_game_flow_over_both_protocols`); the
    // transcript is verified over both.
    let played = play_games(&server, None, &start, 77, Bot::Random, |_| false).await;
    let rotation = ["portes", "plakoto", "fevga"];
    let mut games = 0;
    let mut last_winner: Option<Value> = None;
    for (answer, step) in played.answers.iter().zip(&played.actions) {
        let view = &answer["view"];
        assert_eq!(view["tables"]["tavli"], true);
        assert_eq!(view["match"]["length"], 5);
        if step["action"] == "next_game" {
            games += 1;
            assert_eq!(view["variant"], rotation[games % 3], "{view}");
            assert_eq!(view["tables"]["games_played"], games);
            // The previous winner starts, without an opening roll.
            match &last_winner {
                Some(w) => {
                    assert_eq!(view["phase"], "roll_or_double");
                    assert_eq!(view["to_act"], *w);
                    assert_eq!(answer["event"]["player"], *w);
                }
                None => assert_eq!(view["phase"], "opening_roll"),
            }
        }
        if let Some(over) = answer.get("tables_game_over") {
            assert_eq!(over["game"], rotation[games % 3]);
            last_winner = over.get("winner").cloned();
            // docs/referee.md, "The view": once the game is over the view
            // counts it and names its winner as the next starter.
            assert_eq!(view["tables"]["games_played"], games + 1, "{view}");
            assert_eq!(
                view["tables"]["next_starter"],
                last_winner.clone().unwrap_or(Value::Null),
                "{view}"
            );
        }
    }
    let last = played.views.last().unwrap();
    assert_eq!(last["phase"], "match_over");
    let result = &last["tables_result"];
    let winner = result["match_winner"].as_str().unwrap();
    assert!(result["match_score"][winner].as_u64().unwrap() >= 5);
    assert!(games >= 2, "a 5-point match of at most 2 points a game");
    verifies(&server, &mut grpc, &start, &played).await;
    // Nothing follows the match.
    let (status, problem) = server
        .post(
            "/games/act",
            &json!({"state": played.state, "player": "x", "action": "next_game"}),
        )
        .await;
    assert_eq!(
        (status, problem["type"].clone()),
        (422, json!("wrong-phase"))
    );
}

/// Searches seeded Plakoto sessions (mother-hunting bots) for a game that
/// ends with `outcome`, from match id `mother-{first}` on (where the
/// search succeeded when this was written: any later game that ends so
/// would do as well); returns the start and the game.
async fn plakoto_ending(server: &Server, outcome: &str, first: u64) -> (Value, Played) {
    for k in first..first + 60 {
        let start =
            json!({"match_id": format!("mother-{k}"), "client_seed": "m", "variant": "plakoto"});
        let played = play_games(server, None, &start, 500 + k, Bot::HuntMothers, |v| {
            v["phase"] == "game_over"
        })
        .await;
        let end = played.answers.last().unwrap();
        if end["tables_game_over"]["outcome"] == outcome {
            return (start, played);
        }
    }
    panic!("no plakoto game of the search ends with {outcome}");
}

#[tokio::test]
async fn plakoto_mother_rule_and_draw_through_the_game_flow() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    // The mother rule: the loser's last checker on its start is pinned.
    let (start, played) = plakoto_ending(&server, "mother", 14).await;
    let end = played.answers.last().unwrap();
    let over = &end["tables_game_over"];
    let winner = over["winner"].as_str().unwrap();
    let loser = if winner == "x" { "o" } else { "x" };
    assert_eq!(over["points"], 2);
    assert_eq!(end["event"]["kind"], "moved");
    // On the board (x's view): the loser's start point holds a pinned
    // checker, and no other checker of the loser.
    let board = &end["view"]["position"]["board"];
    let (start_index, mark) = if loser == "x" { (23, 1) } else { (0, -1) };
    assert_eq!(board["pins"][start_index], mark, "{board}");
    assert!(
        end["view"]["position"]["board"]["off"][winner]
            .as_u64()
            .unwrap()
            < 15
    );
    assert_eq!(end["view"]["tables_result"]["match_score"][winner], 2);
    verifies(&server, &mut grpc, &start, &played).await;

    // Both mothers pinned: a draw, nobody scores, the next game begins with
    // an opening roll.
    let (start, played) = plakoto_ending(&server, "draw", 0).await;
    let end = played.answers.last().unwrap();
    let over = &end["tables_game_over"];
    assert!(over.get("winner").is_none(), "{over}");
    assert_eq!(over["points"], 0);
    assert_eq!(over["match_score"], json!({"x": 0, "o": 0}));
    let board = &end["view"]["position"]["board"];
    assert_eq!(
        (board["pins"][23].clone(), board["pins"][0].clone()),
        (json!(1), json!(-1))
    );
    let (status, next) = server
        .post(
            "/games/act",
            &json!({"state": played.state, "player": "o", "action": "next_game"}),
        )
        .await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(next["view"]["phase"], "opening_roll");
    assert_eq!(next["view"]["tables"]["next_starter"], Value::Null);
    verifies(&server, &mut grpc, &start, &played).await;
}

#[tokio::test]
async fn tables_game_refusals_and_tampered_tokens() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let start = json!({"match_id": "t-refuse", "client_seed": "c", "variant": "plakoto"});
    let (_, game) = server.post("/games", &start).await;
    let token = game["state"].as_str().unwrap().to_owned();
    let bytes = base64_decode(&token);
    assert_eq!(bytes[0], 2, "a tables game writes token version 2");
    // Any byte changed: refused.
    for i in 0..bytes.len() {
        let mut changed = bytes.clone();
        changed[i] ^= 0x01;
        let body = json!({"state": base64_encode(&changed), "player": "x", "action": "roll"});
        let (status, problem) = server.post("/games/act", &body).await;
        assert_eq!(status, 400, "byte {i}: {problem}");
        let kind = problem["type"].as_str().unwrap();
        assert!(
            kind == "invalid-state-token" || kind == "unknown-key",
            "{problem}"
        );
    }
    // An unknown token version names the versions read.
    let mut v9 = bytes.clone();
    v9[0] = 9;
    let (status, problem) = server
        .post(
            "/games/act",
            &json!({"state": base64_encode(&v9), "player": "x", "action": "roll"}),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        problem["detail"].as_str().unwrap().contains("versions 1"),
        "{problem}"
    );
    // A backgammon game still writes version 1.
    let (_, standard) = server
        .post(
            "/games",
            &json!({"match_id": "t-refuse", "client_seed": "c"}),
        )
        .await;
    assert_eq!(base64_decode(standard["state"].as_str().unwrap())[0], 1);

    // No cube, over both protocols, in every phase.
    let (_, opened) = server
        .post(
            "/games/act",
            &json!({"state": token, "player": "x", "action": "roll"}),
        )
        .await;
    let state = opened["state"].as_str().unwrap().to_owned();
    let mover = opened["view"]["to_act"].as_str().unwrap().to_owned();
    for action in ["double", "take", "pass"] {
        let step = json!({"player": mover, "action": action});
        let mut body = step.clone();
        body["state"] = json!(state);
        let (status, problem) = server.post("/games/act", &body).await;
        assert_eq!(
            (status, problem["type"].clone()),
            (422, json!("no-cube-in-variant"))
        );
        let err = grpc.act(proto_act(&state, &step)).await.unwrap_err();
        assert_eq!(
            err.get_details_error_info().unwrap().reason,
            "no-cube-in-variant"
        );
        assert_eq!(err.message(), problem["detail"]);
    }
    // An illegal play: the tables engine's precise reason, both protocols.
    let (_, rolled) = server
        .post(
            "/games/act",
            &json!({"state": state, "player": mover, "action": "roll"}),
        )
        .await;
    let state = rolled["state"].as_str().unwrap().to_owned();
    let step = json!({"player": mover, "action": "move", "play": "13/7"});
    let mut body = step.clone();
    body["state"] = json!(state);
    let (status, problem) = server.post("/games/act", &body).await;
    assert_eq!(
        (status, problem["type"].clone()),
        (422, json!("illegal-play"))
    );
    assert_eq!(
        problem["detail"], "no checker of the player on roll on point 13",
        "{problem}"
    );
    assert_eq!(problem["field"], "action.play");
    let err = grpc.act(proto_act(&state, &step)).await.unwrap_err();
    assert_eq!(err.message(), problem["detail"]);
    // A resignation, accepted: 2 points for a gammon.
    let step = json!({"player": mover, "action": "resign", "level": "gammon"});
    let mut body = step.clone();
    body["state"] = json!(state);
    let (status, offered) = server.post("/games/act", &body).await;
    assert_eq!(status, 200, "{offered}");
    assert_eq!(offered["view"]["phase"], "answer_resignation");
    let other = if mover == "x" { "o" } else { "x" };
    let (_, accepted) = server
        .post(
            "/games/act",
            &json!({"state": offered["state"], "player": other, "action": "accept"}),
        )
        .await;
    let over = &accepted["tables_game_over"];
    assert_eq!(
        (over["winner"].as_str(), over["points"].as_u64()),
        (Some(other), Some(2))
    );
    assert_eq!(
        (over["resigned"].clone(), over["result"].clone()),
        (json!(true), json!("gammon"))
    );

    // Bad starts.
    for (body, field, kind) in [
        (
            json!({"match_id": "m", "tavli": true}),
            "match.length",
            "invalid-match",
        ),
        (
            json!({"match_id": "m", "tavli": true, "variant": "fevga", "match": {"length": 3}}),
            "variant",
            "invalid-request",
        ),
        (
            json!({"match_id": "m", "variant": "tavla", "rules": {"jacoby": true}}),
            "rules",
            "no-cube-in-variant",
        ),
        (
            json!({"match_id": "m", "variant": "fevga", "match": {"length": 3, "crawford": true}}),
            "match.crawford",
            "invalid-match",
        ),
    ] {
        let (status, problem) = server.post("/games", &body).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(
            (problem["type"].as_str(), problem["field"].as_str()),
            (Some(kind), Some(field))
        );
    }
}

fn base64_decode(token: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .unwrap()
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// `/legal-moves` plays of `variant` at its start for `dice` under
/// `rules` (absent: the defaults), each as the list of its moves' starts.
async fn start_plays(server: &Server, variant: &str, dice: [u8; 2], rules: Value) -> Vec<Vec<i64>> {
    let list = starts(server).await;
    let mut body = json!({"variant": variant, "position": {"board": list[variant]["start"]["board"]},
        "dice": dice});
    if !rules.is_null() {
        body["tables_rules"] = rules;
    }
    let (status, answer) = server.post("/legal-moves", &body).await;
    assert_eq!(status, 200, "{body}: {answer}");
    answer["plays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["from"].as_i64().unwrap())
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn rule_options_as_request_options() {
    let server = Server::start(&[]).await;
    // Long Nardy, docs/variants.md "Head rule": on the first roll 3-3 two
    // checkers may leave the head (default), not with `six_four`.
    let from_head = |plays: &[Vec<i64>]| {
        plays
            .iter()
            .map(|p| p.iter().filter(|&&f| f == 24).count())
            .max()
            .unwrap()
    };
    let default = start_plays(&server, "long-nardy", [3, 3], Value::Null).await;
    assert_eq!(from_head(&default), 2);
    let six_four = start_plays(
        &server,
        "long-nardy",
        [3, 3],
        json!({"head_doubles": "six_four"}),
    )
    .await;
    assert_eq!(from_head(&six_four), 1);
    // Both still allow two on 6-6.
    let sixes = start_plays(
        &server,
        "long-nardy",
        [6, 6],
        json!({"head_doubles": "six_four"}),
    )
    .await;
    assert_eq!(from_head(&sixes), 2);

    // Fevga, "Start rule": after an opening 6-6 only one six is played by
    // default (the first checker cannot pass o's start, and no second may
    // leave); with `off` four sixes are played.
    let default = start_plays(&server, "fevga", [6, 6], Value::Null).await;
    assert!(default.iter().all(|p| p.len() == 1), "{default:?}");
    let off = start_plays(&server, "fevga", [6, 6], json!({"fevga_start": "off"})).await;
    assert!(off.iter().any(|p| p.len() == 4), "{off:?}");

    // Plakoto, "The mother rule": x's mother is pinned on x's 24-point by
    // o, who still has 14 checkers on its own start (x's 1-point). By
    // default play goes on; with `immediate` x has lost.
    let mut points = vec![0; 24];
    points[0] = -14;
    points[23] = -1;
    points[12] = 14;
    let mut pins = vec![0; 24];
    pins[23] = 1;
    let body = |rules: Value| {
        json!({"variant": "plakoto", "dice": [3, 1], "tables_rules": rules,
            "position": {"board": {"points": points, "pins": pins, "turn": "x"}}})
    };
    let (status, answer) = server.post("/legal-moves", &body(json!({}))).await;
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = server
        .post("/legal-moves", &body(json!({"mother": "immediate"})))
        .await;
    assert_eq!(
        (status, answer["type"].clone()),
        (422, json!("game-over")),
        "{answer}"
    );
    assert!(
        answer["detail"].as_str().unwrap().contains("mother"),
        "{answer}"
    );

    // gRPC takes the same options.
    let mut grpc = server.grpc().await;
    let list = starts(&server).await;
    let mut request = proto::LegalMovesRequest {
        variant: proto_variant("long-nardy"),
        position: Some(proto_position(
            &json!({"board": list["long-nardy"]["start"]["board"]}),
        )),
        dice: vec![3, 3],
        tables_rules: Some(proto::TablesRules {
            head_doubles: proto::HeadDoubles::SixFour as i32,
            ..Default::default()
        }),
        ..Default::default()
    };
    let answer = grpc
        .legal_moves(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer.plays.len(), six_four.len());
    request.tables_rules = Some(proto::TablesRules {
        head_doubles: 9,
        ..Default::default()
    });
    let err = grpc.legal_moves(request).await.unwrap_err();
    assert_eq!(
        err.get_details_error_info().unwrap().reason,
        "invalid-request"
    );

    // Not for the backgammon variants; an unknown option is a 400.
    for (body, field) in [
        (
            json!({"position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [3, 1],
                "tables_rules": {"primes": "free"}}),
            "tables_rules",
        ),
        (
            json!({"variant": "fevga", "position": {"position_id": "4HPwATDgc/ABMA"},
                "dice": [3, 1], "tables_rules": {"primes": "sometimes"}}),
            "tables_rules.primes",
        ),
    ] {
        let (status, problem) = server.post("/legal-moves", &body).await;
        assert_eq!(status, 400, "{problem}");
        assert!(
            problem["field"].as_str().unwrap().starts_with(field),
            "{problem}"
        );
    }

    // The game flow carries the options in its token.
    let start = |rules: Value| {
        let mut body = json!({"match_id": "opts", "variant": "long-nardy"});
        if !rules.is_null() {
            body["tables_rules"] = rules;
        }
        body
    };
    let (_, plain) = server.post("/games", &start(Value::Null)).await;
    let (status, chosen) = server
        .post("/games", &start(json!({"head_doubles": "six_four"})))
        .await;
    assert_eq!(status, 200, "{chosen}");
    assert_ne!(plain["state"], chosen["state"]);
    let (status, problem) = server
        .post(
            "/games",
            &json!({"match_id": "opts", "tables_rules": {"mother": "off"}}),
        )
        .await;
    assert_eq!(
        (status, problem["field"].clone()),
        (400, json!("tables_rules"))
    );
}

#[tokio::test]
async fn tavla_hit_and_run_and_fevga_open_prime() {
    let server = Server::start(&[]).await;
    // Tavla, docs/variants.md "Tavla" ([W-Tv], [BGE-Tv]): x has 13 and 8,
    // o a blot on x's 5 and a block on x's 6. With 3-2 backgammon's
    // 8/5*/3 hits and runs in x's home board.
    let mut points = vec![0i64; 24];
    points[7] = 1;
    points[12] = 1;
    points[4] = -1;
    points[5] = -2;
    points[23] = -12;
    let turn = |rules: Value, play: Option<&str>| {
        let mut body = json!({"variant": "tavla", "dice": [3, 2],
            "position": {"board": {"points": points, "off": {"x": 13, "o": 0}, "turn": "x"}}});
        if !rules.is_null() {
            body["tables_rules"] = rules;
        }
        if let Some(play) = play {
            body["play"] = json!(play);
        }
        body
    };
    let notations = |answer: &Value| -> Vec<String> {
        answer["plays"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["notation"].as_str().unwrap().to_owned())
            .collect()
    };
    // Since issue 25 `forbidden_in_home` is the default, as both sources
    // say; `allowed` is backgammon's movement.
    let allowed = json!({"hit_and_run": "allowed"});
    let (status, plain) = server
        .post("/legal-moves", &turn(allowed.clone(), None))
        .await;
    assert_eq!(status, 200, "{plain}");
    assert!(notations(&plain).contains(&"8/5*/3".to_owned()), "{plain}");
    assert_eq!(notations(&plain).len(), 3);
    let (status, usual) = server.post("/legal-moves", &turn(Value::Null, None)).await;
    assert_eq!(status, 200, "{usual}");
    assert_eq!(notations(&usual).len(), 2, "{usual}");
    let forbidden = json!({"hit_and_run": "forbidden_in_home"});
    let (status, restricted) = server
        .post("/legal-moves", &turn(forbidden.clone(), None))
        .await;
    assert_eq!(status, 200, "{restricted}");
    let list = notations(&restricted);
    assert_eq!(list.len(), 2, "{list:?}");
    assert!(list.contains(&"13/11 8/5*".to_owned()), "{list:?}");
    let (status, answer) = server
        .post("/apply-move", &turn(forbidden.clone(), Some("8/5*/3")))
        .await;
    assert_eq!(
        (status, answer["type"].clone()),
        (422, json!("illegal-play")),
        "{answer}"
    );
    assert!(
        answer["detail"]
            .as_str()
            .unwrap()
            .contains("may not move on"),
        "{answer}"
    );
    let (status, answer) = server
        .post("/apply-move", &turn(allowed.clone(), Some("8/5*/3")))
        .await;
    assert_eq!(status, 200, "{answer}");
    let (status, _) = server
        .post("/apply-move", &turn(Value::Null, Some("8/5*/3")))
        .await;
    assert_eq!(status, 422);
    let (status, answer) = server
        .post("/apply-move", &turn(forbidden.clone(), Some("8/5* 13/11")))
        .await;
    assert_eq!(
        (status, answer["hits"].clone()),
        (200, json!([5])),
        "{answer}"
    );

    // gRPC: the same option, the same plays.
    let mut grpc = server.grpc().await;
    let request = proto::LegalMovesRequest {
        variant: proto_variant("tavla"),
        position: Some(proto_position(
            &json!({"board": {"points": points, "off": {"x": 13, "o": 0}, "turn": "x"}}),
        )),
        dice: vec![3, 2],
        tables_rules: Some(proto::TablesRules {
            hit_and_run: proto::HitAndRun::ForbiddenInHome as i32,
            ..Default::default()
        }),
        ..Default::default()
    };
    let answer = grpc.legal_moves(request).await.unwrap().into_inner();
    assert_eq!(answer.plays.len(), 2);

    // Fevga, "Primes" (open_when_blocked): x holds its 2-7 with every o
    // checker on o's start (x's 12): with 2-1 x must open the prime (12
    // plays), under `free` it need not; nor under `open_when_stuck`,
    // Fevga's default, as o can still move.
    let owb = json!({"primes": "open_when_blocked"});
    let mut points = vec![0i64; 24];
    for (p, n) in [(7, 1), (6, 2), (5, 2), (4, 2), (3, 2), (2, 2), (24, 4)] {
        points[p - 1] = n;
    }
    let mut stuck_points = points.clone();
    points[11] = -15;
    // Every o checker right behind the prime (o's 20, x's 8): o is stuck.
    stuck_points[7] = -15;
    let fevga_on = |points: &Vec<i64>, rules: Value, play: Option<&str>| {
        let mut body = json!({"variant": "fevga", "dice": [2, 1],
            "position": {"board": {"points": points, "turn": "x"}}});
        if !rules.is_null() {
            body["tables_rules"] = rules;
        }
        if let Some(play) = play {
            body["play"] = json!(play);
        }
        body
    };
    let fevga = |rules: Value, play: Option<&str>| fevga_on(&points, rules, play);
    let count = |answer: &Value| answer["plays"].as_array().unwrap().len();
    let (status, blocked) = server.post("/legal-moves", &fevga(owb.clone(), None)).await;
    assert_eq!(status, 200, "{blocked}");
    assert_eq!(count(&blocked), 12, "{blocked}");
    let (_, free) = server
        .post("/legal-moves", &fevga(json!({"primes": "free"}), None))
        .await;
    assert!(count(&free) > 12, "{free}");
    let (_, usual) = server.post("/legal-moves", &fevga(Value::Null, None)).await;
    assert_eq!(count(&usual), count(&free), "{usual}");
    // o stuck: the default obliges x as open_when_blocked does.
    let (_, stuck) = server
        .post("/legal-moves", &fevga_on(&stuck_points, Value::Null, None))
        .await;
    let (_, stuck_owb) = server
        .post("/legal-moves", &fevga_on(&stuck_points, owb.clone(), None))
        .await;
    let (_, stuck_free) = server
        .post(
            "/legal-moves",
            &fevga_on(&stuck_points, json!({"primes": "free"}), None),
        )
        .await;
    assert_eq!(stuck["plays"], stuck_owb["plays"], "{stuck}");
    assert!(count(&stuck) < count(&stuck_free), "{stuck}");
    let (status, _) = server
        .post(
            "/apply-move",
            &fevga_on(
                &stuck_points,
                json!({"primes": "open_when_stuck"}),
                Some("24/22 24/23"),
            ),
        )
        .await;
    assert_eq!(status, 422);
    let (status, answer) = server
        .post("/apply-move", &fevga(owb.clone(), Some("24/22 24/23")))
        .await;
    assert_eq!(
        (status, answer["type"].clone()),
        (422, json!("illegal-play"))
    );
    assert!(
        answer["detail"].as_str().unwrap().contains("prime"),
        "{answer}"
    );
    let (status, _) = server
        .post("/apply-move", &fevga(owb, Some("7/5 24/23")))
        .await;
    assert_eq!(status, 200);
    let (status, _) = server
        .post("/apply-move", &fevga(Value::Null, Some("24/22 24/23")))
        .await;
    assert_eq!(status, 200);

    // The game flow carries the Tavla option in its token.
    let start = |rules: Value| {
        let mut body = json!({"match_id": "tavla-opts", "variant": "tavla"});
        if !rules.is_null() {
            body["tables_rules"] = rules;
        }
        body
    };
    let (_, plain) = server.post("/games", &start(Value::Null)).await;
    let (status, chosen) = server.post("/games", &start(allowed)).await;
    assert_eq!(status, 200, "{chosen}");
    assert_ne!(plain["state"], chosen["state"]);
}

/// docs/variants.md, "The referee game flow" ([W-Pl], [Ludii-P], [W-Tv],
/// [BGE-Tv]): in Portes and Tavla the opening roll only picks the starter,
/// who rolls again, and there is no cube; `/dice/opening` says so as
/// `/games` plays it (issue 25).
#[tokio::test]
async fn the_opening_roll_of_portes_and_tavla_picks_the_starter_only() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    for variant in ["portes", "tavla"] {
        let mut ties = 0;
        for game in 1..=40u32 {
            let body = json!({"match_id": "opening-tables", "client_seed": "a:b", "game": game,
                "variant": variant, "rules": {"automatic_doubles": 2, "max_cube": 64}});
            let (status, http) = server.post_roll("/dice/opening", &body).await;
            assert_eq!(status, 200, "{http}");
            assert_eq!(http["dice_played"], false, "{http}");
            assert_eq!(http["cube"]["value"], 1, "{http}");
            ties += http["ties"].as_u64().unwrap();
            let g = grpc
                .opening_roll(with_roll_token(proto::OpeningRollRequest {
                    match_id: "opening-tables".into(),
                    client_seed: "a:b".into(),
                    game,
                    variant: proto_variant(variant),
                    rules: Some(proto::CubeRules {
                        automatic_doubles: Some(2),
                        max_cube: Some(64),
                        ..Default::default()
                    }),
                    ..Default::default()
                }))
                .await
                .unwrap()
                .into_inner();
            assert!(!g.dice_played);
            assert_eq!(g.cube.unwrap().value, Some(1));
        }
        assert!(ties > 0, "no tied opening roll in 40 games");
        // The backgammon board's own variant plays the opening dice.
        let body = json!({"match_id": "opening-tables", "client_seed": "a:b", "game": 1,
            "variant": "standard"});
        let (_, first) = server.post_roll("/dice/opening", &body).await;
        assert_eq!(first["dice_played"], true, "{first}");
        // `/games` agrees: the starter chosen, then the starter's own roll.
        let (status, started) = server
            .post(
                "/games",
                &json!({"match_id": "opening-tables", "client_seed": "a:b", "variant": variant}),
            )
            .await;
        assert_eq!(status, 200, "{started}");
        let (status, rolled) = server
            .post(
                "/games/act",
                &json!({"state": started["state"], "player": "x", "action": "roll"}),
            )
            .await;
        assert_eq!(status, 200, "{rolled}");
        assert_eq!(rolled["view"]["phase"], "roll_or_double", "{rolled}");
        assert_eq!(rolled["view"]["cube"]["value"], 1);
        assert_eq!(rolled["event"]["player"], rolled["view"]["to_act"]);
        assert_eq!(rolled["event"]["player"], first["starts"]);
        assert_eq!(rolled["event"]["dice"], first["dice"]);
    }
}

/// docs/variants.md, "The referee game flow / Opening": Long Nardy's
/// `nardy_opening: play_dice` ([SG-N]) has the starter play the opening
/// dice at once; the default re-rolls ([RD-N]). Whole games over both
/// protocols, the transcript verified.
#[tokio::test]
async fn long_nardy_may_play_the_opening_dice_through_the_game_flow() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    for (k, opening) in ["play_dice", "reroll"].into_iter().enumerate() {
        let start = json!({"match_id": format!("nardy-opening-{k}"), "client_seed": "a:b",
            "variant": "long-nardy", "tables_rules": {"nardy_opening": opening}});
        let played = play_games(
            &server,
            Some(&mut grpc),
            &start,
            4_000 + k as u64,
            Bot::Random,
            |v| v["phase"] == "game_over",
        )
        .await;
        let first = &played.answers[0];
        assert_eq!(first["event"]["kind"], "starter_chosen", "{first}");
        let view = &first["view"];
        assert_eq!(view["to_act"], first["event"]["player"], "{first}");
        if opening == "play_dice" {
            assert_eq!(view["phase"], "move", "{first}");
            assert_eq!(view["dice"], first["event"]["dice"], "{first}");
            assert_eq!(played.actions[1]["action"], "move");
        } else {
            assert_eq!(view["phase"], "roll_or_double", "{first}");
            assert_eq!(view["dice"], Value::Null);
        }
        verifies(&server, &mut grpc, &start, &played).await;
    }
}

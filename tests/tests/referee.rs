//! Referee defects fixed (stated routes, the cube's turn, automatic
//! doubles, starting positions), each through the real binary over HTTP
//! and gRPC.

use bgref_e2e::{Server, grpc_slug, with_roll_token};
use bgref_service::proto;
use serde_json::{Value, json};

/// `GET /variants` and `ListVariants`: every variant's start, in all three
/// encodings, with its rules; each start is accepted as a game start.
#[tokio::test]
async fn variants_list_their_starting_positions() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let (status, body) = server.get("/variants").await;
    assert_eq!(status, 200, "{body}");
    let http: Value = serde_json::from_str(&body).unwrap();
    let listed = grpc
        .list_variants(proto::ListVariantsRequest {})
        .await
        .unwrap()
        .into_inner();
    let variants = http["variants"].as_array().unwrap();
    assert_eq!(variants.len(), listed.variants.len());
    let names: Vec<&str> = variants
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "standard",
            "nackgammon",
            "hypergammon-1",
            "hypergammon-2",
            "hypergammon",
            "portes",
            "tavla",
            "plakoto",
            "fevga",
            "long-nardy"
        ]
    );
    let standard = &variants[0];
    assert_eq!(standard["checkers"], 15);
    assert_eq!(standard["start"]["position_id"], "4HPwATDgc/ABMA");
    assert_eq!(
        standard["start"]["board"]["points"],
        json!([
            -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2
        ])
    );
    assert_eq!(
        standard["rules"],
        json!({"cube": true, "gammons": true, "backgammons": true})
    );
    for (v, g) in variants.iter().zip(&listed.variants) {
        let start = g.start.as_ref().unwrap();
        assert_eq!(v["name"], g.name);
        assert_eq!(v["checkers"], g.checkers);
        // The tables games leave out the encodings that do not apply
        // (gRPC: empty).
        let text = |key: &str| v["start"][key].as_str().unwrap_or_default().to_owned();
        assert_eq!(text("position_id"), start.position_id);
        assert_eq!(text("xgid"), start.xgid);
        // Each encoding of the start is a game start for its variant.
        for key in ["position_id", "xgid", "board"] {
            if v["start"].get(key).is_none() {
                continue;
            }
            let position = json!({key: v["start"][key]});
            let (status, answer) = server
                .post(
                    "/legal-moves",
                    &json!({"variant": v["name"], "position": position, "dice": [3, 1],
                        "game_start": true}),
                )
                .await;
            assert_eq!(status, 200, "{} {key}: {answer}", v["name"]);
        }
    }
}

/// A position said to be a game start must be the variant's start.
#[tokio::test]
async fn a_game_start_must_be_the_start() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let start = "4HPwATDgc/ABMA";
    let (status, ok) = server
        .post(
            "/legal-moves",
            &json!({"position": {"position_id": start, "turn": "o"}, "dice": [3, 1],
                "game_start": true}),
        )
        .await;
    assert_eq!(
        status, 200,
        "either player may be on roll at the start: {ok}"
    );
    // x has played 8/5 6/5 from the start: o on roll, not a start.
    let moved = "XGID=-b---BD-B---eE---c-e----B-:0:0:-1:00:0:0:0:0:10";
    for body in [
        json!({"position": {"xgid": moved}, "dice": [3, 1], "game_start": true}),
        json!({"position": {"position_id": "sGfwATDgc/ABMA", "turn": "o"}, "dice": [3, 1],
            "game_start": true}),
    ] {
        let (status, problem) = server.post("/legal-moves", &body).await;
        assert_eq!(status, 400, "{body}: {problem}");
        assert_eq!(problem["type"], "not-start-position", "{body}: {problem}");
        // Without the claim the same position is fine.
        let mut body = body.clone();
        body.as_object_mut().unwrap().remove("game_start");
        assert_eq!(server.post("/legal-moves", &body).await.0, 200);
    }
    let (status, problem) = server
        .post(
            "/apply-move",
            &json!({"position": {"xgid": moved}, "dice": [3, 1], "play": "8/5 6/5",
                "game_start": true}),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert_eq!(problem["type"], "not-start-position");
    assert_eq!(problem["field"], "position");
    let status = grpc
        .apply_move(proto::ApplyMoveRequest {
            position: Some(proto::PositionInput {
                encoding: Some(proto::position_input::Encoding::Xgid(moved.into())),
                turn: 0,
            }),
            dice: vec![3, 1],
            play: Some(proto::apply_move_request::Play::Notation("8/5 6/5".into())),
            game_start: true,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(grpc_slug(&status), "not-start-position");
    assert_eq!(status.message(), problem["detail"]);
}

/// The opening roll answers the starting cube (automatic doubles, money
/// play) and the variant's start with the starter on roll.
#[tokio::test]
async fn the_opening_roll_gives_the_starting_cube_and_position() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let mut found_tie = false;
    for game in 1..=60u32 {
        let body = json!({"match_id": "auto-doubles", "client_seed": "a:b", "game": game,
            "variant": "hypergammon", "rules": {"automatic_doubles": 1, "max_cube": 64}});
        let (status, http) = server.post_roll("/dice/opening", &body).await;
        assert_eq!(status, 200, "{http}");
        let ties = http["ties"].as_u64().unwrap();
        let expected = if ties > 0 { 2 } else { 1 };
        found_tie |= ties > 0;
        assert_eq!(
            http["cube"],
            json!({"value": expected, "owner": "centre", "offered_by": null, "beavers": 0}),
            "{http}"
        );
        assert_eq!(http["position"]["board"]["turn"], http["starts"]);
        let g = grpc
            .opening_roll(with_roll_token(proto::OpeningRollRequest {
                match_id: "auto-doubles".into(),
                client_seed: "a:b".into(),
                game,
                variant: proto::Variant::Hypergammon3 as i32,
                rules: Some(proto::CubeRules {
                    automatic_doubles: Some(1),
                    max_cube: Some(64),
                    ..Default::default()
                }),
                ..Default::default()
            }))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(g.cube.unwrap().value, Some(expected as u32));
        assert_eq!(
            g.position.unwrap().position_id,
            http["position"]["position_id"]
        );
        // The start is the variant's: the same position as GET /variants
        // lists, with the starter on roll.
        let (status, _) = server
            .post(
                "/legal-moves",
                &json!({"variant": "hypergammon", "position": {"board": http["position"]["board"]},
                    "dice": http["dice"], "game_start": true}),
            )
            .await;
        assert_eq!(status, 200);
        // In a match, automatic doubles do not apply.
        let mut in_match = body.clone();
        in_match["match"] = json!({"length": 5});
        let (_, answer) = server.post_roll("/dice/opening", &in_match).await;
        assert_eq!(answer["cube"]["value"], 1);
    }
    assert!(found_tie, "no tied opening roll in 60 games");
}

fn board_position(points: Value) -> Value {
    json!({"board": {"points": points, "bar": {"x": 0, "o": 0}, "turn": "x"}})
}

fn grpc_board(points: &Value) -> proto::PositionInput {
    proto::PositionInput {
        encoding: Some(proto::position_input::Encoding::Board(proto::Board {
            points: points
                .as_array()
                .unwrap()
                .iter()
                .map(|v| i32::try_from(v.as_i64().unwrap()).unwrap())
                .collect(),
            bar: Some(proto::PerPlayer { x: 0, o: 0 }),
            off: None,
            turn: proto::Player::X as i32,
            pins: Vec::new(),
        })),
        turn: 0,
    }
}

/// A play named hop by hop lands on every point it names: a blot there is
/// hit (13/10/9 over o's blot on 10 is 13/10*/9), whether the hops come
/// as text or as a list of single moves, over both protocols.
#[tokio::test]
async fn a_named_landing_point_is_landed_on() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    // The start, with one of o's midpoint checkers moved to x's 10-point.
    let points = json!([
        -2, 0, 0, 0, 0, 5, 0, 3, 0, -1, 0, -4, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2
    ]);
    let plays = [
        json!("13/10/9"),
        json!([{"from": 13, "to": 10}, {"from": 10, "to": 9}]),
        json!("13/10*/9"),
    ];
    for play in plays {
        let body =
            json!({"position": board_position(points.clone()), "dice": [3, 1], "play": play});
        let (status, answer) = server.post("/apply-move", &body).await;
        assert_eq!(status, 200, "{body}: {answer}");
        assert_eq!(answer["play"]["notation"], "13/10*/9", "{play}");
        assert_eq!(answer["hits"], json!([10]), "{play}");
        assert_eq!(answer["position"]["board"]["bar"]["o"], 1);
        let request = proto::ApplyMoveRequest {
            position: Some(grpc_board(&points)),
            dice: vec![3, 1],
            play: Some(match play.as_str() {
                Some(text) => proto::apply_move_request::Play::Notation(text.into()),
                None => proto::apply_move_request::Play::Moves(proto::MoveList {
                    moves: vec![
                        proto::MoveInput {
                            from_point: 13,
                            to_point: 10,
                        },
                        proto::MoveInput {
                            from_point: 10,
                            to_point: 9,
                        },
                    ],
                }),
            }),
            ..Default::default()
        };
        let g = grpc.apply_move(request).await.unwrap().into_inner();
        assert_eq!(g.play.unwrap().notation, "13/10*/9");
        assert_eq!(g.hits, [10]);
        assert_eq!(
            g.position.unwrap().position_id,
            answer["position"]["position_id"]
        );
    }
}

/// A named intermediate point that is blocked makes the play illegal, with
/// the reason; with no intermediate point named any legal route will do.
#[tokio::test]
async fn a_blocked_named_point_is_refused() {
    let server = Server::start(&[]).await;
    let mut grpc = server.grpc().await;
    let start = json!({"position_id": "4HPwATDgc/ABMA"});
    let (status, problem) = server
        .post(
            "/apply-move",
            &json!({"position": start, "dice": [5, 3], "play": "24/19/16"}),
        )
        .await;
    assert_eq!(status, 422, "{problem}");
    assert_eq!(problem["type"], "illegal-play");
    assert_eq!(problem["detail"], "point 19 is blocked");
    let status = grpc
        .apply_move(proto::ApplyMoveRequest {
            position: Some(proto::PositionInput {
                encoding: Some(proto::position_input::Encoding::PositionId(
                    "4HPwATDgc/ABMA".into(),
                )),
                turn: 0,
            }),
            dice: vec![5, 3],
            play: Some(proto::apply_move_request::Play::Notation("24/19/16".into())),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    assert_eq!(grpc_slug(&status), "illegal-play");
    assert_eq!(status.message(), "point 19 is blocked");
    // The same checker's move with no intermediate point named: 24/21/16.
    for play in [json!("24/16"), json!("24/21/16")] {
        let (status, answer) = server
            .post(
                "/apply-move",
                &json!({"position": start, "dice": [5, 3], "play": play}),
            )
            .await;
        assert_eq!(status, 200, "{play}: {answer}");
        assert_eq!(answer["play"]["notation"], "24/16");
    }
}

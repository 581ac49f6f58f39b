//! Referee defects fixed (stated routes, the cube's turn, automatic
//! doubles, starting positions), each through the real binary over HTTP
//! and gRPC.

use bgref_e2e::Server;
use bgref_service::proto;
use serde_json::{Value, json};
use tonic_types::StatusExt as _;

fn slug(status: &tonic::Status) -> String {
    status.get_details_error_info().expect("ErrorInfo").reason
}

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
            "hypergammon"
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
        assert_eq!(v["start"]["position_id"], start.position_id);
        assert_eq!(v["start"]["xgid"], start.xgid);
        // Each encoding of the start is a game start for its variant.
        for key in ["position_id", "xgid", "board"] {
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
    assert_eq!(slug(&status), "not-start-position");
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
        let (status, http) = server.post("/dice/opening", &body).await;
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
            .opening_roll(proto::OpeningRollRequest {
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
            })
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
        let (_, answer) = server.post("/dice/opening", &in_match).await;
        assert_eq!(answer["cube"]["value"], 1);
    }
    assert!(found_tie, "no tied opening roll in 60 games");
}

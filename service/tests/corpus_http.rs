//! gnubg's legal-move cases through `POST /legal-moves`, in process: the
//! set of `position.position_id` of the plays must be gnubg's `next_id`s,
//! as an outside checker comparing against gnubg would see them.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};

use axum::body::Body;
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

fn cases() -> impl Iterator<Item = Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/data/legal_moves.jsonl.gz"
    );
    let file = std::fs::File::open(path).expect("corpus file");
    BufReader::new(flate2::read::GzDecoder::new(file))
        .lines()
        .map(|line| serde_json::from_str(&line.expect("line")).expect("json"))
}

#[tokio::test]
async fn legal_moves_endpoint_agrees_with_gnubg() {
    let config = bgref_service::config::Config::defaults();
    let state = bgref_service::state::AppState::new(
        bgref_service::keys::DiceKeys::from_config(&config.dice).expect("ephemeral keys"),
    );
    let (app, _health) = bgref_service::server::app(state, &config);
    let mut checked = 0;
    // Every 10th case: all sources and variants, 3 000 requests.
    for case in cases().step_by(10) {
        let request = json!({
            "variant": case["variant"],
            "position": {"position_id": case["position_id"]},
            "dice": case["dice"],
        });
        let response = app
            .clone()
            .oneshot(
                http::Request::post("/legal-moves")
                    .header("content-type", "application/json")
                    .body(Body::from(request.to_string()))
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{request}");
        let body: Value =
            serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes())
                .unwrap();
        let ours: BTreeSet<&str> = body["plays"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["position"]["position_id"].as_str().unwrap())
            .collect();
        let gnubg: BTreeSet<&str> = case["plays"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["next_id"].as_str().unwrap())
            .collect();
        assert_eq!(ours, gnubg, "{}", case["id"]);
        let notations: BTreeSet<&str> = body["plays"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["notation"].as_str().unwrap())
            .collect();
        let gnubg_notations: BTreeSet<&str> = case["plays"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["move"].as_str().unwrap())
            .collect();
        assert_eq!(notations, gnubg_notations, "{}", case["id"]);
        checked += 1;
    }
    assert_eq!(checked, 3000);
}

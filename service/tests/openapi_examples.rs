//! Every example in the OpenAPI document is one the server accepts: each
//! operation's request examples (the body's `example`, `examples` and its
//! schema's `example`; the parameters' examples for a GET) are sent to the
//! in-process router and must get a 2xx, and each form of a request
//! position (the `Position*` schemas' examples) is accepted inside a
//! `POST /legal-moves`.

use axum::body::Body;
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

const REVEAL_TOKEN: &str = "examples-reveal-token";

fn app() -> axum::Router {
    let mut config = bgref_service::config::Config::defaults();
    config.dice.reveal_token = Some(REVEAL_TOKEN.into());
    // One token opens both doors here: the reveal and the rolls.
    config.dice.dice_roll_token = Some(REVEAL_TOKEN.into());
    let state = bgref_service::state::AppState::new(
        bgref_service::keys::DiceKeys::from_config(&config.dice).expect("keys"),
    );
    bgref_service::server::app(state, &config).0
}

async fn send(method: &str, uri: &str, body: Option<&Value>, auth: bool) -> (u16, Value) {
    let mut request = axum::http::Request::builder().method(method).uri(uri);
    if auth {
        request = request.header("authorization", format!("Bearer {REVEAL_TOKEN}"));
    }
    let request = match body {
        Some(body) => request
            .header("content-type", "application/json")
            .body(Body::from(body.to_string())),
        None => request.body(Body::empty()),
    }
    .expect("request");
    let response = app().oneshot(request).await.expect("response");
    let status = response.status().as_u16();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => &doc["components"]["schemas"][r.trim_start_matches("#/components/schemas/")],
        None => schema,
    }
}

#[tokio::test]
async fn every_example_in_the_document_is_accepted() {
    let doc = serde_json::to_value(bgref_service::http::openapi()).expect("document");
    let mut sent = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let auth = op.get("security").is_some();
            if method == "get" {
                let mut query = Vec::new();
                for param in op["parameters"].as_array().into_iter().flatten() {
                    let example = param["example"]
                        .as_str()
                        .or_else(|| param["schema"]["example"].as_str());
                    if let Some(value) = example {
                        query.push(format!("{}={value}", param["name"].as_str().unwrap()));
                    }
                }
                let uri = if query.is_empty() {
                    path.clone()
                } else {
                    format!("{path}?{}", query.join("&"))
                };
                let (status, body) = send("GET", &uri, None, auth).await;
                assert!((200..300).contains(&status), "GET {uri}: {status} {body}");
                sent += 1;
                continue;
            }
            let content = &op["requestBody"]["content"]["application/json"];
            let mut examples: Vec<(String, Value)> = Vec::new();
            if let Some(example) = content.get("example") {
                examples.push(("example".into(), example.clone()));
            }
            for (name, ex) in content["examples"].as_object().into_iter().flatten() {
                examples.push((name.clone(), ex["value"].clone()));
            }
            let schema = resolve(&doc, &content["schema"]);
            if let Some(example) = schema.get("example") {
                examples.push(("schema example".into(), example.clone()));
            }
            for example in schema["examples"].as_array().into_iter().flatten() {
                examples.push(("schema examples".into(), example.clone()));
            }
            assert!(
                !examples.is_empty(),
                "{method} {path} has no request example"
            );
            // An action needs a token signed by this very instance's key:
            // tests/tests/games.rs plays whole matches through it.
            if path == "/games/act" {
                continue;
            }
            for (name, body) in examples {
                let (status, answer) = send(&method.to_uppercase(), path, Some(&body), auth).await;
                assert!(
                    (200..300).contains(&status),
                    "{method} {path} example {name}: {status} {answer}\n{body}"
                );
                sent += 1;
            }
        }
    }
    for (name, schema) in doc["components"]["schemas"].as_object().expect("schemas") {
        if !name.starts_with("Position") {
            continue;
        }
        let examples = schema
            .get("example")
            .into_iter()
            .chain(schema["examples"].as_array().into_iter().flatten());
        for position in examples {
            let body = json!({"position": position, "dice": [3, 1]});
            let (status, answer) = send("POST", "/legal-moves", Some(&body), false).await;
            assert_eq!(status, 200, "{name} example {position}: {answer}");
            sent += 1;
        }
    }
    assert!(sent > 20, "only {sent} examples");
}

#[tokio::test]
async fn a_response_position_is_accepted_back_verbatim() {
    let (_, answer) = send(
        "POST",
        "/legal-moves",
        Some(&json!({"position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [3, 1]})),
        false,
    )
    .await;
    let position = answer["plays"][0]["position"].clone();
    assert!(position["pips"]["x"].is_number(), "{position}");
    let (status, again) = send(
        "POST",
        "/legal-moves",
        Some(&json!({"position": position, "dice": [6, 5]})),
        false,
    )
    .await;
    assert_eq!(status, 200, "{again}");
}

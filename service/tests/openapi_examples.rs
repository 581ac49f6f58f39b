//! Every example in the OpenAPI document is one the server accepts: each
//! operation's request examples (the body's `example`, `examples` and its
//! schema's `example`; the parameters' examples for a GET) are sent to the
//! in-process router and must get a 2xx, and each form of a request
//! position (the `Position*` schemas' examples) is accepted inside a
//! `POST /legal-moves`.

use axum::body::Body;
use bgref_service::http::examples::{self, Auth, Example};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

const REVEAL_TOKEN: &str = examples::TOKEN;

/// The example server (`http/examples.rs`): its fixed keys signed the
/// state token of the `/games/act` example, and one token opens both
/// doors, the reveal and the rolls.
fn app() -> axum::Router {
    examples::app(examples::Server::Open)
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

/// Sends an example's request to its server.
async fn send_example(example: &Example) -> (u16, Value) {
    let (method, path) = example.operation.split_once(' ').unwrap();
    let uri = match &example.query {
        Some(query) => format!("{path}?{query}"),
        None => path.to_owned(),
    };
    let mut request = axum::http::Request::builder()
        .method(method.to_uppercase().as_str())
        .uri(uri);
    match example.auth {
        Auth::None => {}
        Auth::Operator => {
            request = request.header("authorization", format!("Bearer {}", examples::TOKEN));
        }
        Auth::Wrong => {
            request = request.header("authorization", "Bearer not-the-operator-token");
        }
    }
    if let Some(encoding) = &example.encoding {
        request = request.header("content-encoding", encoding);
    }
    let body = match (example.oversize, &example.body) {
        (Some(size), _) => Body::from(format!("{{\"pad\": \"{}\"}}", "x".repeat(size))),
        (None, Value::Null) => Body::empty(),
        (None, body) => Body::from(body.to_string()),
    };
    if method == "post" {
        request = request.header("content-type", "application/json");
    }
    let response = examples::app(example.server)
        .oneshot(request.body(body).expect("request"))
        .await
        .expect("response");
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

/// Each response example of the document is the answer the server gives
/// to its request (`http/examples.json`): the 200s to the request example
/// of the same operation, each refusal to a request that makes it. Every
/// JSON 200 and every documented refusal status has one, except the
/// ledger's own 404 and 409 (they need a ledger that holds matches:
/// `tests/tests/ledger.rs`).
#[tokio::test]
async fn every_response_example_is_a_real_answer() {
    let update = std::env::var_os("UPDATE_OPENAPI").is_some();
    let mut list = examples::examples();
    let mut wrong = Vec::new();
    for example in &mut list {
        let (status, answer) = send_example(example).await;
        let name = format!(
            "{} {} ({})",
            example.operation, example.status, example.about
        );
        if update {
            if status != example.status {
                wrong.push(format!("{name}: answered {status} {answer}"));
            }
            example.answer = answer;
        } else if (status, &answer) != (example.status, &example.answer) {
            wrong.push(format!("{name}: answered {status} {answer}"));
        }
    }
    if update {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/http/examples.json");
        let text = serde_json::to_string_pretty(&list).expect("examples") + "\n";
        std::fs::write(path, text).expect("write examples.json");
        assert!(wrong.is_empty(), "wrong statuses:\n{}", wrong.join("\n"));
        return;
    }
    assert!(
        wrong.is_empty(),
        "examples.json is out of date (UPDATE_OPENAPI=1 cargo test -p bgref-service --test \
         openapi_examples, then --test openapi):\n{}",
        wrong.join("\n")
    );

    // Coverage, and the document shows them.
    let doc = serde_json::to_value(bgref_service::http::openapi()).expect("document");
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let operation = format!("{method} {path}");
            for (status, response) in op["responses"].as_object().expect("responses") {
                let Some((mime, content)) = response["content"]
                    .as_object()
                    .and_then(|c| c.iter().next())
                else {
                    continue;
                };
                let json = mime.ends_with("json");
                let exempt = (status == "200" && !json)
                    || matches!(path.as_str(), "/healthz" | "/readyz" | "/metrics")
                    || (path.starts_with("/games") && matches!(status.as_str(), "404" | "409"));
                let shown = list
                    .iter()
                    .find(|e| e.operation == operation && e.status.to_string() == *status);
                match shown {
                    Some(example) => assert_eq!(
                        content["example"], example.answer,
                        "{operation} {status}: the document's example"
                    ),
                    None => assert!(exempt, "{operation} {status} has no example"),
                }
                if status == "200"
                    && let Some(example) = shown
                    && method == "post"
                {
                    assert_eq!(
                        op["requestBody"]["content"]["application/json"]["example"], example.body,
                        "{operation}: the 200 example answers the request example"
                    );
                }
            }
        }
    }
}

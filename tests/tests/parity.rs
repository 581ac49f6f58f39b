//! HTTP and gRPC in parity, in process: each operation's cases sent over
//! both protocols to one router (the service's, built from its library;
//! no child process, no socket) and the answers compared field by field.
//!
//! The cases: every example of `service/src/http/examples.json` (a 200 and
//! each refusal of every operation, on the example servers: open, closed,
//! behind a game token, with a ledger down), then a whole refereed game
//! and whole Plakoto and Fevga games played step by step, each move also
//! asked of `/legal-moves` (the view's position sent back) and
//! `/apply-move`, the end scored by `/score`, and each transcript replayed
//! and exported.
//!
//! An HTTP body becomes its gRPC message, and the HTTP answer the
//! response message, through the e2e crate's translator (`bgref_e2e::wire`,
//! the contract's rules and its deliberate differences): a 200 over HTTP
//! must be an OK over gRPC with the same message (what proto3 cannot tell
//! apart, an absent field and its default, aside); a refusal must be the
//! gRPC code docs/api.md gives for its status, with the same slug
//! (`ErrorInfo.reason`), detail (the message) and field (the `BadRequest`
//! violation).
//!
//! Differences by design, each checked for what it is:
//! - 413: a body over the limit is refused over gRPC before the service
//!   reads it (`RESOURCE_EXHAUSTED`, no slug), naming the same limit and
//!   its option (docs/api.md "Operations").
//! - 415: HTTP's `content-encoding` has no gRPC form; a message sent
//!   compressed in the example's coding (`grpc-encoding`, of which bgref
//!   accepts none) is refused by tonic with `UNIMPLEMENTED` (the code of
//!   `unsupported-media-type`), naming the encoding.
//! - A request with no gRPC form: an unknown query parameter
//!   (`GET /render.txt?colour=red`; proto decoders skip unknown fields) or
//!   an enum value proto has not (`"action": "fly"`). The translator must
//!   refuse the very field HTTP refuses (400, its `field`).
//! - A body without a required string or number (HTTP `missing-field`):
//!   proto3 cannot leave one out, so gRPC gets its default; the gRPC
//!   refusal is compared with HTTP's answer to the body with that default.
//! - Tokens and signatures: none differ (the state token, seats, dice and
//!   receipts are functions of the keys and the request), so all are
//!   compared.

use std::collections::BTreeMap;

use axum::Router;
use bgref_e2e::wire;
use bgref_service::http::examples::{self, Auth, Example, Server as Setup};
use bytes::{Buf as _, BufMut as _, Bytes};
use http_body_util::{BodyExt as _, Full};
use prost::Message as _;
use prost_reflect::{DynamicMessage, Kind, MessageDescriptor};
use serde_json::{Value, json};
use tonic::Code;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic_types::StatusExt as _;
use tower::ServiceExt as _;

/// Each HTTP operation and its gRPC method (`Service/Method` of `bgref.v1`).
const OPERATIONS: &[(&str, &str)] = &[
    ("post /legal-moves", "Referee/LegalMoves"),
    ("post /apply-move", "Referee/ApplyMove"),
    ("get /variants", "Referee/ListVariants"),
    ("post /dice/roll", "Referee/RollDice"),
    ("post /dice/opening", "Referee/OpeningRoll"),
    ("get /dice/commitment", "Referee/GetCommitment"),
    ("post /dice/reveal", "Referee/RevealSeed"),
    ("post /dice/verify", "Referee/VerifyDice"),
    ("get /dice/keys", "Referee/GetKeys"),
    ("post /score", "Referee/ScoreGame"),
    ("post /cube", "Referee/ResolveCube"),
    ("post /games", "Referee/NewGame"),
    ("post /games/act", "Referee/Act"),
    ("post /games/verify", "Referee/VerifyGame"),
    ("post /games/export", "Referee/ExportGame"),
    ("get /render.svg", "Render/RenderSvg"),
    ("get /render.png", "Render/RenderPng"),
    ("get /render.txt", "Render/RenderText"),
];

/// The gRPC code of an HTTP refusal (docs/api.md "Errors", docs/dice.md,
/// docs/referee.md "Seats" and "The ledger").
fn documented_code(status: u16, slug: &str) -> Code {
    match (status, slug) {
        (400, _) => Code::InvalidArgument,
        (401, _) => Code::Unauthenticated,
        (403, _) => Code::PermissionDenied,
        (404, _) => Code::NotFound,
        (409, "match-exists") => Code::AlreadyExists,
        (409, _) => Code::Aborted,
        (413, _) => Code::ResourceExhausted,
        (415, _) => Code::Unimplemented,
        (422, _) => Code::FailedPrecondition,
        (503, _) => Code::Unavailable,
        _ => panic!("no documented gRPC code for {status} {slug}"),
    }
}

/// A gRPC method: its path and messages.
struct Method {
    path: String,
    input: MessageDescriptor,
    output: MessageDescriptor,
}

fn method(operation: &str) -> Method {
    let (_, name) = OPERATIONS
        .iter()
        .find(|(op, _)| *op == operation)
        .unwrap_or_else(|| panic!("no gRPC method for {operation}"));
    let (service, method) = name.split_once('/').unwrap();
    let service = wire::pool()
        .get_service_by_name(&format!("bgref.v1.{service}"))
        .unwrap();
    let m = service.methods().find(|m| m.name() == method).unwrap();
    Method {
        path: format!("/bgref.v1.{}/{method}", service.name()),
        input: m.input(),
        output: m.output(),
    }
}

/// Messages as bytes, both ways: the tests encode and decode them with
/// the descriptor set.
#[derive(Debug, Clone, Copy, Default)]
struct Raw;

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, tonic::Status> {
        Ok(Some(src.copy_to_bytes(src.remaining()).to_vec()))
    }
}

/// An `authorization` value of an example.
fn authorization(auth: Auth) -> Option<String> {
    match auth {
        Auth::None => None,
        Auth::Operator => Some(format!("Bearer {}", examples::TOKEN)),
        Auth::Wrong => Some("Bearer not-the-operator-token".to_owned()),
    }
}

/// One HTTP request to `router`: status and JSON answer (`null` if none).
async fn over_http(
    router: &Router,
    operation: &str,
    query: Option<&str>,
    body: Option<Vec<u8>>,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let (method, path) = operation.split_once(' ').unwrap();
    let uri = match query {
        Some(q) => format!("{path}?{q}"),
        None => path.to_owned(),
    };
    let mut request = http::Request::builder()
        .method(method.to_uppercase().as_str())
        .uri(uri);
    if method == "post" {
        request = request.header("content-type", "application/json");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Full::new(Bytes::from(body.unwrap_or_default())))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// One unary gRPC call to `router` with an encoded message.
async fn over_grpc(
    router: &Router,
    path: &str,
    message: Vec<u8>,
    authorization: Option<&str>,
) -> Result<Vec<u8>, tonic::Status> {
    let mut client = tonic::client::Grpc::new(router.clone());
    client.ready().await.unwrap();
    let mut request = tonic::Request::new(message);
    if let Some(a) = authorization {
        request
            .metadata_mut()
            .insert("authorization", a.parse().unwrap());
    }
    let path = http::uri::PathAndQuery::try_from(path).unwrap();
    client
        .unary(request, path, Raw)
        .await
        .map(tonic::Response::into_inner)
}

/// Where the answers differ, path by path.
fn differences(http: &Value, grpc: &Value, path: &str, out: &mut Vec<String>) {
    match (http, grpc) {
        (Value::Object(h), Value::Object(g)) => {
            for key in h.keys().chain(g.keys().filter(|k| !h.contains_key(*k))) {
                let (a, b) = (h.get(key), g.get(key));
                let (a, b) = (a.unwrap_or(&Value::Null), b.unwrap_or(&Value::Null));
                differences(a, b, &format!("{path}.{key}"), out);
            }
        }
        (Value::Array(h), Value::Array(g)) if h.len() == g.len() => {
            for (i, (a, b)) in h.iter().zip(g).enumerate() {
                differences(a, b, &format!("{path}[{i}]"), out);
            }
        }
        _ if http != grpc => out.push(format!("{path}: HTTP {http}, gRPC {grpc}")),
        _ => {}
    }
}

/// Compares the gRPC outcome with the HTTP answer (`status`, `answer`):
/// the same message for a 200, the documented code, slug, detail and
/// field for a refusal.
fn compare(
    case: &str,
    method: &Method,
    status: u16,
    answer: &Value,
    grpc: Result<Vec<u8>, tonic::Status>,
) {
    match grpc {
        Ok(bytes) => {
            assert_eq!(status, 200, "{case}: gRPC answered, HTTP {status} {answer}");
            let name = method.output.name();
            let http = wire::from_http(name, answer)
                .unwrap_or_else(|e| panic!("{case}: the HTTP answer is not a {name}: {e}"));
            let grpc = DynamicMessage::decode(method.output.clone(), bytes.as_slice()).unwrap();
            let (http, grpc) = (
                wire::to_http(&http),
                wire::to_http(&wire::as_http_shows(&grpc, &http)),
            );
            let mut out = Vec::new();
            differences(&http, &grpc, "", &mut out);
            assert!(
                out.is_empty(),
                "{case}: HTTP and gRPC answer differently:\n  {}",
                out.join("\n  ")
            );
        }
        Err(refusal) => {
            assert_ne!(status, 200, "{case}: HTTP answered, gRPC {refusal:?}");
            let slug = answer["type"].as_str().unwrap_or_default();
            assert_eq!(
                refusal.code(),
                documented_code(status, slug),
                "{case}: HTTP {status} {answer}, gRPC {refusal:?}"
            );
            let info = refusal.get_details_error_info();
            assert_eq!(
                info.map(|i| i.reason).as_deref(),
                Some(slug),
                "{case}: {refusal:?}"
            );
            assert_eq!(refusal.message(), answer["detail"], "{case}");
            let violations = refusal
                .get_details_bad_request()
                .map(|b| b.field_violations)
                .unwrap_or_default();
            let field: Vec<&str> = violations.iter().map(|v| v.field.as_str()).collect();
            let expected: Vec<&str> = answer["field"].as_str().into_iter().collect();
            assert_eq!(field, expected, "{case}: the field");
        }
    }
}

/// Sends `body` (`POST`) or `query` (`GET`) over both protocols and
/// compares the answers; the HTTP status and answer.
async fn both(
    router: &Router,
    operation: &str,
    body: Option<&Value>,
    query: Option<&str>,
    auth: Option<&str>,
) -> (u16, Value) {
    let headers: Vec<(&str, &str)> = auth.map(|a| ("authorization", a)).into_iter().collect();
    let bytes = body.map(|b| b.to_string().into_bytes());
    let (status, answer) = over_http(router, operation, query, bytes, &headers).await;
    let method = method(operation);
    let json = match (body, query) {
        (Some(body), _) => body.clone(),
        (None, Some(query)) => grpc_query(&method, query),
        (None, None) => json!({}),
    };
    let mut case = format!(
        "{operation} {}",
        body.map_or(json.to_string(), Value::to_string)
    );
    if case.len() > 300 {
        case.truncate(case.floor_char_boundary(300));
        case.push_str("...");
    }
    let message = wire::from_http(method.input.name(), &json)
        .unwrap_or_else(|e| panic!("{case}: {e}"))
        .encode_to_vec();
    let grpc = over_grpc(router, &method.path, message, auth).await;
    // proto3 has no absent string, number or boolean: a body without one
    // (HTTP `missing-field`) is, over gRPC, the body with its default.
    let field = answer["field"].as_str().unwrap_or_default();
    let filled = body
        .filter(|_| answer["type"] == "missing-field")
        .and_then(|body| with_default(&method.input, body, field));
    match filled {
        Some(filled) => {
            let bytes = Some(filled.to_string().into_bytes());
            let (again, refused) = over_http(router, operation, None, bytes, &headers).await;
            assert_eq!((status, again), (400, 400), "{case}: {answer} {refused}");
            compare(&case, &method, again, &refused, grpc);
        }
        None => compare(&case, &method, status, &answer, grpc),
    }
    (status, answer)
}

/// `body` with its scalar field at `path` (`start.match_id`) set to the
/// proto default (`""`, `0`, `false`); `None` if the field is of another
/// kind (an enum's or a message's default has no JSON form but absence).
fn with_default(input: &MessageDescriptor, body: &Value, path: &str) -> Option<Value> {
    let mut desc = input.clone();
    let mut out = body.clone();
    let mut at = &mut out;
    let names: Vec<&str> = path.split('.').collect();
    for (i, name) in names.iter().enumerate() {
        let field = desc.get_field_by_name(name)?;
        if i + 1 == names.len() {
            let default = match field.kind() {
                Kind::String => json!(""),
                Kind::Bool => json!(false),
                Kind::Message(_) | Kind::Enum(_) => return None,
                _ => json!(0),
            };
            at.as_object_mut()?.insert((*name).to_owned(), default);
            return Some(out);
        }
        desc = field.kind().as_message()?.clone();
        at = at.get_mut(*name)?;
    }
    None
}

/// A GET's query as the JSON of its gRPC message: the render operations
/// take the picture's position fields in place (`position_id=...`), gRPC
/// in `picture.position`.
fn grpc_query(method: &Method, query: &str) -> Value {
    if method.input.get_field_by_name("picture").is_none() {
        return wire::query(method.input.name(), query);
    }
    let mut picture = wire::query("Picture", query);
    let mut position = wire::query("PositionInput", query);
    let position_fields = wire::message("PositionInput");
    let object = picture.as_object_mut().unwrap();
    object.retain(|k, _| position_fields.get_field_by_name(k).is_none());
    position
        .as_object_mut()
        .unwrap()
        .retain(|k, _| position_fields.get_field_by_name(k).is_some());
    object.insert("position".into(), position);
    json!({ "picture": picture })
}

/// A message of `size` more bytes: `message` with an unknown field (proto
/// decoders skip it) of that length.
fn padded(mut message: Vec<u8>, size: usize) -> Vec<u8> {
    prost::encoding::encode_key(
        1000,
        prost::encoding::WireType::LengthDelimited,
        &mut message,
    );
    prost::encoding::encode_varint(size as u64, &mut message);
    message.resize(message.len() + size, b'x');
    message
}

/// The gRPC status of a message said to be compressed with `encoding`.
async fn compressed(
    router: &Router,
    path: &str,
    message: &[u8],
    encoding: &str,
) -> (String, String) {
    let mut framed = vec![1u8];
    framed.extend_from_slice(&u32::try_from(message.len()).unwrap().to_be_bytes());
    framed.extend_from_slice(message);
    let request = http::Request::builder()
        .version(http::Version::HTTP_2)
        .method("POST")
        .uri(path)
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("grpc-encoding", encoding)
        .body(Full::new(Bytes::from(framed)))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let trailers = body.collect().await.unwrap().trailers().cloned();
    let get = |name: &str| {
        trailers
            .as_ref()
            .and_then(|t| t.get(name))
            .or_else(|| parts.headers.get(name))
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    (get("grpc-status"), get("grpc-message"))
}

/// One example of `examples.json` over both protocols.
async fn example(router: &Router, ex: &Example, all: &[Example]) {
    let case = format!("{} {} ({})", ex.operation, ex.status, ex.about);
    let auth = authorization(ex.auth);
    let method = method(&ex.operation);
    // The request of the operation's 200 example, for the refusals of a
    // body as a whole (413, 415).
    let ok_request = || {
        let ok = all
            .iter()
            .find(|e| e.operation == ex.operation && e.status == 200)
            .unwrap_or_else(|| panic!("{case}: no 200 example"));
        wire::from_http(method.input.name(), &ok.body)
            .unwrap()
            .encode_to_vec()
    };
    if let Some(size) = ex.oversize {
        let body = format!("{{\"pad\": \"{}\"}}", "x".repeat(size)).into_bytes();
        let headers: Vec<_> = auth.iter().map(|a| ("authorization", a.as_str())).collect();
        let (status, answer) = over_http(router, &ex.operation, None, Some(body), &headers).await;
        assert_eq!((status, &answer), (ex.status, &ex.answer), "{case}");
        let refusal = over_grpc(
            router,
            &method.path,
            padded(ok_request(), size),
            auth.as_deref(),
        )
        .await
        .unwrap_err();
        assert_eq!(
            refusal.code(),
            documented_code(413, ""),
            "{case}: {refusal:?}"
        );
        let detail = answer["detail"].as_str().unwrap();
        let limit = detail
            .split("limit of ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .unwrap();
        for named in [
            format!("limit of {limit} bytes"),
            // The option the HTTP detail names (the body or the
            // transcript limit).
            detail[detail.find("BGREF_").unwrap_or(detail.len())..]
                .split(|c: char| !(c.is_ascii_uppercase() || c == '_'))
                .next()
                .filter(|option| !option.is_empty())
                .unwrap_or_else(|| panic!("{case}: no option named in {detail}"))
                .to_owned(),
        ] {
            assert!(refusal.message().contains(&named), "{case}: {refusal:?}");
        }
        return;
    }
    if let Some(encoding) = &ex.encoding {
        let headers: Vec<(&str, &str)> = [("content-encoding", encoding.as_str())]
            .into_iter()
            .chain(auth.iter().map(|a| ("authorization", a.as_str())))
            .collect();
        let body = Some(ex.body.to_string().into_bytes());
        let (status, answer) = over_http(router, &ex.operation, None, body, &headers).await;
        assert_eq!((status, &answer), (ex.status, &ex.answer), "{case}");
        let (code, message) = compressed(router, &method.path, &ok_request(), encoding).await;
        let expected = i32::from(documented_code(415, "")).to_string();
        assert_eq!(code, expected, "{case}: {message}");
        assert!(message.contains(encoding.as_str()), "{case}: {message}");
        return;
    }
    let query = ex.query.as_deref();
    let json = match query {
        Some(q) => grpc_query(&method, q),
        None if ex.body.is_null() => json!({}),
        None => ex.body.clone(),
    };
    if let Err(untranslatable) = wire::from_http(method.input.name(), &json) {
        // No gRPC form (an unknown parameter, an enum value proto has
        // not): the HTTP refusal must be of what the translator refuses.
        let body = (!ex.body.is_null()).then(|| ex.body.to_string().into_bytes());
        let headers: Vec<_> = auth.iter().map(|a| ("authorization", a.as_str())).collect();
        let (status, answer) = over_http(router, &ex.operation, query, body, &headers).await;
        assert_eq!((status, &answer), (ex.status, &ex.answer), "{case}");
        let field = answer["field"].as_str().unwrap();
        let path = untranslatable.split(": ").next().unwrap();
        assert_eq!(status, 400, "{case}");
        assert!(
            path.ends_with(&format!(".{field}")),
            "{case}: {untranslatable}"
        );
        return;
    }
    let body = (!ex.body.is_null()).then_some(&ex.body);
    let (status, answer) = both(router, &ex.operation, body, query, auth.as_deref()).await;
    assert_eq!((status, &answer), (ex.status, &ex.answer), "{case}");
}

#[tokio::test]
async fn every_example_answers_the_same_over_both_protocols() {
    let all = examples::examples();
    let mut routers: BTreeMap<String, Router> = BTreeMap::new();
    let mut seen: BTreeMap<&str, Vec<u16>> = BTreeMap::new();
    for ex in &all {
        let router = routers
            .entry(format!("{:?}", ex.server))
            .or_insert_with(|| examples::app(ex.server));
        example(router, ex, &all).await;
        seen.entry(ex.operation.as_str())
            .or_default()
            .push(ex.status);
    }
    // Every Referee method had its 200 compared, and every operation that
    // takes input a refusal (GET /variants and /dice/keys take none).
    for (operation, method) in OPERATIONS {
        let statuses = seen.get(operation).cloned().unwrap_or_default();
        if method.starts_with("Referee/") {
            assert!(statuses.contains(&200), "{operation}: {statuses:?}");
        }
        let takes_input = !matches!(*operation, "get /variants" | "get /dice/keys");
        assert_eq!(
            statuses.iter().any(|&s| s != 200),
            takes_input,
            "{operation}: {statuses:?}"
        );
    }
    assert_eq!(seen.len(), OPERATIONS.len(), "{seen:?}");
}

/// The step a simple player takes in `view` (its `n`-th): takes a double,
/// doubles now and then, rolls, plays the `n`-th legal play (in turn).
fn choose(view: &Value, n: usize) -> Value {
    let actions: Vec<&str> = view["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let player = if view["to_act"].is_null() {
        &view["on_roll"]
    } else {
        &view["to_act"]
    };
    let cube = view["cube"]["value"].as_u64().unwrap_or(1);
    let action = if actions.contains(&"take") {
        "take"
    } else if actions.contains(&"double") && n % 9 == 4 && cube < 4 {
        "double"
    } else if actions.contains(&"roll") {
        "roll"
    } else {
        actions[0]
    };
    let mut step = json!({"player": player, "action": action});
    if action == "move" {
        let plays = view["plays"].as_array().unwrap();
        step["play"] = plays[n % plays.len()]["notation"].clone();
    }
    step
}

/// Plays one game from `start` over both protocols, each answer compared;
/// each move also asked of `/legal-moves` and `/apply-move` with the
/// view's position sent back; then the transcript verified and exported.
/// The number of actions.
async fn play(router: &Router, variant: &str, start: &Value) -> usize {
    let (status, first) = both(router, "post /games", Some(start), None, None).await;
    assert_eq!(status, 200, "{first}");
    let seats = first["seats"].clone();
    let mut state = first["state"].clone();
    let mut view = first["view"].clone();
    let mut actions = Vec::new();
    let mut moves = 0;
    for n in 0..2_000 {
        if view["phase"] == "game_over" || view["phase"] == "match_over" {
            break;
        }
        let step = choose(&view, n);
        if step["action"] == "move" {
            let position = json!({"variant": variant, "position": view["position"],
                "dice": view["dice"]});
            // A view's position goes back as it is (docs/api.md), in every
            // game: both protocols take it.
            let (status, legal) =
                both(router, "post /legal-moves", Some(&position), None, None).await;
            assert_eq!(status, 200, "{position}: {legal}");
            let mut apply = position.clone();
            apply["play"] = step["play"].clone();
            let (status, applied) =
                both(router, "post /apply-move", Some(&apply), None, None).await;
            assert_eq!(status, 200, "{apply}: {applied}");
            moves += 1;
        }
        let mut body = step.clone();
        body["state"] = state.clone();
        body["seat"] = seats[step["player"].as_str().unwrap()].clone();
        let (status, answer) = both(router, "post /games/act", Some(&body), None, None).await;
        assert_eq!(status, 200, "{body}: {answer}");
        state = answer["state"].clone();
        view = answer["view"].clone();
        actions.push(step);
    }
    assert!(
        view["phase"] == "game_over" || view["phase"] == "match_over",
        "{start}: not over after {} actions",
        actions.len()
    );
    assert!(moves > 10, "{start}: {moves} moves");
    // The finished position scored (as a money game), both protocols.
    let finished = json!({"variant": variant, "ended_by": "bearoff",
        "position": {"board": view["position"]["board"]}});
    let (status, scored) = both(router, "post /score", Some(&finished), None, None).await;
    assert_eq!(status, 200, "{finished}: {scored}");
    let transcript = json!({"start": start, "actions": actions, "state": state});
    let (status, verdict) = both(router, "post /games/verify", Some(&transcript), None, None).await;
    assert_eq!(
        (status, &verdict["state_matches"]),
        (200, &json!(true)),
        "{verdict}"
    );
    let transcript = json!({"start": start, "actions": actions});
    both(router, "post /games/export", Some(&transcript), None, None).await;
    actions.len()
}

#[tokio::test]
async fn a_refereed_game_answers_the_same_over_both_protocols() {
    let router = examples::app(Setup::Open);
    let start = json!({"match_id": "parity-1", "client_seed": "alice:bob",
        "match": {"length": 3}, "rules": {"jacoby": false}});
    let actions = play(&router, "standard", &start).await;
    assert!(actions > 40, "{actions} actions");
}

#[tokio::test]
async fn tables_games_answer_the_same_over_both_protocols() {
    let router = examples::app(Setup::Open);
    for variant in ["plakoto", "fevga"] {
        let start = json!({"match_id": format!("parity-{variant}"), "client_seed": "alice:bob",
            "variant": variant});
        let actions = play(&router, variant, &start).await;
        assert!(actions > 40, "{variant}: {actions} actions");
    }
}

//! The answers the OpenAPI document shows: real ones.
//!
//! `examples.json` (beside this file) lists, per operation and status, a
//! request and the answer this server gives it: a 200 and each refusal the
//! operation documents (a 400, the 401/403 of its tokens, 413, 415, 422,
//! and the 503 of an unreachable ledger). [`apply`] writes each answer as
//! the example of its response (and each 200's request as the example of
//! the request body), so the document shows no invented answer.
//!
//! The requests are sent to a server with the fixed keys and tokens of
//! [`config`] (not secrets: example values): `service/tests/openapi_examples.rs`
//! sends each one and fails unless the answer is the one written here;
//! `UPDATE_OPENAPI=1 cargo test -p bgref-service --test openapi_examples`
//! rewrites the answers, and then `--test openapi` the document.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::openapi::{ContentBuilder, OpenApi, RefOr, ResponseBuilder};

use crate::config::Config;

/// The examples file, compiled in.
pub const EXAMPLES_JSON: &str = include_str!("examples.json");

/// The token of every operator door on the example servers (the reveal, the
/// rolls and, on [`Server::GameToken`], the game flow).
pub const TOKEN: &str = "example-operator-token";

/// Which server an example is sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Server {
    /// The reveal and the rolls behind [`TOKEN`], the game flow open.
    #[default]
    Open,
    /// No operator token configured: the reveal and the rolls disabled.
    Closed,
    /// As `Open`, with the game flow behind [`TOKEN`] too.
    GameToken,
    /// As `Open`, with a ledger that does not answer.
    LedgerDown,
}

/// What the `authorization` header carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Auth {
    /// No header.
    #[default]
    None,
    /// `Bearer` [`TOKEN`].
    Operator,
    /// A bearer token that is not the operator's.
    Wrong,
}

/// One example: a request, where it is sent, and the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// `post /legal-moves`.
    pub operation: String,
    /// The status of the answer.
    pub status: u16,
    /// What the example shows, for a reader of this file.
    pub about: String,
    /// The server it is sent to.
    #[serde(default, skip_serializing_if = "is_default")]
    pub server: Server,
    /// The `authorization` header.
    #[serde(default, skip_serializing_if = "is_default")]
    pub auth: Auth,
    /// A `content-encoding` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// The query string of a GET.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The JSON body; `null` with `oversize`.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub body: Value,
    /// Send a body of `oversize` bytes instead (a 413).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oversize: Option<usize>,
    /// The answer.
    pub answer: Value,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// The examples of `examples.json`.
///
/// # Panics
///
/// If the compiled-in file is not a list of examples (a build mistake the
/// tests catch).
pub fn examples() -> Vec<Example> {
    serde_json::from_str(EXAMPLES_JSON).expect("http/examples.json: a list of examples")
}

/// The configuration of an example server: fixed example keys and tokens.
pub fn config(server: Server) -> Config {
    let mut config = Config::defaults();
    config.dice.dice_secret = Some("ee".repeat(32));
    config.dice.signing_key = Some("5a".repeat(32));
    if server != Server::Closed {
        config.dice.reveal_token = Some(TOKEN.into());
        config.dice.dice_roll_token = Some(TOKEN.into());
    }
    if server == Server::GameToken {
        config.dice.game_token = Some(TOKEN.into());
    }
    if server == Server::LedgerDown {
        // The discard port: nothing listens there.
        config.ledger.ledger_url = Some("redis://127.0.0.1:9".into());
    }
    config
}

/// The router of an example server (as `bgref` serves it).
///
/// # Panics
///
/// If the example configuration is refused (a mistake in [`config`]).
pub fn app(server: Server) -> axum::Router {
    let config = config(server);
    let keys = crate::keys::DiceKeys::from_config(&config.dice).expect("example keys");
    let mut state = crate::state::AppState::new(keys);
    if let Some(url) = config.ledger.ledger_url.as_deref() {
        let ledger =
            crate::ledger::Ledger::new(url, config.ledger.ledger_ttl, config.ledger.ledger_timeout)
                .expect("example ledger");
        state = state.with_ledger(ledger);
    }
    crate::server::app(state, &config).0
}

/// Writes each example's answer into its operation's response (and each
/// 200's body into the request body's example).
pub fn apply(doc: &mut OpenApi) {
    for example in examples() {
        let (method, path) = example
            .operation
            .split_once(' ')
            .expect("`method path` operations");
        let item = doc
            .paths
            .paths
            .get_mut(path)
            .unwrap_or_else(|| panic!("examples.json: no path {path}"));
        let operation = match method {
            "get" => item.get.as_mut(),
            "post" => item.post.as_mut(),
            _ => None,
        }
        .unwrap_or_else(|| panic!("examples.json: no operation {method} {path}"));
        let status = example.status.to_string();
        if example.status == 415 && !operation.responses.responses.contains_key(&status) {
            let response = ResponseBuilder::new()
                .description(
                    "The body is sent in a content coding other than gzip \
                     (`unsupported-media-type`): send the JSON as it is, or gzipped with \
                     `content-encoding: gzip`",
                )
                .content(
                    "application/problem+json",
                    ContentBuilder::new()
                        .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                            "Problem",
                        ))))
                        .build(),
                )
                .build();
            operation
                .responses
                .responses
                .insert(status.clone(), RefOr::T(response));
        }
        let Some(RefOr::T(response)) = operation.responses.responses.get_mut(&status) else {
            panic!("examples.json: {method} {path} has no response {status}")
        };
        let Some(RefOr::T(content)) = response.content.values_mut().next() else {
            panic!("examples.json: {method} {path} {status}: no content")
        };
        content.example = Some(example.answer.clone());
        if example.status == 200
            && !example.body.is_null()
            && let Some(RefOr::T(body)) = operation.request_body.as_mut()
            && let Some(RefOr::T(content)) = body.content.get_mut("application/json")
        {
            content.example = Some(example.body.clone());
        }
    }
}

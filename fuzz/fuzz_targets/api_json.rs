//! Every JSON request body through the HTTP API of bgref-service, in
//! process: the first byte picks the operation, the rest is the body. The
//! router (extractor, JSON shapes, the one validator, the operation, the
//! answer) never panics and never answers a 5xx; an error is a problem
//! document (`application/problem+json`) with a slug.
#![no_main]

use std::sync::OnceLock;

use axum::body::Body;
use bgref_fuzz::service::{ROUTES, app, runtime};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt as _;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let path = ROUTES[usize::from(pick) % ROUTES.len()];
    static ROUTER: OnceLock<axum::Router> = OnceLock::new();
    let router = ROUTER.get_or_init(app).clone();
    let request = axum::http::Request::post(path)
        .header("content-type", "application/json")
        .header("authorization", bgref_fuzz::service::BEARER)
        .body(Body::from(body.to_vec()))
        .expect("request");
    let response = runtime()
        .block_on(router.oneshot(request))
        .expect("infallible");
    let status = response.status();
    assert!(
        status.is_success() || status.is_client_error(),
        "{path}: {status} for {:?}",
        String::from_utf8_lossy(body)
    );
    if status.is_client_error() {
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert_eq!(content_type, "application/problem+json", "{path}: {status}");
    }
});

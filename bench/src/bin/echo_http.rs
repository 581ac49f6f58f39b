//! A bare axum 0.8 server: the HTTP baseline of `bench/run.sh`. No layers,
//! no JSON.
//!
//! - `POST /echo` answers the request body (the baseline: a
//!   300-byte body each way);
//! - `POST /answer` answers a fixed body of `$BENCH_ANSWER_BYTES` bytes
//!   (default 7 705, the size of bgref's legal-moves answer the harness
//!   sends), whatever the request: what the framework and the kernel cost
//!   for an answer as large as bgref's, with no work to make it.

use axum::Router;
use axum::body::Bytes;
use axum::routing::post;

#[tokio::main]
async fn main() {
    let answer = Bytes::from(vec![b'x'; bgref_bench::answer_bytes()]);
    let app = Router::new()
        .route("/echo", post(|body: Bytes| async move { body }))
        .route(
            "/answer",
            post(move |_body: Bytes| {
                let answer = answer.clone();
                async move { answer }
            }),
        );
    let listener = bgref_bench::listen().await;
    axum::serve(listener, app)
        .await
        .unwrap_or_else(|e| panic!("server failed: {e}"));
}

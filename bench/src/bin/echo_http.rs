//! A bare axum 0.8 server answering `POST /echo` with the request body:
//! the HTTP baseline of `bench/run.sh`. No layers, no JSON.

use axum::Router;
use axum::body::Bytes;
use axum::routing::post;

#[tokio::main]
async fn main() {
    let app = Router::new().route("/echo", post(|body: Bytes| async move { body }));
    let listener = bgref_bench::listen().await;
    axum::serve(listener, app)
        .await
        .unwrap_or_else(|e| panic!("server failed: {e}"));
}

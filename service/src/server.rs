//! The whole application: HTTP and gRPC on one router, with limits, tracing
//! and graceful shutdown.

use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use tokio::net::TcpListener;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::config::Config;
use crate::error::{ApiError, ErrorKind};
use crate::state::AppState;

/// HTTP and gRPC routes with every layer, and the gRPC health reporter.
pub fn app(state: AppState, config: &Config) -> (Router, tonic_health::server::HealthReporter) {
    let (grpc, health) = crate::grpc::router(state.clone(), config.max_body_bytes);
    let router = crate::http::router(state)
        .merge(grpc)
        .layer(DefaultBodyLimit::max(config.max_body_bytes))
        .layer(
            ServiceBuilder::new()
                .layer(CatchPanicLayer::custom(|_| {
                    axum::response::IntoResponse::into_response(ApiError::new(
                        ErrorKind::Internal,
                        "internal",
                        "the referee failed on this request; it has been logged",
                    ))
                }))
                .layer(TraceLayer::new_for_http())
                .layer(TimeoutLayer::with_status_code(
                    StatusCode::SERVICE_UNAVAILABLE,
                    config.request_timeout,
                ))
                .layer(tower::limit::ConcurrencyLimitLayer::new(
                    config.max_concurrency,
                )),
        );
    (router, health)
}

/// Serves `router` on `listener` until `shutdown` resolves, then lets
/// in-flight requests finish for at most `grace`.
///
/// # Errors
/// I/O errors of the listener.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> std::io::Result<()> {
    let (tx, rx) = tokio::sync::watch::channel(false);
    let server = axum::serve(listener, router).with_graceful_shutdown(async move {
        shutdown.await;
        let _ = tx.send(true);
    });
    let mut rx_wait = rx.clone();
    let deadline = async move {
        let _ = rx_wait.wait_for(|&stopping| stopping).await;
        tokio::time::sleep(grace).await;
    };
    tokio::select! {
        result = server => result,
        () = deadline => {
            tracing::warn!(grace_secs = grace.as_secs_f64(), "in-flight requests did not finish in time; exiting");
            Ok(())
        }
    }
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

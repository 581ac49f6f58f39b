//! The whole application: HTTP and gRPC on one router, with request ids,
//! request spans, metrics, limits, and graceful shutdown.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::IntoResponse as _;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use crate::config::Config;
use crate::layers::{RequestLayers, layered, with_cors};
use crate::metrics::Metrics;
use crate::proto::referee_server::RefereeServer;
use crate::state::AppState;

/// The service's routers and what they share.
#[derive(Debug)]
pub struct App {
    /// HTTP and gRPC on one router, every layer applied.
    pub router: Router,
    /// gRPC only (for `--grpc-listen`), the same layers, health and metrics.
    pub grpc_router: Router,
    /// The gRPC health status of both routers.
    pub health: HealthReporter,
    /// The request metrics of both routers (served at `/metrics`).
    pub metrics: Metrics,
    /// Send `true` when the server stops accepting: open gRPC streams then
    /// end with UNAVAILABLE instead of holding the exit
    /// ([`crate::layers::streams::StreamGuard`]).
    pub stop_streams: Arc<watch::Sender<bool>>,
}

/// HTTP and gRPC routes with every layer, and the gRPC health reporter.
pub fn app(state: AppState, config: &Config) -> (Router, HealthReporter) {
    let app = build(state, config);
    (app.router, app.health)
}

/// Builds both routers over one state, health reporter, metrics registry
/// and concurrency limit.
pub fn build(state: AppState, config: &Config) -> App {
    let metrics = Metrics::new();
    let (stop_streams, stop) = watch::channel(false);
    let layers = RequestLayers::new(config, &metrics, stop);
    let (grpc_routes, health) = crate::grpc::routes(state.clone(), config.body_limits(), &layers);
    let router = grpc_routes(layered(crate::http::router(state), config, &layers));
    // The gRPC routes carry their layers; a path that matches none is
    // answered (404) behind them too, as on the main router.
    let grpc_router = grpc_routes(Router::new()).fallback_service(layers.apply(tower::service_fn(
        |_: Request| async {
            Ok::<_, std::convert::Infallible>(StatusCode::NOT_FOUND.into_response())
        },
    )));
    App {
        router: with_cors(router, config),
        grpc_router: with_cors(grpc_router, config),
        health,
        metrics,
        stop_streams: Arc::new(stop_streams),
    }
}

/// Serves `router` on `listener` until `shutdown` resolves: then stops
/// accepting and lets in-flight requests finish for at most `grace`. The
/// connection limits of `config` apply ([`crate::transport`]).
///
/// # Errors
/// I/O errors of the listener.
pub fn serve(
    listener: TcpListener,
    router: Router,
    config: &Config,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> impl std::future::Future<Output = std::io::Result<()>> + Send + 'static {
    crate::transport::serve(
        listener,
        router,
        crate::transport::ConnLimits::from_config(config),
        shutdown,
        grace,
    )
}

/// Pings the ledger every second: when it stops answering, `/readyz`
/// answers 503 `ledger_unavailable` and gRPC health reports NOT_SERVING
/// (for `""` and `bgref.v1.Referee`) until it answers again. Logs each
/// change once.
pub async fn watch_ledger(ledger: crate::ledger::Ledger, state: AppState, health: HealthReporter) {
    let mut serving = true;
    loop {
        let up = ledger.ping().await;
        if up != serving && state.is_ready() {
            let status = if up {
                ServingStatus::Serving
            } else {
                ServingStatus::NotServing
            };
            health.set_service_status("", status).await;
            health
                .set_service_status(
                    <RefereeServer<crate::grpc::RefereeService> as tonic::server::NamedService>::NAME,
                    status,
                )
                .await;
            if up {
                tracing::info!("ledger reachable again: ready");
            } else {
                tracing::warn!(
                    "ledger unreachable: not ready, game actions refused (503 ledger-unavailable)"
                );
            }
            serving = up;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Starts draining on the first SIGTERM or Ctrl-C: `/readyz` answers 503
/// and gRPC health reports NOT_SERVING (for `""` and `bgref.v1.Referee`)
/// at once; after `delay` (or a second signal) the returned receiver turns
/// `true`, which is when the servers stop accepting ([`stopped`]).
pub fn drain_on_signal(
    state: AppState,
    health: HealthReporter,
    delay: Duration,
) -> watch::Receiver<bool> {
    let (tx, rx) = watch::channel(false);
    let signal = signal_now();
    tokio::spawn(async move {
        signal.await;
        state.set_draining();
        health
            .set_service_status("", ServingStatus::NotServing)
            .await;
        health
            .set_not_serving::<RefereeServer<crate::grpc::RefereeService>>()
            .await;
        // Logged once readiness and gRPC health both say so: whoever reads
        // this line (an operator, the ops tests) finds them already failing.
        tracing::info!(
            delay_secs = delay.as_secs_f64(),
            "shutdown signal: draining"
        );
        if !delay.is_zero() {
            tokio::select! {
                () = tokio::time::sleep(delay) => {},
                () = shutdown_signal() => tracing::info!("second signal: not waiting any longer"),
            }
        }
        tracing::info!("no longer accepting connections; finishing in-flight requests");
        let _ = tx.send(true);
    });
    rx
}

/// Resolves once `drain` (from [`drain_on_signal`]) says to stop.
pub async fn stopped(mut drain: watch::Receiver<bool>) {
    let _ = drain.wait_for(|&stop| stop).await;
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    signal_now().await;
}

/// Like [`shutdown_signal`], but the SIGTERM handler is installed before
/// this returns (not at the first poll), so a signal sent right after
/// start-up is not lost.
fn signal_now() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    async move {
        let ctrl_c = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        #[cfg(unix)]
        let terminate = async move {
            match terminate {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let terminate = std::future::pending::<()>();
        tokio::select! {
            () = ctrl_c => {},
            () = terminate => {},
        }
    }
}

//! `bgref`: config, telemetry, router, serve, shutdown.

use clap::Parser;
use tokio::net::TcpListener;

use bgref_service::config::{Cli, Command};
use bgref_service::keys::DiceKeys;
use bgref_service::proto::referee_server::RefereeServer;
use bgref_service::state::AppState;
use bgref_service::{grpc, http, server, telemetry};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    if let Some(Command::Openapi) = cli.command {
        println!("{}", http::openapi().to_pretty_json().unwrap_or_default());
        return std::process::ExitCode::SUCCESS;
    }
    let config = cli.config;
    let _telemetry = telemetry::init(&config.telemetry);
    let keys = match DiceKeys::from_config(&config.dice) {
        Ok(keys) => keys,
        Err(err) => {
            tracing::error!(error = %err, "invalid dice configuration");
            return std::process::ExitCode::from(2);
        }
    };
    let state = AppState::new(keys);
    let (router, health) = server::app(state.clone(), &config);
    health
        .set_serving::<RefereeServer<grpc::RefereeService>>()
        .await;
    let listener = match TcpListener::bind(config.listen).await {
        Ok(l) => l,
        Err(err) => {
            tracing::error!(error = %err, listen = %config.listen, "cannot listen");
            return std::process::ExitCode::from(1);
        }
    };
    let local = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    tracing::info!(listen = %local, version = env!("CARGO_PKG_VERSION"), "bgref serving HTTP and gRPC");
    if let Some(addr) = config.grpc_listen {
        match TcpListener::bind(addr).await {
            Ok(l) => {
                let (grpc_router, _) = grpc::router(state.clone(), config.max_body_bytes);
                let grace = config.shutdown_timeout;
                tracing::info!(listen = %addr, "bgref serving gRPC");
                tokio::spawn(server::serve(
                    l,
                    grpc_router,
                    server::shutdown_signal(),
                    grace,
                ));
            }
            Err(err) => {
                tracing::error!(error = %err, listen = %addr, "cannot listen for gRPC");
                return std::process::ExitCode::from(1);
            }
        }
    }
    let drain_state = state.clone();
    let drain_health = health.clone();
    let shutdown = async move {
        server::shutdown_signal().await;
        tracing::info!("shutdown signal: draining");
        drain_state.set_draining();
        drain_health
            .set_not_serving::<RefereeServer<grpc::RefereeService>>()
            .await;
    };
    match server::serve(listener, router, shutdown, config.shutdown_timeout).await {
        Ok(()) => {
            tracing::info!("bgref stopped");
            std::process::ExitCode::SUCCESS
        }
        Err(err) => {
            tracing::error!(error = %err, "server failed");
            std::process::ExitCode::from(1)
        }
    }
}

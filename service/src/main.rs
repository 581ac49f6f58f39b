//! `bgref`: config, telemetry, router, serve, shutdown.

use std::process::ExitCode;

use clap::Parser;
use tokio::net::TcpListener;

use bgref_service::config::{Cli, Command};
use bgref_service::keys::DiceKeys;
use bgref_service::ledger::Ledger;
use bgref_service::proto::referee_server::RefereeServer;
use bgref_service::state::{AppState, TimeSource};
use bgref_service::{grpc, http, referee, server, telemetry};

/// mimalloc instead of the system allocator: a request allocates and
/// frees dozens of small blocks (hyper, axum, tracing, the answer), each
/// cheaper in mimalloc (bench/README.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Command::Openapi) = cli.command {
        println!("{}", http::openapi().to_pretty_json().unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    let config = cli.config;
    // Dropped last: flushes the spans of everything below.
    let _telemetry = telemetry::init(&config.telemetry);
    let keys = match DiceKeys::from_config(&config.dice) {
        Ok(keys) => keys,
        Err(err) => {
            tracing::error!(error = %err, "invalid dice configuration");
            return ExitCode::from(2);
        }
    };
    let mut state = AppState::new(keys);
    if let Some(url) = config
        .ledger
        .ledger_url
        .as_deref()
        .filter(|u| !u.trim().is_empty())
    {
        match Ledger::new(
            url.trim(),
            config.ledger.ledger_ttl,
            config.ledger.ledger_timeout,
        ) {
            Ok(ledger) => state = state.with_ledger(ledger),
            Err(err) => {
                tracing::error!(error = %err, "invalid ledger configuration");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(path) = config.test_clock_file.clone() {
        tracing::warn!(
            path = %path.display(),
            "the referee clock reads the time from a file (--test-clock-file): for tests only, \
             whoever writes it decides every clocked match"
        );
        state = state.with_time(TimeSource::File(path.into()));
    }
    referee::log_mode(&state);
    let app = server::build(state.clone(), &config);
    app.health
        .set_serving::<RefereeServer<grpc::RefereeService>>()
        .await;
    if let Some(ledger) = state.ledger.clone() {
        tokio::spawn(server::watch_ledger(
            ledger,
            state.clone(),
            app.health.clone(),
        ));
    }
    let Some(listener) = bind(config.listen, config.listen_backlog) else {
        return ExitCode::from(1);
    };
    let grpc_listener = match config.grpc_listen {
        Some(addr) => match bind(addr, config.listen_backlog) {
            Some(l) => Some(l),
            None => return ExitCode::from(1),
        },
        None => None,
    };
    let drain = server::drain_on_signal(state, app.health.clone(), config.shutdown_delay);
    // When the servers stop accepting, open gRPC streams end too.
    let stopping = {
        let drain = drain.clone();
        let stop_streams = app.stop_streams.clone();
        move || {
            let drain = drain.clone();
            let stop_streams = stop_streams.clone();
            async move {
                server::stopped(drain).await;
                let _ = stop_streams.send(true);
            }
        }
    };
    let grace = config.shutdown_timeout;
    let local = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    tracing::info!(listen = %local, version = env!("CARGO_PKG_VERSION"), "bgref serving HTTP and gRPC");
    let grpc_server = grpc_listener.map(|l| {
        tracing::info!(listen = %config.grpc_listen.map(|a| a.to_string()).unwrap_or_default(), "bgref serving gRPC");
        tokio::spawn(server::serve(
            l,
            app.grpc_router,
            &config,
            stopping(),
            grace,
        ))
    });
    let result = server::serve(listener, app.router, &config, stopping(), grace).await;
    let grpc_result = match grpc_server {
        Some(handle) => handle
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e))),
        None => Ok(()),
    };
    match result.and(grpc_result) {
        Ok(()) => {
            tracing::info!("bgref stopped");
            ExitCode::SUCCESS
        }
        Err(err) => {
            tracing::error!(error = %err, "server failed");
            ExitCode::from(1)
        }
    }
}

fn bind(addr: std::net::SocketAddr, backlog: u32) -> Option<TcpListener> {
    bgref_service::transport::listen(addr, backlog)
        .inspect_err(|err| tracing::error!(error = %err, listen = %addr, "cannot listen"))
        .ok()
}

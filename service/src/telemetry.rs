//! Logging (and, with the OTLP endpoint set, trace export).

use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::config::{LogFormat, TelemetryConfig};

/// Flushes telemetry when dropped.
#[derive(Debug)]
pub struct TelemetryGuard {}

/// Installs the global subscriber: `RUST_LOG` filter (default `info`), text
/// or JSON lines on stderr.
pub fn init(config: &TelemetryConfig) -> TelemetryGuard {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let registry = tracing_subscriber::registry().with(filter);
    match config.log_format {
        LogFormat::Json => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .with_writer(std::io::stderr),
            )
            .init(),
        LogFormat::Text => registry
            .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
            .init(),
    }
    TelemetryGuard {}
}

//! Shared state: configuration-derived keys, the ledger and the readiness flag.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{ApiError, ErrorKind};
use crate::keys::DiceKeys;
use crate::ledger::Ledger;

/// Where the referee clock reads the time.
#[derive(Clone, Debug, Default)]
pub enum TimeSource {
    /// The system clock (replicas need synchronised clocks:
    /// docs/referee.md, "The clock").
    #[default]
    System,
    /// A file holding Unix milliseconds, for tests (`--test-clock-file`).
    File(Arc<PathBuf>),
}

impl TimeSource {
    /// Now, in Unix milliseconds.
    ///
    /// # Errors
    /// `internal` (500) when the test clock's file cannot be read.
    pub fn now_ms(&self) -> Result<u64, ApiError> {
        match self {
            TimeSource::System => Ok(SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))),
            TimeSource::File(path) => std::fs::read_to_string(path.as_ref())
                .ok()
                .and_then(|text| text.trim().parse().ok())
                .ok_or_else(|| {
                    ApiError::new(
                        ErrorKind::Internal,
                        "internal",
                        "the test clock's file (--test-clock-file) holds no time",
                    )
                }),
        }
    }
}

/// What every handler may read. Cloning is cheap.
#[derive(Clone, Debug)]
pub struct AppState {
    /// Dice secrets and signing keys.
    pub dice: Arc<DiceKeys>,
    /// The ledger of the game flow (`BGREF_LEDGER_URL`), if configured.
    pub ledger: Option<Ledger>,
    /// The referee clock's time.
    pub time: TimeSource,
    ready: Arc<AtomicBool>,
}

impl AppState {
    /// State from loaded keys, ready to serve, without a ledger.
    pub fn new(dice: DiceKeys) -> AppState {
        AppState {
            dice: Arc::new(dice),
            ledger: None,
            time: TimeSource::System,
            ready: Arc::new(AtomicBool::new(true)),
        }
    }

    /// The same state with the game flow on `ledger`.
    #[must_use]
    pub fn with_ledger(mut self, ledger: Ledger) -> AppState {
        self.ledger = Some(ledger);
        self
    }

    /// The same state with the referee clock on `time`.
    #[must_use]
    pub fn with_time(mut self, time: TimeSource) -> AppState {
        self.time = time;
        self
    }

    /// Whether the instance accepts traffic (false once shutdown began).
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Relaxed)
    }

    /// Marks the instance as draining: readiness fails from now on.
    pub fn set_draining(&self) {
        self.ready.store(false, Ordering::Relaxed);
    }
}

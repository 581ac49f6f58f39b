//! Shared state: configuration-derived keys, the ledger and the readiness flag.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::keys::DiceKeys;
use crate::ledger::Ledger;

/// What every handler may read. Cloning is cheap.
#[derive(Clone, Debug)]
pub struct AppState {
    /// Dice secrets and signing keys.
    pub dice: Arc<DiceKeys>,
    /// The ledger of the game flow (`BGREF_LEDGER_URL`), if configured.
    pub ledger: Option<Ledger>,
    ready: Arc<AtomicBool>,
}

impl AppState {
    /// State from loaded keys, ready to serve, without a ledger.
    pub fn new(dice: DiceKeys) -> AppState {
        AppState {
            dice: Arc::new(dice),
            ledger: None,
            ready: Arc::new(AtomicBool::new(true)),
        }
    }

    /// The same state with the game flow on `ledger`.
    #[must_use]
    pub fn with_ledger(mut self, ledger: Ledger) -> AppState {
        self.ledger = Some(ledger);
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

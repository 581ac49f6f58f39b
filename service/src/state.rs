//! Shared, read-only state: configuration-derived keys and the readiness flag.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::keys::DiceKeys;

/// What every handler may read. Cloning is cheap.
#[derive(Clone, Debug)]
pub struct AppState {
    /// Dice secrets and signing keys.
    pub dice: Arc<DiceKeys>,
    ready: Arc<AtomicBool>,
}

impl AppState {
    /// State from loaded keys, ready to serve.
    pub fn new(dice: DiceKeys) -> AppState {
        AppState {
            dice: Arc::new(dice),
            ready: Arc::new(AtomicBool::new(true)),
        }
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

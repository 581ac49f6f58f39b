//! Dice secrets and signing keys from configuration (filled in by the dice work).

use crate::config::DiceConfig;

/// The loaded dice secrets.
#[derive(Debug, Default)]
pub struct DiceKeys {}

impl DiceKeys {
    /// Loads the secrets named by the configuration.
    ///
    /// # Errors
    /// A message naming the bad option (never its value).
    pub fn from_config(_config: &DiceConfig) -> Result<DiceKeys, String> {
        Ok(DiceKeys {})
    }
}

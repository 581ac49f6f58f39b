//! bgref-core: the pure backgammon rules engine behind the bgref referee.
//!
//! No I/O, no clock, no randomness: every function is a function of its
//! arguments, so the service (or any other caller) can replay any decision.
//!
//! ```
//! use bgref_core::{Dice, Die, Position, Variant};
//!
//! let start = Position::start(Variant::Standard, bgref_core::Player::X);
//! let plays = start.legal_plays(Dice::new(Die::new(3), Die::new(1)));
//! assert_eq!(plays.len(), 16);
//! # Ok::<_, bgref_core::PositionError>(())
//! ```
//!
//! # Feature flags
//! - `std` (default): nothing rule-related depends on it; the crate is
//!   `no_std` + `alloc` without it.
//! - `serde`: `Serialize`/`Deserialize` for the vocabulary types.

#![no_std]
#![warn(missing_docs, missing_debug_implementations)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod board;
mod cube;
mod dice;
mod match_state;
mod movegen;
mod play;
mod player;
mod point;
mod position;
mod scoring;
mod setup;
pub mod tables;
pub mod verify;

/// Text encodings: gnubg Position ID and Match ID, XGID and move notation.
pub mod notation {
    pub mod match_id;
    pub mod move_text;
    pub mod position_id;
    pub mod xgid;
}

pub use crate::dice::{Dice, Die, InvalidDice, InvalidDie};
pub use crate::movegen::PlayList;
pub use crate::play::{IllegalPlay, Move, PartialPlay, Play};
pub use crate::player::{ByPlayer, ParsePlayerError, Player};
pub use crate::point::{InvalidPoint, Point};
pub use crate::position::{GameOutcome, Position, PositionError};
pub use crate::setup::{ParseVariantError, Setup, Variant};

// --- cube, match and scoring (issue 4) ---
pub use crate::cube::*;
pub use crate::match_state::*;
pub use crate::scoring::*;

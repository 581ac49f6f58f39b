//! The tables games beside backgammon: Portes, Tavla, Plakoto, Fevga and
//! Long Nardy, and the Greek Tavli match. The rules, their sources and the
//! options are in `docs/variants.md`.
//!
//! Portes and Tavla move exactly like backgammon: play them on
//! [`crate::Position`] with [`Game::backgammon_variant`] and score them with
//! [`Game::backgammon_points`] (no cube); Tavla's hit-and-run option
//! ([`HitAndRun`]) has its own generator on the same board. Plakoto, Fevga and Long Nardy do
//! not fit the backgammon board (Plakoto stacks a pinner on a pinned
//! checker; in Fevga and Long Nardy both sides run the same way round) and
//! have their own engine, [`TablesPosition`].
//!
//! ```
//! use bgref_core::tables::{Game, TablesPosition};
//! use bgref_core::{Dice, Die, Player};
//!
//! let start = TablesPosition::start(Game::LongNardy, Player::X)?;
//! // One checker leaves the head: 24/19/17 or 24/19 and 24/17 are not legal.
//! let plays = start.legal_plays(Dice::new(Die::new(5), Die::new(2)));
//! assert_eq!(plays.len(), 1);
//! # Ok::<_, bgref_core::tables::TablesPositionError>(())
//! ```

mod error;
mod game;
mod movegen;
mod outcome;
mod position;
mod referee;
mod rules;
mod setup;
mod tavla;
mod tavli;

pub use error::{TablesIllegalPlay, TablesPositionError};
pub use game::{Game, ParseGameError};
pub use outcome::{OutcomeKind, TablesOutcome};
pub use position::{TablesPlayList, TablesPosition};
pub use referee::{TablesGameState, TablesMatch, TablesScore, TablesSeries, resignation_points};
pub use rules::{
    FevgaStart, HeadDoubles, HitAndRun, MotherRule, NardyOpening, PrimeRule, TablesRules,
};
pub use setup::{CHECKERS, TablesSetup, other_view};
pub use tavli::{TavliError, TavliMatch};

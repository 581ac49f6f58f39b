//! The doubling cube, the match around a game, and scoring: the cube's value
//! and owner, the house rules that govern it (Jacoby, beavers and raccoons,
//! automatic doubles, maximum value), the cube and resignation actions, each
//! either allowed, with the state it leads to, or refused with the exact
//! reason, and what a finished game is worth.
//!
//! # Module order
//! The submodules depend on each other in one direction only; each uses
//! only those above it:
//!
//! 1. [`value`]: [`CubeValue`], [`CubeOwner`] (nothing else in `cube`);
//! 2. [`match_state`]: [`MatchState`], [`GameKind`], [`MatchOutcome`],
//!    [`InvalidMatchState`] (nothing else in `cube`);
//! 3. [`rules`]: [`CubeRules`] (value, match state);
//! 4. [`scoring`]: [`GameResult`], [`GameEnd`], [`GameScore`] and the
//!    points arithmetic (value, match state, rules);
//! 5. [`state`]: [`CubeState`] and its actions, [`CubeRefusal`],
//!    [`InvalidCubeState`], [`CubeError`], and [`score_game`], which checks
//!    the state before scoring (everything above).
//!
//! The modules are private; their items are re-exported at the crate root
//! and the model is documented on [`CubeState`].

pub(crate) mod match_state;
pub(crate) mod rules;
pub(crate) mod scoring;
pub(crate) mod state;
pub(crate) mod value;

pub use self::match_state::{GameKind, InvalidMatchState, MatchOutcome, MatchState};
pub use self::rules::CubeRules;
pub use self::scoring::{GameEnd, GameResult, GameScore, ParseGameResultError};
pub use self::state::{
    CubeAction, CubeError, CubeOutcome, CubeRefusal, CubeState, InvalidCubeState,
    ParseCubeActionError, Resignation, score_game,
};
pub use self::value::{CubeOwner, CubeValue, InvalidCubeValue, ParseCubeOwnerError};

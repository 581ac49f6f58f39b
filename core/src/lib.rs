//! bgref-core: the pure backgammon rules engine behind the bgref referee.
//!
//! No I/O, no clock, no randomness: every function is a function of its
//! arguments, so the service (or any other caller) can replay any decision.
//!
//! ```
//! use bgref_core::{Dice, Die, Position, BackgammonVariant};
//!
//! let start = Position::start(BackgammonVariant::Standard, bgref_core::Player::X);
//! let plays = start.legal_plays(Dice::new(Die::new(3), Die::new(1)));
//! assert_eq!(plays.len(), 16);
//! # Ok::<_, bgref_core::PositionError>(())
//! ```
//!
//! # One face for the ten rulesets
//! [`Variant`] names the five backgammon variants and the five tables
//! games (Portes, Tavla, Plakoto, Fevga, Long Nardy); [`VariantPosition`]
//! answers every ruleset through the same calls (legal plays, a checked
//! play with the reason it is illegal, the outcome and its points, the
//! encodings that apply, pips), dispatching to [`Position`] or to
//! [`tables::TablesPosition`].
//!
//! # Embedding
//! The crate's `README.md` has a section on embedding it in your own
//! program, and `examples/embed.rs` is a short program to copy: parse an
//! XGID, list the plays, apply one given in notation, run the cube and
//! score the end of a game, then play a backgammon and a Plakoto game
//! through the same calls (`cargo run -p bgref-core --example embed`).
//!
//! # Errors: one naming convention
//! Every error type is small (a unit struct or a `Copy` enum, no `String`),
//! has a lower-case `Display` and implements `core::error::Error`. Its name
//! says what went wrong:
//!
//! - **`ParseXError`**: text is not an `X` (syntax only): [`ParsePointError`],
//!   [`ParseDiceError`], [`ParsePlayerError`], [`ParseBackgammonVariantError`],
//!   [`ParseCubeOwnerError`], [`ParseCubeActionError`],
//!   [`ParseGameResultError`], and in [`notation`] `ParsePositionIdError`,
//!   `ParseMatchIdError`, `ParseXgidError`, `ParseMoveTextError`; in
//!   [`verify`] `ParseHexError`.
//! - **`InvalidX`**: a value or combination that cannot be an `X` (an
//!   out-of-range constructor or `TryFrom`, or a state that cannot occur):
//!   [`InvalidDie`], [`InvalidDice`], [`InvalidPoint`], [`InvalidCubeValue`],
//!   [`InvalidMatchState`], [`InvalidCubeState`], and
//!   `notation::match_id::InvalidMatchId`.
//! - **Rule answers, named for what they are**: a valid request the rules
//!   refuse: [`IllegalPlay`], `notation::move_text::IllegalMoveText`,
//!   [`CubeRefusal`] (each with a stable [`CubeRefusal::slug`]).
//! - **`XError`** only for the error of a checked door that can fail in
//!   several of those ways at once: [`PositionError`] (every reason a
//!   [`Setup`] is not a valid [`Position`], with the numbers),
//!   [`CubeError`] (either a [`CubeRefusal`] or an [`InvalidCubeState`])
//!   and `notation::mat::MatError` (a transcript the `.mat` format cannot
//!   express, or steps that do not follow each other).
//!
//! # Feature flags
//! - `std` (default): nothing rule-related depends on it; the crate is
//!   `no_std` + `alloc` without it.
//! - `serde`: `Serialize`/`Deserialize` for the vocabulary types, in the
//!   service's JSON spellings (the service enables it and reads and writes
//!   its JSON with these impls where the core has the type: the player,
//!   results, game kinds, a tables game's outcome and rule options):
//!   [`Player`] `"x"`/`"o"`;
//!   [`Variant`] its wire name (all ten); [`BackgammonVariant`] its wire
//!   name (`"standard"`, `"nackgammon"`, `"hypergammon"`,
//!   `"hypergammon-1"`, `"hypergammon-2"`); [`GameResult`] `"single"`,
//!   `"gammon"`, `"backgammon"`; [`CubeOwner`] `"centre"`, `"x"`, `"o"`;
//!   [`GameKind`] `"normal"`, `"crawford"`, `"post_crawford"`;
//!   [`CubeAction`] lower case (`{"resign": "gammon"}` for a resignation);
//!   [`Die`], [`Point`] and [`CubeValue`] as checked numbers, [`Dice`] as
//!   `[a, b]`; [`ByPlayer`] as `{"x": .., "o": ..}`; and the cube, match
//!   and score structs with those fields. Deserializing refuses every
//!   out-of-range value. CI: `cargo test -p bgref-core --features serde`.

#![no_std]
#![warn(missing_docs, missing_debug_implementations)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod board;
mod cube;
mod dice;
mod digits;
mod game;
mod movegen;
mod play;
mod player;
mod point;
mod position;
mod referee;
mod setup;
pub mod state_bytes;
pub mod tables;
mod variant;
mod variant_position;
pub mod verify;

/// Text encodings: gnubg Position ID and Match ID, XGID, FIBS boards, move
/// notation, and Jellyfish `.mat` match transcripts.
pub mod notation {
    pub mod encodings;
    pub mod fibs;
    pub mod mat;
    pub mod match_id;
    pub mod move_text;
    pub mod position_id;
    pub mod xgid;
}

pub use crate::cube::{
    CubeAction, CubeError, CubeOutcome, CubeOwner, CubeRefusal, CubeRules, CubeState, CubeValue,
    GameEnd, GameKind, GameResult, GameScore, InvalidCubeState, InvalidCubeValue,
    InvalidMatchState, MatchOutcome, MatchState, ParseCubeActionError, ParseCubeOwnerError,
    ParseGameResultError, Resignation, score_game,
};
pub use crate::dice::{Dice, Die, InvalidDice, InvalidDie, ParseDiceError};
pub use crate::game::{
    Action, BackgammonGame, Event, GameError, MAX_RESIGNATIONS, Phase, SetUpError,
};
pub use crate::movegen::PlayList;
pub use crate::play::{IllegalPlay, Move, PartialPlay, Play};
pub use crate::player::{ByPlayer, ParsePlayerError, Player};
pub use crate::point::{InvalidPoint, ParsePointError, Point};
pub use crate::position::{CheckerCount, GameOutcome, Position, PositionError, PositionErrorKinds};
pub use crate::referee::{GameState, Score};
pub use crate::setup::{BackgammonVariant, ParseBackgammonVariantError, Setup};
pub use crate::variant::{ParseVariantError, Variant};
pub use crate::variant_position::{
    IllegalVariantPlay, Notations, VariantOutcome, VariantPlayList, VariantPosition, WrongBoard,
};

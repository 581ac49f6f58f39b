//! The cube state machine: [`CubeState`], the [`CubeAction`]s, and the two
//! ways an action can fail: [`CubeRefusal`] (the rules say no now) and
//! [`InvalidCubeState`] (the state itself cannot occur). Depends on every
//! other `cube` module.

use core::fmt;
use core::str::FromStr;

use super::match_state::{InvalidMatchState, MatchState};
use super::rules::CubeRules;
use super::scoring::{GameEnd, GameResult, GameScore};
use super::value::{CubeOwner, CubeValue};
use crate::player::Player;

/// A resignation waiting for an answer: `by` offers to lose `level` (times
/// the cube).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Resignation {
    /// The player who resigns.
    pub by: Player,
    /// What they offer to lose: single, gammon or backgammon.
    pub level: GameResult,
}

/// The cube during a game, plus a pending resignation (both are decisions
/// the opponent must answer before play goes on).
///
/// # The model
/// A [`CubeState`] is everything about the cube (and a pending resignation)
/// that the referee needs; it does not know whose turn it is or whether the
/// dice were rolled, which the position says.
///
/// - [`CubeState::value`] is the value in play. While a double waits for an
///   answer it is still the value *before* that double: exactly what a pass
///   scores for the doubler. A take doubles it.
/// - [`CubeState::owner`] is the centre or the player who may redouble. It
///   does not change while a double is pending.
/// - [`CubeState::offered_by`] is the player whose (re)double waits for an
///   answer; the other player must act.
/// - [`CubeState::beavers`] counts the beavers and raccoons made on the
///   pending double. A beaver is an immediate redouble by the doubled player
///   (the take and the redouble at once); a raccoon is the original doubler's
///   immediate redouble of a beaver; further ones alternate between the two
///   and are named beaver (doubled player) and raccoon (original doubler).
///   [`CubeRules::beavers`] limits their number: 0 disables beavers, 1 allows
///   a beaver, 2 a beaver and a raccoon, and so on.
/// - Whoever made the last redouble, a taken cube always ends on the side of
///   the player who received the original double (the player not on roll),
///   as gnubg does: "cube ownership remains with" the beaverer after a
///   raccoon. A pass scores [`CubeState::value`] for the player who made the
///   last redouble.
///
/// Doubling is refused in the Crawford game and when the doubled value would
/// exceed [`CubeRules::max_cube`]; nothing else is forbidden in match play
/// (a dead cube may be turned, as in gnubg). Jacoby, beavers and automatic
/// doubles are money-play rules: they never apply in match play.
///
/// ```
/// use bgref_core::{CubeAction, CubeOutcome, CubeRules, CubeState, MatchState, Player};
///
/// let money = MatchState::MONEY;
/// let rules = CubeRules::default();
/// let cube = CubeState::default();
/// let CubeOutcome::Continue(offered) = cube.apply(Player::X, CubeAction::Double, &money, &rules)?
/// else { unreachable!() };
/// let CubeOutcome::Continue(taken) = offered.apply(Player::O, CubeAction::Take, &money, &rules)?
/// else { unreachable!() };
/// assert_eq!(taken.value.get(), 2);
/// assert_eq!(taken.owner, Player::O.into());
/// # Ok::<_, bgref_core::CubeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct CubeState {
    /// The value in play; while a double is pending, the value before it
    /// (what a pass scores).
    pub value: CubeValue,
    /// The centre or the player who may redouble.
    pub owner: CubeOwner,
    /// The player whose double, beaver or raccoon waits for an answer.
    pub offered_by: Option<Player>,
    /// Beavers and raccoons made on the pending double.
    pub beavers: u8,
    /// A resignation waiting for an answer.
    pub resignation: Option<Resignation>,
}

/// A cube or resignation decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum CubeAction {
    /// Offer to double (before rolling, on one's own turn).
    Double,
    /// Accept the pending double, beaver or raccoon.
    Take,
    /// Refuse it: the game ends and the other player wins the current value.
    Pass,
    /// Take the double and at once redouble (money play, the doubled player).
    Beaver,
    /// Take a beaver and at once redouble (money play, the original doubler).
    Raccoon,
    /// Offer to resign, losing this much times the cube.
    Resign(GameResult),
    /// Accept the opponent's resignation: the game ends.
    Accept,
    /// Reject the opponent's resignation: play goes on.
    Reject,
}

impl CubeAction {
    /// The action's name: `double`, `take`, `pass`, `beaver`, `raccoon`,
    /// `resign`, `accept` or `reject` (a resignation's level is not part of
    /// the name).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CubeAction::Double => "double",
            CubeAction::Take => "take",
            CubeAction::Pass => "pass",
            CubeAction::Beaver => "beaver",
            CubeAction::Raccoon => "raccoon",
            CubeAction::Resign(_) => "resign",
            CubeAction::Accept => "accept",
            CubeAction::Reject => "reject",
        }
    }
}

impl fmt::Display for CubeAction {
    /// The name, and for a resignation its level: `resign gammon`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CubeAction::Resign(level) => write!(f, "resign {level}"),
            other => f.write_str(other.name()),
        }
    }
}

/// Error for an unknown cube action name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseCubeActionError;

impl fmt::Display for ParseCubeActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "action must be double, take, pass, beaver, raccoon, resign single, resign gammon, resign backgammon, accept or reject",
        )
    }
}

impl core::error::Error for ParseCubeActionError {}

impl FromStr for CubeAction {
    type Err = ParseCubeActionError;
    /// Reads the names written by `Display` (`drop` is accepted for `pass`,
    /// and `resign-gammon` style with a hyphen for a resignation). Exact
    /// lower-case spelling, no surrounding spaces.
    fn from_str(s: &str) -> Result<CubeAction, ParseCubeActionError> {
        Ok(match s {
            "double" => CubeAction::Double,
            "take" => CubeAction::Take,
            "pass" | "drop" => CubeAction::Pass,
            "beaver" => CubeAction::Beaver,
            "raccoon" => CubeAction::Raccoon,
            "accept" => CubeAction::Accept,
            "reject" => CubeAction::Reject,
            _ => {
                let level = s
                    .strip_prefix("resign ")
                    .or_else(|| s.strip_prefix("resign-"))
                    .ok_or(ParseCubeActionError)?;
                CubeAction::Resign(level.parse().map_err(|_| ParseCubeActionError)?)
            }
        })
    }
}

/// What an allowed action leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CubeOutcome {
    /// Play goes on with this cube.
    Continue(CubeState),
    /// The game ended (a pass or an accepted resignation), scored.
    GameOver(GameScore),
}

/// Why the rules refuse a cube or resignation action in a valid state: the
/// answer is "not now", not "the request is broken". `Display` is a
/// lower-case sentence fit for an API `reason`; [`CubeRefusal::slug`] is a
/// stable machine-readable name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CubeRefusal {
    /// The opponent owns the cube.
    NotYourCube,
    /// No doubling in the Crawford game.
    CrawfordGame,
    /// Doubling would take the cube above [`CubeRules::max_cube`].
    CubeAtMaximum,
    /// Beavers and raccoons are not enabled ([`CubeRules::beavers`] is 0).
    BeaversDisabled,
    /// Beavers and raccoons are money-play rules.
    BeaversInMatchPlay,
    /// [`CubeRules::beavers`] beavers and raccoons were already made on this
    /// double.
    BeaverLimitReached,
    /// A beaver was asked of the original doubler, who answers a beaver with
    /// a raccoon.
    RaccoonExpected,
    /// A raccoon was asked but the pending redouble is not a beaver.
    NoBeaverToRaccoon,
    /// The player asked to answer their own double or resignation.
    NotYourTurnToAct,
    /// Take, pass, beaver or raccoon without a pending double.
    NoDoubleOffered,
    /// A double is already waiting for an answer.
    DoubleAlreadyOffered,
    /// A resignation is already waiting for an answer.
    ResignationAlreadyOffered,
    /// Accept or reject without a pending resignation.
    NoResignationOffered,
}

impl CubeRefusal {
    /// Every refusal, in declaration order.
    pub const ALL: [CubeRefusal; 13] = [
        CubeRefusal::NotYourCube,
        CubeRefusal::CrawfordGame,
        CubeRefusal::CubeAtMaximum,
        CubeRefusal::BeaversDisabled,
        CubeRefusal::BeaversInMatchPlay,
        CubeRefusal::BeaverLimitReached,
        CubeRefusal::RaccoonExpected,
        CubeRefusal::NoBeaverToRaccoon,
        CubeRefusal::NotYourTurnToAct,
        CubeRefusal::NoDoubleOffered,
        CubeRefusal::DoubleAlreadyOffered,
        CubeRefusal::ResignationAlreadyOffered,
        CubeRefusal::NoResignationOffered,
    ];

    /// A stable, kebab-case name for the refusal (an API `reason_slug`):
    /// `not-your-cube`, `crawford-game`, `cube-at-maximum`,
    /// `beavers-disabled`, `beavers-in-match-play`, `beaver-limit-reached`,
    /// `raccoon-expected`, `no-beaver-to-raccoon`, `not-your-turn`,
    /// `no-double-offered`, `double-already-offered`,
    /// `resignation-already-offered`, `no-resignation-offered`.
    #[must_use]
    pub const fn slug(self) -> &'static str {
        match self {
            CubeRefusal::NotYourCube => "not-your-cube",
            CubeRefusal::CrawfordGame => "crawford-game",
            CubeRefusal::CubeAtMaximum => "cube-at-maximum",
            CubeRefusal::BeaversDisabled => "beavers-disabled",
            CubeRefusal::BeaversInMatchPlay => "beavers-in-match-play",
            CubeRefusal::BeaverLimitReached => "beaver-limit-reached",
            CubeRefusal::RaccoonExpected => "raccoon-expected",
            CubeRefusal::NoBeaverToRaccoon => "no-beaver-to-raccoon",
            CubeRefusal::NotYourTurnToAct => "not-your-turn",
            CubeRefusal::NoDoubleOffered => "no-double-offered",
            CubeRefusal::DoubleAlreadyOffered => "double-already-offered",
            CubeRefusal::ResignationAlreadyOffered => "resignation-already-offered",
            CubeRefusal::NoResignationOffered => "no-resignation-offered",
        }
    }

    /// The lower-case reason, as `Display` writes it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            CubeRefusal::NotYourCube => "not your cube: the opponent owns it",
            CubeRefusal::CrawfordGame => "no doubling in the crawford game",
            CubeRefusal::CubeAtMaximum => "the cube is at its maximum value",
            CubeRefusal::BeaversDisabled => "beavers are not enabled",
            CubeRefusal::BeaversInMatchPlay => "beavers and raccoons are not played in match play",
            CubeRefusal::BeaverLimitReached => "beaver limit reached",
            CubeRefusal::RaccoonExpected => "the original doubler answers a beaver with a raccoon",
            CubeRefusal::NoBeaverToRaccoon => "there is no beaver to raccoon",
            CubeRefusal::NotYourTurnToAct => "not your turn to act",
            CubeRefusal::NoDoubleOffered => "no double is offered",
            CubeRefusal::DoubleAlreadyOffered => "a double is already offered",
            CubeRefusal::ResignationAlreadyOffered => "a resignation is already offered",
            CubeRefusal::NoResignationOffered => "no resignation is offered",
        }
    }
}

impl fmt::Display for CubeRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::error::Error for CubeRefusal {}

/// Why a cube state (or the match state beside it) cannot occur: the
/// request itself is broken. `Display` is a lower-case sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvalidCubeState {
    /// The match state is impossible.
    Match(InvalidMatchState),
    /// The cube value is above [`CubeRules::max_cube`].
    CubeAboveMaximum,
    /// An owned cube shows 1.
    OwnedCubeAtOne,
    /// A centred cube shows more than automatic doubles can explain.
    CentredCubeTurned,
    /// The cube is turned or offered in the Crawford game.
    CubeTurnedInCrawfordGame,
    /// Beavers are counted without a pending double.
    BeaversWithoutDouble,
    /// More beavers and raccoons than the rules allow.
    BeaverCountAboveLimit,
    /// The cube value is lower than the beavers counted could leave it.
    BeaversAboveCube,
    /// The pending double was offered by a player who does not own the cube.
    OfferByNonOwner,
    /// A double and a resignation are both pending.
    DoubleAndResignation,
}

impl InvalidCubeState {
    /// The lower-case reason, as `Display` writes it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            InvalidCubeState::Match(error) => error.as_str(),
            InvalidCubeState::CubeAboveMaximum => "the cube value is above the maximum",
            InvalidCubeState::OwnedCubeAtOne => "an owned cube shows at least 2",
            InvalidCubeState::CentredCubeTurned => {
                "a centred cube above 1 needs automatic doubles in money play"
            }
            InvalidCubeState::CubeTurnedInCrawfordGame => {
                "the cube cannot be turned in the crawford game"
            }
            InvalidCubeState::BeaversWithoutDouble => {
                "beavers are counted only while a double is offered"
            }
            InvalidCubeState::BeaverCountAboveLimit => {
                "more beavers and raccoons than the rules allow"
            }
            InvalidCubeState::BeaversAboveCube => {
                "the cube value is too low for the beavers counted"
            }
            InvalidCubeState::OfferByNonOwner => {
                "the double was offered by a player who does not own the cube"
            }
            InvalidCubeState::DoubleAndResignation => {
                "a double and a resignation cannot both be pending"
            }
        }
    }
}

impl fmt::Display for InvalidCubeState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::error::Error for InvalidCubeState {}

impl From<InvalidMatchState> for InvalidCubeState {
    fn from(error: InvalidMatchState) -> InvalidCubeState {
        InvalidCubeState::Match(error)
    }
}

/// Why a cube or resignation action (or scoring a game) did not go through:
/// either the rules refuse it in a valid state, or the state is invalid.
/// The two are kept apart so that a caller can answer a refusal ("not
/// allowed") differently from a broken request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CubeError {
    /// The state is valid; the rules say no.
    Refused(CubeRefusal),
    /// The cube or match state cannot occur.
    InvalidState(InvalidCubeState),
}

impl CubeError {
    /// Whether this is a rules refusal of a valid request rather than an
    /// invalid state.
    #[must_use]
    pub const fn is_refusal(self) -> bool {
        matches!(self, CubeError::Refused(_))
    }

    /// The refusal, if this is one.
    #[must_use]
    pub const fn refusal(self) -> Option<CubeRefusal> {
        match self {
            CubeError::Refused(refusal) => Some(refusal),
            CubeError::InvalidState(_) => None,
        }
    }

    /// The invalid state, if this is one.
    #[must_use]
    pub const fn invalid_state(self) -> Option<InvalidCubeState> {
        match self {
            CubeError::Refused(_) => None,
            CubeError::InvalidState(invalid) => Some(invalid),
        }
    }
}

impl fmt::Display for CubeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CubeError::Refused(refusal) => refusal.fmt(f),
            CubeError::InvalidState(invalid) => invalid.fmt(f),
        }
    }
}

impl core::error::Error for CubeError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            CubeError::Refused(refusal) => Some(refusal),
            CubeError::InvalidState(invalid) => Some(invalid),
        }
    }
}

impl From<CubeRefusal> for CubeError {
    fn from(refusal: CubeRefusal) -> CubeError {
        CubeError::Refused(refusal)
    }
}

impl From<InvalidCubeState> for CubeError {
    fn from(invalid: InvalidCubeState) -> CubeError {
        CubeError::InvalidState(invalid)
    }
}

impl From<InvalidMatchState> for CubeError {
    fn from(invalid: InvalidMatchState) -> CubeError {
        CubeError::InvalidState(InvalidCubeState::Match(invalid))
    }
}

impl CubeState {
    /// The cube at the start of a game: centred at 1.
    pub const START: CubeState = CubeState {
        value: CubeValue::ONE,
        owner: CubeOwner::Centre,
        offered_by: None,
        beavers: 0,
        resignation: None,
    };

    /// The cube at the start of a game whose opening roll was tied
    /// `opening_ties` times: centred, at [`CubeRules::opening_cube`] (with
    /// automatic doubles, money play only, each tie doubles the centred
    /// cube, up to [`CubeRules::automatic_doubles`] times and never above
    /// [`CubeRules::max_cube`]; otherwise 1). [`CubeState::validate`]
    /// accepts the result: a centred cube above 1 is valid in money play as
    /// long as automatic doubles can explain it.
    #[must_use]
    pub fn for_new_game(
        opening_ties: u32,
        match_state: &MatchState,
        rules: &CubeRules,
    ) -> CubeState {
        CubeState {
            value: rules.opening_cube(opening_ties, match_state),
            ..CubeState::START
        }
    }

    /// The player who must answer the pending double or resignation, if any.
    #[must_use]
    pub fn to_act(&self) -> Option<Player> {
        match (self.offered_by, self.resignation) {
            (Some(doubler), _) => Some(!doubler),
            (None, Some(resignation)) => Some(!resignation.by),
            (None, None) => None,
        }
    }

    /// The player who offered the pending double (before any beaver), i.e.
    /// the player on roll; `None` without a pending double.
    #[must_use]
    pub fn original_doubler(&self) -> Option<Player> {
        self.offered_by.map(|last| {
            if self.beavers.is_multiple_of(2) {
                last
            } else {
                !last
            }
        })
    }

    /// Checks that this cube state can occur under `match_state` and
    /// `rules` (the match state is checked too).
    ///
    /// # Errors
    /// The first inconsistency found: the match state's
    /// ([`MatchState::validate`], as [`InvalidCubeState::Match`]), then
    /// [`InvalidCubeState::CubeAboveMaximum`] (the value, or the value a pending
    /// double would reach, is above the maximum),
    /// [`InvalidCubeState::CubeTurnedInCrawfordGame`],
    /// [`InvalidCubeState::BeaversWithoutDouble`], [`InvalidCubeState::BeaverCountAboveLimit`],
    /// [`InvalidCubeState::BeaversAboveCube`], [`InvalidCubeState::OwnedCubeAtOne`],
    /// [`InvalidCubeState::CentredCubeTurned`], [`InvalidCubeState::OfferByNonOwner`],
    /// [`InvalidCubeState::DoubleAndResignation`].
    pub fn validate(
        &self,
        match_state: &MatchState,
        rules: &CubeRules,
    ) -> Result<(), InvalidCubeState> {
        match_state.validate()?;
        let rules = rules.effective(match_state);
        if self.value > rules.max_cube {
            return Err(InvalidCubeState::CubeAboveMaximum);
        }
        if self.offered_by.is_some() && self.value.doubled().is_none_or(|v| v > rules.max_cube) {
            return Err(InvalidCubeState::CubeAboveMaximum);
        }
        if match_state.crawford
            && (self.value != CubeValue::ONE
                || !self.owner.is_centred()
                || self.offered_by.is_some())
        {
            return Err(InvalidCubeState::CubeTurnedInCrawfordGame);
        }
        if self.beavers > 0 && self.offered_by.is_none() {
            return Err(InvalidCubeState::BeaversWithoutDouble);
        }
        if self.beavers > rules.beavers {
            return Err(InvalidCubeState::BeaverCountAboveLimit);
        }
        // Each beaver or raccoon has already doubled the value: the owner
        // was settled at the value before the original double.
        let Some(base_log2) = self.value.log2().checked_sub(self.beavers) else {
            return Err(InvalidCubeState::BeaversAboveCube);
        };
        match self.owner {
            CubeOwner::Player(_) if base_log2 == 0 => return Err(InvalidCubeState::OwnedCubeAtOne),
            CubeOwner::Centre if base_log2 > rules.automatic_doubles => {
                return Err(InvalidCubeState::CentredCubeTurned);
            }
            _ => {}
        }
        if let Some(doubler) = self.original_doubler()
            && !self.owner.is_available_to(doubler)
        {
            return Err(InvalidCubeState::OfferByNonOwner);
        }
        if self.offered_by.is_some() && self.resignation.is_some() {
            return Err(InvalidCubeState::DoubleAndResignation);
        }
        Ok(())
    }

    /// Whether `player` may offer a double now, as far as the cube and the
    /// match say (that it is their turn, before rolling, is the position's
    /// business).
    ///
    /// # Errors
    /// The reason the double is refused, or the state is invalid, as
    /// [`CubeState::apply`].
    pub fn may_double(
        &self,
        player: Player,
        match_state: &MatchState,
        rules: &CubeRules,
    ) -> Result<(), CubeError> {
        self.check(player, CubeAction::Double, match_state, rules)
    }

    /// Whether `player` may take `action` now.
    ///
    /// # Errors
    /// As [`CubeState::apply`].
    pub fn check(
        &self,
        player: Player,
        action: CubeAction,
        match_state: &MatchState,
        rules: &CubeRules,
    ) -> Result<(), CubeError> {
        self.apply(player, action, match_state, rules).map(|_| ())
    }

    /// `player` takes `action`: the new state, or the end of the game with
    /// its score (for a pass or an accepted resignation).
    ///
    /// - `Double`: no decision pending, not the Crawford game, the cube
    ///   centred or `player`'s, and twice the value within the maximum.
    /// - `Take` / `Pass`: a double pending and `player` the one to answer.
    /// - `Beaver` / `Raccoon`: as `Take`, in money play with beavers enabled
    ///   and the limit not reached; a beaver answers a double or a raccoon,
    ///   a raccoon answers a beaver; twice the taken value within the
    ///   maximum.
    /// - `Resign(level)`: no decision pending; either player may resign.
    /// - `Accept` / `Reject`: a resignation pending and `player` the one to
    ///   answer it.
    ///
    /// # Errors
    /// An invalid state first (see [`CubeState::validate`]), then the
    /// refusal, checked in this order: for a double
    /// [`CubeRefusal::DoubleAlreadyOffered`],
    /// [`CubeRefusal::ResignationAlreadyOffered`], [`CubeRefusal::CrawfordGame`],
    /// [`CubeRefusal::NotYourCube`], [`CubeRefusal::CubeAtMaximum`]; for an
    /// answer [`CubeRefusal::NoDoubleOffered`] (or
    /// [`CubeRefusal::NoResignationOffered`]), [`CubeRefusal::NotYourTurnToAct`];
    /// for a beaver or raccoon then [`CubeRefusal::BeaversInMatchPlay`],
    /// [`CubeRefusal::BeaversDisabled`], [`CubeRefusal::RaccoonExpected`] or
    /// [`CubeRefusal::NoBeaverToRaccoon`], [`CubeRefusal::BeaverLimitReached`],
    /// [`CubeRefusal::CubeAtMaximum`]; for a resignation
    /// [`CubeRefusal::DoubleAlreadyOffered`],
    /// [`CubeRefusal::ResignationAlreadyOffered`].
    pub fn apply(
        self,
        player: Player,
        action: CubeAction,
        match_state: &MatchState,
        rules: &CubeRules,
    ) -> Result<CubeOutcome, CubeError> {
        self.validate(match_state, rules)?;
        let rules = rules.effective(match_state);
        match action {
            CubeAction::Double => {
                if self.offered_by.is_some() {
                    return Err(CubeError::Refused(CubeRefusal::DoubleAlreadyOffered));
                }
                if self.resignation.is_some() {
                    return Err(CubeError::Refused(CubeRefusal::ResignationAlreadyOffered));
                }
                if match_state.crawford {
                    return Err(CubeError::Refused(CubeRefusal::CrawfordGame));
                }
                if !self.owner.is_available_to(player) {
                    return Err(CubeError::Refused(CubeRefusal::NotYourCube));
                }
                if self.value.doubled().is_none_or(|v| v > rules.max_cube) {
                    return Err(CubeError::Refused(CubeRefusal::CubeAtMaximum));
                }
                Ok(CubeOutcome::Continue(CubeState {
                    offered_by: Some(player),
                    beavers: 0,
                    ..self
                }))
            }
            CubeAction::Take | CubeAction::Pass | CubeAction::Beaver | CubeAction::Raccoon => {
                let (Some(last), Some(doubler)) = (self.offered_by, self.original_doubler()) else {
                    return Err(CubeError::Refused(CubeRefusal::NoDoubleOffered));
                };
                if player == last {
                    return Err(CubeError::Refused(CubeRefusal::NotYourTurnToAct));
                }
                // `validate` guarantees the doubled value exists and fits.
                let taken = self.value.doubled().unwrap_or(self.value);
                match action {
                    CubeAction::Take => Ok(CubeOutcome::Continue(CubeState {
                        value: taken,
                        owner: CubeOwner::Player(!doubler),
                        offered_by: None,
                        beavers: 0,
                        resignation: None,
                    })),
                    CubeAction::Pass => {
                        let end = GameEnd::Pass { winner: last };
                        score_game(end, &self, match_state, &rules).map(CubeOutcome::GameOver)
                    }
                    _ => {
                        if !match_state.is_money() {
                            return Err(CubeError::Refused(CubeRefusal::BeaversInMatchPlay));
                        }
                        if rules.beavers == 0 {
                            return Err(CubeError::Refused(CubeRefusal::BeaversDisabled));
                        }
                        let beaver_turn = self.beavers.is_multiple_of(2);
                        match action {
                            CubeAction::Beaver if !beaver_turn => {
                                return Err(CubeError::Refused(CubeRefusal::RaccoonExpected));
                            }
                            CubeAction::Raccoon if beaver_turn => {
                                return Err(CubeError::Refused(CubeRefusal::NoBeaverToRaccoon));
                            }
                            _ => {}
                        }
                        if self.beavers >= rules.beavers {
                            return Err(CubeError::Refused(CubeRefusal::BeaverLimitReached));
                        }
                        if taken.doubled().is_none_or(|v| v > rules.max_cube) {
                            return Err(CubeError::Refused(CubeRefusal::CubeAtMaximum));
                        }
                        Ok(CubeOutcome::Continue(CubeState {
                            value: taken,
                            offered_by: Some(player),
                            beavers: self.beavers + 1,
                            ..self
                        }))
                    }
                }
            }
            CubeAction::Resign(level) => {
                if self.offered_by.is_some() {
                    return Err(CubeError::Refused(CubeRefusal::DoubleAlreadyOffered));
                }
                if self.resignation.is_some() {
                    return Err(CubeError::Refused(CubeRefusal::ResignationAlreadyOffered));
                }
                Ok(CubeOutcome::Continue(CubeState {
                    resignation: Some(Resignation { by: player, level }),
                    ..self
                }))
            }
            CubeAction::Accept | CubeAction::Reject => {
                let Some(resignation) = self.resignation else {
                    return Err(CubeError::Refused(CubeRefusal::NoResignationOffered));
                };
                if player == resignation.by {
                    return Err(CubeError::Refused(CubeRefusal::NotYourTurnToAct));
                }
                if action == CubeAction::Reject {
                    return Ok(CubeOutcome::Continue(CubeState {
                        resignation: None,
                        ..self
                    }));
                }
                let end = GameEnd::Resign {
                    winner: player,
                    level: resignation.level,
                };
                score_game(end, &self, match_state, &rules).map(CubeOutcome::GameOver)
            }
        }
    }
}

/// Scores a finished game played with `cube` under `match_state` and
/// `rules`.
///
/// Points are the result (1, 2 or 3) times the cube value:
/// - bear-off: the result found on the board (computed by the position);
/// - pass: the doubler wins the cube value *before* the refused double
///   ([`CubeState::value`] during an offer is exactly that), a single;
/// - resignation: the resigned level times the cube.
///
/// Jacoby rule (money play, [`CubeRules::jacoby`]): while the cube is
/// centred (never turned; a cube raised only by automatic doubles stays
/// centred, as in gnubg), gammons and backgammons count as single. It is
/// applied to bear-offs and to accepted resignations alike: a resigned
/// gammon on a centred cube is worth a single. [`GameScore::result`] keeps
/// the result as it happened and [`GameScore::jacoby`] says when the rule
/// reduced it. Match play adds the points in full to the score (no capping
/// at the match length, as gnubg does).
///
/// ```
/// use bgref_core::{CubeRules, CubeState, GameEnd, GameResult, MatchState, Player, score_game};
///
/// let end = GameEnd::BearOff { winner: Player::O, result: GameResult::Gammon };
/// let score = score_game(end, &CubeState::START, &MatchState::new_match(5), &CubeRules::DEFAULT)?;
/// assert_eq!(score.points, 2);
/// assert_eq!(score.match_outcome.score.o, 2);
/// # Ok::<_, bgref_core::CubeError>(())
/// ```
///
/// # Errors
/// [`CubeError::InvalidState`] for an inconsistent cube or match state
/// ([`CubeState::validate`]), and [`CubeRefusal::CrawfordGame`] for a pass
/// in the Crawford game, where no double can have been offered.
pub fn score_game(
    end: GameEnd,
    cube: &CubeState,
    match_state: &MatchState,
    rules: &CubeRules,
) -> Result<GameScore, CubeError> {
    cube.validate(match_state, rules)?;
    if matches!(end, GameEnd::Pass { .. }) && match_state.crawford {
        return Err(CubeError::Refused(CubeRefusal::CrawfordGame));
    }
    Ok(GameScore::compute(
        end,
        cube.value,
        cube.owner,
        match_state,
        rules,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::value::{InvalidCubeValue, ParseCubeOwnerError};
    use super::*;
    use crate::player::ByPlayer;
    use alloc::string::ToString;

    const MONEY: MatchState = MatchState::MONEY;

    fn rules(beavers: u8) -> CubeRules {
        CubeRules {
            beavers,
            ..CubeRules::DEFAULT
        }
    }

    fn next(state: CubeState, player: Player, action: CubeAction, rules: &CubeRules) -> CubeState {
        match state.apply(player, action, &MONEY, rules) {
            Ok(CubeOutcome::Continue(state)) => state,
            other => panic!("{action} by {player}: {other:?}"),
        }
    }

    #[test]
    fn cube_value() {
        assert_eq!(CubeValue::try_from(64u32), Ok(CubeValue::SIXTY_FOUR));
        assert_eq!(CubeValue::new(32768), CubeValue::MAX);
        assert_eq!(CubeValue::MAX.doubled(), None);
        assert_eq!(CubeValue::ONE.doubled().map(CubeValue::get), Some(2));
        for bad in [0u32, 3, 6, 65536, u32::MAX] {
            assert_eq!(CubeValue::try_from(bad), Err(InvalidCubeValue));
        }
        assert_eq!(CubeValue::from_log2(16), None);
        assert_eq!(CubeValue::new(8).log2(), 3);
        assert_eq!(CubeValue::new(8).to_string(), "8");
    }

    #[test]
    fn owner_and_action_text() {
        assert_eq!("centre".parse(), Ok(CubeOwner::Centre));
        assert_eq!("center".parse(), Ok(CubeOwner::Centre));
        assert_eq!("o".parse(), Ok(CubeOwner::Player(Player::O)));
        assert_eq!("middle".parse::<CubeOwner>(), Err(ParseCubeOwnerError));
        assert_eq!(CubeOwner::Player(Player::X).to_string(), "x");
        for action in [
            CubeAction::Double,
            CubeAction::Take,
            CubeAction::Pass,
            CubeAction::Beaver,
            CubeAction::Raccoon,
            CubeAction::Resign(GameResult::Gammon),
            CubeAction::Accept,
            CubeAction::Reject,
        ] {
            assert_eq!(action.to_string().parse(), Ok(action));
        }
        assert_eq!("drop".parse(), Ok(CubeAction::Pass));
        assert_eq!(
            "resign-backgammon".parse(),
            Ok(CubeAction::Resign(GameResult::Backgammon))
        );
        assert!("resign".parse::<CubeAction>().is_err());
        assert!("Double".parse::<CubeAction>().is_err());
    }

    #[test]
    fn double_take_redouble_pass() {
        let r = CubeRules::DEFAULT;
        let offered = next(CubeState::START, Player::X, CubeAction::Double, &r);
        assert_eq!(offered.offered_by, Some(Player::X));
        assert_eq!(offered.value, CubeValue::ONE);
        assert_eq!(offered.to_act(), Some(Player::O));
        assert_eq!(
            offered.check(Player::X, CubeAction::Take, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::NotYourTurnToAct))
        );
        assert_eq!(
            offered.check(Player::O, CubeAction::Double, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::DoubleAlreadyOffered))
        );
        let taken = next(offered, Player::O, CubeAction::Take, &r);
        assert_eq!(taken.value.get(), 2);
        assert_eq!(taken.owner, CubeOwner::Player(Player::O));
        assert_eq!(
            taken.may_double(Player::X, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::NotYourCube))
        );
        let redoubled = next(taken, Player::O, CubeAction::Double, &r);
        match redoubled.apply(Player::X, CubeAction::Pass, &MONEY, &r) {
            Ok(CubeOutcome::GameOver(score)) => {
                assert_eq!(score.winner, Player::O);
                assert_eq!(score.points, 2);
                assert_eq!(score.result, GameResult::Single);
                assert_eq!(score.match_outcome.score, ByPlayer { x: 0, o: 2 });
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            taken.check(Player::X, CubeAction::Pass, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::NoDoubleOffered))
        );
    }

    #[test]
    fn beaver_and_raccoon() {
        let r = rules(2);
        let offered = next(CubeState::START, Player::X, CubeAction::Double, &r);
        assert_eq!(
            offered.check(Player::O, CubeAction::Raccoon, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::NoBeaverToRaccoon))
        );
        let beavered = next(offered, Player::O, CubeAction::Beaver, &r);
        assert_eq!(beavered.value.get(), 2);
        assert_eq!(beavered.offered_by, Some(Player::O));
        assert_eq!(beavered.original_doubler(), Some(Player::X));
        assert_eq!(
            beavered.check(Player::X, CubeAction::Beaver, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::RaccoonExpected))
        );
        // The original doubler may drop the beaver: the beaverer wins 2.
        match beavered.apply(Player::X, CubeAction::Pass, &MONEY, &r) {
            Ok(CubeOutcome::GameOver(score)) => {
                assert_eq!((score.winner, score.points), (Player::O, 2));
            }
            other => panic!("{other:?}"),
        }
        let took_beaver = next(beavered, Player::X, CubeAction::Take, &r);
        assert_eq!(took_beaver.value.get(), 4);
        assert_eq!(took_beaver.owner, CubeOwner::Player(Player::O));
        let raccooned = next(beavered, Player::X, CubeAction::Raccoon, &r);
        assert_eq!((raccooned.value.get(), raccooned.beavers), (4, 2));
        assert_eq!(
            raccooned.check(Player::O, CubeAction::Beaver, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::BeaverLimitReached))
        );
        let taken = next(raccooned, Player::O, CubeAction::Take, &r);
        assert_eq!(taken.value.get(), 8);
        assert_eq!(taken.owner, CubeOwner::Player(Player::O));
        assert_eq!((taken.offered_by, taken.beavers), (None, 0));
    }

    #[test]
    fn beavers_off_and_in_match_play() {
        let offered = CubeState {
            offered_by: Some(Player::X),
            ..CubeState::START
        };
        assert_eq!(
            offered.check(Player::O, CubeAction::Beaver, &MONEY, &rules(0)),
            Err(CubeError::Refused(CubeRefusal::BeaversDisabled))
        );
        let five = MatchState::new_match(5);
        assert_eq!(
            offered.check(Player::O, CubeAction::Beaver, &five, &rules(3)),
            Err(CubeError::Refused(CubeRefusal::BeaversInMatchPlay))
        );
    }

    #[test]
    fn resignations() {
        let r = CubeRules::DEFAULT;
        let resign = CubeAction::Resign(GameResult::Gammon);
        let offered = next(CubeState::START, Player::O, resign, &r);
        assert_eq!(offered.to_act(), Some(Player::X));
        assert_eq!(
            offered.check(Player::O, CubeAction::Accept, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::NotYourTurnToAct))
        );
        assert_eq!(
            offered.check(Player::X, CubeAction::Double, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::ResignationAlreadyOffered))
        );
        assert_eq!(
            offered.check(Player::X, resign, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::ResignationAlreadyOffered))
        );
        assert_eq!(
            next(offered, Player::X, CubeAction::Reject, &r),
            CubeState::START
        );
        match offered.apply(Player::X, CubeAction::Accept, &MONEY, &r) {
            Ok(CubeOutcome::GameOver(score)) => {
                assert_eq!((score.winner, score.points), (Player::X, 2));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            CubeState::START.check(Player::X, CubeAction::Reject, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::NoResignationOffered))
        );
        let doubled = next(CubeState::START, Player::X, CubeAction::Double, &r);
        assert_eq!(
            doubled.check(Player::O, resign, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::DoubleAlreadyOffered))
        );
    }

    #[test]
    fn maximum_and_automatic_doubles() {
        let r = CubeRules {
            automatic_doubles: 3,
            max_cube: CubeValue::new(4),
            ..CubeRules::DEFAULT
        };
        assert_eq!(CubeState::for_new_game(0, &MONEY, &r).value.get(), 1);
        assert_eq!(CubeState::for_new_game(1, &MONEY, &r).value.get(), 2);
        // Three ties allowed, but the maximum is 4.
        let capped = CubeState::for_new_game(5, &MONEY, &r);
        assert_eq!((capped.value.get(), capped.owner), (4, CubeOwner::Centre));
        assert_eq!(capped.validate(&MONEY, &r), Ok(()));
        assert_eq!(
            capped.may_double(Player::X, &MONEY, &r),
            Err(CubeError::Refused(CubeRefusal::CubeAtMaximum))
        );
        let five = MatchState::new_match(5);
        assert_eq!(CubeState::for_new_game(2, &five, &r), CubeState::START);
    }

    #[test]
    fn automatic_doubles_start_a_valid_centred_cube() {
        for limit in 0..=4u8 {
            let r = CubeRules {
                automatic_doubles: limit,
                ..CubeRules::DEFAULT
            };
            for ties in 0..=6u32 {
                let cube = CubeState::for_new_game(ties, &MONEY, &r);
                let expected = 1u32 << ties.min(u32::from(limit));
                assert_eq!(cube.value.get(), expected, "limit {limit} ties {ties}");
                assert_eq!(cube.owner, CubeOwner::Centre);
                assert_eq!(
                    cube.validate(&MONEY, &r),
                    Ok(()),
                    "limit {limit} ties {ties}"
                );
                // Either player may still double the centred cube.
                for player in Player::ALL {
                    assert_eq!(cube.may_double(player, &MONEY, &r), Ok(()));
                }
                // And a double on it, taken, leaves an owned cube.
                let offered = next(cube, Player::X, CubeAction::Double, &r);
                assert_eq!(offered.validate(&MONEY, &r), Ok(()));
                let taken = next(offered, Player::O, CubeAction::Take, &r);
                assert_eq!(taken.value.get(), expected * 2);
                assert_eq!(taken.owner, CubeOwner::Player(Player::O));
            }
        }
        // A centred cube beyond the limit is still an invalid state.
        let r = CubeRules {
            automatic_doubles: 1,
            ..CubeRules::DEFAULT
        };
        let four = CubeState {
            value: CubeValue::new(4),
            ..CubeState::START
        };
        assert_eq!(
            four.validate(&MONEY, &r),
            Err(InvalidCubeState::CentredCubeTurned)
        );
        // Match play: never, whatever the rules say.
        let seven = MatchState::new_match(7);
        let r = CubeRules {
            automatic_doubles: 3,
            ..CubeRules::DEFAULT
        };
        assert_eq!(r.opening_cube(2, &seven), CubeValue::ONE);
        let two = CubeState {
            value: CubeValue::new(2),
            ..CubeState::START
        };
        assert_eq!(
            two.validate(&seven, &r),
            Err(InvalidCubeState::CentredCubeTurned)
        );
        // The maximum caps the opening cube.
        let capped = CubeRules {
            automatic_doubles: 10,
            max_cube: CubeValue::new(8),
            ..CubeRules::DEFAULT
        };
        assert_eq!(capped.opening_cube(9, &MONEY).get(), 8);
    }

    #[test]
    fn invalid_states() {
        let r = CubeRules::DEFAULT;
        let owned_one = CubeState {
            owner: CubeOwner::Player(Player::X),
            ..CubeState::START
        };
        assert_eq!(
            owned_one.validate(&MONEY, &r),
            Err(InvalidCubeState::OwnedCubeAtOne)
        );
        let centred_two = CubeState {
            value: CubeValue::new(2),
            ..CubeState::START
        };
        assert_eq!(
            centred_two.validate(&MONEY, &r),
            Err(InvalidCubeState::CentredCubeTurned)
        );
        let too_big = CubeState {
            value: CubeValue::new(128),
            owner: CubeOwner::Player(Player::O),
            ..CubeState::START
        };
        assert_eq!(
            too_big.validate(&MONEY, &r),
            Err(InvalidCubeState::CubeAboveMaximum)
        );
        let bad_offer = CubeState {
            value: CubeValue::new(2),
            owner: CubeOwner::Player(Player::O),
            offered_by: Some(Player::X),
            ..CubeState::START
        };
        assert_eq!(
            bad_offer.validate(&MONEY, &r),
            Err(InvalidCubeState::OfferByNonOwner)
        );
        assert_eq!(
            bad_offer.check(Player::O, CubeAction::Take, &MONEY, &r),
            Err(CubeError::InvalidState(InvalidCubeState::OfferByNonOwner))
        );
        let stray_beavers = CubeState {
            beavers: 1,
            ..CubeState::START
        };
        assert_eq!(
            stray_beavers.validate(&MONEY, &rules(1)),
            Err(InvalidCubeState::BeaversWithoutDouble)
        );
        let both = CubeState {
            offered_by: Some(Player::X),
            resignation: Some(Resignation {
                by: Player::X,
                level: GameResult::Single,
            }),
            ..CubeState::START
        };
        assert_eq!(
            both.validate(&MONEY, &r),
            Err(InvalidCubeState::DoubleAndResignation)
        );
        let crawford = MatchState {
            length: 5,
            score: ByPlayer { x: 4, o: 2 },
            crawford: true,
        };
        assert_eq!(
            bad_offer.validate(&crawford, &r),
            Err(InvalidCubeState::CubeTurnedInCrawfordGame)
        );
    }

    #[test]
    fn crawford_game_forbids_doubling() {
        let r = CubeRules::DEFAULT;
        let crawford = MatchState {
            length: 5,
            score: ByPlayer { x: 1, o: 4 },
            crawford: true,
        };
        for player in Player::ALL {
            assert_eq!(
                CubeState::START.may_double(player, &crawford, &r),
                Err(CubeError::Refused(CubeRefusal::CrawfordGame))
            );
        }
        let post = MatchState {
            crawford: false,
            score: ByPlayer { x: 2, o: 4 },
            ..crawford
        };
        for player in Player::ALL {
            assert_eq!(CubeState::START.may_double(player, &post, &r), Ok(()));
        }
    }

    #[test]
    fn every_reason_is_lower_case() {
        let invalid = [
            InvalidCubeState::Match(InvalidMatchState::MatchOver),
            InvalidCubeState::Match(InvalidMatchState::CrawfordInMoneyPlay),
            InvalidCubeState::Match(InvalidMatchState::CrawfordNotOneAway),
            InvalidCubeState::CubeAboveMaximum,
            InvalidCubeState::OwnedCubeAtOne,
            InvalidCubeState::CentredCubeTurned,
            InvalidCubeState::CubeTurnedInCrawfordGame,
            InvalidCubeState::BeaversWithoutDouble,
            InvalidCubeState::BeaverCountAboveLimit,
            InvalidCubeState::BeaversAboveCube,
            InvalidCubeState::OfferByNonOwner,
            InvalidCubeState::DoubleAndResignation,
        ];
        let all = CubeRefusal::ALL
            .into_iter()
            .map(CubeError::from)
            .chain(invalid.into_iter().map(CubeError::from));
        for error in all {
            let text = error.to_string();
            assert_eq!(text, text.to_lowercase(), "{error:?}");
        }
        assert_eq!(CubeRefusal::ALL.len(), 13);
    }

    #[test]
    fn refusal_slugs_are_stable() {
        let slugs: alloc::vec::Vec<&str> = CubeRefusal::ALL.iter().map(|r| r.slug()).collect();
        assert_eq!(
            slugs,
            [
                "not-your-cube",
                "crawford-game",
                "cube-at-maximum",
                "beavers-disabled",
                "beavers-in-match-play",
                "beaver-limit-reached",
                "raccoon-expected",
                "no-beaver-to-raccoon",
                "not-your-turn",
                "no-double-offered",
                "double-already-offered",
                "resignation-already-offered",
                "no-resignation-offered",
            ]
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn wire_form() {
        let cube: CubeState = serde_json::from_str(r#"{"value": 2, "owner": "o"}"#).unwrap();
        assert_eq!(cube.value.get(), 2);
        assert_eq!(cube.owner, CubeOwner::Player(Player::O));
        assert_eq!(
            (cube.offered_by, cube.beavers, cube.resignation),
            (None, 0, None)
        );
        let centre: CubeState = serde_json::from_str(
            r#"{"value": 1, "owner": "centre", "offered_by": "x", "beavers": 0}"#,
        )
        .unwrap();
        assert_eq!(centre.offered_by, Some(Player::X));
        assert!(serde_json::from_str::<CubeState>(r#"{"value": 3}"#).is_err());
        assert!(serde_json::from_str::<CubeState>(r#"{"owner": "middle"}"#).is_err());
        assert_eq!(
            serde_json::to_string(&centre).unwrap(),
            r#"{"value":1,"owner":"centre","offered_by":"x","beavers":0,"resignation":null}"#
        );
        let rules: CubeRules =
            serde_json::from_str(r#"{"jacoby": true, "max_cube": 256}"#).unwrap();
        assert_eq!(rules.max_cube.get(), 256);
        assert!(rules.jacoby);
        assert_eq!(rules.beavers, 0);
        let action: CubeAction = serde_json::from_str(r#""raccoon""#).unwrap();
        assert_eq!(action, CubeAction::Raccoon);
        let resign: CubeAction = serde_json::from_str(r#"{"resign": "gammon"}"#).unwrap();
        assert_eq!(resign, CubeAction::Resign(GameResult::Gammon));
    }
}

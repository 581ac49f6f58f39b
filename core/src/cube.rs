//! The doubling cube: its value and owner, the house rules that govern it
//! (Jacoby, beavers and raccoons, automatic doubles, maximum value), and the
//! cube and resignation actions, each either allowed, with the state it
//! leads to, or refused with the exact reason.
//!
//! The module is private; its items are re-exported at the crate root and
//! the model is documented on [`CubeState`].

use core::fmt;
use core::str::FromStr;

use crate::match_state::MatchState;
use crate::player::Player;
use crate::scoring::{GameEnd, GameResult, GameScore, score_game};

/// The number on the cube: a power of two from 1 to 32768 (2^15, the largest
/// value a gnubg Match ID can carry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u32", into = "u32"))]
#[repr(transparent)]
pub struct CubeValue(u8);

impl CubeValue {
    /// The cube at 1: the start of every game.
    pub const ONE: CubeValue = CubeValue(0);
    /// 64, the highest face of a physical cube and the default maximum.
    pub const SIXTY_FOUR: CubeValue = CubeValue(6);
    /// 32768 (2^15), the largest value this crate represents.
    pub const MAX: CubeValue = CubeValue(15);

    /// The cube showing `value`.
    ///
    /// # Panics
    /// When `value` is not a power of two from 1 to 32768; use
    /// `CubeValue::try_from` for input.
    #[must_use]
    #[track_caller]
    pub const fn new(value: u32) -> CubeValue {
        assert!(
            value.is_power_of_two() && value <= 1 << 15,
            "a cube value is a power of two from 1 to 32768"
        );
        CubeValue(value.trailing_zeros() as u8)
    }

    /// The cube showing 2^`log2`, or `None` when `log2` is above 15.
    #[must_use]
    pub const fn from_log2(log2: u8) -> Option<CubeValue> {
        if log2 <= CubeValue::MAX.0 {
            Some(CubeValue(log2))
        } else {
            None
        }
    }

    /// The value: 1, 2, 4, ... 32768.
    #[must_use]
    pub const fn get(self) -> u32 {
        1 << self.0
    }

    /// The base-2 logarithm of the value, 0 to 15 (what a Match ID stores).
    #[must_use]
    pub const fn log2(self) -> u8 {
        self.0
    }

    /// Twice this value, or `None` above [`CubeValue::MAX`].
    #[must_use]
    pub const fn doubled(self) -> Option<CubeValue> {
        CubeValue::from_log2(self.0 + 1)
    }
}

/// Error for a cube value that is not a power of two from 1 to 32768.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidCubeValue;

impl fmt::Display for InvalidCubeValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a cube value is a power of two from 1 to 32768")
    }
}

impl core::error::Error for InvalidCubeValue {}

impl TryFrom<u32> for CubeValue {
    type Error = InvalidCubeValue;
    fn try_from(value: u32) -> Result<CubeValue, InvalidCubeValue> {
        if value.is_power_of_two() && value <= CubeValue::MAX.get() {
            Ok(CubeValue(value.trailing_zeros() as u8))
        } else {
            Err(InvalidCubeValue)
        }
    }
}

impl TryFrom<u64> for CubeValue {
    type Error = InvalidCubeValue;
    fn try_from(value: u64) -> Result<CubeValue, InvalidCubeValue> {
        u32::try_from(value)
            .map_err(|_| InvalidCubeValue)?
            .try_into()
    }
}

impl From<CubeValue> for u32 {
    fn from(value: CubeValue) -> u32 {
        value.get()
    }
}

impl fmt::Display for CubeValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.get())
    }
}

/// Who holds the cube: the centre (either player may double) or the one
/// player who may redouble. On the wire: `"centre"`, `"x"` or `"o"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(from = "CubeOwnerRepr", into = "CubeOwnerRepr")
)]
pub enum CubeOwner {
    /// In the middle: either player may double.
    #[default]
    Centre,
    /// On this player's side: only they may redouble.
    Player(Player),
}

/// The flat wire form of [`CubeOwner`].
#[cfg(feature = "serde")]
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum CubeOwnerRepr {
    #[serde(alias = "center")]
    Centre,
    X,
    O,
}

#[cfg(feature = "serde")]
impl From<CubeOwnerRepr> for CubeOwner {
    fn from(repr: CubeOwnerRepr) -> CubeOwner {
        match repr {
            CubeOwnerRepr::Centre => CubeOwner::Centre,
            CubeOwnerRepr::X => CubeOwner::Player(Player::X),
            CubeOwnerRepr::O => CubeOwner::Player(Player::O),
        }
    }
}

#[cfg(feature = "serde")]
impl From<CubeOwner> for CubeOwnerRepr {
    fn from(owner: CubeOwner) -> CubeOwnerRepr {
        match owner {
            CubeOwner::Centre => CubeOwnerRepr::Centre,
            CubeOwner::Player(Player::X) => CubeOwnerRepr::X,
            CubeOwner::Player(Player::O) => CubeOwnerRepr::O,
        }
    }
}

impl CubeOwner {
    /// The owning player, or `None` for the centre.
    #[must_use]
    pub const fn player(self) -> Option<Player> {
        match self {
            CubeOwner::Centre => None,
            CubeOwner::Player(player) => Some(player),
        }
    }

    /// Whether the cube is in the middle.
    #[must_use]
    pub const fn is_centred(self) -> bool {
        matches!(self, CubeOwner::Centre)
    }

    /// Whether `player` holds the cube or it is centred, i.e. whether the
    /// cube is theirs to turn.
    #[must_use]
    pub fn is_available_to(self, player: Player) -> bool {
        match self {
            CubeOwner::Centre => true,
            CubeOwner::Player(owner) => owner == player,
        }
    }

    /// `"centre"`, `"x"` or `"o"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            CubeOwner::Centre => "centre",
            CubeOwner::Player(player) => player.as_str(),
        }
    }
}

impl From<Player> for CubeOwner {
    fn from(player: Player) -> CubeOwner {
        CubeOwner::Player(player)
    }
}

impl From<Option<Player>> for CubeOwner {
    fn from(player: Option<Player>) -> CubeOwner {
        player.map_or(CubeOwner::Centre, CubeOwner::Player)
    }
}

impl fmt::Display for CubeOwner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for a cube owner that is not `centre`, `x` or `o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseCubeOwnerError;

impl fmt::Display for ParseCubeOwnerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cube owner must be \"centre\", \"x\" or \"o\"")
    }
}

impl core::error::Error for ParseCubeOwnerError {}

impl FromStr for CubeOwner {
    type Err = ParseCubeOwnerError;
    /// Reads `centre` (or `center`), `x` or `o`; upper-case `X` and `O` too.
    fn from_str(s: &str) -> Result<CubeOwner, ParseCubeOwnerError> {
        match s {
            "centre" | "center" => Ok(CubeOwner::Centre),
            _ => s
                .parse::<Player>()
                .map(CubeOwner::Player)
                .map_err(|_| ParseCubeOwnerError),
        }
    }
}

/// The rule options for the cube. All money-play options are off by default
/// and are ignored in match play ([`CubeRules::effective`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct CubeRules {
    /// Jacoby rule (money only): gammons and backgammons count as single
    /// while the cube is centred, i.e. has never been turned (a cube raised
    /// by automatic doubles stays centred, so the rule still applies, as in
    /// gnubg).
    pub jacoby: bool,
    /// How many beavers and raccoons may be made on one double (money
    /// only): 0 disables them, 1 allows a beaver, 2 a beaver and a raccoon.
    pub beavers: u8,
    /// How many tied opening rolls double the centred cube (money only):
    /// 0 disables automatic doubles.
    pub automatic_doubles: u8,
    /// The highest value the cube may reach; 64 by default.
    pub max_cube: CubeValue,
}

impl CubeRules {
    /// No Jacoby, no beavers, no automatic doubles, cube up to 64.
    pub const DEFAULT: CubeRules = CubeRules {
        jacoby: false,
        beavers: 0,
        automatic_doubles: 0,
        max_cube: CubeValue::SIXTY_FOUR,
    };

    /// The rules as they apply under `match_state`: in match play Jacoby,
    /// beavers and automatic doubles are switched off; money play keeps
    /// them. The maximum cube applies in both.
    #[must_use]
    pub const fn effective(self, match_state: &MatchState) -> CubeRules {
        if match_state.is_money() {
            self
        } else {
            CubeRules {
                jacoby: false,
                beavers: 0,
                automatic_doubles: 0,
                max_cube: self.max_cube,
            }
        }
    }
}

impl Default for CubeRules {
    fn default() -> CubeRules {
        CubeRules::DEFAULT
    }
}

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

/// Why a cube or resignation action is refused, or why a cube state (or the
/// match state beside it) is inconsistent. [`CubeError::is_refusal`] tells
/// the two kinds apart. `Display` is a lower-case sentence fit for an API
/// `reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CubeError {
    // --- refusals: the state is valid, the action is not allowed ---
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
    // --- invalid states ---
    /// A score has reached the match length: the match is over.
    MatchOver,
    /// The Crawford flag is set in money play.
    CrawfordInMoneyPlay,
    /// The Crawford flag is set but not exactly one player is one point
    /// from winning the match (or the match is to 1 point).
    CrawfordNotOneAway,
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

impl CubeError {
    /// Whether this is a rules refusal of a valid request (`allowed: false`)
    /// rather than an inconsistent state.
    #[must_use]
    pub const fn is_refusal(self) -> bool {
        matches!(
            self,
            CubeError::NotYourCube
                | CubeError::CrawfordGame
                | CubeError::CubeAtMaximum
                | CubeError::BeaversDisabled
                | CubeError::BeaversInMatchPlay
                | CubeError::BeaverLimitReached
                | CubeError::RaccoonExpected
                | CubeError::NoBeaverToRaccoon
                | CubeError::NotYourTurnToAct
                | CubeError::NoDoubleOffered
                | CubeError::DoubleAlreadyOffered
                | CubeError::ResignationAlreadyOffered
                | CubeError::NoResignationOffered
        )
    }

    /// The lower-case reason, as `Display` writes it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            CubeError::NotYourCube => "not your cube: the opponent owns it",
            CubeError::CrawfordGame => "no doubling in the crawford game",
            CubeError::CubeAtMaximum => "the cube is at its maximum value",
            CubeError::BeaversDisabled => "beavers are not enabled",
            CubeError::BeaversInMatchPlay => "beavers and raccoons are not played in match play",
            CubeError::BeaverLimitReached => "beaver limit reached",
            CubeError::RaccoonExpected => "the original doubler answers a beaver with a raccoon",
            CubeError::NoBeaverToRaccoon => "there is no beaver to raccoon",
            CubeError::NotYourTurnToAct => "not your turn to act",
            CubeError::NoDoubleOffered => "no double is offered",
            CubeError::DoubleAlreadyOffered => "a double is already offered",
            CubeError::ResignationAlreadyOffered => "a resignation is already offered",
            CubeError::NoResignationOffered => "no resignation is offered",
            CubeError::MatchOver => "the match is over: a score has reached the match length",
            CubeError::CrawfordInMoneyPlay => "there is no crawford game in money play",
            CubeError::CrawfordNotOneAway => {
                "the crawford game needs exactly one player one point from winning the match"
            }
            CubeError::CubeAboveMaximum => "the cube value is above the maximum",
            CubeError::OwnedCubeAtOne => "an owned cube shows at least 2",
            CubeError::CentredCubeTurned => {
                "a centred cube above 1 needs automatic doubles in money play"
            }
            CubeError::CubeTurnedInCrawfordGame => "the cube cannot be turned in the crawford game",
            CubeError::BeaversWithoutDouble => "beavers are counted only while a double is offered",
            CubeError::BeaverCountAboveLimit => "more beavers and raccoons than the rules allow",
            CubeError::BeaversAboveCube => "the cube value is too low for the beavers counted",
            CubeError::OfferByNonOwner => {
                "the double was offered by a player who does not own the cube"
            }
            CubeError::DoubleAndResignation => "a double and a resignation cannot both be pending",
        }
    }
}

impl fmt::Display for CubeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::error::Error for CubeError {}

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
    /// `opening_ties` times: with automatic doubles (money play only) each
    /// tie doubles the centred cube, up to [`CubeRules::automatic_doubles`]
    /// times and never above [`CubeRules::max_cube`]. In match play, or with
    /// automatic doubles off, the cube starts at 1.
    #[must_use]
    pub fn for_new_game(
        opening_ties: u32,
        match_state: &MatchState,
        rules: &CubeRules,
    ) -> CubeState {
        let rules = rules.effective(match_state);
        let doublings = opening_ties.min(u32::from(rules.automatic_doubles));
        let log2 = doublings.min(u32::from(rules.max_cube.log2())) as u8;
        CubeState {
            value: CubeValue::from_log2(log2).unwrap_or(rules.max_cube),
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
    /// The first inconsistency found, one of the invalid-state variants of
    /// [`CubeError`]: the match state's ([`MatchState::validate`]), then
    /// [`CubeError::CubeAboveMaximum`] (the value, or the value a pending
    /// double would reach, is above the maximum),
    /// [`CubeError::CubeTurnedInCrawfordGame`],
    /// [`CubeError::BeaversWithoutDouble`], [`CubeError::BeaverCountAboveLimit`],
    /// [`CubeError::BeaversAboveCube`], [`CubeError::OwnedCubeAtOne`],
    /// [`CubeError::CentredCubeTurned`], [`CubeError::OfferByNonOwner`],
    /// [`CubeError::DoubleAndResignation`].
    pub fn validate(&self, match_state: &MatchState, rules: &CubeRules) -> Result<(), CubeError> {
        match_state.validate()?;
        let rules = rules.effective(match_state);
        if self.value > rules.max_cube {
            return Err(CubeError::CubeAboveMaximum);
        }
        if self.offered_by.is_some() && self.value.doubled().is_none_or(|v| v > rules.max_cube) {
            return Err(CubeError::CubeAboveMaximum);
        }
        if match_state.crawford
            && (self.value != CubeValue::ONE
                || !self.owner.is_centred()
                || self.offered_by.is_some())
        {
            return Err(CubeError::CubeTurnedInCrawfordGame);
        }
        if self.beavers > 0 && self.offered_by.is_none() {
            return Err(CubeError::BeaversWithoutDouble);
        }
        if self.beavers > rules.beavers {
            return Err(CubeError::BeaverCountAboveLimit);
        }
        // Each beaver or raccoon has already doubled the value: the owner
        // was settled at the value before the original double.
        let Some(base_log2) = self.value.log2().checked_sub(self.beavers) else {
            return Err(CubeError::BeaversAboveCube);
        };
        match self.owner {
            CubeOwner::Player(_) if base_log2 == 0 => return Err(CubeError::OwnedCubeAtOne),
            CubeOwner::Centre if base_log2 > rules.automatic_doubles => {
                return Err(CubeError::CentredCubeTurned);
            }
            _ => {}
        }
        if let Some(doubler) = self.original_doubler()
            && !self.owner.is_available_to(doubler)
        {
            return Err(CubeError::OfferByNonOwner);
        }
        if self.offered_by.is_some() && self.resignation.is_some() {
            return Err(CubeError::DoubleAndResignation);
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
    /// [`CubeError::DoubleAlreadyOffered`],
    /// [`CubeError::ResignationAlreadyOffered`], [`CubeError::CrawfordGame`],
    /// [`CubeError::NotYourCube`], [`CubeError::CubeAtMaximum`]; for an
    /// answer [`CubeError::NoDoubleOffered`] (or
    /// [`CubeError::NoResignationOffered`]), [`CubeError::NotYourTurnToAct`];
    /// for a beaver or raccoon then [`CubeError::BeaversInMatchPlay`],
    /// [`CubeError::BeaversDisabled`], [`CubeError::RaccoonExpected`] or
    /// [`CubeError::NoBeaverToRaccoon`], [`CubeError::BeaverLimitReached`],
    /// [`CubeError::CubeAtMaximum`]; for a resignation
    /// [`CubeError::DoubleAlreadyOffered`],
    /// [`CubeError::ResignationAlreadyOffered`].
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
                    return Err(CubeError::DoubleAlreadyOffered);
                }
                if self.resignation.is_some() {
                    return Err(CubeError::ResignationAlreadyOffered);
                }
                if match_state.crawford {
                    return Err(CubeError::CrawfordGame);
                }
                if !self.owner.is_available_to(player) {
                    return Err(CubeError::NotYourCube);
                }
                if self.value.doubled().is_none_or(|v| v > rules.max_cube) {
                    return Err(CubeError::CubeAtMaximum);
                }
                Ok(CubeOutcome::Continue(CubeState {
                    offered_by: Some(player),
                    beavers: 0,
                    ..self
                }))
            }
            CubeAction::Take | CubeAction::Pass | CubeAction::Beaver | CubeAction::Raccoon => {
                let (Some(last), Some(doubler)) = (self.offered_by, self.original_doubler()) else {
                    return Err(CubeError::NoDoubleOffered);
                };
                if player == last {
                    return Err(CubeError::NotYourTurnToAct);
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
                            return Err(CubeError::BeaversInMatchPlay);
                        }
                        if rules.beavers == 0 {
                            return Err(CubeError::BeaversDisabled);
                        }
                        let beaver_turn = self.beavers.is_multiple_of(2);
                        match action {
                            CubeAction::Beaver if !beaver_turn => {
                                return Err(CubeError::RaccoonExpected);
                            }
                            CubeAction::Raccoon if beaver_turn => {
                                return Err(CubeError::NoBeaverToRaccoon);
                            }
                            _ => {}
                        }
                        if self.beavers >= rules.beavers {
                            return Err(CubeError::BeaverLimitReached);
                        }
                        if taken.doubled().is_none_or(|v| v > rules.max_cube) {
                            return Err(CubeError::CubeAtMaximum);
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
                    return Err(CubeError::DoubleAlreadyOffered);
                }
                if self.resignation.is_some() {
                    return Err(CubeError::ResignationAlreadyOffered);
                }
                Ok(CubeOutcome::Continue(CubeState {
                    resignation: Some(Resignation { by: player, level }),
                    ..self
                }))
            }
            CubeAction::Accept | CubeAction::Reject => {
                let Some(resignation) = self.resignation else {
                    return Err(CubeError::NoResignationOffered);
                };
                if player == resignation.by {
                    return Err(CubeError::NotYourTurnToAct);
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

#[cfg(test)]
mod tests {
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
            Err(CubeError::NotYourTurnToAct)
        );
        assert_eq!(
            offered.check(Player::O, CubeAction::Double, &MONEY, &r),
            Err(CubeError::DoubleAlreadyOffered)
        );
        let taken = next(offered, Player::O, CubeAction::Take, &r);
        assert_eq!(taken.value.get(), 2);
        assert_eq!(taken.owner, CubeOwner::Player(Player::O));
        assert_eq!(
            taken.may_double(Player::X, &MONEY, &r),
            Err(CubeError::NotYourCube)
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
            Err(CubeError::NoDoubleOffered)
        );
    }

    #[test]
    fn beaver_and_raccoon() {
        let r = rules(2);
        let offered = next(CubeState::START, Player::X, CubeAction::Double, &r);
        assert_eq!(
            offered.check(Player::O, CubeAction::Raccoon, &MONEY, &r),
            Err(CubeError::NoBeaverToRaccoon)
        );
        let beavered = next(offered, Player::O, CubeAction::Beaver, &r);
        assert_eq!(beavered.value.get(), 2);
        assert_eq!(beavered.offered_by, Some(Player::O));
        assert_eq!(beavered.original_doubler(), Some(Player::X));
        assert_eq!(
            beavered.check(Player::X, CubeAction::Beaver, &MONEY, &r),
            Err(CubeError::RaccoonExpected)
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
            Err(CubeError::BeaverLimitReached)
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
            Err(CubeError::BeaversDisabled)
        );
        let five = MatchState::new_match(5);
        assert_eq!(
            offered.check(Player::O, CubeAction::Beaver, &five, &rules(3)),
            Err(CubeError::BeaversInMatchPlay)
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
            Err(CubeError::NotYourTurnToAct)
        );
        assert_eq!(
            offered.check(Player::X, CubeAction::Double, &MONEY, &r),
            Err(CubeError::ResignationAlreadyOffered)
        );
        assert_eq!(
            offered.check(Player::X, resign, &MONEY, &r),
            Err(CubeError::ResignationAlreadyOffered)
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
            Err(CubeError::NoResignationOffered)
        );
        let doubled = next(CubeState::START, Player::X, CubeAction::Double, &r);
        assert_eq!(
            doubled.check(Player::O, resign, &MONEY, &r),
            Err(CubeError::DoubleAlreadyOffered)
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
            Err(CubeError::CubeAtMaximum)
        );
        let five = MatchState::new_match(5);
        assert_eq!(CubeState::for_new_game(2, &five, &r), CubeState::START);
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
            Err(CubeError::OwnedCubeAtOne)
        );
        let centred_two = CubeState {
            value: CubeValue::new(2),
            ..CubeState::START
        };
        assert_eq!(
            centred_two.validate(&MONEY, &r),
            Err(CubeError::CentredCubeTurned)
        );
        let too_big = CubeState {
            value: CubeValue::new(128),
            owner: CubeOwner::Player(Player::O),
            ..CubeState::START
        };
        assert_eq!(
            too_big.validate(&MONEY, &r),
            Err(CubeError::CubeAboveMaximum)
        );
        let bad_offer = CubeState {
            value: CubeValue::new(2),
            owner: CubeOwner::Player(Player::O),
            offered_by: Some(Player::X),
            ..CubeState::START
        };
        assert_eq!(
            bad_offer.validate(&MONEY, &r),
            Err(CubeError::OfferByNonOwner)
        );
        assert_eq!(
            bad_offer.check(Player::O, CubeAction::Take, &MONEY, &r),
            Err(CubeError::OfferByNonOwner)
        );
        let stray_beavers = CubeState {
            beavers: 1,
            ..CubeState::START
        };
        assert_eq!(
            stray_beavers.validate(&MONEY, &rules(1)),
            Err(CubeError::BeaversWithoutDouble)
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
            Err(CubeError::DoubleAndResignation)
        );
        let crawford = MatchState {
            length: 5,
            score: ByPlayer { x: 4, o: 2 },
            crawford: true,
        };
        assert_eq!(
            bad_offer.validate(&crawford, &r),
            Err(CubeError::CubeTurnedInCrawfordGame)
        );
        assert!(!CubeError::OfferByNonOwner.is_refusal());
        assert!(CubeError::CrawfordGame.is_refusal());
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
                Err(CubeError::CrawfordGame)
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
        let all = [
            CubeError::NotYourCube,
            CubeError::CrawfordGame,
            CubeError::CubeAtMaximum,
            CubeError::BeaversDisabled,
            CubeError::BeaversInMatchPlay,
            CubeError::BeaverLimitReached,
            CubeError::RaccoonExpected,
            CubeError::NoBeaverToRaccoon,
            CubeError::NotYourTurnToAct,
            CubeError::NoDoubleOffered,
            CubeError::DoubleAlreadyOffered,
            CubeError::ResignationAlreadyOffered,
            CubeError::NoResignationOffered,
            CubeError::MatchOver,
            CubeError::CrawfordInMoneyPlay,
            CubeError::CrawfordNotOneAway,
            CubeError::CubeAboveMaximum,
            CubeError::OwnedCubeAtOne,
            CubeError::CentredCubeTurned,
            CubeError::CubeTurnedInCrawfordGame,
            CubeError::BeaversWithoutDouble,
            CubeError::BeaverCountAboveLimit,
            CubeError::BeaversAboveCube,
            CubeError::OfferByNonOwner,
            CubeError::DoubleAndResignation,
        ];
        for error in all {
            let text = error.to_string();
            assert_eq!(text, text.to_lowercase(), "{error:?}");
        }
        assert_eq!(all.iter().filter(|e| e.is_refusal()).count(), 13);
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

//! The cube itself: [`CubeValue`] (a power of two) and [`CubeOwner`] (the
//! centre or a player). Depends on nothing else in `cube`.

use core::fmt;
use core::str::FromStr;

use crate::player::Player;

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

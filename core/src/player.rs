//! The two sides, `x` and `o`, and a pair of values indexed by side.

use core::fmt;
use core::ops::{Index, IndexMut, Not};
use core::str::FromStr;

/// One of the two players, named as gnubg and eXtreme Gammon name them.
///
/// `x` is the player whose point numbers the `board` encoding and XGID use
/// (positive counts, upper-case XGID letters); `o` is the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[repr(u8)]
pub enum Player {
    /// The player called `x` (XGID's bottom player).
    X = 0,
    /// The player called `o` (XGID's top player).
    O = 1,
}

impl Player {
    /// Both players, `x` first.
    pub const ALL: [Player; 2] = [Player::X, Player::O];

    /// The lower-case name used on the wire: `'x'` or `'o'`.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Player::X => 'x',
            Player::O => 'o',
        }
    }

    /// The lower-case name as a string slice.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Player::X => "x",
            Player::O => "o",
        }
    }

    /// `a` for `x` and `b` for `o`.
    #[must_use]
    pub const fn fold<T: Copy>(self, x: T, o: T) -> T {
        match self {
            Player::X => x,
            Player::O => o,
        }
    }
}

impl Not for Player {
    type Output = Player;
    fn not(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error returned when a string is not `x` or `o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsePlayerError;

impl fmt::Display for ParsePlayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("player must be \"x\" or \"o\"")
    }
}

impl core::error::Error for ParsePlayerError {}

impl FromStr for Player {
    type Err = ParsePlayerError;
    fn from_str(s: &str) -> Result<Player, ParsePlayerError> {
        match s {
            "x" | "X" => Ok(Player::X),
            "o" | "O" => Ok(Player::O),
            _ => Err(ParsePlayerError),
        }
    }
}

/// A value for each player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ByPlayer<T> {
    /// The value for `x`.
    pub x: T,
    /// The value for `o`.
    pub o: T,
}

impl<T> ByPlayer<T> {
    /// Builds a pair from a function of the player.
    pub fn new_with(mut f: impl FnMut(Player) -> T) -> ByPlayer<T> {
        ByPlayer {
            x: f(Player::X),
            o: f(Player::O),
        }
    }

    /// The value for `player`.
    #[must_use]
    pub const fn get(&self, player: Player) -> &T {
        match player {
            Player::X => &self.x,
            Player::O => &self.o,
        }
    }

    /// The value for `player`, mutably.
    pub const fn get_mut(&mut self, player: Player) -> &mut T {
        match player {
            Player::X => &mut self.x,
            Player::O => &mut self.o,
        }
    }

    /// Swaps the two values.
    #[must_use]
    pub fn flip(self) -> ByPlayer<T> {
        ByPlayer {
            x: self.o,
            o: self.x,
        }
    }

    /// Applies `f` to both values.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByPlayer<U> {
        ByPlayer {
            x: f(self.x),
            o: f(self.o),
        }
    }
}

impl<T> Index<Player> for ByPlayer<T> {
    type Output = T;
    fn index(&self, player: Player) -> &T {
        self.get(player)
    }
}

impl<T> IndexMut<Player> for ByPlayer<T> {
    fn index_mut(&mut self, player: Player) -> &mut T {
        self.get_mut(player)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_and_parse() {
        assert_eq!(!Player::X, Player::O);
        assert_eq!(!!Player::O, Player::O);
        assert_eq!("o".parse::<Player>(), Ok(Player::O));
        assert!("y".parse::<Player>().is_err());
        let mut pair = ByPlayer { x: 1, o: 2 };
        pair[Player::O] += 5;
        assert_eq!(pair.flip(), ByPlayer { x: 7, o: 1 });
    }
}

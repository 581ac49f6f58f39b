//! A die and a roll of two dice.

use core::fmt;
use core::str::FromStr;

/// The face of one die, 1 to 6. With the `serde` feature: a number,
/// checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u8", into = "u8"))]
#[repr(transparent)]
pub struct Die(u8);

impl Die {
    /// Every face, 1 to 6.
    pub const ALL: [Die; 6] = [Die(1), Die(2), Die(3), Die(4), Die(5), Die(6)];

    /// The die showing `value`.
    ///
    /// # Panics
    /// When `value` is not 1 to 6.
    #[must_use]
    #[track_caller]
    pub const fn new(value: u8) -> Die {
        assert!(value >= 1 && value <= 6, "a die shows 1 to 6");
        Die(value)
    }

    /// The face value, 1 to 6.
    #[must_use]
    pub const fn get(self) -> u8 {
        self.0
    }
}

/// Error for a die value outside 1 to 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidDie;

impl fmt::Display for InvalidDie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a die shows 1 to 6")
    }
}

impl core::error::Error for InvalidDie {}

impl TryFrom<u8> for Die {
    type Error = InvalidDie;
    fn try_from(value: u8) -> Result<Die, InvalidDie> {
        if (1..=6).contains(&value) {
            Ok(Die(value))
        } else {
            Err(InvalidDie)
        }
    }
}

impl TryFrom<i64> for Die {
    type Error = InvalidDie;
    fn try_from(value: i64) -> Result<Die, InvalidDie> {
        u8::try_from(value).map_err(|_| InvalidDie)?.try_into()
    }
}

impl From<Die> for u8 {
    fn from(die: Die) -> u8 {
        die.0
    }
}

impl fmt::Display for Die {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A roll of two dice, kept in the order thrown. With the `serde` feature:
/// `[a, b]`, each checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "[u8; 2]", into = "[u8; 2]"))]
pub struct Dice {
    first: Die,
    second: Die,
}

impl Dice {
    /// The 21 distinct rolls, larger die first: 11, 21, 22, 31, ...
    pub const ALL_21: [Dice; 21] = {
        let mut out = [Dice {
            first: Die(1),
            second: Die(1),
        }; 21];
        let mut i = 0;
        let mut hi = 1;
        while hi <= 6 {
            let mut lo = 1;
            while lo <= hi {
                out[i] = Dice {
                    first: Die(hi),
                    second: Die(lo),
                };
                i += 1;
                lo += 1;
            }
            hi += 1;
        }
        out
    };

    /// A roll from two dice.
    #[must_use]
    pub const fn new(first: Die, second: Die) -> Dice {
        Dice { first, second }
    }

    /// The first die as thrown.
    #[must_use]
    pub const fn first(self) -> Die {
        self.first
    }

    /// The second die as thrown.
    #[must_use]
    pub const fn second(self) -> Die {
        self.second
    }

    /// The larger die.
    #[must_use]
    pub const fn high(self) -> Die {
        if self.first.0 >= self.second.0 {
            self.first
        } else {
            self.second
        }
    }

    /// The smaller die.
    #[must_use]
    pub const fn low(self) -> Die {
        if self.first.0 >= self.second.0 {
            self.second
        } else {
            self.first
        }
    }

    /// Whether both dice show the same face (played four times).
    #[must_use]
    pub const fn is_double(self) -> bool {
        self.first.0 == self.second.0
    }

    /// The two faces as thrown.
    #[must_use]
    pub const fn values(self) -> [u8; 2] {
        [self.first.0, self.second.0]
    }

    /// The single dice a turn plays: the face four times for a double,
    /// else the higher then the lower.
    pub(crate) fn to_play(self) -> alloc::vec::Vec<u8> {
        if self.is_double() {
            alloc::vec![self.first.0; 4]
        } else {
            alloc::vec![self.high().0, self.low().0]
        }
    }
}

/// Error for a roll that is not exactly two dice of 1 to 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidDice {
    /// Not exactly two dice.
    Count,
    /// A die outside 1 to 6.
    Face,
}

impl fmt::Display for InvalidDice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InvalidDice::Count => "a roll is exactly two dice",
            InvalidDice::Face => "a die shows 1 to 6",
        })
    }
}

impl core::error::Error for InvalidDice {}

impl TryFrom<[u8; 2]> for Dice {
    type Error = InvalidDice;
    fn try_from([a, b]: [u8; 2]) -> Result<Dice, InvalidDice> {
        let a = Die::try_from(a).map_err(|_| InvalidDice::Face)?;
        let b = Die::try_from(b).map_err(|_| InvalidDice::Face)?;
        Ok(Dice::new(a, b))
    }
}

impl From<Dice> for [u8; 2] {
    fn from(dice: Dice) -> [u8; 2] {
        dice.values()
    }
}

impl TryFrom<&[i64]> for Dice {
    type Error = InvalidDice;
    fn try_from(values: &[i64]) -> Result<Dice, InvalidDice> {
        let [a, b] = values else {
            return Err(InvalidDice::Count);
        };
        let a = Die::try_from(*a).map_err(|_| InvalidDice::Face)?;
        let b = Die::try_from(*b).map_err(|_| InvalidDice::Face)?;
        Ok(Dice::new(a, b))
    }
}

impl fmt::Display for Dice {
    /// Writes the two faces as thrown, e.g. `65`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.first, self.second)
    }
}

/// Error for text that is not a roll of two dice: `65`, `6-5`, `6,5` or
/// `6 5`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseDiceError {
    /// Not exactly two digits.
    Count,
    /// A die outside 1 to 6, or a character that is not a digit or a
    /// separator.
    Face,
}

impl fmt::Display for ParseDiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseDiceError::Count => "a roll is exactly two dice",
            ParseDiceError::Face => "a die shows 1 to 6",
        })
    }
}

impl core::error::Error for ParseDiceError {}

impl FromStr for Dice {
    type Err = ParseDiceError;
    /// Reads two digits, optionally separated by `-`, `,` or a space: `65`, `6-5`.
    fn from_str(s: &str) -> Result<Dice, ParseDiceError> {
        let digits: [u8; 2] = {
            let mut out = [0u8; 2];
            let mut n = 0;
            for c in s.trim().chars() {
                match c {
                    '-' | ',' | ' ' => {}
                    '0'..='9' => {
                        if n == 2 {
                            return Err(ParseDiceError::Count);
                        }
                        out[n] = c as u8 - b'0';
                        n += 1;
                    }
                    _ => return Err(ParseDiceError::Face),
                }
            }
            if n != 2 {
                return Err(ParseDiceError::Count);
            }
            out
        };
        let a = Die::try_from(digits[0]).map_err(|_| ParseDiceError::Face)?;
        let b = Die::try_from(digits[1]).map_err(|_| ParseDiceError::Face)?;
        Ok(Dice::new(a, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_21() {
        assert_eq!(Dice::ALL_21.iter().filter(|d| d.is_double()).count(), 6);
        assert_eq!(Dice::ALL_21[20].values(), [6, 6]);
        assert_eq!("6-5".parse::<Dice>().map(Dice::values), Ok([6, 5]));
        assert_eq!("07".parse::<Dice>(), Err(ParseDiceError::Face));
        assert_eq!("655".parse::<Dice>(), Err(ParseDiceError::Count));
        assert_eq!(Dice::try_from(&[1i64, 2, 3][..]), Err(InvalidDice::Count));
        assert_eq!(Dice::try_from(&[0i64, 2][..]), Err(InvalidDice::Face));
    }
}

//! Points from the mover's own view: 1 to 24, with the bar as 25 and off as 0.

use core::fmt;
use core::str::FromStr;

/// A place a checker can stand, numbered from the mover's own view, as
/// every backgammon program prints it: `0` is off (borne off), `1..=24` are
/// the points (1 is the last before bearing off), `25` is the bar.
///
/// With the `serde` feature: the number 0 to 25, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u8", into = "u8"))]
#[repr(transparent)]
pub struct Point(u8);

impl Point {
    /// Borne off.
    pub const OFF: Point = Point(0);
    /// The bar.
    pub const BAR: Point = Point(25);

    /// The point numbered `n` (0 = off, 25 = bar).
    ///
    /// # Panics
    /// When `n > 25`.
    #[must_use]
    #[track_caller]
    pub const fn new(n: u8) -> Point {
        assert!(n <= 25, "points are numbered 0 (off) to 25 (bar)");
        Point(n)
    }

    /// The number, 0 (off) to 25 (bar).
    #[must_use]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// Whether this is the bar.
    #[must_use]
    pub const fn is_bar(self) -> bool {
        self.0 == 25
    }

    /// Whether this is off the board.
    #[must_use]
    pub const fn is_off(self) -> bool {
        self.0 == 0
    }

    /// The same physical place as the other player numbers it (bar and off
    /// stay what they are).
    #[must_use]
    pub const fn flip(self) -> Point {
        match self.0 {
            0 | 25 => self,
            n => Point(25 - n),
        }
    }
}

/// Error for a point number outside 0 to 25.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidPoint;

impl fmt::Display for InvalidPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a point is 1 to 24, bar (25) or off (0)")
    }
}

impl core::error::Error for InvalidPoint {}

impl TryFrom<u8> for Point {
    type Error = InvalidPoint;
    fn try_from(n: u8) -> Result<Point, InvalidPoint> {
        if n <= 25 {
            Ok(Point(n))
        } else {
            Err(InvalidPoint)
        }
    }
}

impl TryFrom<i64> for Point {
    type Error = InvalidPoint;
    fn try_from(n: i64) -> Result<Point, InvalidPoint> {
        u8::try_from(n).map_err(|_| InvalidPoint)?.try_into()
    }
}

impl From<Point> for u8 {
    fn from(point: Point) -> u8 {
        point.0
    }
}

/// Each point's name, as [`Point`]'s `Display` writes it.
const NAMES: [&str; 26] = [
    "off", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
    "17", "18", "19", "20", "21", "22", "23", "24", "bar",
];

impl Point {
    /// `bar`, `off` or the number: what `Display` writes, without the
    /// formatting machinery.
    #[must_use]
    pub fn name(self) -> &'static str {
        NAMES[usize::from(self.0)]
    }
}

impl fmt::Display for Point {
    /// `bar`, `off` or the number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for text that is not `bar`, `off` or a number 0 to 25.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsePointError;

impl fmt::Display for ParsePointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a point is 1 to 24, bar (25) or off (0)")
    }
}

impl core::error::Error for ParsePointError {}

impl FromStr for Point {
    type Err = ParsePointError;
    /// Reads `bar`, `off` (any case) or a number 0 to 25.
    fn from_str(s: &str) -> Result<Point, ParsePointError> {
        if s.eq_ignore_ascii_case("bar") {
            Ok(Point::BAR)
        } else if s.eq_ignore_ascii_case("off") {
            Ok(Point::OFF)
        } else if !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()) {
            s.parse::<u8>()
                .ok()
                .and_then(|n| Point::try_from(n).ok())
                .ok_or(ParsePointError)
        } else {
            Err(ParsePointError)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn parse_and_display() {
        assert_eq!("bar".parse::<Point>(), Ok(Point::BAR));
        assert_eq!("Off".parse::<Point>(), Ok(Point::OFF));
        assert_eq!("13".parse::<Point>(), Ok(Point::new(13)));
        assert!("26".parse::<Point>().is_err());
        assert!("+1".parse::<Point>().is_err());
        assert_eq!(Point::new(13).flip(), Point::new(12));
        assert_eq!(Point::BAR.to_string(), "bar");
    }
}

//! eXtreme Gammon ID (XGID): the position plus cube, turn, dice, score and
//! match settings in one line.
//!
//! `XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10` has ten
//! colon-separated fields:
//! 1. 26 characters: o's bar, then x's points 1 to 24, then x's bar; `-`
//!    is empty, `A`..`O` count x's checkers (1 to 15), `a`..`o` o's.
//! 2. the cube value as a power of two (0 = 1);
//! 3. the cube owner: `0` centred, `1` x, `-1` o;
//! 4. the player on turn: `1` x, `-1` o;
//! 5. the dice: `00` not rolled, two digits once rolled, `D` a double
//!    offered, `B` beavered, `R` raccooned;
//! 6. and 7. x's and o's score;
//! 8. in a match `1` for the Crawford game; in money play bit 0 Jacoby,
//!    bit 1 beavers;
//! 9. the match length (0 = money play);
//! 10. the maximum cube as a power of two.
//!
//! x is XG's bottom player, o the top one, as in the `board` encoding.
//!
//! Parser leniency: the `XGID=` prefix and surrounding white space are
//! optional; the tenth field may be missing (then 10, XG's default); letters
//! up to `P`/`p` (16) are read so that the position check, not the parser,
//! reports too many checkers. Everything else must be as above. The writer
//! always emits the prefix and all ten fields.

use core::fmt;
use core::str::FromStr;

use crate::dice::{Dice, Die};
use crate::player::{ByPlayer, Player};
use crate::position::Position;
use crate::setup::Setup;

/// The dice field of an XGID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum XgidDice {
    /// `00`: not rolled yet.
    NotRolled,
    /// Two digits: the roll.
    Rolled(Dice),
    /// `D`: a double is offered.
    DoubleOffered,
    /// `B`: the double was beavered.
    Beavered,
    /// `R`: the beaver was raccooned.
    Raccooned,
}

/// Everything an XGID says.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Xgid {
    /// The checkers and the player on turn (no off counts: they follow from
    /// the variant).
    pub setup: Setup,
    /// The cube value as a power of two.
    pub cube_log2: u8,
    /// The cube owner, `None` when centred.
    pub cube_owner: Option<Player>,
    /// The dice field.
    pub dice: XgidDice,
    /// The score of each player.
    pub score: ByPlayer<u32>,
    /// Field 8: in a match 1 for the Crawford game; in money play bit 0
    /// Jacoby, bit 1 beavers.
    pub rules: u8,
    /// The match length; 0 for money play.
    pub match_length: u32,
    /// The maximum cube value as a power of two.
    pub max_cube_log2: u8,
}

/// Error for a string that is not an XGID, naming the bad field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseXgidError {
    /// Not 9 or 10 colon-separated fields.
    Fields,
    /// The position field is not 26 characters of `-`, `A`..`P`, `a`..`p`.
    Position,
    /// The cube value field.
    CubeValue,
    /// The cube owner field.
    CubeOwner,
    /// The turn field.
    Turn,
    /// The dice field.
    Dice,
    /// A score field.
    Score,
    /// The Crawford/Jacoby field.
    Rules,
    /// The match length field.
    MatchLength,
    /// The maximum cube field.
    MaxCube,
}

impl fmt::Display for ParseXgidError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseXgidError::Fields => "an XGID has 9 or 10 fields separated by ':'",
            ParseXgidError::Position => {
                "the XGID position is 26 characters of '-', 'A'-'O' (x) and 'a'-'o' (o)"
            }
            ParseXgidError::CubeValue => "the XGID cube value is a power of two from 0 to 15",
            ParseXgidError::CubeOwner => "the XGID cube owner is 0, 1 or -1",
            ParseXgidError::Turn => "the XGID turn is 1 or -1",
            ParseXgidError::Dice => "the XGID dice are 00, two dice 1-6, D, B or R",
            ParseXgidError::Score => "an XGID score is a number up to 32767",
            ParseXgidError::Rules => "the XGID Crawford/Jacoby field is 0 to 3",
            ParseXgidError::MatchLength => "the XGID match length is a number up to 32767",
            ParseXgidError::MaxCube => "the XGID maximum cube is a power of two from 0 to 15",
        })
    }
}

impl core::error::Error for ParseXgidError {}

impl Xgid {
    /// The XGID of a position with a centred 1-cube, no dice, money play and
    /// XG's default maximum cube (2^10).
    #[must_use]
    pub fn from_position(position: &Position) -> Xgid {
        Xgid {
            setup: position.to_setup(),
            cube_log2: 0,
            cube_owner: None,
            dice: XgidDice::NotRolled,
            score: ByPlayer { x: 0, o: 0 },
            rules: 0,
            match_length: 0,
            max_cube_log2: 10,
        }
    }
}

fn number(s: &str, max: u32) -> Option<u32> {
    if s.is_empty() || s.len() > 5 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u32>().ok().filter(|&n| n <= max)
}

fn sign(s: &str) -> Option<i8> {
    match s {
        "0" => Some(0),
        "1" => Some(1),
        "-1" => Some(-1),
        _ => None,
    }
}

impl FromStr for Xgid {
    type Err = ParseXgidError;
    fn from_str(s: &str) -> Result<Xgid, ParseXgidError> {
        let s = s.trim();
        let s = s.strip_prefix("XGID=").unwrap_or(s);
        let mut fields = [""; 10];
        let mut n = 0;
        for field in s.split(':') {
            if n == 10 {
                return Err(ParseXgidError::Fields);
            }
            fields[n] = field;
            n += 1;
        }
        if n < 9 {
            return Err(ParseXgidError::Fields);
        }
        let turn = match sign(fields[3]) {
            Some(1) => Player::X,
            Some(-1) => Player::O,
            _ => return Err(ParseXgidError::Turn),
        };
        let mut setup = Setup::empty(turn);
        let chars = fields[0].as_bytes();
        if chars.len() != 26 {
            return Err(ParseXgidError::Position);
        }
        for (i, &c) in chars.iter().enumerate() {
            let (player, count) = match c {
                b'-' => continue,
                b'A'..=b'P' => (Player::X, c - b'A' + 1),
                b'a'..=b'p' => (Player::O, c - b'a' + 1),
                _ => return Err(ParseXgidError::Position),
            };
            match (i, player) {
                (0, Player::O) => setup.bar.o = count,
                (25, Player::X) => setup.bar.x = count,
                (0 | 25, _) => return Err(ParseXgidError::Position),
                (p, Player::X) => setup.points.x[p - 1] = count,
                (p, Player::O) => setup.points.o[24 - p] = count,
            }
        }
        let cube_log2 = number(fields[1], 15).ok_or(ParseXgidError::CubeValue)? as u8;
        let cube_owner = match sign(fields[2]) {
            Some(0) => None,
            Some(1) => Some(Player::X),
            Some(-1) => Some(Player::O),
            _ => return Err(ParseXgidError::CubeOwner),
        };
        let dice = match fields[4].as_bytes() {
            b"00" => XgidDice::NotRolled,
            b"D" => XgidDice::DoubleOffered,
            b"B" => XgidDice::Beavered,
            b"R" => XgidDice::Raccooned,
            &[a, b] => {
                let die = |c: u8| {
                    c.checked_sub(b'0')
                        .and_then(|v| Die::try_from(v).ok())
                        .ok_or(ParseXgidError::Dice)
                };
                XgidDice::Rolled(Dice::new(die(a)?, die(b)?))
            }
            _ => return Err(ParseXgidError::Dice),
        };
        let score = ByPlayer {
            x: number(fields[5], 32767).ok_or(ParseXgidError::Score)?,
            o: number(fields[6], 32767).ok_or(ParseXgidError::Score)?,
        };
        let rules = number(fields[7], 3).ok_or(ParseXgidError::Rules)? as u8;
        let match_length = number(fields[8], 32767).ok_or(ParseXgidError::MatchLength)?;
        let max_cube_log2 = if n == 10 {
            number(fields[9], 15).ok_or(ParseXgidError::MaxCube)? as u8
        } else {
            10
        };
        Ok(Xgid {
            setup,
            cube_log2,
            cube_owner,
            dice,
            score,
            rules,
            match_length,
            max_cube_log2,
        })
    }
}

fn letter(count: u8, base: u8) -> char {
    match count {
        0 => '-',
        n => char::from(base + n.min(26) - 1),
    }
}

impl fmt::Display for Xgid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("XGID=")?;
        let setup = &self.setup;
        write!(f, "{}", letter(setup.bar.o, b'a'))?;
        for p in 1..=24usize {
            let x = setup.points.x[p - 1];
            let o = setup.points.o[24 - p];
            let c = if x > 0 {
                letter(x, b'A')
            } else {
                letter(o, b'a')
            };
            write!(f, "{c}")?;
        }
        write!(f, "{}", letter(setup.bar.x, b'A'))?;
        let owner = match self.cube_owner {
            None => 0,
            Some(Player::X) => 1,
            Some(Player::O) => -1,
        };
        let turn = setup.turn.fold(1, -1);
        write!(f, ":{}:{owner}:{turn}:", self.cube_log2)?;
        match self.dice {
            XgidDice::NotRolled => f.write_str("00")?,
            XgidDice::Rolled(d) => write!(f, "{}{}", d.first(), d.second())?,
            XgidDice::DoubleOffered => f.write_str("D")?,
            XgidDice::Beavered => f.write_str("B")?,
            XgidDice::Raccooned => f.write_str("R")?,
        }
        write!(
            f,
            ":{}:{}:{}:{}:{}",
            self.score.x, self.score.o, self.rules, self.match_length, self.max_cube_log2
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::Variant;
    use alloc::string::ToString;

    const START: &str = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10";

    #[test]
    fn start_round_trip() {
        let xgid: Xgid = START.parse().unwrap();
        let pos = Position::from_setup(&xgid.setup, Variant::Standard).unwrap();
        assert_eq!(pos, Position::start(Variant::Standard, Player::X));
        assert_eq!(Xgid::from_position(&pos).to_string(), START);
        assert_eq!(xgid.to_string(), START);
    }

    #[test]
    fn asymmetric() {
        // x: 2 on the bar, 13 on its 6-point; o: 1 on its 24-point (x's 1), 14 off.
        let s = "XGID=-a----M-------------------B:1:-1:-1:52:3:4:1:7:10";
        let err = s.parse::<Xgid>();
        assert_eq!(err, Err(ParseXgidError::Position));
        let s = "XGID=-a----M------------------B:1:-1:-1:52:3:4:1:7:10";
        let xgid: Xgid = s.parse().unwrap();
        assert_eq!(xgid.setup.bar.x, 2);
        assert_eq!(xgid.setup.points.x[5], 13);
        assert_eq!(xgid.setup.points.o[23], 1);
        assert_eq!(xgid.setup.turn, Player::O);
        assert_eq!(xgid.cube_owner, Some(Player::O));
        assert_eq!(
            xgid.dice,
            XgidDice::Rolled(Dice::new(Die::new(5), Die::new(2)))
        );
        assert_eq!(xgid.score, ByPlayer { x: 3, o: 4 });
        assert_eq!(xgid.to_string(), s);
    }

    #[test]
    fn rejects() {
        assert_eq!("".parse::<Xgid>(), Err(ParseXgidError::Fields));
        assert_eq!(
            "XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10".parse::<Xgid>(),
            Err(ParseXgidError::Turn)
        );
        assert_eq!(
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10".parse::<Xgid>(),
            Err(ParseXgidError::Dice)
        );
    }
}

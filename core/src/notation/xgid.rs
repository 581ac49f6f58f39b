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
//!    bit 1 beavers (read into [`Xgid::crawford`], [`Xgid::jacoby`] and
//!    [`Xgid::beavers`]);
//! 9. the match length (0 = money play);
//! 10. the maximum cube as a power of two.
//!
//! x is XG's bottom player, o the top one, as in the `board` encoding.
//!
//! Parser leniency: the `XGID=` prefix and surrounding white space are
//! optional; the tenth field may be missing (then 10, XG's default); letters
//! up to `P`/`p` (16) are read so that the position check, not the parser,
//! reports too many checkers; field 8 may be 0 to 3 in a match too (bit 1,
//! meaningless there, is dropped); a roll's two digits may come in either
//! order (kept as written: `52` and `25` are the same roll). Everything
//! else must be as above; in particular numbers have no leading zero
//! (`03` is refused), so every other value has one spelling. The
//! writer always emits the prefix and all ten fields; field 8 is written
//! from [`Xgid::crawford`] in a match and from [`Xgid::jacoby`] and
//! [`Xgid::beavers`] in money play (the flags of the other kind are not
//! written).
//!
//! The typed fields are what callers use: [`Xgid::cube_state`],
//! [`Xgid::match_state`], [`Xgid::cube_rules`] and [`Xgid::rolled_dice`]
//! turn them into the crate's vocabulary, so no caller decodes the bits.

use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::cube::{CubeOwner, CubeRules, CubeState, CubeValue, MatchState};
use crate::dice::{Dice, Die};
use crate::digits::Text;
use crate::player::{ByPlayer, Player};
use crate::position::Position;
use crate::setup::{BYTES, Setup, nonzero_bytes_mask};

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

/// Everything an XGID says, typed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Xgid {
    /// The checkers and the player on turn (no off counts: they follow from
    /// the variant).
    pub setup: Setup,
    /// The cube value.
    pub cube_value: CubeValue,
    /// The cube owner.
    pub cube_owner: CubeOwner,
    /// The dice field.
    pub dice: XgidDice,
    /// The score of each player.
    pub score: ByPlayer<u32>,
    /// Field 8 in a match: this game is the Crawford game.
    pub crawford: bool,
    /// Field 8 bit 0 in money play: the Jacoby rule is on.
    pub jacoby: bool,
    /// Field 8 bit 1 in money play: beavers are allowed.
    pub beavers: bool,
    /// The match length; 0 for money play.
    pub match_length: u32,
    /// The maximum cube value.
    pub max_cube: CubeValue,
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
    /// XG's default maximum cube, 1024 (written as 10).
    pub const DEFAULT_MAX_CUBE: CubeValue = CubeValue::new(1024);

    /// The XGID of a position with a centred 1-cube, no dice, money play and
    /// XG's default maximum cube (2^10).
    #[must_use]
    pub fn from_position(position: &Position) -> Xgid {
        Xgid::money(position.to_setup())
    }

    /// The XGID of `setup` with a centred 1-cube, no dice, money play and
    /// XG's default maximum cube (2^10).
    pub(crate) fn money(setup: Setup) -> Xgid {
        Xgid {
            setup,
            cube_value: CubeValue::ONE,
            cube_owner: CubeOwner::Centre,
            dice: XgidDice::NotRolled,
            score: ByPlayer { x: 0, o: 0 },
            crawford: false,
            jacoby: false,
            beavers: false,
            match_length: 0,
            max_cube: Xgid::DEFAULT_MAX_CUBE,
        }
    }

    /// Whether this is money play (match length 0).
    #[must_use]
    pub const fn is_money(&self) -> bool {
        self.match_length == 0
    }

    /// The cube: value and owner, nothing pending. (The `D`, `B` and `R`
    /// dice fields are not turned into a pending double: read
    /// [`Xgid::dice`] for them.)
    #[must_use]
    pub fn cube_state(&self) -> CubeState {
        CubeState {
            value: self.cube_value,
            owner: self.cube_owner,
            ..CubeState::START
        }
    }

    /// The match: length, score, and the Crawford flag (match play only).
    #[must_use]
    pub fn match_state(&self) -> MatchState {
        MatchState {
            length: self.match_length,
            score: self.score,
            crawford: !self.is_money() && self.crawford,
        }
    }

    /// The cube rules the XGID carries: Jacoby and beavers (one beaver, no
    /// raccoon) in money play only, and the maximum cube; no automatic
    /// doubles (an XGID cannot say).
    #[must_use]
    pub fn cube_rules(&self) -> CubeRules {
        let money = self.is_money();
        CubeRules {
            jacoby: money && self.jacoby,
            beavers: u8::from(money && self.beavers),
            automatic_doubles: 0,
            max_cube: self.max_cube,
        }
    }

    /// The roll, when the dice field holds one.
    #[must_use]
    pub const fn rolled_dice(&self) -> Option<Dice> {
        match self.dice {
            XgidDice::Rolled(dice) => Some(dice),
            _ => None,
        }
    }

    /// Field 8 as written: the Crawford flag in a match, Jacoby (bit 0) and
    /// beavers (bit 1) in money play.
    const fn rules_field(&self) -> u8 {
        if self.is_money() {
            self.jacoby as u8 | (self.beavers as u8) << 1
        } else {
            self.crawford as u8
        }
    }
}

/// A number field: decimal digits without a leading zero (so each value has
/// one spelling), at most `max`.
fn number(s: &str, max: u32) -> Option<u32> {
    if s.is_empty()
        || s.len() > 5
        || (s.len() > 1 && s.starts_with('0'))
        || !s.bytes().all(|b| b.is_ascii_digit())
    {
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
        let cube_value = number(fields[1], 15)
            .and_then(|log2| CubeValue::from_log2(log2 as u8))
            .ok_or(ParseXgidError::CubeValue)?;
        let cube_owner = match sign(fields[2]) {
            Some(0) => CubeOwner::Centre,
            Some(1) => CubeOwner::Player(Player::X),
            Some(-1) => CubeOwner::Player(Player::O),
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
        let max_cube = if n == 10 {
            number(fields[9], 15)
                .and_then(|log2| CubeValue::from_log2(log2 as u8))
                .ok_or(ParseXgidError::MaxCube)?
        } else {
            Xgid::DEFAULT_MAX_CUBE
        };
        let money = match_length == 0;
        Ok(Xgid {
            setup,
            cube_value,
            cube_owner,
            dice,
            score,
            crawford: !money && rules & 1 != 0,
            jacoby: money && rules & 1 != 0,
            beavers: money && rules & 2 != 0,
            match_length,
            max_cube,
        })
    }
}

/// The board character of `n` checkers, by `n`: `-` for none, then
/// `base` (1) onwards; more than 26 are written as 26 (`Z`, `z`), which no
/// position has.
const fn letters(base: u8) -> [u8; 256] {
    let mut table = [b'-'; 256];
    let mut n = 1;
    while n < 256 {
        let shown = if n < 26 { n as u8 } else { 26 };
        table[n] = base + shown - 1;
        n += 1;
    }
    table
}

/// x's board characters by checker count.
pub(crate) const X_LETTERS: [u8; 256] = letters(b'A');
/// o's board characters by checker count.
pub(crate) const O_LETTERS: [u8; 256] = letters(b'a');

/// The buffer of the XGID writer. The longest XGID is 81 bytes: `XGID=`
/// and the board (31), then nine colons and at most 41 characters (cube
/// 2, owner 2, turn 2, dice 2, scores 10 each, rules 1, match length 10,
/// maximum cube 2); [`Text::SLACK`] more, rounded up to 16 bytes (the
/// buffer is cleared for every XGID: the smaller, the fewer stores).
const XGID_TEXT: usize = 96;
const _: () = assert!(81 + Text::<'static, XGID_TEXT>::SLACK <= XGID_TEXT);

impl Xgid {
    /// Appends the XGID (what `Display` writes) to `out`, without the
    /// formatting machinery: legal-moves answers write one per play.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.encode(&mut [0; XGID_TEXT]));
    }

    /// The whole XGID, written into `buf`.
    fn encode<'b>(&self, buf: &'b mut [u8; XGID_TEXT]) -> &'b [u8] {
        let setup = &self.setup;
        let mut out = Text::new(buf);
        out.bytes(b"XGID=");
        out.bytes(&[O_LETTERS[usize::from(setup.bar.o)]]);
        write_points(setup, &mut out);
        out.bytes(&[X_LETTERS[usize::from(setup.bar.x)]]);
        self.write_fields(setup.turn, &mut out);
        out.finish()
    }

    /// Appends the fields after the board (`:` and the cube value to the
    /// maximum cube) with `turn` on roll: every field but the checkers,
    /// which [`crate::notation::encodings::Encoder`] writes once for all the
    /// positions of an answer.
    #[inline]
    pub(crate) fn write_fields<const N: usize>(&self, turn: Player, out: &mut Text<'_, N>) {
        let owner: i64 = match self.cube_owner {
            CubeOwner::Centre => 0,
            CubeOwner::Player(Player::X) => 1,
            CubeOwner::Player(Player::O) => -1,
        };
        out.colon_int(i64::from(self.cube_value.log2()));
        out.colon_int(owner);
        out.colon_int(turn.fold(1, -1));
        match self.dice {
            XgidDice::NotRolled => out.bytes(b":00"),
            XgidDice::Rolled(d) => {
                out.bytes(&[b':', b'0' + d.first().get(), b'0' + d.second().get()]);
            }
            XgidDice::DoubleOffered => out.bytes(b":D"),
            XgidDice::Beavered => out.bytes(b":B"),
            XgidDice::Raccooned => out.bytes(b":R"),
        }
        out.colon_int(i64::from(self.score.x));
        out.colon_int(i64::from(self.score.o));
        out.colon_int(i64::from(self.rules_field()));
        out.colon_int(i64::from(self.match_length));
        out.colon_int(i64::from(self.max_cube.log2()));
    }
}

/// Writes the board characters of x's points 1 to 24: x's letter where x
/// has checkers, else o's where o has, else `-`.
#[inline]
fn write_points<const N: usize>(setup: &Setup, out: &mut Text<'_, N>) {
    if let Some(words) = setup.small_point_words() {
        for (x, o) in words {
            out.bytes(&letters_of_eight(x, o).to_le_bytes());
        }
    } else {
        out.bytes(&points_one_by_one(&setup.points));
    }
}

/// [`write_points`] for counts above 15, which no position has.
#[cold]
fn points_one_by_one(points: &ByPlayer<[u8; 24]>) -> [u8; 24] {
    let mut chars = [0u8; 24];
    for ((c, &x), &o) in chars.iter_mut().zip(&points.x).zip(points.o.iter().rev()) {
        *c = if x > 0 {
            X_LETTERS[usize::from(x)]
        } else {
            O_LETTERS[usize::from(o)]
        };
    }
    chars
}

/// The board characters of eight points at once: byte `k` of `x` and `o`
/// are x's and o's counts on one point, each at most 15; byte `k` of the
/// result is x's letter (`A` + count - 1) if x has checkers there, else
/// o's (`a` + count - 1) if o has, else `-`.
pub(crate) fn letters_of_eight(x: u64, o: u64) -> u64 {
    let (mx, mo) = (nonzero_bytes_mask(x), nonzero_bytes_mask(o));
    let empty = (u64::from(b'-') * BYTES) & !(mx | mo);
    ((x + 0x40 * BYTES) & mx) | ((o + 0x60 * BYTES) & mo & !mx) | empty
}

impl fmt::Display for Xgid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(core::str::from_utf8(self.encode(&mut [0; XGID_TEXT])).map_err(|_| fmt::Error)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::{CubeOwner, CubeValue, MatchState};
    use crate::setup::BackgammonVariant;
    use alloc::format;
    use alloc::string::ToString;

    const START: &str = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10";

    #[test]
    fn start_round_trip() {
        let xgid: Xgid = START.parse().unwrap();
        let pos = Position::from_setup(&xgid.setup, BackgammonVariant::Standard).unwrap();
        assert_eq!(pos, Position::start(BackgammonVariant::Standard, Player::X));
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
        assert_eq!(xgid.cube_owner, CubeOwner::Player(Player::O));
        assert_eq!(
            xgid.dice,
            XgidDice::Rolled(Dice::new(Die::new(5), Die::new(2)))
        );
        assert_eq!(xgid.score, ByPlayer { x: 3, o: 4 });
        assert_eq!(xgid.to_string(), s);
    }

    #[test]
    fn typed_fields_and_accessors() {
        let money: Xgid = "XGID=-b----E-C---eE---c-e----B-:2:1:1:00:3:1:3:0:8"
            .parse()
            .unwrap();
        assert_eq!(money.cube_value, CubeValue::new(4));
        assert_eq!(money.cube_owner, CubeOwner::Player(Player::X));
        assert!(money.jacoby && money.beavers && !money.crawford);
        assert_eq!(money.max_cube, CubeValue::new(256));
        let rules = money.cube_rules();
        assert!(rules.jacoby);
        assert_eq!((rules.beavers, rules.max_cube.get()), (1, 256));
        assert_eq!(
            money.match_state(),
            MatchState {
                length: 0,
                score: ByPlayer { x: 3, o: 1 },
                crawford: false,
            }
        );
        let cube = money.cube_state();
        assert_eq!(
            (cube.value.get(), cube.owner),
            (4, CubeOwner::Player(Player::X))
        );
        assert_eq!(money.rolled_dice(), None);
        assert_eq!(
            money.to_string(),
            "XGID=-b----E-C---eE---c-e----B-:2:1:1:00:3:1:3:0:8"
        );

        let crawford: Xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:31:4:2:1:5"
            .parse()
            .unwrap();
        assert!(crawford.crawford && !crawford.jacoby && !crawford.beavers);
        assert!(crawford.match_state().crawford);
        assert!(!crawford.cube_rules().jacoby);
        assert_eq!(crawford.max_cube, Xgid::DEFAULT_MAX_CUBE);
        assert_eq!(crawford.rolled_dice().map(Dice::values), Some([3, 1]));
        assert_eq!(
            crawford.to_string(),
            "XGID=-b----E-C---eE---c-e----B-:0:0:-1:31:4:2:1:5:10"
        );
        // Bit 1 means nothing in a match: read leniently, not written.
        let odd: Xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:5:10"
            .parse()
            .unwrap();
        assert!(odd.crawford && !odd.beavers);
        assert!(odd.to_string().ends_with(":0:0:1:5:10"));
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

    #[test]
    fn numbers_have_one_spelling() {
        const HEAD: &str = "XGID=-b----E-C---eE---c-e----B-:";
        for (tail, err) in [
            ("0:0:1:00:03:0:0:5:10", ParseXgidError::Score),
            ("0:0:1:00:0:00:0:5:10", ParseXgidError::Score),
            ("01:0:1:00:0:0:0:5:10", ParseXgidError::CubeValue),
            ("0:0:1:00:0:0:00:5:10", ParseXgidError::Rules),
            ("0:0:1:00:0:0:0:05:10", ParseXgidError::MatchLength),
            ("0:0:1:00:0:0:0:5:010", ParseXgidError::MaxCube),
        ] {
            assert_eq!(format!("{HEAD}{tail}").parse::<Xgid>(), Err(err), "{tail}");
        }
        // The canonical spellings of the same values read, and are written back.
        for tail in [
            "0:0:1:00:3:0:0:5:10",
            "1:0:1:00:0:0:0:5:10",
            "0:0:1:00:0:0:0:0:0",
        ] {
            let text = format!("{HEAD}{tail}");
            assert_eq!(text.parse::<Xgid>().unwrap().to_string(), text);
        }
        // A roll's digits in either order: the same roll, kept as written.
        for dice in ["52", "25"] {
            let text = format!("{HEAD}0:0:1:{dice}:0:0:0:0:10");
            let xgid = text.parse::<Xgid>().unwrap();
            assert_eq!(xgid.to_string(), text);
        }
    }
}

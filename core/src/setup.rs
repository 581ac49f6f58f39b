//! Variants and [`Setup`], the unchecked description of a position that
//! parsers and the wire produce.

use core::fmt;
use core::str::FromStr;

use crate::player::{ByPlayer, Player};

/// One in each byte of a word.
pub(crate) const BYTES: u64 = 0x0101_0101_0101_0101;

/// 0xFF in each byte of `w` that is not zero, for bytes of at most 15 (a
/// count below 16 plus 0x7F reaches the byte's top bit exactly when it is
/// not zero, and never carries into the next byte).
pub(crate) const fn nonzero_bytes_mask(w: u64) -> u64 {
    (((w + 0x7F * BYTES) & (0x80 * BYTES)) >> 7) * 0xFF
}

/// The signed counts of eight points at once: byte `k` of `x` and `o` are
/// x's and o's counts on one point, each at most 15; byte `k` of the
/// result is x's count where x has checkers, else o's count negated (a
/// byte's two's complement, built as its complement plus one only where o
/// has checkers, so that no byte carries into the next).
#[inline]
pub(crate) const fn signed_of_eight(x: u64, o: u64) -> u64 {
    let x_has = nonzero_bytes_mask(x);
    let o_has = nonzero_bytes_mask(o);
    let minus_o = (!o & o_has) + (o_has & BYTES);
    (x & x_has) | (minus_o & !x_has)
}

/// The game played: they share the movement rules and differ in the
/// number of checkers and the start.
///
/// With the `serde` feature it is (de)serialized as its wire name
/// ([`BackgammonVariant::as_str`]); deserializing also accepts the other spellings
/// [`BackgammonVariant::from_str`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum BackgammonVariant {
    /// 15 checkers: 2 on 24, 5 on 13, 3 on 8, 5 on 6.
    #[default]
    #[cfg_attr(feature = "serde", serde(rename = "standard"))]
    Standard,
    /// 15 checkers: 2 on 24, 2 on 23, 4 on 13, 3 on 8, 4 on 6.
    #[cfg_attr(feature = "serde", serde(rename = "nackgammon"))]
    Nackgammon,
    /// One checker, on 24.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "hypergammon-1", alias = "hypergammon1")
    )]
    Hypergammon1,
    /// Two checkers, on 24 and 23.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "hypergammon-2", alias = "hypergammon2")
    )]
    Hypergammon2,
    /// Three checkers, on 24, 23 and 22.
    #[cfg_attr(
        feature = "serde",
        serde(
            rename = "hypergammon",
            alias = "hypergammon-3",
            alias = "hypergammon3"
        )
    )]
    Hypergammon3,
}

impl BackgammonVariant {
    /// Every variant.
    pub const ALL: [BackgammonVariant; 5] = [
        BackgammonVariant::Standard,
        BackgammonVariant::Nackgammon,
        BackgammonVariant::Hypergammon1,
        BackgammonVariant::Hypergammon2,
        BackgammonVariant::Hypergammon3,
    ];

    /// Checkers per player.
    #[must_use]
    pub const fn checkers(self) -> u8 {
        match self {
            BackgammonVariant::Standard | BackgammonVariant::Nackgammon => 15,
            BackgammonVariant::Hypergammon1 => 1,
            BackgammonVariant::Hypergammon2 => 2,
            BackgammonVariant::Hypergammon3 => 3,
        }
    }

    /// The starting checkers as `(point, count)` from each player's own view.
    #[must_use]
    pub const fn start(self) -> &'static [(u8, u8)] {
        match self {
            BackgammonVariant::Standard => &[(24, 2), (13, 5), (8, 3), (6, 5)],
            BackgammonVariant::Nackgammon => &[(24, 2), (23, 2), (13, 4), (8, 3), (6, 4)],
            BackgammonVariant::Hypergammon1 => &[(24, 1)],
            BackgammonVariant::Hypergammon2 => &[(24, 1), (23, 1)],
            BackgammonVariant::Hypergammon3 => &[(24, 1), (23, 1), (22, 1)],
        }
    }

    /// The wire name: `standard`, `nackgammon`, `hypergammon` (3 checkers),
    /// `hypergammon-1`, `hypergammon-2`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            BackgammonVariant::Standard => "standard",
            BackgammonVariant::Nackgammon => "nackgammon",
            BackgammonVariant::Hypergammon1 => "hypergammon-1",
            BackgammonVariant::Hypergammon2 => "hypergammon-2",
            BackgammonVariant::Hypergammon3 => "hypergammon",
        }
    }
}

impl fmt::Display for BackgammonVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for an unknown variant name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseBackgammonVariantError;

impl fmt::Display for ParseBackgammonVariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "variant must be standard, nackgammon, hypergammon, hypergammon-1, hypergammon-2 or hypergammon-3",
        )
    }
}

impl core::error::Error for ParseBackgammonVariantError {}

impl FromStr for BackgammonVariant {
    type Err = ParseBackgammonVariantError;
    /// Reads the wire names; `hypergammon-3`, and gnubg's `hypergammon1`..`3`
    /// spellings, are accepted too.
    fn from_str(s: &str) -> Result<BackgammonVariant, ParseBackgammonVariantError> {
        Ok(match s {
            "standard" => BackgammonVariant::Standard,
            "nackgammon" => BackgammonVariant::Nackgammon,
            "hypergammon" | "hypergammon-3" | "hypergammon3" => BackgammonVariant::Hypergammon3,
            "hypergammon-2" | "hypergammon2" => BackgammonVariant::Hypergammon2,
            "hypergammon-1" | "hypergammon1" => BackgammonVariant::Hypergammon1,
            _ => return Err(ParseBackgammonVariantError),
        })
    }
}

/// A position as described, not yet checked: what the codecs and the wire
/// produce. [`crate::Position::from_setup`] is the only way to a
/// [`crate::Position`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Checkers on each point, from each player's own view: `points.x[i]` is
    /// the number of x's checkers on x's point `i + 1`.
    pub points: ByPlayer<[u8; 24]>,
    /// Checkers on the bar.
    pub bar: ByPlayer<u8>,
    /// Checkers borne off, when the source says (the board encoding does);
    /// `None` when they follow from the variant's checker count (Position ID
    /// and XGID do not carry them).
    pub off: Option<ByPlayer<u8>>,
    /// The player on roll.
    pub turn: Player,
}

impl Setup {
    /// An empty board with `turn` on roll and no off counts.
    #[must_use]
    pub const fn empty(turn: Player) -> Setup {
        Setup {
            points: ByPlayer {
                x: [0; 24],
                o: [0; 24],
            },
            bar: ByPlayer { x: 0, o: 0 },
            off: None,
            turn,
        }
    }

    /// The starting position of `variant` with `turn` on roll.
    #[must_use]
    pub fn start(variant: BackgammonVariant, turn: Player) -> Setup {
        let mut setup = Setup::empty(turn);
        for &(point, count) in variant.start() {
            setup.points.x[usize::from(point) - 1] = count;
            setup.points.o[usize::from(point) - 1] = count;
        }
        setup.off = Some(ByPlayer { x: 0, o: 0 });
        setup
    }

    /// Reads the signed board of the wire format: `points[i]` is point
    /// `i + 1` from x's side, positive counts are x's, negative o's.
    #[must_use]
    pub fn from_signed(
        points: &[i8; 24],
        bar: ByPlayer<u8>,
        off: Option<ByPlayer<u8>>,
        turn: Player,
    ) -> Setup {
        let mut setup = Setup::empty(turn);
        for (i, &n) in points.iter().enumerate() {
            if n > 0 {
                setup.points.x[i] = n.unsigned_abs();
            } else if n < 0 {
                setup.points.o[23 - i] = n.unsigned_abs();
            }
        }
        setup.bar = bar;
        setup.off = off;
        setup
    }

    /// The signed board from x's side (see [`Setup::from_signed`]). Where both
    /// players have checkers on one point (an invalid setup) x's count wins.
    #[must_use]
    pub fn to_signed(&self) -> [i8; 24] {
        let mut out = [0i8; 24];
        if let Some(words) = self.small_point_words() {
            // Eight points at a time.
            for ((x, o), chunk) in words.into_iter().zip(out.chunks_exact_mut(8)) {
                for (slot, byte) in chunk.iter_mut().zip(signed_of_eight(x, o).to_le_bytes()) {
                    *slot = i8::from_ne_bytes([byte]);
                }
            }
            return out;
        }
        for (i, slot) in out.iter_mut().enumerate() {
            let x = self.points.x[i];
            let o = self.points.o[23 - i];
            *slot = if x > 0 {
                i8::try_from(x).unwrap_or(i8::MAX)
            } else {
                -i8::try_from(o).unwrap_or(i8::MAX)
            };
        }
        out
    }

    /// Checkers of `player` on the board and the bar.
    #[must_use]
    pub fn on_board(&self, player: Player) -> u32 {
        self.points[player]
            .iter()
            .map(|&n| u32::from(n))
            .sum::<u32>()
            + u32::from(self.bar[player])
    }

    /// The points eight at a time for the writers that print them from
    /// x's side (XGID, FIBS): in word `i`, byte `k` of the first number is
    /// x's count on x's point `8 i + k + 1`, and byte `k` of the second
    /// o's count on that same point (o's point `24 - 8 i - k`); `None`
    /// when a count is above 15, which no position has, so that bytewise
    /// arithmetic on the words never carries.
    pub(crate) fn small_point_words(&self) -> Option<[(u64, u64); 3]> {
        let eight = |bytes: &[u8]| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[..8]);
            word
        };
        // o's counts backwards: big-endian puts o's point 24 - 8 i in byte 0.
        let word = |at: usize| {
            (
                u64::from_le_bytes(eight(&self.points.x[at..])),
                u64::from_be_bytes(eight(&self.points.o[16 - at..])),
            )
        };
        let words = [word(0), word(8), word(16)];
        // One test for the six words.
        let all = words.iter().fold(0, |acc, &(x, o)| acc | x | o);
        (all & (0xF0 * BYTES) == 0).then_some(words)
    }
}

//! gnubg Position ID: 14 base64 characters for the checkers of both sides.
//!
//! The ID packs 80 bits, least significant bit of each byte first: for the
//! player *not* on roll and then for the player on roll, for each of that
//! player's points 1 to 24 and then the bar, as many 1 bits as checkers
//! followed by one 0 bit. Borne-off checkers are not encoded; they follow
//! from the variant's checker count. The ID does not say which player
//! (x or o) is on roll.
//!
//! Parser leniency: surrounding white space is ignored and base64 padding
//! (`==`) after the 14 characters is accepted; anything else must be exactly
//! 14 characters of the standard base64 alphabet whose bits describe 50
//! slots with only zero bits after them. The writer emits exactly the 14
//! characters, no padding.

use core::fmt;
use core::str::FromStr;

use crate::player::Player;
use crate::position::Position;
use crate::setup::Setup;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The checkers a Position ID describes: each side from its own view,
/// index `i` for point `i + 1`, index 24 the bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PositionId {
    /// The player on roll (encoded second).
    pub on_roll: [u8; 25],
    /// The other player (encoded first).
    pub opponent: [u8; 25],
}

/// Error for a string that is not a Position ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParsePositionIdError {
    /// Not 14 characters.
    Length,
    /// A character outside the base64 alphabet.
    Character,
    /// The bits end before all 50 slots are described, or go on after them.
    Bits,
}

impl fmt::Display for ParsePositionIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParsePositionIdError::Length => "a Position ID is 14 characters",
            ParsePositionIdError::Character => {
                "a Position ID uses only the base64 characters A-Z a-z 0-9 + /"
            }
            ParsePositionIdError::Bits => {
                "the Position ID does not describe 25 points for each player"
            }
        })
    }
}

impl core::error::Error for ParsePositionIdError {}

impl PositionId {
    /// The ID of a position.
    #[must_use]
    pub fn from_position(position: &Position) -> PositionId {
        let mut id = PositionId {
            on_roll: [0; 25],
            opponent: [0; 25],
        };
        id.on_roll
            .copy_from_slice(&position.side(position.turn())[1..26]);
        id.opponent
            .copy_from_slice(&position.side(!position.turn())[1..26]);
        id
    }

    /// The setup this ID describes with `turn` on roll (no off counts).
    #[must_use]
    pub fn to_setup(&self, turn: Player) -> Setup {
        let mut setup = Setup::empty(turn);
        setup.points[turn].copy_from_slice(&self.on_roll[..24]);
        setup.bar[turn] = self.on_roll[24];
        setup.points[!turn].copy_from_slice(&self.opponent[..24]);
        setup.bar[!turn] = self.opponent[24];
        setup
    }

    /// The key's 10 bytes (gnubg's order: each byte least significant bit
    /// first), and 6 zero bytes: the little-endian bit
    /// stream, checkers as 1s, each point closed by a 0, written a byte
    /// at a time as it fills.
    fn key_bytes(&self) -> [u8; 16] {
        let mut key = [0u8; 16];
        let mut at = 0;
        // Bits not yet written, lowest first; `filled` of them.
        let mut acc = 0u64;
        let mut filled = 0u32;
        for side in [&self.opponent, &self.on_roll] {
            for &n in side {
                // At most 15 in any position; the clamp keeps the shifts
                // in range for any value (the key holds 80 bits anyway).
                let n = u32::from(n).min(48);
                acc |= ((1u64 << n) - 1) << filled;
                filled += n + 1;
                while filled >= 8 {
                    if at < 10 {
                        key[at] = acc as u8;
                    }
                    at += 1;
                    acc >>= 8;
                    filled -= 8;
                }
            }
        }
        if at < 10 {
            key[at] = acc as u8;
        }
        key
    }
}

impl PositionId {
    /// The 14 characters of the ID, as [`Display`](fmt::Display) writes
    /// them, without the formatting machinery (legal-moves answers write
    /// one per play).
    #[must_use]
    pub fn encode(&self) -> [u8; 14] {
        // Base64 of the 10 key bytes: three groups of three bytes (four
        // characters each), then the last byte (two characters).
        let key = self.key_bytes();
        let mut out = [0u8; 14];
        let sextet = |v: u32| ALPHABET[(v & 63) as usize];
        for g in 0..3 {
            let v = u32::from(key[3 * g]) << 16
                | u32::from(key[3 * g + 1]) << 8
                | u32::from(key[3 * g + 2]);
            out[4 * g] = sextet(v >> 18);
            out[4 * g + 1] = sextet(v >> 12);
            out[4 * g + 2] = sextet(v >> 6);
            out[4 * g + 3] = sextet(v);
        }
        let last = u32::from(key[9]);
        out[12] = sextet(last >> 2);
        out[13] = sextet(last << 4);
        out
    }
}

impl fmt::Display for PositionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Base64 of the 10 key bytes without padding: 14 six-bit groups,
        // most significant first.
        f.write_str(core::str::from_utf8(&self.encode()).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for PositionId {
    type Err = ParsePositionIdError;
    fn from_str(s: &str) -> Result<PositionId, ParsePositionIdError> {
        let s = s.trim();
        let s = s.strip_suffix("==").unwrap_or(s);
        if s.len() != 14 {
            return Err(ParsePositionIdError::Length);
        }
        let mut bits = [false; 84];
        for (i, c) in s.bytes().enumerate() {
            let v = ALPHABET
                .iter()
                .position(|&a| a == c)
                .ok_or(ParsePositionIdError::Character)?;
            for k in 0..6 {
                bits[i * 6 + k] = v & (0x20 >> k) != 0;
            }
        }
        // Bytes are stored least significant bit first.
        let bit_at = |n: usize| bits[(n / 8) * 8 + 7 - n % 8];
        let mut id = PositionId {
            on_roll: [0; 25],
            opponent: [0; 25],
        };
        let mut n = 0usize;
        for side in [&mut id.opponent, &mut id.on_roll] {
            for slot in side.iter_mut() {
                loop {
                    if n >= 80 {
                        return Err(ParsePositionIdError::Bits);
                    }
                    let one = bit_at(n);
                    n += 1;
                    if !one {
                        break;
                    }
                    *slot += 1;
                }
            }
        }
        if (n..80).any(bit_at) || bits[80..].iter().any(|&b| b) {
            return Err(ParsePositionIdError::Bits);
        }
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::Variant;
    use alloc::string::ToString;

    #[test]
    fn start_position() {
        let pos = Position::start(Variant::Standard, Player::X);
        assert_eq!(
            PositionId::from_position(&pos).to_string(),
            "4HPwATDgc/ABMA"
        );
        let id: PositionId = "4HPwATDgc/ABMA".parse().unwrap();
        assert_eq!(id, PositionId::from_position(&pos));
        assert_eq!(" 4HPwATDgc/ABMA==".parse::<PositionId>(), Ok(id));
    }

    #[test]
    fn rejects() {
        assert_eq!(
            "4HPwATDgc/ABM".parse::<PositionId>(),
            Err(ParsePositionIdError::Length)
        );
        assert_eq!(
            "4HPwATDgc/AB!A".parse::<PositionId>(),
            Err(ParsePositionIdError::Character)
        );
        assert_eq!(
            "//////////////".parse::<PositionId>(),
            Err(ParsePositionIdError::Bits)
        );
    }

    #[test]
    fn the_checked_in_positions_round_trip() {
        // 4 000 IDs of four classes (core/benches/data): parsing and
        // writing again gives the same text, byte for byte.
        let data = include_str!("../../benches/data/positions.txt");
        let mut n = 0;
        for line in data.lines().filter(|l| !l.starts_with('#')) {
            let text = line.split_whitespace().nth(1).unwrap();
            let id: PositionId = text.parse().unwrap();
            assert_eq!(&id.encode(), text.as_bytes(), "{text}");
            assert_eq!(id.to_string(), text);
            n += 1;
        }
        assert_eq!(n, 4000);
    }
}

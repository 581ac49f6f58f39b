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

    /// The 80 bits of the key as a big-endian number: the key's byte 0 in
    /// the top 8 bits, each byte least significant bit first (gnubg's
    /// order), 48 zero bits below.
    fn key(&self) -> u128 {
        // Little-endian bit stream: checkers as 1s, each point closed by a 0.
        let mut stream = 0u128;
        let mut bit = 0u32;
        for side in [&self.opponent, &self.on_roll] {
            for &n in side {
                let n = u32::from(n);
                if bit < 80 {
                    let ones = if n >= 80 { u128::MAX } else { (1u128 << n) - 1 };
                    stream |= ones << bit;
                }
                bit += n + 1;
            }
        }
        let bytes = (stream & ((1u128 << 80) - 1)).to_le_bytes();
        let mut key = [0u8; 16];
        key[..10].copy_from_slice(&bytes[..10]);
        u128::from_be_bytes(key)
    }
}

impl fmt::Display for PositionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Base64 of the 10 key bytes without padding: 14 six-bit groups,
        // most significant first.
        let key = self.key();
        let mut out = [0u8; 14];
        for (i, c) in out.iter_mut().enumerate() {
            let v = (key >> (122 - 6 * i)) & 63;
            *c = ALPHABET[v as usize];
        }
        f.write_str(core::str::from_utf8(&out).map_err(|_| fmt::Error)?)
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
}

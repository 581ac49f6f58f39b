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
use crate::setup::{BYTES, Setup};

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

    /// The 80-bit key: bit `k` of the stream (checkers as 1s, each slot
    /// closed by a 0; opponent first) is bit `k` of the number, so gnubg's
    /// 10 key bytes are its first 10 little-endian bytes.
    fn key(&self) -> u128 {
        match (side_key(&self.opponent), side_key(&self.on_roll)) {
            (Some((opponent, len)), Some((on_roll, _))) => {
                (u128::from(opponent) | u128::from(on_roll) << len) & KEY_BITS
            }
            _ => self.key_of_any_counts(),
        }
    }

    /// [`Self::key`] for counts no position has (a side with more than 39
    /// checkers): slot by slot in a `u128`, at most 48 ones a slot and
    /// nothing past the 80th bit, as the key of such counts has always
    /// been written.
    fn key_of_any_counts(&self) -> u128 {
        let mut key = 0u128;
        let mut at = 0u32;
        for side in [&self.opponent, &self.on_roll] {
            for &n in side {
                let n = u32::from(n).min(48);
                if at < 80 {
                    key |= ((1u128 << n) - 1) << at;
                }
                at += n + 1;
            }
        }
        key & KEY_BITS
    }
}

/// The 80 bits of a key.
const KEY_BITS: u128 = (1 << 80) - 1;

/// One side's part of the key and its length in bits (25 zeros and a one
/// per checker), when it fits in 64 bits: at most 39 checkers, which every
/// position's side (15 at most) does.
#[inline]
fn side_key(side: &[u8; 25]) -> Option<(u64, u32)> {
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&side[at..at + 8]);
        u64::from_le_bytes(w)
    };
    // Eight slots at a time, slot k of a word in byte k.
    let words = [word(0), word(8), word(16)];
    let bar = side[24];
    if (words[0] | words[1] | words[2] | u64::from(bar)) & (0xE0 * BYTES) != 0 {
        // A count above 31: no position; the byte sums below could carry.
        return None;
    }
    // Multiplying a word by `BYTES` sums its bytes into byte 7 (eight
    // counts below 32 never carry).
    let checkers = words
        .iter()
        .map(|&w| w.wrapping_mul(BYTES) >> 56)
        .sum::<u64>()
        + u64::from(bar);
    (checkers <= 39).then(|| position_side_key(words, bar))
}

/// Base64 of every 12-bit group: the two characters of its two 6-bit
/// halves, high half first. Seven lookups write an ID.
const BASE64_PAIRS: [[u8; 2]; 4096] = {
    let mut table = [[0u8; 2]; 4096];
    let mut i = 0;
    while i < 4096 {
        table[i] = [ALPHABET[i >> 6], ALPHABET[i & 63]];
        i += 1;
    }
    table
};

impl PositionId {
    /// The 14 characters of the ID, as [`Display`](fmt::Display) writes
    /// them, without the formatting machinery (legal-moves answers write
    /// one per play).
    #[must_use]
    pub fn encode(&self) -> [u8; 14] {
        key_text(self.key())
    }
}

/// The 14 characters of an 80-bit key: base64 of the 10 key bytes without
/// padding, 14 six-bit groups, most significant first, of the bytes in
/// order (the key's first byte at the top of the byte-swapped number),
/// two groups a lookup. The byte-swapped number is read as its two
/// 64-bit halves (each shift of a `u128` takes several instructions): the
/// first five 12-bit groups lie in the high half, the sixth straddles the
/// halves, the seventh is in the low half.
#[inline]
pub(crate) fn key_text(key: u128) -> [u8; 14] {
    key_text_of_halves(key as u64, (key >> 64) as u64)
}

/// [`key_text`] of the key with the low 64 bits `first` and the high 64
/// bits `rest`.
#[inline(always)]
pub(crate) fn key_text_of_halves(first: u64, rest: u64) -> [u8; 14] {
    // The halves of the byte-swapped key: each half of the key, swapped.
    let high = first.swap_bytes();
    let low = rest.swap_bytes();
    let groups = [
        high >> 52,
        high >> 40,
        high >> 28,
        high >> 16,
        high >> 4,
        high << 8 | low >> 56,
        low >> 44,
    ];
    let mut out = [0u8; 14];
    for (pair, group) in out.chunks_exact_mut(2).zip(groups) {
        pair.copy_from_slice(&BASE64_PAIRS[(group & 0xFFF) as usize]);
    }
    out
}

/// One side's part of the key and its length in bits, for a side of at
/// most 39 checkers (every slot's closing bit below 64): [`side_key`]
/// without its checks, for the counts a [`Position`] guarantees (at most
/// 15 checkers a side). Byte `k` of `words[i]` is the count of slot `8 i + k`
/// (the side's point `8 i + k + 1`); `bar` is slot 24's.
#[inline(always)]
pub(crate) fn position_side_key(words: [u64; 3], bar: u8) -> (u64, u32) {
    side_key_of_words(words.map(WordZeros::of), bar)
}

/// The closing bits of one word's eight slots, counted from the word's
/// first slot, and its checkers: what a word adds to a side key wherever
/// it sits ([`side_key_of_words`] moves it into place), so that an
/// encoder can keep it for a word that recurs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WordZeros {
    zeros: u64,
    checkers: u64,
}

impl WordZeros {
    /// The part of `word`: eight slots' counts, at most 39 checkers in
    /// all.
    #[inline(always)]
    pub(crate) fn of(word: u64) -> WordZeros {
        // Only the zeros are placed: slot k closes at bit k plus the
        // checkers up to and including it. Multiplying the word by
        // `BYTES` sums its bytes 0..=k into byte k; adding k gives slot
        // k's closing bit in its byte (no byte carries: with at most 39
        // checkers they are below 64).
        let sums = word.wrapping_mul(BYTES);
        let closing = sums.wrapping_add(0x0706_0504_0302_0100);
        let mut zeros = 0u64;
        for k in 0..8 {
            zeros |= 1u64 << ((closing >> (8 * k)) & 63);
        }
        WordZeros {
            zeros,
            checkers: sums >> 56,
        }
    }
}

/// [`position_side_key`] from its words' parts: word i's closing bits
/// move up by its first slot (8 i) and the checkers of the words before
/// (with at most 39 checkers every closing bit stays below 64).
#[inline(always)]
pub(crate) fn side_key_of_words(parts: [WordZeros; 3], bar: u8) -> (u64, u32) {
    let [a, b, c] = parts;
    let zeros = a.zeros | b.zeros << (8 + a.checkers) | c.zeros << (16 + a.checkers + b.checkers);
    // The bar's closing bit, 24 plus every checker, is the side's last:
    // below it every bit that closes no slot is a checker.
    let last = 24 + (a.checkers + b.checkers + c.checkers + u64::from(bar)) as u32;
    (!zeros & ((1u64 << last) - 1), last + 1)
}

impl fmt::Display for PositionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Base64 of the 10 key bytes without padding: 14 six-bit groups,
        // most significant first.
        f.write_str(core::str::from_utf8(&self.encode()).map_err(|_| fmt::Error)?)
    }
}

/// The value of each base64 character, [`NOT_BASE64`] for the others.
const BASE64_VALUES: [u8; 256] = {
    let mut table = [NOT_BASE64; 256];
    let mut i = 0;
    while i < 64 {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// The [`BASE64_VALUES`] entry of a character outside the alphabet.
const NOT_BASE64: u8 = 0xFF;

/// The runs of ones of a key byte, least significant bit first: what it
/// adds to the slots being read ([`PositionId::from_str`]).
struct ByteRuns {
    /// The ones below the first zero (they end the slot open before it).
    first: u8,
    /// The ones before the second zero, the third, ... (0 past the last).
    between: [u8; 8],
    /// The zeros: the slots this byte closes.
    zeros: u8,
    /// The ones above the last zero (all 8 without a zero).
    last: u8,
}

/// [`ByteRuns`] of each byte value.
const BYTE_RUNS: [ByteRuns; 256] = {
    let mut table = [const {
        ByteRuns {
            first: 0,
            between: [0; 8],
            zeros: 0,
            last: 0,
        }
    }; 256];
    let mut value = 0;
    while value < 256 {
        let runs = &mut table[value];
        let mut run = 0;
        let mut bit = 0;
        while bit < 8 {
            if value >> bit & 1 == 1 {
                run += 1;
            } else {
                if runs.zeros == 0 {
                    runs.first = run;
                } else {
                    runs.between[runs.zeros as usize - 1] = run;
                }
                runs.zeros += 1;
                run = 0;
            }
            bit += 1;
        }
        runs.last = run;
        value += 1;
    }
    table
};

impl FromStr for PositionId {
    type Err = ParsePositionIdError;
    fn from_str(s: &str) -> Result<PositionId, ParsePositionIdError> {
        let s = s.trim();
        let s = s.strip_suffix("==").unwrap_or(s);
        if s.len() != 14 {
            return Err(ParsePositionIdError::Length);
        }
        // The 84 bits of the 14 characters, the first at the top.
        let mut stream = 0u128;
        for c in s.bytes() {
            let v = BASE64_VALUES[usize::from(c)];
            if v == NOT_BASE64 {
                return Err(ParsePositionIdError::Character);
            }
            stream = stream << 6 | u128::from(v);
        }
        // The last four bits are past the 10 key bytes.
        if stream & 0xF != 0 {
            return Err(ParsePositionIdError::Bits);
        }
        // The 10 key bytes in order (the first at the top of the 80 bits),
        // each read least significant bit first.
        let key = ((stream >> 4) << 48).to_be_bytes();
        // Each slot is its checkers as ones and the zero that closes it:
        // the zeros of the 80 bits, lowest first, close the 50 slots
        // (the opponent's 25, then the 25 of the player on roll), the ones
        // between two zeros the second one's checkers. Read a byte at a
        // time from a table of its runs of ones (not a zero at a time: a
        // few instructions a byte instead of a few a slot). `ones` are the
        // ones since the last zero; `slots[read]` is the next slot to close.
        // Every byte closes at most 8 slots and the table's runs are
        // written 8 at a time: 10 bytes write below 81 + 8.
        let mut slots = [0u8; 96];
        let mut read = 0;
        let mut ones = 0u8;
        for byte in &key[..10] {
            let runs = &BYTE_RUNS[usize::from(*byte)];
            if runs.zeros != 0 {
                slots[read] = ones + runs.first;
                slots[read + 1..read + 9].copy_from_slice(&runs.between);
                read += usize::from(runs.zeros);
                ones = 0;
            }
            ones += runs.last;
        }
        // Every slot closed within the 80 bits (at most 30 ones), and only
        // zeros after the last one: the slots closed after the 50th are
        // empty and no ones follow the last zero.
        if read < 50 || ones != 0 || slots[50..read].iter().any(|&n| n != 0) {
            return Err(ParsePositionIdError::Bits);
        }
        let mut id = PositionId {
            on_roll: [0; 25],
            opponent: [0; 25],
        };
        id.opponent.copy_from_slice(&slots[..25]);
        id.on_roll.copy_from_slice(&slots[25..50]);
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::BackgammonVariant;
    use alloc::string::ToString;

    #[test]
    fn start_position() {
        let pos = Position::start(BackgammonVariant::Standard, Player::X);
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

    /// The parser read bit by bit, as gnubg describes the ID: the
    /// reference for [`PositionId::from_str`].
    fn reference_parse(s: &str) -> Result<PositionId, ParsePositionIdError> {
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

    use proptest::prelude::*;

    /// A character, mostly of the alphabet (`A` and `/` often: zero and
    /// all-ones sextets).
    fn character() -> impl Strategy<Value = char> {
        prop_oneof![
            8 => (0usize..64).prop_map(|i| char::from(ALPHABET[i])),
            2 => Just('A'),
            2 => Just('/'),
            1 => any::<char>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        #[test]
        fn any_text_parses_as_the_bit_by_bit_reference(
            chars in prop::collection::vec(character(), 12..=16),
            padded in any::<bool>(),
        ) {
            let mut text: alloc::string::String = chars.into_iter().collect();
            if padded {
                text.push_str("==");
            }
            prop_assert_eq!(text.parse::<PositionId>(), reference_parse(&text));
        }

        #[test]
        fn any_position_id_of_80_bits_reads_back(
            on_roll in prop::array::uniform25(prop_oneof![6 => Just(0u8), 3 => 1u8..=3, 1 => 0u8..=15]),
            opponent in prop::array::uniform25(prop_oneof![6 => Just(0u8), 3 => 1u8..=3, 1 => 0u8..=15]),
        ) {
            let id = PositionId { on_roll, opponent };
            let bits: u32 = on_roll.iter().chain(&opponent).map(|&n| u32::from(n) + 1).sum();
            let text = id.to_string();
            if bits <= 80 {
                prop_assert_eq!(text.parse::<PositionId>(), Ok(id));
            } else {
                prop_assert_eq!(text.parse::<PositionId>(), reference_parse(&text));
            }
        }
    }
}

//! Verifiable dice: seed derivation, commitment, the die stream, rolls,
//! opening rolls and the check of a revealed seed.
//!
//! This is the scheme of the public contract (`api.md`, section "Dice"),
//! written so that anyone with SHA-256 and HMAC can redo every step:
//!
//! 1. `server_seed = HMAC-SHA256(key = master_secret, msg = "bgref-seed-v1:" || match_id)`
//!    ([`server_seed`]).
//! 2. `commitment = SHA-256(server_seed)`, published as lower-case hex before
//!    the match ([`commitment`], [`to_hex`]).
//! 3. The byte stream of a roll is the concatenation of the blocks
//!    `HMAC-SHA256(key = server_seed, msg = client_seed || ":" || game || ":" || turn || ":" || counter)`
//!    for `counter` = 0, 1, 2, ..., every number in decimal ASCII without
//!    leading zeros and `client_seed` as its UTF-8 bytes ([`ByteStream`]).
//! 4. A byte `b < 252` gives the die `(b mod 6) + 1`; a byte `b >= 252` is
//!    skipped ([`die_from_byte`], [`DieStream`]). As 252 = 6 × 42, each face
//!    comes from exactly 42 of the 252 accepted byte values, so every die is
//!    exactly uniform (given uniform bytes), not merely close to it.
//! 5. A turn's roll is the first two dice of its stream ([`roll`]). The
//!    opening roll reads the stream of turn 0 as pairs (x's die, o's die),
//!    rolling ties again ([`opening_roll`]).
//!
//! Everything here is a pure function of its arguments: where the master
//! secret comes from, and who may see a seed, is the service's concern.
//!
//! ```
//! use bgref_core::verify;
//!
//! let seed = verify::server_seed(b"a master secret of at least 32 bytes", "match-1");
//! let published = verify::to_hex(&verify::commitment(&seed));
//! let dice = verify::roll(&seed, "alice:bob", 1, 1);
//!
//! // After the match the seed is revealed and anyone can check the roll.
//! let claimed = [verify::ClaimedRoll { client_seed: "alice:bob", game: 1, turn: 1, dice }];
//! let commitment = verify::parse_hex32(&published)?;
//! assert!(verify::verify_rolls(&seed, &commitment, &claimed).is_valid());
//! # Ok::<_, bgref_core::verify::ParseHexError>(())
//! ```

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::dice::{Dice, Die};
use crate::player::Player;

type HmacSha256 = Hmac<Sha256>;

/// Length in bytes of a server seed, a commitment and a stream block.
pub const SEED_LEN: usize = 32;

/// The domain-separation prefix of the seed derivation, `bgref-seed-v1:`.
pub const SEED_PREFIX: &[u8] = b"bgref-seed-v1:";

/// The first line of the bytes a roll signature covers, `bgref-roll-v1`.
pub const ROLL_SIGNING_TAG: &str = "bgref-roll-v1";

/// Bytes at or above this value are skipped by the die stream
/// (252 = 6 × 42, the largest multiple of 6 that fits in a byte).
pub const REJECT_FROM: u8 = 252;

/// A keyed HMAC-SHA256. HMAC accepts keys of any length, so this is total.
fn keyed(key: &[u8]) -> HmacSha256 {
    match HmacSha256::new_from_slice(key) {
        Ok(mac) => mac,
        // hmac's `new_from_slice` hashes or pads the key and never fails.
        Err(_) => unreachable!("HMAC accepts keys of any length"),
    }
}

/// The server seed of a match:
/// `HMAC-SHA256(key = master_secret, msg = "bgref-seed-v1:" || match_id)`.
///
/// `match_id` is used as its UTF-8 bytes, unchanged. The service requires a
/// master secret of at least 32 bytes; this function takes any length.
#[must_use]
pub fn server_seed(master_secret: &[u8], match_id: &str) -> [u8; SEED_LEN] {
    let mut mac = keyed(master_secret);
    mac.update(SEED_PREFIX);
    mac.update(match_id.as_bytes());
    mac.finalize().into_bytes().into()
}

/// The commitment to a server seed: `SHA-256(server_seed)`.
///
/// It is published (as lower-case hex, see [`to_hex`]) before the match
/// starts; once the seed is revealed anyone can recompute it.
#[must_use]
pub fn commitment(server_seed: &[u8; SEED_LEN]) -> [u8; SEED_LEN] {
    Sha256::digest(server_seed).into()
}

/// Lower-case hexadecimal of `bytes`, two digits per byte.
#[must_use]
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// Error for a string that is not exactly 64 hexadecimal digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseHexError;

impl fmt::Display for ParseHexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected exactly 64 hexadecimal digits")
    }
}

impl core::error::Error for ParseHexError {}

/// Reads a seed or commitment from 64 hexadecimal digits.
///
/// Upper- and lower-case digits are both accepted; nothing else is (no
/// `0x` prefix, no whitespace).
///
/// # Errors
/// [`ParseHexError`] when `s` is not exactly 64 hexadecimal digits.
pub fn parse_hex32(s: &str) -> Result<[u8; SEED_LEN], ParseHexError> {
    fn nibble(c: u8) -> Result<u8, ParseHexError> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(ParseHexError),
        }
    }
    let s = s.as_bytes();
    if s.len() != 2 * SEED_LEN {
        return Err(ParseHexError);
    }
    let mut out = [0u8; SEED_LEN];
    for (byte, pair) in out.iter_mut().zip(s.chunks_exact(2)) {
        *byte = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Ok(out)
}

/// The die a stream byte gives: `(b mod 6) + 1` for `b < 252`, `None`
/// (skipped) for `b >= 252`.
#[must_use]
pub const fn die_from_byte(b: u8) -> Option<Die> {
    if b < REJECT_FROM {
        Some(Die::new(b % 6 + 1))
    } else {
        None
    }
}

/// A server seed keyed once, ready to produce the streams, rolls and opening
/// rolls of its match.
///
/// [`roll`], [`opening_roll`] and [`ByteStream::new`] build one each call;
/// keep a `Roller` when producing or checking many rolls of one match.
/// Its `Debug` output does not show the seed.
#[derive(Clone)]
pub struct Roller {
    mac: HmacSha256,
}

impl fmt::Debug for Roller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Roller").finish_non_exhaustive()
    }
}

impl Roller {
    /// A roller keyed with `server_seed`.
    #[must_use]
    pub fn new(server_seed: &[u8; SEED_LEN]) -> Roller {
        Roller {
            mac: keyed(server_seed),
        }
    }

    /// The raw byte stream of turn `turn` of game `game`.
    #[must_use]
    pub fn bytes<'a>(&self, client_seed: &'a str, game: u32, turn: u32) -> ByteStream<'a> {
        ByteStream {
            mac: self.mac.clone(),
            client_seed,
            game,
            turn,
            counter: 0,
            block: [0; SEED_LEN],
            pos: SEED_LEN,
        }
    }

    /// The dice of turn `turn` of game `game`, bytes >= 252 skipped.
    #[must_use]
    pub fn dice<'a>(&self, client_seed: &'a str, game: u32, turn: u32) -> DieStream<'a> {
        DieStream {
            bytes: self.bytes(client_seed, game, turn),
        }
    }

    /// The roll of turn `turn` of game `game`: the first two dice of its stream.
    ///
    /// Turn 0 is the stream of the opening roll; use [`Roller::opening_roll`]
    /// for it.
    #[must_use]
    pub fn roll(&self, client_seed: &str, game: u32, turn: u32) -> Dice {
        let mut dice = self.dice(client_seed, game, turn);
        let first = dice.next_die();
        let second = dice.next_die();
        Dice::new(first, second)
    }

    /// The opening roll of game `game`, read from the stream of turn 0.
    #[must_use]
    pub fn opening_roll(&self, client_seed: &str, game: u32) -> OpeningRoll {
        let mut dice = self.dice(client_seed, game, 0);
        let mut ties = 0u32;
        loop {
            let x_die = dice.next_die();
            let o_die = dice.next_die();
            if x_die != o_die {
                let starts = if x_die > o_die { Player::X } else { Player::O };
                return OpeningRoll {
                    x_die,
                    o_die,
                    starts,
                    ties,
                    dice: Dice::new(x_die, o_die),
                };
            }
            ties = ties.saturating_add(1);
        }
    }
}

/// The bytes of one roll's stream: the concatenated blocks
/// `HMAC-SHA256(key = server_seed, msg = client_seed || ":" || game || ":" || turn || ":" || counter)`
/// for `counter` = 0, 1, 2, ...
///
/// The iterator never ends. Its `Debug` output does not show the seed.
#[derive(Clone)]
pub struct ByteStream<'a> {
    mac: HmacSha256,
    client_seed: &'a str,
    game: u32,
    turn: u32,
    counter: u64,
    block: [u8; SEED_LEN],
    pos: usize,
}

impl fmt::Debug for ByteStream<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ByteStream")
            .field("client_seed", &self.client_seed)
            .field("game", &self.game)
            .field("turn", &self.turn)
            .field("counter", &self.counter)
            .field("pos", &self.pos)
            .finish_non_exhaustive()
    }
}

impl<'a> ByteStream<'a> {
    /// The byte stream of turn `turn` of game `game` under `server_seed`.
    #[must_use]
    pub fn new(
        server_seed: &[u8; SEED_LEN],
        client_seed: &'a str,
        game: u32,
        turn: u32,
    ) -> ByteStream<'a> {
        Roller::new(server_seed).bytes(client_seed, game, turn)
    }

    /// Block number `counter` of this stream, whatever has been read so far.
    #[must_use]
    pub fn block(&self, counter: u64) -> [u8; SEED_LEN] {
        let mut buf = [0u8; 20];
        let mut mac = self.mac.clone();
        mac.update(self.client_seed.as_bytes());
        mac.update(b":");
        mac.update(crate::digits::unsigned(u64::from(self.game), &mut buf));
        mac.update(b":");
        mac.update(crate::digits::unsigned(u64::from(self.turn), &mut buf));
        mac.update(b":");
        mac.update(crate::digits::unsigned(counter, &mut buf));
        mac.finalize().into_bytes().into()
    }

    /// The next byte of the stream.
    pub fn next_byte(&mut self) -> u8 {
        if self.pos == SEED_LEN {
            self.block = self.block(self.counter);
            // 2^64 blocks are out of reach; wrapping only keeps this total.
            self.counter = self.counter.wrapping_add(1);
            self.pos = 0;
        }
        let b = self.block[self.pos];
        self.pos += 1;
        b
    }
}

impl Iterator for ByteStream<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        Some(self.next_byte())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The dice of one roll's stream: each byte `b < 252` of its [`ByteStream`]
/// gives the die `(b mod 6) + 1`, bytes `>= 252` are skipped.
///
/// The iterator never ends. Its `Debug` output does not show the seed.
#[derive(Debug, Clone)]
pub struct DieStream<'a> {
    bytes: ByteStream<'a>,
}

impl<'a> DieStream<'a> {
    /// The die stream of turn `turn` of game `game` under `server_seed`.
    #[must_use]
    pub fn new(
        server_seed: &[u8; SEED_LEN],
        client_seed: &'a str,
        game: u32,
        turn: u32,
    ) -> DieStream<'a> {
        Roller::new(server_seed).dice(client_seed, game, turn)
    }

    /// The next die of the stream.
    pub fn next_die(&mut self) -> Die {
        loop {
            if let Some(die) = die_from_byte(self.bytes.next_byte()) {
                return die;
            }
        }
    }
}

impl Iterator for DieStream<'_> {
    type Item = Die;

    fn next(&mut self) -> Option<Die> {
        Some(self.next_die())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The roll of turn `turn` of game `game`: the first two dice of its stream.
///
/// Same arguments, same dice, on any machine. Turn 0 is the stream of the
/// opening roll; use [`opening_roll`] for it.
#[must_use]
pub fn roll(server_seed: &[u8; SEED_LEN], client_seed: &str, game: u32, turn: u32) -> Dice {
    Roller::new(server_seed).roll(client_seed, game, turn)
}

/// The opening roll of a game: who starts, with which dice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpeningRoll {
    /// x's die of the deciding throw.
    pub x_die: Die,
    /// o's die of the deciding throw (never equal to `x_die`).
    pub o_die: Die,
    /// The player with the higher die, who plays both dice.
    pub starts: Player,
    /// How many tied throws came before the deciding one (for automatic
    /// doubles).
    pub ties: u32,
    /// The starter's roll: `x_die` then `o_die`, in stream order.
    pub dice: Dice,
}

/// The opening roll of game `game`: the stream of turn 0 read as pairs
/// (x's die, o's die); a tie is thrown again and counted in
/// [`OpeningRoll::ties`], and the higher die starts with both dice as its
/// roll.
///
/// Without a tie, [`OpeningRoll::dice`] equals `roll(server_seed, client_seed, game, 0)`.
#[must_use]
pub fn opening_roll(server_seed: &[u8; SEED_LEN], client_seed: &str, game: u32) -> OpeningRoll {
    Roller::new(server_seed).opening_roll(client_seed, game)
}

/// A roll someone claims was dealt, to be checked against a revealed seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClaimedRoll<'a> {
    /// The client seed the roll was asked with.
    pub client_seed: &'a str,
    /// The game number.
    pub game: u32,
    /// The turn number; 0 is the opening roll, checked against
    /// [`OpeningRoll::dice`].
    pub turn: u32,
    /// The dice claimed, in the order dealt.
    pub dice: Dice,
}

/// The check of one claimed roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RollCheck {
    /// The dice claimed.
    pub claimed: Dice,
    /// The dice the seed gives for the same client seed, game and turn.
    pub expected: Dice,
    /// Whether `claimed` equals `expected`, order included.
    pub matches: bool,
}

/// The result of [`verify_rolls`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Verdict {
    /// `SHA-256(server_seed)`: the commitment the revealed seed opens.
    pub seed_commitment: [u8; SEED_LEN],
    /// Whether `seed_commitment` equals the published commitment.
    pub commitment_matches: bool,
    /// One check per claimed roll, in the order given.
    pub rolls: Vec<RollCheck>,
}

impl Verdict {
    /// Whether the commitment and every roll match.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.commitment_matches && self.rolls.iter().all(|r| r.matches)
    }

    /// Indices of the claimed rolls that do not match.
    pub fn mismatches(&self) -> impl Iterator<Item = usize> + '_ {
        self.rolls
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.matches)
            .map(|(i, _)| i)
    }
}

/// Checks a revealed server seed against the published commitment, and each
/// claimed roll against the dice that seed gives.
///
/// A roll of turn 0 is compared with the opening roll's dice
/// ([`OpeningRoll::dice`]), every other turn with [`roll`]. The rolls are
/// checked even when the commitment does not match, so a caller can report
/// both.
#[must_use]
pub fn verify_rolls(
    server_seed: &[u8; SEED_LEN],
    commitment: &[u8; SEED_LEN],
    rolls: &[ClaimedRoll<'_>],
) -> Verdict {
    let roller = Roller::new(server_seed);
    let checks = rolls
        .iter()
        .map(|claim| {
            let expected = if claim.turn == 0 {
                roller.opening_roll(claim.client_seed, claim.game).dice
            } else {
                roller.roll(claim.client_seed, claim.game, claim.turn)
            };
            RollCheck {
                claimed: claim.dice,
                expected,
                matches: claim.dice == expected,
            }
        })
        .collect();
    let seed_commitment = self::commitment(server_seed);
    Verdict {
        seed_commitment,
        commitment_matches: seed_commitment == *commitment,
        rolls: checks,
    }
}

/// The exact bytes a roll's Ed25519 signature covers: the UTF-8 encoding of
///
/// ```text
/// "bgref-roll-v1\n" + match_id + "\n" + client_seed + "\n" + game + "\n"
///     + turn + "\n" + d1 + "\n" + d2 + "\n" + commitment
/// ```
///
/// where `game`, `turn`, `d1` and `d2` (the dice in the order dealt) are
/// decimal ASCII without leading zeros, `commitment` is the 64 lower-case
/// hex digits of the match's commitment, and there is no trailing newline.
/// For example
/// `bgref-roll-v1\nmatch-0001\nalice:bob\n1\n1\n3\n5\naebb…43cc`.
///
/// Fields are separated by `\n` and nothing is escaped, so the encoding is
/// unambiguous only if `match_id` and `client_seed` contain no `\n`: the
/// service must reject such inputs before signing.
#[must_use]
pub fn roll_signing_bytes(
    match_id: &str,
    client_seed: &str,
    game: u32,
    turn: u32,
    dice: Dice,
    commitment: &[u8; SEED_LEN],
) -> Vec<u8> {
    let mut buf = [0u8; 20];
    let mut out = Vec::with_capacity(
        ROLL_SIGNING_TAG.len() + match_id.len() + client_seed.len() + 2 * SEED_LEN + 40,
    );
    out.extend_from_slice(ROLL_SIGNING_TAG.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(match_id.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(client_seed.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(crate::digits::unsigned(u64::from(game), &mut buf));
    out.push(b'\n');
    out.extend_from_slice(crate::digits::unsigned(u64::from(turn), &mut buf));
    out.push(b'\n');
    out.push(b'0' + dice.first().get());
    out.push(b'\n');
    out.push(b'0' + dice.second().get());
    out.push(b'\n');
    out.extend_from_slice(to_hex(commitment).as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    const SECRET: [u8; 32] = {
        let mut s = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            s[i] = i as u8;
            i += 1;
        }
        s
    };

    fn dice(a: u8, b: u8) -> Dice {
        Dice::new(Die::new(a), Die::new(b))
    }

    #[test]
    fn decimal_digits() {
        let mut buf = [0u8; 20];
        assert_eq!(crate::digits::unsigned(0, &mut buf), b"0");
        assert_eq!(crate::digits::unsigned(7, &mut buf), b"7");
        assert_eq!(crate::digits::unsigned(100, &mut buf), b"100");
        assert_eq!(
            crate::digits::unsigned(u64::MAX, &mut buf),
            b"18446744073709551615"
        );
    }

    #[test]
    fn hex_round_trip() {
        let bytes: [u8; 32] = core::array::from_fn(|i| (i * 37) as u8);
        let hex = to_hex(&bytes);
        assert_eq!(hex.len(), 64);
        assert_eq!(hex, hex.to_ascii_lowercase());
        assert_eq!(parse_hex32(&hex), Ok(bytes));
        assert_eq!(parse_hex32(&hex.to_ascii_uppercase()), Ok(bytes));
        assert_eq!(parse_hex32(&hex[..62]), Err(ParseHexError));
        assert_eq!(parse_hex32(&format!("{hex}00")), Err(ParseHexError));
        assert_eq!(parse_hex32(&format!("0x{}", &hex[2..])), Err(ParseHexError));
        assert_eq!(parse_hex32(&"é".repeat(32)), Err(ParseHexError));
        assert_eq!(
            format!("{ParseHexError}"),
            "expected exactly 64 hexadecimal digits"
        );
    }

    #[test]
    fn seed_and_commitment_match_the_published_vector() {
        let seed = server_seed(&SECRET, "match-0001");
        assert_eq!(
            to_hex(&seed),
            "6025512f08ad4012896b8d1ad5ca00f965105f03adc2205032d249edbfc8bc2b"
        );
        assert_eq!(
            to_hex(&commitment(&seed)),
            "aebb1934451e5e78c63cde858fb88b5eac408be3bd1d8cdd9baf6312ec7443cc"
        );
        assert_ne!(seed, server_seed(&SECRET, "match-0002"));
        assert_ne!(seed, server_seed(&SECRET[1..], "match-0001"));
    }

    #[test]
    fn byte_to_die() {
        assert_eq!(die_from_byte(0), Some(Die::new(1)));
        assert_eq!(die_from_byte(5), Some(Die::new(6)));
        assert_eq!(die_from_byte(6), Some(Die::new(1)));
        assert_eq!(die_from_byte(251), Some(Die::new(6)));
        for b in 252..=255 {
            assert_eq!(die_from_byte(b), None);
        }
        // Each face comes from exactly 42 byte values.
        let mut counts = [0u32; 6];
        for b in 0..=255u8 {
            if let Some(d) = die_from_byte(b) {
                counts[usize::from(d.get() - 1)] += 1;
            }
        }
        assert_eq!(counts, [42; 6]);
    }

    #[test]
    fn stream_is_blocks_of_hmac() {
        let seed = server_seed(&SECRET, "match-0001");
        let stream = ByteStream::new(&seed, "alice:bob", 1, 15);
        let mut mac = keyed(&seed);
        mac.update(b"alice:bob:1:15:0");
        let block0: [u8; 32] = mac.finalize().into_bytes().into();
        assert_eq!(stream.block(0), block0);
        let mut mac = keyed(&seed);
        mac.update(b"alice:bob:1:15:1");
        let block1: [u8; 32] = mac.finalize().into_bytes().into();
        let first_64: Vec<u8> = stream.take(64).collect();
        assert_eq!(first_64[..32], block0);
        assert_eq!(first_64[32..], block1);
    }

    #[test]
    fn die_stream_skips_high_bytes() {
        // Published rejection example: the first block holds 0xfe at index 1.
        let seed = server_seed(&SECRET, "match-0001");
        let bytes = ByteStream::new(&seed, "alice:bob", 1, 15);
        let block = bytes.block(0);
        assert_eq!(block[0], 0x27);
        assert_eq!(block[1], 0xfe);
        let expected: Vec<Die> = block.iter().filter_map(|&b| die_from_byte(b)).collect();
        let got: Vec<Die> = DieStream::new(&seed, "alice:bob", 1, 15)
            .take(expected.len())
            .collect();
        assert_eq!(got, expected);
        assert_eq!(roll(&seed, "alice:bob", 1, 15), dice(4, 1));
    }

    #[test]
    fn rolls_are_deterministic_and_depend_on_every_input() {
        let seed = server_seed(&SECRET, "match-0001");
        assert_eq!(roll(&seed, "alice:bob", 1, 1), dice(3, 5));
        assert_eq!(
            roll(&seed, "alice:bob", 1, 1),
            roll(&seed, "alice:bob", 1, 1)
        );
        let roller = Roller::new(&seed);
        assert_eq!(roller.roll("alice:bob", 2, 100), dice(6, 5));
        // A roll is the first two dice of its stream.
        let first_two: Vec<Die> = roller.dice("alice:bob", 1, 2).take(2).collect();
        assert_eq!(
            roller.roll("alice:bob", 1, 2).values(),
            [first_two[0].get(), first_two[1].get()]
        );
        // Over a handful of turns, changing any input changes some roll.
        let base: Vec<Dice> = (1..=8).map(|t| roller.roll("alice:bob", 1, t)).collect();
        let other_seed: Vec<Dice> = (1..=8).map(|t| roller.roll("alice:bob!", 1, t)).collect();
        let other_game: Vec<Dice> = (1..=8).map(|t| roller.roll("alice:bob", 2, t)).collect();
        assert_ne!(base, other_seed);
        assert_ne!(base, other_game);
    }

    #[test]
    fn opening_rolls() {
        let seed = server_seed(&SECRET, "match-0001");
        let opening = opening_roll(&seed, "alice:bob", 1);
        assert_eq!(
            opening,
            OpeningRoll {
                x_die: Die::new(6),
                o_die: Die::new(5),
                starts: Player::X,
                ties: 0,
                dice: dice(6, 5),
            }
        );
        let opening = opening_roll(&seed, "alice:bob", 2);
        assert_eq!((opening.starts, opening.dice), (Player::O, dice(1, 4)));
        // Find games with ties and check them against the raw die stream.
        let roller = Roller::new(&seed);
        let mut tied_games = 0;
        for game in 1..=200 {
            let opening = roller.opening_roll("alice:bob", game);
            let stream: Vec<Die> = roller.dice("alice:bob", game, 0).take(64).collect();
            let pairs: Vec<(Die, Die)> = stream.chunks_exact(2).map(|p| (p[0], p[1])).collect();
            let ties = pairs.iter().take_while(|(x, o)| x == o).count();
            assert_eq!(opening.ties as usize, ties);
            assert_eq!((opening.x_die, opening.o_die), pairs[ties]);
            assert_ne!(opening.x_die, opening.o_die);
            let high = opening.x_die.max(opening.o_die);
            assert_eq!(
                high,
                if opening.starts == Player::X {
                    opening.x_die
                } else {
                    opening.o_die
                }
            );
            if ties == 0 {
                assert_eq!(opening.dice, roller.roll("alice:bob", game, 0));
            } else {
                tied_games += 1;
            }
        }
        // About one game in six opens with a tie.
        assert!(tied_games > 10, "{tied_games}");
    }

    #[test]
    fn verify_good_and_bad_rolls() {
        let seed = server_seed(&SECRET, "match-0001");
        let good = commitment(&seed);
        let opening = opening_roll(&seed, "alice:bob", 1).dice;
        let claims = [
            ClaimedRoll {
                client_seed: "alice:bob",
                game: 1,
                turn: 0,
                dice: opening,
            },
            ClaimedRoll {
                client_seed: "alice:bob",
                game: 1,
                turn: 1,
                dice: dice(3, 5),
            },
            ClaimedRoll {
                client_seed: "alice:bob",
                game: 1,
                turn: 2,
                dice: dice(5, 2),
            },
        ];
        let verdict = verify_rolls(&seed, &good, &claims);
        assert!(verdict.commitment_matches);
        assert!(verdict.is_valid());
        assert_eq!(verdict.mismatches().count(), 0);

        // Swapped order is a different roll; a wrong face is caught too.
        let bad = [
            ClaimedRoll {
                client_seed: "alice:bob",
                game: 1,
                turn: 1,
                dice: dice(5, 3),
            },
            ClaimedRoll {
                client_seed: "alice:bob",
                game: 1,
                turn: 2,
                dice: dice(5, 2),
            },
            ClaimedRoll {
                client_seed: "alice:bob",
                game: 1,
                turn: 3,
                dice: dice(6, 6),
            },
        ];
        let verdict = verify_rolls(&seed, &good, &bad);
        assert!(!verdict.is_valid());
        assert_eq!(verdict.mismatches().collect::<Vec<_>>(), [0, 2]);
        assert_eq!(verdict.rolls[0].expected, dice(3, 5));
        assert_eq!(verdict.rolls[2].expected, dice(1, 5));

        // A seed that does not open the commitment.
        let other = server_seed(&SECRET, "match-0002");
        let verdict = verify_rolls(&other, &good, &claims[..1]);
        assert!(!verdict.commitment_matches);
        assert_eq!(verdict.seed_commitment, commitment(&other));
        assert!(!verdict.is_valid());
        let empty = verify_rolls(&seed, &good, &[]);
        assert!(empty.is_valid());
    }

    #[test]
    fn signing_bytes_format() {
        let seed = server_seed(&SECRET, "match-0001");
        let c = commitment(&seed);
        let bytes = roll_signing_bytes("match-0001", "alice:bob", 1, 100, dice(3, 1), &c);
        assert_eq!(
            core::str::from_utf8(&bytes).ok(),
            Some(
                "bgref-roll-v1\nmatch-0001\nalice:bob\n1\n100\n3\n1\n\
                 aebb1934451e5e78c63cde858fb88b5eac408be3bd1d8cdd9baf6312ec7443cc"
            )
        );
        let bytes = roll_signing_bytes("東京-ü", "", 0, 0, dice(6, 6), &c);
        assert!(bytes.starts_with("bgref-roll-v1\n東京-ü\n\n0\n0\n6\n6\n".as_bytes()));
    }

    #[test]
    fn debug_hides_the_seed() {
        let seed = [0xabu8; 32];
        let roller = Roller::new(&seed);
        let text = format!(
            "{roller:?} {:?} {:?}",
            roller.bytes("c", 1, 2),
            roller.dice("c", 1, 2)
        );
        assert!(!text.contains("171"), "{text}");
        assert!(!text.to_ascii_lowercase().contains("abab"), "{text}");
        assert!(text.contains("ByteStream"));
    }
}

//! Every encoding of a position from one pass over its checkers: what a
//! legal-moves answer writes for each of its plays.
//!
//! [`PositionId::encode`], [`Xgid::write_to`], [`FibsBoard::write_to`],
//! [`Setup::to_signed`] and [`Position::pip_count`] each start again from
//! the position (a [`Setup`] per encoding, a pass over 26 points each, a
//! check for counts no position has). [`Encodings`] reads the two sides'
//! counts once, eight points to a word, and derives every encoding from
//! those words: the signed board, the XGID's letters and the FIBS board's
//! tokens from the same pair of words, the pips and the Position ID's bits
//! from the same sums. A [`Position`] has at most 15 checkers a side, so
//! no count needs the writers' fallbacks.
//!
//! What does not depend on the checkers (the XGID's fields after the
//! board, the FIBS board's tokens around it) is written once by an
//! [`Encoder`] for every position of an answer.
//!
//! The texts are byte for byte those of the writers named above, for the
//! same fields (`tests/encoders.rs` compares them on every play of the
//! benchmark's 4 000 positions and on random positions): the XGID of
//! `Xgid { setup: position.to_setup(), ..game }` and the FIBS board
//! `FibsBoard::in_game(position, game)` (the game's score, match length,
//! [`UNLIMITED`](fibs::UNLIMITED) in money play, cube, dice, doubling and
//! Crawford flags).
//!
//! [`PositionId::encode`]: super::position_id::PositionId::encode
//! [`FibsBoard::write_to`]: super::fibs::FibsBoard::write_to
//! [`Setup::to_signed`]: crate::Setup::to_signed
//! [`Setup`]: crate::Setup

use alloc::vec::Vec;
use core::cell::Cell;

use super::fibs;
use super::position_id::{self, WordZeros};
use super::xgid::{self, Xgid};
use crate::digits::Text;
use crate::player::{ByPlayer, Player};
use crate::position::Position;
use crate::setup::{BYTES, Setup, nonzero_bytes_mask, signed_of_eight};

/// The longest fixed text an [`Encoder`] holds (an XGID's fields after the
/// board: 50 bytes) and the slack its writers store past it, rounded up:
/// each is copied as a whole block.
const BLOCK: usize = 64;

/// A text of at most [`BLOCK`] bytes, copied as one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    bytes: [u8; BLOCK],
    len: u8,
}

impl Block {
    /// What `write` writes (at most `BLOCK - Text::SLACK` bytes, the
    /// texts' bounds below).
    fn written(write: impl FnOnce(&mut Text<'_, BLOCK>)) -> Block {
        let mut bytes = [0u8; BLOCK];
        let mut text = Text::new(&mut bytes);
        write(&mut text);
        // The block is at most 64 bytes.
        let len = text.finish().len() as u8;
        Block { bytes, len }
    }

    #[inline(always)]
    fn append_to<const N: usize>(&self, out: &mut Text<'_, N>) {
        out.block(&self.bytes, usize::from(self.len));
    }
}

/// The fields of every position of an answer that do not depend on its
/// checkers, written once: the XGID's cube, dice, score, rules and match
/// fields, and the FIBS board's match length, scores and cube, for each
/// player on roll. It also keeps what it derived from the last position's
/// words (so it is not `Sync`: one encoder per answer): the positions of
/// an answer are those after each legal play of one position, and a play
/// changes few of them.
#[derive(Debug, Clone)]
pub struct Encoder {
    /// The XGID after the board (50 bytes at most: nine colons and 41
    /// characters), by the player on roll.
    xgid_fields: ByPlayer<Block>,
    /// The FIBS board before the board tokens (42 bytes at most).
    fibs_head: Block,
    /// The FIBS board between the bars and the borne-off counts (39 bytes
    /// at most), by the player on roll.
    fibs_middle: ByPlayer<Block>,
    /// The FIBS board's last four tokens (the Crawford flag), in a word.
    fibs_tail: u64,
    /// The Position ID part of the last side on roll keyed: in the
    /// positions after each legal play of one position, the side on roll
    /// (the mover's opponent) is the same unless the play hits, so its
    /// part is made once for most of an answer's plays.
    on_roll_key: Last<([u64; 3], u8), u64>,
    /// The last side not on roll's words and their Position ID parts, by
    /// word: in an answer that side is the mover, whose words change with
    /// every play, but not all of them (on the benchmark's answers, 1.3 of
    /// the 3 on average are those of the play before).
    opponent_words: [Last<u64, WordZeros>; 3],
}

/// The value made from a key last time, with its key: for what an
/// answer's positions share with the position before (a side, a word of
/// a side), which a play leaves as the play before left it.
#[derive(Debug, Clone)]
struct Last<K: Copy, V: Copy>(Cell<(K, V)>);

impl<K: Copy + PartialEq, V: Copy> Last<K, V> {
    /// Holding `make(key)` for `key`.
    fn new(key: K, make: impl FnOnce(K) -> V) -> Last<K, V> {
        Last(Cell::new((key, make(key))))
    }

    /// `make(key)`, kept from last time or made (and kept).
    #[inline(always)]
    fn get(&self, key: K, make: impl FnOnce(K) -> V) -> V {
        let (last_key, value) = self.0.get();
        if last_key == key {
            return value;
        }
        let value = make(key);
        self.0.set((key, value));
        value
    }
}

impl Encoder {
    /// The encodings in a game with `game`'s fields besides the checkers
    /// and the turn (its `setup` is not read): every XGID has its cube
    /// value and owner, dice, scores, rules and match length and maximum
    /// cube; every FIBS board its scores, match length ([`UNLIMITED`](fibs::UNLIMITED) for
    /// a match length of 0, money play), cube value, dice and doubling and
    /// Crawford flags ([`FibsBoard::in_game`](super::fibs::FibsBoard::in_game)).
    #[must_use]
    pub fn new(game: &Xgid) -> Encoder {
        let match_length = fibs::match_length_of(game.match_length);
        Encoder {
            xgid_fields: ByPlayer::new_with(|turn| {
                Block::written(|text| game.write_fields(turn, text))
            }),
            fibs_head: Block::written(|text| fibs::write_head(match_length, game.score, text)),
            fibs_middle: ByPlayer::new_with(|turn| {
                Block::written(|text| {
                    fibs::write_middle_with(
                        game.cube_value.get(),
                        turn,
                        game.rolled_dice(),
                        fibs::GameFlags::of(game, turn),
                        text,
                    );
                })
            }),
            fibs_tail: u64::from_le_bytes(*fibs::GameFlags::of(game, Player::X).tail()),
            on_roll_key: Last::new(([0; 3], 0), side_bits),
            opponent_words: [(); 3].map(|()| Last::new(0, WordZeros::of)),
        }
    }

    /// The encodings in money play with a centred 1-cube at 0-0, dice not
    /// rolled: what [`Xgid::from_position`] and
    /// [`FibsBoard::from_position`](super::fibs::FibsBoard::from_position)
    /// write.
    #[must_use]
    pub fn money() -> Encoder {
        Encoder::new(&Xgid::money(Setup::empty(Player::X)))
    }

    /// The encodings of `position`: its counts read once, nothing written
    /// yet (each encoding is written on demand, from the same words).
    #[must_use]
    #[inline]
    pub fn encode<'e>(&'e self, position: &Position) -> Encodings<'e> {
        let side = |player: Player| position.side(player);
        let (x, o) = (side(Player::X), side(Player::O));
        // Little-endian words of x's points from x's point 1; o's points
        // backwards (big-endian from o's point 24 down): byte k of word i
        // is each player's count on x's point 8 i + k + 1.
        let x_word = |at: usize| u64::from_le_bytes(eight(&x[at..]));
        let o_word = |at: usize| u64::from_be_bytes(eight(&o[at..]));
        Encodings {
            encoder: self,
            turn: position.turn(),
            x: [x_word(1), x_word(9), x_word(17)],
            o: [o_word(17), o_word(9), o_word(1)],
            bar: ByPlayer { x: x[25], o: o[25] },
            off: ByPlayer { x: x[0], o: o[0] },
        }
    }
}

/// The Position ID part of a side with the counts `words` (own view,
/// slots 0 to 23 eight a word) and `bar`.
#[inline(always)]
fn side_bits((words, bar): ([u64; 3], u8)) -> u64 {
    position_id::position_side_key(words, bar).0
}

/// The first eight bytes of `bytes` (at least eight).
#[inline(always)]
fn eight(bytes: &[u8]) -> [u8; 8] {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[..8]);
    word
}

/// The spare capacity [`Encodings::write_fibs`] needs at the end of the
/// buffer not to grow it (its line is at most 205 bytes): the head block
/// (copied whole at 0, its text at most 42 bytes), the bars and board (26
/// tokens of at most 4 bytes, each stored as a word: up to 4 past the
/// last), the middle block (copied whole after at most 146 bytes), the
/// counts (two pairs, at most 12 bytes) and `:0:0:0:0`: 146 + 64 (a
/// block) bytes, rounded up.
pub const FIBS_ROOM: usize = 224;
const _: () = assert!(42 + 26 * 4 + BLOCK + Text::<'static, FIBS_ROOM>::SLACK <= FIBS_ROOM);

/// The spare capacity [`Encodings::write_xgid`] needs at the end of the
/// buffer not to grow it (its text is at most 81 bytes): `XGID=`, the
/// board (26 letters) and the fields block copied whole, 31 + 64 (a
/// block) bytes, rounded up.
pub const XGID_ROOM: usize = 96;
const _: () = assert!(31 + BLOCK <= XGID_ROOM);

/// `XGID=` in a word (its five bytes first).
const XGID_PREFIX: u64 = u64::from_le_bytes(*b"XGID=\0\0\0");

/// The weights 7 - k of byte k: byte 7 of a word times it is the sum of
/// k times byte k of the word.
const WEIGHTS: u64 = 0x0001_0203_0405_0607;

/// The encodings of one position, read by [`Encoder::encode`]; each
/// method writes one encoding.
#[derive(Debug, Clone, Copy)]
pub struct Encodings<'e> {
    encoder: &'e Encoder,
    turn: Player,
    /// x's counts on x's points, eight a word: byte `k` of word `i` is x's
    /// point `8 i + k + 1`.
    x: [u64; 3],
    /// o's counts on the same points (x's point `8 i + k + 1` is o's point
    /// `24 - 8 i - k`).
    o: [u64; 3],
    bar: ByPlayer<u8>,
    off: ByPlayer<u8>,
}

impl Encodings<'_> {
    /// The player on roll.
    #[must_use]
    pub fn turn(&self) -> Player {
        self.turn
    }

    /// Checkers on the bar.
    #[must_use]
    pub fn bar(&self) -> ByPlayer<u8> {
        self.bar
    }

    /// Checkers borne off.
    #[must_use]
    pub fn off(&self) -> ByPlayer<u8> {
        self.off
    }

    /// The gnubg Position ID's 14 characters, as
    /// [`PositionId::encode`](super::position_id::PositionId::encode)
    /// writes them.
    #[must_use]
    pub fn position_id(&self) -> [u8; 14] {
        // Each side from its own view: x's words as they are, o's words
        // in the other order with their bytes swapped.
        let own = ByPlayer {
            x: self.x,
            o: [
                self.o[2].swap_bytes(),
                self.o[1].swap_bytes(),
                self.o[0].swap_bytes(),
            ],
        };
        let (on_roll, opponent) = (self.turn, !self.turn);
        let words = own[opponent];
        let parts =
            core::array::from_fn(|i| self.encoder.opponent_words[i].get(words[i], WordZeros::of));
        let (opponent_bits, opponent_len) =
            position_id::side_key_of_words(parts, self.bar[opponent]);
        let on_roll_bits = self
            .encoder
            .on_roll_key
            .get((own[on_roll], self.bar[on_roll]), side_bits);
        // 80 bits at most: each side's part is 40 bits at most, and the
        // opponent's at least 25 (so the shifts are below 64).
        position_id::key_text_of_halves(
            opponent_bits | on_roll_bits << opponent_len,
            on_roll_bits >> (64 - opponent_len),
        )
    }

    /// The signed board, as [`Setup::to_signed`](crate::Setup::to_signed)
    /// writes the position's setup: `points[i]` is point `i + 1` from x's
    /// side, x's checkers positive, o's negative.
    #[must_use]
    pub fn points(&self) -> [i8; 24] {
        let mut points = [0i8; 24];
        for ((&x, &o), chunk) in self.x.iter().zip(&self.o).zip(points.chunks_exact_mut(8)) {
            for (point, byte) in chunk.iter_mut().zip(signed_of_eight(x, o).to_le_bytes()) {
                *point = i8::from_ne_bytes([byte]);
            }
        }
        points
    }

    /// The signed board's counts ([`Encodings::points`]) as the bytes of
    /// their protobuf `sint32` zigzag varints: `2 n` for x's `n` checkers,
    /// `2 n - 1` for o's `n`, each one byte (at most 30), computed from
    /// the words eight points at a time as the signed counts are
    /// computed (x's count where x has checkers, else o's).
    #[must_use]
    pub fn zigzag_points(&self) -> [u8; 24] {
        let mut bytes = [0u8; 24];
        for ((&x, &o), chunk) in self.x.iter().zip(&self.o).zip(bytes.chunks_exact_mut(8)) {
            let (x_has, o_has) = (nonzero_bytes_mask(x), nonzero_bytes_mask(o));
            // Counts of at most 15: doubled, no byte reaches the next;
            // `2 o - 1` only where o has checkers, so nothing borrows.
            let minus_o = ((o << 1) - (o_has & BYTES)) & o_has;
            let word = ((x << 1) & x_has) | (minus_o & !x_has);
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }

    /// Both players' pip counts, as [`Position::pip_count`] counts them.
    #[must_use]
    pub fn pips(&self) -> ByPlayer<u32> {
        // Per word: its checkers (byte 7 of the word times `BYTES`) and
        // the sum of k times byte k (byte 7 of the word times `WEIGHTS`);
        // with at most 15 checkers no byte of either product carries.
        // Then the sum of each count times its point number from x's side.
        let sums = |words: &[u64; 3]| {
            let (mut checkers, mut by_point) = (0u64, 0u64);
            for (i, &w) in words.iter().enumerate() {
                let n = w.wrapping_mul(BYTES) >> 56;
                checkers += n;
                by_point += (8 * i as u64 + 1) * n + (w.wrapping_mul(WEIGHTS) >> 56);
            }
            (checkers, by_point)
        };
        let (_, x_by_point) = sums(&self.x);
        let (o_checkers, o_by_point) = sums(&self.o);
        // o's point for x's point p is 25 - p; a bar counts 25.
        ByPlayer {
            x: (x_by_point + 25 * u64::from(self.bar.x)) as u32,
            o: (25 * (o_checkers + u64::from(self.bar.o)) - o_by_point) as u32,
        }
    }

    /// Appends the XGID, as [`Xgid::write_to`] writes it.
    pub fn write_xgid(&self, out: &mut Vec<u8>) {
        append::<XGID_ROOM>(out, |text| {
            text.word(
                XGID_PREFIX | u64::from(xgid::O_LETTERS[usize::from(self.bar.o)]) << 40,
                6,
            );
            for (&x, &o) in self.x.iter().zip(&self.o) {
                text.word(xgid::letters_of_eight(x, o), 8);
            }
            text.bytes(&[xgid::X_LETTERS[usize::from(self.bar.x)]]);
            self.encoder.xgid_fields[self.turn].append_to(text);
        });
    }

    /// Appends the FIBS board, as
    /// [`FibsBoard::write_to`](super::fibs::FibsBoard::write_to) writes it.
    pub fn write_fibs(&self, out: &mut Vec<u8>) {
        append::<FIBS_ROOM>(out, |text| {
            self.encoder.fibs_head.append_to(text);
            // The player (x) is O moving 24 to 1: the opponent's bar at
            // index 0, then x's points 1 to 24, then x's bar at 25.
            text.colon_int(-i64::from(self.bar.o));
            for (&x, &o) in self.x.iter().zip(&self.o) {
                fibs::eight_points(x, o, text);
            }
            text.colon_int(i64::from(self.bar.x));
            self.encoder.fibs_middle[self.turn].append_to(text);
            fibs::write_counts(self.off, self.bar, text);
            text.word(self.encoder.fibs_tail, 8);
        });
    }
}

/// Appends what `write` writes into `N` bytes at the end of `out`: they
/// are added as zeros (a fill of known size), written in place and cut to
/// the text's length, with no buffer on the stack and no copy of variable
/// length. `out` needs `N` bytes of spare capacity not to grow.
#[inline(always)]
fn append<const N: usize>(out: &mut Vec<u8>, write: impl FnOnce(&mut Text<'_, N>)) {
    let start = out.len();
    out.extend_from_slice(&[0; N]);
    let len = match out[start..].first_chunk_mut::<N>() {
        Some(buf) => {
            let mut text = Text::new(buf);
            write(&mut text);
            text.finish().len()
        }
        // Never: `N` bytes were just added.
        None => 0,
    };
    out.truncate(start + len);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BackgammonVariant;
    use crate::notation::fibs::FibsBoard;
    use crate::notation::position_id::PositionId;

    #[test]
    fn the_start_in_every_encoding() {
        let position = Position::start(BackgammonVariant::Standard, Player::X);
        let encoder = Encoder::money();
        let encodings = encoder.encode(&position);
        assert_eq!(&encodings.position_id(), b"4HPwATDgc/ABMA");
        let mut out = b"prefix".to_vec();
        encodings.write_xgid(&mut out);
        assert_eq!(
            out,
            b"prefixXGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
        );
        let mut out = Vec::new();
        encodings.write_fibs(&mut out);
        let mut expected = Vec::new();
        FibsBoard::from_position(&position).write_to(&mut expected);
        assert_eq!(out, expected);
        assert_eq!(encodings.pips(), ByPlayer { x: 167, o: 167 });
        assert_eq!(encodings.points(), position.to_setup().to_signed());
        let zigzag = position
            .to_setup()
            .to_signed()
            .map(|n| ((i32::from(n) << 1) ^ (i32::from(n) >> 31)) as u8);
        assert_eq!(encodings.zigzag_points(), zigzag);
        let swapped = encoder.encode(&position.swap_turn());
        assert_eq!(swapped.zigzag_points(), zigzag);
        assert_eq!(
            encodings.position_id(),
            PositionId::from_position(&position).encode()
        );
    }
}

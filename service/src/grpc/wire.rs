//! Protobuf written by hand, and the codec that sends it.
//!
//! For an answer whose prost message tree costs more than computing the
//! answer (a `LegalMoves` answer: a `String` per encoding and nested
//! messages with `Vec`s per play, then prost measuring each nested message
//! again at every level it is nested in), the bytes are written straight
//! from the domain values in one pass ([`super::moves_wire`]) and the
//! method's codec ([`EncodedCodec`]) sends them as they are. Requests are
//! still decoded by prost.
//!
//! The writers follow prost's encoding exactly (proto3: fields in field
//! number order, a scalar or string at its default value left out, a
//! present message written even when empty, repeated scalars packed), so
//! the bytes are the prost-generated type's; the tests compare them.

use std::marker::PhantomData;

use prost::bytes::BufMut as _;
use prost::encoding::{encode_varint, encoded_len_varint};
use tonic::Status;
use tonic::codec::{Codec, EncodeBuf, Encoder};

/// Wire type of varints (integers, enums, bools).
pub const VARINT: u8 = 0;
/// Wire type of length-delimited fields (strings, messages, packed
/// repeated scalars).
pub const LEN: u8 = 2;

/// The key of field `number` (1 to 15: one byte) with wire type `wire`.
pub const fn key(number: u8, wire: u8) -> u8 {
    number << 3 | wire
}

/// A `uint32` field (or a `bool`, as 0 or 1); left out at 0.
#[inline]
pub fn uint32(out: &mut Vec<u8>, number: u8, value: u32) {
    if value != 0 {
        out.push(key(number, VARINT));
        encode_varint(u64::from(value), out);
    }
}

/// The bytes of a [`uint32`] field.
#[inline]
pub fn uint32_len(value: u32) -> usize {
    if value == 0 {
        0
    } else {
        1 + encoded_len_varint(u64::from(value))
    }
}

/// An `int32` or enum field; left out at 0. A negative value takes ten
/// bytes (sign-extended to 64 bits), as protobuf has it.
#[inline]
pub fn int32(out: &mut Vec<u8>, number: u8, value: i32) {
    if value != 0 {
        out.push(key(number, VARINT));
        encode_varint(i64::from(value) as u64, out);
    }
}

/// A `string` or `bytes` field; left out when empty.
#[inline]
pub fn bytes(out: &mut Vec<u8>, number: u8, value: &[u8]) {
    if !value.is_empty() {
        out.push(key(number, LEN));
        encode_varint(value.len() as u64, out);
        out.extend_from_slice(value);
    }
}

/// A `string` field whose text `write` appends (a notation writer);
/// left out when it writes nothing. `reserved` as for [`message`].
#[inline]
pub fn string_with(
    out: &mut Vec<u8>,
    number: u8,
    reserved: usize,
    write: impl FnOnce(&mut Vec<u8>),
) -> usize {
    let start = out.len();
    let used = message(out, number, reserved, write);
    // Only an empty text leaves the key and a zero length.
    if out.len() == start + 2 {
        out.truncate(start);
    }
    used
}

/// A message field whose content `write` appends; written even when
/// empty (a present message). The content's length goes before it, in
/// `reserved` bytes held for it first; when the length takes another
/// number of bytes the content is moved (once, by a byte or two), so the
/// length is always the shortest varint, as prost writes it. Returns the
/// bytes the length took: the caller's guess for the next message of the
/// same kind, which is usually right.
#[inline]
pub fn message(
    out: &mut Vec<u8>,
    number: u8,
    reserved: usize,
    write: impl FnOnce(&mut Vec<u8>),
) -> usize {
    out.push(key(number, LEN));
    let at = open(out, reserved);
    write(out);
    close(out, at, reserved)
}

/// Holds `reserved` bytes (0 to 3) for a length at the end of `out` and
/// returns where they are, for [`close`] once the content is written.
#[inline]
pub fn open(out: &mut Vec<u8>, reserved: usize) -> usize {
    let at = out.len();
    // Three bytes, then cut: a copy of known size is a store, one of
    // the reserved size a `memcpy` call.
    out.extend_from_slice(&[0; 3]);
    out.truncate(at + reserved.min(3));
    at
}

/// Writes the length of everything after the `reserved` bytes [`open`]
/// held at `at` into them, as the shortest varint (the content moved when
/// it needs another number of bytes, as in [`message`]); returns the
/// bytes it took. The usual case (a guess that was right) is one store
/// or two.
#[inline(always)]
pub fn close(out: &mut Vec<u8>, at: usize, reserved: usize) -> usize {
    let len = out.len().wrapping_sub(at + reserved);
    match (reserved, len) {
        (1, 0..0x80) => {
            if let Some(byte) = out.get_mut(at) {
                *byte = len as u8;
                return 1;
            }
        }
        (2, 0x80..0x4000) => {
            if let Some([low, high]) = out.get_mut(at..at + 2) {
                *low = len as u8 | 0x80;
                *high = (len >> 7) as u8;
                return 2;
            }
        }
        _ => {}
    }
    close_moving(out, at, reserved)
}

/// [`close`] when the length needs another number of bytes than held.
#[cold]
#[inline(never)]
fn close_moving(out: &mut Vec<u8>, at: usize, reserved: usize) -> usize {
    let reserved = reserved.min(3);
    let end = out.len();
    let len = end - at - reserved;
    let used = encoded_len_varint(len as u64);
    if used > reserved {
        out.resize(end + used - reserved, 0);
        out.copy_within(at + reserved..end, at + used);
    } else if used < reserved {
        out.copy_within(at + reserved..end, at + used);
        out.truncate(end - (reserved - used));
    }
    let mut value = len as u64;
    for byte in &mut out[at..at + used] {
        *byte = (value & 0x7f) as u8 | 0x80;
        value >>= 7;
    }
    out[at + used - 1] &= 0x7f;
    used
}

/// Bytes gathered on the stack and appended to the answer in one copy:
/// for the fixed-size parts of a message (a board, the moves of a play),
/// which would otherwise be a dozen separate pushes, each checking the
/// vector's capacity and storing its length.
///
/// `N` is the most its writer can put in (each writer says how it is
/// bounded); writing past it is a bug, not an input error.
#[derive(Debug, Clone, Copy)]
pub struct Chunk<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Chunk<N> {
    /// An empty chunk.
    #[inline]
    pub fn new() -> Chunk<N> {
        Chunk {
            bytes: [0; N],
            len: 0,
        }
    }

    /// Appends `bytes` (a copy of known size when `M` is a constant).
    #[inline(always)]
    pub fn array<const M: usize>(&mut self, bytes: [u8; M]) {
        self.bytes[self.len..self.len + M].copy_from_slice(&bytes);
        self.len += M;
    }

    /// Appends two bytes (a one-byte key and a one-byte value or length).
    #[inline(always)]
    pub fn pair(&mut self, first: u8, second: u8) {
        self.bytes[self.len] = first;
        self.bytes[self.len + 1] = second;
        self.len += 2;
    }

    /// Lets `write` fill the next `M` bytes (it returns how many it
    /// wrote, at most `M`; those after are scratch) and keeps them; none
    /// when fewer than `M` bytes are left (a bug of the caller's bound).
    #[inline(always)]
    pub fn fill<const M: usize>(&mut self, write: impl FnOnce(&mut [u8; M]) -> usize) -> usize {
        let written = match self
            .bytes
            .get_mut(self.len..)
            .and_then(|rest| rest.first_chunk_mut::<M>())
        {
            Some(room) => write(room).min(M),
            None => 0,
        };
        self.len += written;
        written
    }

    /// Overwrites byte `at` of those gathered (a length written once the
    /// content after it is known).
    #[inline(always)]
    pub fn set(&mut self, at: usize, byte: u8) {
        if let Some(b) = self.bytes.get_mut(at) {
            *b = byte;
        }
    }

    /// Keeps the first `len` bytes gathered.
    #[inline(always)]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// A `PerPlayer` message field of two values below 2^14, present,
    /// as [`per_player`] writes it: the (at most 8) bytes made in a
    /// register by [`small_per_player`], stored at once.
    #[inline(always)]
    pub fn small_per_player(&mut self, number: u8, x: u16, o: u16) {
        let (word, len) = small_per_player(number, x, o);
        self.word(word, len);
    }

    /// Appends the low `len` bytes (at most 8) of `word`: all 8 stored,
    /// `len` kept, so it needs 8 bytes of room.
    #[inline(always)]
    pub fn word(&mut self, word: u64, len: usize) {
        self.bytes[self.len..self.len + 8].copy_from_slice(&word.to_le_bytes());
        self.len += len.min(8);
    }

    /// Appends the bytes gathered to `out`: all `N`, then cut to those
    /// gathered (a copy of known size is a few vector stores, one of the
    /// gathered length a `memcpy` call), so `out` needs `N` bytes of
    /// spare capacity not to grow.
    #[inline]
    pub fn append_to(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&self.bytes);
        out.truncate(start + self.len);
    }
}

impl<const N: usize> Default for Chunk<N> {
    fn default() -> Self {
        Chunk::new()
    }
}

/// A `PerPlayer` message field (`x` = 1, `o` = 2), present.
#[inline]
pub fn per_player(out: &mut Vec<u8>, number: u8, x: u32, o: u32) {
    out.push(key(number, LEN));
    encode_varint((uint32_len(x) + uint32_len(o)) as u64, out);
    uint32(out, 1, x);
    uint32(out, 2, o);
}

/// A packed `repeated uint32` field; left out when empty.
#[inline]
pub fn packed_uint32(out: &mut Vec<u8>, number: u8, values: &[u8]) {
    if values.is_empty() {
        return;
    }
    let len: usize = values
        .iter()
        .map(|&v| encoded_len_varint(u64::from(v)))
        .sum();
    out.push(key(number, LEN));
    encode_varint(len as u64, out);
    for &v in values {
        encode_varint(u64::from(v), out);
    }
}

/// A packed `repeated sint32` field (zigzag varints); left out when
/// empty. A board's counts (-64 to 63: one byte each) are written in one
/// piece.
#[inline]
pub fn packed_sint32(out: &mut Vec<u8>, number: u8, values: &[i8]) {
    if values.is_empty() {
        return;
    }
    if values.len() < 0x80 {
        let mut bytes = [0u8; 2 + 0x7f];
        let mut one_byte = true;
        for (byte, &v) in bytes[2..].iter_mut().zip(values) {
            one_byte &= (-64..64).contains(&v);
            // The zigzag of -64..=63 in 8 bits is its 32-bit zigzag.
            *byte = ((v << 1) ^ (v >> 7)) as u8;
        }
        if one_byte {
            bytes[0] = key(number, LEN);
            bytes[1] = values.len() as u8;
            out.extend_from_slice(&bytes[..2 + values.len()]);
            return;
        }
    }
    let zigzag = |v: i8| u64::from(((i32::from(v) << 1) ^ (i32::from(v) >> 31)) as u32);
    let len: usize = values.iter().map(|&v| encoded_len_varint(zigzag(v))).sum();
    out.push(key(number, LEN));
    encode_varint(len as u64, out);
    for &v in values {
        encode_varint(zigzag(v), out);
    }
}

/// A `uint32` field below 2^14 (one or two varint bytes; left out at 0,
/// as [`uint32`] does) as the low bytes of a word, and their count.
#[inline(always)]
const fn small_uint32(number: u8, value: u16) -> (u64, usize) {
    let key = key(number, VARINT) as u64;
    match value {
        0 => (0, 0),
        1..0x80 => (key | (value as u64) << 8, 2),
        _ => (
            key | ((value as u64 & 0x7f) | 0x80) << 8 | (value as u64 >> 7 & 0x7f) << 16,
            3,
        ),
    }
}

/// A `PerPlayer` message field (`x` = 1, `o` = 2) of two values below
/// 2^14, present, as [`per_player`] writes it: at most 8 bytes (key,
/// length and two fields of 3), as the low bytes of a word, and their
/// count.
#[inline(always)]
pub const fn small_per_player(number: u8, x: u16, o: u16) -> (u64, usize) {
    let (x, x_len) = small_uint32(1, x);
    let (o, o_len) = small_uint32(2, o);
    let word =
        key(number, LEN) as u64 | ((x_len + o_len) as u64) << 8 | x << 16 | o << (16 + 8 * x_len);
    (word, 2 + x_len + o_len)
}

/// A message already encoded as protobuf, as a method's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded(pub Vec<u8>);

/// The codec of a method that answers [`Encoded`] messages and takes
/// requests of the prost type `U`, decoded as the generated code does
/// (the same errors, the same buffers).
#[derive(Debug)]
pub struct EncodedCodec<U>(PhantomData<fn() -> U>);

impl<U> Default for EncodedCodec<U> {
    fn default() -> Self {
        EncodedCodec(PhantomData)
    }
}

impl<U: prost::Message + Default + Send + 'static> Codec for EncodedCodec<U> {
    type Encode = Encoded;
    type Decode = U;
    type Encoder = EncodedEncoder;
    type Decoder = tonic_prost::ProstDecoder<U>;

    fn encoder(&mut self) -> EncodedEncoder {
        EncodedEncoder
    }

    fn decoder(&mut self) -> tonic_prost::ProstDecoder<U> {
        tonic_prost::ProstDecoder::default()
    }
}

/// Copies an [`Encoded`] message into the response body.
#[derive(Debug, Clone, Copy, Default)]
pub struct EncodedEncoder;

impl Encoder for EncodedEncoder {
    type Item = Encoded;
    type Error = Status;

    fn encode(&mut self, item: Encoded, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item.0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use prost::encoding;

    /// What `write` appends to an empty buffer.
    fn written(write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out);
        out
    }

    /// Each writer against prost's own encoding of the same field, on
    /// the values an answer never has too (large, negative, long lists),
    /// and proto3's defaults left out.
    #[test]
    fn the_writers_write_what_prost_writes() {
        for value in [0u32, 1, 127, 128, 300, 16_384, u32::MAX] {
            let mut expected = Vec::new();
            if value != 0 {
                encoding::uint32::encode(3, &value, &mut expected);
            }
            assert_eq!(written(|out| super::uint32(out, 3, value)), expected);
            assert_eq!(super::uint32_len(value), expected.len());
        }
        for value in [0i32, 1, -1, 2, i32::MIN, i32::MAX] {
            let mut expected = Vec::new();
            if value != 0 {
                encoding::int32::encode(4, &value, &mut expected);
            }
            assert_eq!(written(|out| super::int32(out, 4, value)), expected);
        }
        for (x, o) in [(0, 0), (167, 0), (0, 5), (300, 20_000)] {
            let mut expected = Vec::new();
            encoding::message::encode(2, &crate::proto::PerPlayer { x, o }, &mut expected);
            assert_eq!(written(|out| super::per_player(out, 2, x, o)), expected);
        }
        let small = [0u16, 1, 127, 128, 300, 0x3fff];
        for (x, o) in small
            .iter()
            .flat_map(|&x| small.iter().map(move |&o| (x, o)))
        {
            let mut expected = Vec::new();
            let message = crate::proto::PerPlayer {
                x: x.into(),
                o: o.into(),
            };
            encoding::message::encode(3, &message, &mut expected);
            let (word, len) = super::small_per_player(3, x, o);
            assert_eq!(&word.to_le_bytes()[..len], &expected[..], "{x} {o}");
        }
        let signed: Vec<i8> = (-128..=127).collect();
        for values in [
            &[][..],
            &[0, 5, -15, 63, -64][..],
            &[64, -65, 1][..],
            &[-3; 127][..],
            &[2; 128][..],
            &signed[..],
        ] {
            let wide: Vec<i32> = values.iter().map(|&v| i32::from(v)).collect();
            let mut expected = Vec::new();
            encoding::sint32::encode_packed(5, &wide, &mut expected);
            assert_eq!(
                written(|out| super::packed_sint32(out, 5, values)),
                expected,
                "{values:?}"
            );
        }
        for values in [&[][..], &[3, 1][..], &[200, 255, 0][..]] {
            let wide: Vec<u32> = values.iter().map(|&v| u32::from(v)).collect();
            let mut expected = Vec::new();
            encoding::uint32::encode_packed(2, &wide, &mut expected);
            assert_eq!(
                written(|out| super::packed_uint32(out, 2, values)),
                expected
            );
        }
        for text in ["", "x", &"y".repeat(200)] {
            let mut expected = Vec::new();
            if !text.is_empty() {
                encoding::string::encode(1, &text.to_owned(), &mut expected);
            }
            assert_eq!(
                written(|out| super::bytes(out, 1, text.as_bytes())),
                expected
            );
            for reserved in [1, 2] {
                assert_eq!(
                    written(|out| {
                        super::string_with(out, 1, reserved, |out| {
                            out.extend_from_slice(text.as_bytes());
                        });
                    }),
                    expected,
                    "{} {reserved}",
                    text.len()
                );
            }
        }
    }
}

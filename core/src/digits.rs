//! Integers in decimal without the formatting machinery: the notation
//! writers (once per play in legal-moves answers) and the dice derivation's
//! message bytes; and [`Text`], the fixed buffer the XGID and FIBS writers
//! fill before one copy to their destination.

/// The decimal ASCII digits of `n`, written to the end of `buf`.
pub(crate) fn unsigned(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        // `n % 10` is below 10, so the cast cannot truncate.
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// `n` in decimal, as `Display` writes it: the text is `buf[start..]` of
/// the returned `(buf, start)`.
pub(crate) fn signed(n: i64) -> ([u8; 20], usize) {
    let mut buf = [0u8; 20];
    // At most 19 digits (`i64::MIN`), so the sign fits in front.
    let mut start = buf.len() - unsigned(n.unsigned_abs(), &mut buf).len();
    if n < 0 {
        start -= 1;
        buf[start] = b'-';
    }
    (buf, start)
}

/// The smallest number with a [`SMALL`] token.
const SMALL_MIN: i64 = -15;

/// The largest number with a [`SMALL`] token.
const SMALL_MAX: i64 = 99;

/// `:n` for `n` in -15..=99 (every checker count, and nearly every other
/// number the XGID and FIBS writers write) as one word: the token's bytes
/// first, its length in the top byte, so that a token is one load, one
/// fixed-size store and one addition.
const SMALL: [u64; (SMALL_MAX - SMALL_MIN + 1) as usize] = {
    let mut table = [0u64; (SMALL_MAX - SMALL_MIN + 1) as usize];
    let mut i = 0;
    while i < table.len() {
        let (mut token, len) = colon_token(i as i64 + SMALL_MIN);
        token[7] = len as u8;
        table[i] = u64::from_le_bytes(token);
        i += 1;
    }
    table
};

/// `:n` for `n` in -99..=99, at the start of 8 bytes (the rest zeros), and
/// its length (at most 4): the tokens of the writers' constant tables.
pub(crate) const fn colon_token(n: i64) -> ([u8; 8], usize) {
    let abs = n.unsigned_abs();
    let mut token = [0u8; 8];
    let mut len = 0;
    token[len] = b':';
    len += 1;
    if n < 0 {
        token[len] = b'-';
        len += 1;
    }
    if abs >= 10 {
        token[len] = b'0' + (abs / 10) as u8;
        len += 1;
    }
    token[len] = b'0' + (abs % 10) as u8;
    len += 1;
    (token, len)
}

/// ASCII text written into a stack buffer of `N` bytes and then copied to
/// its destination in one piece: the XGID and FIBS writers run once per
/// play in legal-moves answers, where many short copies into a `Vec` (each
/// a capacity check and a `memcpy` call) cost more than the digits.
///
/// The buffer is borrowed rather than owned so that the length, alone in
/// this struct, stays in a register: in one struct with the buffer, which
/// is written at variable offsets, it would be kept in memory and loaded
/// and stored for every token.
///
/// `N` must exceed the longest text a writer can write by at least
/// [`Text::SLACK`] bytes (a short token is copied as a fixed-size word
/// whatever its length); each writer states its bound, and writing past
/// `N` panics.
pub(crate) struct Text<'a, const N: usize> {
    buf: &'a mut [u8; N],
    len: usize,
}

impl<'a, const N: usize> Text<'a, N> {
    /// The bytes a token may write past its end (and then leave to the
    /// next one): a word.
    pub(crate) const SLACK: usize = 8;

    /// Empty, writing into `buf`.
    #[inline]
    pub(crate) fn new(buf: &'a mut [u8; N]) -> Text<'a, N> {
        Text { buf, len: 0 }
    }

    /// Appends `bytes`.
    #[inline]
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    /// Appends `:` and `n` in decimal, as `Display` writes it.
    #[inline(always)]
    pub(crate) fn colon_int(&mut self, n: i64) {
        if (SMALL_MIN..=SMALL_MAX).contains(&n) {
            // Nearly every token: one table entry.
            self.small_token(SMALL[(n - SMALL_MIN) as usize]);
        } else {
            // Out of line, and by value (passing `self` would put the
            // length back in memory).
            // Only the token's own bytes: the slack stays one word.
            let (token, len) = wide_token(n);
            self.buf[self.len..self.len + len].copy_from_slice(&token[..len]);
            self.len += len;
        }
    }

    /// Appends the first `len` bytes of `word` (little-endian), `len` at
    /// most 8: a token from a writer's own table, one fixed-size store.
    #[inline(always)]
    pub(crate) fn word(&mut self, word: u64, len: usize) {
        self.buf[self.len..self.len + 8].copy_from_slice(&word.to_le_bytes());
        self.len += len;
    }

    /// Appends the first `len` bytes of `block` (`len` at most `M`) by a
    /// copy of all `M` (a copy of known size is a few vector stores, one of
    /// `len` bytes a `memcpy` call); the bytes past `len` are left to the
    /// next writes. Needs `M` bytes of room.
    #[inline(always)]
    pub(crate) fn block<const M: usize>(&mut self, block: &[u8; M], len: usize) {
        self.buf[self.len..self.len + M].copy_from_slice(block);
        self.len += len;
    }

    /// Appends a [`SMALL`] entry's token.
    #[inline(always)]
    fn small_token(&mut self, entry: u64) {
        self.word(entry, (entry >> 56) as usize);
    }

    /// The text written.
    #[inline]
    pub(crate) fn finish(self) -> &'a [u8] {
        &self.buf[..self.len]
    }
}

/// The longest token: a colon, a minus and 19 digits, padded.
const WIDE: usize = 24;

/// `:n` for [`Text::colon_int`]'s numbers without a [`SMALL`] token, padded to
/// [`WIDE`] bytes, and its length.
#[inline(never)]
fn wide_token(n: i64) -> ([u8; WIDE], usize) {
    let mut token = [0u8; WIDE];
    token[0] = b':';
    let (digits, start) = signed(n);
    let len = digits.len() - start;
    token[1..1 + len].copy_from_slice(&digits[start..]);
    (token, 1 + len)
}

#[cfg(test)]
mod tests {
    use super::Text;
    use alloc::format;
    use alloc::string::ToString;

    #[test]
    fn colon_int_as_display_writes_it() {
        // Every small token, the numbers around the table's ends, and the
        // extremes, one after another in one buffer.
        let mut numbers: alloc::vec::Vec<i64> = (-120..=120).collect();
        numbers.extend([i64::MIN, i64::MAX, 4_294_967_295, -32767, 9999]);
        let mut buf = [0u8; 2048];
        let mut text = Text::new(&mut buf);
        let mut expected = alloc::string::String::new();
        for &n in &numbers {
            text.colon_int(n);
            expected += &format!(":{n}");
        }
        text.bytes(b"end");
        expected += "end";
        assert_eq!(text.finish(), expected.as_bytes());
    }

    #[test]
    fn signed_as_display_writes_it() {
        for n in [0, 7, -7, 10, 99, -100, 32767, i64::MAX, i64::MIN] {
            let (buf, start) = super::signed(n);
            assert_eq!(&buf[start..], n.to_string().as_bytes());
        }
    }
}

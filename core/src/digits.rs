//! Integers in decimal without the formatting machinery: the notation
//! writers (once per play in legal-moves answers) and the dice derivation's
//! message bytes.

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

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    #[test]
    fn signed_as_display_writes_it() {
        for n in [0, 7, -7, 10, 99, -100, 32767, i64::MAX, i64::MIN] {
            let (buf, start) = super::signed(n);
            assert_eq!(&buf[start..], n.to_string().as_bytes());
        }
    }
}

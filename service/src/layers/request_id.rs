//! Request ids: tower-http's `SetRequestIdLayer` makes one when the request
//! has none ([`MakeRequestId`]) and `PropagateRequestIdLayer` echoes it in
//! the response; an incoming id is kept only when it is a single value of
//! 1 to 128 printable ASCII characters ([`keep_valid_id`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use http::{HeaderValue, Request};
use tower_http::request_id::RequestId;

pub use crate::protocol::REQUEST_ID_HEADER;

/// Longest accepted incoming request id; longer ones are replaced.
const MAX_REQUEST_ID_LEN: usize = 128;

/// `req` without its `x-request-id` unless that is a single valid value
/// (1 to 128 printable ASCII characters), which is then marked sensitive:
/// echoed as an HPACK "never indexed" literal over HTTP/2, as a value
/// unique to each response gains nothing from the connection's header
/// table (and inserting it would evict the entries that repeat). HTTP/1.1
/// ignores the mark. `SetRequestIdLayer` then makes an id for a request
/// left without one.
pub fn keep_valid_id<B>(mut req: Request<B>) -> Request<B> {
    let valid = |v: &HeaderValue| {
        let b = v.as_bytes();
        !b.is_empty() && b.len() <= MAX_REQUEST_ID_LEN && b.iter().all(|c| c.is_ascii_graphic())
    };
    // One lookup for both the check and the removal.
    if let http::header::Entry::Occupied(mut entry) = req.headers_mut().entry(REQUEST_ID_HEADER) {
        let mut incoming = entry.iter();
        let keep = matches!((incoming.next(), incoming.next()), (Some(id), None) if valid(id));
        if keep {
            entry.get_mut().set_sensitive(true);
        } else {
            drop(entry.remove_entry_mult());
        }
    }
    req
}

/// Makes request ids cheaply: UUID-shaped (RFC 9562 version 8, custom),
/// 64 random bits drawn once per process followed by a counter, so ids are
/// unique within a process and, with overwhelming odds, across replicas,
/// without a system call per request as a random (v4) UUID costs.
#[derive(Debug, Clone)]
pub struct MakeRequestId {
    /// The first 64 bits as text, with the version: `xxxxxxxx-xxxx-8xxx-`
    /// (written once, not for every id).
    head: [u8; 19],
    counter: Arc<AtomicU64>,
}

/// Lower-case hexadecimal digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// The 16 hexadecimal digits of `word`, most significant first.
fn hex_digits(word: u64) -> [u8; 16] {
    let mut digits = [0u8; 16];
    for (i, digit) in digits.iter_mut().enumerate() {
        *digit = HEX[((word >> (60 - 4 * i)) & 15) as usize];
    }
    digits
}

impl Default for MakeRequestId {
    fn default() -> MakeRequestId {
        let mut seed = [0u8; 8];
        if getrandom::fill(&mut seed).is_err() {
            // No entropy source: the clock still tells processes apart.
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            seed = (nanos as u64 ^ u64::from(std::process::id())).to_le_bytes();
        }
        seed[6] = (seed[6] & 0x0f) | 0x80; // version 8
        let digits = hex_digits(u64::from_be_bytes(seed));
        let mut head = [b'-'; 19];
        head[..8].copy_from_slice(&digits[..8]);
        head[9..13].copy_from_slice(&digits[8..12]);
        head[14..18].copy_from_slice(&digits[12..]);
        MakeRequestId {
            head,
            counter: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl MakeRequestId {
    /// The next id: `xxxxxxxx-xxxx-8xxx-yxxx-xxxxxxxxxxxx`, the counter in
    /// the last 64 bits (with the variant); marked sensitive ([`keep_valid_id`]).
    pub fn next_id(&self) -> HeaderValue {
        let count = self.counter.fetch_add(1, Ordering::Relaxed);
        // BackgammonVariant 10 in the top two bits.
        let digits = hex_digits((count & !(0b11 << 62)) | (0b10 << 62));
        let mut text = [b'-'; 36];
        text[..19].copy_from_slice(&self.head);
        text[19..23].copy_from_slice(&digits[..4]);
        text[24..].copy_from_slice(&digits[4..]);
        // One allocation that the clones (the request's header, the
        // response's, the request span's) share: `HeaderValue::from_bytes`
        // copies into a `Bytes` whose first clone allocates again.
        let mut id = HeaderValue::from_maybe_shared(axum::body::Bytes::from_owner(text))
            .unwrap_or_else(|_| HeaderValue::from_static("-"));
        id.set_sensitive(true);
        id
    }
}

impl tower_http::request_id::MakeRequestId for MakeRequestId {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        Some(RequestId::new(self.next_id()))
    }
}

#[cfg(test)]
mod tests {
    use super::{MakeRequestId, REQUEST_ID_HEADER, keep_valid_id};

    #[test]
    fn a_single_valid_incoming_id_is_kept_and_anything_else_dropped() {
        let request = |ids: &[&[u8]]| {
            let mut req = http::Request::new(());
            for id in ids {
                let value = http::HeaderValue::from_bytes(id).unwrap();
                req.headers_mut().append(REQUEST_ID_HEADER, value);
            }
            req
        };
        let long = [b'a'; 129];
        for (ids, kept) in [
            (&[][..], false),
            (&[&b"abc-123"[..]][..], true),
            (&[&[b'a'; 128][..]][..], true),
            (&[&long[..]][..], false),
            (&[&b"a b"[..]][..], false),
            (&[&b"one"[..], &b"two"[..]][..], false),
        ] {
            let req = keep_valid_id(request(ids));
            let values: Vec<_> = req.headers().get_all(REQUEST_ID_HEADER).iter().collect();
            if kept {
                assert_eq!(values.len(), 1, "{ids:?}");
                assert_eq!(values[0].as_bytes(), ids[0]);
                assert!(values[0].is_sensitive());
            } else {
                assert!(values.is_empty(), "{ids:?}");
            }
        }
    }

    #[test]
    fn request_ids_are_distinct_version_8_uuids() {
        let make = MakeRequestId::default();
        let a = make.next_id();
        let b = make.clone().next_id();
        assert_ne!(a, b);
        for id in [a, b] {
            let id = id.to_str().unwrap();
            assert_eq!(id.len(), 36, "{id}");
            let groups: Vec<&str> = id.split('-').collect();
            assert_eq!(
                groups.iter().map(|g| g.len()).collect::<Vec<_>>(),
                [8, 4, 4, 4, 12]
            );
            assert!(groups[2].starts_with('8'), "{id}");
            assert!(matches!(&groups[3][..1], "8" | "9" | "a" | "b"), "{id}");
            assert!(id.bytes().all(|c| c == b'-' || c.is_ascii_hexdigit()));
        }
        // The counter's bits, with the variant's two in place of its top two.
        let make = MakeRequestId::default();
        let head = String::from_utf8(make.head.to_vec()).unwrap();
        for count in [0, 1, 0xabc, u64::MAX >> 2, u64::MAX - 1] {
            make.counter
                .store(count, std::sync::atomic::Ordering::Relaxed);
            let low = (count & (u64::MAX >> 2)) | (1 << 63);
            let expected = format!("{head}{:04x}-{:012x}", low >> 48, low & ((1 << 48) - 1));
            assert_eq!(make.next_id().to_str().unwrap(), expected);
        }
        // Another process (another maker) draws another prefix.
        assert_ne!(
            MakeRequestId::default().next_id().to_str().unwrap()[..18],
            make.next_id().to_str().unwrap()[..18]
        );
    }
}

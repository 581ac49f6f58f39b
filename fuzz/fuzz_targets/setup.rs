//! `Position::from_setup` on arbitrary setups (any counts, shared points,
//! off counts or none). Format: one byte for the variant (`b % 5`), the
//! turn (bit 7: o) and whether off counts follow (bit 6); then x's points 1
//! to 24 and bar, o's likewise, and the two off counts, one byte each.
//! The setup: never panics; what it accepts has the variant's
//! checkers, no shared point, and survives its encodings; what it refuses
//! gives at least one reason.
#![no_main]

use bgref_core::{BackgammonVariant, ByPlayer, Player, Position, Setup};
use bgref_fuzz::{Bytes, check_codecs, checkers};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let head = bytes.byte_or(0);
    let variant = BackgammonVariant::ALL[usize::from(head % 5)];
    let turn = if head & 0x80 == 0 {
        Player::X
    } else {
        Player::O
    };
    let mut setup = Setup::empty(turn);
    // Counts 0 to 15 most of the time, 240 to 255 now and then.
    let count = |b: u8| if b >= 0xf0 { b } else { b & 0x0f };
    for player in Player::ALL {
        for i in 0..24 {
            setup.points[player][i] = count(bytes.byte_or(0));
        }
        setup.bar[player] = count(bytes.byte_or(0));
    }
    if head & 0x40 != 0 {
        setup.off = Some(ByPlayer {
            x: count(bytes.byte_or(0)),
            o: count(bytes.byte_or(0)),
        });
    }
    match Position::from_setup(&setup, variant) {
        Ok(position) => {
            let n = u32::from(variant.checkers());
            assert_eq!(checkers(&position, Player::X), n);
            assert_eq!(checkers(&position, Player::O), n);
            assert_eq!(position.turn(), turn);
            for p in 1..=24 {
                assert!(position.side(Player::X)[p] == 0 || position.side(Player::O)[25 - p] == 0);
            }
            check_codecs(&position);
        }
        Err(reasons) => {
            assert!(!reasons.kinds().is_empty());
            assert!(!reasons.to_string().is_empty());
        }
    }
});

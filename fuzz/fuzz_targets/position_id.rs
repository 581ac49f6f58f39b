//! gnubg Position ID: the parser never panics; what it accepts is written
//! back as the same 14 characters (padding and white space aside); the
//! setup it gives either fails `Position::from_setup` cleanly or is a
//! position whose own ID is the input, which then passes the movegen
//! invariants for a roll taken from the input.
#![no_main]

use bgref_core::notation::position_id::PositionId;
use bgref_core::{BackgammonVariant, Player, Position};
use bgref_fuzz::{check_movegen, dice_from_byte};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(id) = s.parse::<PositionId>() else {
        return;
    };
    let text = id.to_string();
    let bare = s.trim();
    let bare = bare.strip_suffix("==").unwrap_or(bare);
    assert_eq!(text, bare, "the ID is not written back as read");
    assert_eq!(text.parse::<PositionId>(), Ok(id));
    let roll = dice_from_byte(data.iter().fold(0u8, |a, &b| a.wrapping_add(b)));
    for turn in Player::ALL {
        let setup = id.to_setup(turn);
        for variant in BackgammonVariant::ALL {
            if let Ok(position) = Position::from_setup(&setup, variant) {
                assert_eq!(PositionId::from_position(&position), id);
                if variant == BackgammonVariant::Standard && turn == Player::X {
                    check_movegen(&position, roll, data.len() as u8);
                }
            }
        }
    }
});

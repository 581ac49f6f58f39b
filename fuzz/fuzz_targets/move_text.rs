//! Move notation: the text is the input up to the first newline; after it
//! one byte gives the roll and the rest a position
//! ([`bgref_fuzz::position_from_bytes`]; nothing there is the standard
//! start with x on roll).
//!
//! The parser never panics and parse(format(t)) == t; `to_play` never
//! panics, and a play it returns is legal, its own notation resolves to
//! the same position, and every reason it refuses can be displayed.
#![no_main]

use bgref_core::notation::move_text::{IllegalMoveText, MoveText};
use bgref_fuzz::{Bytes, check_arbitrary_play, dice_from_byte, position_from_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (text, tail) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(parsed) = text.parse::<MoveText>() else {
        return;
    };
    let written = parsed.to_string();
    assert_eq!(
        written.parse::<MoveText>(),
        Ok(parsed.clone()),
        "{text:?} -> {written:?}"
    );

    let mut bytes = Bytes::new(tail);
    let dice = dice_from_byte(bytes.byte_or(0x0e));
    let Some(position) = position_from_bytes(&mut bytes) else {
        return;
    };
    match parsed.to_play(&position, dice) {
        Ok(play) => {
            assert!(position.is_legal(&play, dice), "{text:?} gave {play:?}");
            let next = position.after(&play);
            let again = MoveText::format(&play)
                .parse::<MoveText>()
                .expect("our notation parses")
                .to_play(&position, dice)
                .expect("our notation resolves");
            assert_eq!(position.after(&again), next);
            check_arbitrary_play(&position, dice, play.moves());
        }
        Err(IllegalMoveText::Illegal(reason)) => assert!(!reason.to_string().is_empty()),
        Err(IllegalMoveText::Ambiguous) => {}
    }
});

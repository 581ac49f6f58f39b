//! FIBS board strings: the parser never panics; what it accepts is written
//! back as a board string that reads back to the same setup, match and
//! cube, and the writer is stable; a setup accepted by `from_setup` (any
//! variant) survives its encodings and is written and read back as FIBS
//! unchanged; with a roll taken from the input it passes the movegen
//! checks.
#![no_main]

use bgref_core::notation::fibs::FibsBoard;
use bgref_core::{BackgammonVariant, Position};
use bgref_fuzz::{check_codecs, check_movegen, dice_from_byte};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(board) = s.parse::<FibsBoard>() else {
        return;
    };
    let text = board.to_string();
    let again: FibsBoard = text.parse().expect("our FIBS board parses");
    assert_eq!(again.setup, board.setup, "{s} -> {text} changes the setup");
    assert_eq!(
        (again.match_length, again.score, again.cube),
        (board.match_length, board.score, board.cube),
        "{s} -> {text} changes the match or the cube"
    );
    assert_eq!(again.to_string(), text, "the writer is not stable");
    for variant in BackgammonVariant::ALL {
        if let Ok(position) = Position::from_setup(&board.setup, variant) {
            check_codecs(&position);
            let written = FibsBoard::from_position(&position).to_string();
            let read: FibsBoard = written.parse().expect("our FIBS board parses");
            assert_eq!(
                Position::from_setup(&read.setup, variant),
                Ok(position),
                "FIBS {written} gives another position"
            );
            let byte = data.iter().fold(0u8, |a, &b| a.wrapping_add(b));
            check_movegen(&position, dice_from_byte(byte), byte);
        }
    }
});

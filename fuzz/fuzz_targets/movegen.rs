//! Move generation: one byte gives the roll, the rest a valid position
//! ([`bgref_fuzz::position_from_bytes`]); [`bgref_fuzz::check_movegen`]
//! checks every invariant (against a naive generator too). The bytes left
//! after the position pick the plays that get the deep checks and, read as
//! pairs `(from, to)`, make an arbitrary play,
//! which the referee must judge without a panic and in agreement with the
//! legal list.
#![no_main]

use bgref_core::{Move, Point};
use bgref_fuzz::{Bytes, check_arbitrary_play, check_movegen, dice_from_byte, position_from_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let dice = dice_from_byte(bytes.byte_or(0));
    let Some(position) = position_from_bytes(&mut bytes) else {
        return;
    };
    let rest = bytes.rest();
    check_movegen(&position, dice, rest.first().copied().unwrap_or(0));
    let moves: Vec<Move> = rest
        .chunks_exact(2)
        .take(5)
        .map(|pair| Move::new(Point::new(pair[0] % 26), Point::new(pair[1] % 26)))
        .collect();
    check_arbitrary_play(&position, dice, &moves);
});

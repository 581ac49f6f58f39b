//! XGID: the parser never panics; parse(format(x)) == x and the writer is
//! stable; the setup either fails `Position::from_setup` cleanly or is a
//! position that survives its encodings and, when the XGID carries a
//! roll, passes the movegen invariants for it.
#![no_main]

use bgref_core::notation::xgid::{Xgid, XgidDice};
use bgref_core::{BackgammonVariant, Position};
use bgref_fuzz::{check_codecs, check_movegen};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(xgid) = s.parse::<Xgid>() else {
        return;
    };
    let text = xgid.to_string();
    let again: Xgid = text.parse().expect("our XGID parses");
    assert_eq!(again, xgid, "{s} -> {text} changes a field");
    assert_eq!(again.to_string(), text);
    for variant in BackgammonVariant::ALL {
        if let Ok(position) = Position::from_setup(&xgid.setup, variant) {
            check_codecs(&position);
            if let XgidDice::Rolled(dice) = xgid.dice {
                check_movegen(&position, dice, data.len() as u8);
            }
        }
    }
});

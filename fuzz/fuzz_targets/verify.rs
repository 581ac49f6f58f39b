//! Verifiable dice (`bgref_core::verify`): the hex parser never panics and
//! what it accepts is written back as the same digits in lower case; for a
//! server seed, game and turn from the input and the rest as client seed,
//! the honest rolls verify, a changed roll or commitment does not, the
//! opening roll is a non-tie with the higher die starting, and the signing
//! bytes spell out the fields.
#![no_main]

use bgref_core::verify::{
    ClaimedRoll, commitment, opening_roll, parse_hex32, roll, roll_signing_bytes, server_seed,
    to_hex, verify_rolls,
};
use bgref_core::{Dice, Player};
use bgref_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(parsed) = parse_hex32(&text) {
        assert_eq!(to_hex(&parsed), text.to_ascii_lowercase());
    }

    let mut bytes = Bytes::new(data);
    let mut secret = [0u8; 32];
    for b in &mut secret {
        *b = bytes.byte_or(0);
    }
    let game = bytes.u32();
    let turn = bytes.u32();
    let client = String::from_utf8_lossy(bytes.rest());
    let seed = server_seed(&secret, &client);
    let published = commitment(&seed);
    assert_eq!(parse_hex32(&to_hex(&published)), Ok(published));

    let opening = opening_roll(&seed, &client, game);
    assert_ne!(opening.x_die, opening.o_die);
    let higher = if opening.x_die > opening.o_die {
        Player::X
    } else {
        Player::O
    };
    assert_eq!(opening.starts, higher);
    assert_eq!(opening.dice, Dice::new(opening.x_die, opening.o_die));

    let dice = if turn == 0 {
        opening.dice
    } else {
        roll(&seed, &client, game, turn)
    };
    let claim = ClaimedRoll {
        client_seed: &client,
        game,
        turn,
        dice,
    };
    assert!(verify_rolls(&seed, &published, &[claim]).is_valid());
    let swapped = ClaimedRoll {
        dice: Dice::new(dice.second(), dice.first()),
        ..claim
    };
    let verdict = verify_rolls(&seed, &published, &[claim, swapped]);
    assert_eq!(verdict.is_valid(), dice.is_double());
    let mut wrong = published;
    wrong[0] ^= 1;
    assert!(!verify_rolls(&seed, &wrong, &[claim]).is_valid());

    let signed = roll_signing_bytes("m", &client, game, turn, dice, &published);
    let [d1, d2] = dice.values();
    let expected = format!(
        "bgref-roll-v1\nm\n{client}\n{game}\n{turn}\n{d1}\n{d2}\n{}",
        to_hex(&published)
    );
    assert_eq!(signed, expected.as_bytes());
});

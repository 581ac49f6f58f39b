//! The game state token decoder of bgref-service (`api::games`): any text
//! as the token of an action never panics; what is not a token this
//! service signed is refused as invalid input (400), and a token it signed
//! gets an answer or a refusal by the rules (422). Seeds are real tokens
//! signed with the fuzz keys.
#![no_main]

use bgref_core::Player;
use bgref_fuzz::service::keys;
use bgref_service::api::games::{ActInput, ActionInput, act, decode, seats};
use bgref_service::error::ErrorKind;
use libfuzzer_sys::fuzz_target;

/// The time of every action (a clocked token's clock, if any, sees it).
const NOW_MS: u64 = 1_800_000_000_000;

fuzz_target!(|data: &[u8]| {
    let Ok(state) = std::str::from_utf8(data) else {
        return;
    };
    // The seats of the token's match, when it is one this service signed:
    // the rules are then reached; any other text is refused before.
    let seats = decode(keys(), state)
        .ok()
        .map(|t| seats(keys(), &t.match_id, t.state.client_seed()));
    for (player, action) in [
        (Player::X, ActionInput::Roll),
        (Player::O, ActionInput::Double),
        (Player::O, ActionInput::ClaimTime),
    ] {
        let input = ActInput {
            state: state.to_owned(),
            player: Some(player),
            action: Some(action),
            match_id: None,
            seat: seats.as_ref().map(|s| match player {
                Player::X => s.x.clone(),
                Player::O => s.o.clone(),
            }),
            fields: None,
            // Both receipts, signed and not, by the input's length.
            sign_roll: state.len() % 2 == 0,
        };
        if let Err(err) = act(keys(), &input, NOW_MS) {
            assert!(
                matches!(err.kind, ErrorKind::InvalidInput | ErrorKind::IllegalMove),
                "{:?} {}: {}",
                err.kind,
                err.slug,
                err.detail
            );
            assert!(!err.slug.is_empty() && !err.detail.is_empty());
        }
    }
});

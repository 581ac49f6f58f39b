//! `GameState::read_fields` (bgref-core's `state_bytes`, the game fields
//! of a state token) on arbitrary bytes: the first byte picks the layout
//! (`b % 4`: 1 and 2 are layouts, 0 and 3 are not), the rest are the
//! fields. Never panics; what it reads is a state that writes fields which
//! read back to the same state, and nothing after them; what it refuses
//! says why, and the referee acts on what it reads (a roll, the first
//! legal play, the next game, by either player) without a panic. The
//! token's MAC keeps mutated tokens from reaching this
//! reader through `game_token`, so it is fuzzed here directly.
#![no_main]

use bgref_core::verify::Roller;
use bgref_core::{Action, GameState, Player};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&layout, fields)) = data.split_first() else {
        return;
    };
    match GameState::read_fields(layout % 4, fields, "seed".into()) {
        Ok((state, _)) => {
            assert_eq!(state.layout(), layout % 4);
            let mut written = Vec::new();
            state.write_fields(&mut written);
            let (again, rest) = GameState::read_fields(state.layout(), &written, "seed".into())
                .expect("written fields read back");
            assert!(rest.is_empty());
            assert_eq!(again, state);
            // The referee takes it without a panic (an action is allowed
            // or refused).
            let roller = Roller::new(&[5u8; 32]);
            let play = state.legal_plays().get(0).map(|p| p.to_string());
            for player in Player::ALL {
                let mut actions = vec![Action::Roll, Action::NextGame];
                if let Some(play) = play.as_deref().and_then(|p| p.parse().ok()) {
                    actions.push(Action::Move(play));
                }
                for action in actions {
                    let _ = state.act(player, &action, &roller);
                }
            }
        }
        Err(err) => assert!(!err.to_string().is_empty()),
    }
});

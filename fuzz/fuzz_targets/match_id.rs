//! gnubg Match ID: the parser never panics; what it accepts is written back
//! unchanged once the dice are put larger first (as gnubg writes them), and
//! reads back to the same fields; the cube and match states it gives can be
//! validated, and every action tried on them, without a panic.
#![no_main]

use bgref_core::notation::match_id::MatchId;
use bgref_core::{CubeAction, CubeRules, Dice, GameResult, Player};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(id) = s.parse::<MatchId>() else {
        return;
    };
    let text = id.to_string();
    let again: MatchId = text.parse().expect("our Match ID parses");
    let larger_first = MatchId {
        dice: id.dice.map(|d| Dice::new(d.high(), d.low())),
        ..id
    };
    assert_eq!(again, larger_first, "{s} -> {text} changes a field");
    if id.dice == larger_first.dice {
        assert_eq!(text, s, "the Match ID is not written back as read");
    }

    let cube = id.cube_state();
    let state = id.match_state();
    assert_eq!(u32::from(id.match_length), state.length);
    let rules = CubeRules {
        jacoby: id.jacoby,
        beavers: 2,
        automatic_doubles: 2,
        ..CubeRules::DEFAULT
    };
    let valid = cube.validate(&state, &rules).is_ok();
    for player in Player::ALL {
        for action in actions() {
            let result = cube.apply(player, action, &state, &rules);
            if !valid {
                assert!(result.is_err(), "an invalid state allowed {action}");
            }
        }
    }
    if valid && let Ok(written) = MatchId::new(&cube, &state, &rules, id.on_roll) {
        assert_eq!(written.cube_state().value, cube.value);
        assert_eq!(written.cube_state().owner, cube.owner);
        assert_eq!(written.match_state(), state);
        let text = written.to_string();
        assert_eq!(text.parse::<MatchId>(), Ok(written));
    }
});

fn actions() -> impl Iterator<Item = CubeAction> {
    [
        CubeAction::Double,
        CubeAction::Take,
        CubeAction::Pass,
        CubeAction::Beaver,
        CubeAction::Raccoon,
        CubeAction::Accept,
        CubeAction::Reject,
    ]
    .into_iter()
    .chain(GameResult::ALL.into_iter().map(CubeAction::Resign))
}

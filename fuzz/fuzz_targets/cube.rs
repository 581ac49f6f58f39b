//! Cube and match state: an arbitrary cube state, match state and rules,
//! then a sequence of (player, action) steps. Nothing panics; an invalid
//! state refuses every action; an allowed action leads from a valid state
//! to a valid one (or ends the game with points the cube explains);
//! `check` and `may_double` agree with `apply`.
#![no_main]

use bgref_core::{
    ByPlayer, CubeAction, CubeOutcome, CubeOwner, CubeRules, CubeState, CubeValue, GameEnd,
    GameResult, MatchState, Player, Resignation, score_game,
};
use bgref_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

fn player(b: u8) -> Player {
    if b & 1 == 0 { Player::X } else { Player::O }
}

fn result(b: u8) -> GameResult {
    GameResult::ALL[usize::from(b % 3)]
}

/// Small numbers most of the time, any `u32` now and then.
fn number(bytes: &mut Bytes<'_>) -> u32 {
    let b = bytes.byte_or(0);
    if b == 0xff {
        bytes.u32()
    } else {
        u32::from(b % 16)
    }
}

fn action(b: u8) -> CubeAction {
    match b % 8 {
        0 => CubeAction::Double,
        1 => CubeAction::Take,
        2 => CubeAction::Pass,
        3 => CubeAction::Beaver,
        4 => CubeAction::Raccoon,
        5 => CubeAction::Resign(result(b >> 3)),
        6 => CubeAction::Accept,
        _ => CubeAction::Reject,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let flags = bytes.byte_or(0);
    let mut cube = CubeState {
        value: CubeValue::from_log2(bytes.byte_or(0) % 16).unwrap_or(CubeValue::ONE),
        owner: match bytes.byte_or(0) % 3 {
            0 => CubeOwner::Centre,
            1 => CubeOwner::Player(Player::X),
            _ => CubeOwner::Player(Player::O),
        },
        offered_by: (flags & 1 != 0).then(|| player(flags >> 1)),
        beavers: bytes.byte_or(0) % 4,
        resignation: (flags & 4 != 0).then(|| Resignation {
            by: player(flags >> 3),
            level: result(flags >> 4),
        }),
    };
    let state = MatchState {
        length: number(&mut bytes),
        score: ByPlayer {
            x: number(&mut bytes),
            o: number(&mut bytes),
        },
        crawford: flags & 0x40 != 0,
    };
    let rule_bits = bytes.byte_or(0);
    let rules = CubeRules {
        jacoby: rule_bits & 1 != 0,
        beavers: (rule_bits >> 1) % 4,
        automatic_doubles: (rule_bits >> 3) % 4,
        max_cube: CubeValue::from_log2(bytes.byte_or(6) % 16).unwrap_or(CubeValue::SIXTY_FOUR),
    };

    let valid = cube.validate(&state, &rules).is_ok();
    let end = match flags >> 7 {
        0 => GameEnd::BearOff {
            winner: player(rule_bits),
            result: result(rule_bits >> 5),
        },
        _ => GameEnd::Pass {
            winner: player(rule_bits),
        },
    };
    if let Ok(score) = score_game(end, &cube, &state, &rules) {
        assert!(valid, "score_game accepts an invalid state");
        assert!(score.points >= cube.value.get() || score.points == u32::MAX);
    }

    for step in bytes.rest().chunks(2).take(16) {
        let who = player(step[0]);
        let act = action(step.get(1).copied().unwrap_or(step[0] >> 1));
        let valid = cube.validate(&state, &rules).is_ok();
        let outcome = cube.apply(who, act, &state, &rules);
        assert_eq!(cube.check(who, act, &state, &rules), outcome.map(|_| ()));
        if act == CubeAction::Double {
            assert_eq!(cube.may_double(who, &state, &rules), outcome.map(|_| ()));
        }
        match outcome {
            Ok(_) if !valid => panic!("an invalid state allowed {act}"),
            Ok(CubeOutcome::Continue(next)) => {
                assert_eq!(
                    next.validate(&state, &rules),
                    Ok(()),
                    "{act} by {who} from {cube:?} leads to an invalid state {next:?}"
                );
                cube = next;
            }
            Ok(CubeOutcome::GameOver(score)) => {
                assert!(score.points >= 1);
                let outcome = score.match_outcome;
                assert_eq!(outcome.length, state.length);
                break;
            }
            Err(error) => {
                assert!(!error.to_string().is_empty());
                if !valid {
                    assert!(!error.is_refusal(), "{error:?} for an invalid state");
                }
            }
        }
    }
});

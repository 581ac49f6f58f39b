//! Whole matches and money games walked through their cube, Crawford and
//! scoring transitions, table by table, plus gnubg's own self-play games
//! (`data/selfplay_results.jsonl`, see `data/README.md`) scored and their
//! Match IDs decoded.

use bgref_core::notation::match_id::{GameStatus, MatchId};
use bgref_core::{
    ByPlayer, CubeAction, CubeError, CubeOutcome, CubeOwner, CubeRefusal, CubeRules, CubeState,
    CubeValue, GameEnd, GameKind, GameResult, GameScore, InvalidCubeState, MatchState, Player,
    score_game,
};

use CubeAction::{Beaver, Double, Pass, Raccoon, Take};
use Player::{O, X};

/// Cube actions in order, each by a player.
type Actions = &'static [(Player, CubeAction)];

/// One game: the cube actions in order, then (unless a pass or an accepted
/// resignation ended it) a bear-off by `winner` with `result`.
struct Game {
    actions: Actions,
    bear_off: Option<(Player, GameResult)>,
}

/// Plays `game` under `state` and `rules`, from a cube after `ties` tied
/// opening rolls; panics with the step on any refusal.
fn play(game: &Game, state: &MatchState, rules: &CubeRules, ties: u32) -> GameScore {
    let mut cube = CubeState::for_new_game(ties, state, rules);
    for (step, &(player, action)) in game.actions.iter().enumerate() {
        match cube.apply(player, action, state, rules) {
            Ok(CubeOutcome::Continue(next)) => cube = next,
            Ok(CubeOutcome::GameOver(score)) => {
                assert_eq!(
                    step + 1,
                    game.actions.len(),
                    "game over before the last action"
                );
                assert!(game.bear_off.is_none());
                return score;
            }
            Err(error) => panic!("step {step}: {action} by {player} refused: {error}"),
        }
    }
    let (winner, result) = game
        .bear_off
        .expect("a game not ended by the cube needs a bear-off");
    score_game(GameEnd::BearOff { winner, result }, &cube, state, rules).expect("valid state")
}

fn state(length: u32, x: u32, o: u32, crawford: bool) -> MatchState {
    MatchState {
        length,
        score: ByPlayer { x, o },
        crawford,
    }
}

#[test]
fn five_point_match_through_crawford_and_post_crawford() {
    struct Row {
        game: Game,
        before: MatchState,
        points: u32,
        after: ByPlayer<u32>,
        next: Option<GameKind>,
    }
    let rules = CubeRules::DEFAULT;
    let table = [
        // 0-0: x doubles, o takes, x wins a single on the 2-cube.
        Row {
            game: Game {
                actions: &[(X, Double), (O, Take)],
                bear_off: Some((X, GameResult::Single)),
            },
            before: state(5, 0, 0, false),
            points: 2,
            after: ByPlayer { x: 2, o: 0 },
            next: Some(GameKind::Normal),
        },
        // 2-0: o doubles, x takes and redoubles, o passes: x wins 2 and is
        // one point away: the next game is the Crawford game.
        Row {
            game: Game {
                actions: &[(O, Double), (X, Take), (X, Double), (O, Pass)],
                bear_off: None,
            },
            before: state(5, 2, 0, false),
            points: 2,
            after: ByPlayer { x: 4, o: 0 },
            next: Some(GameKind::Crawford),
        },
        // 4-0 Crawford game: no cube; o wins a gammon.
        Row {
            game: Game {
                actions: &[],
                bear_off: Some((O, GameResult::Gammon)),
            },
            before: state(5, 4, 0, true),
            points: 2,
            after: ByPlayer { x: 4, o: 2 },
            next: Some(GameKind::PostCrawford),
        },
        // 4-2 post-Crawford: o doubles at once, x takes, o wins a single.
        Row {
            game: Game {
                actions: &[(O, Double), (X, Take)],
                bear_off: Some((O, GameResult::Single)),
            },
            before: state(5, 4, 2, false),
            points: 2,
            after: ByPlayer { x: 4, o: 4 },
            next: Some(GameKind::PostCrawford),
        },
        // 4-4 double match point: x doubles (a dead cube may be turned),
        // o takes, x wins a backgammon: 6 points, not capped: 10-4.
        Row {
            game: Game {
                actions: &[(X, Double), (O, Take)],
                bear_off: Some((X, GameResult::Backgammon)),
            },
            before: state(5, 4, 4, false),
            points: 6,
            after: ByPlayer { x: 10, o: 4 },
            next: None,
        },
    ];
    let mut current = MatchState::new_match(5);
    for (i, row) in table.iter().enumerate() {
        assert_eq!(current, row.before, "game {i}: state before");
        assert_eq!(current.validate(), Ok(()));
        if current.crawford {
            for player in Player::ALL {
                assert_eq!(
                    CubeState::START.may_double(player, &current, &rules),
                    Err(CubeError::Refused(CubeRefusal::CrawfordGame)),
                    "game {i}: {player} doubles in the Crawford game"
                );
            }
        }
        // The state survives a Match ID round trip.
        let id = MatchId::new(&CubeState::START, &current, &rules, X).unwrap();
        let back: MatchId = id.to_string().parse().unwrap();
        assert_eq!(back.match_state(), current);

        let score = play(&row.game, &current, &rules, 0);
        assert_eq!(score.points, row.points, "game {i}: points");
        assert_eq!(score.match_outcome.score, row.after, "game {i}: score");
        assert_eq!(
            score.match_outcome.next_game, row.next,
            "game {i}: next game"
        );
        match score.match_outcome.next_state() {
            Some(next) => current = next,
            None => {
                assert_eq!(i, table.len() - 1);
                assert_eq!(score.match_outcome.winner, Some(X));
            }
        }
    }
}

#[test]
fn crawford_detection_table() {
    // (length, score before, crawford, winner, points) -> next game.
    let table = [
        (5, (0, 0), false, X, 1, Some(GameKind::Normal)),
        (5, (3, 0), false, X, 1, Some(GameKind::Crawford)),
        (5, (2, 3), false, O, 1, Some(GameKind::Crawford)),
        (5, (0, 0), false, X, 4, Some(GameKind::Crawford)),
        (5, (4, 0), true, O, 1, Some(GameKind::PostCrawford)),
        (5, (4, 0), true, X, 1, None),
        (5, (4, 1), false, O, 1, Some(GameKind::PostCrawford)),
        (5, (4, 3), false, O, 1, Some(GameKind::PostCrawford)),
        (5, (3, 3), false, O, 4, None),
        (2, (0, 0), false, O, 1, Some(GameKind::Crawford)),
        (2, (0, 1), true, X, 1, Some(GameKind::PostCrawford)),
        (1, (0, 0), false, X, 1, None),
        (0, (7, 9), false, X, 8, Some(GameKind::Normal)),
    ];
    for (length, (x, o), crawford, winner, points, next) in table {
        let before = state(length, x, o, crawford);
        assert_eq!(before.validate(), Ok(()), "{before:?}");
        let after = before.after_game(winner, points);
        assert_eq!(after.next_game, next, "{before:?} {winner} +{points}");
        assert_eq!(after.winner.is_some(), next.is_none());
        if let Some(next_state) = after.next_state() {
            assert_eq!(next_state.validate(), Ok(()));
            assert_eq!(next_state.game_kind(), next.unwrap());
        }
    }
}

#[test]
fn money_game_jacoby_on_and_off() {
    // (jacoby, opening ties with automatic doubles up to 1, actions,
    // bear-off result, points, jacoby applied)
    let table: [(bool, u32, Actions, GameResult, u32, bool); 8] = [
        (false, 0, &[], GameResult::Gammon, 2, false),
        (true, 0, &[], GameResult::Gammon, 1, true),
        (true, 0, &[], GameResult::Backgammon, 1, true),
        (true, 0, &[], GameResult::Single, 1, false),
        (
            true,
            0,
            &[(X, Double), (O, Take)],
            GameResult::Gammon,
            4,
            false,
        ),
        (
            false,
            0,
            &[(X, Double), (O, Take)],
            GameResult::Backgammon,
            6,
            false,
        ),
        // An automatic double leaves the cube centred: Jacoby still applies.
        (true, 1, &[], GameResult::Gammon, 2, true),
        (
            true,
            1,
            &[(O, Double), (X, Take)],
            GameResult::Gammon,
            8,
            false,
        ),
    ];
    for (jacoby, ties, actions, result, points, applied) in table {
        let rules = CubeRules {
            jacoby,
            automatic_doubles: 1,
            ..CubeRules::DEFAULT
        };
        let game = Game {
            actions,
            bear_off: Some((X, result)),
        };
        let score = play(&game, &MatchState::MONEY, &rules, ties);
        assert_eq!(
            (score.points, score.jacoby),
            (points, applied),
            "{jacoby} {actions:?} {result}"
        );
        assert_eq!(score.result, result);
        assert_eq!(score.match_outcome.score, ByPlayer { x: points, o: 0 });
        assert_eq!(score.match_outcome.next_game, Some(GameKind::Normal));
    }
    // The Jacoby rule never applies in match play.
    let rules = CubeRules {
        jacoby: true,
        ..CubeRules::DEFAULT
    };
    let game = Game {
        actions: &[],
        bear_off: Some((O, GameResult::Gammon)),
    };
    assert_eq!(play(&game, &MatchState::new_match(7), &rules, 0).points, 2);
}

#[test]
fn beavers_and_raccoons_with_limits() {
    enum Expect {
        /// Play goes on with this value and owner.
        Cube(u32, Player),
        /// The game ends: winner and points.
        Over(Player, u32),
        /// The last action is refused.
        Refused(CubeError),
    }
    let table: [(u8, Actions, Expect); 11] = [
        (
            0,
            &[(X, Double), (O, Beaver)],
            Expect::Refused(CubeError::Refused(CubeRefusal::BeaversDisabled)),
        ),
        (
            1,
            &[(X, Double), (O, Raccoon)],
            Expect::Refused(CubeError::Refused(CubeRefusal::NoBeaverToRaccoon)),
        ),
        (
            1,
            &[(X, Double), (O, Beaver), (X, Take)],
            Expect::Cube(4, O),
        ),
        (
            1,
            &[(X, Double), (O, Beaver), (X, Raccoon)],
            Expect::Refused(CubeError::Refused(CubeRefusal::BeaverLimitReached)),
        ),
        (
            1,
            &[(X, Double), (O, Beaver), (X, Beaver)],
            Expect::Refused(CubeError::Refused(CubeRefusal::RaccoonExpected)),
        ),
        (
            1,
            &[(X, Double), (O, Beaver), (O, Take)],
            Expect::Refused(CubeError::Refused(CubeRefusal::NotYourTurnToAct)),
        ),
        (
            1,
            &[(X, Double), (O, Beaver), (X, Pass)],
            Expect::Over(O, 2),
        ),
        (
            2,
            &[(X, Double), (O, Beaver), (X, Raccoon), (O, Take)],
            Expect::Cube(8, O),
        ),
        (
            2,
            &[(X, Double), (O, Beaver), (X, Raccoon), (O, Pass)],
            Expect::Over(X, 4),
        ),
        (
            2,
            &[(X, Double), (O, Beaver), (X, Raccoon), (O, Beaver)],
            Expect::Refused(CubeError::Refused(CubeRefusal::BeaverLimitReached)),
        ),
        (
            3,
            &[
                (O, Double),
                (X, Beaver),
                (O, Raccoon),
                (X, Beaver),
                (O, Take),
            ],
            Expect::Cube(16, X),
        ),
    ];
    let money = MatchState::MONEY;
    for (limit, actions, expect) in table {
        let rules = CubeRules {
            beavers: limit,
            ..CubeRules::DEFAULT
        };
        let mut cube = CubeState::START;
        let (last, init) = actions.split_last().unwrap();
        for &(player, action) in init {
            match cube.apply(player, action, &money, &rules) {
                Ok(CubeOutcome::Continue(next)) => cube = next,
                other => panic!("limit {limit} {actions:?}: {action} by {player}: {other:?}"),
            }
        }
        let outcome = cube.apply(last.0, last.1, &money, &rules);
        match (expect, outcome) {
            (Expect::Cube(value, owner), Ok(CubeOutcome::Continue(cube))) => {
                assert_eq!(cube.value.get(), value, "limit {limit} {actions:?}");
                assert_eq!(
                    cube.owner,
                    CubeOwner::Player(owner),
                    "limit {limit} {actions:?}"
                );
                assert_eq!((cube.offered_by, cube.beavers), (None, 0));
            }
            (Expect::Over(winner, points), Ok(CubeOutcome::GameOver(score))) => {
                assert_eq!(
                    (score.winner, score.points),
                    (winner, points),
                    "limit {limit} {actions:?}"
                );
                assert_eq!(score.end, GameEnd::Pass { winner });
            }
            (Expect::Refused(error), Err(got)) => {
                assert_eq!(got, error, "limit {limit} {actions:?}");
                assert!(got.is_refusal());
            }
            (_, other) => panic!("limit {limit} {actions:?}: {other:?}"),
        }
    }
    // Beavers are a money-play rule.
    let rules = CubeRules {
        beavers: 3,
        ..CubeRules::DEFAULT
    };
    let offered = CubeState {
        offered_by: Some(X),
        ..CubeState::START
    };
    assert_eq!(
        offered.check(O, Beaver, &MatchState::new_match(9), &rules),
        Err(CubeError::Refused(CubeRefusal::BeaversInMatchPlay))
    );
    // A beaver that would take the cube past the maximum is refused.
    let high = CubeState {
        value: CubeValue::new(32),
        owner: CubeOwner::Player(X),
        offered_by: Some(X),
        ..CubeState::START
    };
    assert_eq!(
        high.check(O, Beaver, &money, &rules),
        Err(CubeError::Refused(CubeRefusal::CubeAtMaximum))
    );
    assert_eq!(high.check(O, Take, &money, &rules), Ok(()));
}

#[test]
fn automatic_doubles_with_a_limit() {
    // (ties, limit, max cube, money) -> starting value
    let table = [
        (0, 3, 64, true, 1),
        (1, 3, 64, true, 2),
        (3, 3, 64, true, 8),
        (7, 3, 64, true, 8),
        (5, 0, 64, true, 1),
        (4, 10, 8, true, 8),
        (2, 3, 64, false, 1),
    ];
    for (ties, limit, max, money, value) in table {
        let rules = CubeRules {
            automatic_doubles: limit,
            max_cube: CubeValue::new(max),
            ..CubeRules::DEFAULT
        };
        let state = if money {
            MatchState::MONEY
        } else {
            MatchState::new_match(5)
        };
        let cube = CubeState::for_new_game(ties, &state, &rules);
        assert_eq!(
            cube.value.get(),
            value,
            "{ties} ties, limit {limit}, max {max}"
        );
        assert_eq!(cube.owner, CubeOwner::Centre);
        assert_eq!(cube.validate(&state, &rules), Ok(()));
    }
    // The raised cube stays in the middle: either side may double it.
    let rules = CubeRules {
        automatic_doubles: 2,
        ..CubeRules::DEFAULT
    };
    let game = Game {
        actions: &[(O, Double), (X, Take)],
        bear_off: Some((X, GameResult::Gammon)),
    };
    assert_eq!(play(&game, &MatchState::MONEY, &rules, 2).points, 16);
    // A centred cube above what the limit allows is an invalid state.
    let cube = CubeState {
        value: CubeValue::new(8),
        ..CubeState::START
    };
    assert_eq!(
        cube.validate(&MatchState::MONEY, &rules),
        Err(InvalidCubeState::CentredCubeTurned)
    );
}

#[test]
fn cube_at_its_maximum() {
    // (max, value, owner, player) -> may double?
    let table = [
        (
            64,
            64,
            Some(X),
            X,
            Err(CubeError::Refused(CubeRefusal::CubeAtMaximum)),
        ),
        (
            64,
            64,
            Some(X),
            O,
            Err(CubeError::Refused(CubeRefusal::NotYourCube)),
        ),
        (64, 32, Some(X), X, Ok(())),
        (
            1,
            1,
            None,
            X,
            Err(CubeError::Refused(CubeRefusal::CubeAtMaximum)),
        ),
        (256, 128, Some(O), O, Ok(())),
        (
            32768,
            32768,
            Some(O),
            O,
            Err(CubeError::Refused(CubeRefusal::CubeAtMaximum)),
        ),
    ];
    for (max, value, owner, player, expect) in table {
        let rules = CubeRules {
            max_cube: CubeValue::new(max),
            ..CubeRules::DEFAULT
        };
        let cube = CubeState {
            value: CubeValue::new(value),
            owner: owner.into(),
            ..CubeState::START
        };
        assert_eq!(
            cube.may_double(player, &MatchState::MONEY, &rules),
            expect,
            "max {max} cube {value}"
        );
    }
    // Above the maximum is not a refusal but an invalid state.
    let cube = CubeState {
        value: CubeValue::new(128),
        owner: CubeOwner::Player(X),
        ..CubeState::START
    };
    let error = cube
        .may_double(X, &MatchState::MONEY, &CubeRules::DEFAULT)
        .unwrap_err();
    assert_eq!(
        error,
        CubeError::InvalidState(InvalidCubeState::CubeAboveMaximum)
    );
    assert!(!error.is_refusal());
}

#[test]
fn gammons_and_backgammons_times_the_cube() {
    for log2 in 0..=6u8 {
        let value = CubeValue::from_log2(log2).unwrap();
        let owner = if log2 == 0 {
            CubeOwner::Centre
        } else {
            CubeOwner::Player(O)
        };
        let cube = CubeState {
            value,
            owner,
            ..CubeState::START
        };
        for result in GameResult::ALL {
            for (state, start) in [
                (MatchState::MONEY, ByPlayer { x: 0, o: 0 }),
                (state(25, 3, 5, false), ByPlayer { x: 3, o: 5 }),
            ] {
                let end = GameEnd::BearOff { winner: X, result };
                let score = score_game(end, &cube, &state, &CubeRules::DEFAULT).unwrap();
                let points = result.multiplier() * value.get();
                assert_eq!(score.points, points, "{result} on {value}");
                assert_eq!(
                    score.match_outcome.score,
                    ByPlayer {
                        x: start.x + points,
                        o: start.o
                    }
                );
                let resign = GameEnd::Resign {
                    winner: X,
                    level: result,
                };
                assert_eq!(
                    score_game(resign, &cube, &state, &CubeRules::DEFAULT)
                        .unwrap()
                        .points,
                    points
                );
            }
        }
        if log2 > 0 {
            let pass = score_game(
                GameEnd::Pass { winner: O },
                &cube,
                &MatchState::MONEY,
                &CubeRules::DEFAULT,
            );
            assert_eq!(pass.unwrap().points, value.get());
        }
    }
}

#[test]
fn resignations_in_a_match() {
    // 7-point match at 5-3: o resigns a gammon on x's 2-cube and x accepts:
    // 4 points, 9-3, the match is over.
    let before = state(7, 5, 3, false);
    let rules = CubeRules::DEFAULT;
    let cube = CubeState {
        value: CubeValue::new(2),
        owner: CubeOwner::Player(X),
        ..CubeState::START
    };
    let Ok(CubeOutcome::Continue(offered)) =
        cube.apply(O, CubeAction::Resign(GameResult::Gammon), &before, &rules)
    else {
        panic!("resignation refused");
    };
    // Rejected, play goes on with the same cube; offered again and accepted.
    let Ok(CubeOutcome::Continue(rejected)) = offered.apply(X, CubeAction::Reject, &before, &rules)
    else {
        panic!("reject refused");
    };
    assert_eq!(rejected, cube);
    let Ok(CubeOutcome::GameOver(score)) = offered.apply(X, CubeAction::Accept, &before, &rules)
    else {
        panic!("accept refused");
    };
    assert_eq!(
        (score.winner, score.result, score.points),
        (X, GameResult::Gammon, 4)
    );
    assert_eq!(score.match_outcome.winner, Some(X));
    assert_eq!(score.match_outcome.score, ByPlayer { x: 9, o: 3 });
}

/// A field of a JSON line, with the line number in the panic.
fn field<'a>(line: &'a serde_json::Value, name: &str, n: usize) -> &'a serde_json::Value {
    line.get(name)
        .unwrap_or_else(|| panic!("line {n}: no {name}"))
}

fn uint(line: &serde_json::Value, name: &str, n: usize) -> u32 {
    let value = field(line, name, n)
        .as_u64()
        .unwrap_or_else(|| panic!("line {n}: {name}"));
    u32::try_from(value).unwrap()
}

#[test]
fn gnubg_selfplay_games_score_and_decode_consistently() {
    let text = include_str!("data/selfplay_results.jsonl");
    let rules = CubeRules {
        jacoby: false,
        max_cube: CubeValue::MAX,
        ..CubeRules::DEFAULT
    };
    let mut series = String::new();
    let mut session = MatchState::MONEY;
    let mut games = 0;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        let line: serde_json::Value = serde_json::from_str(line).unwrap();
        let id_text = field(&line, "final_match_id", n).as_str().unwrap();
        let id: MatchId = id_text
            .parse()
            .unwrap_or_else(|e| panic!("line {n}: {id_text}: {e}"));
        assert_eq!(id.to_string(), id_text, "line {n}: re-encoding");

        let winner: Player = field(&line, "winner", n).as_str().unwrap().parse().unwrap();
        let cube_value = uint(&line, "cube", n);
        let points_won = uint(&line, "points_won", n);
        let result = GameResult::from_multiplier(uint(&line, "result", n)).unwrap();
        let ended_by = field(&line, "ended_by", n).as_str().unwrap();

        // The decoded cube is the corpus's final cube; 2^takes without beavers.
        assert_eq!(id.cube_value.get(), cube_value, "line {n}: cube");
        assert_eq!(cube_value, 1 << uint(&line, "takes", n), "line {n}: takes");
        assert_eq!(
            id.game_state as u32,
            uint(&line, "gnubg_game_state", n),
            "line {n}"
        );
        assert!(!id.jacoby, "line {n}: Jacoby was off");
        assert!(!id.doubled && id.dice.is_none() && id.match_length == 0 && !id.crawford);

        // Points are the cube times the result; a drop scores the cube value.
        let (end, state) = match ended_by {
            "bearoff" => (GameEnd::BearOff { winner, result }, GameStatus::Over),
            "drop" => {
                assert_eq!(result, GameResult::Single);
                // A dropped double on an owned cube was offered by its owner:
                // gnubg's player 0 is x.
                if let CubeOwner::Player(owner) = id.cube_owner {
                    assert_eq!(owner, winner, "line {n}: the doubler owned the cube");
                }
                (GameEnd::Pass { winner }, GameStatus::Dropped)
            }
            "resign" => {
                let level = GameResult::from_multiplier(uint(&line, "resign_level", n)).unwrap();
                assert_eq!(level, result);
                assert_eq!(id.resignation, Some(level), "line {n}: resignation level");
                // The player to decide on the resignation is the winner.
                assert_eq!(
                    id.turn, winner,
                    "line {n}: resignation answered by the winner"
                );
                (GameEnd::Resign { winner, level }, GameStatus::Resigned)
            }
            other => panic!("line {n}: ended_by {other}"),
        };
        assert_eq!(id.game_state, state, "line {n}");
        assert_eq!(
            points_won,
            cube_value * result.multiplier(),
            "line {n}: points"
        );

        // The session score: a new series starts at 0-0; each game adds its
        // points to the winner, and the Match ID holds the total after it,
        // with x as gnubg's player 0.
        let name = field(&line, "series", n).as_str().unwrap();
        if name != series {
            series = name.to_owned();
            session = MatchState::MONEY;
        }
        let cube = id.cube_state();
        let score =
            score_game(end, &cube, &session, &rules).unwrap_or_else(|e| panic!("line {n}: {e}"));
        assert_eq!(score.points, points_won, "line {n}: scored points");
        assert_eq!(score.winner, winner);
        let totals = score.match_outcome.score;
        assert_eq!(
            (u32::from(id.score.x), u32::from(id.score.o)),
            (totals.x, totals.o),
            "line {n}: session score"
        );
        session = score.match_outcome.next_state().unwrap();
        games += 1;
    }
    assert_eq!(games, 1000);
}

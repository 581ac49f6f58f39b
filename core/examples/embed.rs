//! Embedding bgref-core: read an XGID, list the legal plays, apply one
//! given in gnubg notation, run the cube, and score the end of a game;
//! then play a whole game of backgammon and one of Plakoto through the same
//! calls ([`VariantPosition`]: one position type for the ten rulesets), and
//! referee a match of each through the same calls ([`GameState`]: one
//! referee for the ten rulesets).
//!
//! Run with `cargo run -p bgref-core --example embed`.

use std::error::Error;

use bgref_core::notation::move_text::MoveText;
use bgref_core::notation::xgid::{Xgid, XgidDice};
use bgref_core::tables::{Game, TablesGameState, TablesMatch, TablesRules, TablesSeries};
use bgref_core::verify::Roller;
use bgref_core::{
    Action, BackgammonGame, BackgammonVariant, CubeAction, CubeOutcome, CubeRules, GameEnd,
    GameState, MatchState, Phase, Player, Position, Variant, VariantPosition, score_game,
};

fn main() -> Result<(), Box<dyn Error>> {
    // 1. An XGID: the opening position, x to play 3-1, 7-point match at 2-3.
    let xgid: Xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:2:3:0:7:10".parse()?;
    let position = Position::from_setup(&xgid.setup, BackgammonVariant::Standard)?;
    let dice = xgid.rolled_dice().ok_or("the XGID has no roll")?;

    // 2. Every legal play, one per resulting position, in gnubg notation.
    let plays = position.legal_plays(dice);
    println!(
        "{} to play {dice}: {} legal plays",
        position.turn(),
        plays.len()
    );
    for play in plays.iter() {
        println!("  {play}");
    }

    // 3. Apply a play given as text. `to_play` finds the legal play the text
    //    means (or says why there is none); `play` checks and applies it.
    let play = "8/5 6/5".parse::<MoveText>()?.to_play(&position, dice)?;
    let (after, played) = position.play(&play, dice)?;
    // The new position as an XGID keeping the cube, score and match fields.
    let next = Xgid {
        setup: after.to_setup(),
        dice: XgidDice::NotRolled,
        ..xgid.clone()
    };
    println!("played {played}; {} is on roll: {next}", after.turn());

    // 4. The cube: o doubles before rolling, x takes. A refusal (not your
    //    cube, Crawford game, ...) comes back as `CubeError::Refused` with a
    //    stable slug; an impossible state as `CubeError::InvalidState`.
    let match_state = xgid.match_state();
    let rules = xgid.cube_rules();
    let mut cube = xgid.cube_state();
    for (player, action) in [
        (Player::O, CubeAction::Double),
        (Player::X, CubeAction::Take),
    ] {
        match cube.apply(player, action, &match_state, &rules)? {
            CubeOutcome::Continue(next) => cube = next,
            CubeOutcome::GameOver(score) => println!("game over: {score:?}"),
        }
    }
    println!("cube at {} on {}'s side", cube.value, cube.owner);
    if let Err(refused) = cube.may_double(Player::O, &match_state, &rules) {
        let slug = refused.refusal().map_or("invalid-cube", |r| r.slug());
        println!("o may not redouble: {refused} ({slug})");
    }

    // 5. Later, x has borne off every checker while o has borne off none:
    //    a gammon, times the cube, added to the match score.
    let finished: Xgid = "XGID=-------------------o------:1:1:-1:00:2:3:0:7:10".parse()?;
    let end = Position::from_setup(&finished.setup, BackgammonVariant::Standard)?
        .outcome()
        .ok_or("the game is not over")?;
    let score = score_game(
        GameEnd::BearOff {
            winner: end.winner,
            result: end.result,
        },
        &cube,
        &match_state,
        &rules,
    )?;
    println!(
        "{} wins a {} for {} points; match score x {} - o {}, next game: {:?}",
        score.winner,
        score.result,
        score.points,
        score.match_outcome.score.x,
        score.match_outcome.score.o,
        score.match_outcome.next_game
    );

    // 6. Any ruleset through the same calls: a whole game of backgammon,
    //    then one of Plakoto (pins instead of hits, the mother rule).
    for variant in [Variant::Standard, Variant::Plakoto] {
        play_a_game(variant)?;
    }

    // 7. The referee: a 3-point match of backgammon, then one of Plakoto,
    //    through the same calls (`GameState::act`: who may act, the dice of
    //    the match's seed, the score; an illegal action says why).
    let three_points = MatchState {
        length: 3,
        ..MatchState::MONEY
    };
    let backgammon = BackgammonGame::new(
        BackgammonVariant::Standard,
        CubeRules::default(),
        three_points,
        "embed".into(),
    );
    let plakoto = TablesGameState::new(
        TablesRules::DEFAULT,
        TablesMatch::new(TablesSeries::Single(Game::Plakoto), 3),
        "embed".into(),
    );
    for start in [GameState::from(backgammon), GameState::from(plakoto)] {
        referee_a_match(start)?;
    }
    Ok(())
}

/// Referees a match from `start` to its end: each player rolls and takes
/// the first legal play, never doubles, and starts the next game.
fn referee_a_match(start: GameState) -> Result<(), Box<dyn Error>> {
    let roller = Roller::new(&[7u8; 32]);
    let variant = start.variant();
    let mut state = start;
    let mut actions = 0;
    while state.phase() != Phase::MatchOver {
        let player = state.to_act().unwrap_or(Player::X);
        let action = match state.phase() {
            Phase::Move => {
                let play = state.legal_plays().get(0).copied().ok_or("no play")?;
                Action::Move(play.to_string().parse()?)
            }
            Phase::GameOver => Action::NextGame,
            _ => Action::Roll,
        };
        state = state.act(player, &action, &roller)?.0;
        actions += 1;
        if actions > 20_000 {
            return Err(format!("the {variant} match did not end").into());
        }
    }
    let (length, before) = state.match_score();
    let score = state.result().ok_or("a match over has a score")?;
    println!(
        "{variant}, {length}-point match: {} wins it after {actions} actions \
         (score before the last game x {} o {})",
        score
            .match_winner()
            .map_or("nobody".into(), |w| w.to_string()),
        before.x,
        before.o,
    );
    Ok(())
}

/// Plays `variant` from its start to its end, each side taking the first
/// legal play, with the dice of a fixed server seed (as the referee rolls
/// them), and prints how it ended.
fn play_a_game(variant: Variant) -> Result<(), Box<dyn Error>> {
    let roller = Roller::new(&[7u8; 32]);
    let mut position = VariantPosition::start(variant, TablesRules::DEFAULT, Player::X);
    let mut turn = 0;
    let outcome = loop {
        if let Some(outcome) = position.outcome() {
            break outcome;
        }
        turn += 1;
        let dice = roller.roll("embed", 1, turn);
        let plays = position.legal_plays(dice);
        position = match plays.get(0) {
            // `play` checks the play and says why when it is illegal.
            Some(play) => position.play(play, dice)?.0,
            None => position.swap_turn(),
        };
        if turn > 2000 {
            return Err(format!("{variant} did not end").into());
        }
    };
    let winner = outcome
        .winner
        .map_or("nobody (a draw)".into(), |w| w.to_string());
    println!(
        "{variant}: {winner} wins after {turn} rolls, a {} for {} points (pips left x {} o {})",
        outcome.kind.as_str(),
        outcome.points,
        position.pip_count(Player::X),
        position.pip_count(Player::O),
    );
    Ok(())
}

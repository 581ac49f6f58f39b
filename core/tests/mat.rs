//! Bot-played matches and money sessions, through `BackgammonGame::act` with a
//! fixed roller, written as `.mat` transcripts: every transcript writes,
//! and between them they hold every kind of line (Crawford and
//! post-Crawford games, passes, doubles, takes, drops, beavers, raccoons,
//! resignations). `scripts/ci-gnubg-import.sh` imports such files into GNU
//! Backgammon itself.

#[path = "../examples/support/bot.rs"]
mod bot;

use bgref_core::notation::mat::write_mat;
use bgref_core::verify::Roller;
use bgref_core::{
    BackgammonGame, BackgammonVariant, CubeRules, Event, GameKind, MatchState, Phase,
};

use bot::{Bot, Style};

#[derive(Debug, Default)]
struct Seen {
    games: usize,
    crawford: usize,
    post_crawford: usize,
    passes: usize,
    lines: usize,
}

fn play(
    seed: u8,
    variant: BackgammonVariant,
    rules: CubeRules,
    length: u32,
    style: Style,
    seen: &mut Seen,
) -> String {
    let start = BackgammonGame::new(
        variant,
        rules,
        MatchState::new_match(length),
        format!("mat-{seed}"),
    );
    let roller = Roller::new(&[seed; 32]);
    let steps = Bot::new(u64::from(seed), style).play(&start, &roller, 6);
    let text = write_mat(&start, &steps).expect("a transcript writes");
    // One game header per game.
    let games = 1 + steps
        .iter()
        .filter(|(_, e)| matches!(e, Event::NewGame { .. }))
        .count();
    assert_eq!(text.matches("\n Game ").count(), games, "{text}");
    for (state, event) in &steps {
        match event {
            Event::NewGame { .. } => match state.match_state.game_kind() {
                GameKind::Crawford => seen.crawford += 1,
                GameKind::PostCrawford => seen.post_crawford += 1,
                GameKind::Normal => {}
            },
            Event::Rolled { passed: true, .. } => seen.passes += 1,
            _ => {}
        }
    }
    seen.games += games;
    // gnubg's reader needs, on every move line, the second roll's colon or
    // a double space after column 15.
    for line in text.lines().filter(|l| l.starts_with("  ")) {
        seen.lines += 1;
        assert!(line.len() > 15 && line[15..].contains("  "), "{line:?}");
    }
    let last = &steps.last().unwrap().0;
    if last.phase == Phase::MatchOver {
        assert!(text.trim_end().ends_with("and the match"), "{text}");
    }
    text
}

#[test]
fn five_point_matches() {
    let mut seen = Seen::default();
    let mut text = String::new();
    for seed in 1..=12 {
        text += &play(
            seed,
            BackgammonVariant::Standard,
            CubeRules::DEFAULT,
            5,
            Style::CUBE,
            &mut seen,
        );
    }
    assert!(seen.crawford > 0 && seen.post_crawford > 0, "{seen:?}");
    assert!(seen.passes > 0, "{seen:?}");
    for word in [" Doubles => ", " Takes", " Drops", " Wins "] {
        assert!(text.contains(word), "{word}");
    }
}

#[test]
fn money_sessions_with_beavers_and_resignations() {
    let style = Style {
        double: 200,
        take: 800,
        beaver: 500,
        resign: 5,
        accept: 600,
    };
    let rules = CubeRules {
        beavers: 2,
        ..CubeRules::DEFAULT
    };
    let mut seen = Seen::default();
    let mut text = String::new();
    for seed in 1..=6 {
        text += &play(
            seed,
            BackgammonVariant::Standard,
            rules,
            0,
            style,
            &mut seen,
        );
        text += &play(
            seed,
            BackgammonVariant::Nackgammon,
            CubeRules::DEFAULT,
            3,
            style,
            &mut seen,
        );
    }
    for word in [
        " Beavers => ",
        " Raccoons => ",
        " Takes",
        " Drops",
        " Wins ",
    ] {
        assert!(text.contains(word), "{word}");
    }
    assert!(seen.games >= 12, "{seen:?}");
}

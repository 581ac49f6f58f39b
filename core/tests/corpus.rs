//! The engine against GNU Backgammon's own answers.
//!
//! `data/legal_moves.jsonl.gz` (30 000 cases, gnubg 1.07.001): each line has
//! the position before the roll (`position_id`, `board` = `[opponent,
//! on_roll]`, each 25 counts from that side's view with the bar last, `off`
//! likewise), the `dice`, and every legal play as gnubg's notation (`move`)
//! and the Position ID with the opponent on roll (`next_id`). Every case
//! must give the same set of resulting positions; gnubg's notation must
//! parse to the play it names; and we write every play exactly as gnubg does.
//!
//! `data/terminal_results.jsonl`: finished games with gnubg's verdict.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};

use bgref_core::notation::move_text::MoveText;
use bgref_core::notation::position_id::PositionId;
use bgref_core::{BackgammonVariant, ByPlayer, Dice, Die, GameResult, Player, Position, Setup};
use serde_json::Value;

fn cases() -> impl Iterator<Item = Value> {
    let file = std::fs::File::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/legal_moves.jsonl.gz"
    ))
    .expect("corpus file");
    BufReader::new(flate2::read::GzDecoder::new(file))
        .lines()
        .map(|line| serde_json::from_str(&line.expect("line")).expect("json"))
}

fn position_of(case: &Value) -> Position {
    let variant: BackgammonVariant = case["variant"].as_str().unwrap().parse().unwrap();
    let side = |i: usize| -> Vec<u8> {
        case["board"][i]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u8)
            .collect()
    };
    let (opp, me) = (side(0), side(1));
    let mut setup = Setup::empty(Player::X);
    setup.points.x.copy_from_slice(&me[..24]);
    setup.points.o.copy_from_slice(&opp[..24]);
    setup.bar = ByPlayer {
        x: me[24],
        o: opp[24],
    };
    let off = &case["off"];
    setup.off = Some(ByPlayer {
        x: off[1].as_u64().unwrap() as u8,
        o: off[0].as_u64().unwrap() as u8,
    });
    Position::from_setup(&setup, variant).expect("valid corpus position")
}

fn dice_of(case: &Value) -> Dice {
    let d = |i: usize| Die::new(case["dice"][i].as_u64().unwrap() as u8);
    Dice::new(d(0), d(1))
}

#[test]
fn legal_moves_agree_with_gnubg() {
    let mut n = 0;
    let mut plays_total = 0;
    let mut mismatches = Vec::new();
    for case in cases() {
        n += 1;
        let id = case["id"].as_str().unwrap().to_owned();
        let pos = position_of(&case);
        assert_eq!(
            PositionId::from_position(&pos).to_string(),
            case["position_id"].as_str().unwrap(),
            "{id}: position ID"
        );
        // The ID alone gives the same position.
        let parsed: PositionId = case["position_id"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            Position::from_setup(&parsed.to_setup(Player::X), pos.variant()).unwrap(),
            pos,
            "{id}"
        );
        let dice = dice_of(&case);
        let plays = pos.legal_plays(dice);
        let ours: BTreeSet<String> = plays
            .iter()
            .map(|p| PositionId::from_position(&pos.after(p)).to_string())
            .collect();
        assert_eq!(
            ours.len(),
            plays.len(),
            "{id}: two plays reach the same position"
        );
        let expected: BTreeSet<String> = case["plays"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["next_id"].as_str().unwrap().to_owned())
            .collect();
        if ours != expected {
            mismatches.push(format!(
                "{id} dice {:?}: ours {} gnubg {}; missing {:?}; extra {:?}",
                dice.values(),
                ours.len(),
                expected.len(),
                expected.difference(&ours).collect::<Vec<_>>(),
                ours.difference(&expected).collect::<Vec<_>>()
            ));
            continue;
        }
        // gnubg's notation names exactly its play, and we write it the same way.
        for gp in case["plays"].as_array().unwrap() {
            plays_total += 1;
            let text = gp["move"].as_str().unwrap();
            let play = text
                .parse::<MoveText>()
                .unwrap_or_else(|e| panic!("{id}: cannot parse gnubg's {text:?}: {e}"))
                .to_play(&pos, dice)
                .unwrap_or_else(|e| panic!("{id}: gnubg's {text:?} rejected: {e}"));
            assert_eq!(
                PositionId::from_position(&pos.after(&play)).to_string(),
                gp["next_id"].as_str().unwrap(),
                "{id}: {text:?} names another play"
            );
            assert_eq!(
                MoveText::format(&play),
                text,
                "{id}: our notation differs from gnubg's"
            );
        }
    }
    assert_eq!(n, 30_000);
    assert!(
        mismatches.is_empty(),
        "{} of {n} cases differ:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
    assert!(plays_total > 400_000);
}

#[test]
fn results_agree_with_gnubg() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/terminal_results.jsonl"
    ))
    .unwrap();
    let mut n = 0;
    for line in text.lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let variant: BackgammonVariant = case["variant"].as_str().unwrap().parse().unwrap();
        let id: PositionId = case["position_id_loser_on_roll"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let pos = Position::from_setup(&id.to_setup(Player::O), variant).unwrap();
        let outcome = pos.outcome().expect("finished");
        assert_eq!(outcome.winner, Player::X);
        let eval = case["gnubg_evaluate_loser_on_roll"].as_array().unwrap();
        let expected = if eval[4].as_f64() == Some(1.0) {
            GameResult::Backgammon
        } else if eval[3].as_f64() == Some(1.0) {
            GameResult::Gammon
        } else {
            GameResult::Single
        };
        assert_eq!(outcome.result, expected, "{line}");
        n += 1;
    }
    assert!(n > 100);
}

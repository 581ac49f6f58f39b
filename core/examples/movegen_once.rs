//! Runs the move generator once over every corpus position and all 21
//! rolls; for instruction counts under callgrind, which do not depend on
//! the machine's load:
//! `valgrind --tool=callgrind --toggle-collect='*legal_plays*' target/release/examples/movegen_once`
//!
//! Arguments: `[STEP] [doubles|non-doubles]` (every STEP-th corpus position,
//! default 10), or `class CLASS [doubles|non-doubles]` for one class of the
//! benchmark's fixed set `benches/data/positions.txt` (`contact`, `race`,
//! `bearoff`, `bar`, or `mix` for all 4 000).
//!
//! `MOVEGEN_ONCE=after-legal` also makes each play's resulting position,
//! by `Position::after_legal` on each play of `Position::legal_plays`
//! (what the service's answer writers do); the default is the plays only.
//! Each (position, roll) runs in a function of its own, `once_plays` or
//! `once_after_legal`, so `--toggle-collect='*::once_*'` counts the same
//! work in both modes (list freed included).

use std::io::{BufRead, BufReader};

use bgref_core::notation::position_id::PositionId;
use bgref_core::{BackgammonVariant, Dice, Player, Position};

#[path = "support/positions.rs"]
mod positions;
use positions::class_positions;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (positions, step, only) = if args.first().map(String::as_str) == Some("class") {
        let class = args.get(1).map_or("mix", String::as_str);
        (class_positions(class), 1, args.get(2).cloned())
    } else {
        let step = args.first().and_then(|s| s.parse().ok()).unwrap_or(10);
        (corpus_positions(), step, args.get(1).cloned())
    };
    let only = only.unwrap_or_default();
    let mode = std::env::var("MOVEGEN_ONCE").unwrap_or_default();
    let mut pairs = 0usize;
    let mut plays = 0usize;
    for pos in positions.iter().step_by(step) {
        for &dice in &Dice::ALL_21 {
            if (only == "doubles" && !dice.is_double())
                || (only == "non-doubles" && dice.is_double())
            {
                continue;
            }
            plays += match mode.as_str() {
                "after-legal" => once_after_legal(pos, dice),
                _ => once_plays(pos, dice),
            };
            pairs += 1;
        }
    }
    println!("{pairs} (position, roll) pairs, {plays} plays");
}

/// The plays of one (position, roll).
#[inline(never)]
fn once_plays(pos: &Position, dice: Dice) -> usize {
    std::hint::black_box(pos.legal_plays(dice)).len()
}

/// The plays, then each play's resulting position by `after_legal`.
#[inline(never)]
fn once_after_legal(pos: &Position, dice: Dice) -> usize {
    let list = pos.legal_plays(dice);
    for play in &list {
        std::hint::black_box(pos.after_legal(play));
    }
    list.len()
}

/// Every position of the gnubg corpus.
fn corpus_positions() -> Vec<Position> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/legal_moves.jsonl.gz"
    );
    let file = std::fs::File::open(path).expect("corpus file");
    let mut positions = Vec::new();
    for line in BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
        let case: serde_json::Value = serde_json::from_str(&line.expect("line")).expect("json");
        let variant: BackgammonVariant = case["variant"]
            .as_str()
            .unwrap_or("standard")
            .parse()
            .expect("variant");
        let id: PositionId = case["position_id"]
            .as_str()
            .unwrap_or("")
            .parse()
            .expect("id");
        positions.push(Position::from_setup(&id.to_setup(Player::X), variant).expect("position"));
    }
    positions
}

//! Runs the move generator once over every corpus position and all 21
//! rolls; for instruction counts under callgrind, which do not depend on
//! the machine's load:
//! `valgrind --tool=callgrind --toggle-collect='*legal_plays*' target/release/examples/movegen_once`

use std::io::{BufRead, BufReader};

use bgref_core::notation::position_id::PositionId;
use bgref_core::{Dice, Player, Position, Variant};

fn main() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/legal_moves.jsonl.gz"
    );
    let file = std::fs::File::open(path).expect("corpus file");
    let mut positions = Vec::new();
    for line in BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
        let case: serde_json::Value = serde_json::from_str(&line.expect("line")).expect("json");
        let variant: Variant = case["variant"]
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
    let step: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    // Optional second argument: `doubles` or `non-doubles` only.
    let only = std::env::args().nth(2).unwrap_or_default();
    let mut pairs = 0usize;
    let mut plays = 0usize;
    for pos in positions.iter().step_by(step) {
        for &dice in &Dice::ALL_21 {
            if (only == "doubles" && !dice.is_double())
                || (only == "non-doubles" && dice.is_double())
            {
                continue;
            }
            plays += std::hint::black_box(pos.legal_plays(dice)).len();
            pairs += 1;
        }
    }
    println!("{pairs} (position, roll) pairs, {plays} plays");
}

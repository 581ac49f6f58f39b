//! Writes the fixed position set of the move generator benchmark,
//! `benches/data/positions.txt`: 1 000 positions each of four classes, met
//! in random games (both players pick uniformly among their legal plays,
//! dice from a seeded SplitMix64), one line per position: the class and the
//! gnubg Position ID with the player on roll first (read it with
//! `to_setup(Player::X)`).
//!
//! Classes, from the side of the player on roll, first match wins:
//! - `bar`: the mover has a checker on the bar;
//! - `bearoff`: all of the mover's checkers are home (points 1 to 6 or off);
//! - `race`: no contact (every mover checker is past every opposing one);
//! - `contact`: the rest.
//!
//! The output is deterministic; rerun only to change the set:
//! `cargo run -p bgref-core --example bench_positions > core/benches/data/positions.txt`

use std::collections::BTreeMap;

use bgref_core::notation::position_id::PositionId;
use bgref_core::{BackgammonVariant, Dice, Die, Player, Position};

const PER_CLASS: usize = 1000;
const SEED: u64 = 0x6267_7265_665f_3131; // "bgref_11"
/// Keep each position met with probability 1/KEEP_ONE_IN, so that the kept
/// positions of one game are not neighbours.
const KEEP_ONE_IN: u64 = 4;

/// SplitMix64 (Steele, Lea, Flood 2014): small, seeded, good enough here.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (the modulo bias is below 2^-58 for these `n`).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn die(&mut self) -> Die {
        Die::new(self.below(6) as u8 + 1)
    }
}

/// The class of `pos` for its player on roll.
fn class(pos: &Position) -> &'static str {
    let me = pos.side(pos.turn());
    let opp = pos.side(!pos.turn());
    // Highest occupied index (25 = bar), each side in its own numbering.
    let highest = |side: &[u8; 26]| (1..26).rev().find(|&p| side[p] > 0).unwrap_or(0);
    let (h_me, h_opp) = (highest(me), highest(opp));
    if me[25] > 0 {
        "bar"
    } else if h_me <= 6 {
        "bearoff"
    } else if h_me + h_opp <= 25 {
        // The opponent's point q is the mover's 25 - q: no mover checker
        // stands behind an opposing one.
        "race"
    } else {
        "contact"
    }
}

fn main() {
    let mut rng = SplitMix64(SEED);
    let mut kept: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let full = |kept: &BTreeMap<&str, Vec<String>>| {
        ["bar", "bearoff", "contact", "race"]
            .iter()
            .all(|c| kept.get(c).is_some_and(|v| v.len() >= PER_CLASS))
    };
    while !full(&kept) {
        let first = if rng.below(2) == 0 {
            Player::X
        } else {
            Player::O
        };
        let mut pos = Position::start(BackgammonVariant::Standard, first);
        while pos.outcome().is_none() {
            if rng.below(KEEP_ONE_IN) == 0 {
                let list = kept.entry(class(&pos)).or_default();
                if list.len() < PER_CLASS {
                    list.push(PositionId::from_position(&pos).to_string());
                }
            }
            let dice = Dice::new(rng.die(), rng.die());
            let plays = pos.legal_plays(dice);
            pos = if plays.is_empty() {
                pos.swap_turn()
            } else {
                let i = rng.below(plays.len() as u64) as usize;
                pos.after(plays.get(i).expect("index below len"))
            };
        }
    }
    println!("# class position_id (player on roll first); made by examples/bench_positions.rs");
    for (class, ids) in &kept {
        for id in ids {
            println!("{class} {id}");
        }
    }
}

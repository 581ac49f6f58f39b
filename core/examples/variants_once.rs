//! Runs a move generator once over 2 000 positions of seeded random games
//! (the same as `benches/variants.rs`) and all 21 rolls; for instruction
//! counts under callgrind, which do not depend on the machine's load:
//! `valgrind --tool=callgrind --toggle-collect='*legal_plays*' target/release/examples/variants_once plakoto`
//! (the argument: `standard`, `plakoto`, `fevga` or `long-nardy`).

use bgref_core::tables::{Game, TablesPosition};
use bgref_core::{Dice, Die, Player, Position, Variant};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn dice(&mut self) -> Dice {
        Dice::new(
            Die::new(self.below(6) as u8 + 1),
            Die::new(self.below(6) as u8 + 1),
        )
    }
}

const POSITIONS: usize = 2000;

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "standard".into());
    let (mut pairs, mut plays) = (0usize, 0usize);
    if name == "standard" {
        let mut rng = Rng(0xB16B_00B5);
        let mut positions = Vec::new();
        while positions.len() < POSITIONS {
            let mut pos = Position::start(Variant::Standard, Player::X);
            while pos.outcome().is_none() && positions.len() < POSITIONS {
                positions.push(pos);
                let list = pos.legal_plays(rng.dice());
                pos = match list.get(rng.below(list.len().max(1))) {
                    Some(play) => pos.after(play),
                    None => pos.swap_turn(),
                };
            }
        }
        for pos in &positions {
            for dice in Dice::ALL_21 {
                plays += pos.legal_plays(dice).len();
                pairs += 1;
            }
        }
    } else {
        let game: Game = name.parse().expect("a game name");
        let mut rng = Rng(0xB16B_00B5 ^ game as u64);
        let mut positions = Vec::new();
        while positions.len() < POSITIONS {
            let mut pos = TablesPosition::start(game, Player::X).expect("a tables game");
            while pos.outcome().is_none() && positions.len() < POSITIONS {
                positions.push(pos);
                let list = pos.legal_plays(rng.dice());
                pos = match list.get(rng.below(list.len().max(1))) {
                    Some(play) => pos.after(play),
                    None => pos.swap_turn(),
                };
            }
        }
        for pos in &positions {
            for dice in Dice::ALL_21 {
                plays += pos.legal_plays(dice).len();
                pairs += 1;
            }
        }
    }
    println!("{name}: {pairs} (position, roll) pairs, {plays} plays");
}

//! Seeded random games: a xorshift64* generator and the positions met on
//! the way through random games (a random legal play each turn), for
//! standard backgammon and the tables games. Shared by
//! `benches/variants.rs`, `examples/variants_once.rs` and `tests/tables.rs`
//! so the benchmark, the instruction counts and the tests see the same
//! positions for the same seed.

#![allow(dead_code)]

use bgref_core::tables::{Game, TablesPosition};
use bgref_core::{BackgammonVariant, Dice, Die, Player, Position};

/// xorshift64*: reproducible, no dependency; not for anything but tests.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn dice(&mut self) -> Dice {
        let a = Die::new(self.below(6) as u8 + 1);
        let b = Die::new(self.below(6) as u8 + 1);
        Dice::new(a, b)
    }
}

/// The seed of the benchmark's positions.
pub const SEED: u64 = 0xB16B_00B5;

/// `count` positions of seeded random standard games, x starting each game.
pub fn standard_positions(count: usize) -> Vec<Position> {
    let mut rng = Rng(SEED);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut pos = Position::start(BackgammonVariant::Standard, Player::X);
        while pos.outcome().is_none() && out.len() < count {
            out.push(pos);
            let plays = pos.legal_plays(rng.dice());
            pos = match plays.get(rng.below(plays.len().max(1))) {
                Some(play) => pos.after(play),
                None => pos.swap_turn(),
            };
        }
    }
    out
}

/// `count` positions of seeded random games of a tables game (Plakoto,
/// Fevga or Long Nardy), x starting each game.
pub fn tables_positions(game: Game, count: usize) -> Vec<TablesPosition> {
    let mut rng = Rng(SEED ^ game as u64);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut pos = TablesPosition::start(game, Player::X).expect("a tables game");
        while pos.outcome().is_none() && out.len() < count {
            out.push(pos);
            let plays = pos.legal_plays(rng.dice());
            pos = match plays.get(rng.below(plays.len().max(1))) {
                Some(play) => pos.after(play),
                None => pos.swap_turn(),
            };
        }
    }
    out
}

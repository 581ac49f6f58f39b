//! Move generation speed of the tables games beside standard backgammon:
//! positions from seeded random games of each game (every position on the
//! way, the player on roll), times all 21 rolls. Criterion's throughput is
//! (position, roll) pairs, so its time per element is the ns per pair.
//!
//! `cargo bench -p bgref-core --bench variants`

use std::hint::black_box;

use bgref_core::tables::{Game, TablesPosition};
use bgref_core::{Dice, Die, Player, Position, Variant};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

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

fn tables_positions(game: Game) -> Vec<TablesPosition> {
    let mut rng = Rng(0xB16B_00B5 ^ game as u64);
    let mut out = Vec::new();
    while out.len() < POSITIONS {
        let mut pos = TablesPosition::start(game, Player::X).unwrap();
        while pos.outcome().is_none() && out.len() < POSITIONS {
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

fn standard_positions() -> Vec<Position> {
    let mut rng = Rng(0xB16B_00B5);
    let mut out = Vec::new();
    while out.len() < POSITIONS {
        let mut pos = Position::start(Variant::Standard, Player::X);
        while pos.outcome().is_none() && out.len() < POSITIONS {
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

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("variants");
    group.throughput(Throughput::Elements((POSITIONS * 21) as u64));
    group.sample_size(10);
    let standard = standard_positions();
    group.bench_function("standard", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for pos in &standard {
                for &dice in &Dice::ALL_21 {
                    n += black_box(pos.legal_plays(black_box(dice))).len();
                }
            }
            n
        });
    });
    for game in [Game::Plakoto, Game::Fevga, Game::LongNardy] {
        let positions = tables_positions(game);
        group.bench_function(game.as_str(), |b| {
            b.iter(|| {
                let mut n = 0usize;
                for pos in &positions {
                    for &dice in &Dice::ALL_21 {
                        n += black_box(pos.legal_plays(black_box(dice))).len();
                    }
                }
                n
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

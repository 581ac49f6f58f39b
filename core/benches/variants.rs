//! Move generation speed of the tables games beside standard backgammon:
//! positions from seeded random games of each game (every position on the
//! way, the player on roll), times all 21 rolls. Criterion's throughput is
//! (position, roll) pairs, so its time per element is the ns per pair.
//!
//! `cargo bench -p bgref-core --bench variants`
//!
//! Besides the games' defaults: `tavla-forbidden-in-home` (Tavla's
//! hit-and-run option, its own generator) on the standard positions, and
//! `fevga-needs-checker-ahead` on the Fevga positions (Fevga's default is
//! `open_when_stuck`).

use std::hint::black_box;

use bgref_core::Dice;
use bgref_core::tables::{Game, HitAndRun, PrimeRule, TablesRules};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[path = "../examples/support/random_games.rs"]
mod random_games;

use random_games::{standard_positions, tables_positions};

const POSITIONS: usize = 2000;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("variants");
    group.throughput(Throughput::Elements((POSITIONS * 21) as u64));
    group.sample_size(10);
    let standard = standard_positions(POSITIONS);
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
    // Tavla without hit-and-run in the home board: its own generator, on
    // the same positions as standard.
    group.bench_function("tavla-forbidden-in-home", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for pos in &standard {
                for &dice in &Dice::ALL_21 {
                    n += black_box(HitAndRun::ForbiddenInHome.legal_plays(pos, black_box(dice)))
                        .len();
                }
            }
            n
        });
    });
    // Fevga under the prime rule it had before open_when_blocked became
    // its default, on the same positions as "fevga".
    let fevga = tables_positions(Game::Fevga, POSITIONS);
    let checker_ahead: Vec<_> = fevga
        .iter()
        .map(|p| {
            p.with_rules(TablesRules {
                primes: Some(PrimeRule::NeedsCheckerAhead),
                ..TablesRules::DEFAULT
            })
        })
        .collect();
    group.bench_function("fevga-needs-checker-ahead", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for pos in &checker_ahead {
                for &dice in &Dice::ALL_21 {
                    n += black_box(pos.legal_plays(black_box(dice))).len();
                }
            }
            n
        });
    });
    for game in [Game::Plakoto, Game::Fevga, Game::LongNardy] {
        let positions = tables_positions(game, POSITIONS);
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

//! Move generation speed: a few thousand positions from the gnubg corpus
//! (contact, race, bear-off and bar positions, all variants) times all 21
//! rolls. Criterion reports the time per batch; divide by the number of
//! (position, roll) pairs printed at the start for ns per pair.
//!
//! `cargo bench -p bgref-core --bench movegen`

use std::collections::BTreeSet;
use std::hint::black_box;
use std::io::{BufRead, BufReader};

use bgref_core::notation::position_id::PositionId;
use bgref_core::{Dice, Player, Position, Variant};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn positions() -> Vec<Position> {
    let file = std::fs::File::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/legal_moves.jsonl.gz"
    ))
    .expect("corpus file");
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for line in BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
        let case: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let id = case["position_id"].as_str().unwrap().to_owned();
        let variant: Variant = case["variant"].as_str().unwrap().parse().unwrap();
        if !seen.insert((id.clone(), variant.as_str())) {
            continue;
        }
        let pid: PositionId = id.parse().unwrap();
        let pos = Position::from_setup(&pid.to_setup(Player::X), variant).unwrap();
        // Every 5th distinct position: about 5 000, all sources mixed.
        if seen.len() % 5 == 0 {
            out.push(pos);
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let positions = positions();
    let pairs = positions.len() * 21;
    let plays: usize = positions
        .iter()
        .map(|p| {
            Dice::ALL_21
                .iter()
                .map(|&d| p.legal_plays(d).len())
                .sum::<usize>()
        })
        .sum();
    eprintln!(
        "{} positions x 21 rolls = {pairs} (position, roll) pairs, {plays} plays in all",
        positions.len()
    );
    let mut group = c.benchmark_group("movegen");
    group.throughput(Throughput::Elements(pairs as u64));
    group.sample_size(20);
    group.bench_function("all_21_rolls", |b| {
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
    let doubles: Vec<Dice> = Dice::ALL_21
        .iter()
        .copied()
        .filter(|d| d.is_double())
        .collect();
    let non_doubles: Vec<Dice> = Dice::ALL_21
        .iter()
        .copied()
        .filter(|d| !d.is_double())
        .collect();
    for (name, rolls) in [("doubles_only", doubles), ("non_doubles_only", non_doubles)] {
        group.throughput(Throughput::Elements((positions.len() * rolls.len()) as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0usize;
                for pos in &positions {
                    for &dice in &rolls {
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

//! Move generation speed, all 21 rolls per position.
//!
//! - `movegen/*`: a few thousand positions from the gnubg corpus (all
//!   variants mixed), all rolls, doubles only and non-doubles only.
//! - `movegen_class/*`: the fixed set in `benches/data/positions.txt`
//!   (1 000 positions each of contact, race, bear-off and bar from random
//!   games, see `examples/bench_positions.rs`), one figure per class and
//!   one for the mix of all 4 000.
//!
//! Throughput is set to the (position, roll) pairs of a batch, so criterion's
//! "thrpt" is pairs per second and the time divided by the pairs printed at
//! the start is ns per (position, roll).
//!
//! `cargo bench -p bgref-core --bench movegen`
//! (`-- movegen_class` for the classes only)

use std::collections::BTreeSet;
use std::hint::black_box;
use std::io::{BufRead, BufReader};

use bgref_core::notation::position_id::PositionId;
use bgref_core::{BackgammonVariant, Dice, Player, Position};
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
        let variant: BackgammonVariant = case["variant"].as_str().unwrap().parse().unwrap();
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

/// The classes of `benches/data/positions.txt`, in file order, with their
/// positions.
fn class_positions() -> Vec<(String, Vec<Position>)> {
    let text = include_str!("data/positions.txt");
    let mut out: Vec<(String, Vec<Position>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (class, id) = line.split_once(' ').expect("class and ID");
        let pid: PositionId = id.parse().expect("Position ID");
        let pos =
            Position::from_setup(&pid.to_setup(Player::X), BackgammonVariant::Standard).unwrap();
        match out.last_mut() {
            Some((c, list)) if c == class => list.push(pos),
            _ => out.push((class.to_owned(), vec![pos])),
        }
    }
    out
}

/// Generates every roll of every position; the total number of plays.
fn all_rolls(positions: &[Position]) -> usize {
    let mut n = 0usize;
    for pos in positions {
        for &dice in &Dice::ALL_21 {
            n += black_box(pos.legal_plays(black_box(dice))).len();
        }
    }
    n
}

fn bench_classes(c: &mut Criterion) {
    let mut classes = class_positions();
    let mix: Vec<Position> = classes.iter().flat_map(|(_, l)| l.clone()).collect();
    classes.push(("mix".to_owned(), mix));
    let mut group = c.benchmark_group("movegen_class");
    group.sample_size(30);
    for (class, positions) in &classes {
        let pairs = positions.len() * 21;
        eprintln!(
            "{class}: {} positions x 21 rolls = {pairs} pairs, {} plays",
            positions.len(),
            all_rolls(positions)
        );
        group.throughput(Throughput::Elements(pairs as u64));
        group.bench_function(class.as_str(), |b| b.iter(|| all_rolls(positions)));
    }
    group.finish();
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

criterion_group!(benches, bench_classes, bench);
criterion_main!(benches);

//! Statistical check of the dice: 1,048,576 rolls (games 1..=1024 × turns
//! 1..=1024 of one fixed match) must look uniform to a chi-square test.
//!
//! Significance level alpha = 0.001 for every test below. Critical values of
//! the chi-square distribution at upper-tail probability 0.001:
//! - 5 degrees of freedom (6 faces):          20.515
//! - 35 degrees of freedom (36 ordered pairs): 66.619
//!
//! The seed is fixed, so the outcome is deterministic: a failure means the
//! stream, the rejection rule or the roll construction changed (or is
//! biased), never bad luck on one CI run. With a correct implementation each
//! test would fail for a fresh random seed with probability 0.001.
//!
//! Exact uniformity itself does not rest on this test: each face comes from
//! exactly 42 of the 252 accepted byte values (see `verify::tests::byte_to_die`).

use bgref_core::verify::{Roller, server_seed};

/// chi-square critical value, 5 degrees of freedom, alpha = 0.001.
const CHI2_DF5_ALPHA_0_001: f64 = 20.515;
/// chi-square critical value, 35 degrees of freedom, alpha = 0.001.
const CHI2_DF35_ALPHA_0_001: f64 = 66.619;

const GAMES: u32 = 1024;
const TURNS: u32 = 1024;

/// Pearson's chi-square statistic of `observed` against equal expected counts.
fn chi_square(observed: &[u64]) -> f64 {
    let total: u64 = observed.iter().sum();
    let expected = total as f64 / observed.len() as f64;
    observed
        .iter()
        .map(|&o| {
            let d = o as f64 - expected;
            d * d / expected
        })
        .sum()
}

struct Counts {
    rolls: u64,
    /// Faces of both dice together.
    faces: [u64; 6],
    first: [u64; 6],
    second: [u64; 6],
    /// Ordered pairs, index 6 * (first - 1) + (second - 1).
    pairs: [u64; 36],
}

fn count_rolls() -> Counts {
    let seed = server_seed(
        b"bgref uniformity test master secret, 32+ bytes",
        "uniformity",
    );
    let roller = Roller::new(&seed);
    let mut c = Counts {
        rolls: 0,
        faces: [0; 6],
        first: [0; 6],
        second: [0; 6],
        pairs: [0; 36],
    };
    for game in 1..=GAMES {
        for turn in 1..=TURNS {
            let [a, b] = roller.roll("uniformity-client", game, turn).values();
            let (a, b) = (usize::from(a - 1), usize::from(b - 1));
            c.rolls += 1;
            c.faces[a] += 1;
            c.faces[b] += 1;
            c.first[a] += 1;
            c.second[b] += 1;
            c.pairs[6 * a + b] += 1;
        }
    }
    c
}

#[test]
fn a_million_rolls_are_uniform() {
    let started = std::time::Instant::now();
    let c = count_rolls();
    let elapsed = started.elapsed();
    assert!(c.rolls >= 1_000_000);

    let faces = chi_square(&c.faces);
    let first = chi_square(&c.first);
    let second = chi_square(&c.second);
    let pairs = chi_square(&c.pairs);
    eprintln!(
        "{} rolls in {elapsed:.2?}: chi2 faces {faces:.3}, first die {first:.3}, \
         second die {second:.3} (df 5, critical {CHI2_DF5_ALPHA_0_001}); \
         ordered pairs {pairs:.3} (df 35, critical {CHI2_DF35_ALPHA_0_001})",
        c.rolls
    );
    eprintln!("faces {:?}", c.faces);

    assert!(
        faces < CHI2_DF5_ALPHA_0_001,
        "faces of both dice: chi2 {faces} >= {CHI2_DF5_ALPHA_0_001}, counts {:?}",
        c.faces
    );
    assert!(
        first < CHI2_DF5_ALPHA_0_001,
        "first die: chi2 {first} >= {CHI2_DF5_ALPHA_0_001}, counts {:?}",
        c.first
    );
    assert!(
        second < CHI2_DF5_ALPHA_0_001,
        "second die: chi2 {second} >= {CHI2_DF5_ALPHA_0_001}, counts {:?}",
        c.second
    );
    assert!(
        pairs < CHI2_DF35_ALPHA_0_001,
        "ordered pairs: chi2 {pairs} >= {CHI2_DF35_ALPHA_0_001}, counts {:?}",
        c.pairs
    );
}

#[test]
fn chi_square_statistic_sanity() {
    // Equal counts give 0; a known small case: [10, 20, 30] vs 20 each is
    // (100 + 0 + 100) / 20 = 10.
    assert_eq!(chi_square(&[5; 6]), 0.0);
    assert!((chi_square(&[10, 20, 30]) - 10.0).abs() < 1e-12);
    // A die that never shows a six over 6000 throws fails by far.
    assert!(chi_square(&[1200, 1200, 1200, 1200, 1200, 0]) > CHI2_DF5_ALPHA_0_001);
}

#!/usr/bin/env bash
# bgref's move generator side by side with bkgm's (crates.io, version
# pinned below), per position class of core/benches/data/positions.txt
# (issue 28). Nothing of bkgm is kept in this repository: the script writes
# a throwaway cargo project outside it (under $TMPDIR, default /tmp) that
# depends on bkgm from crates.io and on bgref-core by path, builds it in
# release mode and runs it.
#
# For every class (contact, race, bearoff, bar, mix) the harness first
# checks, for all 21 rolls of every position, that both generators give the
# same set of resulting positions (compared as gnubg Position IDs, the
# opponent on roll), then times three generators interleaved on chunks of
# 10 positions (fastest of 3 per chunk, summed over the class; median of
# BENCH_ROUNDS rounds):
#   bgref plays            Position::legal_plays (the plays only)
#   bgref plays+positions  legal_plays, then Position::after_legal on each
#                          play (every resulting position, what the
#                          service's answers need)
#   bkgm positions         bkgm::legal_positions_with::<ClassicRules, 15>
#                          (its resulting positions, which is all it makes)
# and prints ns per (position, roll). With valgrind installed it also
# counts instructions per (position, roll) of each generator once under
# callgrind (load-independent).
#
# wildbg, the other reference of bench/README.md, is not on crates.io and
# cannot be fetched here; its recorded figures are in bench/README.md.
#
# Usage: bench/compare-movegen.sh
# Environment: BENCH_ROUNDS [9], BKGM_VERSION [0.6.0], BENCH_KEEP=1 keeps
# the project (its path is printed), CALLGRIND=0 skips the instruction
# counts.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
BKGM_VERSION="${BKGM_VERSION:-0.6.0}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/bgref-compare-movegen.XXXXXX")"
cleanup() {
  local rc=$?
  if [[ "${BENCH_KEEP:-0}" == 1 || $rc -ne 0 ]]; then echo "project kept: $WORK"; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT

mkdir -p "$WORK/src"
cat >"$WORK/Cargo.toml" <<EOF
[package]
name = "compare-movegen"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
bkgm = "=$BKGM_VERSION"
bgref-core = { path = "$ROOT/core" }

[profile.release]
lto = "thin"
codegen-units = 1

[workspace]
EOF

cat >"$WORK/src/main.rs" <<'EOF'
use std::collections::BTreeSet;
use std::hint::black_box;
use std::time::Instant;

use bgref_core::notation::position_id::PositionId;
use bgref_core::{BackgammonVariant, Dice, Player, Position};
use bkgm::codecs::gnuid::{decode_position, encode_position};
use bkgm::{ClassicRules, State};

type Bk = bkgm::Position<15>;

fn classes(text: &str) -> Vec<(String, Vec<(Position, Bk)>)> {
    let mut out: Vec<(String, Vec<(Position, Bk)>)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (class, id) = line.split_once(' ').expect("class and ID");
        let pid: PositionId = id.parse().expect("Position ID");
        let ours = Position::from_setup(&pid.to_setup(Player::X), BackgammonVariant::Standard).expect("position");
        let theirs = decode_position::<15>(id).expect("bkgm reads the ID");
        match out.last_mut() {
            Some((c, list)) if c == class => list.push((ours, theirs)),
            _ => out.push((class.to_owned(), vec![(ours, theirs)])),
        }
    }
    let mix = out.iter().flat_map(|(_, l)| l.iter().copied()).collect();
    out.push(("mix".to_owned(), mix));
    out
}

fn bk_dice(dice: Dice) -> bkgm::Dice {
    bkgm::Dice::new(usize::from(dice.high().get()), usize::from(dice.low().get()))
}

#[inline(never)]
fn ours_plays(pos: &Position, dice: Dice) -> usize {
    black_box(pos.legal_plays(dice)).len()
}

#[inline(never)]
fn ours_positions(pos: &Position, dice: Dice) -> usize {
    let list = pos.legal_plays(dice);
    for play in &list {
        black_box(pos.after_legal(play));
    }
    list.len()
}

#[inline(never)]
fn theirs_positions(pos: &Bk, dice: &bkgm::Dice) -> usize {
    black_box(bkgm::legal_positions_with::<ClassicRules, 15>(*pos, dice)).len()
}

/// Both generators' resulting positions as Position IDs (opponent on
/// roll); `flip`: bkgm's results are turned to the opponent's view first.
fn check(list: &[(Position, Bk)], flip: bool) -> Result<usize, String> {
    let mut pairs = 0;
    for (ours, theirs) in list {
        for dice in Dice::ALL_21 {
            let a: BTreeSet<String> = ours
                .legal_plays(dice)
                .iter()
                .map(|p| PositionId::from_position(&ours.after_legal(p)).to_string())
                .collect();
            let b: BTreeSet<String> = bkgm::legal_positions_with::<ClassicRules, 15>(*theirs, &bk_dice(dice))
                .iter()
                .map(|p| encode_position(&if flip { p.flip() } else { *p }))
                .collect();
            // A turn that passes: bgref lists no play, bkgm the position
            // itself (with the other player on roll).
            let b = if a.is_empty() && b.len() == 1 { BTreeSet::new() } else { b };
            if a != b {
                return Err(format!(
                    "{} {dice}: bgref {} positions, bkgm {}",
                    PositionId::from_position(ours),
                    a.len(),
                    b.len()
                ));
            }
            pairs += 1;
        }
    }
    Ok(pairs)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let text = std::fs::read_to_string(std::env::args().nth(1).expect("positions file")).expect("read");
    let rounds: usize = std::env::var("BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(9);
    let once = std::env::var("ONCE").ok();
    let classes = classes(&text);
    if let Some(which) = once {
        // One pass of one generator over the mix, for callgrind.
        let list = &classes.last().expect("mix").1;
        let class = std::env::var("CLASS").unwrap_or_else(|_| "mix".into());
        let list = classes.iter().find(|(c, _)| *c == class).map_or(list, |(_, l)| l);
        let mut n = 0;
        for (ours, theirs) in list {
            for dice in Dice::ALL_21 {
                n += match which.as_str() {
                    "plays" => ours_plays(ours, dice),
                    "positions" => ours_positions(ours, dice),
                    _ => theirs_positions(theirs, &bk_dice(dice)),
                };
            }
        }
        println!("{} {}", list.len() * 21, n);
        return;
    }
    // bkgm's orientation of its results, from the first class.
    let flip = match check(&classes[0].1, false) {
        Ok(_) => false,
        Err(first) => {
            check(&classes[0].1, true).map_err(|e| format!("{first}; flipped: {e}")).expect("same positions");
            true
        }
    };
    println!("{:<8} {:>7} {:>12} {:>18} {:>15} {:>12} {:>12}", "class", "pairs", "bgref plays", "bgref plays+pos", "bkgm positions", "bkgm/plays", "bkgm/p+pos");
    for (class, list) in &classes {
        let pairs = check(list, flip).unwrap_or_else(|e| panic!("{class}: {e}"));
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let (mut ta, mut tb, mut tc) = (0f64, 0f64, 0f64);
            for chunk in list.chunks(10) {
                let (mut ba, mut bb, mut bc) = (f64::MAX, f64::MAX, f64::MAX);
                for _ in 0..3 {
                    let t = Instant::now();
                    for (p, _) in chunk { for d in Dice::ALL_21 { ours_plays(p, d); } }
                    ba = ba.min(t.elapsed().as_secs_f64());
                    let t = Instant::now();
                    for (p, _) in chunk { for d in Dice::ALL_21 { ours_positions(p, d); } }
                    bb = bb.min(t.elapsed().as_secs_f64());
                    let t = Instant::now();
                    for (_, q) in chunk { for d in Dice::ALL_21 { theirs_positions(q, &bk_dice(d)); } }
                    bc = bc.min(t.elapsed().as_secs_f64());
                }
                ta += ba; tb += bb; tc += bc;
            }
            let ns = |t: f64| t * 1e9 / pairs as f64;
            a.push(ns(ta)); b.push(ns(tb)); c.push(ns(tc));
        }
        let (a, b, c) = (median(a), median(b), median(c));
        println!("{class:<8} {pairs:>7} {a:>9.0} ns {b:>15.0} ns {c:>12.0} ns {:>11.2}x {:>11.2}x", c / a, c / b);
    }
    println!("same resulting positions on every pair (bkgm's results {})", if flip { "flipped" } else { "as given" });
}
EOF

echo "building the comparison in $WORK (bkgm $BKGM_VERSION from crates.io, bgref-core from $ROOT/core)"
(cd "$WORK" && cargo build --release --quiet)
BIN="$WORK/target/release/compare-movegen"
POSITIONS="$ROOT/core/benches/data/positions.txt"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN" "$POSITIONS"

if [[ "${CALLGRIND:-1}" == 1 ]] && command -v valgrind >/dev/null; then
  echo
  echo "instructions per (position, roll), callgrind (each generator's function counted):"
  printf '%-8s %12s %18s %15s\n' class "bgref plays" "bgref plays+pos" "bkgm positions"
  for class in contact race bearoff bar mix; do
    row=()
    for which in plays positions bkgm; do
      fn=$([[ $which == plays ]] && echo ours_plays || { [[ $which == positions ]] && echo ours_positions || echo theirs_positions; })
      out="$WORK/cg.$which.$class"
      ONCE=$which CLASS=$class valgrind --tool=callgrind --toggle-collect="*::$fn" \
        --callgrind-out-file="$out" "$BIN" "$POSITIONS" >"$out.stdout" 2>/dev/null
      read -r pairs _ <"$out.stdout"
      row+=("$(awk -v p="$pairs" '/^totals:/ {printf "%.0f", $2 / p}' "$out")")
    done
    printf '%-8s %12s %18s %15s\n' "$class" "${row[@]}"
  done
fi

//! Writes every legal play of the benchmark's fixed set
//! (`benches/data/positions.txt`, 4 000 positions, all 21 rolls) and the
//! position it leads to in one encoding, as a legal-moves answer does for
//! each play; for instruction counts per encode under callgrind, which do
//! not depend on the machine's load:
//!
//! ```sh
//! valgrind --tool=callgrind --toggle-collect='*encode_once::encode_*' \
//!     target/release/examples/encode_once position-id
//! ```
//!
//! then divide the instructions collected by the encode count it prints.
//! Arguments: `ENCODING [CLASS]`, `ENCODING` one of `position-id`, `xgid`,
//! `fibs`, `board` (the signed counts), `pips` (both players), `notation`
//! (the play), `all` (the five position encodings, each by its own
//! writer) or `one-pass` (the same five from one
//! `notation::encodings::Encodings`, as the answer writers make them; for
//! these two, `--toggle-collect='*encode_once::pass_*'`) or `answers`
//! (the same five, but as the answer writers meet the positions: one
//! `Encoder` per position and roll, made in the measured function, then
//! every play's position of that answer in turn; for this one,
//! `--toggle-collect='*encode_once::answer_*'`, and the count printed is
//! still of plays), and `CLASS` one of
//! `contact`, `race`, `bearoff`, `bar` or `mix` (all 4 000, the default).
//! Each measured function starts from the `Position` (or `Play`) and does
//! what the service's answer writer does: the conversion to the encoding's
//! value and the writing into a reused byte buffer.

use bgref_core::notation::encodings::Encoder;
use bgref_core::notation::fibs::FibsBoard;
use bgref_core::notation::position_id::PositionId;
use bgref_core::notation::xgid::Xgid;
use bgref_core::{Dice, Play, Player, Position};
use std::hint::black_box;

#[path = "support/positions.rs"]
mod positions;
use positions::class_positions;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let encoding = args.first().map_or("position-id", String::as_str);
    let class = args.get(1).map_or("mix", String::as_str);
    if encoding == "answers" {
        encode_answers(class);
        return;
    }
    let mut plays = Vec::new();
    for position in class_positions(class) {
        for &dice in &Dice::ALL_21 {
            for play in &position.legal_plays(dice) {
                plays.push((*play, position.after(play)));
            }
        }
    }
    let mut out = Vec::with_capacity(1024);
    let mut checksum = 0u64;
    let encoder = Encoder::money();
    for (play, position) in &plays {
        out.clear();
        match encoding {
            "all" => pass_all(black_box(position), &mut out),
            "one-pass" => pass_one(&encoder, black_box(position), &mut out),
            "position-id" => encode_position_id(black_box(position), &mut out),
            "xgid" => encode_xgid(black_box(position), &mut out),
            "fibs" => encode_fibs(black_box(position), &mut out),
            "board" => encode_board(black_box(position), &mut out),
            "pips" => encode_pips(black_box(position), &mut out),
            "notation" => encode_notation(black_box(play), &mut out),
            other => {
                eprintln!(
                    "unknown encoding {other}: position-id, xgid, fibs, board, pips, notation, all or one-pass"
                );
                std::process::exit(2);
            }
        }
        checksum = out
            .iter()
            .fold(checksum, |acc, &b| acc.rotate_left(5) ^ u64::from(b));
    }
    println!(
        "{} encodes ({encoding}, {class}), checksum {checksum:016x}",
        plays.len()
    );
}

/// The `answers` mode: every answer of the class's positions and rolls
/// encoded by [`answer_encode`].
fn encode_answers(class: &str) {
    let mut answers = Vec::new();
    for position in class_positions(class) {
        for &dice in &Dice::ALL_21 {
            let plays = position.legal_plays(dice);
            answers.push(
                plays
                    .iter()
                    .map(|play| position.after(play))
                    .collect::<Vec<_>>(),
            );
        }
    }
    let mut out = Vec::with_capacity(1 << 16);
    let mut checksum = 0u64;
    let mut plays = 0;
    for answer in &answers {
        out.clear();
        answer_encode(black_box(answer), &mut out);
        plays += answer.len();
        checksum = out
            .iter()
            .fold(checksum, |acc, &b| acc.rotate_left(5) ^ u64::from(b));
    }
    println!(
        "{plays} encodes in {} answers (answers, {class}), checksum {checksum:016x}",
        answers.len()
    );
}

/// One answer's positions, each with the five encodings from one
/// `Encoder` made for the answer (as the service's answer writers do).
#[inline(never)]
fn answer_encode(positions: &[Position], out: &mut Vec<u8>) {
    let encoder = Encoder::money();
    for position in positions {
        pass_one(&encoder, position, out);
    }
}

#[inline(never)]
fn encode_position_id(position: &Position, out: &mut Vec<u8>) {
    out.extend_from_slice(&PositionId::from_position(position).encode());
}

#[inline(never)]
fn encode_xgid(position: &Position, out: &mut Vec<u8>) {
    Xgid::from_position(position).write_to(out);
}

#[inline(never)]
fn encode_fibs(position: &Position, out: &mut Vec<u8>) {
    FibsBoard::from_position(position).write_to(out);
}

#[inline(never)]
fn encode_board(position: &Position, out: &mut Vec<u8>) {
    let points = position.to_setup().to_signed();
    out.extend_from_slice(&points.map(|n| n.to_ne_bytes()[0]));
}

#[inline(never)]
fn encode_pips(position: &Position, out: &mut Vec<u8>) {
    let pips = [position.pip_count(Player::X), position.pip_count(Player::O)];
    // Two bytes each are enough to keep the sums observable.
    for n in pips {
        out.extend_from_slice(&(n as u16).to_le_bytes());
    }
}

#[inline(never)]
fn encode_notation(play: &Play, out: &mut Vec<u8>) {
    play.write_notation(out);
}

#[inline(never)]
fn pass_all(position: &Position, out: &mut Vec<u8>) {
    encode_position_id(position, out);
    encode_xgid(position, out);
    encode_fibs(position, out);
    encode_board(position, out);
    encode_pips(position, out);
}

#[inline(never)]
fn pass_one(encoder: &Encoder, position: &Position, out: &mut Vec<u8>) {
    let encodings = encoder.encode(position);
    out.extend_from_slice(&encodings.position_id());
    encodings.write_xgid(out);
    encodings.write_fibs(out);
    out.extend_from_slice(&encodings.points().map(|n| n.to_ne_bytes()[0]));
    let pips = encodings.pips();
    for n in [pips.x, pips.o] {
        out.extend_from_slice(&(n as u16).to_le_bytes());
    }
}

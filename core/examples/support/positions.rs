//! The benchmark positions, shared by the callgrind examples
//! (`movegen_once`, `encode_once`) through `#[path]`: not an example of
//! its own (Cargo takes only `examples/*.rs` and `examples/*/main.rs`).

use bgref_core::notation::position_id::PositionId;
use bgref_core::{BackgammonVariant, Player, Position};

/// The positions of one class of `benches/data/positions.txt` (every
/// position for `mix`).
pub fn class_positions(class: &str) -> Vec<Position> {
    let text = include_str!("../../benches/data/positions.txt");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(' '))
        .filter(|(c, _)| class == "mix" || *c == class)
        .map(|(_, id)| {
            let pid: PositionId = id.parse().expect("Position ID");
            Position::from_setup(&pid.to_setup(Player::X), BackgammonVariant::Standard)
                .expect("position")
        })
        .collect()
}

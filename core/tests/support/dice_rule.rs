//! The dice rule of the naive reference generators (`tests/tables.rs`,
//! `tests/tables_tavla.rs`), written once: try the dice in both orders
//! (a double: four times), keep the plays that use the most dice, and
//! when only one die can be played, the higher one if any play uses it.

use std::collections::BTreeSet;

use bgref_core::Dice;

/// The plays `search` finds for each order of the dice that the dice rule
/// allows. `search(order, out)` pushes every end of a turn reached with
/// the dice of `order` in turn, with the dice it used.
pub fn dice_rule_plays<P: Ord>(
    dice: Dice,
    mut search: impl FnMut(&[u8], &mut Vec<(P, Vec<u8>)>),
) -> BTreeSet<P> {
    let (hi, lo) = (dice.high().get(), dice.low().get());
    let orders = if dice.is_double() {
        vec![vec![hi; 4]]
    } else {
        vec![vec![hi, lo], vec![lo, hi]]
    };
    let mut all = Vec::new();
    for order in &orders {
        search(order, &mut all);
    }
    let max = all.iter().map(|(_, u)| u.len()).max().unwrap_or(0);
    if max == 0 {
        return BTreeSet::new();
    }
    all.retain(|(_, u)| u.len() == max);
    if max == 1 && !dice.is_double() && all.iter().any(|(_, u)| u[0] == hi) {
        all.retain(|(_, u)| u[0] == hi);
    }
    all.into_iter().map(|(p, _)| p).collect()
}

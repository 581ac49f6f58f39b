//! A naive move generator written from the rules text, to check the
//! engine's optimised one against: no bit masks, no keys, no pruning; every
//! order of the dice, every checker, then the plays using the most pips of
//! the dice kept.
//!
//! Sides are 26 counts from their owner's view: 0 borne off, 1 to 24 the
//! points, 25 the bar. The mover's point `p` is the opponent's `25 - p`.

use std::collections::HashSet;

use bgref_core::{Dice, GameResult, Move, Player, Position};

/// The mover's and the opponent's sides.
pub type Sides = ([u8; 26], [u8; 26]);

/// One checker moved from `from` by `die` under the rules, with whether
/// it hits; `None` when that single move is not legal.
fn single(sides: &Sides, from: u8, die: u8) -> Option<(Sides, u8, bool)> {
    let (me, opp) = sides;
    let f = usize::from(from);
    if from == 0 || me[f] == 0 {
        return None;
    }
    // A checker on the bar enters before anything else moves.
    if me[25] > 0 && from != 25 {
        return None;
    }
    let (mut me, mut opp) = (*me, *opp);
    if from > die {
        let to = from - die;
        let opp_index = 25 - usize::from(to);
        if opp[opp_index] >= 2 {
            return None;
        }
        let hit = opp[opp_index] == 1;
        if hit {
            opp[opp_index] = 0;
            opp[25] += 1;
        }
        me[f] -= 1;
        me[usize::from(to)] += 1;
        return Some(((me, opp), to, hit));
    }
    // Bearing off: every checker home, and either the exact number or no
    // checker on a higher point.
    if me[7..26].iter().any(|&n| n > 0) {
        return None;
    }
    if from != die && me[f + 1..7].iter().any(|&n| n > 0) {
        return None;
    }
    me[f] -= 1;
    me[0] += 1;
    Some(((me, opp), 0, false))
}

/// Every end of a sequence of single moves with `dice` in this order,
/// stopping where the next die cannot be played, with the pips of the dice
/// used. `seen` holds the states already walked from (with the number of
/// dice left): a double reaches most of them many times over.
fn walk(
    sides: Sides,
    dice: &[u8],
    used: u32,
    out: &mut Vec<(Sides, u32)>,
    seen: &mut HashSet<(Sides, usize)>,
) {
    if !seen.insert((sides, dice.len())) {
        return;
    }
    let Some((&die, rest)) = dice.split_first() else {
        out.push((sides, used));
        return;
    };
    let mut moved = false;
    for from in 1..=25u8 {
        if let Some((next, _, _)) = single(&sides, from, die) {
            moved = true;
            walk(next, rest, used + u32::from(die), out, seen);
        }
    }
    if !moved {
        out.push((sides, used));
    }
}

fn dice_list(dice: Dice) -> Vec<u8> {
    let [a, b] = dice.values();
    if a == b { vec![a; 4] } else { vec![a, b] }
}

/// The positions the legal plays of `position` reach with `dice`, as the
/// mover's and the opponent's sides; empty when no checker can move.
///
/// The rule kept: play as many pips of the roll as possible (both dice,
/// four for doubles, else the larger die when either can be played), which
/// is the rule of "as many dice as possible, and the larger when only one".
#[must_use]
pub fn legal_results(position: &Position, dice: Dice) -> HashSet<Sides> {
    let me = position.turn();
    let start = (*position.side(me), *position.side(!me));
    let mut ends = Vec::new();
    let order = dice_list(dice);
    walk(start, &order, 0, &mut ends, &mut HashSet::new());
    if !dice.is_double() {
        walk(
            start,
            &[order[1], order[0]],
            0,
            &mut ends,
            &mut HashSet::new(),
        );
    }
    let best = ends.iter().map(|&(_, used)| used).max().unwrap_or(0);
    if best == 0 {
        return HashSet::new();
    }
    ends.into_iter()
        .filter(|&(_, used)| used == best)
        .map(|(sides, _)| sides)
        .collect()
}

/// Plays `moves` one by one as single legal moves, each with a die of the
/// roll not used yet (any die that makes the move legal, trying them all),
/// checking each hit mark; the sides reached, or `None` when the moves are
/// not such a sequence.
#[must_use]
pub fn replay(position: &Position, moves: &[Move], dice: Dice) -> Option<Sides> {
    let me = position.turn();
    let start = (*position.side(me), *position.side(!me));
    replay_from(start, moves, &mut dice_list(dice))
}

fn replay_from(sides: Sides, moves: &[Move], dice: &mut Vec<u8>) -> Option<Sides> {
    let Some((mv, rest)) = moves.split_first() else {
        return Some(sides);
    };
    for i in 0..dice.len() {
        let die = dice[i];
        if let Some((next, to, hit)) = single(&sides, mv.from().get(), die)
            && to == mv.to().get()
            && hit == mv.is_hit()
        {
            dice.remove(i);
            let found = replay_from(next, rest, dice);
            dice.insert(i, die);
            if found.is_some() {
                return found;
            }
        }
    }
    None
}

/// The winner and the result of a finished game, from the rules text: the
/// player with every checker borne off wins; a loser with a checker off
/// loses a single game, one with a checker on the bar or in the winner's
/// home board a backgammon, otherwise a gammon.
#[must_use]
pub fn outcome(position: &Position) -> Option<(Player, GameResult)> {
    let n = position.variant().checkers();
    let winner = Player::ALL
        .into_iter()
        .find(|&p| position.side(p)[0] == n)?;
    let loser = position.side(!winner);
    // The winner's home board is the loser's points 19 to 24.
    let result = if loser[0] > 0 {
        GameResult::Single
    } else if loser[19..=25].iter().any(|&c| c > 0) {
        GameResult::Backgammon
    } else {
        GameResult::Gammon
    };
    Some((winner, result))
}

//! Legal move generation for Plakoto, Fevga and Long Nardy.
//!
//! Every rule of these games that restricts a single move (pins, the head
//! rule, Fevga's start and starting-quarter rules, primes) depends only on
//! the position before that move and on what the turn has done so far,
//! which the position itself shows (how many checkers have left the head
//! is the head's count now against its count when the turn began). So the
//! generator works breadth first, one die at a time, and keeps one state
//! per distinct position at each depth: for doubles that turns up to
//! 15⁴ move sequences into a few hundred states.
//!
//! Non-doubles are expanded in both die orders; the states after two dice
//! are deduplicated together. "Use as much of the roll as possible": the
//! plays are the states of the deepest level reached; when no state uses
//! both dice of a non-double, the larger die's states if there are any,
//! else the smaller's. A move that ends the game (the last checker borne
//! off, Plakoto's mother rule) ends the turn: that play is complete at any
//! depth and counts as using the whole roll.
//!
//! A state's key packs the mover's 25 counts (off and points 1 to 24, four
//! bits each, a count never exceeds 15) and the opposing checkers the mover
//! pins (24 bits); the opponent's checkers never move during the mover's
//! turn and the mover's pinned checkers cannot move, so the key identifies
//! the resulting position exactly.

use alloc::vec::Vec;

use crate::tables::error::TablesIllegalPlay;
use crate::tables::game::Game;
use crate::tables::rules::{FevgaStart, MotherRule, PrimeRule, TablesRules};
use crate::tables::setup::{CHECKERS, other_view};
use crate::{Dice, Move, Play, Point};

/// Bits 1 to 6: the home board.
const HOME: u32 = 0x7E;
/// Bits 19 to 24: the starting quarter.
const START_QUARTER: u32 = 0x01F8_0000;
/// Bit shift of the pin bits in a key.
const KEY_PIN_SHIFT: u32 = 100;

/// `UNIT[p]`: one checker on `p` (0..=24) in a key; 32 entries, so that an
/// index masked with 31 needs no bounds check.
const UNIT: [u128; 32] = {
    let mut t = [0u128; 32];
    let mut p = 0;
    while p < 25 {
        t[p] = 1u128 << (4 * p);
        p += 1;
    }
    t
};

/// The turn's fixed facts, from the mover's view.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx {
    pub(crate) game: Game,
    pub(crate) rules: TablesRules,
    /// Opposing checkers on the mover's point `p` (1..=24); index 0 unused.
    pub(crate) opp: [u8; 25],
    /// Bit `p`: the mover's checker on `p` is pinned (Plakoto).
    pub(crate) my_pinned: u32,
    /// The lowest point, in the opponent's own numbering, that holds an
    /// opposing checker (25 when none is on the board).
    pub(crate) opp_low: u8,
    /// Checkers on the mover's 24-point when the turn began.
    pub(crate) head_start: u8,
    /// How many may leave the 24-point this turn (Long Nardy).
    pub(crate) head_limit: u8,
    /// The prime rule in force (Fevga, Long Nardy).
    pub(crate) prime: PrimeRule,
    /// [`PrimeRule::OpenWhenBlocked`] (or [`PrimeRule::OpenWhenStuck`] with
    /// the opponent unable to move): the mover began the turn with a prime
    /// that blocks the opponent fully, and must open it if it can.
    pub(crate) must_open: bool,
}

impl Ctx {
    /// Whether a move this turn may end the game by Plakoto's mother rule:
    /// the opponent's last checker on its starting point (the mover's
    /// point 1) stands alone there, pinned already or not.
    #[inline]
    pub(crate) fn mother_may_end(&self) -> bool {
        self.game == Game::Plakoto && self.rules.mother != MotherRule::Off && self.opp[1] == 1
    }
}

/// Whether the game is over in state `s`: the mover has borne off every
/// checker, or (Plakoto) the mother rule ends it. The mover's turn ends
/// there, whatever dice are left.
#[inline]
pub(crate) fn ends_game(c: &Ctx, s: &St) -> bool {
    if s.me[0] == CHECKERS {
        return true;
    }
    // The opponent's mother (on the mover's point 1) pinned by the mover:
    // a draw when the mover's own mother is pinned too; else the mover
    // wins at once under the immediate rule, and under the standard rule
    // once no checker of the mover is left on its own starting point.
    c.mother_may_end()
        && s.opp_pinned & (1 << 1) != 0
        && (c.my_pinned & (1 << 24) != 0
            || c.rules.mother == MotherRule::Immediate
            || s.me[24] == 0)
}

/// Moves the states of `level` that end the game to `ended` (once per
/// position, `seen` holding the keys of `ended`).
fn take_ended(c: &Ctx, level: &mut Vec<St>, ended: &mut Vec<St>, seen: &mut KeySet) {
    level.retain(|s| {
        if ends_game(c, s) {
            if seen.insert(s.key) {
                ended.push(*s);
            }
            false
        } else {
            true
        }
    });
}

/// A position reached during the turn.
#[derive(Debug, Clone, Copy)]
pub(crate) struct St {
    /// The mover's counts: index 0 borne off, 1..=24 points.
    pub(crate) me: [u8; 25],
    /// Bit `p`: the mover has a checker on `p`.
    pub(crate) occ: u32,
    /// Bit `p`: the opposing checker on the mover's point `p` is pinned by
    /// the mover.
    pub(crate) opp_pinned: u32,
    pub(crate) key: u128,
    pub(crate) play: Play,
    /// Where the last move started (24 before any).
    pub(crate) last: u8,
}

impl St {
    pub(crate) fn new(me: [u8; 25], opp_pinned: u32) -> St {
        // The backgammon generator's packing of the counts (each below 16),
        // with an empty bar.
        let mut counts = [0u8; 26];
        counts[..25].copy_from_slice(&me);
        let key = crate::movegen::initial_key(&counts) | (u128::from(opp_pinned) << KEY_PIN_SHIFT);
        let occ = crate::movegen::occupied_points(&counts);
        St {
            me,
            occ,
            opp_pinned,
            key,
            play: Play::EMPTY,
            last: 24,
        }
    }

    /// Moves a checker without any check but that one stands on `from`;
    /// returns the state and whether the move pinned a checker.
    #[inline]
    pub(crate) fn moved(&self, c: &Ctx, from: u8, to: u8) -> St {
        let mut n = *self;
        let (f, t) = (usize::from(from), usize::from(to));
        n.me[f] -= 1;
        n.key = n.key.wrapping_sub(UNIT[f & 31]);
        if n.me[f] == 0 {
            n.occ &= !(1 << from);
            if n.opp_pinned & (1 << from) != 0 {
                // The last pinner leaves: the pinned checker is free.
                n.opp_pinned &= !(1 << from);
                n.key &= !(1u128 << (KEY_PIN_SHIFT + u32::from(from)));
            }
        }
        let mut pin = false;
        if to > 0 {
            if c.opp[t] == 1 && self.me[t] == 0 && n.opp_pinned & (1 << to) == 0 {
                pin = true;
                n.opp_pinned |= 1 << to;
                n.key |= 1u128 << (KEY_PIN_SHIFT + u32::from(to));
            }
            n.occ |= 1 << to;
        }
        n.me[t] += 1;
        n.key = n.key.wrapping_add(UNIT[t & 31]);
        n.last = from;
        n.play
            .push(Move::with_hit(Point::new(from), Point::new(to), pin));
        n
    }
}

/// The state after moving the checker on `from` by die `d`, or why the
/// single move is not legal in `s`.
#[inline]
pub(crate) fn step(c: &Ctx, s: &St, from: u8, d: u8) -> Result<St, TablesIllegalPlay> {
    let to = target(c, s, from, d)?;
    after_checks(c, occ_after(s, from, to), to)?;
    Ok(s.moved(c, from, to))
}

/// The mover's occupied points after a move from `from` to `to`.
#[inline(always)]
fn occ_after(s: &St, from: u8, to: u8) -> u32 {
    let left = if s.me[usize::from(from)] == 1 {
        s.occ & !(1 << from)
    } else {
        s.occ
    };
    left | ((1u32 << to) & !1)
}

/// The key of the state after a move from `from` to `to` (as
/// [`St::moved`] computes it, without building the state).
#[inline(always)]
fn key_after(c: &Ctx, s: &St, from: u8, to: u8) -> u128 {
    let (f, t) = (usize::from(from), usize::from(to));
    let mut key = s.key.wrapping_sub(UNIT[f & 31]).wrapping_add(UNIT[t & 31]);
    let mut pins = s.opp_pinned;
    if s.me[f] == 1 && pins & (1 << from) != 0 {
        pins &= !(1 << from);
        key &= !(1u128 << (KEY_PIN_SHIFT + u32::from(from)));
    }
    if to > 0 && c.opp[t] == 1 && s.me[t] == 0 && pins & (1 << to) == 0 {
        key |= 1u128 << (KEY_PIN_SHIFT + u32::from(to));
    }
    key
}

/// Where the checker on `from` lands with die `d` (0 when borne off), or
/// why it may not move: every check made before the move.
#[inline(always)]
fn target(c: &Ctx, s: &St, from: u8, d: u8) -> Result<u8, TablesIllegalPlay> {
    use TablesIllegalPlay as E;
    if from == 0 || from > 24 || s.me[usize::from(from)] == 0 {
        return Err(E::NoChecker(Point::new(from.min(25))));
    }
    if c.my_pinned & (1 << from) != 0 && s.me[usize::from(from)] == 1 {
        return Err(E::Pinned(Point::new(from)));
    }
    if from == 24 {
        match c.game {
            Game::LongNardy if c.head_start - s.me[24] >= c.head_limit => {
                return Err(E::HeadRule);
            }
            Game::Fevga if s.me[24] < CHECKERS => {
                let reached = match c.rules.fevga_start {
                    FevgaStart::PassStartPoint => s.occ & 0x0FFE != 0,
                    FevgaStart::ReachStartQuarter => s.occ & 0x1FFE != 0,
                    FevgaStart::Off => true,
                };
                if !reached && s.me[0] == 0 {
                    return Err(E::FirstCheckerRule);
                }
            }
            _ => {}
        }
    }
    let to = if from > d {
        from - d
    } else {
        let outside = s.occ & !HOME;
        if outside != 0 {
            let p = 31 - outside.leading_zeros() as u8;
            return Err(E::CannotBearOff(Point::new(p)));
        }
        if c.my_pinned != 0 {
            return Err(E::PinnedCannotBearOff);
        }
        let highest = 31 - s.occ.leading_zeros() as u8;
        if from != d && from != highest {
            return Err(E::DistanceNotRolled(Point::new(from), Point::OFF));
        }
        0
    };
    if to > 0 {
        let t = usize::from(to);
        let o = c.opp[t];
        let free = match c.game {
            Game::Plakoto => o == 0 || s.opp_pinned & (1 << to) != 0 || (o == 1 && s.me[t] == 0),
            _ => o == 0,
        };
        if !free {
            return Err(E::Blocked(Point::new(to)));
        }
    }
    Ok(to)
}

/// The checks made on the mover's points `occ` after a move to `to`.
#[inline(always)]
fn after_checks(c: &Ctx, occ: u32, to: u8) -> Result<(), TablesIllegalPlay> {
    use TablesIllegalPlay as E;
    if to > 0 && matches!(c.game, Game::Fevga | Game::LongNardy) {
        if c.game == Game::Fevga && to >= 19 && occ & START_QUARTER == START_QUARTER {
            return Err(E::StartingQuarter(Point::new(to)));
        }
        if c.prime == PrimeRule::NeedsCheckerAhead && makes_prime(c, occ, to) {
            return Err(E::Prime(Point::new(to)));
        }
    }
    Ok(())
}

/// Whether landing on `to` made six points in a row along the opponent's
/// way (its own numbering) with no opposing checker past them.
#[inline]
fn makes_prime(c: &Ctx, occ: u32, to: u8) -> bool {
    // The mover's points in the opponent's numbering (p <-> p ± 12).
    let m = ((occ & 0x1FFE) << 12) | ((occ >> 12) & 0x1FFE);
    let w = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4) & (m >> 5);
    if w == 0 {
        return false;
    }
    let q = other_view(c.game, to);
    let lo = q.saturating_sub(5).max(1);
    let around = ((2u32 << q) - 1) & !((1u32 << lo) - 1);
    let windows = w & around;
    windows != 0 && u32::from(c.opp_low) >= windows.trailing_zeros()
}

/// Whether the mover's points `occ` hold a prime (six in a row along the
/// opponent's way) with no opposing checker on the board ahead of it.
#[inline]
pub(crate) fn blocks_fully(c: &Ctx, occ: u32) -> bool {
    let m = ((occ & 0x1FFE) << 12) | ((occ >> 12) & 0x1FFE);
    let w = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4) & (m >> 5);
    // The lowest row is the one an opposing checker is most likely past.
    w != 0 && u32::from(c.opp_low) >= w.trailing_zeros()
}

/// An open-addressing set of nonzero keys.
pub(crate) struct KeySet {
    slots: Vec<u128>,
    len: usize,
}

impl KeySet {
    pub(crate) fn new() -> KeySet {
        KeySet {
            slots: alloc::vec![0; 64],
            len: 0,
        }
    }

    pub(crate) fn clear(&mut self) {
        self.slots.fill(0);
        self.len = 0;
    }

    /// Inserts `key`; false when it was there already.
    #[inline]
    pub(crate) fn insert(&mut self, key: u128) -> bool {
        if 2 * (self.len + 1) > self.slots.len() {
            let bigger = alloc::vec![0; 2 * self.slots.len()];
            let old = core::mem::replace(&mut self.slots, bigger);
            for k in old.into_iter().filter(|&k| k != 0) {
                self.place(k);
            }
        }
        let placed = self.place(key);
        self.len += usize::from(placed);
        placed
    }

    fn place(&mut self, key: u128) -> bool {
        let mask = self.slots.len() - 1;
        let folded = (key as u64) ^ ((key >> 64) as u64);
        let mut i = (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask;
        loop {
            match self.slots[i] {
                0 => {
                    self.slots[i] = key;
                    return true;
                }
                k if k == key => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }
}

/// Every state one move of die `d` away from a state of `level`, added to
/// `out`; one per position when `seen` is given (the first die needs no
/// dedup: moving different checkers by one die gives different positions).
///
/// With `ordered` (`Some(extra)`), a move may start only at or below where
/// the previous one started, or on a point of `extra`. That keeps every
/// position of a Plakoto double: two
/// successive moves of one die from points `a < b` can always be played
/// `b` first (the move from `a` changes neither the checker on `b` nor the
/// landing point `b - d`, which it could only free, and bearing off from
/// `b` needs `b` home and highest either way), to the same position, pins
/// included. Fevga and Long Nardy have order-dependent rules (the start
/// rule, primes) and are expanded in every order. `extra`: the point
/// from which a move pins a mother that ends the game, when
/// [`pin_ends_turn`] (0 otherwise).
///
/// `blocked`: points no move of the turn may land on ([`static_blocks`]);
/// the moves onto them are not tried.
fn expand(
    c: &Ctx,
    level: &[St],
    (d, blocked): (u8, u32),
    ordered: Option<u32>,
    mut seen: Option<&mut KeySet>,
    out: &mut Vec<St>,
) {
    let landing = !(blocked << d);
    for s in level {
        let sources = match ordered {
            Some(extra) => s.occ & (((2u32 << s.last) - 1) | extra),
            None => s.occ,
        } & landing;
        expand_one(c, s, d, sources, seen.as_deref_mut(), out);
    }
}

/// The moves of die `d` from the points of `sources` in state `s`.
#[inline]
fn expand_one(
    c: &Ctx,
    s: &St,
    d: u8,
    mut sources: u32,
    mut seen: Option<&mut KeySet>,
    out: &mut Vec<St>,
) {
    while sources != 0 {
        let from = 31 - sources.leading_zeros() as u8;
        sources &= !(1 << from);
        // The key first: a position seen already is not built again.
        if let Ok(to) = target(c, s, from, d)
            && after_checks(c, occ_after(s, from, to), to).is_ok()
            && seen
                .as_deref_mut()
                .is_none_or(|seen| seen.insert(key_after(c, s, from, to)))
        {
            let n = s.moved(c, from, to);
            debug_assert_eq!(n.key, key_after(c, s, from, to));
            debug_assert_eq!(n.occ, occ_after(s, from, to));
            out.push(n);
        }
    }
}

fn expand_new(c: &Ctx, level: &[St], d: u8) -> Vec<St> {
    let mut seen = KeySet::new();
    let mut out = Vec::new();
    expand(c, level, (d, 0), None, Some(&mut seen), &mut out);
    out
}

/// The points (1 to 24) that no move of a turn starting in `start` may
/// land on, whatever the turn does: the opponent's checkers never move
/// during the mover's turn. In Fevga and Long Nardy every point an
/// opposing checker holds. In Plakoto two or more opposing checkers, or
/// one on a pinned checker of the mover's (which stays there); never a
/// point where the mover pins (`target` lets the mover land there).
fn static_blocks(c: &Ctx, start: &St) -> u32 {
    if c.game != Game::Plakoto {
        // Eight counts at a time (`c.opp[0]` is 0).
        let mut held = 0u32;
        for (i, chunk) in c.opp.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            held |= nonzero_bytes(u64::from_le_bytes(word)) << (8 * i);
        }
        debug_assert!((1..=24).all(|t| (held >> t) & 1 == u32::from(c.opp[t] > 0)));
        return held & !start.opp_pinned;
    }
    let mut blocked = 0u32;
    for t in 1..=24usize {
        let o = c.opp[t];
        let held = match c.game {
            Game::Plakoto => o >= 2 || (o == 1 && c.my_pinned & (1 << t) != 0 && start.me[t] > 0),
            _ => o > 0,
        };
        if held {
            blocked |= 1 << t;
        }
    }
    blocked & !start.opp_pinned
}

/// The legal plays of the mover: the final states, one per resulting
/// position (empty when no move is possible).
///
/// With [`Ctx::must_open`], the plays the dice rules allow are narrowed to
/// those that leave no prime blocking the opponent fully, when there are
/// any (the obligation to open chooses among the plays; it never makes the
/// mover play fewer dice).
pub(crate) fn legal_states(c: &Ctx, start: &St, dice: Dice) -> Vec<St> {
    let mut states = dice_states(c, start, dice);
    if c.must_open && states.iter().any(|s| !blocks_fully(c, s.occ)) {
        states.retain(|s| !blocks_fully(c, s.occ));
    }
    states
}

/// The legal plays of the mover as (key, play), one per resulting
/// position: [`legal_states`]' keys and plays.
///
/// Plakoto's moves never hit, its blocks do not change during a turn (an
/// opposing checker blocks where it stands two or more, or alone on a
/// checker of the mover it pins), and the mover's pinned checkers never
/// move: so, unless a move may end the game, its plays are those of
/// backgammon's dice rules on a board without blots or a bar, which the
/// backgammon generator makes far faster than the search below
/// ([`crate::movegen::plays_without_hits`]); each play's pins follow from
/// the points it lands on. Fevga and Long Nardy have no hits and their
/// blocks do not change either: the backgammon generator makes their
/// plays whenever none of their rules checked after each move can refuse
/// one this turn ([`race_entries`]).
pub(crate) fn legal_entries(c: &Ctx, start: &St, dice: Dice) -> Vec<(u128, Play)> {
    if let Some(entries) = plakoto_entries(c, start, dice) {
        return entries;
    }
    if let Some(entries) = race_entries(c, start, dice) {
        return entries;
    }
    legal_states(c, start, dice)
        .into_iter()
        .map(|s| (s.key, s.play))
        .collect()
}

/// [`legal_entries`] for Plakoto through the backgammon generator, or
/// `None` where that does not apply: another game, a move that may end the
/// game with dice left to play (a mother that may be pinned, the last
/// checkers within reach of bearing off), or a pinned checker of the mover
/// in its home board (which forbids bearing off) while a bear-off could be
/// reached this turn.
///
/// A move that ends the game ends the turn, so it changes the plays only
/// when dice are left after it: a game that can end only with the last die
/// leaves every play as the dice rules of backgammon make it (the plays
/// that end the game then use the whole roll, as the others do). The last
/// checkers are borne off before the last die only when fewer are left
/// than the dice. A mother may be pinned only by a checker that lands on
/// the mover's point 1, after a distance the dice can make (one die, both,
/// or two to four of a double), and a mother pinned already ends the game
/// when the mover's last checker leaves its 24-point (the standard rule):
/// so the search is needed only when one of those can happen before the
/// last die, and, under the standard rule, only when the turn can also
/// empty the mover's 24-point before it (which a point blocked at the
/// distance of the dice forbids).
fn plakoto_entries(c: &Ctx, start: &St, dice: Dice) -> Option<Vec<(u128, Play)>> {
    let (hi, lo) = (dice.high().get(), dice.low().get());
    let moves: u8 = if dice.is_double() { 4 } else { 2 };
    // Under the standard rule a pinned mother ends the game only once the
    // pinner's 24-point is empty (or its own mother is pinned: a draw):
    // each checker there takes a die of its own to leave (none goes from
    // 24 to 1 in one turn), so only the dice left, but the last, can take
    // a checker to point 1 in a turn that ends the game early.
    let stay = if c.rules.mother == MotherRule::Standard && c.my_pinned & (1 << 24) == 0 {
        start.me[24]
    } else {
        0
    };
    // The 24-point emptied before the last die.
    let emptied_early = stay < moves;
    let free_dice = (moves - 1).saturating_sub(stay);
    // Bit `n`: the free dice move a checker `n` points.
    let reach = if dice.is_double() {
        (1..=free_dice).fold(0u32, |r, k| r | (1 << (k * hi)))
    } else {
        match free_dice {
            0 => 0,
            // A non-double has one die before its last.
            _ => (1u32 << hi) | (1 << lo),
        }
    };
    // Bit `p`: a checker on `p` can reach point 1 in such a turn.
    let reach_one = (reach << 1) & 0x01FF_FFFE;
    let pinned = start.opp_pinned & (1 << 1) != 0;
    // Whether a checker can leave the 24-point with die `d`: opposing
    // checkers do not move during the turn, so a point they block (two or
    // more, or one on a pinned checker of the mover's) stays blocked.
    let leaves = |d: u8| {
        let t = usize::from(24 - d);
        let o = c.opp[t];
        o < 2 && (o == 0 || c.my_pinned & (1 << t) == 0)
    };
    let can_empty = stay == 0 || leaves(hi) || leaves(lo);
    if c.game != Game::Plakoto
        || (c.mother_may_end()
            && can_empty
            && if pinned {
                emptied_early
            } else {
                start.occ & !c.my_pinned & reach_one != 0
            })
        || CHECKERS - start.me[0] < moves
    {
        return None;
    }
    if c.my_pinned & HOME != 0 {
        // No bear-off this turn when the checkers outside the home board
        // take every die to come home.
        let outside: u8 = start.me[7..].iter().sum();
        if outside < moves {
            return None;
        }
    }
    // Where an opposing checker stands: two or more block; one blocks
    // when it pins a checker of the mover, else the mover may pin it.
    // Eight counts at a time (`c.opp[0]` is 0).
    let (mut block, mut occupied) = (0u32, 0u32);
    for (i, chunk) in c.opp.chunks(8).enumerate() {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        occupied |= nonzero_bytes(x) << (8 * i);
        block |= nonzero_bytes(x & 0xFEFE_FEFE_FEFE_FEFE) << (8 * i);
    }
    let single = occupied & !block;
    debug_assert!((1..=24).all(|t| {
        let o = c.opp[t];
        (single >> t) & 1 == u32::from(o == 1) && (block >> t) & 1 == u32::from(o >= 2)
    }));
    // The mover's pinned checkers: each alone under an opposing checker
    // (which others may have joined), on a point nobody of the mover's
    // may land on.
    let frozen = c.my_pinned;
    let mut rest = frozen;
    while rest != 0 {
        let p = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if start.me[p] != 1 {
            return None;
        }
    }
    block |= frozen;
    let pinnable = single & !frozen;
    let mut me = [0u8; 26];
    me[..25].copy_from_slice(&start.me);
    let mut plays = Vec::with_capacity(64);
    crate::movegen::plays_without_hits(&me, block, frozen, dice, &mut plays);
    // The key's counts are the board: a count is its nibble.
    let counts = start.key & ((1u128 << KEY_PIN_SHIFT) - 1);
    let nibble = |key: u128, p: u8| (key >> (4 * u32::from(p))) as u8 & 0xF;
    // Bit `p`: a point of `pinnable` where the mover has no checker, so
    // that the next landing there pins (`pinnable` has no bit 0: a
    // bear-off pins nothing).
    let open = pinnable & !start.occ;
    Some(
        plays
            .into_iter()
            .map(|mut play| {
                let (mut key, mut open) = (counts, open);
                for mv in play.moves_mut() {
                    let (from, to) = (mv.from().get(), mv.to().get());
                    if (open >> to) & 1 != 0 {
                        *mv = Move::with_hit(mv.from(), mv.to(), true);
                        open &= !(1 << to);
                    }
                    key = key
                        .wrapping_sub(UNIT[usize::from(from) & 31])
                        .wrapping_add(UNIT[usize::from(to) & 31]);
                    // Only the points of `pinnable` need their counts
                    // looked at.
                    if (pinnable >> from) & 1 != 0 && nibble(key, from) == 0 {
                        open |= 1 << from;
                    }
                }
                // The pins: the points of `pinnable` the mover holds.
                let pins = pinnable & !open;
                (key | (u128::from(pins) << KEY_PIN_SHIFT), play)
            })
            .collect(),
    )
}

/// The points (1 to 24) a move of the turn may land on from the points
/// of `sources`: every distance the dice make (one die, both, or two to
/// four of a double), onto a point of 1 to 24 not in `blocked`. A
/// superset (the touch-downs between are not checked).
#[inline]
fn landings(sources: u32, blocked: u32, dice: Dice) -> u32 {
    let (hi, lo) = (dice.high().get(), dice.low().get());
    let reach = if dice.is_double() {
        (sources >> hi) | (sources >> (2 * hi)) | (sources >> (3 * hi)) | (sources >> (4 * hi))
    } else {
        (sources >> hi) | (sources >> lo) | (sources >> (hi + lo))
    };
    reach & 0x01FF_FFFE & !blocked
}

/// The mover's points `occ` in the opponent's numbering (p <-> p ± 12).
#[inline(always)]
fn opp_numbering(occ: u32) -> u32 {
    ((occ & 0x1FFE) << 12) | ((occ >> 12) & 0x1FFE)
}

/// [`legal_entries`] for Fevga and Long Nardy through the backgammon
/// generator, or `None` where that does not apply: another game, a rule
/// that depends on the order of the moves and may matter this turn, or
/// the last checkers borne off before the last die.
///
/// Nobody is hit in these games and the opponent's checkers do not move
/// during the turn: every point an opposing checker holds is blocked for
/// the whole turn, so the plays of the dice rules are backgammon's on a
/// board without blots or a bar, unless one of the rules checked after
/// each move (touch-downs included) may refuse a move:
///
/// - Long Nardy's head rule: at most `head_limit` checkers leave the
///   24-point, which no move lands on. It is backgammon's dice rules with
///   only `head_limit` checkers there and the others set aside (put back
///   on the 24-point afterwards): those never move, and they keep every
///   bear-off out, which the generator's board also does unless the
///   checkers left on its 24-point can come home and bear off this turn
///   (only 6-6 takes a checker from 24 home with a die left: then the
///   search decides).
/// - Fevga's start rule: it matters only while no checker has got past
///   the opponent's start (nor off) and the 24-point has checkers: then
///   no second checker may leave the 24-point until one gets past. When
///   none can get that far with a die left to play, that is exact: with
///   all 15 on the 24-point, one checker there for the generator (the
///   others set aside, as for the head rule); else a checker has left
///   already, and the 24-point is frozen for the turn (as the generator
///   freezes Plakoto's pinned checkers). Otherwise the search decides.
/// - Fevga's starting-quarter rule: a landing may not leave all six points
///   19 to 24 held. Each move holds at most one new point, so it may
///   matter only when the points missing from the quarter are no more
///   than the moves and each is a landing ([`landings`]).
/// - [`PrimeRule::NeedsCheckerAhead`]: a landing may not leave a prime
///   that blocks the opponent fully. It may matter only when some row of
///   six points starting at or below the opponent's lowest checker (in
///   its numbering) may be held: its points the mover lacks no more than
///   the moves, each a landing. The obligation to open a prime of the
///   other prime rules is judged on the final positions, as
///   [`legal_states`] does.
///
/// A move that ends the game ends the turn, which changes the plays only
/// when dice are left after it: the search decides when fewer checkers
/// are left than dice.
pub(crate) fn race_entries(c: &Ctx, start: &St, dice: Dice) -> Option<Vec<(u128, Play)>> {
    if !matches!(c.game, Game::Fevga | Game::LongNardy) {
        return None;
    }
    let moves: u8 = if dice.is_double() { 4 } else { 2 };
    if CHECKERS - start.me[0] < moves {
        return None;
    }
    let blocked = static_blocks(c, start);
    let mut me = [0u8; 26];
    me[..25].copy_from_slice(&start.me);
    let mut frozen = 0u32;
    if c.game == Game::LongNardy {
        let allowed = c.head_limit.saturating_sub(c.head_start - start.me[24]);
        if start.me[24] > allowed {
            if allowed == 0 {
                frozen = 1 << 24;
            } else {
                me[24] = allowed;
                // Every other checker home (points 7 to 23 empty): 6-6 may
                // take the one from 24 home and bear off.
                if dice.is_double() && dice.high().get() == 6 && start.occ & 0x00FF_FF80 == 0 {
                    return None;
                }
            }
        }
    } else {
        let reached = match c.rules.fevga_start {
            FevgaStart::PassStartPoint => 0x0FFE,
            FevgaStart::ReachStartQuarter => 0x1FFE,
            FevgaStart::Off => u32::MAX,
        };
        if start.occ & reached == 0 && start.me[0] == 0 && start.me[24] > 0 {
            // The checker that may get past: the lowest outside the
            // 24-point when some checker has left it (none is off), else
            // the first to leave it. Against the highest point that counts
            // as past (11 or 12): a checker that gets past with the last
            // die leaves none to move from the 24-point, so the dice
            // before it (the larger of a non-double, three of a double).
            let lowest = start.occ.trailing_zeros() as u8;
            let past = 31 - reached.leading_zeros() as u8;
            let pips = if dice.is_double() {
                3 * dice.high().get()
            } else {
                dice.high().get()
            };
            if lowest <= past + pips {
                return None;
            }
            if start.me[24] == CHECKERS {
                // One checker leaves, no other after it.
                me[24] = 1;
            } else {
                frozen = 1 << 24;
            }
        }
        let missing = START_QUARTER & !start.occ;
        if missing.count_ones() <= u32::from(moves)
            && missing & !landings(start.occ & START_QUARTER & !frozen, blocked, dice) == 0
        {
            return None;
        }
    }
    if c.prime == PrimeRule::NeedsCheckerAhead {
        let held = opp_numbering(start.occ);
        let m = held | opp_numbering(landings(start.occ & !frozen, blocked, dice));
        let rows = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4) & (m >> 5);
        // Bit `j`: the row from the opponent's `j` to `j + 5` may be held;
        // only rows from at or below its lowest checker block it fully.
        let mut rows = rows & ((2u32 << c.opp_low) - 1);
        while rows != 0 {
            let j = rows.trailing_zeros();
            rows &= rows - 1;
            if (!held & (0x3F << j)).count_ones() <= u32::from(moves) {
                return None;
            }
        }
    }
    let mut plays = Vec::with_capacity(32);
    crate::movegen::plays_without_hits(&me, blocked | frozen, frozen, dice, &mut plays);
    let key_of = |play: &Play| {
        play.moves().iter().fold(start.key, |key, mv| {
            key.wrapping_sub(UNIT[usize::from(mv.from().get()) & 31])
                .wrapping_add(UNIT[usize::from(mv.to().get()) & 31])
        })
    };
    let mut entries: Vec<(u128, Play)> = plays.into_iter().map(|p| (key_of(&p), p)).collect();
    if c.must_open {
        // The mover's points in a key: its nonzero counts.
        let occ_of = |key: u128| {
            (1..=24u32)
                .filter(|&p| (key >> (4 * p)) & 0xF != 0)
                .fold(0u32, |occ, p| occ | (1 << p))
        };
        if entries
            .iter()
            .any(|&(key, _)| !blocks_fully(c, occ_of(key)))
        {
            entries.retain(|&(key, _)| !blocks_fully(c, occ_of(key)));
        }
    }
    Some(entries)
}

/// Bit `i` set for each nonzero byte `i` of `x`.
#[inline(always)]
fn nonzero_bytes(x: u64) -> u32 {
    const LO7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let high = (((x & LO7) + LO7) | x) & !LO7;
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// Whether a mother pin is what ends the game this turn, whatever else
/// the turn does: Plakoto's mother rule may end it ([`Ctx::mother_may_end`]),
/// the opponent's mother is not pinned yet, and pinning it ends the game
/// at once (the immediate rule, the mover's own mother pinned, or the
/// mover's 24-point empty already). The first move onto point 1 then ends
/// the turn, and no other move ends the game but the bear-off of the last
/// checker.
///
/// The move-order pruning ([`expand`], the smaller die first in
/// [`dice_states`]) then keeps every play if the pinning move may be
/// played out of order. A play that never lands on point 1 ends the game,
/// if at all, with its last move, and is found as before. A play that
/// pins the mother lands on point 1 once, with its last move (from
/// `1 + d`); its other moves do not land on point 1 and, in the pruned
/// order, reach the same position without ending the game, from which
/// the pinning move is played.
fn pin_ends_turn(c: &Ctx, s: &St) -> bool {
    s.opp_pinned & (1 << 1) == 0
        && (c.rules.mother == MotherRule::Immediate
            || c.my_pinned & (1 << 24) != 0
            || s.me[24] == 0)
}

/// The plays the dice rules allow (every rule but the obligation to open a
/// prime).
///
/// A move that ends the game (the last checker borne off, Plakoto's mother
/// rule) ends the turn: its play is complete and counts as using the whole
/// roll, so the plays are those ending the game at any depth and those
/// using every die; only when no play ends the game do the rules for
/// fewer dice apply.
pub(crate) fn dice_states(c: &Ctx, start: &St, dice: Dice) -> Vec<St> {
    let (hi, lo) = (dice.high().get(), dice.low().get());
    let blocked = static_blocks(c, start);
    let (hi, lo) = ((hi, blocked), (lo, blocked));
    let start = [*start];
    let mut seen = KeySet::new();
    let mut ended = Vec::new();
    // The move-order pruning of Plakoto below assumes that no move ends
    // the turn early: a bear-off of the last checker leaves nothing to
    // reorder, but a mother pin may, so it is off when one may happen,
    // unless the pin is what ends the game ([`pin_ends_turn`]): then the
    // pinning move is allowed out of order.
    let mother = c.mother_may_end();
    let pin_ends = mother && pin_ends_turn(c, &start[0]);
    let prune = c.game == Game::Plakoto && (!mother || pin_ends);
    // The point from which die `d` pins the mother, when that ends the game.
    let pinner = |d: u8| if pin_ends { 1u32 << (1 + d) } else { 0 };
    // No state can end the game unless a mother may be pinned or the
    // mover's checkers left are few enough to be borne off this turn.
    let moves = if dice.is_double() { 4 } else { 2 };
    let may_end = mother || CHECKERS - start[0].me[0] <= moves;
    let mut ended_seen = may_end.then(KeySet::new);
    let mut take = |level: &mut Vec<St>, ended: &mut Vec<St>| {
        if let Some(seen) = ended_seen.as_mut() {
            take_ended(c, level, ended, seen);
        }
    };
    if dice.is_double() {
        let ordered = prune.then(|| pinner(hi.0));
        let mut level = start.to_vec();
        let mut next = Vec::with_capacity(64);
        let mut depth = 0;
        while depth < 4 {
            next.clear();
            if depth == 0 {
                expand(c, &level, hi, ordered, None, &mut next);
            } else {
                seen.clear();
                expand(c, &level, hi, ordered, Some(&mut seen), &mut next);
            }
            take(&mut next, &mut ended);
            if next.is_empty() {
                break;
            }
            core::mem::swap(&mut level, &mut next);
            depth += 1;
        }
        if !ended.is_empty() {
            if depth == 4 {
                ended.extend(level);
            }
            ended
        } else if depth == 0 {
            Vec::new()
        } else {
            level
        }
    } else {
        let mut first_hi = Vec::with_capacity(16);
        let mut first_lo = Vec::with_capacity(16);
        expand(c, &start, hi, None, None, &mut first_hi);
        expand(c, &start, lo, None, None, &mut first_lo);
        take(&mut first_hi, &mut ended);
        take(&mut first_lo, &mut ended);
        let mut both = Vec::with_capacity(64);
        expand(c, &first_hi, lo, None, Some(&mut seen), &mut both);
        if prune {
            // Smaller die first, then the larger: unless the smaller bore
            // off, only the checker it moved, or a checker the larger die
            // may bear off (points up to `hi`), can reach a position the
            // larger-first order has not: any other larger-die move
            // commutes with the smaller one (as for doubles above; a pin
            // made by either is made in both orders), but for the move
            // that pins a mother and ends the game, which may not be
            // played first without ending the turn there.
            for s in &first_lo {
                let to = s.play.moves().first().map_or(0, |m| m.to().get());
                let sources = if to == 0 {
                    s.occ
                } else {
                    s.occ & ((1u32 << to) | ((2u32 << hi.0) - 1) | pinner(hi.0))
                };
                let sources = sources & !(blocked << hi.0);
                expand_one(c, s, hi.0, sources, Some(&mut seen), &mut both);
            }
        } else {
            expand(c, &first_lo, hi, None, Some(&mut seen), &mut both);
        }
        take(&mut both, &mut ended);
        if !ended.is_empty() {
            ended.extend(both);
            ended
        } else if !both.is_empty() {
            both
        } else if !first_hi.is_empty() {
            first_hi
        } else {
            first_lo
        }
    }
}

/// The keys of the positions reached from `s` by playing exactly `depth`
/// of the dice `left` (in any order).
///
/// A state that ends the game is a play's end whatever depth is left.
pub(crate) fn keys_after(c: &Ctx, s: &St, left: &[u8], depth: usize) -> Vec<u128> {
    if depth == 0 || ends_game(c, s) {
        return alloc::vec![s.key];
    }
    let mut out = Vec::new();
    for (i, &d) in left.iter().enumerate() {
        if left[..i].contains(&d) {
            continue;
        }
        let mut rest = left.to_vec();
        rest.remove(i);
        for n in expand_new(c, &[*s], d) {
            out.extend(keys_after(c, &n, &rest, depth - 1));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Player;
    use crate::tables::position::TablesPosition;
    use crate::tables::rules::HeadDoubles;
    use crate::tables::setup::{TablesSetup, other_view};

    /// xorshift64*.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        }
    }

    /// A Fevga or Long Nardy position aimed at the boundaries of
    /// [`race_entries`], x on roll: a few to all 15 of x's checkers on its
    /// 24-point, the rest drawn from a row of six points along o's way
    /// (which may wrap past x's 1-point), x's starting quarter, its home
    /// board, points 12 to 23, anywhere, or off (in some positions most
    /// of them: the last checkers borne off); o's checkers on its
    /// 24-point or from its lowest point (drawn) up. A checker whose point
    /// the other side holds is borne off instead.
    fn aimed(game: Game, rules: TablesRules, rng: &mut Rng) -> Option<TablesPosition> {
        let mut s = TablesSetup::empty(game, Player::X);
        s.rules = rules;
        let head = [0, 1, 2, 3, 5, 9, 13, 14, 15][rng.below(9)];
        s.points.x[23] = head;
        // The row, in o's numbering: o's `row` to `row + 5`.
        let row = 1 + rng.below(19) as u8;
        let weights: [usize; 6] = match rng.below(6) {
            0 => [6, 1, 1, 1, 1, 0],
            1 => [1, 6, 1, 1, 1, 0],
            2 => [1, 1, 6, 1, 1, 1],
            3 => [1, 0, 0, 6, 1, 1],
            4 => [0, 0, 2, 0, 0, 9],
            _ => [1, 1, 1, 1, 6, 1],
        };
        let total: usize = weights.iter().sum();
        for _ in head..CHECKERS {
            let mut pick = rng.below(total);
            let mut mode = 0;
            while pick >= weights[mode] {
                pick -= weights[mode];
                mode += 1;
            }
            let p = match mode {
                0 => other_view(game, row + rng.below(6) as u8),
                1 => 19 + rng.below(6) as u8,
                2 => 1 + rng.below(6) as u8,
                3 => 12 + rng.below(12) as u8,
                4 => 1 + rng.below(24) as u8,
                _ => 0,
            };
            if p == 0 {
                s.off.x += 1;
            } else {
                s.points.x[usize::from(p - 1)] += 1;
            }
        }
        let o_head = [0, 1, 5, 15][rng.below(4)];
        let low = 1 + rng.below(24) as u8;
        for i in 0..CHECKERS {
            let q = if i < o_head {
                24
            } else {
                low + rng.below(usize::from(25 - low)) as u8
            };
            let p = other_view(game, q);
            if s.points.x[usize::from(p - 1)] > 0 {
                s.off.o += 1;
            } else {
                s.points.o[usize::from(q - 1)] += 1;
            }
        }
        TablesPosition::from_setup(&s).ok()
    }

    /// Whether the moves `moves` are legal one by one from `s` with the
    /// dice `left` (each move by one of them, every check of a single
    /// move) and reach `key`.
    fn replays(c: &Ctx, s: &St, moves: &[Move], left: &[u8], key: u128) -> bool {
        let Some((mv, rest)) = moves.split_first() else {
            return s.key == key;
        };
        left.iter().enumerate().any(|(i, &d)| {
            let mut dice = left.to_vec();
            dice.remove(i);
            step(c, s, mv.from().get(), d).is_ok_and(|n| {
                n.play.moves().last() == Some(mv) && replays(c, &n, rest, &dice, key)
            })
        })
    }

    /// [`race_entries`], wherever it answers, lists the search's plays
    /// ([`legal_states`]) in the search's order, each play legal move by
    /// move, on positions aimed at the boundaries of its conditions: the
    /// start, quarter and prime rules within reach of the dice or just
    /// out of it, checkers on the head, the last checkers borne off.
    #[test]
    fn race_entries_agree_with_the_search() {
        let mut rng = Rng(0x0F0E_7A5E_ED00_0028);
        let mut variants = Vec::new();
        for fevga_start in [
            FevgaStart::PassStartPoint,
            FevgaStart::ReachStartQuarter,
            FevgaStart::Off,
        ] {
            for prime in [
                PrimeRule::OpenWhenStuck,
                PrimeRule::OpenWhenBlocked,
                PrimeRule::NeedsCheckerAhead,
                PrimeRule::Free,
            ] {
                let rules = TablesRules {
                    fevga_start,
                    primes: Some(prime),
                    ..TablesRules::DEFAULT
                };
                variants.push((Game::Fevga, rules));
            }
        }
        for head_doubles in [HeadDoubles::SixFourThree, HeadDoubles::SixFour] {
            for prime in [
                PrimeRule::NeedsCheckerAhead,
                PrimeRule::Free,
                PrimeRule::OpenWhenBlocked,
            ] {
                let rules = TablesRules {
                    head_doubles,
                    primes: Some(prime),
                    ..TablesRules::DEFAULT
                };
                variants.push((Game::LongNardy, rules));
            }
        }
        let (mut fast, mut searched) = (0usize, 0usize);
        for &(game, rules) in &variants {
            let mut positions = 0;
            while positions < 400 {
                let Some(pos) = aimed(game, rules, &mut rng) else {
                    continue;
                };
                positions += 1;
                if pos.outcome().is_some() {
                    continue;
                }
                for dice in Dice::ALL_21 {
                    let (c, start) = pos.ctx(dice);
                    let Some(entries) = race_entries(&c, &start, dice) else {
                        searched += 1;
                        continue;
                    };
                    fast += 1;
                    let want: Vec<(u128, Play)> = legal_states(&c, &start, dice)
                        .into_iter()
                        .map(|s| (s.key, s.play))
                        .collect();
                    assert_eq!(entries, want, "{:?} {dice}", pos.to_setup());
                    let (hi, lo) = (dice.high().get(), dice.low().get());
                    let left = if dice.is_double() {
                        [hi; 4].to_vec()
                    } else {
                        [hi, lo].to_vec()
                    };
                    for (key, play) in &entries {
                        assert!(replays(&c, &start, play.moves(), &left, *key), "{play:?}");
                    }
                }
            }
        }
        assert!(fast > 20_000 && searched > 20_000, "{fast} {searched}");
    }
}

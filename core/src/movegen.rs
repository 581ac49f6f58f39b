//! Legal move generation.
//!
//! The generator walks every sequence of single-die moves depth first on a
//! copy-on-step state of the mover's 26 counts plus three bit masks
//! (points the mover occupies, opposing blots, opposing blocks).
//!
//! Most rolls need no deduplication at all. Doubles are generated with
//! non-increasing starting points, so every multiset of moves is visited
//! once and distinct multisets give distinct positions. Non-doubles are
//! generated in both die orders, the second order limited to the moves that
//! can reach new positions, and where no bear-off is within reach the two
//! ways one checker can reach the same position with both dice are skipped
//! exactly (see `Gen::second_sources`), so every sequence generated is a
//! new position.
//!
//! The rest (non-doubles with a bear-off within reach, and prefixes) is
//! deduplicated by a 128-bit key of each resulting position, kept up to
//! date move by move: four bits per mover count (26 × 4 = 104 bits, a
//! count never exceeds 15) and one bit per point where a blot was hit (24
//! bits). The opponent's side changes only by hits, so the key identifies
//! the resulting position exactly, and two plays are the same play exactly
//! when their keys are equal. The generator keeps each key minus the
//! starting position's (modulo 2^128), which is as exact and starts at 0.
//!
//! "Use as much of the roll as possible" is kept the way gnubg keeps it:
//! every finished sequence is scored by the pips of the dice it used;
//! sequences below the best so far are dropped and a better one clears the
//! list. That gives both dice (four for doubles) when possible, else the
//! larger die when either single die can be played.

use alloc::vec::Vec;

use crate::board::Board;
use crate::dice::Dice;
use crate::play::{Move, Play};
use crate::point::Point;

/// Bit offset of the hit flags in a result key.
const KEY_HIT_SHIFT: u32 = 104;

/// `COUNT_UNIT[p]`: one checker on index `p` in a key (a table load is
/// cheaper than a variable 128-bit shift).
const COUNT_UNIT: [u128; 26] = {
    let mut t = [0u128; 26];
    let mut p = 0;
    while p < 26 {
        t[p] = 1u128 << (4 * p);
        p += 1;
    }
    t
};

/// `HIT_BIT[p]`: a blot hit on point `p` (1..=24) in a key.
const HIT_BIT: [u128; 25] = {
    let mut t = [0u128; 25];
    let mut p = 1;
    while p < 25 {
        t[p] = 1u128 << (KEY_HIT_SHIFT as usize + p - 1);
        p += 1;
    }
    t
};

/// Slots of the open-addressing table that deduplicates non-double plays.
const TABLE_SLOTS: usize = 256;
// Indexes stored in the table are at most TABLE_MAX, so they fit a byte.
/// Past this many plays the table is too full and lookups scan the list.
const TABLE_MAX: usize = 192;
/// Keys of a keyed generation kept on the stack before spilling to a Vec.
const KEYS_INLINE: usize = 16;

/// Plays a list has room for before it grows: most lists are shorter, and
/// the buffer (832 bytes) stays in the allocator's fast size classes.
const LIST_CAPACITY: usize = 64;

/// The legal plays of a position for one roll, one per distinct resulting
/// position. Empty when the player cannot move (the turn passes).
///
/// The plays are contiguous: [`PlayList::as_slice`], indexing.
#[derive(Debug, Clone, Default)]
pub struct PlayList {
    plays: Vec<Play>,
    pips: u8,
}

impl PlayList {
    /// The number of distinct plays.
    #[must_use]
    pub fn len(&self) -> usize {
        self.plays.len()
    }

    /// Whether there is no legal play (the turn passes).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.plays.is_empty()
    }

    /// The plays, in generation order.
    #[must_use]
    pub fn as_slice(&self) -> &[Play] {
        &self.plays
    }

    /// The plays, in generation order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Play> + '_ {
        self.plays.iter()
    }

    /// The play at `index`.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<&Play> {
        self.plays.get(index)
    }

    /// The number of single-die moves each play makes (0 when empty).
    #[must_use]
    pub fn moves_per_play(&self) -> usize {
        self.plays.first().map_or(0, Play::len)
    }

    /// The pips of the dice each play uses (the sum of the dice played).
    #[must_use]
    pub fn dice_pips(&self) -> u8 {
        self.pips
    }

    /// The index of the play (of this list, generated from `board`) that
    /// reaches the position of `key`. Recomputes the keys: the referee
    /// calls it once per checked play, the generator never.
    pub(crate) fn position_of(&self, board: &Board, key: u128) -> Option<usize> {
        self.plays
            .iter()
            .position(|p| key_after(board, p.moves()) == Some(key))
    }
}

impl core::ops::Index<usize> for PlayList {
    type Output = Play;

    /// # Panics
    /// When `index` is not below [`PlayList::len`].
    fn index(&self, index: usize) -> &Play {
        &self.plays[index]
    }
}

impl<'a> IntoIterator for &'a PlayList {
    type Item = &'a Play;
    type IntoIter = core::slice::Iter<'a, Play>;
    fn into_iter(self) -> Self::IntoIter {
        self.plays.iter()
    }
}

/// A list of plays made by another generator (Tavla's hit-and-run option,
/// `tables::tavla`): one play per resulting position, each using `pips` of
/// the dice.
pub(crate) fn play_list(plays: Vec<Play>, pips: u8) -> PlayList {
    PlayList { plays, pips }
}

/// The key of a board before any move: the mover's counts, no hits.
pub(crate) fn initial_key(me: &[u8; 26]) -> u128 {
    // Pack eight byte counts (each < 16) into eight nibbles at a time.
    let pack = |chunk: &[u8]| -> u128 {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let mut x = u64::from_le_bytes(word);
        x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
        x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
        x = (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF;
        u128::from(x)
    };
    me.chunks(8)
        .enumerate()
        .fold(0u128, |k, (i, chunk)| k | (pack(chunk) << (32 * i)))
}

/// The key of the position a sequence of moves reaches from `board`, or
/// `None` when a move is physically impossible (no checker to move, a bad
/// point). Legality of the sequence is not checked.
pub(crate) fn key_after(board: &Board, moves: &[Move]) -> Option<u128> {
    let mut b = *board;
    let mut hits = 0u128;
    for mv in moves {
        let (from, to) = (mv.from().get(), mv.to().get());
        if b.me[usize::from(from)] == 0 || from == 0 || to >= from || to > 24 {
            return None;
        }
        if to != 0 && b.opp_at(to) >= 2 {
            return None;
        }
        if b.apply(*mv) {
            hits |= 1u128 << (KEY_HIT_SHIFT + u32::from(to) - 1);
        }
    }
    Some(initial_key(&b.me) | hits)
}

/// The generator's key after a move, from the key before it. The
/// generator's keys are the result keys minus the starting position's key
/// (modulo 2^128): no key to compute before the first move, and two
/// results are equal exactly when these differences are. A blot is hit on a
/// point at most once per play, so adding its bit is setting it.
#[inline(always)]
fn moved_key(key: u128, from: u8, to: u8, hit: bool) -> u128 {
    let key = key
        .wrapping_sub(COUNT_UNIT[usize::from(from)])
        .wrapping_add(COUNT_UNIT[usize::from(to)]);
    if hit {
        key.wrapping_add(HIT_BIT[usize::from(to)])
    } else {
        key
    }
}

// One cache line: a copy never straddles two lines, wherever the stack is.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct State {
    me: [u8; 26],
    /// Bit p: the mover has a checker on p (1..=24, bar 25).
    occ: u32,
    /// Bit p: one opposing checker on the mover's point p.
    blot: u32,
    /// The result key minus the starting position's (see `moved_key`);
    /// kept up to date only when `KEYED`.
    key: u128,
    play: Play,
}

impl State {
    #[inline(always)]
    fn moved<const KEYED: bool>(&self, depth: usize, from: u8, to: u8) -> State {
        let mut n = *self;
        let f = usize::from(from);
        n.me[f] -= 1;
        if n.me[f] == 0 {
            n.occ &= !(1 << from);
        }
        n.me[usize::from(to)] += 1;
        let hit = (n.blot >> to) & 1 != 0;
        if KEYED {
            n.key = moved_key(n.key, from, to, hit);
        }
        if hit {
            n.blot &= !(1 << to);
        }
        n.occ |= (1 << to) & !1;
        n.play
            .push_at(depth, Move::with_hit(Point::new(from), Point::new(to), hit));
        n
    }
}

/// One generation. `KEYED`: results carry keys and are deduplicated through
/// them (a prefix, or a bear-off within reach of a non-double); otherwise
/// every sequence generated reaches a new position and no key is computed.
/// `DOUBLE`: four moves of one die, else two of different dice.
struct Gen<'a, const PREFIX: bool, const KEYED: bool, const DOUBLE: bool> {
    /// Bit p: two or more opposing checkers on the mover's point p.
    block: u32,
    /// Opposing blots before the play.
    start_blot: u32,
    dice: [u8; 4],
    /// `lands[i]`: the points from which die `dice[i]` moves a checker to
    /// a point of the board that is not blocked.
    lands: [u32; 4],
    best: u8,
    /// The mover's highest occupied point before the play (25: the bar).
    start_highest: u8,
    out: &'a mut Vec<Play>,
    /// The key of each play in `out` (only when `KEYED`): the first
    /// `KEYS_INLINE` here (on the stack, as most keyed lists are short),
    /// the rest in `more_keys`.
    keys: &'a mut [u128],
    more_keys: Vec<u128>,
    prefix: &'a [Move],
    /// Open addressing over `out` by key: 0 empty, else index + 1
    /// (`TABLE_SLOTS` long when `KEYED`, else empty).
    table: &'a mut [u8],
}

impl<const PREFIX: bool, const KEYED: bool, const DOUBLE: bool> Gen<'_, PREFIX, KEYED, DOUBLE> {
    /// The number of dice: the depth of a whole play.
    const N: usize = if DOUBLE { 4 } else { 2 };

    #[inline(always)]
    fn follows_prefix(&self, depth: usize, from: u8, to: u8) -> bool {
        !PREFIX
            || self
                .prefix
                .get(depth)
                .is_none_or(|m| m.from().get() == from && m.to().get() == to)
    }

    /// Calls `f(self, from, to)` for every legal single move of die `d`
    /// from `s` starting at or below `max_from` and on a point of `sources`
    /// (the bar is always allowed); returns whether there was any (before
    /// the prefix filter).
    #[inline(always)]
    fn for_each_move(
        &mut self,
        s: &State,
        depth: usize,
        d: u8,
        max_from: u8,
        sources: u32,
        mut f: impl FnMut(&mut Self, u8, u8),
    ) -> bool {
        let mut movable = self.movable(s, depth, max_from, sources);
        let moved = movable != 0;
        while movable != 0 {
            let from = 31 - movable.leading_zeros() as u8;
            movable &= !(1 << from);
            let to = from.saturating_sub(d);
            if self.follows_prefix(depth, from, to) {
                f(self, from, to);
            }
        }
        moved
    }

    /// The points (25: the bar) from which the die at `depth` moves a checker in `s`,
    /// at or below `max_from` and on `sources` (the bar always allowed).
    #[inline(always)]
    fn movable(&self, s: &State, depth: usize, max_from: u8, sources: u32) -> u32 {
        let d = self.dice[depth];
        if s.me[25] > 0 {
            let blocked = (self.block >> (25 - d)) & 1;
            return (blocked ^ 1) << 25;
        }
        if s.occ == 0 {
            return 0;
        }
        let highest = 31 - s.occ.leading_zeros() as u8;
        let srcs = s.occ & ((2u32 << max_from) - 1) & sources;
        let mut movable = srcs & self.lands[depth];
        if highest <= 6 {
            // Bearing off: from exactly d, or from the highest point when it
            // is below d.
            movable |= srcs & (1 << d);
            if highest < d {
                movable |= srcs & (1 << highest);
            }
        }
        movable
    }

    /// The last die without keys: every move is a new play of the same
    /// pips, so the list is cleared or kept once for all of them.
    #[inline(always)]
    fn leaves(
        &mut self,
        s: &State,
        depth: usize,
        d: u8,
        max_from: u8,
        sources: u32,
        pips: u8,
    ) -> bool {
        let mut movable = self.movable(s, depth, max_from, sources);
        if movable == 0 {
            return false;
        }
        if pips < self.best {
            return true;
        }
        if pips > self.best {
            self.out.clear();
            self.best = pips;
        }
        while movable != 0 {
            let from = 31 - movable.leading_zeros() as u8;
            movable &= !(1 << from);
            let to = from.saturating_sub(d);
            let hit = (s.blot >> to) & 1 != 0;
            let mut play = s.play;
            play.push_at(depth, Move::with_hit(Point::new(from), Point::new(to), hit));
            self.out.push(play);
        }
        true
    }

    /// Where the second move of a non-double may start, given the first
    /// move `from`/`to` and the state `next` after it.
    ///
    /// The second order (smaller die first, from an empty bar) can only
    /// reach new positions when the larger die moves the same checker on,
    /// or bears off where it could not before: any other second move
    /// commutes with the first, so the larger-die-first order has reached
    /// that position already (blocks do not change, and the first move was
    /// legal after the second).
    ///
    /// When every checker was home from the start, the only bear-off the
    /// smaller die can make legal is from a new highest point below the
    /// larger die (the smaller die moved the last checker off the old
    /// highest point): exact bear-offs and bear-offs from the old highest
    /// were legal first. Otherwise bearing off becomes legal only when the
    /// smaller die brings the last checker home, and then any point up to
    /// the larger die may bear off.
    ///
    /// Without keys (no bear-off within reach) two sequences reach the same
    /// position only as a checker moved on with both dice (`x` to
    /// `x - hi - lo`) against one of these:
    /// - the same checker in the other order: the second order skips it
    ///   unless the point `x - hi` is blocked or either intermediate point
    ///   held a blot (then the hits differ or the other order is illegal);
    /// - larger die from `y`, then smaller die from `y + lo` onto `y` (the
    ///   net effect of `y + lo` to `y - hi`): the first order skips it
    ///   unless `y + lo - hi` is blocked or held a blot.
    ///
    /// Entering from the bar works the same way: with one checker on the
    /// bar, the second order skips moving the checker it entered on with
    /// the larger die when the larger-die-first order reaches the same
    /// position; with two or more, entering with both dice in the second
    /// order repeats the first whenever the larger die can enter (`None`:
    /// skip the branch).
    #[inline(always)]
    fn second_sources(&self, from: u8, to: u8, next: &State) -> Option<u32> {
        let (first, other) = (self.dice[0], self.dice[1]);
        let stops = self.block | self.start_blot;
        if first > other {
            // Larger die first: everything, but for the move onto `from`.
            if KEYED || from == 25 {
                return Some(u32::MAX);
            }
            let z = from + other;
            return Some(if (stops >> (z - first)) & 1 == 0 {
                !(1u32 << z)
            } else {
                u32::MAX
            });
        }
        let hi = other;
        if from == 25 {
            if KEYED {
                return Some(u32::MAX);
            }
            let hi_enters = (self.block >> (25 - hi)) & 1 == 0;
            if next.me[25] > 0 {
                return if hi_enters { None } else { Some(u32::MAX) };
            }
            let same = (stops >> (25 - hi)) & 1 == 0 && (self.start_blot >> to) & 1 == 0;
            return Some(if same { !(1u32 << to) } else { u32::MAX });
        }
        let alone = to != 0 && next.me[usize::from(to)] == 1;
        if !KEYED {
            let differs =
                from > hi && ((stops >> (from - hi)) & 1 != 0 || (self.start_blot >> to) & 1 != 0);
            return Some(if alone && differs { 1u32 << to } else { 0 });
        }
        let continues = if alone { 1u32 << to } else { 0 };
        if self.start_highest <= 6 {
            // `| 1`: an empty board has its highest at 0.
            let highest = 31 - (next.occ | 1).leading_zeros();
            let new_high = if highest < u32::from(self.start_highest) && highest < u32::from(hi) {
                1u32 << highest
            } else {
                0
            };
            Some(continues | new_high)
        } else {
            Some(continues | ((2u32 << hi) - 1))
        }
    }

    /// Extends the sequence in `s` with the die at `DEPTH`. `sources`
    /// limits where that die's move may start (see `second_sources`).
    ///
    /// The depth is a constant so that each level is its own function (no
    /// recursion); the last level is inlined into its parent's loop.
    #[inline(never)]
    fn step<const DEPTH: usize>(&mut self, s: &State, pips: u8, max_from: u8, sources: u32) {
        self.step_inline::<DEPTH>(s, pips, max_from, sources);
    }

    /// The body of [`Gen::step`], inlined where the next die is the last.
    #[inline(always)]
    fn step_inline<const DEPTH: usize>(&mut self, s: &State, pips: u8, max_from: u8, sources: u32) {
        let depth = DEPTH;
        let d = self.dice[depth];
        let pips_after = pips + d;
        let moved = if depth + 1 == Self::N && !KEYED && !PREFIX {
            self.leaves(s, depth, d, max_from, sources, pips_after)
        } else if depth + 1 == Self::N {
            // Last die: only the key and the play of each result are needed.
            self.for_each_move(s, depth, d, max_from, sources, |g, from, to| {
                let hit = (s.blot >> to) & 1 != 0;
                let mut key = 0;
                if KEYED {
                    key = moved_key(s.key, from, to, hit);
                }
                let mut play = s.play;
                play.push_at(depth, Move::with_hit(Point::new(from), Point::new(to), hit));
                g.save(key, play, pips_after);
            })
        } else {
            self.for_each_move(s, depth, d, max_from, sources, |g, from, to| {
                let next = s.moved::<KEYED>(depth, from, to);
                let (max_next, next_sources) = if PREFIX {
                    (24, u32::MAX)
                } else if DOUBLE {
                    (from, u32::MAX)
                } else {
                    match g.second_sources(from, to, &next) {
                        Some(sources) => (24, sources),
                        None => return,
                    }
                };
                match DEPTH {
                    0 if Self::N == 2 => {
                        g.step_inline::<1>(&next, pips_after, max_next, next_sources);
                    }
                    0 => g.step::<1>(&next, pips_after, max_next, next_sources),
                    1 => g.step::<2>(&next, pips_after, max_next, next_sources),
                    2 => g.step_inline::<3>(&next, pips_after, max_next, next_sources),
                    // The fourth die is always the last: not reached.
                    _ => g.step::<3>(&next, pips_after, max_next, next_sources),
                }
            })
        };
        if !moved && (!PREFIX || depth >= self.prefix.len()) {
            self.save(s.key, s.play, pips);
        }
    }

    #[inline(always)]
    fn save(&mut self, key: u128, play: Play, pips: u8) {
        if pips < self.best || pips == 0 {
            return;
        }
        if pips > self.best {
            if !self.out.is_empty() {
                self.out.clear();
                if KEYED {
                    self.more_keys.clear();
                    self.table.fill(0);
                }
            }
            self.best = pips;
        }
        if KEYED {
            if self.out.len() >= TABLE_MAX {
                if (0..self.out.len()).any(|i| self.key_at(i) == key) {
                    return;
                }
            } else {
                let folded = (key as u64) ^ ((key >> 64) as u64);
                let mut slot = (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize;
                loop {
                    match self.table[slot] {
                        0 => {
                            self.table[slot] = self.out.len() as u8 + 1;
                            break;
                        }
                        i if self.key_at(usize::from(i) - 1) == key => return,
                        _ => slot = (slot + 1) % TABLE_SLOTS,
                    }
                }
            }
            match self.keys.get_mut(self.out.len()) {
                Some(slot) => *slot = key,
                None => self.more_keys.push(key),
            }
        }
        self.out.push(play);
    }

    /// The key of the play at `index` of `out`.
    #[inline(always)]
    fn key_at(&self, index: usize) -> u128 {
        match self.keys.get(index) {
            Some(&key) => key,
            None => self.more_keys[index - self.keys.len()],
        }
    }
}

fn run<const PREFIX: bool>(
    board: &Board,
    dice: Dice,
    prefix: &[Move],
    best: u8,
    out: &mut Vec<Play>,
) -> u8 {
    let occ = board.occupied();
    let (block, blot) = board.opp_masks();
    if occ == 0 || (block | blot == 0 && board.opp[25] == 0) {
        // The game is over: nobody moves.
        return 0;
    }
    let masks = (occ, block, blot);
    let start_highest = (31 - occ.leading_zeros()) as u8;
    // Keys are needed to find equal results when bearing off may be part of
    // a non-double, and for prefixes (both orders, every sequence). Bearing
    // off with the second die needs every checker home after the first: at
    // most one checker outside, on a point the first die can bring home
    // (at most 6 + 6). The bar counts as outside (bit 25).
    let outside = occ & !0x7F;
    let bear_off_in_reach = outside == 0
        || (outside.is_power_of_two()
            && start_highest <= 12
            && board.me[usize::from(start_highest)] == 1);
    let double = dice.is_double();
    if PREFIX || (!double && bear_off_in_reach) {
        let mut table = [0; TABLE_SLOTS];
        let mut keys = [0; KEYS_INLINE];
        let buffers = (&mut table[..], &mut keys[..]);
        if double {
            generate::<PREFIX, true, true>(&board.me, masks, 0, dice, prefix, best, out, buffers)
        } else {
            generate::<PREFIX, true, false>(&board.me, masks, 0, dice, prefix, best, out, buffers)
        }
    } else {
        let buffers = (&mut [][..], &mut [][..]);
        if double {
            generate::<PREFIX, false, true>(&board.me, masks, 0, dice, prefix, best, out, buffers)
        } else {
            generate::<PREFIX, false, false>(&board.me, masks, 0, dice, prefix, best, out, buffers)
        }
    }
}

/// The plays of a game whose moves never hit and that has no bar
/// (Plakoto's, `tables::movegen`), one per resulting `me`, with the dice
/// rules of backgammon: the mover's counts `me` (index 0 off, 1..=24
/// points, 25 empty), the points `block` it may not land on, and the
/// points of its `frozen` checkers, which may not move (on points of
/// `block`). The caller makes sure no bear-off can happen while a frozen
/// checker is left (the generator would allow one with a frozen checker in
/// the home board). Appends to `out` (empty) and returns the dice pips
/// each play uses (0: no move). No move is marked as a hit.
pub(crate) fn plays_without_hits(
    me: &[u8; 26],
    block: u32,
    frozen: u32,
    dice: Dice,
    out: &mut Vec<Play>,
) -> u8 {
    debug_assert!(me[25] == 0 && frozen & !block == 0);
    let occ = occupied_points(me);
    if occ & !frozen == 0 {
        return 0;
    }
    let start_highest = (31 - occ.leading_zeros()) as u8;
    // As in `run`: keys for a non-double only when a bear-off is within
    // reach (a frozen checker outside keeps every bear-off out).
    let outside = occ & !0x7F;
    let bear_off_in_reach = outside == 0
        || (outside.is_power_of_two()
            && frozen == 0
            && start_highest <= 12
            && me[usize::from(start_highest)] == 1);
    let masks = (occ, block, 0);
    if !dice.is_double() && bear_off_in_reach {
        let mut table = [0; TABLE_SLOTS];
        let mut keys = [0; KEYS_INLINE];
        let buffers = (&mut table[..], &mut keys[..]);
        generate::<false, true, false>(me, masks, frozen, dice, &[], 0, out, buffers)
    } else {
        let buffers = (&mut [][..], &mut [][..]);
        if dice.is_double() {
            generate::<false, false, true>(me, masks, frozen, dice, &[], 0, out, buffers)
        } else {
            generate::<false, false, false>(me, masks, frozen, dice, &[], 0, out, buffers)
        }
    }
}

/// Bit `p` set where `me[p] > 0` (1..=25).
#[inline]
pub(crate) fn occupied_points(me: &[u8; 26]) -> u32 {
    Board {
        me: *me,
        opp: [0; 26],
    }
    .occupied()
}

/// Runs the generator on the mover's counts `me`, whose `masks` are the
/// mover's occupied points and the opposing blocks and blots; `frozen`:
/// points from which no checker may move (0 but for `plays_without_hits`);
/// the dedup table and the inline keys are empty slices unless `KEYED`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn generate<const PREFIX: bool, const KEYED: bool, const DOUBLE: bool>(
    me: &[u8; 26],
    (occ, block, blot): (u32, u32, u32),
    frozen: u32,
    dice: Dice,
    prefix: &[Move],
    best: u8,
    out: &mut Vec<Play>,
    (table, keys): (&mut [u8], &mut [u128]),
) -> u8 {
    let start = State {
        me: *me,
        occ,
        blot,
        key: 0,
        play: Play::EMPTY,
    };
    let (hi, lo) = (dice.high().get(), dice.low().get());
    // Checkers that stay on the board: any source above d whose target (d
    // lower) is not blocked.
    let lands = |d: u8| !((2u32 << d) - 1) & !(block << d) & !frozen;
    let mut g = Gen::<PREFIX, KEYED, DOUBLE> {
        block,
        start_blot: blot,
        dice: [hi, lo, hi, lo],
        lands: [lands(hi), lands(lo), lands(hi), lands(lo)],
        best,
        start_highest: (31 - occ.leading_zeros()) as u8,
        out,
        keys,
        more_keys: Vec::new(),
        prefix,
        table,
    };
    if DOUBLE {
        g.step::<0>(&start, 0, 24, u32::MAX);
    } else {
        g.step::<0>(&start, 0, 24, u32::MAX);
        g.dice = [lo, hi, lo, hi];
        g.lands = [lands(lo), lands(hi), lands(lo), lands(hi)];
        g.step::<0>(&start, 0, 24, u32::MAX);
    }
    g.best
}

/// Every legal play of the player on roll, one per resulting position.
pub(crate) fn legal_plays(board: &Board, dice: Dice) -> PlayList {
    let mut plays = Vec::with_capacity(LIST_CAPACITY);
    let pips = run::<false>(board, dice, &[], 0, &mut plays);
    PlayList { plays, pips }
}

/// The legal plays that begin with `prefix` (single-die moves in the order
/// played), given the full list's dice pips `best`.
pub(crate) fn plays_with_prefix(board: &Board, dice: Dice, prefix: &[Move], best: u8) -> PlayList {
    let mut plays = Vec::new();
    let pips = run::<true>(board, dice, prefix, best, &mut plays);
    // A prefix longer than every legal sequence matches nothing.
    plays.retain(|p| p.len() >= prefix.len());
    PlayList { plays, pips }
}

#[cfg(test)]
mod tests {
    use crate::dice::{Dice, Die};
    use crate::player::Player;
    use crate::position::Position;
    use crate::setup::BackgammonVariant;

    #[test]
    fn play_list_is_a_slice() {
        let start = Position::start(BackgammonVariant::Standard, Player::X);
        let list = start.legal_plays(Dice::new(Die::new(3), Die::new(1)));
        assert_eq!(list.len(), 16);
        assert_eq!(list.as_slice().len(), list.len());
        for (i, play) in list.iter().enumerate() {
            assert_eq!(&list[i], play);
            assert_eq!(list.get(i), Some(play));
            assert_eq!(&list.as_slice()[i], play);
        }
        assert_eq!((&list).into_iter().count(), 16);
        assert_eq!(list.moves_per_play(), 2);
        assert_eq!(list.dice_pips(), 4);
    }
}

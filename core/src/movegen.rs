//! Legal move generation.
//!
//! The generator walks every sequence of single-die moves depth first on a
//! copy-on-step state of the mover's 26 counts plus three bit masks
//! (points the mover occupies, opposing blots, opposing blocks). Each
//! resulting position has a 128-bit key kept up to date move by move: four
//! bits per mover count (26 × 4 = 104 bits, a count never exceeds 15) and
//! one bit per point where a blot was hit (24 bits). The opponent's side
//! changes only by hits, so the key identifies the resulting position
//! exactly, and two plays are the same play exactly when their keys are
//! equal.
//!
//! Dedup costs nothing for doubles: their moves are generated with
//! non-increasing starting points, so every multiset of moves is visited
//! once and distinct multisets give distinct positions. Non-doubles are
//! generated in both die orders and deduplicated by comparing keys (a few
//! dozen at most).
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

/// Plays a list has room for before it grows: most lists are shorter, and
/// both buffers (832 and 1 024 bytes) stay small enough for the allocator's
/// fastest size classes.
const LIST_CAPACITY: usize = 64;

/// The legal plays of a position for one roll, one per distinct resulting
/// position. Empty when the player cannot move (the turn passes).
///
/// The plays are contiguous ([`PlayList::as_slice`], indexing); the key of
/// each play's resulting position sits at the same index of a parallel
/// vector that only the crate uses.
#[derive(Debug, Clone, Default)]
pub struct PlayList {
    plays: Vec<Play>,
    keys: Vec<u128>,
    pips: u8,
}

impl PlayList {
    fn with_capacity(n: usize) -> PlayList {
        PlayList {
            plays: Vec::with_capacity(n),
            keys: Vec::with_capacity(n),
            pips: 0,
        }
    }

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

    pub(crate) fn position_of(&self, key: u128) -> Option<usize> {
        self.keys.iter().position(|&k| k == key)
    }

    #[inline(always)]
    fn push(&mut self, key: u128, play: Play) {
        self.plays.push(play);
        self.keys.push(key);
    }

    fn clear(&mut self) {
        self.plays.clear();
        self.keys.clear();
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

#[derive(Clone, Copy)]
struct State {
    me: [u8; 26],
    /// Bit p: the mover has a checker on p (1..=24, bar 25).
    occ: u32,
    /// Bit p: one opposing checker on the mover's point p.
    blot: u32,
    key: u128,
    play: Play,
}

impl State {
    #[inline(always)]
    fn moved(&self, from: u8, to: u8) -> State {
        let mut n = *self;
        let f = usize::from(from);
        n.me[f] -= 1;
        if n.me[f] == 0 {
            n.occ &= !(1 << from);
        }
        n.me[usize::from(to)] += 1;
        n.key = n.key - COUNT_UNIT[f] + COUNT_UNIT[usize::from(to)];
        let hit = (n.blot >> to) & 1 != 0;
        if hit {
            n.blot &= !(1 << to);
            n.key |= HIT_BIT[usize::from(to)];
        }
        n.occ |= (1 << to) & !1;
        n.play
            .push(Move::with_hit(Point::new(from), Point::new(to), hit));
        n
    }
}

struct Gen<'a, const PREFIX: bool> {
    /// Bit p: two or more opposing checkers on the mover's point p.
    block: u32,
    dice: [u8; 4],
    n: usize,
    double: bool,
    best: u8,
    out: &'a mut PlayList,
    prefix: &'a [Move],
    /// Open addressing over `out` by key: 0 empty, else index + 1.
    table: [u8; TABLE_SLOTS],
}

impl<const PREFIX: bool> Gen<'_, PREFIX> {
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
        let mut moved = false;
        if s.me[25] > 0 {
            let to = 25 - d;
            if (self.block >> to) & 1 == 0 {
                moved = true;
                if self.follows_prefix(depth, 25, to) {
                    f(self, 25, to);
                }
            }
        } else if s.occ != 0 {
            let highest = 31 - s.occ.leading_zeros() as u8;
            let srcs = s.occ & ((2u32 << max_from) - 1) & sources;
            let low = (2u32 << d) - 1;
            // Checkers that stay on the board: any source above d whose
            // target (d lower) is not blocked.
            let mut movable = srcs & !low & !(self.block << d);
            if highest <= 6 {
                // Bearing off: from exactly d, or from the highest point when
                // it is below d.
                movable |= srcs & (1 << d);
                if highest < d {
                    movable |= srcs & (1 << highest);
                }
            }
            moved = movable != 0;
            while movable != 0 {
                let from = 31 - movable.leading_zeros() as u8;
                movable &= !(1 << from);
                let to = from.saturating_sub(d);
                if self.follows_prefix(depth, from, to) {
                    f(self, from, to);
                }
            }
        }
        moved
    }

    /// Extends the sequence in `s` with the die at `depth`. `sources`
    /// limits where that die's move may start (see the second order below).
    fn step(&mut self, s: &State, depth: usize, pips: u8, max_from: u8, sources: u32) {
        let d = self.dice[depth];
        let pips_after = pips + d;
        let moved = if depth + 1 == self.n {
            // Last die: only the key and the play of each result are needed.
            self.for_each_move(s, depth, d, max_from, sources, |g, from, to| {
                let hit = (s.blot >> to) & 1 != 0;
                let mut key = s.key - COUNT_UNIT[usize::from(from)] + COUNT_UNIT[usize::from(to)];
                if hit {
                    key |= HIT_BIT[usize::from(to)];
                }
                let mut play = s.play;
                play.push(Move::with_hit(Point::new(from), Point::new(to), hit));
                g.save(key, play, pips_after);
            })
        } else {
            // The second order of a non-double (smaller die first, from an
            // empty bar, not bearing off) can only reach new positions when
            // the larger die moves the same checker on, or bears off: any
            // other second move commutes with the first, so the larger-die-
            // first order has reached that position already (blocks do not
            // change, and the first move was legal after the second). Its
            // last move is limited to those sources.
            let second_order = !PREFIX && !self.double && self.dice[0] < self.dice[1];
            let hi = self.dice[1];
            self.for_each_move(s, depth, d, max_from, sources, |g, from, to| {
                let next = s.moved(from, to);
                let max_next = if g.double && !PREFIX { from } else { 24 };
                let next_sources = if second_order && from != 25 && to != 0 {
                    let continues = if next.me[usize::from(to)] == 1 {
                        1u32 << to
                    } else {
                        0
                    };
                    continues | ((2u32 << hi) - 1)
                } else {
                    u32::MAX
                };
                g.step(&next, depth + 1, pips_after, max_next, next_sources);
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
            self.out.clear();
            self.table = [0; TABLE_SLOTS];
            self.best = pips;
        }
        if !self.double || PREFIX {
            if self.out.len() >= TABLE_MAX {
                if self.out.keys.contains(&key) {
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
                        i if self.out.keys[usize::from(i) - 1] == key => return,
                        _ => slot = (slot + 1) % TABLE_SLOTS,
                    }
                }
            }
        }
        self.out.push(key, play);
    }
}

fn run<const PREFIX: bool>(
    board: &Board,
    dice: Dice,
    prefix: &[Move],
    best: u8,
    out: &mut PlayList,
) -> u8 {
    let occ = board.occupied();
    if occ == 0 || board.opp_occupied() == 0 {
        // The game is over: nobody moves.
        return 0;
    }
    let (block, blot) = board.opp_masks();
    let start = State {
        me: board.me,
        occ,
        blot,
        key: initial_key(&board.me),
        play: Play::EMPTY,
    };
    let (hi, lo) = (dice.high().get(), dice.low().get());
    let mut g = Gen::<PREFIX> {
        block,
        dice: [hi, lo, hi, lo],
        n: 2,
        double: dice.is_double(),
        best,
        out,
        prefix,
        table: [0; TABLE_SLOTS],
    };
    if g.double {
        g.n = 4;
        g.step(&start, 0, 0, 24, u32::MAX);
    } else {
        g.step(&start, 0, 0, 24, u32::MAX);
        g.dice = [lo, hi, lo, hi];
        g.step(&start, 0, 0, 24, u32::MAX);
    }
    g.best
}

/// Every legal play of the player on roll, one per resulting position.
pub(crate) fn legal_plays(board: &Board, dice: Dice) -> PlayList {
    let mut list = PlayList::with_capacity(LIST_CAPACITY);
    list.pips = run::<false>(board, dice, &[], 0, &mut list);
    list
}

/// The legal plays that begin with `prefix` (single-die moves in the order
/// played), given the full list's dice pips `best`.
pub(crate) fn plays_with_prefix(board: &Board, dice: Dice, prefix: &[Move], best: u8) -> PlayList {
    let mut list = PlayList::default();
    list.pips = run::<true>(board, dice, prefix, best, &mut list);
    // A prefix longer than every legal sequence matches nothing.
    let mut kept = 0;
    for i in 0..list.plays.len() {
        if list.plays[i].len() >= prefix.len() {
            list.plays[kept] = list.plays[i];
            list.keys[kept] = list.keys[i];
            kept += 1;
        }
    }
    list.plays.truncate(kept);
    list.keys.truncate(kept);
    list
}

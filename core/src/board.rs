//! The board as the player on roll sees it: the representation the move
//! generator works on.
//!
//! Each side is 26 counts from that side's own view: index 0 is borne off,
//! 1 to 24 are its points, 25 is its bar. One side's point `p` is the other
//! side's point `25 - p`. Swapping the two arrays hands the roll over.

use crate::play::Move;

/// Checkers of the player on roll (`me`) and of the opponent (`opp`), each
/// from its own view (index 0 off, 1..=24 points, 25 bar).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Board {
    pub(crate) me: [u8; 26],
    pub(crate) opp: [u8; 26],
}

impl Board {
    /// Where a legal single move of die `d` from `at` lands (0 for bearing
    /// off), or `None`: no checker there, a checker on the bar must enter
    /// first, the landing point is blocked, or the bear-off is not allowed.
    pub(crate) fn single_move(&self, at: u8, d: u8) -> Option<u8> {
        if self.me[usize::from(at)] == 0 || (self.me[25] > 0 && at != 25) {
            return None;
        }
        if at > d {
            let next = at - d;
            return (self.opp_at(next) < 2).then_some(next);
        }
        // Bearing off: every checker home, and exactly or from the highest
        // point.
        let home = self.me[7..26].iter().all(|&n| n == 0);
        let highest = (1..=6u8).rev().find(|&p| self.me[usize::from(p)] > 0);
        (home && (at == d || highest == Some(at))).then_some(0)
    }

    /// Opponent checkers on the mover's point `p` (1..=24).
    #[inline]
    pub(crate) fn opp_at(&self, p: u8) -> u8 {
        self.opp[usize::from(25 - p)]
    }

    /// Bit `p` set where the opponent has two or more checkers (the mover
    /// cannot land), and bit `p` of the second mask where it has exactly one;
    /// both in the mover's numbering (1..=24).
    #[inline]
    pub(crate) fn opp_masks(&self) -> (u32, u32) {
        const POINTS: u32 = 0x01FF_FFFE;
        const TWO_OR_MORE: u64 = 0xFEFE_FEFE_FEFE_FEFE;
        // The opponent's point i is the mover's point 25 - i: eight counts
        // at a time in the mover's order are eight of the opponent's,
        // byte-swapped (index i of `words` holds `opp[25 - i]`).
        let o = &self.opp;
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&o[at..at + 8]);
            u64::from_be_bytes(w)
        };
        let words = [
            word(18),
            word(10),
            word(2),
            u64::from(u16::from_le_bytes([o[1], o[0]])),
        ];
        let (mut occupied, mut several) = (0u32, 0u32);
        for (i, &w) in words.iter().enumerate() {
            occupied |= u32::from(nonzero_bytes(w)) << (8 * i);
            several |= u32::from(nonzero_bytes(w & TWO_OR_MORE)) << (8 * i);
        }
        (several & POINTS, occupied & !several & POINTS)
    }

    /// Bit `p` set where the mover has a checker (1..=24, bar at 25).
    #[inline]
    pub(crate) fn occupied(&self) -> u32 {
        byte_mask(&self.me, 0xFF) & !1
    }

    /// Moves one of the mover's checkers, hitting a blot where it lands.
    /// Returns whether it hit. The move must be physically possible (a
    /// checker on `from`, `to` not held by two or more opponents).
    #[inline]
    pub(crate) fn apply(&mut self, mv: Move) -> bool {
        let from = usize::from(mv.from().get());
        let to = mv.to().get();
        debug_assert!(self.me[from] > 0);
        self.me[from] -= 1;
        self.me[usize::from(to)] += 1;
        if to != 0 && self.opp_at(to) == 1 {
            self.opp[usize::from(25 - to)] = 0;
            self.opp[25] += 1;
            true
        } else {
            false
        }
    }

    /// The same board with the other player on roll.
    #[inline]
    pub(crate) fn swapped(self) -> Board {
        Board {
            me: self.opp,
            opp: self.me,
        }
    }

    /// Checkers of the mover still to bear off (on points and bar).
    pub(crate) fn me_left(&self) -> u32 {
        self.me[1..].iter().map(|&n| u32::from(n)).sum()
    }

    /// Checkers of the opponent still to bear off.
    pub(crate) fn opp_left(&self) -> u32 {
        self.opp[1..].iter().map(|&n| u32::from(n)).sum()
    }
}

/// Bit `i` set for each index `i` where `side[i] & bits != 0`, eight counts
/// at a time.
#[inline(always)]
fn byte_mask(side: &[u8; 26], bits: u8) -> u32 {
    let mut mask = 0u32;
    for (i, chunk) in side.chunks(8).enumerate() {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let x = u64::from_le_bytes(word) & (u64::from(bits) * 0x0101_0101_0101_0101);
        mask |= u32::from(nonzero_bytes(x)) << (8 * i);
    }
    mask
}

/// Bit `i` set for each nonzero byte `i` of `x`.
#[inline(always)]
fn nonzero_bytes(x: u64) -> u8 {
    const LO7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let high = (((x & LO7) + LO7) | x) & !LO7;
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_match_a_plain_loop() {
        let mut b = Board {
            me: [0; 26],
            opp: [0; 26],
        };
        for (i, n) in [
            0u8, 1, 2, 15, 0, 3, 1, 0, 7, 1, 1, 0, 2, 0, 0, 1, 9, 0, 4, 1, 0, 0, 2, 1, 1, 1,
        ]
        .into_iter()
        .enumerate()
        {
            b.me[i] = n;
            b.opp[25 - i] = n;
        }
        let (block, blot) = b.opp_masks();
        for p in 1..=24u8 {
            assert_eq!((block >> p) & 1 == 1, b.opp_at(p) >= 2, "block {p}");
            assert_eq!((blot >> p) & 1 == 1, b.opp_at(p) == 1, "blot {p}");
        }
        assert_eq!(block & !0x01FF_FFFE, 0);
        let occ = b.occupied();
        for p in 0..26usize {
            assert_eq!((occ >> p) & 1 == 1, p > 0 && b.me[p] > 0, "occupied {p}");
        }
    }
}

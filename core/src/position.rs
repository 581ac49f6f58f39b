//! [`Position`]: a checked position with the player on roll.

use core::fmt;

use bitflags::bitflags;

use crate::board::Board;
use crate::cube::GameResult;
use crate::dice::{Dice, Die};
use crate::movegen::{self, PlayList};
use crate::play::{IllegalPlay, Move, PartialPlay, Play};
use crate::player::{ByPlayer, Player};
use crate::point::Point;
use crate::setup::{BYTES, BackgammonVariant, Setup};

bitflags! {
    /// The kinds of reason a [`Setup`] is not a valid position (several may
    /// hold); [`PositionError::kinds`] gives them.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct PositionErrorKinds: u8 {
        /// x does not have the variant's number of checkers (on the board,
        /// on the bar and borne off together; without off counts, more than
        /// that number on the board and bar).
        const X_CHECKER_COUNT = 1 << 0;
        /// o does not have the variant's number of checkers.
        const O_CHECKER_COUNT = 1 << 1;
        /// A point holds checkers of both players.
        const SHARED_POINT = 1 << 2;
        /// Both players have borne off every checker.
        const BOTH_FINISHED = 1 << 3;
    }
}

/// The checkers a setup gives one player, as far as the count goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CheckerCount {
    /// Checkers on the board and on the bar.
    pub on_board: u32,
    /// Checkers borne off, when the setup says (`None`: the setup has no
    /// off counts, they follow from the variant).
    pub off: Option<u8>,
}

/// Why a [`Setup`] is not a valid position: every reason found, with the
/// numbers needed to say it. `Display` writes one lower-case sentence per
/// reason, joined by `"; "`, for example `x has 16 checkers (15 on the board
/// and bar, 1 off) but standard has 15; point 24 (from x's side) holds
/// checkers of both players`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PositionError {
    kinds: PositionErrorKinds,
    variant: BackgammonVariant,
    counts: ByPlayer<CheckerCount>,
    /// Bit `i` set: x's point `i + 1` is shared.
    shared: u32,
}

impl PositionError {
    /// Which reasons apply.
    #[must_use]
    pub const fn kinds(&self) -> PositionErrorKinds {
        self.kinds
    }

    /// Whether `kind` (one or more flags) all apply.
    #[must_use]
    pub const fn contains(&self, kind: PositionErrorKinds) -> bool {
        self.kinds.contains(kind)
    }

    /// The variant the setup was checked against.
    #[must_use]
    pub const fn variant(&self) -> BackgammonVariant {
        self.variant
    }

    /// The checkers the setup gives `player`.
    #[must_use]
    pub const fn checker_count(&self, player: Player) -> CheckerCount {
        *self.counts.get(player)
    }

    /// The points (numbered from x's side) holding checkers of both
    /// players, lowest first.
    pub fn shared_points(&self) -> impl Iterator<Item = Point> + '_ {
        (0..24u8)
            .filter(|&i| self.shared & (1 << i) != 0)
            .map(|i| Point::new(i + 1))
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.variant.checkers();
        let variant = self.variant;
        let mut first = true;
        let mut sep = |f: &mut fmt::Formatter<'_>| {
            if core::mem::replace(&mut first, false) {
                Ok(())
            } else {
                f.write_str("; ")
            }
        };
        for (player, flag) in [
            (Player::X, PositionErrorKinds::X_CHECKER_COUNT),
            (Player::O, PositionErrorKinds::O_CHECKER_COUNT),
        ] {
            if !self.kinds.contains(flag) {
                continue;
            }
            sep(f)?;
            let count = self.counts[player];
            let on_board = count.on_board;
            match count.off {
                Some(off) => write!(
                    f,
                    "{player} has {} checkers ({on_board} on the board and bar, {off} off) but {variant} has {n}",
                    on_board + u32::from(off)
                )?,
                None => write!(
                    f,
                    "{player} has {on_board} checkers on the board and bar but {variant} has {n}"
                )?,
            }
        }
        if self.kinds.contains(PositionErrorKinds::SHARED_POINT) {
            sep(f)?;
            f.write_str("point ")?;
            for (i, point) in self.shared_points().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{point}")?;
            }
            f.write_str(" (from x's side) holds checkers of both players")?;
        }
        if self.kinds.contains(PositionErrorKinds::BOTH_FINISHED) {
            sep(f)?;
            f.write_str("both players have borne off every checker")?;
        }
        Ok(())
    }
}

impl core::error::Error for PositionError {}

/// How a finished game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameOutcome {
    /// The player who bore off every checker.
    pub winner: Player,
    /// Single, gammon or backgammon.
    pub result: GameResult,
}

/// A valid position: the checkers of both players, the variant (which fixes
/// how many checkers each has) and the player on roll.
///
/// Built only by [`Position::from_setup`] or [`Position::start`], so every
/// `Position` is valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    variant: BackgammonVariant,
    turn: Player,
    board: Board,
}

impl Position {
    /// The starting position of `variant` with `turn` on roll.
    #[must_use]
    pub fn start(variant: BackgammonVariant, turn: Player) -> Position {
        let mut side = [0u8; 26];
        for &(point, count) in variant.start() {
            side[usize::from(point)] = count;
        }
        Position {
            variant,
            turn,
            board: Board {
                me: side,
                opp: side,
            },
        }
    }

    /// Checks a setup against the rules of `variant`.
    ///
    /// # Errors
    /// [`PositionError`] with every problem found (its
    /// [`PositionError::kinds`]) and the numbers behind each.
    pub fn from_setup(
        setup: &Setup,
        variant: BackgammonVariant,
    ) -> Result<Position, PositionError> {
        let n = u32::from(variant.checkers());
        let mut err = PositionErrorKinds::empty();
        let mut sides = ByPlayer {
            x: [0u8; 26],
            o: [0u8; 26],
        };
        for player in Player::ALL {
            let flag = player.fold(
                PositionErrorKinds::X_CHECKER_COUNT,
                PositionErrorKinds::O_CHECKER_COUNT,
            );
            let on_board = setup.on_board(player);
            let off = match setup.off {
                Some(off) => {
                    if on_board + u32::from(off[player]) != n {
                        err |= flag;
                    }
                    u32::from(off[player])
                }
                None => {
                    if on_board > n {
                        err |= flag;
                    }
                    n.saturating_sub(on_board)
                }
            };
            let side = &mut sides[player];
            side[1..25].copy_from_slice(&setup.points[player]);
            side[25] = setup.bar[player];
            side[0] = u8::try_from(off).unwrap_or(u8::MAX);
        }
        let shared = (0..24)
            .filter(|&i| setup.points.x[i] > 0 && setup.points.o[23 - i] > 0)
            .fold(0u32, |acc, i| acc | 1 << i);
        if shared != 0 {
            err |= PositionErrorKinds::SHARED_POINT;
        }
        if err.is_empty() && sides.x[0] == variant.checkers() && sides.o[0] == variant.checkers() {
            err |= PositionErrorKinds::BOTH_FINISHED;
        }
        if !err.is_empty() {
            return Err(PositionError {
                kinds: err,
                variant,
                counts: ByPlayer::new_with(|player| CheckerCount {
                    on_board: setup.on_board(player),
                    off: setup.off.map(|off| off[player]),
                }),
                shared,
            });
        }
        let turn = setup.turn;
        Ok(Position {
            variant,
            turn,
            board: Board {
                me: sides[turn],
                opp: sides[!turn],
            },
        })
    }

    /// The setup of this position (with off counts). Total.
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        let mut setup = Setup::empty(self.turn);
        let mut off = ByPlayer { x: 0, o: 0 };
        for player in Player::ALL {
            let side = self.side(player);
            setup.points[player].copy_from_slice(&side[1..25]);
            setup.bar[player] = side[25];
            off[player] = side[0];
        }
        setup.off = Some(off);
        setup
    }

    /// The variant.
    #[must_use]
    pub const fn variant(&self) -> BackgammonVariant {
        self.variant
    }

    /// The player on roll.
    #[must_use]
    pub const fn turn(&self) -> Player {
        self.turn
    }

    /// The checkers of `player` from its own view: index 0 borne off, 1 to
    /// 24 its points, 25 its bar.
    #[must_use]
    pub const fn side(&self, player: Player) -> &[u8; 26] {
        if matches!(
            (player, self.turn),
            (Player::X, Player::X) | (Player::O, Player::O)
        ) {
            &self.board.me
        } else {
            &self.board.opp
        }
    }

    /// The same checkers with the other player on roll.
    #[must_use]
    pub fn swap_turn(&self) -> Position {
        Position {
            variant: self.variant,
            turn: !self.turn,
            board: self.board.swapped(),
        }
    }

    /// Pips `player` needs to bear off every checker (the bar counts 25).
    #[must_use]
    pub fn pip_count(&self, player: Player) -> u32 {
        pips(self.side(player))
    }

    /// The winner and the kind of win, once a player has borne off every
    /// checker; `None` while the game goes on.
    #[must_use]
    pub fn outcome(&self) -> Option<GameOutcome> {
        let winner = if self.board.me_left() == 0 {
            self.turn
        } else if self.board.opp_left() == 0 {
            !self.turn
        } else {
            return None;
        };
        let loser = self.side(!winner);
        let result = if loser[0] > 0 {
            GameResult::Single
        } else if loser[19..26].iter().any(|&n| n > 0) {
            GameResult::Backgammon
        } else {
            GameResult::Gammon
        };
        Some(GameOutcome { winner, result })
    }

    /// Every legal play for `dice`, one per distinct resulting position;
    /// empty when the player cannot move or the game is over.
    #[must_use]
    pub fn legal_plays(&self, dice: Dice) -> PlayList {
        movegen::legal_plays(&self.board, dice)
    }

    /// Whether the player on roll has a legal play for `dice`:
    /// `!self.legal_plays(dice).is_empty()` without making the plays (a
    /// play exists exactly when one die can be played alone), as a
    /// referee asks after each roll.
    #[must_use]
    pub fn can_play(&self, dice: Dice) -> bool {
        self.outcome().is_none()
            && [dice.first(), dice.second()].iter().any(|&die| {
                let d = die.get();
                (1..=25).any(|at| self.board.single_move(at, d).is_some())
            })
    }

    /// The position after `play` with the opponent on roll. The play is not
    /// checked against the dice.
    ///
    /// # Panics
    /// When a move starts where the mover has no checker or lands on a
    /// point held by two or more opposing checkers. Plays from
    /// [`Position::legal_plays`] never panic.
    pub fn play_unchecked(&mut self, play: &Play) {
        for mv in play.moves() {
            let from = usize::from(mv.from().get());
            assert!(self.board.me[from] > 0, "no checker to move");
            let to = mv.to().get();
            assert!(
                to == 0 || self.board.opp_at(to) < 2,
                "landing on a blocked point"
            );
            self.board.apply(*mv);
        }
        *self = self.swap_turn();
    }

    /// The position after a play from [`Position::legal_plays`] (opponent on
    /// roll).
    ///
    /// # Panics
    /// As [`Position::play_unchecked`].
    #[must_use]
    pub fn after(&self, play: &Play) -> Position {
        let mut next = *self;
        next.play_unchecked(play);
        next
    }

    /// The position after `play`, one of this position's
    /// [`Position::legal_plays`] (opponent on roll): [`Position::after`]
    /// without the checks such a play passes by construction (each move
    /// starts on one of the mover's checkers and lands where the opponent
    /// has at most one), for the answer writers, which make the position
    /// after every play of a list. For any other play the position has no
    /// meaning (a count taken below 0 wraps) but there is no panic.
    #[must_use]
    #[inline]
    pub fn after_legal(&self, play: &Play) -> Position {
        let Board { mut me, mut opp } = self.board;
        // A point is 0 to 25: every index is within the sides.
        for mv in play.moves() {
            let (from, to) = (usize::from(mv.from().get()), usize::from(mv.to().get()));
            me[from] = me[from].wrapping_sub(1);
            me[to] = me[to].wrapping_add(1);
            // A blot of the opponent's where it lands (points 1 to 24) is hit.
            if to != 0 && opp[25 - to] == 1 {
                opp[25 - to] = 0;
                opp[25] = opp[25].wrapping_add(1);
            }
        }
        Position {
            variant: self.variant,
            turn: !self.turn,
            board: Board { me: opp, opp: me },
        }
    }

    /// Whether `play` is legal for `dice`: it reaches the position of one of
    /// the legal plays, hitting the same blots.
    #[must_use]
    pub fn is_legal(&self, play: &Play, dice: Dice) -> bool {
        self.check_play(play, dice).is_ok()
    }

    /// Plays `play` for `dice` and returns the new position (opponent on
    /// roll) with the legal play it matched (with its hits).
    ///
    /// # Errors
    /// [`IllegalPlay`] with the precise reason when the play is not legal.
    pub fn play(&self, play: &Play, dice: Dice) -> Result<(Position, Play), IllegalPlay> {
        let legal = self.check_play(play, dice)?;
        Ok((self.after(&legal), legal))
    }

    /// The legal play (from the list) that `play` is, or why it is none.
    fn check_play(&self, play: &Play, dice: Dice) -> Result<Play, IllegalPlay> {
        if self.outcome().is_some() {
            return Err(IllegalPlay::GameOver);
        }
        let legal = self.legal_plays(dice);
        if legal.is_empty() && play.is_empty() {
            return Ok(Play::EMPTY);
        }
        // Same position as a legal play, and the moves are a sequence the dice allow.
        if let Some(key) = movegen::key_after(&self.board, play.moves())
            && let Some(i) = legal.position_of(&self.board, key)
            && movegen::plays_with_prefix(&self.board, dice, play.moves(), legal.dice_pips())
                .iter()
                .any(|p| p.len() == play.len())
        {
            return Ok(*legal.get(i).unwrap_or(play));
        }
        Err(self.explain(play.moves(), dice))
    }

    /// What is known about an unfinished turn: `moves` are single-die moves
    /// in the order played.
    ///
    /// # Errors
    /// [`IllegalPlay`] when no legal play begins with these moves.
    pub fn partial_play(&self, moves: &[Move], dice: Dice) -> Result<PartialPlay, IllegalPlay> {
        if self.outcome().is_some() {
            return Err(IllegalPlay::GameOver);
        }
        let legal = self.legal_plays(dice);
        let max = legal.moves_per_play();
        if moves.len() > max {
            return Err(if max == 0 {
                IllegalPlay::NotLegal
            } else {
                IllegalPlay::TooManyMoves
            });
        }
        let matching = movegen::plays_with_prefix(&self.board, dice, moves, legal.dice_pips());
        let Some(first) = matching.get(0) else {
            return Err(self.explain(moves, dice));
        };
        let mut remaining: alloc::vec::Vec<Die> = dice_of(dice);
        for mv in &first.moves()[..moves.len()] {
            let used = die_used(*mv, &remaining);
            if let Some(i) = remaining.iter().position(|&d| Some(d) == used) {
                remaining.remove(i);
            }
        }
        let complete = moves.len() == max;
        if complete || legal.is_empty() {
            remaining.clear();
        } else {
            remaining.truncate(max - moves.len());
        }
        remaining.sort_unstable_by(|a, b| b.cmp(a));
        Ok(PartialPlay {
            moves: first.moves()[..moves.len()].to_vec(),
            remaining,
            complete,
            completions: matching.len(),
        })
    }

    /// The most precise reason why `hops` (moves of one checker each, a
    /// hop may use several dice, in any order) is not a legal play.
    pub(crate) fn explain(&self, hops: &[Move], dice: Dice) -> IllegalPlay {
        if self.outcome().is_some() {
            return IllegalPlay::GameOver;
        }
        let legal = self.legal_plays(dice);
        let max = legal.moves_per_play();
        if hops.is_empty() {
            return if legal.is_empty() {
                IllegalPlay::NotLegal
            } else {
                IllegalPlay::MustMove
            };
        }
        if legal.is_empty() {
            return IllegalPlay::NoMovePossible;
        }
        let mut hops = hops.to_vec();
        hops.sort_by_key(|m| core::cmp::Reverse(m.from()));
        let mut b = self.board;
        let mut dice_left = dice_of(dice);
        let mut used: alloc::vec::Vec<Die> = alloc::vec::Vec::new();
        for mv in &hops {
            let (from, to) = (mv.from(), mv.to());
            if to.get() >= from.get() || to.is_bar() || from.is_off() {
                return IllegalPlay::Backwards(from, to);
            }
            if b.me[usize::from(from.get())] == 0 {
                return IllegalPlay::NoChecker(from);
            }
            if b.me[25] > 0 && !from.is_bar() {
                return IllegalPlay::MustEnterFirst;
            }
            match cover(&b, from.get(), to.get(), &dice_left) {
                Ok((after, dice_used)) => {
                    for d in dice_used {
                        if let Some(i) = dice_left.iter().position(|&x| x == d) {
                            dice_left.remove(i);
                        }
                        used.push(d);
                    }
                    b = after;
                }
                Err(reason) => return reason,
            }
        }
        if used.len() > max {
            return IllegalPlay::TooManyMoves;
        }
        if used.len() < max {
            return if dice.is_double() {
                IllegalPlay::MoreMovesPossible(max as u8)
            } else {
                IllegalPlay::BothDiceCanBePlayed
            };
        }
        if max == 1 && !dice.is_double() && used.first() == Some(&dice.low()) {
            return IllegalPlay::LargerDieMustBePlayed;
        }
        IllegalPlay::NotLegal
    }
}

/// `side[p]` checkers `p` pips from home, summed over `p`: eight counts at
/// a time by multiplication while every count is at most 15 and the side
/// has at most 36 checkers (every position: 15 at most), else point by
/// point.
fn pips(side: &[u8; 26]) -> u32 {
    // Byte b of the multiplier is 7 - b: byte 7 of `w * WEIGHTS` is then
    // the sum of k times byte k of `w`.
    const WEIGHTS: u64 = 0x0001_0203_0405_0607;
    let word = |at: usize| {
        let mut w = [0u8; 8];
        let n = (side.len() - at).min(8);
        w[..n].copy_from_slice(&side[at..at + n]);
        u64::from_le_bytes(w)
    };
    let words = [word(0), word(8), word(16), word(24)];
    // Counts below 16 sum into byte 7 without carries (8 times 15).
    let checkers = |w: u64| w.wrapping_mul(BYTES) >> 56;
    if (words[0] | words[1] | words[2] | words[3]) & (0xF0 * BYTES) == 0
        && words.iter().map(|&w| checkers(w)).sum::<u64>() <= 36
    {
        // Bytes 0 to 7 of `w * WEIGHTS` each sum at most 7 times the
        // word's checkers (36 at most: 252), so none carries.
        let mut pips = 0;
        for (i, &w) in words.iter().enumerate() {
            pips += 8 * i as u64 * checkers(w) + (w.wrapping_mul(WEIGHTS) >> 56);
        }
        return pips as u32;
    }
    side.iter()
        .enumerate()
        .map(|(p, &n)| p as u32 * u32::from(n))
        .sum()
}

/// Moves one checker from `from` to `to` on `b` with some of `dice`, each
/// die a legal single move; the board after and the dice used, or the most
/// precise reason it cannot be done.
fn cover(
    b: &Board,
    from: u8,
    to: u8,
    dice: &[Die],
) -> Result<(Board, alloc::vec::Vec<Die>), IllegalPlay> {
    let mut reason = IllegalPlay::DistanceNotRolled(Point::new(from), Point::new(to));
    let mut path = alloc::vec::Vec::new();
    if cover_from(b, from, to, dice, 0, &mut path, &mut reason).is_some() {
        let mut after = *b;
        let mut at = from;
        for &d in &path {
            let next = at.saturating_sub(d.get());
            after.apply(Move::new(Point::new(at), Point::new(next)));
            at = next;
        }
        return Ok((after, path));
    }
    Err(reason)
}

fn cover_from(
    b: &Board,
    at: u8,
    to: u8,
    dice: &[Die],
    used_mask: u8,
    path: &mut alloc::vec::Vec<Die>,
    reason: &mut IllegalPlay,
) -> Option<()> {
    for (i, &d) in dice.iter().enumerate() {
        if used_mask & (1 << i) != 0
            || (i > 0 && dice[i - 1] == d && used_mask & (1 << (i - 1)) == 0)
        {
            continue;
        }
        let dv = d.get();
        let next = if at > dv {
            at - dv
        } else {
            // Bearing off.
            if to != 0 {
                continue;
            }
            if let Some(p) = (7..=25).rev().find(|&p| b.me[p] > 0) {
                *reason = IllegalPlay::CannotBearOff(Point::new(p as u8));
                continue;
            }
            let highest = (1..=6u8)
                .rev()
                .find(|&p| b.me[usize::from(p)] > 0)
                .unwrap_or(0);
            if at != dv && at != highest {
                continue;
            }
            0
        };
        if next < to {
            continue;
        }
        if next != 0 && b.opp_at(next) >= 2 {
            *reason = IllegalPlay::Blocked(Point::new(next));
            continue;
        }
        let mut after = *b;
        after.apply(Move::new(Point::new(at), Point::new(next)));
        path.push(d);
        if next == to
            || cover_from(&after, next, to, dice, used_mask | (1 << i), path, reason).is_some()
        {
            return Some(());
        }
        path.pop();
    }
    None
}

/// The dice of a roll as single moves: two, or four for doubles.
fn dice_of(dice: Dice) -> alloc::vec::Vec<Die> {
    if dice.is_double() {
        alloc::vec![dice.first(); 4]
    } else {
        alloc::vec![dice.high(), dice.low()]
    }
}

/// The die a legal single move uses, preferring an exact match.
fn die_used(mv: Move, dice: &[Die]) -> Option<Die> {
    let (from, to) = (mv.from().get(), mv.to().get());
    if to == 0 {
        dice.iter().copied().filter(|d| d.get() >= from).min()
    } else {
        dice.iter().copied().find(|d| d.get() == from - to)
    }
}

/// The 4 000 checked-in benchmark positions (`core/benches/data`), each
/// with its line, for tests that go over many positions.
#[cfg(test)]
pub(crate) fn benchmark_positions() -> impl Iterator<Item = (&'static str, Position)> {
    use crate::notation::position_id::PositionId;
    let data = include_str!("../benches/data/positions.txt");
    data.lines().filter(|l| !l.starts_with('#')).map(|line| {
        let id: PositionId = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        let setup = id.to_setup(Player::X);
        (
            line,
            Position::from_setup(&setup, BackgammonVariant::Standard).unwrap(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use proptest::prelude::*;

    #[test]
    fn can_play_says_whether_there_are_legal_plays() {
        // The benchmark positions, each from both sides, for all 21 rolls.
        let (mut cases, mut passes) = (0, 0);
        for (line, pos) in benchmark_positions() {
            for pos in [pos, pos.swap_turn()] {
                for a in 1..=6 {
                    for b in a..=6 {
                        let dice = Dice::new(Die::new(a), Die::new(b));
                        let none = pos.legal_plays(dice).is_empty();
                        assert_eq!(pos.can_play(dice), !none, "{line}: {a}-{b}");
                        cases += 1;
                        passes += usize::from(none);
                    }
                }
            }
        }
        assert!(
            cases > 150_000 && passes > 1_000,
            "{cases} cases, {passes} passes"
        );
    }

    proptest! {
        #[test]
        fn pips_sum_each_count_times_its_distance(
            side in prop_oneof![
                prop::array::uniform26(prop_oneof![4 => Just(0u8), 1 => 0u8..=4]),
                prop::array::uniform26(0u8..=15),
                prop::array::uniform26(any::<u8>()),
            ]
        ) {
            // Counts as positions have them (the multiplications), and too
            // many checkers or too large counts (point by point).
            let plain: u32 = (0..26u32).map(|p| p * u32::from(side[p as usize])).sum();
            prop_assert_eq!(pips(&side), plain);
        }
    }

    /// `after_legal` skips the checks, not the hits: on every play of the
    /// 4 000 checked-in positions (core/benches/data, contact, race,
    /// bear-off and bar positions) for all 21 rolls it gives `after`'s
    /// position.
    #[test]
    fn after_legal_is_after_for_every_legal_play() {
        use crate::notation::position_id::PositionId;
        let data = include_str!("../benches/data/positions.txt");
        let (mut plays, mut hits) = (0, 0);
        for line in data
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let id: PositionId = line.split_whitespace().nth(1).unwrap().parse().unwrap();
            let position =
                Position::from_setup(&id.to_setup(Player::X), BackgammonVariant::Standard).unwrap();
            for dice in Dice::ALL_21 {
                for play in position.legal_plays(dice).iter() {
                    assert_eq!(
                        position.after_legal(play),
                        position.after(play),
                        "{line} {play}"
                    );
                    plays += 1;
                    hits += usize::from(play.moves().iter().any(|m| m.is_hit()));
                }
            }
        }
        assert!(
            plays > 1_000_000 && hits > 10_000,
            "{plays} plays, {hits} hits"
        );
    }

    #[test]
    fn position_error_says_it_with_the_numbers() {
        let mut setup = Setup::start(BackgammonVariant::Standard, Player::X);
        setup.off = Some(ByPlayer { x: 1, o: 0 });
        setup.points.o[0] = 1;
        setup.points.o[5] = 4;
        let err = Position::from_setup(&setup, BackgammonVariant::Standard).unwrap_err();
        assert_eq!(
            err.kinds(),
            PositionErrorKinds::X_CHECKER_COUNT | PositionErrorKinds::SHARED_POINT
        );
        assert_eq!(
            err.to_string(),
            "x has 16 checkers (15 on the board and bar, 1 off) but standard has 15; \
             point 24 (from x's side) holds checkers of both players"
        );
        assert_eq!(
            err.checker_count(Player::X),
            CheckerCount {
                on_board: 15,
                off: Some(1)
            }
        );

        let mut setup = Setup::start(BackgammonVariant::Standard, Player::O);
        setup.off = None;
        setup.points.x[13] = 1;
        setup.points.x[10] = 1;
        setup.points.o[10] = 1;
        setup.points.o[13] = 1;
        let err = Position::from_setup(&setup, BackgammonVariant::Standard).unwrap_err();
        assert_eq!(
            err.to_string(),
            "x has 17 checkers on the board and bar but standard has 15; \
             o has 17 checkers on the board and bar but standard has 15; \
             point 11, 14 (from x's side) holds checkers of both players"
        );
        assert_eq!(err.shared_points().count(), 2);

        let mut done = Setup::empty(Player::X);
        done.off = Some(ByPlayer { x: 3, o: 3 });
        let err = Position::from_setup(&done, BackgammonVariant::Hypergammon3).unwrap_err();
        assert_eq!(err.kinds(), PositionErrorKinds::BOTH_FINISHED);
        assert_eq!(err.to_string(), "both players have borne off every checker");
    }
}

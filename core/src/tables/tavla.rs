//! Tavla's hit-and-run option ([`HitAndRun`]) on the backgammon
//! [`Position`]: a separate generator, so the standard one stays as fast
//! as it is.
//!
//! With [`HitAndRun::ForbiddenInHome`] a checker that hits a blot on the
//! mover's points 1 to 6 stays there for the rest of the turn. Checkers
//! look alike, so the rule is kept as a count: on a point where the mover
//! hit this turn, one checker (the hitter) may not leave; others that
//! arrive later may. A blot is hit on a point at most once a turn (the
//! hitter then holds the point), so that count is 0 or 1.
//!
//! Where the opponent has no blot in the mover's home board nothing can be
//! hit there, and the standard generator answers. Elsewhere the standard
//! generator's plays that move a hitter on are dropped
//! (`allowed_standard_plays`), and the search below is left for the turns
//! where that drops every play (the rule then makes fewer dice playable).
//!
//! The restriction is on sequences of single-die moves, so the dice rules
//! are applied to the sequences it allows: both dice (all four of a
//! double) when an allowed sequence uses them, else the larger die when an
//! allowed sequence uses it, else what can be played. The generator works
//! breadth first, one die at a time, keeping one state per position at
//! each depth (the position says which hitters are held: those of its
//! home-board hits); the plays are the deepest level's states, one per
//! resulting position (hits included, as the standard generator counts
//! them).

use alloc::vec::Vec;

use crate::board::Board;
use crate::dice::{Dice, Die};
use crate::movegen::{self, PlayList};
use crate::notation::move_text::{IllegalMoveText, MoveText};
use crate::play::{IllegalPlay, Move, PartialPlay, Play};
use crate::point::Point;
use crate::position::Position;
use crate::tables::movegen::KeySet;
use crate::tables::rules::HitAndRun;

/// A position reached during the turn.
#[derive(Debug, Clone, Copy)]
struct Node {
    b: Board,
    /// The mover's counts (4 bits each) and the points hit (bit `103 + p`).
    key: u128,
    /// Bit `p` (1..=6): the hitter on `p` may not move on.
    locked: u8,
    play: Play,
}

impl Node {
    fn start(position: &Position) -> Node {
        let b = Board {
            me: *position.side(position.turn()),
            opp: *position.side(!position.turn()),
        };
        Node {
            b,
            key: movegen::initial_key(&b.me),
            locked: 0,
            play: Play::EMPTY,
        }
    }

    /// Whether the hitter on `from` is the only checker there.
    fn held(&self, from: u8) -> bool {
        from <= 6 && self.locked & (1 << from) != 0 && self.b.me[usize::from(from)] == 1
    }

    /// Where a single move of `d` from `from` lands (0: off) under the
    /// movement rules of backgammon, or `None`. The lock is not checked.
    fn target(&self, from: u8, d: u8) -> Option<u8> {
        let b = &self.b;
        if b.me[usize::from(from)] == 0 || (b.me[25] > 0 && from != 25) {
            return None;
        }
        if from > d {
            let to = from - d;
            return (b.opp_at(to) < 2).then_some(to);
        }
        if b.me[7..26].iter().any(|&n| n > 0) {
            return None;
        }
        let highest = (1..=6u8).rev().find(|&p| b.me[usize::from(p)] > 0);
        (from == d || highest == Some(from)).then_some(0)
    }

    fn moved(&self, from: u8, to: u8) -> Node {
        let mut n = *self;
        let hit = n.b.apply(Move::new(Point::new(from), Point::new(to)));
        n.key = n.key - (1u128 << (4 * u32::from(from))) + (1u128 << (4 * u32::from(to)));
        if hit {
            n.key |= 1u128 << (103 + u32::from(to));
            if to <= 6 {
                n.locked |= 1 << to;
            }
        }
        n.play
            .push(Move::with_hit(Point::new(from), Point::new(to), hit));
        n
    }

    /// The allowed single moves of die `d`, added to `out`.
    fn expand(&self, d: u8, out: &mut Vec<Node>) {
        for from in (1..=25u8).rev() {
            if !self.held(from)
                && let Some(to) = self.target(from, d)
            {
                out.push(self.moved(from, to));
            }
        }
    }
}

/// The key of a node as it identifies the final position (hits included).
/// The locks follow from it (a lock on `p` is a hit on `p <= 6`), so it
/// identifies the state within the turn too.
fn result_key(n: &Node) -> u128 {
    n.key
}

/// The nodes one allowed move of `d` away from `level`, one per key
/// (`seen` across calls that share it). The key is checked before the node
/// is built.
fn expand_all(level: &[Node], d: u8, seen: &mut KeySet, out: &mut Vec<Node>) {
    for n in level {
        for from in (1..=25u8).rev() {
            if n.b.me[usize::from(from)] == 0 || n.held(from) {
                continue;
            }
            let Some(to) = n.target(from, d) else {
                continue;
            };
            let mut key = n.key - (1u128 << (4 * u32::from(from))) + (1u128 << (4 * u32::from(to)));
            if to != 0 && n.b.opp_at(to) == 1 {
                key |= 1u128 << (103 + u32::from(to));
            }
            if seen.insert(key) {
                let m = n.moved(from, to);
                debug_assert_eq!(m.key, key);
                out.push(m);
            }
        }
    }
}

/// The legal final nodes under the restriction and the dice pips they use.
fn legal_nodes(position: &Position, dice: Dice) -> (Vec<Node>, u8) {
    if position.outcome().is_some() {
        return (Vec::new(), 0);
    }
    let start = [Node::start(position)];
    let (hi, lo) = (dice.high().get(), dice.low().get());
    let mut seen = KeySet::new();
    if dice.is_double() {
        let mut level = start.to_vec();
        let mut depth = 0u8;
        while depth < 4 {
            let mut next = Vec::new();
            seen.clear();
            expand_all(&level, hi, &mut seen, &mut next);
            if next.is_empty() {
                break;
            }
            level = next;
            depth += 1;
        }
        if depth == 0 {
            return (Vec::new(), 0);
        }
        (level, depth * hi)
    } else {
        let (mut first_hi, mut first_lo) = (Vec::new(), Vec::new());
        expand_all(&start, hi, &mut seen, &mut first_hi);
        seen.clear();
        expand_all(&start, lo, &mut seen, &mut first_lo);
        seen.clear();
        let mut both = Vec::new();
        expand_all(&first_hi, lo, &mut seen, &mut both);
        expand_all(&first_lo, hi, &mut seen, &mut both);
        if !both.is_empty() {
            (both, hi + lo)
        } else if !first_hi.is_empty() {
            (first_hi, hi)
        } else {
            let pips = if first_lo.is_empty() { 0 } else { lo };
            (first_lo, pips)
        }
    }
}

/// Whether the opponent has a blot on one of the mover's points 1 to 6
/// (the mover's point `p` is the opponent's `25 - p`).
fn home_blot(position: &Position) -> bool {
    position.side(!position.turn())[19..25].contains(&1)
}

/// Whether the moves of `play`, in their order, move a hitter on: a
/// checker leaves a point of the mover's home board where this play hit,
/// while it is the only checker there (the count rule of the module's
/// doc). A blot's point holds no checker of the mover before the hit, so
/// the count there is the landings since the hit minus the departures.
fn moves_a_hitter_on(play: &Play) -> bool {
    if play.hit_mask() & HOME == 0 {
        return false;
    }
    let (mut locked, mut count) = (0u8, [0u8; 7]);
    for mv in play.moves() {
        let (from, to) = (usize::from(mv.from().get()), usize::from(mv.to().get()));
        if from <= 6 && locked & (1 << from) != 0 {
            if count[from] == 1 {
                return true;
            }
            count[from] -= 1;
        }
        if (1..=6).contains(&to) {
            if mv.is_hit() {
                locked |= 1 << to;
                count[to] = 1;
            } else if locked & (1 << to) != 0 {
                count[to] += 1;
            }
        }
    }
    false
}

/// Bits 1 to 6: the mover's home board.
const HOME: u32 = 0x7E;

/// The plays under [`HitAndRun::ForbiddenInHome`] from the standard
/// generator's, or `None` where the search is needed.
///
/// Every sequence the rule allows is a sequence of backgammon, so the
/// standard list (one play per position, each using as much of the roll
/// as any sequence can) holds every position the rule allows with that
/// many dice. A position of the list is not allowed exactly when it
/// leaves no checker on a home point where it hit: every sequence to it
/// hit there (a hit is part of the position) and moved every checker that
/// landed there on, the hitter included; otherwise some sequence keeps the
/// hitter. The list's play for a position shows which, in the order it was
/// generated:
///
/// - A non-double's play is two moves. One that hit on `p` and moves on
///   from `p` leaves it empty (the mover had no checker on `p` before the
///   hit); one that keeps a checker on `p` does not move on from it.
/// - A double's play is generated with its starting points in
///   non-increasing order, so every landing on a point comes before every
///   departure from it: a departure finds the hitter alone only when it
///   is the point's last checker and the point stays empty, and a play
///   that keeps a checker there never moves the hitter on.
///
/// So the plays that do not move a hitter on are the allowed plays with
/// the most dice, unless there is none: then fewer dice are played, and
/// the search finds those plays.
fn allowed_standard_plays(position: &Position, dice: Dice) -> Option<PlayList> {
    let list = position.legal_plays(dice);
    if !list.iter().any(moves_a_hitter_on) {
        return Some(list);
    }
    debug_assert!(
        !dice.is_double()
            || list
                .iter()
                .all(|p| p.moves().windows(2).all(|w| w[0].from() >= w[1].from()))
    );
    let pips = list.dice_pips();
    let mut kept: Vec<Play> = Vec::with_capacity(list.len());
    kept.extend(list.iter().filter(|p| !moves_a_hitter_on(p)).copied());
    (!kept.is_empty()).then(|| movegen::play_list(kept, pips))
}

impl HitAndRun {
    /// Every legal play of `position` for `dice` under this rule, one per
    /// distinct resulting position. [`HitAndRun::Allowed`] is
    /// [`Position::legal_plays`] itself.
    #[must_use]
    pub fn legal_plays(self, position: &Position, dice: Dice) -> PlayList {
        match self {
            HitAndRun::Allowed => position.legal_plays(dice),
            // No opposing blot in the mover's home board: nothing can be
            // hit there, every sequence is allowed, and the standard
            // generator gives the same plays.
            HitAndRun::ForbiddenInHome if !home_blot(position) => position.legal_plays(dice),
            HitAndRun::ForbiddenInHome => {
                if let Some(list) = allowed_standard_plays(position, dice) {
                    return list;
                }
                let (nodes, pips) = legal_nodes(position, dice);
                movegen::play_list(nodes.into_iter().map(|n| n.play).collect(), pips)
            }
        }
    }

    /// Checks `play` (single-die moves, in any order that the rule allows)
    /// and returns the position after it with the legal play it matched.
    ///
    /// # Errors
    /// [`IllegalPlay`] with the precise reason, [`IllegalPlay::HitAndRun`]
    /// when the only way to make the moves moves a home-board hitter on.
    pub fn play(
        self,
        position: &Position,
        play: &Play,
        dice: Dice,
    ) -> Result<(Position, Play), IllegalPlay> {
        if self == HitAndRun::Allowed {
            return position.play(play, dice);
        }
        if position.outcome().is_some() {
            return Err(IllegalPlay::GameOver);
        }
        let (legal, _) = legal_nodes(position, dice);
        if play.is_empty() {
            return if legal.is_empty() {
                Ok((position.swap_turn(), Play::EMPTY))
            } else {
                Err(IllegalPlay::MustMove)
            };
        }
        let hops: Vec<Move> = play.moves().to_vec();
        let mut search = Search::new(&hops, dice);
        search.run(&Node::start(position));
        if let Some(found) = search.matching(&legal).first() {
            return Ok((position.after(found), *found));
        }
        Err(search.reason(position, &hops, dice, &legal))
    }

    /// The legal play a move text means under this rule, as
    /// [`MoveText::to_play`] reads it (every point named is a landing
    /// point; the route inside a hop of several dice is open; `*` marks
    /// decide between plays that differ only in their hits).
    ///
    /// # Errors
    /// As [`MoveText::to_play`]; [`IllegalPlay::HitAndRun`] when the text
    /// can only be played by moving a home-board hitter on.
    pub fn play_text(
        self,
        position: &Position,
        text: &MoveText,
        dice: Dice,
    ) -> Result<Play, IllegalMoveText> {
        if self == HitAndRun::Allowed {
            return text.to_play(position, dice);
        }
        let illegal = IllegalMoveText::Illegal;
        if position.outcome().is_some() {
            return Err(illegal(IllegalPlay::GameOver));
        }
        let (legal, _) = legal_nodes(position, dice);
        let mover = position.side(position.turn());
        let mut counts: [i32; 26] = core::array::from_fn(|i| i32::from(mover[i]));
        let mut hops = Vec::new();
        let mut marked = 0u32;
        for segment in &text.segments {
            for _ in 0..segment.count {
                for pair in segment.path.windows(2) {
                    let (from, to) = (pair[0].0, pair[1].0);
                    if to >= from || to.is_bar() || from.is_off() {
                        return Err(illegal(IllegalPlay::Backwards(from, to)));
                    }
                    if pair[1].1 {
                        marked |= 1 << to.get();
                    }
                    counts[usize::from(from.get())] -= 1;
                    counts[usize::from(to.get())] += 1;
                    hops.push(Move::new(from, to));
                }
            }
        }
        if let Some(p) = counts.iter().position(|&c| c < 0) {
            return Err(illegal(IllegalPlay::NoChecker(Point::new(p as u8))));
        }
        if hops.is_empty() {
            return if legal.is_empty() {
                Ok(Play::EMPTY)
            } else {
                Err(illegal(IllegalPlay::MustMove))
            };
        }
        let mut search = Search::new(&hops, dice);
        search.run(&Node::start(position));
        let candidates: Vec<(Play, u32)> = search
            .matching(&legal)
            .into_iter()
            .map(|p| (p, p.hit_mask()))
            .collect();
        let marked_ok: Vec<&(Play, u32)> = candidates
            .iter()
            .filter(|(_, hits)| marked & !hits == 0)
            .collect();
        match (candidates.len(), marked_ok.len()) {
            (_, 1) => Ok(marked_ok[0].0),
            (0, _) => Err(illegal(search.reason(position, &hops, dice, &legal))),
            (_, 0) => {
                // A marked hit that only a hitter moving on could make.
                if let Some(p) = search.violation {
                    return Err(illegal(IllegalPlay::HitAndRun(p)));
                }
                let p = (marked & !candidates[0].1).trailing_zeros() as u8;
                Err(illegal(IllegalPlay::NoHit(Point::new(p))))
            }
            _ => {
                let exact: Vec<_> = marked_ok
                    .iter()
                    .filter(|(_, hits)| *hits == marked)
                    .collect();
                match exact.as_slice() {
                    [one] => Ok(one.0),
                    _ => Err(IllegalMoveText::Ambiguous),
                }
            }
        }
    }

    /// What is known about an unfinished turn under this rule: `moves` are
    /// single-die moves in the order played (as
    /// [`Position::partial_play`]).
    ///
    /// # Errors
    /// [`IllegalPlay`] when no legal play begins with these moves.
    pub fn partial_play(
        self,
        position: &Position,
        moves: &[Move],
        dice: Dice,
    ) -> Result<PartialPlay, IllegalPlay> {
        if self == HitAndRun::Allowed {
            return position.partial_play(moves, dice);
        }
        if position.outcome().is_some() {
            return Err(IllegalPlay::GameOver);
        }
        let (legal, _) = legal_nodes(position, dice);
        let max = legal.first().map_or(0, |n| n.play.len());
        if moves.len() > max {
            return Err(if max == 0 {
                IllegalPlay::NotLegal
            } else {
                IllegalPlay::TooManyMoves
            });
        }
        let legal_keys: Vec<u128> = legal.iter().map(result_key).collect();
        // Every way to play the moves in order, one die each, then every
        // way to play the rest of the legal length with the dice left.
        let mut found: Option<(Play, Vec<u8>)> = None;
        let mut completions: Vec<u128> = Vec::new();
        let mut violation = None;
        prefixes(
            &Node::start(position),
            moves,
            &dice.to_play(),
            &mut |node, left| {
                let mut keys = Vec::new();
                finish(node, left, max - moves.len(), &mut keys);
                let before = completions.len();
                completions.extend(keys.into_iter().filter(|k| legal_keys.contains(k)));
                if completions.len() > before && found.is_none() {
                    found = Some((node.play, left.to_vec()));
                }
            },
            &mut violation,
        );
        completions.sort_unstable();
        completions.dedup();
        let Some((play, mut remaining)) = found else {
            if let Some(p) = violation {
                return Err(IllegalPlay::HitAndRun(p));
            }
            return Err(position.explain(moves, dice));
        };
        let complete = moves.len() == max;
        if complete {
            remaining.clear();
        } else {
            remaining.truncate(max - moves.len());
        }
        Ok(PartialPlay {
            moves: play.moves().to_vec(),
            remaining: remaining.into_iter().map(Die::new).collect(),
            complete,
            completions: completions.len(),
        })
    }
}

/// Plays `moves` in order from `node`, each with one die of `left` (and the
/// lock kept); calls `done` with each node reached and the dice left. The
/// first point where only moving a hitter on would do is kept in
/// `violation`.
fn prefixes(
    node: &Node,
    moves: &[Move],
    left: &[u8],
    done: &mut dyn FnMut(&Node, &[u8]),
    violation: &mut Option<Point>,
) {
    let Some((mv, rest)) = moves.split_first() else {
        done(node, left);
        return;
    };
    let (from, to) = (mv.from().get(), mv.to().get());
    for (i, &d) in left.iter().enumerate() {
        if left[..i].contains(&d) || node.target(from, d) != Some(to) {
            continue;
        }
        if node.held(from) {
            violation.get_or_insert(mv.from());
            continue;
        }
        let mut others = left.to_vec();
        others.remove(i);
        prefixes(&node.moved(from, to), rest, &others, done, violation);
    }
}

/// The keys of the nodes reached from `node` by exactly `depth` more
/// allowed single moves of the dice `left`, in any order.
fn finish(node: &Node, left: &[u8], depth: usize, out: &mut Vec<u128>) {
    if depth == 0 {
        out.push(result_key(node));
        return;
    }
    for (i, &d) in left.iter().enumerate() {
        if left[..i].contains(&d) {
            continue;
        }
        let mut rest = left.to_vec();
        rest.remove(i);
        let mut next = Vec::new();
        node.expand(d, &mut next);
        for n in &next {
            finish(n, &rest, depth - 1, out);
        }
    }
}

/// Every way to make a list of hops (each from one point to a lower one,
/// possibly over several dice, each hop's checker stopping where the next
/// hop of the same checker starts) with allowed single moves of the dice.
struct Search<'a> {
    hops: &'a [Move],
    dice: Vec<u8>,
    /// Allowed realizations: the play and the dice it used.
    reached: Vec<(Node, Vec<u8>)>,
    /// The first home point where a realization needed its hitter to move
    /// on.
    violation: Option<Point>,
}

impl<'a> Search<'a> {
    fn new(hops: &'a [Move], dice: Dice) -> Search<'a> {
        Search {
            hops,
            dice: dice.to_play(),
            reached: Vec::new(),
            violation: None,
        }
    }

    fn run(&mut self, start: &Node) {
        let mut at: Vec<Option<u8>> = self.hops.iter().map(|h| Some(h.from().get())).collect();
        let mut used = Vec::new();
        self.step(start, &mut at, 0, &mut used);
    }

    /// Plays one more die for some unfinished hop; records the node once
    /// every hop is done. `at[i]` is where hop `i`'s checker stands (`None`
    /// once the hop is done).
    fn step(&mut self, node: &Node, at: &mut [Option<u8>], used_mask: u8, used: &mut Vec<u8>) {
        if at.iter().all(Option::is_none) {
            self.reached.push((*node, used.clone()));
            return;
        }
        for h in 0..self.hops.len() {
            let Some(from) = at[h] else { continue };
            let to = self.hops[h].to().get();
            for i in 0..self.dice.len() {
                let d = self.dice[i];
                let seen = (0..i).any(|j| used_mask & (1 << j) == 0 && self.dice[j] == d);
                if used_mask & (1 << i) != 0 || seen {
                    continue;
                }
                let Some(next) = node.target(from, d) else {
                    continue;
                };
                if next < to {
                    continue;
                }
                if node.held(from) {
                    self.violation.get_or_insert(Point::new(from));
                    continue;
                }
                let after = node.moved(from, next);
                at[h] = (next != to).then_some(next);
                used.push(d);
                self.step(&after, at, used_mask | (1 << i), used);
                used.pop();
                at[h] = Some(from);
            }
        }
    }

    /// The legal plays (of `legal`) that a realization reaches.
    fn matching(&self, legal: &[Node]) -> Vec<Play> {
        legal
            .iter()
            .filter(|l| self.reached.iter().any(|(n, _)| n.key == l.key))
            .map(|l| l.play)
            .collect()
    }

    /// Why no realization is a legal play.
    fn reason(
        &self,
        position: &Position,
        hops: &[Move],
        dice: Dice,
        legal: &[Node],
    ) -> IllegalPlay {
        if legal.is_empty() {
            return IllegalPlay::NoMovePossible;
        }
        let max = legal[0].play.len();
        if self.reached.is_empty() {
            return match self.violation {
                Some(p) => IllegalPlay::HitAndRun(p),
                None => match position.explain(hops, dice) {
                    // Counted against the standard plays: recount here.
                    IllegalPlay::BothDiceCanBePlayed
                    | IllegalPlay::MoreMovesPossible(_)
                    | IllegalPlay::TooManyMoves
                    | IllegalPlay::LargerDieMustBePlayed => IllegalPlay::NotLegal,
                    other => other,
                },
            };
        }
        let lengths = self.reached.iter().map(|(_, u)| u.len());
        if lengths.clone().all(|n| n > max) {
            return IllegalPlay::TooManyMoves;
        }
        if lengths.clone().all(|n| n < max) {
            return if dice.is_double() {
                IllegalPlay::MoreMovesPossible(max as u8)
            } else {
                IllegalPlay::BothDiceCanBePlayed
            };
        }
        if max == 1
            && !dice.is_double()
            && self
                .reached
                .iter()
                .all(|(_, u)| u.first() == Some(&dice.low().get()))
        {
            return IllegalPlay::LargerDieMustBePlayed;
        }
        if let Some(p) = self.violation {
            return IllegalPlay::HitAndRun(p);
        }
        IllegalPlay::NotLegal
    }
}

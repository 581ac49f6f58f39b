//! Tavla's hit-and-run option (`docs/variants.md`, "Tavla"):
//! - a naive generator written from the doc, on distinguishable checkers
//!   (every die order, every checker, a checker that hit on the mover's
//!   points 1 to 6 never moves again this turn; then the most-dice and
//!   larger-die rules over the sequences that remain; then dedup by
//!   resulting position), compared with `HitAndRun::legal_plays` on every
//!   position of seeded random Tavla games played under the option, both
//!   sides on roll, all 21 rolls;
//! - probes citing the rule's sources ([W-Tv], [BGE-Tv]) with the plays
//!   written by hand.

use std::collections::BTreeSet;

use bgref_core::notation::move_text::{IllegalMoveText, MoveText};
use bgref_core::tables::HitAndRun;
use bgref_core::{
    BackgammonVariant, ByPlayer, Dice, Die, IllegalPlay, Move, Play, Player, Point, Position, Setup,
};

#[path = "../examples/support/random_games.rs"]
mod random_games;

#[path = "support/dice_rule.rs"]
mod dice_rule;

use dice_rule::dice_rule_plays;

use random_games::Rng;

const FORBIDDEN: HitAndRun = HitAndRun::ForbiddenInHome;

// ---------------------------------------------------------------------
// The naive model: 15 checkers with names.
// ---------------------------------------------------------------------

/// The mover's checkers (25 bar, 0 off, else its point) and the
/// opponent's counts from its own view (25 bar).
#[derive(Clone)]
struct Turn {
    mine: Vec<u8>,
    theirs: [u8; 26],
    /// Checkers that hit on the mover's points 1 to 6 this turn.
    hitters: Vec<bool>,
}

/// The resulting position: the mover's counts, the opponent's counts.
type Result = ([u8; 26], [u8; 26]);

impl Turn {
    fn result(&self) -> Result {
        let mut me = [0u8; 26];
        for &p in &self.mine {
            me[usize::from(p)] += 1;
        }
        (me, self.theirs)
    }

    /// Checker `i` moved by `d`, or `None` when backgammon's rules or the
    /// hit-and-run rule forbid it.
    fn single(&self, i: usize, d: u8) -> Option<Turn> {
        let from = self.mine[i];
        if from == 0 || self.hitters[i] {
            return None;
        }
        if from != 25 && self.mine.contains(&25) {
            return None;
        }
        let mut n = self.clone();
        if from > d {
            let to = from - d;
            let theirs = &mut n.theirs[usize::from(25 - to)];
            match *theirs {
                0 => {}
                1 => {
                    *theirs = 0;
                    n.theirs[25] += 1;
                    if to <= 6 {
                        n.hitters[i] = true;
                    }
                }
                _ => return None,
            }
            n.mine[i] = to;
        } else {
            if self.mine.iter().any(|&p| p > 6) {
                return None;
            }
            if from != d && self.mine.iter().any(|&p| p > from) {
                return None;
            }
            n.mine[i] = 0;
        }
        Some(n)
    }

    fn dfs(&self, order: &[u8], used: &mut Vec<u8>, out: &mut Vec<(Result, Vec<u8>)>) {
        let mut any = false;
        if let Some(&d) = order.get(used.len()) {
            for i in 0..self.mine.len() {
                // Two checkers on one point, neither a hitter, are the same
                // choice: try the first only.
                let twin = (0..i)
                    .any(|j| self.mine[j] == self.mine[i] && self.hitters[j] == self.hitters[i]);
                if twin {
                    continue;
                }
                if let Some(n) = self.single(i, d) {
                    any = true;
                    used.push(d);
                    n.dfs(order, used, out);
                    used.pop();
                }
            }
        }
        if !any {
            out.push((self.result(), used.clone()));
        }
    }
}

fn naive_plays(pos: &Position, dice: Dice) -> BTreeSet<Result> {
    if pos.outcome().is_some() {
        return BTreeSet::new();
    }
    let me = pos.side(pos.turn());
    let mut mine = Vec::new();
    for (p, &n) in me.iter().enumerate() {
        for _ in 0..n {
            mine.push(p as u8);
        }
    }
    let turn = Turn {
        hitters: vec![false; mine.len()],
        mine,
        theirs: *pos.side(!pos.turn()),
    };
    dice_rule_plays(dice, |order, all| turn.dfs(order, &mut Vec::new(), all))
}

fn result_of(pos: &Position, play: &Play) -> Result {
    let after = pos.after(play);
    (*after.side(pos.turn()), *after.side(!pos.turn()))
}

fn fast_plays(pos: &Position, dice: Dice) -> (usize, BTreeSet<Result>) {
    let list = FORBIDDEN.legal_plays(pos, dice);
    let set = list.iter().map(|p| result_of(pos, p)).collect();
    (list.len(), set)
}

// ---------------------------------------------------------------------
// Random games.
// ---------------------------------------------------------------------

#[derive(Default, Debug)]
struct Counts {
    positions: usize,
    pairs: usize,
    plays: usize,
    /// Pairs where the option changes the legal plays.
    differ: usize,
    /// Pairs where the option changes how many dice are played.
    fewer_dice: usize,
}

fn compare_random(positions: usize, seed: u64) -> Counts {
    let mut rng = Rng(seed);
    let mut c = Counts::default();
    while c.positions < positions {
        let turn = if rng.below(2) == 0 {
            Player::X
        } else {
            Player::O
        };
        let mut pos = Position::start(BackgammonVariant::Standard, turn);
        while pos.outcome().is_none() && c.positions < positions {
            for side in [pos, pos.swap_turn()] {
                for dice in Dice::ALL_21 {
                    let (n, fast) = fast_plays(&side, dice);
                    let slow = naive_plays(&side, dice);
                    assert_eq!(n, fast.len(), "duplicate plays {side:?} {dice}");
                    assert!(
                        fast == slow,
                        "{side:?} {dice}: fast {} naive {}",
                        fast.len(),
                        slow.len()
                    );
                    let standard = side.legal_plays(dice);
                    let std_set: BTreeSet<Result> =
                        standard.iter().map(|p| result_of(&side, p)).collect();
                    if std_set != fast {
                        c.differ += 1;
                        // The option only takes plays away, unless it makes
                        // fewer dice playable.
                        let fast_list = FORBIDDEN.legal_plays(&side, dice);
                        if fast_list.moves_per_play() < standard.moves_per_play()
                            || fast_list.dice_pips() < standard.dice_pips()
                        {
                            c.fewer_dice += 1;
                        } else {
                            assert!(fast.is_subset(&std_set), "{side:?} {dice}");
                        }
                    }
                    c.pairs += 1;
                    c.plays += n;
                }
            }
            c.positions += 1;
            let dice = rng.dice();
            let list = FORBIDDEN.legal_plays(&pos, dice);
            // Every play is accepted back, as a play and in notation;
            // every standard play that is not in the list is refused.
            for play in &list {
                let (after, _) = FORBIDDEN.play(&pos, play, dice).expect("a legal play");
                assert_eq!(after, pos.after(play));
                let text: MoveText = play.to_string().parse().unwrap();
                let back = FORBIDDEN
                    .play_text(&pos, &text, dice)
                    .unwrap_or_else(|e| panic!("{pos:?} {dice} {play}: {e}"));
                assert_eq!(pos.after(&back), after, "{play}");
            }
            for play in &pos.legal_plays(dice) {
                let after = pos.after(play);
                if !list.iter().any(|p| pos.after(p) == after) {
                    assert!(FORBIDDEN.play(&pos, play, dice).is_err(), "{play}");
                }
            }
            pos = match list.get(rng.below(list.len().max(1))) {
                Some(play) => pos.after(play),
                None => pos.swap_turn(),
            };
        }
    }
    c
}

#[test]
fn naive_and_fast_generators_agree_on_random_tavla_games() {
    let c = compare_random(2000, 0x7A71_A000);
    eprintln!(
        "tavla (hit_and_run forbidden_in_home): {} positions, {} (position, roll) pairs, \
         {} plays: all agree; the option changed the plays of {} pairs ({} of them to \
         fewer dice)",
        c.positions, c.pairs, c.plays, c.differ, c.fewer_dice
    );
    // The comparison is only worth something if the option bites.
    assert!(c.differ > 100, "{c:?}");
    assert!(c.fewer_dice > 0, "{c:?}");
}

// ---------------------------------------------------------------------
// Probes ([W-Tv], [BGE-Tv]: no hit-and-run in the player's home board).
// ---------------------------------------------------------------------

fn d(a: u8, b: u8) -> Dice {
    Dice::new(Die::new(a), Die::new(b))
}

/// x's and o's checkers on their own points; the rest borne off.
fn pos(x: &[(u8, u8)], o: &[(u8, u8)]) -> Position {
    let mut s = Setup::empty(Player::X);
    for (player, list) in [(Player::X, x), (Player::O, o)] {
        for &(p, n) in list {
            s.points[player][usize::from(p - 1)] = n;
        }
    }
    let off = |list: &[(u8, u8)]| 15 - list.iter().map(|&(_, n)| n).sum::<u8>();
    s.off = Some(ByPlayer {
        x: off(x),
        o: off(o),
    });
    Position::from_setup(&s, BackgammonVariant::Standard).unwrap()
}

fn text(s: &str) -> MoveText {
    s.parse().unwrap()
}

/// The plays the option allows, as the positions they reach, against the
/// hand-written list (read with the option).
fn expect(p: &Position, dice: Dice, plays: &[&str]) {
    let (n, legal) = fast_plays(p, dice);
    let want: BTreeSet<Result> = plays
        .iter()
        .map(|t| {
            let play = FORBIDDEN
                .play_text(p, &text(t), dice)
                .unwrap_or_else(|e| panic!("{t} with {dice}: {e}"));
            result_of(p, &play)
        })
        .collect();
    assert_eq!(want.len(), plays.len(), "expected plays are distinct");
    assert_eq!((n, &legal), (want.len(), &want), "{dice}");
    assert_eq!(naive_plays(p, dice), want);
}

fn refuse(p: &Position, dice: Dice, t: &str, why: IllegalPlay) {
    assert_eq!(
        FORBIDDEN.play_text(p, &text(t), dice),
        Err(IllegalMoveText::Illegal(why)),
        "{t} with {dice}"
    );
}

#[test]
fn probe_hit_and_run_in_the_home_board() {
    // x: one checker on 8 and one on 13; o: a blot on x's 5 (o's 20) and a
    // block on x's 6 (o's 19). With 3-2 backgammon allows 8/5*/3.
    let p = pos(&[(8, 1), (13, 1)], &[(20, 1), (19, 2), (1, 12)]);
    let standard: Vec<String> = p
        .legal_plays(d(3, 2))
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert!(standard.contains(&"8/5*/3".to_string()), "{standard:?}");
    // Under the option the hitter stays on 5: 8/5*/3 is refused; 8/5*
    // with 13/11 is played; 13/10/8 (the same as 13/11/8) hits nothing.
    refuse(&p, d(3, 2), "8/5*/3", IllegalPlay::HitAndRun(Point::new(5)));
    expect(&p, d(3, 2), &["8/5* 13/11", "13/10/8"]);
    assert_eq!(p.legal_plays(d(3, 2)).len(), 3);
}

#[test]
fn tavla_defaults_to_the_sources() {
    // "Tavla / Hit-and-run": [W-Tv] and [BGE-Tv] both forbid hit-and-run
    // in the home board, so that is the default; `allowed` stays an
    // option. Portes and the other games move as backgammon whatever it
    // says.
    use bgref_core::tables::{Game, TablesRules};
    assert_eq!(HitAndRun::default(), FORBIDDEN);
    let rules = TablesRules::default();
    assert_eq!(rules, TablesRules::DEFAULT);
    assert_eq!(rules.hit_and_run_in(Game::Tavla), FORBIDDEN);
    assert_eq!(rules.hit_and_run_in(Game::Portes), HitAndRun::Allowed);
    let allowed = TablesRules {
        hit_and_run: HitAndRun::Allowed,
        ..TablesRules::DEFAULT
    };
    assert_eq!(allowed.hit_and_run_in(Game::Tavla), HitAndRun::Allowed);
    let p = pos(&[(8, 1), (13, 1)], &[(20, 1), (19, 2), (1, 12)]);
    let by_default = rules.hit_and_run_in(Game::Tavla);
    assert!(by_default.play_text(&p, &text("8/5*/3"), d(3, 2)).is_err());
    assert!(
        HitAndRun::Allowed
            .play_text(&p, &text("8/5*/3"), d(3, 2))
            .is_ok()
    );
}

#[test]
fn probe_hit_and_run_outside_the_home_board_is_allowed() {
    // [W-Tv], [BGE-Tv] restrict the home board only: 13/9*/7 hits on the
    // 9-point and moves on.
    let p = pos(&[(13, 1)], &[(16, 1), (1, 14)]);
    assert!(FORBIDDEN.play_text(&p, &text("13/9*/7"), d(4, 2)).is_ok());
    assert_eq!(
        FORBIDDEN.legal_plays(&p, d(4, 2)).len(),
        p.legal_plays(d(4, 2)).len()
    );
}

#[test]
fn probe_the_dice_rules_count_the_allowed_sequences() {
    // Both dice only by hitting and running: the sources are silent on how
    // the dice rules meet the option; we apply them to the allowed
    // sequences (docs/variants.md, "Tavla"). x: one checker on 8, o holds
    // x's 6 (o's 19), a blot on x's 5 (o's 20): with 3-2 only 8/5*/3 plays
    // both dice, so under the option one die is played: 8/5* (the 2 cannot
    // move: 8/6 is blocked).
    let p = pos(&[(8, 1)], &[(20, 1), (19, 2), (1, 12)]);
    assert_eq!(p.legal_plays(d(3, 2)).len(), 1);
    expect(&p, d(3, 2), &["8/5*"]);
    refuse(&p, d(3, 2), "8/5*/3", IllegalPlay::HitAndRun(Point::new(5)));
    // The larger die over the allowed sequences: x bears off its last
    // checker from 6 with 6-1; 6/5*/off (both dice) hits and runs, so
    // either single die remains and the larger must be played: 6/off.
    let q = pos(&[(6, 1)], &[(20, 1), (1, 14)]);
    let standard: Vec<String> = q
        .legal_plays(d(6, 1))
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(standard, ["6/5*/off"]);
    expect(&q, d(6, 1), &["6/off"]);
    refuse(&q, d(6, 1), "6/5*", IllegalPlay::LargerDieMustBePlayed);
    refuse(
        &q,
        d(6, 1),
        "6/5*/off",
        IllegalPlay::HitAndRun(Point::new(5)),
    );
}

#[test]
fn probe_another_checker_may_pass_the_hitter() {
    // Only the checker that hit is held: with 3-3, x's two checkers on 8
    // both go to 5 (the first hits), then the second moves on to 2; the
    // hitter stays, so the fourth 3 cannot be played (2/off needs 5 borne
    // off first).
    let p = pos(&[(8, 2)], &[(20, 1), (1, 14)]);
    expect(&p, d(3, 3), &["8/5*/2 8/5"]);
    refuse(&p, d(3, 3), "8/5*(2)", IllegalPlay::MoreMovesPossible(3));
    refuse(&p, d(3, 3), "8/2(2)", IllegalPlay::HitAndRun(Point::new(5)));
    // The turn entered one die at a time: after 8/5* and 8/5 one 3 is
    // left, and one play completes it.
    let hops = [
        Move::new(Point::new(8), Point::new(5)),
        Move::new(Point::new(8), Point::new(5)),
    ];
    let partial = FORBIDDEN.partial_play(&p, &hops, d(3, 3)).unwrap();
    assert_eq!(partial.remaining, [Die::new(3)]);
    assert_eq!((partial.complete, partial.completions), (false, 1));
    assert!(partial.moves[0].is_hit());
    // 8/5* then 5/2 moves the hitter on.
    let run = [
        Move::new(Point::new(8), Point::new(5)),
        Move::new(Point::new(5), Point::new(2)),
    ];
    assert_eq!(
        FORBIDDEN.partial_play(&p, &run, d(3, 3)),
        Err(IllegalPlay::HitAndRun(Point::new(5)))
    );
}

#[test]
fn allowed_is_the_standard_generator() {
    let p = Position::start(BackgammonVariant::Standard, Player::X);
    for dice in Dice::ALL_21 {
        let a: Vec<Play> = HitAndRun::Allowed
            .legal_plays(&p, dice)
            .iter()
            .copied()
            .collect();
        let b: Vec<Play> = p.legal_plays(dice).iter().copied().collect();
        assert_eq!(a, b);
    }
}

#[test]
fn probe_doubles_drop_only_the_plays_that_move_a_hitter_on() {
    // The standard list less the plays that move a hitter on, when some
    // play is left (all four dice played). x: one checker on 8 and one on
    // 13, o a blot on x's 5: with 3-3, 13/7 8/5*/2 leaves 5 empty after
    // hitting there (no order keeps the hitter), so it goes; 13/4 8/5*
    // and 13/1 stay.
    let p = pos(&[(8, 1), (13, 1)], &[(20, 1), (1, 14)]);
    assert_eq!(p.legal_plays(d(3, 3)).len(), 3);
    expect(&p, d(3, 3), &["13/4 8/5*", "13/1"]);
    refuse(
        &p,
        d(3, 3),
        "13/7 8/5*/2",
        IllegalPlay::HitAndRun(Point::new(5)),
    );
    // x: one checker on 11 and one on 8: 11/5*/2 8/5 reaches 5 with both
    // checkers; played 11/8, 8/5*, 8/5, 5/2 the hitter stays, so the play
    // is allowed although one checker hits on 5 and another moves on.
    let q = pos(&[(11, 1), (8, 1)], &[(20, 1), (1, 14)]);
    expect(&q, d(3, 3), &["11/5*/2 8/5"]);
    let list = FORBIDDEN.legal_plays(&q, d(3, 3));
    let back = FORBIDDEN.play(&q, &list[0], d(3, 3));
    assert!(back.is_ok(), "{back:?}");
}

#[test]
fn probe_non_doubles_drop_each_hit_and_run() {
    // x: one checker on 8 and one on 7, o a blot on x's 5: with 3-2 the
    // standard 8/5*/3 and 7/5*/2 hit and run; the other four plays stay.
    let p = pos(&[(8, 1), (7, 1)], &[(20, 1), (1, 14)]);
    assert_eq!(p.legal_plays(d(3, 2)).len(), 6);
    expect(&p, d(3, 2), &["8/5* 7/5", "8/6 7/4", "7/2", "8/3"]);
}

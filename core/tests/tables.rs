//! Plakoto, Fevga and Long Nardy (`docs/variants.md`):
//! - a second, naive move generator written from the doc (every die order,
//!   every checker, then the most-dice and larger-die rules, then dedup by
//!   resulting position) compared with the engine's on every position of
//!   seeded random games, both sides on roll, all 21 rolls;
//! - one probe per rule of the doc, naming its section, with the legal
//!   plays written by hand;
//! - round-trips of every position through its encodings.

use std::collections::BTreeSet;

use bgref_core::notation::position_id::PositionId;
use bgref_core::tables::{
    FevgaStart, Game, HeadDoubles, MotherRule, OutcomeKind, PrimeRule, TablesIllegalPlay,
    TablesOutcome, TablesPosition, TablesRules, TablesSetup,
};
use bgref_core::{Dice, Die, Move, Play, Player, Point};

// ---------------------------------------------------------------------
// The naive model: one physical board, cells numbered by x's points.
// ---------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Phys {
    x: [u8; 25],
    o: [u8; 25],
    /// 1: the x checker on this cell is pinned; -1: the o checker.
    pin: [i8; 25],
    off: [u8; 2],
}

/// The cell (x's point) of `player`'s own point `p` (doc: "Geometry").
fn cell(game: Game, player: Player, p: u8) -> usize {
    let c = match (player, game) {
        (Player::X, _) => p,
        (Player::O, Game::Plakoto) => 25 - p,
        (Player::O, _) if p > 12 => p - 12,
        (Player::O, _) => p + 12,
    };
    usize::from(c)
}

fn sign(player: Player) -> i8 {
    if player == Player::X { 1 } else { -1 }
}

fn idx(player: Player) -> usize {
    if player == Player::X { 0 } else { 1 }
}

impl Phys {
    fn from_setup(s: &TablesSetup) -> Phys {
        let mut ph = Phys {
            x: [0; 25],
            o: [0; 25],
            pin: [0; 25],
            off: [s.off.x, s.off.o],
        };
        for p in 1..=24u8 {
            let i = usize::from(p - 1);
            let cx = cell(s.game, Player::X, p);
            ph.x[cx] = s.points.x[i];
            if s.pinned.x[i] {
                ph.pin[cx] = 1;
            }
            let co = cell(s.game, Player::O, p);
            ph.o[co] = s.points.o[i];
            if s.pinned.o[i] {
                ph.pin[co] = -1;
            }
        }
        ph
    }

    fn count(&self, player: Player, c: usize) -> u8 {
        if player == Player::X {
            self.x[c]
        } else {
            self.o[c]
        }
    }

    fn count_mut(&mut self, player: Player, c: usize) -> &mut u8 {
        if player == Player::X {
            &mut self.x[c]
        } else {
            &mut self.o[c]
        }
    }

    /// `player`'s count on its own point `p`.
    fn own(&self, game: Game, player: Player, p: u8) -> u8 {
        self.count(player, cell(game, player, p))
    }
}

struct Naive {
    game: Game,
    rules: TablesRules,
    mover: Player,
    head_limit: u8,
}

impl Naive {
    /// One checker of the mover from its point `from` by `d`, or `None`
    /// when a rule of the doc forbids it.
    fn single(&self, ph: &Phys, from: u8, d: u8, head_moves: u8) -> Option<Phys> {
        let (g, m) = (self.game, self.mover);
        let opp = if m == Player::X { Player::O } else { Player::X };
        let cf = cell(g, m, from);
        if ph.count(m, cf) == 0 || ph.pin[cf] == sign(m) {
            return None;
        }
        if from == 24 && g == Game::LongNardy && head_moves >= self.head_limit {
            return None;
        }
        if from == 24 && g == Game::Fevga && ph.own(g, m, 24) < 15 {
            let limit = match self.rules.fevga_start {
                FevgaStart::PassStartPoint => 11,
                FevgaStart::ReachStartQuarter => 12,
                FevgaStart::Off => 24,
            };
            let reached = (1..=limit).any(|p| ph.own(g, m, p) > 0) || ph.off[idx(m)] > 0;
            if !reached {
                return None;
            }
        }
        let mut n = ph.clone();
        *n.count_mut(m, cf) -= 1;
        if n.count(m, cf) == 0 && n.pin[cf] == sign(opp) {
            n.pin[cf] = 0;
        }
        if from > d {
            let to = from - d;
            let ct = cell(g, m, to);
            let theirs = ph.count(opp, ct);
            let mine = ph.count(m, ct);
            if g == Game::Plakoto {
                let pinned_by_me = ph.pin[ct] == sign(opp);
                if theirs == 1 && mine == 0 && ph.pin[ct] == 0 {
                    n.pin[ct] = sign(opp);
                } else if theirs > 0 && !pinned_by_me {
                    return None;
                }
            } else if theirs > 0 {
                return None;
            }
            *n.count_mut(m, ct) += 1;
            if g == Game::Fevga && to >= 19 && (19..=24).all(|p| n.own(g, m, p) > 0) {
                return None;
            }
            if g != Game::Plakoto && self.rules.prime_rule(g) == PrimeRule::NeedsCheckerAhead {
                for b in 1..=19u8 {
                    let window: Vec<usize> = (b..b + 6).map(|q| cell(g, opp, q)).collect();
                    if window.contains(&ct)
                        && window.iter().all(|&c| n.count(m, c) > 0)
                        && !(1..b).any(|q| n.own(g, opp, q) > 0)
                    {
                        return None;
                    }
                }
            }
        } else {
            // Bearing off.
            if (7..=24).any(|p| ph.own(g, m, p) > 0) {
                return None;
            }
            if g == Game::Plakoto && (1..=24).any(|c| ph.pin[c] == sign(m)) {
                return None;
            }
            if from != d && (from + 1..=6).any(|p| ph.own(g, m, p) > 0) {
                return None;
            }
            n.off[idx(m)] += 1;
        }
        Some(n)
    }

    fn dfs(
        &self,
        ph: &Phys,
        order: &[u8],
        used: &mut Vec<u8>,
        head_moves: u8,
        out: &mut Vec<(Phys, Vec<u8>)>,
    ) {
        let mut any = false;
        if let Some(&d) = order.get(used.len()) {
            for from in 1..=24u8 {
                if let Some(n) = self.single(ph, from, d, head_moves) {
                    any = true;
                    if naive_phys_outcome(self.game, self.rules, &n).is_some() {
                        // "Dice and moves", "The mother rule": a move that
                        // ends the game ends the turn; the play counts as
                        // using the whole roll.
                        out.push((n, order.to_vec()));
                        continue;
                    }
                    used.push(d);
                    self.dfs(&n, order, used, head_moves + u8::from(from == 24), out);
                    used.pop();
                }
            }
        }
        if !any {
            out.push((ph.clone(), used.clone()));
        }
    }
}

/// The mother rule and the bear-off win, from the doc.
fn naive_outcome(s: &TablesSetup) -> Option<(Option<Player>, u32)> {
    naive_phys_outcome(s.game, s.rules, &Phys::from_setup(s))
}

/// [`naive_outcome`] on the physical board.
fn naive_phys_outcome(game: Game, rules: TablesRules, ph: &Phys) -> Option<(Option<Player>, u32)> {
    for w in Player::ALL {
        if ph.off[idx(w)] == 15 {
            return Some((Some(w), if ph.off[idx(!w)] == 0 { 2 } else { 1 }));
        }
    }
    if game != Game::Plakoto || rules.mother == MotherRule::Off {
        return None;
    }
    let mother = |p: Player| {
        let c = cell(game, p, 24);
        ph.count(p, c) == 1 && ph.pin[c] == sign(p)
    };
    if mother(Player::X) && mother(Player::O) {
        return Some((None, 0));
    }
    for l in Player::ALL {
        if mother(l) && (rules.mother == MotherRule::Immediate || ph.own(game, !l, 24) == 0) {
            return Some((Some(!l), 2));
        }
    }
    None
}

/// "Primes", `open_when_stuck`: whether no die moves any checker of
/// `player` (its first move of a turn).
fn naive_cannot_move(s: &TablesSetup, ph: &Phys, player: Player) -> bool {
    let naive = Naive {
        game: s.game,
        rules: s.rules,
        mover: player,
        head_limit: 1,
    };
    (1..=6u8).all(|d| (1..=24u8).all(|from| naive.single(ph, from, d, 0).is_none()))
}

/// "Primes": whether `player` holds six points in a row along the
/// opponent's way with no opposing checker on the board ahead of them.
fn naive_blocks_fully(game: Game, ph: &Phys, player: Player) -> bool {
    if game == Game::Plakoto {
        return false;
    }
    let opp = !player;
    (1..=19u8).any(|b| {
        (b..b + 6).all(|q| ph.count(player, cell(game, opp, q)) > 0)
            && !(1..b).any(|q| ph.own(game, opp, q) > 0)
    })
}

/// Positions met where the open-when-blocked rule obliged the mover.
static MUST_OPEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn naive_plays(s: &TablesSetup, dice: Dice) -> BTreeSet<Phys> {
    let plays = naive_dice_plays(s, dice);
    // "Primes", open_when_blocked: a mover that begins its turn with a
    // prime blocking the opponent fully plays one that opens it, if any.
    // open_when_stuck: the same, only when the opponent cannot move.
    let ph = Phys::from_setup(s);
    let rule = s.rules.prime_rule(s.game);
    if matches!(rule, PrimeRule::OpenWhenBlocked | PrimeRule::OpenWhenStuck)
        && naive_blocks_fully(s.game, &ph, s.turn)
        && (rule == PrimeRule::OpenWhenBlocked || naive_cannot_move(s, &ph, !s.turn))
    {
        MUST_OPEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let open: BTreeSet<Phys> = plays
            .iter()
            .filter(|p| !naive_blocks_fully(s.game, p, s.turn))
            .cloned()
            .collect();
        if !open.is_empty() {
            return open;
        }
    }
    plays
}

/// The plays the dice rules allow.
fn naive_dice_plays(s: &TablesSetup, dice: Dice) -> BTreeSet<Phys> {
    if naive_outcome(s).is_some() {
        return BTreeSet::new();
    }
    let hi = dice.high().get();
    let first_turn = s.points[s.turn][23] == 15;
    let head_double = dice.is_double()
        && (hi == 6 || hi == 4 || (hi == 3 && s.rules.head_doubles == HeadDoubles::SixFourThree));
    let naive = Naive {
        game: s.game,
        rules: s.rules,
        mover: s.turn,
        head_limit: if first_turn && head_double { 2 } else { 1 },
    };
    let ph = Phys::from_setup(s);
    dice_rule_plays(dice, |order, all| {
        naive.dfs(&ph, order, &mut Vec::new(), 0, all);
    })
}

fn phys_after(pos: &TablesPosition, play: &Play) -> Phys {
    Phys::from_setup(&pos.after(play).to_setup())
}

fn engine_plays(pos: &TablesPosition, dice: Dice) -> (usize, BTreeSet<Phys>) {
    let list = pos.legal_plays(dice);
    let set = list
        .iter()
        .map(|p| Phys::from_setup(&pos.after(p).to_setup()))
        .collect();
    (list.len(), set)
}

/// The fast generator's plays of `pos` (`setup`) with `dice`, after
/// checking that it lists each once and that the naive generator finds
/// the same positions.
fn agreed_plays(pos: &TablesPosition, setup: &TablesSetup, dice: Dice) -> BTreeSet<Phys> {
    let (n, fast) = engine_plays(pos, dice);
    let slow = naive_plays(setup, dice);
    assert_eq!(n, fast.len(), "duplicate plays {setup:?} {dice}");
    assert!(
        fast == slow,
        "{setup:?} {dice}: fast {} naive {}",
        fast.len(),
        slow.len()
    );
    fast
}

// ---------------------------------------------------------------------
// Random games.
// ---------------------------------------------------------------------

#[path = "../examples/support/random_games.rs"]
mod random_games;

#[path = "support/dice_rule.rs"]
mod dice_rule;

use dice_rule::dice_rule_plays;

use random_games::Rng;

fn round_trips(pos: &TablesPosition) {
    let setup = pos.to_setup();
    assert_eq!(TablesPosition::from_setup(&setup).as_ref(), Ok(pos));
    let (board, pins) = setup.to_board();
    let back = TablesSetup::from_board(setup.game, &board, &pins, setup.off, setup.turn);
    assert_eq!(back.points, setup.points);
    assert_eq!(back.pinned, setup.pinned);
    match pos.position_id() {
        None => assert_eq!(pos.game(), Game::Plakoto),
        Some(id) => {
            let text = id.to_string();
            let parsed: PositionId = text.parse().unwrap();
            let mut again = TablesSetup::from_position_id(pos.game(), &parsed, pos.turn());
            again.rules = pos.rules();
            assert_eq!(
                TablesPosition::from_setup(&again).as_ref(),
                Ok(pos),
                "{text}"
            );
        }
    }
}

/// Compares both generators on `positions` positions of random games of
/// `game`; returns (positions, (position, roll) pairs, plays compared).
fn compare_random(game: Game, rules: TablesRules, positions: usize, seed: u64) -> [usize; 3] {
    let mut rng = Rng(seed);
    let (mut seen, mut pairs, mut plays) = (0, 0, 0);
    while seen < positions {
        let turn = if rng.below(2) == 0 {
            Player::X
        } else {
            Player::O
        };
        let mut pos = TablesPosition::start(game, turn).unwrap().with_rules(rules);
        for _ in 0..600 {
            round_trips(&pos);
            let setup = pos.to_setup();
            let outcome = pos.outcome().map(|o| (o.winner, o.points));
            assert_eq!(outcome, naive_outcome(&setup), "{setup:?}");
            if let Some(o) = pos.outcome() {
                *ENDINGS
                    .lock()
                    .unwrap()
                    .entry((game.as_str(), o.kind.as_str()))
                    .or_insert(0) += 1;
                break;
            }
            if setup.pinned.x.iter().chain(&setup.pinned.o).any(|&p| p) {
                *ENDINGS
                    .lock()
                    .unwrap()
                    .entry((game.as_str(), "positions with a pin"))
                    .or_insert(0) += 1;
            }
            for side in [pos, pos.swap_turn()] {
                let setup = side.to_setup();
                for dice in Dice::ALL_21 {
                    let (n, fast) = engine_plays(&side, dice);
                    let slow = naive_plays(&setup, dice);
                    assert_eq!(n, fast.len(), "duplicate plays {setup:?} {dice}");
                    assert!(
                        fast == slow,
                        "{setup:?} {dice}: fast {} naive {}",
                        fast.len(),
                        slow.len()
                    );
                    pairs += 1;
                    plays += n;
                }
            }
            seen += 1;
            let dice = rng.dice();
            let list = side_plays(&pos, dice);
            if list.is_empty() {
                assert_eq!(
                    pos.play(&Play::EMPTY, dice).map(|(p, _)| p),
                    Ok(pos.swap_turn())
                );
                pos = pos.swap_turn();
            } else {
                let play = list[rng.below(list.len())];
                let (next, _) = pos.play(&play, dice).expect("a generated play is legal");
                assert_eq!(next, pos.after(&play));
                pos = next;
            }
        }
    }
    [seen, pairs, plays]
}

static ENDINGS: std::sync::Mutex<std::collections::BTreeMap<(&str, &str), usize>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

fn side_plays(pos: &TablesPosition, dice: Dice) -> Vec<Play> {
    pos.legal_plays(dice).iter().copied().collect()
}

#[test]
fn naive_and_fast_generators_agree_on_random_games() {
    let mut total = [0usize; 3];
    for (i, game) in [Game::Plakoto, Game::Fevga, Game::LongNardy]
        .into_iter()
        .enumerate()
    {
        let n = compare_random(game, TablesRules::DEFAULT, 600, 0x9E37_79B9 + i as u64);
        eprintln!(
            "{game}: {} positions, {} (position, roll) pairs, {} plays: all agree",
            n[0], n[1], n[2]
        );
        for k in 0..3 {
            total[k] += n[k];
        }
    }
    // The options off the default.
    let other = TablesRules {
        mother: MotherRule::Immediate,
        fevga_start: FevgaStart::ReachStartQuarter,
        primes: Some(PrimeRule::Free),
        head_doubles: HeadDoubles::SixFour,
        ..TablesRules::DEFAULT
    };
    for (i, game) in [Game::Plakoto, Game::Fevga, Game::LongNardy]
        .into_iter()
        .enumerate()
    {
        let n = compare_random(game, other, 150, 0x1234_5678 + i as u64);
        eprintln!(
            "{game} (other options): {} positions, {} pairs, {} plays: all agree",
            n[0], n[1], n[2]
        );
        for k in 0..3 {
            total[k] += n[k];
        }
    }
    // Each prime rule where it is not the game's usual one.
    for (i, (game, primes)) in [
        (Game::Fevga, PrimeRule::NeedsCheckerAhead),
        (Game::LongNardy, PrimeRule::OpenWhenBlocked),
        (Game::Fevga, PrimeRule::OpenWhenBlocked),
        (Game::LongNardy, PrimeRule::OpenWhenStuck),
    ]
    .into_iter()
    .enumerate()
    {
        let rules = TablesRules {
            primes: Some(primes),
            ..TablesRules::DEFAULT
        };
        let n = compare_random(game, rules, 300, 0x5EED_0000 + i as u64);
        eprintln!(
            "{game} (primes {primes:?}): {} positions, {} pairs, {} plays: all agree",
            n[0], n[1], n[2]
        );
        for k in 0..3 {
            total[k] += n[k];
        }
    }
    eprintln!(
        "total: {} positions, {} pairs, {} plays",
        total[0], total[1], total[2]
    );
    eprintln!("endings and pins seen: {:?}", ENDINGS.lock().unwrap());
    eprintln!(
        "(position, roll) pairs where a prime had to be opened (this test and any run beside it): {}",
        MUST_OPEN.load(std::sync::atomic::Ordering::Relaxed)
    );
}

// ---------------------------------------------------------------------
// Probes: one per rule of docs/variants.md, expected plays by hand.
// ---------------------------------------------------------------------

fn d(a: u8, b: u8) -> Dice {
    Dice::new(Die::new(a), Die::new(b))
}

/// `24/18/13 6/off 12/9*` (the `*` is ignored: pins follow from the board).
fn text(s: &str) -> Play {
    let mut moves = Vec::new();
    for token in s.split_whitespace() {
        let points: Vec<u8> = token
            .split('/')
            .map(|p| {
                let p = p.trim_end_matches('*');
                if p == "off" { 0 } else { p.parse().unwrap() }
            })
            .collect();
        for w in points.windows(2) {
            moves.push(Move::new(Point::new(w[0]), Point::new(w[1])));
        }
    }
    Play::new(&moves).unwrap()
}

/// A position from each player's own points `(point, count)`; pins by own
/// point; the rest of the 15 borne off.
fn pos(
    game: Game,
    turn: Player,
    x: &[(u8, u8)],
    o: &[(u8, u8)],
    pins: (&[u8], &[u8]),
) -> TablesPosition {
    let mut s = TablesSetup::empty(game, turn);
    for (player, list, pinned) in [(Player::X, x, pins.0), (Player::O, o, pins.1)] {
        for &(p, n) in list {
            s.points[player][usize::from(p - 1)] = n;
        }
        for &p in pinned {
            s.pinned[player][usize::from(p - 1)] = true;
        }
        s.off[player] = 15 - list.iter().map(|&(_, n)| n).sum::<u8>();
    }
    TablesPosition::from_setup(&s).unwrap()
}

fn expect(pos: &TablesPosition, dice: Dice, plays: &[&str]) {
    let (n, legal) = engine_plays(pos, dice);
    let mut want = BTreeSet::new();
    for p in plays {
        let (next, _) = pos
            .play(&text(p), dice)
            .unwrap_or_else(|e| panic!("{p} with {dice}: {e}"));
        want.insert(Phys::from_setup(&next.to_setup()));
    }
    assert_eq!(want.len(), plays.len(), "expected plays are distinct");
    assert_eq!(n, legal.len());
    assert!(
        legal == want,
        "{dice}: legal {} expected {}",
        legal.len(),
        want.len()
    );
    assert_eq!(naive_plays(&pos.to_setup(), dice), want);
}

fn refuse(pos: &TablesPosition, dice: Dice, play: &str, why: TablesIllegalPlay) {
    assert_eq!(
        pos.play(&text(play), dice).err(),
        Some(why),
        "{play} with {dice}"
    );
}

const X: Player = Player::X;
const O: Player = Player::O;
const NO: (&[u8], &[u8]) = (&[], &[]);

#[test]
fn probe_dice_rules() {
    // "Dice and moves": both dice if possible; else the larger die.
    // x's 12 can play the 6 or the 5, not both (o holds x's 1 and 6... 7).
    let p = pos(
        Game::Plakoto,
        X,
        &[(12, 1)],
        &[(24, 2), (19, 2), (5, 11)],
        NO,
    );
    // o's 24 is x's 1, o's 19 is x's 6: 12/6 blocked; 12/7 then 7/1 blocked.
    expect(&p, d(6, 5), &["12/7"]);
    refuse(
        &p,
        d(6, 5),
        "12/6",
        TablesIllegalPlay::Blocked(Point::new(6)),
    );
    let q = pos(
        Game::Plakoto,
        X,
        &[(12, 1)],
        &[(24, 2), (20, 2), (5, 11)],
        NO,
    );
    // Now 12/6 and 12/7 each play, neither goes on: the larger die.
    expect(&q, d(6, 5), &["12/6"]);
    refuse(
        &q,
        d(6, 5),
        "12/7",
        TablesIllegalPlay::LargerDieMustBePlayed,
    );
    // Doubles play four times; as many as possible.
    let r = pos(Game::Fevga, X, &[(20, 1)], &[(24, 15)], NO);
    // x's 20 with 4s: 16, 12 (o's start: blocked).
    expect(&r, d(4, 4), &["20/16"]);
}

#[test]
fn probe_bearing_off() {
    // "Bearing off": exact point, or the highest when the die is larger;
    // a larger die may not bear off a lower checker while a higher stands.
    for game in [Game::Plakoto, Game::Fevga, Game::LongNardy] {
        let far = if game == Game::Plakoto { 1 } else { 20 };
        let p = pos(game, X, &[(5, 2), (3, 1)], &[(far, 15)], NO);
        expect(&p, d(6, 4), &["5/off 5/1"]);
        refuse(
            &p,
            d(6, 4),
            "5/off 3/off",
            TablesIllegalPlay::DistanceNotRolled(Point::new(3), Point::OFF),
        );
        let q = pos(game, X, &[(9, 1), (3, 1)], &[(far, 15)], NO);
        refuse(
            &q,
            d(3, 1),
            "3/off 9/8",
            TablesIllegalPlay::CannotBearOff(Point::new(9)),
        );
        // Moves given in an order the rules forbid are the play of the
        // order they allow.
        let r = pos(game, X, &[(7, 1), (3, 1)], &[(far, 15)], NO);
        assert!(r.play(&text("3/off 7/6"), d(3, 1)).is_ok());
    }
}

#[test]
fn probe_plakoto_start_and_pins() {
    // "Plakoto / Start": 15 on the own 24-point, opposite directions.
    let start = TablesPosition::start(Game::Plakoto, X).unwrap();
    expect(&start, d(6, 5), &["24/18 24/19", "24/13"]);
    // "Plakoto / Pinning": landing on a single opposing checker pins it;
    // leaving with the last pinner frees it. o's 16 is x's 9.
    let p = pos(Game::Plakoto, X, &[(12, 2)], &[(16, 1)], NO);
    expect(&p, d(3, 2), &["12/9* 12/10", "12/7"]);
    let (after, play) = p.play(&text("12/9 12/10"), d(3, 2)).unwrap();
    assert!(play.moves().iter().any(|m| m.is_hit()));
    assert!(after.is_pinned(O, Point::new(16)));
    // "Plakoto / Pinned checkers": the pinned o checker cannot move.
    assert!(after.legal_plays(d(3, 2)).is_empty());
    // "Plakoto / Pinned points": the pinner holds the point even alone: x's
    // own pinned checker on 9 cannot move and x's 11 cannot land on 9.
    let q = pos(
        Game::Plakoto,
        X,
        &[(9, 1), (11, 1)],
        &[(16, 1)],
        (&[9], &[]),
    );
    expect(&q, d(2, 1), &["11/10/8"]);
    refuse(
        &q,
        d(2, 1),
        "11/9 9/8",
        TablesIllegalPlay::Blocked(Point::new(9)),
    );
    refuse(
        &q,
        d(2, 1),
        "9/7 11/10",
        TablesIllegalPlay::Pinned(Point::new(9)),
    );
    // "Plakoto / Pinned points": the pinner may stack on the pinned point.
    let r = pos(
        Game::Plakoto,
        X,
        &[(12, 1), (9, 1)],
        &[(16, 1)],
        (&[], &[16]),
    );
    expect(&r, d(3, 1), &["12/9 9/8", "9/6 12/11", "9/5"]);
    // Two or more checkers block.
    let s = pos(Game::Plakoto, X, &[(12, 1)], &[(16, 2)], NO);
    expect(&s, d(3, 1), &["12/8"]);
}

#[test]
fn probe_plakoto_bear_off_needs_no_pin() {
    // "Plakoto / Bearing off": none of the player's checkers pinned, also
    // after bearing off began. o's 22 is x's 3.
    let p = pos(
        Game::Plakoto,
        X,
        &[(3, 1), (5, 1)],
        &[(22, 1), (24, 1)],
        (&[3], &[]),
    );
    expect(&p, d(6, 5), &[]);
    refuse(&p, d(6, 5), "5/off", TablesIllegalPlay::NoMovePossible);
    // The same position with 2-1: the pinned checker on 3 blocks 5/3.
    refuse(
        &p,
        d(2, 1),
        "5/3 3/2",
        TablesIllegalPlay::Blocked(Point::new(3)),
    );
    expect(&p, d(2, 1), &["5/4/2"]);
}

#[test]
fn probe_plakoto_mother_rule() {
    // "Plakoto / The mother rule". o's 1 is x's 24.
    let pinned = pos(
        Game::Plakoto,
        O,
        &[(24, 1), (10, 14)],
        &[(1, 1), (5, 14)],
        (&[24], &[]),
    );
    let out = pinned.outcome().unwrap();
    assert_eq!(
        (out.winner, out.kind, out.points),
        (Some(O), OutcomeKind::Mother, 2)
    );
    assert!(pinned.legal_plays(d(3, 1)).is_empty());
    assert_eq!(
        pinned.play(&text("5/2"), d(3, 1)).err(),
        Some(TablesIllegalPlay::GameOver)
    );
    // The pinner still has a checker on its own starting point: play on.
    let open = pos(
        Game::Plakoto,
        O,
        &[(24, 1), (10, 14)],
        &[(1, 1), (24, 1), (5, 13)],
        (&[24], &[]),
    );
    assert_eq!(open.outcome(), None);
    // ... until it leaves it: then the game is lost at once.
    let (left, _) = open.play(&text("24/18"), d(6, 5)).unwrap();
    assert_eq!(
        left.outcome().map(|o| (o.winner, o.points)),
        Some((Some(O), 2))
    );
    // ... or the pinned player pins the pinner's mother too: a draw.
    let both = pos(
        Game::Plakoto,
        X,
        &[(24, 1), (1, 1), (10, 13)],
        &[(1, 1), (24, 1), (5, 13)],
        (&[24], &[24]),
    );
    assert_eq!(
        both.outcome(),
        Some(TablesOutcome {
            winner: None,
            kind: OutcomeKind::Draw,
            points: 0
        })
    );
    // Options: Immediate ends the game at once, Off never.
    let immediate = open.with_rules(TablesRules {
        mother: MotherRule::Immediate,
        ..TablesRules::DEFAULT
    });
    assert_eq!(immediate.outcome().map(|o| o.winner), Some(Some(O)));
    let off = pinned.with_rules(TablesRules {
        mother: MotherRule::Off,
        ..TablesRules::DEFAULT
    });
    assert_eq!(off.outcome(), None);
}

#[test]
fn probe_plakoto_mother_rule_ends_the_turn() {
    // "Plakoto / The mother rule" ([Board], [PBM], [MSO], [Hist]): the game
    // ends the moment the mother is pinned, so the move that pins it ends
    // the turn and its play is complete, whatever dice are left. x: 4 and
    // 2, 13 off; o: the mother alone on its 24 (x's 1), 14 on x's 10.
    let p = pos(
        Game::Plakoto,
        X,
        &[(4, 1), (2, 1)],
        &[(24, 1), (15, 14)],
        NO,
    );
    expect(&p, d(3, 1), &["4/1*", "2/1*", "4/3/off"]);
    let (won, play) = p.play(&text("4/1*"), d(3, 1)).unwrap();
    assert_eq!(play.to_string(), "4/1*");
    let out = won.outcome().unwrap();
    assert_eq!(
        (out.winner, out.kind, out.points),
        (Some(X), OutcomeKind::Mother, 2)
    );
    // No move after the pin: the game is over.
    refuse(&p, d(3, 1), "4/1* 2/1", TablesIllegalPlay::GameOver);
    refuse(&p, d(3, 1), "4/1*/off", TablesIllegalPlay::GameOver);
    let partial = p.partial_play(text("4/1*").moves(), d(3, 1)).unwrap();
    assert_eq!(
        (
            partial.complete,
            partial.completions,
            partial.remaining.len()
        ),
        (true, 1, 0)
    );
    // With x's second checker on 6 and two o checkers on x's 5, only the
    // pin ends the game (4/1*/off bore the pinner off before).
    let q = pos(
        Game::Plakoto,
        X,
        &[(6, 1), (4, 1)],
        &[(24, 1), (20, 2), (15, 12)],
        NO,
    );
    let (won, _) = q.play(&text("4/1*"), d(3, 1)).unwrap();
    assert_eq!(won.outcome().map(|o| o.kind), Some(OutcomeKind::Mother));
    assert_eq!(
        naive_plays(&q.to_setup(), d(3, 1)).len(),
        q.legal_plays(d(3, 1)).len()
    );
    // The winner leaves its own start while the mother stays pinned: the
    // game ends at that move (24/18 or 24/19; 24/13 goes on after it).
    let open = pos(
        Game::Plakoto,
        O,
        &[(24, 1), (10, 14)],
        &[(1, 1), (24, 1), (5, 13)],
        (&[24], &[]),
    );
    expect(&open, d(6, 5), &["24/18", "24/19"]);
    refuse(&open, d(6, 5), "24/13", TablesIllegalPlay::GameOver);
    // Both mothers pinned: a draw at the pin, with three dice of 1-1 left.
    let both = pos(
        Game::Plakoto,
        X,
        &[(24, 1), (2, 1), (10, 13)],
        &[(1, 1), (24, 1), (5, 13)],
        (&[24], &[]),
    );
    let (drawn, _) = both.play(&text("2/1*"), d(1, 1)).unwrap();
    assert_eq!(
        drawn.outcome(),
        Some(TablesOutcome {
            winner: None,
            kind: OutcomeKind::Draw,
            points: 0
        })
    );
    // Moves written after the pin are played before it when they can be.
    let (_, play) = both.play(&text("2/1* 10/9"), d(1, 1)).unwrap();
    assert_eq!(play.to_string(), "10/9 2/1*");
    assert!(both.play(&text("10/9 10/9 10/9 10/9"), d(1, 1)).is_ok());
    assert_eq!(
        naive_plays(&both.to_setup(), d(1, 1)).len(),
        both.legal_plays(d(1, 1)).len()
    );
    // The immediate rule: the pin ends the game though the pinner still
    // has a checker on its start; the rule off: the pin is an ordinary one.
    let immediate = TablesRules {
        mother: MotherRule::Immediate,
        ..TablesRules::DEFAULT
    };
    let home = pos(
        Game::Plakoto,
        X,
        &[(24, 1), (4, 1), (2, 1), (11, 12)],
        &[(24, 1), (15, 14)],
        NO,
    );
    assert!(home.play(&text("4/1*"), d(3, 1)).is_err());
    let (won, _) = home
        .with_rules(immediate)
        .play(&text("4/1*"), d(3, 1))
        .unwrap();
    assert_eq!(won.outcome().map(|o| o.winner), Some(Some(X)));
    let off = p.with_rules(TablesRules {
        mother: MotherRule::Off,
        ..TablesRules::DEFAULT
    });
    assert_eq!(
        off.play(&text("4/1*"), d(3, 1)).err(),
        Some(TablesIllegalPlay::BothDiceCanBePlayed)
    );
}

#[test]
fn probe_scoring() {
    // "Scoring": 1, or 2 when the loser has borne off none.
    for game in [Game::Plakoto, Game::Fevga, Game::LongNardy] {
        let far = if game == Game::Plakoto { 1 } else { 20 };
        let double = pos(game, O, &[], &[(far, 15)], NO).outcome().unwrap();
        assert_eq!(
            (double.winner, double.kind, double.points),
            (Some(X), OutcomeKind::Double, 2)
        );
        let single = pos(game, O, &[], &[(far, 14)], NO).outcome().unwrap();
        assert_eq!((single.kind, single.points), (OutcomeKind::Single, 1));
    }
}

#[test]
fn probe_fevga() {
    // "Fevga / Start rule": one checker runs first (o's start is x's 12).
    let start = TablesPosition::start(Game::Fevga, X).unwrap();
    expect(&start, d(6, 5), &["24/13"]);
    refuse(
        &start,
        d(6, 5),
        "24/18 24/19",
        TablesIllegalPlay::FirstCheckerRule,
    );
    expect(&start, d(6, 6), &["24/18"]);
    // Passing the opponent's start point (default) against reaching its
    // quarter (option): o has left its start; x's runner is on 13.
    let p = pos(Game::Fevga, X, &[(24, 14), (13, 1)], &[(20, 15)], NO);
    expect(&p, d(2, 1), &["13/10", "13/11 24/23"]);
    let reach = p.with_rules(TablesRules {
        fevga_start: FevgaStart::ReachStartQuarter,
        ..TablesRules::DEFAULT
    });
    expect(&reach, d(2, 1), &["13/10", "13/11 24/23", "13/12 24/22"]);
    // "Fevga / No hitting": one checker holds a point (o's 19 is x's 7).
    let q = pos(Game::Fevga, X, &[(10, 1)], &[(19, 1), (1, 14)], NO);
    refuse(
        &q,
        d(3, 1),
        "10/7 7/6",
        TablesIllegalPlay::Blocked(Point::new(7)),
    );
    expect(&q, d(3, 1), &["10/9/6"]);
    // "Fevga / Starting quarter": never all six of 19-24.
    let r = pos(
        Game::Fevga,
        X,
        &[(24, 10), (23, 1), (22, 1), (21, 1), (20, 1), (10, 1)],
        &[(24, 15)],
        NO,
    );
    refuse(
        &r,
        d(5, 1),
        "24/19 10/9",
        TablesIllegalPlay::StartingQuarter(Point::new(19)),
    );
    // "Fevga / Primes", option needs_checker_ahead: x's 2-6 and 7 would be
    // o's 14-19, with every o checker behind (on o's 24).
    let checker_ahead = TablesRules {
        primes: Some(PrimeRule::NeedsCheckerAhead),
        ..TablesRules::DEFAULT
    };
    let s = pos(
        Game::Fevga,
        X,
        &[(2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (10, 1), (24, 9)],
        &[(24, 15)],
        NO,
    )
    .with_rules(checker_ahead);
    refuse(
        &s,
        d(3, 1),
        "10/7 24/23",
        TablesIllegalPlay::Prime(Point::new(7)),
    );
    // With an o checker ahead (o's 5), the prime is allowed.
    let t = pos(
        Game::Fevga,
        X,
        &[(2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (10, 1), (24, 9)],
        &[(24, 14), (5, 1)],
        NO,
    )
    .with_rules(checker_ahead);
    assert!(t.play(&text("10/7 24/23"), d(3, 1)).is_ok());
    let free = s.with_rules(TablesRules {
        primes: Some(PrimeRule::Free),
        ..TablesRules::DEFAULT
    });
    assert!(free.play(&text("10/7 24/23"), d(3, 1)).is_ok());
}

#[test]
fn probe_fevga_open_when_blocked() {
    // "Fevga / Primes", the option `open_when_blocked`: a prime that
    // blocks every opposing checker may be built...
    let owb = TablesRules {
        primes: Some(PrimeRule::OpenWhenBlocked),
        ..TablesRules::DEFAULT
    };
    let s = pos(
        Game::Fevga,
        X,
        &[(2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (10, 1), (24, 9)],
        &[(24, 15)],
        NO,
    )
    .with_rules(owb);
    assert!(s.play(&text("10/7 24/23"), d(3, 1)).is_ok());
    // ...but the next turn its owner must open it. x holds its 2-7 (o's
    // 14-19) with every o checker behind, on o's 24 (x's 12). With 2-1 the
    // plays that open it empty a point of the row: the checker on 7, or
    // both checkers of 6, 5, 4 or 3, and do not close x's 1 (which would
    // make x's 1-6 a prime blocking o as fully).
    let p = pos(
        Game::Fevga,
        X,
        &[(7, 1), (6, 2), (5, 2), (4, 2), (3, 2), (2, 2), (24, 4)],
        &[(24, 15)],
        NO,
    )
    .with_rules(owb);
    expect(
        &p,
        d(2, 1),
        &[
            "7/4",
            "7/5 24/23",
            "7/5 6/5",
            "7/5 4/3",
            "7/5 3/2",
            "7/6 24/22",
            "7/6 5/3",
            "7/6 4/2",
            "6/5 6/4",
            "5/4 5/3",
            "4/3 4/2",
            "3/2 3/1",
        ],
    );
    refuse(&p, d(2, 1), "24/22 24/23", TablesIllegalPlay::MustOpenPrime);
    refuse(&p, d(2, 1), "7/5 2/1", TablesIllegalPlay::MustOpenPrime);
    // Under needs_checker_ahead x could not have built it, under free it
    // need not open it.
    let free = p.with_rules(TablesRules {
        primes: Some(PrimeRule::Free),
        ..TablesRules::DEFAULT
    });
    assert!(free.play(&text("24/22 24/23"), d(2, 1)).is_ok());
    // When no play opens it, the plays of the dice rules stand: with 6-6
    // x's 7/1 still leaves 1-6 closed, and nothing else moves but 24/18.
    let q = pos(
        Game::Fevga,
        X,
        &[(7, 2), (6, 2), (5, 2), (4, 2), (3, 2), (2, 2), (24, 3)],
        &[(24, 15)],
        NO,
    )
    .with_rules(owb);
    let plays: Vec<String> = q
        .legal_plays(d(6, 6))
        .iter()
        .map(|p| p.to_string())
        .collect();
    let free_plays: Vec<String> = q
        .with_rules(TablesRules {
            primes: Some(PrimeRule::Free),
            ..TablesRules::DEFAULT
        })
        .legal_plays(d(6, 6))
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert!(!plays.is_empty());
    assert_eq!(plays, free_plays);
    assert_eq!(naive_plays(&q.to_setup(), d(6, 6)).len(), plays.len());
}

#[test]
fn probe_fevga_open_when_stuck() {
    // "Fevga / Primes", Fevga's default `open_when_stuck` ([BK-F]: the
    // opponent has gathered all its checkers on the point behind the
    // prime; [iT-F]: all its checkers are blocked; [Ludii]): the prime
    // must be opened only when the opponent cannot move at all. x holds
    // its 8-3 (o's 20-15) and has 9 on 24; o has 10 on its 24 (x's 12)
    // and 5 on its 22 (x's 10), all behind the prime, but o can move.
    assert_eq!(
        TablesRules::DEFAULT.prime_rule(Game::Fevga),
        PrimeRule::OpenWhenStuck
    );
    let row = [(8, 1), (7, 1), (6, 1), (5, 1), (4, 1), (3, 1), (24, 9)];
    let free = pos(Game::Fevga, X, &row, &[(24, 10), (22, 5)], NO);
    assert!(free.play(&text("24/13"), d(6, 5)).is_ok());
    agree(&free, d(6, 5));
    // Under open_when_blocked the same play is refused.
    let owb = free.with_rules(TablesRules {
        primes: Some(PrimeRule::OpenWhenBlocked),
        ..TablesRules::DEFAULT
    });
    refuse(&owb, d(6, 5), "24/13", TablesIllegalPlay::MustOpenPrime);
    // Every o checker on its 21 (x's 9), right behind the prime: no die
    // moves any, so x must open it.
    let stuck = pos(Game::Fevga, X, &row, &[(21, 15)], NO);
    refuse(&stuck, d(6, 5), "24/13", TablesIllegalPlay::MustOpenPrime);
    assert!(stuck.play(&text("8/3 24/18"), d(6, 5)).is_ok());
    agree(&stuck, d(6, 5));
    // The option applies to Long Nardy too (its default stays
    // needs_checker_ahead, under which x could not have built the prime).
    let nardy = TablesRules {
        primes: Some(PrimeRule::OpenWhenStuck),
        ..TablesRules::DEFAULT
    };
    let n_stuck = pos(Game::LongNardy, X, &row, &[(21, 15)], NO).with_rules(nardy);
    refuse(&n_stuck, d(6, 5), "24/13", TablesIllegalPlay::MustOpenPrime);
    let n_free = pos(Game::LongNardy, X, &row, &[(24, 10), (22, 5)], NO).with_rules(nardy);
    assert!(n_free.play(&text("24/13"), d(6, 5)).is_ok());
    for dice in Dice::ALL_21 {
        for p in [&free, &stuck, &n_stuck, &n_free] {
            agree(p, dice);
        }
    }
}

/// The engine and the naive generator give the same plays.
fn agree(pos: &TablesPosition, dice: Dice) {
    let (n, fast) = engine_plays(pos, dice);
    assert_eq!(n, fast.len());
    assert!(fast == naive_plays(&pos.to_setup(), dice), "{dice}");
}

#[test]
fn probe_long_nardy() {
    // "Long Nardy / Head rule": one checker off the head per turn.
    let start = TablesPosition::start(Game::LongNardy, X).unwrap();
    expect(&start, d(5, 2), &["24/17"]);
    refuse(&start, d(5, 2), "24/19 24/22", TablesIllegalPlay::HeadRule);
    // First roll 6-6, 4-4, 3-3: two may leave (x's 12 is o's head).
    expect(&start, d(6, 6), &["24/18 24/18"]);
    expect(&start, d(4, 4), &["24/16 24/16"]);
    expect(&start, d(3, 3), &["24/15 24/21", "24/18 24/18"]);
    expect(&start, d(2, 2), &["24/16"]);
    let six_four = start.with_rules(TablesRules {
        head_doubles: HeadDoubles::SixFour,
        ..TablesRules::DEFAULT
    });
    expect(&six_four, d(3, 3), &["24/15"]);
    // Later turns: one only, doubles too.
    let later = pos(Game::LongNardy, X, &[(24, 14), (18, 1)], &[(24, 15)], NO);
    expect(&later, d(6, 6), &["24/18"]);
    // "Long Nardy / Primes" as in Fevga (o's 13-18 are x's 1-6).
    let p = pos(
        Game::LongNardy,
        X,
        &[(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (9, 1), (20, 9)],
        &[(24, 15)],
        NO,
    );
    refuse(
        &p,
        d(3, 1),
        "9/6 20/19",
        TablesIllegalPlay::Prime(Point::new(6)),
    );
    // Six in a row along the opponent's way may wrap past the mover's 1:
    // x's 24 and 1-4 and 5 are o's 12-17.
    let q = pos(
        Game::LongNardy,
        X,
        &[(1, 1), (2, 1), (3, 1), (4, 1), (9, 1), (24, 10)],
        &[(24, 15)],
        NO,
    );
    refuse(
        &q,
        d(4, 1),
        "9/5 24/23",
        TablesIllegalPlay::Prime(Point::new(5)),
    );
    assert_eq!(p.play(&text("9/8/5"), d(3, 1)).err(), None);
}

#[test]
fn partial_plays() {
    // "Dice and moves", entered move by move.
    let start = TablesPosition::start(Game::Plakoto, X).unwrap();
    let first = start.partial_play(text("24/18").moves(), d(6, 5)).unwrap();
    assert_eq!((first.complete, first.completions), (false, 2));
    assert_eq!(first.remaining, vec![Die::new(5)]);
    let done = start
        .partial_play(text("24/18 18/13").moves(), d(6, 5))
        .unwrap();
    assert_eq!(
        (done.complete, done.completions, done.moves.len()),
        (true, 1, 2)
    );
    let fevga = TablesPosition::start(Game::Fevga, X).unwrap();
    assert_eq!(
        fevga
            .partial_play(text("24/18 24/19").moves(), d(6, 5))
            .err(),
        Some(TablesIllegalPlay::FirstCheckerRule)
    );
    let nardy = TablesPosition::start(Game::LongNardy, X).unwrap();
    let p = nardy.partial_play(text("24/21").moves(), d(3, 3)).unwrap();
    assert_eq!((p.completions, p.remaining.len()), (2, 3));
}

#[test]
fn move_text() {
    use bgref_core::notation::move_text::MoveText;
    // Plays print in gnubg's notation (pins as `*`) and parse back.
    let p = pos(Game::Plakoto, X, &[(12, 2)], &[(16, 1)], NO);
    let (_, play) = p.play(&text("12/9 12/10"), d(3, 2)).unwrap();
    let written = MoveText::format(&play);
    assert_eq!(written, "12/10 12/9*");
    let parsed: MoveText = written.parse().unwrap();
    let (again, replayed) = p.play_text(&parsed, d(3, 2)).unwrap();
    assert_eq!(again, p.after(&play));
    assert_eq!(MoveText::format(&replayed), written);
    let nardy = TablesPosition::start(Game::LongNardy, X).unwrap();
    let fold: MoveText = "24/16(2)".parse().unwrap();
    assert!(nardy.play_text(&fold, d(4, 4)).is_ok());
    // x's 12 is o's head.
    let blocked: MoveText = "24/20/16/12 24/20".parse().unwrap();
    assert_eq!(
        nardy.play_text(&blocked, d(4, 4)).err(),
        Some(TablesIllegalPlay::Blocked(Point::new(12)))
    );
}

/// A random valid position: checkers off, in the home board or anywhere
/// (with `bear_off`, the player on roll's only off or home), pins where
/// Plakoto allows them (random games rarely reach Plakoto's
/// bear-off, which the mother rule usually cuts short).
fn random_position(
    game: Game,
    rules: TablesRules,
    bear_off: bool,
    rng: &mut Rng,
) -> Option<TablesPosition> {
    let mut s = TablesSetup::empty(game, if rng.below(2) == 0 { X } else { O });
    s.rules = rules;
    let mut ph = Phys {
        x: [0; 25],
        o: [0; 25],
        pin: [0; 25],
        off: [0; 2],
    };
    for player in Player::ALL {
        for _ in 0..15 {
            let own = if bear_off && player == s.turn {
                if rng.below(5) == 0 {
                    0
                } else {
                    rng.below(6) as u8 + 1
                }
            } else {
                match rng.below(20) {
                    0..=2 => 0,
                    3..=12 => rng.below(6) as u8 + 1,
                    _ => rng.below(24) as u8 + 1,
                }
            };
            if own == 0 {
                ph.off[idx(player)] += 1;
                continue;
            }
            let c = cell(game, player, own);
            let (mine, theirs) = (ph.count(player, c), ph.count(!player, c));
            let ok = if theirs == 0 {
                ph.pin[c] != sign(player)
            } else if game != Game::Plakoto {
                false
            } else if ph.pin[c] == sign(!player) {
                true // stack on a pinned opposing checker
            } else if ph.pin[c] == 0 && mine == 0 && theirs == 1 && rng.below(2) == 0 {
                ph.pin[c] = sign(!player); // pin it
                true
            } else if ph.pin[c] == 0 && mine == 0 {
                ph.pin[c] = sign(player); // lie pinned under them
                true
            } else {
                false
            };
            if ok {
                *ph.count_mut(player, c) += 1;
            } else {
                ph.off[idx(player)] += 1;
            }
        }
    }
    for player in Player::ALL {
        for own in 1..=24u8 {
            let c = cell(game, player, own);
            s.points[player][usize::from(own - 1)] = ph.count(player, c);
            s.pinned[player][usize::from(own - 1)] = ph.pin[c] == sign(player);
        }
        s.off[player] = ph.off[idx(player)];
    }
    TablesPosition::from_setup(&s).ok()
}

#[test]
fn naive_and_fast_generators_agree_on_random_setups() {
    let mut rng = Rng(0xDEC0_DED5);
    let other = TablesRules {
        mother: MotherRule::Immediate,
        fevga_start: FevgaStart::ReachStartQuarter,
        primes: Some(PrimeRule::Free),
        head_doubles: HeadDoubles::SixFour,
        ..TablesRules::DEFAULT
    };
    let checker_ahead = TablesRules {
        primes: Some(PrimeRule::NeedsCheckerAhead),
        ..TablesRules::DEFAULT
    };
    let open = |primes| TablesRules {
        primes: Some(primes),
        ..TablesRules::DEFAULT
    };
    for game in [Game::Plakoto, Game::Fevga, Game::LongNardy] {
        let (mut positions, mut pairs, mut plays) = (0, 0, 0);
        while positions < 400 {
            let rules = match positions % 8 {
                3 | 7 => other,
                1 | 5 => checker_ahead,
                2 => open(PrimeRule::OpenWhenBlocked),
                6 => open(PrimeRule::OpenWhenStuck),
                _ => TablesRules::DEFAULT,
            };
            let bear_off = positions % 2 == 0;
            let Some(pos) = random_position(game, rules, bear_off, &mut rng) else {
                continue;
            };
            round_trips(&pos);
            let setup = pos.to_setup();
            assert_eq!(
                pos.outcome().map(|o| (o.winner, o.points)),
                naive_outcome(&setup),
                "{setup:?}"
            );
            for dice in Dice::ALL_21 {
                let fast = agreed_plays(&pos, &setup, dice);
                let n = fast.len();
                for play in pos.legal_plays(dice).iter() {
                    assert!(pos.is_legal(play, dice));
                }
                pairs += 1;
                plays += n;
            }
            positions += 1;
        }
        eprintln!(
            "{game}, random setups: {positions} positions, {pairs} pairs, {plays} plays: all agree"
        );
    }
}

/// A random Fevga or Long Nardy position where the player on roll holds a
/// six-point prime with every opposing checker on the board behind it
/// (the case of "Fevga / Primes", open_when_blocked, that random games
/// seldom reach): the row, then the mover's other checkers anywhere, then
/// the opponent's behind the row (or off). With `stuck`, every opposing
/// checker left on the board stands on the point right behind the row
/// (open_when_stuck's case: the opponent cannot move).
fn random_blocked_position(
    game: Game,
    rules: TablesRules,
    stuck: bool,
    rng: &mut Rng,
) -> Option<TablesPosition> {
    let turn = if rng.below(2) == 0 { X } else { O };
    let mut s = TablesSetup::empty(game, turn);
    s.rules = rules;
    let opp = !turn;
    let b = rng.below(19) as u8 + 1;
    let mut ph = Phys {
        x: [0; 25],
        o: [0; 25],
        pin: [0; 25],
        off: [0; 2],
    };
    for q in b..b + 6 {
        *ph.count_mut(turn, cell(game, opp, q)) += 1;
    }
    for _ in 0..9 {
        let own = rng.below(25) as u8;
        if own == 0 {
            ph.off[idx(turn)] += 1;
        } else {
            *ph.count_mut(turn, cell(game, turn, own)) += 1;
        }
    }
    if stuck && b + 6 > 24 {
        return None;
    }
    for _ in 0..15 {
        let q = if stuck {
            b + 6
        } else {
            b + 6 + rng.below(usize::from(25 - b - 6) + 1) as u8
        };
        if q > 24 || rng.below(10) == 0 {
            ph.off[idx(opp)] += 1;
            continue;
        }
        let c = cell(game, opp, q);
        if ph.count(turn, c) > 0 {
            ph.off[idx(opp)] += 1;
        } else {
            *ph.count_mut(opp, c) += 1;
        }
    }
    for player in Player::ALL {
        for own in 1..=24u8 {
            s.points[player][usize::from(own - 1)] = ph.count(player, cell(game, player, own));
        }
        s.off[player] = ph.off[idx(player)];
    }
    let pos = TablesPosition::from_setup(&s).ok()?;
    (pos.outcome().is_none() && naive_blocks_fully(game, &ph, turn)).then_some(pos)
}

#[test]
fn naive_and_fast_generators_agree_when_a_prime_must_open() {
    let mut rng = Rng(0x0BE2_7E11);
    let (owb, ows) = (
        Some(PrimeRule::OpenWhenBlocked),
        Some(PrimeRule::OpenWhenStuck),
    );
    // (game, rule, opponent stuck, whether the rule obliges the mover).
    for (game, primes, stuck, obliged) in [
        (Game::Fevga, owb, false, true),
        (Game::LongNardy, owb, false, true),
        (Game::Fevga, None, true, true),
        (Game::LongNardy, ows, true, true),
        (Game::Fevga, None, false, false),
        (Game::LongNardy, ows, false, false),
    ] {
        let rules = TablesRules {
            primes,
            ..TablesRules::DEFAULT
        };
        let (mut positions, mut pairs, mut plays, mut narrowed, mut kept) = (0, 0, 0, 0, 0);
        while positions < 120 {
            let Some(pos) = random_blocked_position(game, rules, stuck, &mut rng) else {
                continue;
            };
            let setup = pos.to_setup();
            for dice in Dice::ALL_21 {
                let fast = agreed_plays(&pos, &setup, dice);
                let n = fast.len();
                let all = naive_dice_plays(&setup, dice).len();
                if all > n {
                    narrowed += 1;
                    // A dropped play is refused with the reason.
                    let free = pos.with_rules(TablesRules {
                        primes: Some(PrimeRule::Free),
                        ..rules
                    });
                    let free_plays = free.legal_plays(dice);
                    for play in free_plays
                        .iter()
                        .filter(|p| !fast.contains(&phys_after(&pos, p)))
                        .take(2)
                    {
                        {
                            assert_eq!(
                                pos.play(play, dice).err(),
                                Some(TablesIllegalPlay::MustOpenPrime),
                                "{setup:?} {dice} {play}"
                            );
                        }
                    }
                } else if n > 0 {
                    kept += 1;
                }
                pairs += 1;
                plays += n;
            }
            positions += 1;
        }
        let rule = rules.prime_rule(game);
        eprintln!(
            "{game} ({rule:?}), mover fully blocking, opponent stuck {stuck}: {positions} \
             positions, {pairs} pairs, {plays} plays: all agree; the rule narrowed {narrowed} \
             pairs, kept every play in {kept}"
        );
        if obliged {
            assert!(narrowed > 1000 && kept > 0, "{narrowed} {kept}");
        } else {
            // The opponent can move in most of these: the rule rarely
            // applies.
            assert!(narrowed < 500, "{narrowed} {kept}");
        }
    }
}

/// A random Plakoto position aimed at the mother rule: the opponent of the
/// player on roll has its mother alone on its start (the mover's 1-point),
/// pinned there already in a third of them; the mover has most checkers
/// on its points 1 to 8, in half of them one or two still on its own start,
/// and in a quarter its own mother pinned.
fn random_mother_position(rules: TablesRules, rng: &mut Rng) -> Option<TablesPosition> {
    let game = Game::Plakoto;
    let turn = if rng.below(2) == 0 { X } else { O };
    let opp = !turn;
    let mut s = TablesSetup::empty(game, turn);
    s.rules = rules;
    let (mut mover, mut them) = ([0u8; 25], [0u8; 25]);
    let (mut mover_pinned, mut them_pinned) = (0u32, 0u32);
    // The opponent's mother, and the mover's start.
    them[24] = 1;
    if rng.below(3) == 0 {
        mover[1] = 1 + rng.below(2) as u8;
        them_pinned |= 1 << 24;
    }
    match rng.below(4) {
        0 => {
            // The mover's mother pinned by the opponent (its 1-point).
            mover[24] = 1;
            mover_pinned |= 1 << 24;
            them[1] = 1 + rng.below(2) as u8;
        }
        1 | 2 => mover[24] = 1 + rng.below(2) as u8,
        _ => {}
    }
    let placed = |mine: &[u8; 25], theirs: &[u8; 25], own: u8| {
        // `own` in the placing player's numbering; Plakoto: 25 - own.
        let other = usize::from(25 - own);
        mine[usize::from(own)] < 15 && theirs[other] == 0
    };
    while mover.iter().sum::<u8>() < 15 {
        let own = match rng.below(10) {
            0..=1 => 0,
            2..=8 => rng.below(8) as u8 + 1,
            _ => rng.below(23) as u8 + 1,
        };
        if own == 0 || (placed(&mover, &them, own) && own != 24) {
            mover[usize::from(own)] += 1;
        } else {
            mover[0] += 1;
        }
    }
    while them.iter().sum::<u8>() < 15 {
        let own = match rng.below(10) {
            0 => 0,
            _ => rng.below(22) as u8 + 2,
        };
        if own == 0 || placed(&them, &mover, own) {
            them[usize::from(own)] += 1;
        } else {
            them[0] += 1;
        }
    }
    for (player, counts, pins) in [(turn, mover, mover_pinned), (opp, them, them_pinned)] {
        s.off[player] = counts[0];
        s.points[player].copy_from_slice(&counts[1..]);
        for (i, pin) in s.pinned[player].iter_mut().enumerate() {
            *pin = pins & (2 << i) != 0;
        }
    }
    let pos = TablesPosition::from_setup(&s).ok()?;
    pos.outcome().is_none().then_some(pos)
}

#[test]
fn naive_and_fast_generators_agree_on_mother_setups() {
    // "Plakoto / The mother rule": the move that pins the mother (or
    // leaves the pinner's start) ends the game and the turn.
    let mut rng = Rng(0x0307_4E55);
    for mother in [MotherRule::Standard, MotherRule::Immediate, MotherRule::Off] {
        let rules = TablesRules {
            mother,
            ..TablesRules::DEFAULT
        };
        let (mut positions, mut pairs, mut plays, mut ending, mut short) = (0, 0, 0, 0, 0);
        while positions < 300 {
            let Some(pos) = random_mother_position(rules, &mut rng) else {
                continue;
            };
            let setup = pos.to_setup();
            for dice in Dice::ALL_21 {
                let fast = agreed_plays(&pos, &setup, dice);
                let n = fast.len();
                let list = pos.legal_plays(dice);
                let max = list.moves_per_play();
                let mut ends = false;
                for play in list.iter() {
                    let (next, _) = pos.play(play, dice).expect("a generated play is legal");
                    if next.outcome().is_some() {
                        ends = true;
                        short += usize::from(play.len() < max);
                    } else {
                        assert_eq!(play.len(), max, "{setup:?} {dice} {play}");
                    }
                    let partial = pos.partial_play(play.moves(), dice).unwrap();
                    assert!(partial.complete, "{setup:?} {dice} {play}");
                }
                ending += usize::from(ends);
                pairs += 1;
                plays += n;
            }
            positions += 1;
        }
        eprintln!(
            "Plakoto mother setups ({mother:?}): {positions} positions, {pairs} pairs, {plays} \
             plays: all agree; a play ended the game in {ending} pairs, {short} plays with \
             dice left"
        );
        if mother == MotherRule::Off {
            assert_eq!(short, 0);
        } else {
            assert!(ending > 500 && short > 100, "{ending} {short}");
        }
    }
}

#[test]
fn probe_plakoto_where_the_backgammon_generator_applies() {
    // Plakoto's plays come from the backgammon generator unless a move may
    // end the game with dice left (then the search); both sides of each
    // boundary against the naive generator. o: the mother alone on its 24
    // (x's 1), 14 on x's 10.
    let mother = &[(24, 1), (15, 14)][..];
    // The mother can be pinned only with the last die (8/4/1* or 8/5/1*):
    // that play ends the game using both dice, as backgammon counts it.
    let p = pos(Game::Plakoto, X, &[(8, 1), (13, 5)], mother, NO);
    agree(&p, d(4, 3));
    let (won, _) = p.play(&text("8/4/1"), d(4, 3)).unwrap();
    assert_eq!(won.outcome().map(|o| o.kind), Some(OutcomeKind::Mother));
    // With one die (5/1*): the play ends the game with a die left.
    let q = pos(Game::Plakoto, X, &[(5, 1), (13, 5)], mother, NO);
    agree(&q, d(4, 3));
    assert!(q.legal_plays(d(4, 3)).iter().any(|p| p.len() == 1));
    // 3/off, then the pin from 4 (a double, the pin out of the order the
    // search otherwise keeps): a play of its own beside 4/1*.
    let r = pos(
        Game::Plakoto,
        X,
        &[(5, 1), (4, 1), (3, 1), (2, 2)],
        mother,
        NO,
    );
    agree(&r, d(3, 3));
    assert!(r.play(&text("3/off 4/1"), d(3, 3)).is_ok());
    // The last checkers: borne off with the last die, or with one left.
    let far = &[(10, 15)][..];
    agree(&pos(Game::Plakoto, X, &[(3, 1), (2, 1)], far, NO), d(3, 2));
    agree(&pos(Game::Plakoto, X, &[(3, 1)], far, NO), d(3, 2));
    agree(&pos(Game::Plakoto, X, &[(2, 2), (3, 2)], far, NO), d(1, 1));
    agree(&pos(Game::Plakoto, X, &[(2, 1), (3, 2)], far, NO), d(1, 1));
    // Standard rule, the mother pinned already: the game ends when x's
    // last checker leaves its 24-point. With 3-3 the 21-point (o's 4) is
    // blocked, so it cannot; with 2-2 it can.
    let s = pos(
        Game::Plakoto,
        X,
        &[(24, 1), (1, 1), (13, 4)],
        &[(24, 1), (4, 2), (15, 12)],
        (&[], &[24]),
    );
    assert_eq!(s.outcome(), None);
    agree(&s, d(3, 3));
    agree(&s, d(2, 2));
    agree(&s, d(3, 2));
    let (won, _) = s.play(&text("24/22 13/7"), d(2, 2)).unwrap();
    assert_eq!(won.outcome().map(|o| o.kind), Some(OutcomeKind::Mother));
}

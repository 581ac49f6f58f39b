//! [`TablesPosition`]: a checked Plakoto, Fevga or Long Nardy position with
//! the player on roll.

use alloc::string::ToString;
use alloc::vec::Vec;

use crate::notation::move_text::MoveText;
use crate::notation::position_id::PositionId;
use crate::tables::error::{TablesIllegalPlay, TablesPositionError};
use crate::tables::game::Game;
use crate::tables::movegen::{self, Ctx, St};
use crate::tables::outcome::{OutcomeKind, TablesOutcome};
use crate::tables::rules::{HeadDoubles, MotherRule, PrimeRule, TablesRules};
use crate::tables::setup::{CHECKERS, TablesSetup, other_view};
use crate::{ByPlayer, Dice, Die, Move, PartialPlay, Play, Player, Point};

/// The legal plays of a position for one roll, one per distinct resulting
/// position. Empty when the player cannot move (the turn passes).
#[derive(Debug, Clone, Default)]
pub struct TablesPlayList {
    entries: Vec<(u128, Play)>,
}

impl TablesPlayList {
    /// The number of distinct plays.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no legal play (the turn passes).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The plays, in generation order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Play> + '_ {
        self.entries.iter().map(|(_, p)| p)
    }

    /// The play at `index`.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<&Play> {
        self.entries.get(index).map(|(_, p)| p)
    }

    /// The most single-die moves a play makes (0 when empty): every play
    /// makes that many, but one that ends the game, which may make fewer
    /// (Plakoto's mother rule ends the game, and the turn, at the move that
    /// pins the mother).
    #[must_use]
    pub fn moves_per_play(&self) -> usize {
        self.entries.iter().map(|(_, p)| p.len()).max().unwrap_or(0)
    }

    fn find(&self, key: u128) -> Option<&Play> {
        self.entries.iter().find(|(k, _)| *k == key).map(|(_, p)| p)
    }
}

impl<'a> IntoIterator for &'a TablesPlayList {
    type Item = &'a Play;
    type IntoIter =
        core::iter::Map<core::slice::Iter<'a, (u128, Play)>, fn(&'a (u128, Play)) -> &'a Play>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(_, p)| p)
    }
}

/// A valid Plakoto, Fevga or Long Nardy position: both players' checkers,
/// pins (Plakoto), the rule options and the player on roll.
///
/// Built only by [`TablesPosition::from_setup`] or [`TablesPosition::start`].
/// Plays use the backgammon [`Play`] and [`Move`] types with points in the
/// mover's own numbering (24 down to 1, 0 = off; there is no bar); a move
/// that pins a checker in Plakoto is marked as a hit ([`Move::is_hit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TablesPosition {
    game: Game,
    rules: TablesRules,
    turn: Player,
    /// Each player's counts from its own view: 0 off, 1..=24 points.
    side: ByPlayer<[u8; 25]>,
    /// Bit `p` (own numbering): that player's checker on `p` is pinned.
    pinned: ByPlayer<u32>,
}

impl TablesPosition {
    /// The start of `game` with `turn` on roll and the default rules.
    ///
    /// # Errors
    /// [`TablesPositionError::NOT_TABLES_GAME`] for Portes and Tavla.
    pub fn start(game: Game, turn: Player) -> Result<TablesPosition, TablesPositionError> {
        TablesPosition::from_setup(&TablesSetup::start(game, turn))
    }

    /// Checks a setup.
    ///
    /// # Errors
    /// Every problem found, as a set of [`TablesPositionError`] flags.
    pub fn from_setup(setup: &TablesSetup) -> Result<TablesPosition, TablesPositionError> {
        let mut err = TablesPositionError::empty();
        let game = setup.game;
        if !game.is_tables_engine() {
            err |= TablesPositionError::NOT_TABLES_GAME;
        }
        let mut side = ByPlayer {
            x: [0u8; 25],
            o: [0u8; 25],
        };
        let mut pinned = ByPlayer { x: 0u32, o: 0u32 };
        for player in Player::ALL {
            let total = setup.points[player]
                .iter()
                .map(|&n| u32::from(n))
                .sum::<u32>()
                + u32::from(setup.off[player]);
            if total != u32::from(CHECKERS) {
                err |= player.fold(
                    TablesPositionError::X_CHECKER_COUNT,
                    TablesPositionError::O_CHECKER_COUNT,
                );
            }
            side[player][0] = setup.off[player];
            side[player][1..].copy_from_slice(&setup.points[player]);
            for (i, &pin) in setup.pinned[player].iter().enumerate() {
                if pin {
                    pinned[player] |= 1 << (i + 1);
                }
            }
        }
        for x_point in 1..=24u8 {
            let o_point = other_view(game, x_point);
            let (xi, oi) = (usize::from(x_point), usize::from(o_point));
            let (xn, on) = (side.x[xi], side.o[oi]);
            let xp = pinned.x & (1 << x_point) != 0;
            let op = pinned.o & (1 << o_point) != 0;
            let pin_ok =
                |pinned_n: u8, other_n: u8| game == Game::Plakoto && pinned_n == 1 && other_n > 0;
            if (xp && (op || !pin_ok(xn, on))) || (op && !pin_ok(on, xn)) {
                err |= TablesPositionError::BAD_PIN;
            } else if xn > 0 && on > 0 && !xp && !op {
                err |= TablesPositionError::SHARED_POINT;
            }
        }
        if err.is_empty() && side.x[0] == CHECKERS && side.o[0] == CHECKERS {
            err |= TablesPositionError::BOTH_FINISHED;
        }
        if !err.is_empty() {
            return Err(err);
        }
        Ok(TablesPosition {
            game,
            rules: setup.rules,
            turn: setup.turn,
            side,
            pinned,
        })
    }

    /// The setup of this position. Total.
    #[must_use]
    pub fn to_setup(&self) -> TablesSetup {
        let mut setup = TablesSetup::empty(self.game, self.turn);
        setup.rules = self.rules;
        for player in Player::ALL {
            setup.off[player] = self.side[player][0];
            setup.points[player].copy_from_slice(&self.side[player][1..]);
            for (i, pin) in setup.pinned[player].iter_mut().enumerate() {
                *pin = self.pinned[player] & (1 << (i + 1)) != 0;
            }
        }
        setup
    }

    /// The game.
    #[must_use]
    pub const fn game(&self) -> Game {
        self.game
    }

    /// The rule options.
    #[must_use]
    pub const fn rules(&self) -> TablesRules {
        self.rules
    }

    /// The same position under other rule options.
    #[must_use]
    pub const fn with_rules(mut self, rules: TablesRules) -> TablesPosition {
        self.rules = rules;
        self
    }

    /// The player on roll.
    #[must_use]
    pub const fn turn(&self) -> Player {
        self.turn
    }

    /// The checkers of `player` from its own view: index 0 borne off, 1 to
    /// 24 its points (pinned checkers included).
    #[must_use]
    pub const fn side(&self, player: Player) -> &[u8; 25] {
        self.side.get(player)
    }

    /// `player`'s pinned checkers: bit `p` set for its own point `p`.
    pub(crate) const fn pin_mask(&self, player: Player) -> u32 {
        *self.pinned.get(player)
    }

    /// Whether `player`'s checker on its own point `point` is pinned.
    #[must_use]
    pub fn is_pinned(&self, player: Player, point: Point) -> bool {
        point.get() <= 24 && self.pinned[player] & (1 << point.get()) != 0
    }

    /// The checkers as a gnubg Position ID, for Fevga and Long Nardy: each
    /// side's own-view counts, the bar empty. gnubg itself would read the ID
    /// as a backgammon position (other geometry), so it only identifies a
    /// position together with the game. `None` for Plakoto, whose pins the
    /// ID cannot carry.
    #[must_use]
    pub fn position_id(&self) -> Option<PositionId> {
        if self.game == Game::Plakoto {
            return None;
        }
        let mut id = PositionId {
            on_roll: [0; 25],
            opponent: [0; 25],
        };
        id.on_roll[..24].copy_from_slice(&self.side[self.turn][1..]);
        id.opponent[..24].copy_from_slice(&self.side[!self.turn][1..]);
        Some(id)
    }

    /// The same checkers with the other player on roll.
    #[must_use]
    pub fn swap_turn(&self) -> TablesPosition {
        TablesPosition {
            turn: !self.turn,
            ..*self
        }
    }

    /// Pips `player` needs to bear off every checker.
    #[must_use]
    pub fn pip_count(&self, player: Player) -> u32 {
        self.side[player]
            .iter()
            .enumerate()
            .map(|(p, &n)| p as u32 * u32::from(n))
            .sum()
    }

    /// How the game ended, or `None` while it goes on. See
    /// [`TablesOutcome`] for the rules.
    #[must_use]
    pub fn outcome(&self) -> Option<TablesOutcome> {
        for winner in Player::ALL {
            if self.side[winner][0] == CHECKERS {
                let none_off = self.side[!winner][0] == 0;
                return Some(TablesOutcome {
                    winner: Some(winner),
                    kind: if none_off {
                        OutcomeKind::Double
                    } else {
                        OutcomeKind::Single
                    },
                    points: if none_off { 2 } else { 1 },
                });
            }
        }
        if self.game != Game::Plakoto || self.rules.mother == MotherRule::Off {
            return None;
        }
        let mother_pinned = |p: Player| self.side[p][24] == 1 && self.pinned[p] & (1 << 24) != 0;
        let (x, o) = (mother_pinned(Player::X), mother_pinned(Player::O));
        if x && o {
            return Some(TablesOutcome {
                winner: None,
                kind: OutcomeKind::Draw,
                points: 0,
            });
        }
        for loser in Player::ALL {
            let pinner_home =
                self.side[!loser][24] > 0 && self.rules.mother == MotherRule::Standard;
            if mother_pinned(loser) && !pinner_home {
                return Some(TablesOutcome {
                    winner: Some(!loser),
                    kind: OutcomeKind::Mother,
                    points: 2,
                });
            }
        }
        None
    }

    /// The mover's view of the turn.
    pub(crate) fn ctx(&self, dice: Dice) -> (Ctx, St) {
        // Filled in place (a returned pair taken apart and put together
        // again is copied twice).
        let mut turn = self.ctx_of(self.turn, dice);
        let (ctx, start) = (&turn.0, &turn.1);
        turn.0.must_open = matches!(self.game, Game::Fevga | Game::LongNardy)
            && match ctx.prime {
                PrimeRule::OpenWhenBlocked => movegen::blocks_fully(ctx, start.occ),
                PrimeRule::OpenWhenStuck => {
                    movegen::blocks_fully(ctx, start.occ) && self.cannot_move(!self.turn)
                }
                PrimeRule::NeedsCheckerAhead | PrimeRule::Free => false,
            };
        turn
    }

    /// Whether no die moves any checker of `player` here (its first move
    /// of a turn, every rule checked).
    fn cannot_move(&self, player: Player) -> bool {
        let (ctx, start) = self.ctx_of(player, Dice::new(Die::new(1), Die::new(2)));
        (1..=6u8).all(|d| {
            (1..=24u8).all(|from| {
                start.me[usize::from(from)] == 0 || movegen::step(&ctx, &start, from, d).is_err()
            })
        })
    }

    /// `mover`'s view of a turn (without the obligation to open a prime).
    fn ctx_of(&self, mover: Player, dice: Dice) -> (Ctx, St) {
        let me = self.side[mover];
        let them = &self.side[!mover];
        // The opponent's points in the mover's numbering (`other_view`):
        // reversed in Plakoto, turned by half the board in the others.
        let mut opp = [0u8; 25];
        if matches!(self.game, Game::Fevga | Game::LongNardy) {
            opp[13..25].copy_from_slice(&them[1..13]);
            opp[1..13].copy_from_slice(&them[13..25]);
        } else {
            opp[1..25].copy_from_slice(&them[1..25]);
            opp[1..25].reverse();
        }
        let opp_low = (1..=24u8).find(|&q| them[usize::from(q)] > 0).unwrap_or(25);
        let mut opp_pinned = 0u32;
        let mut pins = self.pinned[!mover];
        while pins != 0 {
            let q = pins.trailing_zeros() as u8;
            pins &= pins - 1;
            opp_pinned |= 1 << other_view(self.game, q);
        }
        let first_roll_double = me[24] == CHECKERS
            && dice.is_double()
            && matches!(
                (self.rules.head_doubles, dice.first().get()),
                (_, 6 | 4) | (HeadDoubles::SixFourThree, 3)
            );
        let ctx = Ctx {
            game: self.game,
            rules: self.rules,
            opp,
            my_pinned: self.pinned[mover],
            opp_low,
            head_start: me[24],
            head_limit: if first_roll_double { 2 } else { 1 },
            prime: self.rules.prime_rule(self.game),
            must_open: false,
        };
        (ctx, St::new(me, opp_pinned))
    }

    /// The position after the mover reached state `s`, opponent on roll.
    fn with_state(&self, s: &St) -> TablesPosition {
        let mut next = *self;
        next.side[self.turn] = s.me;
        let mut pins = 0u32;
        for p in 1..=24u8 {
            if s.opp_pinned & (1 << p) != 0 {
                pins |= 1 << other_view(self.game, p);
            }
        }
        next.pinned[!self.turn] = pins;
        next.turn = !self.turn;
        next
    }

    /// Every legal play for `dice`, one per distinct resulting position;
    /// empty when the player cannot move or the game is over.
    // Never inlined: the instruction counts of bench/README.md ("The
    // tables generators") are collected under callgrind by this name.
    #[must_use]
    #[inline(never)]
    pub fn legal_plays(&self, dice: Dice) -> TablesPlayList {
        if self.outcome().is_some() {
            return TablesPlayList::default();
        }
        let (ctx, start) = self.ctx(dice);
        TablesPlayList {
            entries: movegen::legal_entries(&ctx, &start, dice),
        }
    }

    /// The position after `play` with the opponent on roll. The play is not
    /// checked against the dice or the rules.
    ///
    /// # Panics
    /// When a move starts where the mover has no checker, or a move is not
    /// from a point 1 to 24 to a lower point or off. Plays from
    /// [`TablesPosition::legal_plays`] never panic.
    pub fn play_unchecked(&mut self, play: &Play) {
        let (ctx, mut s) = self.ctx(Dice::new(Die::new(1), Die::new(2)));
        for mv in play.moves() {
            let (from, to) = (mv.from().get(), mv.to().get());
            assert!(
                (1..=24).contains(&from) && to < from && s.me[usize::from(from)] > 0,
                "not a move of a checker of the player on roll"
            );
            s = s.moved(&ctx, from, to);
        }
        *self = self.with_state(&s);
    }

    /// The position after a play from [`TablesPosition::legal_plays`]
    /// (opponent on roll).
    ///
    /// # Panics
    /// As [`TablesPosition::play_unchecked`].
    #[must_use]
    pub fn after(&self, play: &Play) -> TablesPosition {
        let mut next = *self;
        next.play_unchecked(play);
        next
    }

    /// Whether `play` is legal for `dice`.
    #[must_use]
    pub fn is_legal(&self, play: &Play, dice: Dice) -> bool {
        self.check_play(play, dice).is_ok()
    }

    /// Plays `play` for `dice` and returns the new position (opponent on
    /// roll) with the legal play it matched (single-die moves, pins marked
    /// as hits).
    ///
    /// A play is legal when it reaches the same position as a legal play.
    /// Its moves may each use one die or several (one checker moving on,
    /// every touch-down checked), in any order that reaches that position.
    ///
    /// # Errors
    /// [`TablesIllegalPlay`] with the precise reason when the play is not
    /// legal.
    pub fn play(
        &self,
        play: &Play,
        dice: Dice,
    ) -> Result<(TablesPosition, Play), TablesIllegalPlay> {
        let legal = self.check_play(play, dice)?;
        Ok((self.after(&legal), legal))
    }

    /// Plays a play written in move notation
    /// ([`crate::notation::move_text::MoveText`], e.g. `24/18/13` or
    /// `12/9*(2)`); chains may be written whole or hop by hop, `*` marks are
    /// ignored (pins follow from the board), moves in any order.
    ///
    /// # Errors
    /// As [`TablesPosition::play`]; [`TablesIllegalPlay::TooManyMoves`]
    /// when the text has more than four moves.
    pub fn play_text(
        &self,
        text: &MoveText,
        dice: Dice,
    ) -> Result<(TablesPosition, Play), TablesIllegalPlay> {
        let mut moves = Vec::new();
        for segment in &text.segments {
            for _ in 0..segment.count {
                for pair in segment.path.windows(2) {
                    moves.push(Move::new(pair[0].0, pair[1].0));
                }
            }
        }
        let play = Play::new(&moves).ok_or(TablesIllegalPlay::TooManyMoves)?;
        match self.play(&play, dice) {
            Err(err) if self.outcome().is_none() => {
                // A play as the referee writes it: a chain may fold hops
                // played apart (`10/off` for 10/4, another checker's
                // 6/off, then 4/off), which no order of the whole moves
                // replays. Pins (`*`) follow from the board.
                let written = text.to_string().replace('*', "");
                self.legal_plays(dice)
                    .iter()
                    .find(|p| p.to_string().replace('*', "") == written)
                    .map(|found| (self.after(found), *found))
                    .ok_or(err)
            }
            answer => answer,
        }
    }

    /// What is known about an unfinished turn: `moves` in the order
    /// played (each may use one die or several).
    ///
    /// # Errors
    /// [`TablesIllegalPlay`] when a move is not legal where it is played or
    /// no legal play begins with these moves.
    pub fn partial_play(
        &self,
        moves: &[Move],
        dice: Dice,
    ) -> Result<PartialPlay, TablesIllegalPlay> {
        use TablesIllegalPlay as E;
        if self.outcome().is_some() {
            return Err(E::GameOver);
        }
        let legal = self.legal_plays(dice);
        let max = legal.moves_per_play();
        if legal.is_empty() && !moves.is_empty() {
            return Err(E::NoMovePossible);
        }
        let (ctx, start) = self.ctx(dice);
        let (s, used) = self.replay(&ctx, &start, moves, dice)?;
        if used.len() > max {
            return Err(E::TooManyMoves);
        }
        let mut left: Vec<u8> = dice.to_play();
        for d in &used {
            if let Some(i) = left.iter().position(|x| x == d) {
                left.remove(i);
            }
        }
        let mut keys = movegen::keys_after(&ctx, &s, &left, max - used.len());
        keys.sort_unstable();
        keys.dedup();
        let completions = keys.iter().filter(|&&k| legal.find(k).is_some()).count();
        if completions == 0 && !legal.is_empty() {
            return Err(if complete_here(&ctx, &s, used.len(), max) {
                self.check_play(&s.play, dice).err().unwrap_or(E::NotLegal)
            } else {
                E::NotLegal
            });
        }
        let complete = complete_here(&ctx, &s, used.len(), max);
        let mut remaining: Vec<Die> = if complete {
            Vec::new()
        } else {
            left.iter().filter_map(|&d| Die::try_from(d).ok()).collect()
        };
        remaining.truncate(max - used.len());
        Ok(PartialPlay {
            moves: s.play.moves().to_vec(),
            remaining,
            complete,
            completions,
        })
    }

    fn check_play(&self, play: &Play, dice: Dice) -> Result<Play, TablesIllegalPlay> {
        use TablesIllegalPlay as E;
        if self.outcome().is_some() {
            return Err(E::GameOver);
        }
        let legal = self.legal_plays(dice);
        match (play.is_empty(), legal.is_empty()) {
            (true, true) => return Ok(Play::EMPTY),
            (true, false) => return Err(E::MustMove),
            (false, true) => return Err(E::NoMovePossible),
            (false, false) => {}
        }
        let (ctx, start) = self.ctx(dice);
        // The moves in the order given, each die legal where it is played.
        let replay = self.replay(&ctx, &start, play.moves(), dice);
        if let Ok((s, _)) = &replay
            && let Some(found) = legal.find(s.key)
        {
            // Keep the player's order when it is legal as played.
            return Ok(if s.play.len() == found.len() {
                s.play
            } else {
                *found
            });
        }
        // The same moves in another order (at most 4! orders).
        let moves = play.moves();
        for order in permutations(moves.len()).into_iter().skip(1) {
            let reordered: Vec<Move> = order.iter().map(|&i| moves[i]).collect();
            if let Ok((s, _)) = self.replay(&ctx, &start, &reordered, dice)
                && legal.find(s.key).is_some()
            {
                return Ok(s.play);
            }
        }
        let max = legal.moves_per_play();
        match replay {
            Err(e) => Err(e),
            Ok((s, used)) => {
                let n = s.play.len();
                let keeps_prime = ctx.must_open
                    && movegen::blocks_fully(&ctx, s.occ)
                    && movegen::dice_states(&ctx, &start, dice)
                        .iter()
                        .any(|d| d.key == s.key);
                Err(if keeps_prime {
                    E::MustOpenPrime
                } else if n > max {
                    E::TooManyMoves
                } else if n < max {
                    if dice.is_double() {
                        E::MoreMovesPossible(max as u8)
                    } else {
                        E::BothDiceCanBePlayed
                    }
                } else if max == 1 && !dice.is_double() && used.first() == Some(&dice.low().get()) {
                    E::LargerDieMustBePlayed
                } else {
                    E::NotLegal
                })
            }
        }
    }

    /// Plays `moves` in order (each may use several dice), checking every
    /// single-die step; the state reached and the dice used, or the first
    /// reason a move fails.
    fn replay(
        &self,
        ctx: &Ctx,
        start: &St,
        moves: &[Move],
        dice: Dice,
    ) -> Result<(St, Vec<u8>), TablesIllegalPlay> {
        use TablesIllegalPlay as E;
        let mut left: Vec<u8> = dice.to_play();
        let mut used = Vec::new();
        let mut s = *start;
        for mv in moves {
            let (from, to) = (mv.from().get(), mv.to().get());
            if from == 25 || (from > 0 && s.me[usize::from(from)] == 0) {
                return Err(E::NoChecker(mv.from()));
            }
            if to >= from || to == 25 {
                return Err(E::Backwards(mv.from(), mv.to()));
            }
            if movegen::ends_game(ctx, &s) {
                // The move before ended the game, and the turn.
                return Err(E::GameOver);
            }
            if left.is_empty() {
                return Err(E::TooManyMoves);
            }
            let mut reason = E::DistanceNotRolled(mv.from(), mv.to());
            let mut path = Vec::new();
            match cover(ctx, &s, from, to, &left, &mut path, &mut reason) {
                Some(next) => {
                    for d in path {
                        if let Some(i) = left.iter().position(|&x| x == d) {
                            left.remove(i);
                        }
                        used.push(d);
                    }
                    s = next;
                }
                None => return Err(reason),
            }
        }
        Ok((s, used))
    }
}

/// Whether a partial play of `used` dice reaching `s` is a whole play's
/// length: every die the plays use, or a move that ended the game.
fn complete_here(ctx: &Ctx, s: &St, used: usize, max: usize) -> bool {
    used == max || movegen::ends_game(ctx, s)
}

/// Moves one checker from `at` to `to` with some of `dice`, every step a
/// legal single move; records the dice in `path` and the most precise
/// failure in `reason`.
fn cover(
    ctx: &Ctx,
    s: &St,
    at: u8,
    to: u8,
    dice: &[u8],
    path: &mut Vec<u8>,
    reason: &mut TablesIllegalPlay,
) -> Option<St> {
    for (i, &d) in dice.iter().enumerate() {
        if dice[..i].contains(&d) {
            continue;
        }
        let next_point = at.saturating_sub(d);
        if next_point < to || (next_point == 0 && to != 0) {
            continue;
        }
        match movegen::step(ctx, s, at, d) {
            Ok(next) => {
                if next_point != to && movegen::ends_game(ctx, &next) {
                    // The touch-down ended the game: the checker stops.
                    *reason = TablesIllegalPlay::GameOver;
                    continue;
                }
                path.push(d);
                if next_point == to {
                    return Some(next);
                }
                let mut rest = dice.to_vec();
                rest.remove(i);
                if let Some(done) = cover(ctx, &next, next_point, to, &rest, path, reason) {
                    return Some(done);
                }
                path.pop();
            }
            Err(e) => *reason = e,
        }
    }
    None
}

/// Every order of `0..n` (n <= 4), the identity first.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut out = alloc::vec![(0..n).collect::<Vec<usize>>()];
    if n > 4 {
        return out;
    }
    let mut i = 0;
    while i < out.len() {
        let current = out[i].clone();
        for a in 0..n {
            for b in a + 1..n {
                let mut next = current.clone();
                next.swap(a, b);
                if !out.contains(&next) {
                    out.push(next);
                }
            }
        }
        i += 1;
    }
    out
}

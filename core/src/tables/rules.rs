//! [`TablesRules`]: the options where rule sets disagree (see
//! `docs/variants.md`); the defaults are the most common rules.

use crate::tables::game::Game;

/// Plakoto's mother rule: what happens when a player's last checker on its
/// starting point (the "mother") is pinned there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum MotherRule {
    /// The pinned player loses 2 at once, unless the pinner still has
    /// checkers on its own starting point (then play goes on, and pinning
    /// the pinner's mother too makes the game a draw).
    #[default]
    Standard,
    /// The pinned player loses 2 at once, whatever the pinner's starting
    /// point holds.
    Immediate,
    /// No mother rule: a pinned mother is an ordinary pinned checker.
    Off,
}

/// Fevga's start rule: when the second checker may leave the starting
/// point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum FevgaStart {
    /// Once a checker has passed the opponent's starting point (stands on
    /// the mover's point 11 or lower, or is borne off).
    #[default]
    PassStartPoint,
    /// Once a checker has reached the opponent's starting quarter (the
    /// mover's point 12 or lower).
    ReachStartQuarter,
    /// No start rule.
    Off,
}

/// The six-point prime rule of Fevga and Long Nardy. A prime here is six
/// points in a row held by one player, along the opponent's way; it
/// *blocks* the opponent fully when no opposing checker on the board is
/// ahead of it (past it, nearer the opponent's home).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum PrimeRule {
    /// A move may not make a prime that blocks the opponent fully (Long
    /// Nardy's usual rule).
    NeedsCheckerAhead,
    /// Primes are free (Fevga's starting-quarter rule still holds).
    Free,
    /// A prime may be built, even one that blocks the opponent fully; but a
    /// player who begins its turn with such a prime must open it: of the
    /// plays the dice rules allow, only those after which no prime of the
    /// player blocks the opponent fully, when there is one.
    OpenWhenBlocked,
    /// As [`PrimeRule::OpenWhenBlocked`], but the obligation holds only
    /// when the opponent cannot move at all: behind the prime that blocks
    /// it fully, no die moves any of its checkers (Fevga's usual rule).
    OpenWhenStuck,
}

impl PrimeRule {
    /// The usual rule of `game` where the sources read agree most: Fevga
    /// [`PrimeRule::OpenWhenStuck`], every other game
    /// [`PrimeRule::NeedsCheckerAhead`] (see `docs/variants.md`).
    #[must_use]
    pub const fn usual(game: Game) -> PrimeRule {
        match game {
            Game::Fevga => PrimeRule::OpenWhenStuck,
            _ => PrimeRule::NeedsCheckerAhead,
        }
    }
}

/// Tavla's hit-and-run option: whether a checker that hits a blot in the
/// mover's own home board may move on in the same turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum HitAndRun {
    /// Backgammon's movement: a hitter may move on.
    Allowed,
    /// A checker that hits on the mover's points 1 to 6 stays there for
    /// the rest of the turn; the dice rules (both dice, else the larger)
    /// apply to the plays that remain (Tavla's usual rule).
    #[default]
    ForbiddenInHome,
}

/// Which first rolls of Long Nardy let two checkers leave the head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum HeadDoubles {
    /// 6-6, 4-4 and 3-3.
    #[default]
    SixFourThree,
    /// 6-6 and 4-4 only.
    SixFour,
}

/// Long Nardy's opening roll: what the two single dice that pick the
/// starter are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum NardyOpening {
    /// They only pick the starter, who then rolls both dice (as in the
    /// other tables games).
    #[default]
    Reroll,
    /// They are also the starter's first roll, which it plays.
    PlayDice,
}

/// The rule options of [`crate::tables::TablesPosition`] and of the
/// referee flow; each applies to one game and is ignored by the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct TablesRules {
    /// Plakoto: the mother rule.
    pub mother: MotherRule,
    /// Fevga: when a second checker may leave the start.
    pub fevga_start: FevgaStart,
    /// Fevga and Long Nardy: six-point primes; `None` keeps each game's
    /// usual rule ([`PrimeRule::usual`]).
    pub primes: Option<PrimeRule>,
    /// Long Nardy: first rolls that take two checkers off the head.
    pub head_doubles: HeadDoubles,
    /// Tavla: hit-and-run in the home board.
    pub hit_and_run: HitAndRun,
    /// Long Nardy: whether the starter plays the opening dice (the referee
    /// flow, [`crate::tables::TablesGameState`]).
    pub nardy_opening: NardyOpening,
}

impl TablesRules {
    /// The default (most common) rules.
    pub const DEFAULT: TablesRules = TablesRules {
        mother: MotherRule::Standard,
        fevga_start: FevgaStart::PassStartPoint,
        primes: None,
        head_doubles: HeadDoubles::SixFourThree,
        hit_and_run: HitAndRun::ForbiddenInHome,
        nardy_opening: NardyOpening::Reroll,
    };

    /// The prime rule in force in `game`: the option when given, else the
    /// game's usual rule.
    #[must_use]
    pub const fn prime_rule(&self, game: Game) -> PrimeRule {
        match self.primes {
            Some(rule) => rule,
            None => PrimeRule::usual(game),
        }
    }

    /// Whether the starter of `game` plays the opening dice: with
    /// [`NardyOpening::PlayDice`] in Long Nardy, never elsewhere.
    #[must_use]
    pub const fn plays_opening_dice(&self, game: Game) -> bool {
        matches!(
            (game, self.nardy_opening),
            (Game::LongNardy, NardyOpening::PlayDice)
        )
    }

    /// The hit-and-run rule in force in `game`: the option in Tavla,
    /// [`HitAndRun::Allowed`] everywhere else.
    #[must_use]
    pub const fn hit_and_run_in(&self, game: Game) -> HitAndRun {
        match game {
            Game::Tavla => self.hit_and_run,
            _ => HitAndRun::Allowed,
        }
    }
}

//! [`TablesRules`]: the options where rule sets disagree (see
//! `docs/variants.md`); the defaults are the most common rules.

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

/// The six-point prime rule of Fevga and Long Nardy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum PrimeRule {
    /// A move may not make six points in a row (along the opponent's way)
    /// unless an opposing checker on the board is already past them.
    #[default]
    NeedsCheckerAhead,
    /// Primes are free (Fevga's starting-quarter rule still holds).
    Free,
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

/// The rule options of [`crate::tables::TablesPosition`]; each applies to
/// one game and is ignored by the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct TablesRules {
    /// Plakoto: the mother rule.
    pub mother: MotherRule,
    /// Fevga: when a second checker may leave the start.
    pub fevga_start: FevgaStart,
    /// Fevga and Long Nardy: six-point primes.
    pub primes: PrimeRule,
    /// Long Nardy: first rolls that take two checkers off the head.
    pub head_doubles: HeadDoubles,
}

impl TablesRules {
    /// The default (most common) rules.
    pub const DEFAULT: TablesRules = TablesRules {
        mother: MotherRule::Standard,
        fevga_start: FevgaStart::PassStartPoint,
        primes: PrimeRule::NeedsCheckerAhead,
        head_doubles: HeadDoubles::SixFourThree,
    };
}

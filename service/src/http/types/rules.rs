//! The rule options of the tables games in JSON: core types, spelled by
//! the core's `serde` impls; the `...Name` enums document the values in
//! the OpenAPI schema.

use bgref_core::tables::{FevgaStart, HeadDoubles, HitAndRun, MotherRule, NardyOpening, PrimeRule};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Plakoto's mother rule (`docs/variants.md`, "Plakoto").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MotherRuleName {
    /// The pinned mother loses 2 unless the pinner still has checkers on
    /// its own starting point (both mothers pinned: a draw). Default.
    Standard,
    /// The pinned mother loses 2 at once.
    Immediate,
    /// No mother rule.
    Off,
}

/// Fevga's start rule (`docs/variants.md`, "Fevga").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FevgaStartName {
    /// The first checker must pass the opponent's starting point before a
    /// second leaves the start. Default.
    PassStartPoint,
    /// The first checker must reach the opponent's starting quarter.
    ReachStartQuarter,
    /// No start rule.
    Off,
}

/// The six-point prime rule of Fevga and Long Nardy (`docs/variants.md`,
/// "Fevga"); left out: each game's usual rule, `open_when_stuck` in
/// Fevga and `needs_checker_ahead` in Long Nardy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PrimeRuleName {
    /// A six-point prime only while an opposing checker is ahead of it.
    /// Long Nardy's default.
    NeedsCheckerAhead,
    /// Primes are free.
    Free,
    /// A prime may be built; a player who begins its turn with a prime
    /// that no opposing checker is ahead of must open it if a play does.
    OpenWhenBlocked,
    /// As `open_when_blocked`, but only when the opponent cannot move at
    /// all (no die moves any of its checkers). Fevga's default.
    OpenWhenStuck,
}

/// Tavla's hit-and-run rule (`docs/variants.md`, "Tavla").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum HitAndRunName {
    /// Backgammon's movement: a checker that hits may move on.
    Allowed,
    /// A checker that hits on the mover's points 1 to 6 may not move on in
    /// the same turn. Default.
    ForbiddenInHome,
}

/// Long Nardy's opening roll (`docs/variants.md`, "The referee game
/// flow"): what the two single dice that pick the starter are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NardyOpeningName {
    /// They only pick the starter, who rolls both dice for its first turn.
    /// Default.
    Reroll,
    /// They are the starter's first roll too, played at once.
    PlayDice,
}

/// Long Nardy's first rolls that take two checkers off the head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum HeadDoublesName {
    /// 6-6, 4-4 and 3-3. Default.
    SixFourThree,
    /// 6-6 and 4-4 only.
    SixFour,
}

/// Rule options of the tables games where sources disagree
/// (`docs/variants.md`); each left out keeps its default, and each applies
/// to its own game only. Refused for the backgammon variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
pub struct TablesRulesObject {
    /// Plakoto.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<MotherRuleName>)]
    pub mother: Option<MotherRule>,
    /// Fevga.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<FevgaStartName>)]
    pub fevga_start: Option<FevgaStart>,
    /// Fevga and Long Nardy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PrimeRuleName>)]
    pub primes: Option<PrimeRule>,
    /// Long Nardy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<HeadDoublesName>)]
    pub head_doubles: Option<HeadDoubles>,
    /// Tavla.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<HitAndRunName>)]
    pub hit_and_run: Option<HitAndRun>,
    /// Long Nardy, the game flow (`POST /games`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<NardyOpeningName>)]
    pub nardy_opening: Option<NardyOpening>,
}

objects_only!(TablesRulesObject);

impl From<TablesRulesObject> for crate::api::tables::TablesRulesInput {
    fn from(o: TablesRulesObject) -> Self {
        crate::api::tables::TablesRulesInput {
            mother: o.mother,
            fevga_start: o.fevga_start,
            primes: o.primes,
            head_doubles: o.head_doubles,
            hit_and_run: o.hit_and_run,
            nardy_opening: o.nardy_opening,
        }
    }
}

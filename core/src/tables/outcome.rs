//! [`TablesOutcome`]: how a Plakoto, Fevga or Long Nardy game ended.

use crate::Player;

/// The kind of ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum OutcomeKind {
    /// The winner bore off every checker and the loser at least one: 1
    /// point.
    Single,
    /// The winner bore off every checker and the loser none (Plakoto's
    /// double win, Fevga's gammon, Long Nardy's mars): 2 points.
    Double,
    /// Plakoto: the loser's mother (last checker on its starting point) is
    /// pinned there: 2 points.
    Mother,
    /// Plakoto: both mothers are pinned: nobody scores.
    Draw,
}

impl OutcomeKind {
    /// `"single"`, `"double"`, `"mother"` or `"draw"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Single => "single",
            OutcomeKind::Double => "double",
            OutcomeKind::Mother => "mother",
            OutcomeKind::Draw => "draw",
        }
    }
}

/// How a game ended: found on the position by
/// [`crate::tables::TablesPosition::outcome`].
///
/// - A player who has borne off all 15 checkers wins 1 point, or 2 when the
///   loser has borne off none.
/// - Plakoto, [`crate::tables::MotherRule::Standard`]: a player whose last
///   checker on its own 24-point is pinned there loses 2 points, unless the
///   pinner still has checkers on its own 24-point (play goes on: the
///   pinner must leave its start some time, which ends the game, or may
///   have its own mother pinned, which draws it). Both mothers pinned: a
///   draw, 0 points. With [`crate::tables::MotherRule::Immediate`] the
///   pinned mother loses at once; with `Off` there is no such ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TablesOutcome {
    /// The winner; `None` for a draw.
    pub winner: Option<Player>,
    /// How the game ended.
    pub kind: OutcomeKind,
    /// Points won (0 for a draw).
    pub points: u32,
}

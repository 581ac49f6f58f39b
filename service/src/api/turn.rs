//! A turn as a request gives it: the variant, the position and the roll,
//! a play, and the tables games' rule options; the inputs that legal-moves
//! and apply-move share in every variant.

use bgref_core::Variant;
use bgref_core::notation::move_text::{MoveText, Segment};
use bgref_core::tables::{
    FevgaStart, HeadDoubles, HitAndRun, MotherRule, NardyOpening, PrimeRule, TablesRules,
};
use bgref_core::{Move, Point};

use super::input::PositionInput;
use crate::error::ApiError;

/// A position and a roll: the input of both operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnInput {
    /// The variant .
    pub variant: Variant,
    /// The position before the roll (`None`: left out).
    pub position: Option<PositionInput>,
    /// The two dice as given (`None`: left out, then the XGID's roll).
    pub dice: Option<Vec<i64>>,
    /// The request says the position is the start of a game.
    pub game_start: bool,
    /// Rule options of Tavla, Plakoto, Fevga and Long Nardy (`None`: the
    /// defaults).
    pub tables_rules: Option<TablesRulesInput>,
}

/// A play as a request gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayInput {
    /// gnubg-style notation.
    Notation(String),
    /// `(from, to)` pairs; each may span several dice.
    Moves(Vec<(i64, i64)>),
}

/// Input of apply-move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyMoveInput {
    /// The position and roll.
    pub turn: TurnInput,
    /// The play (`None`: left out).
    pub play: Option<PlayInput>,
    /// The moves are the start of a turn entered one die at a time.
    pub partial: bool,
}

/// The rule options of the tables games as a request gives them
/// (`docs/variants.md`); each left out keeps its default, and each applies
/// to its own game only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TablesRulesInput {
    /// Plakoto's mother rule.
    pub mother: Option<MotherRule>,
    /// Fevga's start rule.
    pub fevga_start: Option<FevgaStart>,
    /// The prime rule of Fevga and Long Nardy.
    pub primes: Option<PrimeRule>,
    /// Long Nardy's first rolls that take two checkers off the head.
    pub head_doubles: Option<HeadDoubles>,
    /// Tavla's hit-and-run rule in the home board.
    pub hit_and_run: Option<HitAndRun>,
    /// Long Nardy's opening dice (the game flow).
    pub nardy_opening: Option<NardyOpening>,
}

/// The rule options of a request for `variant`: the defaults where left
/// out; refused (`invalid-request`, field `tables_rules`) for the
/// backgammon variants, which have none of them.
pub fn read_rules(
    input: Option<&TablesRulesInput>,
    variant: Variant,
) -> Result<TablesRules, ApiError> {
    let Some(input) = input else {
        return Ok(TablesRules::DEFAULT);
    };
    if let Some(v) = variant.backgammon() {
        return Err(ApiError::invalid(
            "invalid-request",
            "tables_rules",
            format!(
                "tables_rules apply to the tables games (tavla, plakoto, fevga, long-nardy, a \
                 Tavli match), not to {v}"
            ),
        ));
    }
    let d = TablesRules::DEFAULT;
    Ok(TablesRules {
        mother: input.mother.unwrap_or(d.mother),
        fevga_start: input.fevga_start.unwrap_or(d.fevga_start),
        primes: input.primes.or(d.primes),
        head_doubles: input.head_doubles.unwrap_or(d.head_doubles),
        hit_and_run: input.hit_and_run.unwrap_or(d.hit_and_run),
        nardy_opening: input.nardy_opening.unwrap_or(d.nardy_opening),
    })
}

/// The hit-and-run rule of a turn on the backgammon board: the request's
/// option in Tavla, [`HitAndRun::Allowed`] in every other variant.
pub fn hit_and_run(input: &TurnInput) -> Result<HitAndRun, ApiError> {
    let rules = read_rules(input.tables_rules.as_ref(), input.variant)?;
    Ok(input
        .variant
        .game()
        .map_or(HitAndRun::Allowed, |game| rules.hit_and_run_in(game)))
}

/// The play of a request as move text; `field` names it in errors.
pub fn play_text(play: Option<&PlayInput>, field: &str) -> Result<MoveText, ApiError> {
    let play = play.ok_or_else(|| {
        ApiError::invalid(
            "invalid-request",
            field,
            format!("{field} is required: notation or moves"),
        )
    })?;
    match play {
        PlayInput::Notation(text) => text
            .parse()
            .map_err(|e| ApiError::invalid("invalid-play", field, e)),
        PlayInput::Moves(list) => {
            if list.len() > 4 {
                return Err(ApiError::invalid(
                    "invalid-play",
                    field,
                    "a play has at most four moves",
                ));
            }
            let mut segments = Vec::with_capacity(list.len());
            for (i, &(from, to)) in list.iter().enumerate() {
                let point = |v: i64, name: &str| {
                    Point::try_from(v).map_err(|_| {
                        ApiError::invalid(
                            "invalid-play",
                            format!("{field}[{i}].{name}"),
                            format!("a point is 0 (off) to 25 (bar), got {v}"),
                        )
                    })
                };
                segments.push(Segment {
                    path: vec![(point(from, "from")?, false), (point(to, "to")?, false)],
                    count: 1,
                });
            }
            Ok(MoveText { segments })
        }
    }
}

/// Single-die hops of a move text, for partial plays.
pub fn hops(text: &MoveText) -> Vec<Move> {
    let mut out = Vec::new();
    for segment in &text.segments {
        for _ in 0..segment.count {
            for pair in segment.path.windows(2) {
                out.push(Move::new(pair[0].0, pair[1].0));
            }
        }
    }
    out
}

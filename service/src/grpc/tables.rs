//! The tables games over gRPC: Plakoto, Fevga and Long Nardy positions and
//! answers, and the game-over of `ApplyMove` in any variant.

use bgref_core::tables::OutcomeKind;
use bgref_core::{Variant, VariantOutcome};

use super::common::{per_player_out, player_out, position_out, result_out};
use crate::api::tables::TablesView;
use crate::api::view::PositionView;
use crate::proto;

/// A Plakoto, Fevga or Long Nardy position: the board (with pins in
/// Plakoto), a Position ID for Fevga and Long Nardy, no XGID.
pub fn tables_position_out(view: &TablesView) -> proto::Position {
    let board = view.board();
    proto::Position {
        position_id: view.position_id().unwrap_or_default(),
        xgid: String::new(),
        board: Some(proto::Board {
            points: board.points.iter().map(|&n| i32::from(n)).collect(),
            bar: Some(proto::PerPlayer { x: 0, o: 0 }),
            off: Some(per_player_out(board.off)),
            turn: player_out(board.turn),
            pins: board
                .pins
                .map(|pins| pins.iter().map(|&n| i32::from(n)).collect())
                .unwrap_or_default(),
        }),
        pips: Some(proto::PerPlayer {
            x: view.position.pip_count(bgref_core::Player::X),
            o: view.position.pip_count(bgref_core::Player::O),
        }),
        // FIBS boards and Match IDs describe backgammon games only.
        fibs: String::new(),
        gnubg_match_id: String::new(),
    }
}

/// A position in the backgammon board's encodings (`board`) or, when it
/// is not on the board, the tables encodings (`tables`): what the api's
/// answers give as `board_view()` and `TablesView::of`, exactly one of
/// which is set.
pub fn any_position_out(
    board: Option<PositionView>,
    tables: Option<TablesView>,
) -> proto::Position {
    match (board, tables) {
        (Some(view), _) => position_out(&view),
        (None, Some(view)) => tables_position_out(&view),
        (None, None) => unreachable!("a position is on the board or on the tables"),
    }
}

/// How a game of `variant` ended: on the backgammon board the result (and
/// Portes' and Tavla's points; a backgammon variant's depend on the cube:
/// 0), in Plakoto, Fevga and Long Nardy the outcome and its points.
pub fn game_over_out(variant: Variant, o: &VariantOutcome) -> proto::GameOver {
    proto::GameOver {
        winner: o
            .winner
            .map_or(proto::Player::Unspecified.into(), player_out),
        result: o
            .result
            .map_or(proto::GameResult::Unspecified.into(), result_out),
        points: if variant.game().is_some() {
            o.points
        } else {
            0
        },
        tables_outcome: match o.result {
            Some(_) => proto::TablesOutcome::Unspecified.into(),
            None => tables_outcome_out(o.kind),
        },
    }
}

/// A tables outcome kind as its proto value.
pub fn tables_outcome_out(kind: OutcomeKind) -> i32 {
    match kind {
        OutcomeKind::Single => proto::TablesOutcome::Single,
        OutcomeKind::Double => proto::TablesOutcome::Double,
        OutcomeKind::Mother => proto::TablesOutcome::Mother,
        OutcomeKind::Draw => proto::TablesOutcome::Draw,
    }
    .into()
}

/// The tables rule options of a request; an unknown enum value is a field
/// error.
pub fn tables_rules_in(
    rules: Option<proto::TablesRules>,
) -> Result<Option<crate::api::tables::TablesRulesInput>, crate::error::ApiError> {
    use bgref_core::tables::{
        FevgaStart, HeadDoubles, HitAndRun, MotherRule, NardyOpening, PrimeRule,
    };
    let Some(r) = rules else {
        return Ok(None);
    };
    let bad = |field: &str, value: i32| {
        crate::api::input::unknown_value(&format!("tables_rules.{field}"), value)
    };
    Ok(Some(crate::api::tables::TablesRulesInput {
        mother: match proto::MotherRule::try_from(r.mother) {
            Ok(proto::MotherRule::Unspecified) => None,
            Ok(proto::MotherRule::Standard) => Some(MotherRule::Standard),
            Ok(proto::MotherRule::Immediate) => Some(MotherRule::Immediate),
            Ok(proto::MotherRule::Off) => Some(MotherRule::Off),
            Err(_) => return Err(bad("mother", r.mother)),
        },
        fevga_start: match proto::FevgaStart::try_from(r.fevga_start) {
            Ok(proto::FevgaStart::Unspecified) => None,
            Ok(proto::FevgaStart::PassStartPoint) => Some(FevgaStart::PassStartPoint),
            Ok(proto::FevgaStart::ReachStartQuarter) => Some(FevgaStart::ReachStartQuarter),
            Ok(proto::FevgaStart::Off) => Some(FevgaStart::Off),
            Err(_) => return Err(bad("fevga_start", r.fevga_start)),
        },
        primes: match proto::PrimeRule::try_from(r.primes) {
            Ok(proto::PrimeRule::Unspecified) => None,
            Ok(proto::PrimeRule::NeedsCheckerAhead) => Some(PrimeRule::NeedsCheckerAhead),
            Ok(proto::PrimeRule::Free) => Some(PrimeRule::Free),
            Ok(proto::PrimeRule::OpenWhenBlocked) => Some(PrimeRule::OpenWhenBlocked),
            Ok(proto::PrimeRule::OpenWhenStuck) => Some(PrimeRule::OpenWhenStuck),
            Err(_) => return Err(bad("primes", r.primes)),
        },
        head_doubles: match proto::HeadDoubles::try_from(r.head_doubles) {
            Ok(proto::HeadDoubles::Unspecified) => None,
            Ok(proto::HeadDoubles::SixFourThree) => Some(HeadDoubles::SixFourThree),
            Ok(proto::HeadDoubles::SixFour) => Some(HeadDoubles::SixFour),
            Err(_) => return Err(bad("head_doubles", r.head_doubles)),
        },
        hit_and_run: match proto::HitAndRun::try_from(r.hit_and_run) {
            Ok(proto::HitAndRun::Unspecified) => None,
            Ok(proto::HitAndRun::Allowed) => Some(HitAndRun::Allowed),
            Ok(proto::HitAndRun::ForbiddenInHome) => Some(HitAndRun::ForbiddenInHome),
            Err(_) => return Err(bad("hit_and_run", r.hit_and_run)),
        },
        nardy_opening: match proto::NardyOpening::try_from(r.nardy_opening) {
            Ok(proto::NardyOpening::Unspecified) => None,
            Ok(proto::NardyOpening::Reroll) => Some(NardyOpening::Reroll),
            Ok(proto::NardyOpening::PlayDice) => Some(NardyOpening::PlayDice),
            Err(_) => return Err(bad("nardy_opening", r.nardy_opening)),
        },
    }))
}

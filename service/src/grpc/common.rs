//! The shared messages: players, variants, results, positions.

use bgref_core::{ByPlayer, GameResult, Play, Player, Variant};

use crate::api::input::{self, BoardInput, PositionInput};
use crate::api::view::PositionView;
use crate::error::ApiError;
use crate::proto;

/// A proto player in `field`; `UNSPECIFIED` is `None`.
pub fn player_in(value: i32, field: &str) -> Result<Option<Player>, ApiError> {
    player_at(value, || field.to_owned())
}

/// [`player_in`] in a field whose path is made (by `field`) only for a
/// refusal: a valid request formats nothing.
fn player_at(value: i32, field: impl FnOnce() -> String) -> Result<Option<Player>, ApiError> {
    match proto::Player::try_from(value) {
        Ok(proto::Player::Unspecified) => Ok(None),
        Ok(proto::Player::X) => Ok(Some(Player::X)),
        Ok(proto::Player::O) => Ok(Some(Player::O)),
        Err(_) => Err(input::unknown_value(&field(), value)),
    }
}

/// A player as its proto value.
pub fn player_out(p: Player) -> i32 {
    match p {
        Player::X => proto::Player::X,
        Player::O => proto::Player::O,
    }
    .into()
}

/// A proto game result in `field`; `UNSPECIFIED` is `None`.
pub fn result_in(value: i32, field: &str) -> Result<Option<GameResult>, ApiError> {
    match proto::GameResult::try_from(value) {
        Ok(proto::GameResult::Unspecified) => Ok(None),
        Ok(proto::GameResult::Single) => Ok(Some(GameResult::Single)),
        Ok(proto::GameResult::Gammon) => Ok(Some(GameResult::Gammon)),
        Ok(proto::GameResult::Backgammon) => Ok(Some(GameResult::Backgammon)),
        Err(_) => Err(input::unknown_value(field, value)),
    }
}

/// A game result as its proto value.
pub fn result_out(result: GameResult) -> i32 {
    match result {
        GameResult::Single => proto::GameResult::Single,
        GameResult::Gammon => proto::GameResult::Gammon,
        GameResult::Backgammon => proto::GameResult::Backgammon,
    }
    .into()
}

/// The variant of a request: `UNSPECIFIED` is standard.
pub fn variant_in(value: i32) -> Result<Variant, ApiError> {
    Ok(match proto::Variant::try_from(value) {
        Ok(proto::Variant::Unspecified | proto::Variant::Standard) => Variant::Standard,
        Ok(proto::Variant::Nackgammon) => Variant::Nackgammon,
        Ok(proto::Variant::Hypergammon1) => Variant::Hypergammon1,
        Ok(proto::Variant::Hypergammon2) => Variant::Hypergammon2,
        Ok(proto::Variant::Hypergammon3) => Variant::Hypergammon3,
        Ok(proto::Variant::Portes) => Variant::Portes,
        Ok(proto::Variant::Tavla) => Variant::Tavla,
        Ok(proto::Variant::Plakoto) => Variant::Plakoto,
        Ok(proto::Variant::Fevga) => Variant::Fevga,
        Ok(proto::Variant::LongNardy) => Variant::LongNardy,
        Err(_) => {
            return Err(input::unknown_variant(format!(
                "unknown variant value {value}"
            )));
        }
    })
}

/// A variant as its proto value.
pub fn variant_out(variant: impl Into<Variant>) -> i32 {
    match variant.into() {
        Variant::Standard => proto::Variant::Standard,
        Variant::Nackgammon => proto::Variant::Nackgammon,
        Variant::Hypergammon1 => proto::Variant::Hypergammon1,
        Variant::Hypergammon2 => proto::Variant::Hypergammon2,
        Variant::Hypergammon3 => proto::Variant::Hypergammon3,
        Variant::Portes => proto::Variant::Portes,
        Variant::Tavla => proto::Variant::Tavla,
        Variant::Plakoto => proto::Variant::Plakoto,
        Variant::Fevga => proto::Variant::Fevga,
        Variant::LongNardy => proto::Variant::LongNardy,
    }
    .into()
}

fn per_player_in(p: Option<proto::PerPlayer>) -> ByPlayer<i64> {
    p.map_or_else(ByPlayer::default, |p| ByPlayer {
        x: i64::from(p.x),
        o: i64::from(p.o),
    })
}

/// Counts as a proto pair.
pub fn per_player_out<T: Into<u32>>(p: ByPlayer<T>) -> proto::PerPlayer {
    proto::PerPlayer {
        x: p.x.into(),
        o: p.o.into(),
    }
}

/// A request position (`None`: left out).
pub fn position_in(
    input: Option<proto::PositionInput>,
    field: &str,
) -> Result<Option<PositionInput>, ApiError> {
    let Some(input) = input else {
        return Ok(None);
    };
    let mut out = PositionInput {
        turn: player_at(input.turn, || format!("{field}.turn"))?,
        ..PositionInput::default()
    };
    match input.encoding {
        Some(proto::position_input::Encoding::PositionId(id)) => out.position_id = Some(id),
        Some(proto::position_input::Encoding::Xgid(x)) => out.xgid = Some(x),
        Some(proto::position_input::Encoding::Board(b)) => {
            out.board = Some(board_in(b, field)?);
        }
        Some(proto::position_input::Encoding::Fibs(f)) => out.fibs = Some(f),
        Some(proto::position_input::Encoding::Position(p)) => {
            // The response form: every encoding (a left-out board is
            // refused as a missing encoding by the validator).
            // Proto3 has no absent string: an empty one is an encoding
            // the position does not have (a tables game's XGID, Plakoto's
            // Position ID).
            out.position_id = (!p.position_id.is_empty()).then_some(p.position_id);
            out.xgid = (!p.xgid.is_empty()).then_some(p.xgid);
            out.board = p.board.map(|b| board_in(b, field)).transpose()?;
            out.pips = p.pips.map(|p| per_player_in(Some(p)));
            out.fibs = (!p.fibs.is_empty()).then_some(p.fibs);
        }
        None => {}
    }
    Ok(Some(out))
}

/// The board of the position in `field`.
fn board_in(b: proto::Board, field: &str) -> Result<BoardInput, ApiError> {
    Ok(BoardInput {
        points: b.points.iter().map(|&n| i64::from(n)).collect(),
        bar: per_player_in(b.bar),
        off: b.off.map(|o| per_player_in(Some(o))),
        turn: player_at(b.turn, || format!("{field}.board.turn"))?,
        pins: (!b.pins.is_empty()).then(|| b.pins.iter().map(|&n| i64::from(n)).collect()),
    })
}

/// A response position.
pub fn position_out(view: &PositionView) -> proto::Position {
    let board = view.board();
    proto::Position {
        position_id: view.position_id(),
        xgid: view.xgid(),
        board: Some(proto::Board {
            points: board.points.iter().map(|&n| i32::from(n)).collect(),
            bar: Some(per_player_out(board.bar)),
            off: Some(per_player_out(board.off)),
            turn: player_out(board.turn),
            pins: Vec::new(),
        }),
        pips: Some(per_player_out(view.pips())),
        fibs: view.fibs(),
        gnubg_match_id: view.match_id().unwrap_or_default(),
    }
}

/// Dice of a request: an empty list means none given.
pub fn dice_in(dice: &[u32]) -> Option<Vec<i64>> {
    (!dice.is_empty()).then(|| dice.iter().map(|&d| i64::from(d)).collect())
}

/// The single-die moves of a play.
pub(super) fn moves_out(play: &Play) -> Vec<proto::Move> {
    play.moves()
        .iter()
        .map(|m| proto::Move {
            from_point: u32::from(m.from().get()),
            to_point: u32::from(m.to().get()),
            hit: m.is_hit(),
        })
        .collect()
}

//! The shared messages: players, variants, results, positions.

use bgref_core::{BackgammonVariant, ByPlayer, GameResult, Player};

use crate::api::input::{self, AnyVariant, BoardInput, PositionInput};
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
pub fn variant_in(value: i32) -> Result<AnyVariant, ApiError> {
    use bgref_core::tables::Game;
    let bg = AnyVariant::Backgammon;
    let tables = AnyVariant::Tables;
    match proto::Variant::try_from(value) {
        Ok(proto::Variant::Unspecified | proto::Variant::Standard) => {
            Ok(bg(BackgammonVariant::Standard))
        }
        Ok(proto::Variant::Nackgammon) => Ok(bg(BackgammonVariant::Nackgammon)),
        Ok(proto::Variant::Hypergammon1) => Ok(bg(BackgammonVariant::Hypergammon1)),
        Ok(proto::Variant::Hypergammon2) => Ok(bg(BackgammonVariant::Hypergammon2)),
        Ok(proto::Variant::Hypergammon3) => Ok(bg(BackgammonVariant::Hypergammon3)),
        Ok(proto::Variant::Portes) => Ok(tables(Game::Portes)),
        Ok(proto::Variant::Tavla) => Ok(tables(Game::Tavla)),
        Ok(proto::Variant::Plakoto) => Ok(tables(Game::Plakoto)),
        Ok(proto::Variant::Fevga) => Ok(tables(Game::Fevga)),
        Ok(proto::Variant::LongNardy) => Ok(tables(Game::LongNardy)),
        Err(_) => Err(input::unknown_variant(format!(
            "unknown variant value {value}"
        ))),
    }
}

/// A variant as its proto value.
pub fn variant_out(variant: impl Into<AnyVariant>) -> i32 {
    use bgref_core::tables::Game;
    match variant.into() {
        AnyVariant::Backgammon(BackgammonVariant::Standard) => proto::Variant::Standard,
        AnyVariant::Backgammon(BackgammonVariant::Nackgammon) => proto::Variant::Nackgammon,
        AnyVariant::Backgammon(BackgammonVariant::Hypergammon1) => proto::Variant::Hypergammon1,
        AnyVariant::Backgammon(BackgammonVariant::Hypergammon2) => proto::Variant::Hypergammon2,
        AnyVariant::Backgammon(BackgammonVariant::Hypergammon3) => proto::Variant::Hypergammon3,
        AnyVariant::Tables(Game::Portes) => proto::Variant::Portes,
        AnyVariant::Tables(Game::Tavla) => proto::Variant::Tavla,
        AnyVariant::Tables(Game::Plakoto) => proto::Variant::Plakoto,
        AnyVariant::Tables(Game::Fevga) => proto::Variant::Fevga,
        AnyVariant::Tables(Game::LongNardy) => proto::Variant::LongNardy,
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
            out.position_id = Some(p.position_id);
            out.xgid = Some(p.xgid);
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

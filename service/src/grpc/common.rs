//! Conversions of the shared messages.

use crate::error::ApiError;
use crate::proto;
use crate::wire::common::{Board, PerPlayer, PlayerName, PositionInput, PositionOutput};

/// A proto player; `UNSPECIFIED` is `None`.
pub fn player_in(value: i32) -> Result<Option<PlayerName>, ApiError> {
    match proto::Player::try_from(value) {
        Ok(proto::Player::Unspecified) => Ok(None),
        Ok(proto::Player::X) => Ok(Some(PlayerName::X)),
        Ok(proto::Player::O) => Ok(Some(PlayerName::O)),
        Err(_) => Err(ApiError::invalid_request(
            "invalid-request",
            format!("unknown player value {value}"),
        )),
    }
}

/// A player as its proto value.
pub fn player_out(p: PlayerName) -> i32 {
    match p {
        PlayerName::X => proto::Player::X as i32,
        PlayerName::O => proto::Player::O as i32,
    }
}

fn per_player_in(p: Option<proto::PerPlayer>) -> PerPlayer {
    p.map_or_else(PerPlayer::default, |p| PerPlayer {
        x: i64::from(p.x),
        o: i64::from(p.o),
    })
}

fn per_player_out(p: PerPlayer) -> proto::PerPlayer {
    proto::PerPlayer {
        x: u32::try_from(p.x).unwrap_or(0),
        o: u32::try_from(p.o).unwrap_or(0),
    }
}

/// A request position.
pub fn position_in(
    input: Option<proto::PositionInput>,
    field: &str,
) -> Result<PositionInput, ApiError> {
    let Some(input) = input else {
        return Err(ApiError::invalid(
            "invalid-position",
            field,
            "position is required",
        ));
    };
    let mut out = PositionInput {
        turn: player_in(input.turn)?,
        ..PositionInput::default()
    };
    match input.encoding {
        Some(proto::position_input::Encoding::PositionId(id)) => out.position_id = Some(id),
        Some(proto::position_input::Encoding::Xgid(x)) => out.xgid = Some(x),
        Some(proto::position_input::Encoding::Board(b)) => {
            let turn = player_in(b.turn)?.ok_or_else(|| {
                ApiError::invalid(
                    "invalid-position",
                    format!("{field}.board.turn"),
                    "board.turn is required (x or o)",
                )
            })?;
            out.board = Some(Board {
                points: b.points.iter().map(|&n| i64::from(n)).collect(),
                bar: per_player_in(b.bar),
                off: b.off.map(|o| per_player_in(Some(o))),
                turn,
            });
        }
        None => {}
    }
    Ok(out)
}

/// A response position.
pub fn position_out(p: PositionOutput) -> proto::Position {
    proto::Position {
        position_id: p.position_id,
        xgid: p.xgid,
        board: Some(proto::Board {
            points: p.board.points.iter().map(|&n| n as i32).collect(),
            bar: Some(per_player_out(p.board.bar)),
            off: p.board.off.map(per_player_out),
            turn: player_out(p.board.turn),
        }),
    }
}

/// Dice of a request: an empty list means none given.
pub fn dice_in(dice: &[u32]) -> Option<Vec<i64>> {
    (!dice.is_empty()).then(|| dice.iter().map(|&d| i64::from(d)).collect())
}

/// The variant of a request: empty means the default.
pub fn variant_in(variant: String) -> Option<String> {
    (!variant.is_empty()).then_some(variant)
}

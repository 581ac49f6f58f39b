//! Reading positions, variants and dice from requests, and writing positions.

use bgref_core::notation::position_id::PositionId;
use bgref_core::notation::xgid::{Xgid, XgidDice};
use bgref_core::{ByPlayer, Dice, Die, Player, Position, PositionError, Setup, Variant};

use crate::error::ApiError;
use crate::wire::common::{Board, PerPlayer, PlayerName, PositionInput, PositionOutput};

/// A position read from a request, with what its XGID said besides.
#[derive(Debug, Clone)]
pub struct ReadPosition {
    /// The checked position.
    pub position: Position,
    /// The XGID the position came from, if it came from one: its cube,
    /// score and match fields are carried into response XGIDs.
    pub xgid: Option<Xgid>,
}

impl ReadPosition {
    /// The dice the XGID carries, if any.
    pub fn xgid_dice(&self) -> Option<Dice> {
        match self.xgid.as_ref()?.dice {
            XgidDice::Rolled(d) => Some(d),
            _ => None,
        }
    }

    /// `position` in all three encodings, with this request's XGID fields.
    pub fn output(&self, position: &Position) -> PositionOutput {
        position_output(position, self.xgid.as_ref())
    }
}

/// The variant named in a request (default standard).
pub fn read_variant(name: Option<&str>) -> Result<Variant, ApiError> {
    match name {
        None => Ok(Variant::Standard),
        Some(name) => name
            .parse()
            .map_err(|e| ApiError::invalid("invalid-variant", "variant", e)),
    }
}

/// The dice of a request, or those of its XGID.
pub fn read_dice(dice: Option<&[i64]>, from_position: Option<Dice>) -> Result<Dice, ApiError> {
    let Some(values) = dice else {
        return from_position.ok_or_else(|| {
            ApiError::invalid(
                "invalid-dice",
                "dice",
                "dice are required: two numbers 1 to 6 (or an XGID with a roll)",
            )
        });
    };
    if values.len() != 2 {
        return Err(ApiError::invalid(
            "invalid-dice",
            "dice",
            format!("a roll is exactly two dice, got {}", values.len()),
        ));
    }
    let die = |i: usize| {
        Die::try_from(values[i]).map_err(|_| {
            ApiError::invalid(
                "invalid-dice",
                format!("dice[{i}]"),
                format!("a die shows 1 to 6, got {}", values[i]),
            )
        })
    };
    Ok(Dice::new(die(0)?, die(1)?))
}

fn count(value: i64, field: String, what: &str) -> Result<u8, ApiError> {
    u8::try_from(value)
        .ok()
        .filter(|&n| n <= 15)
        .ok_or_else(|| {
            ApiError::invalid(
                "invalid-position",
                field,
                format!("{what} must be 0 to 15, got {value}"),
            )
        })
}

/// The setup of the board encoding, field errors with their paths.
fn board_setup(board: &Board, field: &str) -> Result<Setup, ApiError> {
    if board.points.len() != 24 {
        return Err(ApiError::invalid(
            "invalid-position",
            format!("{field}.points"),
            format!(
                "points has 24 entries (points 1 to 24 from x's side), got {}",
                board.points.len()
            ),
        ));
    }
    let mut points = [0i8; 24];
    for (i, &n) in board.points.iter().enumerate() {
        if !(-15..=15).contains(&n) {
            return Err(ApiError::invalid(
                "invalid-position",
                format!("{field}.points[{i}]"),
                format!("a point holds at most 15 checkers, got {n}"),
            ));
        }
        points[i] = n as i8;
    }
    let bar = ByPlayer {
        x: count(board.bar.x, format!("{field}.bar.x"), "a bar count")?,
        o: count(board.bar.o, format!("{field}.bar.o"), "a bar count")?,
    };
    let off = match board.off {
        None => None,
        Some(off) => Some(ByPlayer {
            x: count(off.x, format!("{field}.off.x"), "an off count")?,
            o: count(off.o, format!("{field}.off.o"), "an off count")?,
        }),
    };
    Ok(Setup::from_signed(&points, bar, off, board.turn.into()))
}

/// Says what is wrong with a setup, with the numbers.
fn position_error(setup: &Setup, variant: Variant, err: PositionError, field: &str) -> ApiError {
    let mut reasons = Vec::new();
    let n = variant.checkers();
    for (player, flag) in [
        (Player::X, PositionError::X_CHECKER_COUNT),
        (Player::O, PositionError::O_CHECKER_COUNT),
    ] {
        if err.contains(flag) {
            let on_board = setup.on_board(player);
            reasons.push(match setup.off {
                Some(off) => format!(
                    "{player} has {} checkers ({on_board} on the board and bar, {} off) but {variant} has {n}",
                    on_board + u32::from(off[player]),
                    off[player]
                ),
                None => format!("{player} has {on_board} checkers on the board and bar but {variant} has {n}"),
            });
        }
    }
    if err.contains(PositionError::SHARED_POINT) {
        let points: Vec<String> = (0..24)
            .filter(|&i| setup.points.x[i] > 0 && setup.points.o[23 - i] > 0)
            .map(|i| (i + 1).to_string())
            .collect();
        reasons.push(format!(
            "point {} (from x's side) holds checkers of both players",
            points.join(", ")
        ));
    }
    if err.contains(PositionError::BOTH_FINISHED) {
        reasons.push("both players have borne off every checker".to_owned());
    }
    ApiError::invalid("invalid-position", field, reasons.join("; "))
}

/// Reads and checks the position of a request.
pub fn read_position(
    input: &PositionInput,
    variant: Variant,
    field: &str,
) -> Result<ReadPosition, ApiError> {
    let given = [
        input.position_id.is_some(),
        input.xgid.is_some(),
        input.board.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given != 1 {
        return Err(ApiError::invalid(
            "invalid-position",
            field,
            "give the position as exactly one of position_id, xgid or board",
        ));
    }
    if input.turn.is_some() && input.position_id.is_none() {
        return Err(ApiError::invalid(
            "invalid-position",
            format!("{field}.turn"),
            "turn goes only beside position_id: xgid and board say who is on roll",
        ));
    }
    let (setup, xgid, sub) = if let Some(id) = &input.position_id {
        let parsed: PositionId = id.parse().map_err(|e| {
            ApiError::invalid("invalid-position", format!("{field}.position_id"), e)
        })?;
        let turn = input.turn.map_or(Player::X, Player::from);
        (parsed.to_setup(turn), None, "position_id")
    } else if let Some(text) = &input.xgid {
        let parsed: Xgid = text
            .parse()
            .map_err(|e| ApiError::invalid("invalid-position", format!("{field}.xgid"), e))?;
        (parsed.setup.clone(), Some(parsed), "xgid")
    } else {
        let board = input.board.as_ref().expect("one encoding is present");
        (
            board_setup(board, &format!("{field}.board"))?,
            None,
            "board",
        )
    };
    let sub_field = format!("{field}.{sub}");
    let position = Position::from_setup(&setup, variant)
        .map_err(|e| position_error(&setup, variant, e, &sub_field))?;
    Ok(ReadPosition { position, xgid })
}

/// A position in all three encodings. `meta` is the request's XGID, whose
/// cube, score and match fields are kept (its dice are not: they belonged
/// to the position before).
pub fn position_output(position: &Position, meta: Option<&Xgid>) -> PositionOutput {
    let setup = position.to_setup();
    let mut xgid = match meta {
        Some(m) => Xgid {
            setup: setup.clone(),
            dice: XgidDice::NotRolled,
            ..m.clone()
        },
        None => Xgid::from_position(position),
    };
    xgid.setup.off = None;
    let off = setup.off.unwrap_or_default();
    PositionOutput {
        position_id: PositionId::from_position(position).to_string(),
        xgid: xgid.to_string(),
        board: Board {
            points: setup.to_signed().iter().map(|&n| i64::from(n)).collect(),
            bar: PerPlayer {
                x: i64::from(setup.bar.x),
                o: i64::from(setup.bar.o),
            },
            off: Some(PerPlayer {
                x: i64::from(off.x),
                o: i64::from(off.o),
            }),
            turn: PlayerName::from(position.turn()),
        },
    }
}

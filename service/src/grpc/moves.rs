//! `LegalMoves` and `ApplyMove`.

use super::common::{dice_in, player_out, position_in, position_out, variant_in};
use crate::api;
use crate::error::ApiError;
use crate::proto;
use crate::wire::moves::{
    ApplyMoveRequest, ApplyMoveResponse, LegalMovesRequest, LegalMovesResponse, MoveInput,
    MoveOutput, PlayInput,
};

fn moves_out(moves: Vec<MoveOutput>) -> Vec<proto::Move> {
    moves
        .into_iter()
        .map(|m| proto::Move {
            from: u32::from(m.from),
            to: u32::from(m.to),
            hit: m.hit,
        })
        .collect()
}

/// LegalMoves.
pub fn legal_moves(req: proto::LegalMovesRequest) -> Result<proto::LegalMovesResponse, ApiError> {
    let req = LegalMovesRequest {
        variant: variant_in(req.variant),
        position: position_in(req.position, "position")?,
        dice: dice_in(&req.dice),
    };
    let LegalMovesResponse {
        plays,
        dice,
        forced,
    } = api::moves::legal_moves(&req)?;
    Ok(proto::LegalMovesResponse {
        plays: plays
            .into_iter()
            .map(|p| proto::Play {
                notation: p.notation,
                moves: moves_out(p.moves),
                position: Some(position_out(p.position)),
            })
            .collect(),
        dice: dice.iter().map(|&d| u32::from(d)).collect(),
        forced,
    })
}

/// ApplyMove.
pub fn apply_move(req: proto::ApplyMoveRequest) -> Result<proto::ApplyMoveResponse, ApiError> {
    let play = match req.play {
        Some(proto::apply_move_request::Play::Notation(text)) => PlayInput::Notation(text),
        Some(proto::apply_move_request::Play::Moves(list)) => PlayInput::Moves(
            list.moves
                .iter()
                .map(|m| MoveInput {
                    from: i64::from(m.from),
                    to: i64::from(m.to),
                })
                .collect(),
        ),
        None => {
            return Err(ApiError::invalid(
                "invalid-play",
                "play",
                "play is required: notation or moves",
            ));
        }
    };
    let req = ApplyMoveRequest {
        variant: variant_in(req.variant),
        position: position_in(req.position, "position")?,
        dice: dice_in(&req.dice),
        play,
        partial: req.partial,
    };
    let ApplyMoveResponse {
        play,
        position,
        hits,
        game_over,
        partial,
        turn: _,
    } = api::moves::apply_move(&req)?;
    Ok(proto::ApplyMoveResponse {
        play: Some(proto::Play {
            notation: play.notation,
            moves: moves_out(play.moves),
            position: None,
        }),
        position: Some(position_out(position)),
        hits: hits.into_iter().map(u32::from).collect(),
        game_over: game_over.map(|g| proto::GameOver {
            winner: player_out(g.winner),
            result: g.result,
        }),
        partial: partial.map(|p| proto::PartialInfo {
            complete: p.complete,
            remaining_dice: p.remaining_dice.into_iter().map(u32::from).collect(),
            completions: u32::try_from(p.completions).unwrap_or(u32::MAX),
        }),
    })
}

//! `LegalMoves` and `ApplyMove`.

use bgref_core::Play;

use super::common::{
    dice_in, player_out, position_in, position_out, result_out, variant_in, variant_out,
};
use crate::api::moves::{Applied, ApplyMoveInput, LegalMoves, PlayInput, PlayView, TurnInput};
use crate::api::variants::VariantInfo;
use crate::error::ApiError;
use crate::proto;

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

impl TryFrom<proto::LegalMovesRequest> for TurnInput {
    type Error = ApiError;

    fn try_from(req: proto::LegalMovesRequest) -> Result<Self, ApiError> {
        Ok(TurnInput {
            variant: variant_in(req.variant)?,
            position: position_in(req.position, "position")?,
            dice: dice_in(&req.dice),
            game_start: req.game_start,
            tables_rules: super::tables::tables_rules_in(req.tables_rules)?,
        })
    }
}

/// A legal play and where it leads.
pub(super) fn play_out(p: &PlayView) -> proto::Play {
    proto::Play {
        notation: p.play.to_string(),
        moves: moves_out(&p.play),
        position: Some(position_out(&p.position)),
    }
}

impl From<&LegalMoves> for proto::LegalMovesResponse {
    fn from(answer: &LegalMoves) -> Self {
        proto::LegalMovesResponse {
            plays: answer.plays.iter().map(play_out).collect(),
            dice: answer.dice.values().map(u32::from).to_vec(),
            forced: answer.forced(),
        }
    }
}

impl TryFrom<proto::ApplyMoveRequest> for ApplyMoveInput {
    type Error = ApiError;

    fn try_from(req: proto::ApplyMoveRequest) -> Result<Self, ApiError> {
        let play = req.play.map(|play| match play {
            proto::apply_move_request::Play::Notation(text) => PlayInput::Notation(text),
            proto::apply_move_request::Play::Moves(list) => PlayInput::Moves(
                list.moves
                    .iter()
                    .map(|m| (i64::from(m.from_point), i64::from(m.to_point)))
                    .collect(),
            ),
        });
        Ok(ApplyMoveInput {
            turn: TurnInput {
                variant: variant_in(req.variant)?,
                position: position_in(req.position, "position")?,
                dice: dice_in(&req.dice),
                game_start: req.game_start,
                tables_rules: super::tables::tables_rules_in(req.tables_rules)?,
            },
            play,
            partial: req.partial,
        })
    }
}

impl From<&Applied> for proto::ApplyMoveResponse {
    fn from(answer: &Applied) -> Self {
        proto::ApplyMoveResponse {
            play: Some(proto::Play {
                notation: answer.play.to_string(),
                moves: moves_out(&answer.play),
                position: None,
            }),
            position: Some(position_out(&answer.position)),
            hits: answer.hits().map(u32::from).collect(),
            game_over: answer.game_over.map(|o| proto::GameOver {
                winner: player_out(o.winner),
                result: result_out(o.result),
                points: 0,
                tables_outcome: proto::TablesOutcome::Unspecified.into(),
            }),
            partial: answer.partial.as_ref().map(|p| proto::PartialInfo {
                complete: p.complete,
                remaining_dice: p.remaining.iter().map(|d| u32::from(d.get())).collect(),
                completions: u32::try_from(p.completions).unwrap_or(u32::MAX),
            }),
            turn: player_out(answer.turn()),
        }
    }
}

impl From<&Vec<VariantInfo>> for proto::ListVariantsResponse {
    fn from(list: &Vec<VariantInfo>) -> Self {
        proto::ListVariantsResponse {
            variants: list
                .iter()
                .map(|v| proto::VariantInfo {
                    variant: variant_out(v.variant),
                    name: v.variant.to_string(),
                    checkers: u32::from(v.checkers),
                    start: Some(super::tables::start_out(&v.start)),
                    rules: Some(proto::VariantRules {
                        cube: v.rules.cube,
                        gammons: v.rules.gammons,
                        backgammons: v.rules.backgammons,
                    }),
                })
                .collect(),
        }
    }
}

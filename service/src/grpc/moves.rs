//! `LegalMoves` and `ApplyMove`.

use super::common::{
    dice_in, moves_out, per_player_out, player_out, position_in, position_out, variant_in,
    variant_out,
};
use super::tables::{any_position_out, game_over_out, tables_position_out};
use crate::api::moves::{
    Applied, ApplyMoveInput, LegalMoves, LegalMovesInput, LegalMovesReply, PlayInput, PlayView,
    TurnInput,
};
use crate::api::tables::TablesView;
use crate::api::variants::VariantInfo;
use crate::api::view::{Fields, PositionView};
use crate::error::ApiError;
use crate::proto;

impl TryFrom<proto::LegalMovesRequest> for LegalMovesInput {
    type Error = ApiError;

    fn try_from(req: proto::LegalMovesRequest) -> Result<Self, ApiError> {
        let variant = variant_in(req.variant)?;
        // Empty: every field (proto3 cannot tell a left-out list).
        let fields = (!req.fields.is_empty()).then_some(req.fields.as_slice());
        Ok(LegalMovesInput {
            fields: Fields::parse(fields, "fields")?,
            turn: TurnInput {
                variant,
                position: position_in(req.position, "position")?,
                dice: dice_in(&req.dice),
                game_start: req.game_start,
                tables_rules: super::tables::tables_rules_in(req.tables_rules)?,
            },
        })
    }
}

/// A legal play with what `fields` names.
pub(super) fn play_fields_out(p: &PlayView, fields: Fields) -> proto::Play {
    proto::Play {
        notation: crate::api::view::notation(&p.play),
        moves: if fields.has(Fields::MOVES) {
            moves_out(&p.play)
        } else {
            Vec::new()
        },
        position: position_fields_out(&p.position, fields),
    }
}

/// The encodings of a position that `fields` names (`None`: none).
fn position_fields_out(view: &PositionView, fields: Fields) -> Option<proto::Position> {
    if fields.has(Fields::POSITION) {
        return Some(position_out(view));
    }
    if !fields.any(Fields::POSITION) {
        return None;
    }
    let board = view.board();
    Some(proto::Position {
        position_id: if fields.has(Fields::POSITION_ID) {
            view.position_id()
        } else {
            String::new()
        },
        xgid: if fields.has(Fields::XGID) {
            view.xgid()
        } else {
            String::new()
        },
        board: fields.has(Fields::BOARD).then(|| proto::Board {
            points: board.points.iter().map(|&n| i32::from(n)).collect(),
            bar: Some(per_player_out(board.bar)),
            off: Some(per_player_out(board.off)),
            turn: player_out(board.turn),
            pins: Vec::new(),
        }),
        pips: fields
            .has(Fields::PIPS)
            .then(|| per_player_out(view.pips())),
        fibs: if fields.has(Fields::FIBS) {
            view.fibs()
        } else {
            String::new()
        },
        gnubg_match_id: view.match_id().unwrap_or_default(),
    })
}

impl LegalMoves {
    fn to_proto(&self, fields: Fields) -> proto::LegalMovesResponse {
        let plays = match self.on_board() {
            Some(_) => self.views().map(|p| play_fields_out(&p, fields)).collect(),
            // Tables answers have every field (the api refuses others).
            None => TablesView::after_plays(&self.position, &self.plays)
                .map(|(play, view)| proto::Play {
                    notation: play.to_string(),
                    moves: moves_out(play),
                    position: Some(tables_position_out(&view)),
                })
                .collect(),
        };
        proto::LegalMovesResponse {
            plays,
            dice: self.dice.values().map(u32::from).to_vec(),
            forced: self.forced(),
        }
    }
}

impl From<&LegalMoves> for proto::LegalMovesResponse {
    fn from(answer: &LegalMoves) -> Self {
        answer.to_proto(Fields::ALL)
    }
}

impl From<&LegalMovesReply> for proto::LegalMovesResponse {
    fn from(reply: &LegalMovesReply) -> Self {
        reply.answer.to_proto(reply.fields)
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
        let position = any_position_out(answer.board_view(), TablesView::of(&answer.position));
        proto::ApplyMoveResponse {
            play: Some(proto::Play {
                notation: answer.play.to_string(),
                moves: moves_out(&answer.play),
                position: None,
            }),
            position: Some(position),
            hits: answer.hits().map(u32::from).collect(),
            game_over: answer
                .game_over
                .map(|o| game_over_out(answer.position.variant(), &o)),
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
                    start: Some(super::tables::any_position_out(
                        v.board_view(),
                        TablesView::of(&v.start),
                    )),
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

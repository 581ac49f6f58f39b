//! `POST /legal-moves` and `POST /apply-move`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::common::{PlayerName, PositionInput, PositionOutput, VariantName};
use super::cube::GameResultName;
use super::schema;

use crate::api::input;
use crate::api::moves::{
    Applied, ApplyMoveInput, LegalMoves, PlayInput as ApiPlay, PlayView, TurnInput,
};
use crate::error::ApiError;

/// Request of `POST /legal-moves`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [6, 5]}))]
pub struct LegalMovesRequest {
    /// `standard` (default), `nackgammon`, `hypergammon`, `hypergammon-1`,
    /// `hypergammon-2`, `hypergammon-3`, or a tables game: `portes`, `tavla`
    /// (backgammon encodings), `plakoto` (board with `pins`), `fevga`,
    /// `long-nardy` (board or Position ID; no XGID).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// The position before the roll.
    pub position: PositionInput,
    /// The two dice; may be left out when the XGID carries the roll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = schema::dice_or_null, required = false)]
    pub dice: Option<Vec<i64>>,
    /// The position is the start of a game: refused (`not-start-position`)
    /// unless it is the variant's starting position (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub game_start: bool,
    /// Rule options of Plakoto, Fevga and Long Nardy where sources disagree
    /// (default: the most common rules; refused for the backgammon variants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables_rules: Option<super::tables::TablesRulesObject>,
}

/// One checker moved by one die; points from the mover's view (25 = bar, 0 = off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MoveOutput {
    /// Start point.
    #[schema(schema_with = schema::point)]
    pub from: u8,
    /// End point.
    #[schema(schema_with = schema::point)]
    pub to: u8,
    /// Whether an opposing blot was hit there.
    pub hit: bool,
}

/// A legal play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlayOutput {
    /// gnubg notation.
    pub notation: String,
    /// The single-die moves in the order played.
    pub moves: Vec<MoveOutput>,
    /// The position after the play, opponent on roll.
    pub position: PositionOutput,
}

/// Response of `POST /legal-moves`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LegalMovesResponse {
    /// One entry per distinct resulting position; empty: no legal play, the turn passes.
    pub plays: Vec<PlayOutput>,
    /// The roll, as given.
    #[schema(schema_with = schema::dice)]
    pub dice: [u8; 2],
    /// Exactly one legal play.
    pub forced: bool,
}

/// A move as a caller gives it: `from`/`to` may span several dice (24/13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
pub struct MoveInput {
    /// Start point (25 = bar).
    pub from: i64,
    /// End point (0 = off).
    pub to: i64,
}

/// A play: gnubg-style notation or a list of moves.
/// Its schema is [`schema::play`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PlayInput {
    /// `"24/18 13/11"`: any order, `*` optional, `(2)` folds, `24/18/13` chains, `bar`, `off`.
    Notation(String),
    /// `[{"from": 24, "to": 18}, ...]`: at most four moves.
    Moves(Vec<MoveInput>),
}

/// Request of `POST /apply-move`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [6, 5], "play": "24/13"}))]
pub struct ApplyMoveRequest {
    /// The variant (default `standard`); as in `LegalMovesRequest`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// The position before the play.
    pub position: PositionInput,
    /// The two dice; may be left out when the XGID carries the roll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = schema::dice_or_null, required = false)]
    pub dice: Option<Vec<i64>>,
    /// The play.
    #[schema(schema_with = schema::play)]
    pub play: PlayInput,
    /// The moves are the start of a turn entered one die at a time (each
    /// move a single die, in the order played): answer whether they can be
    /// completed to a legal play and which dice remain, instead of
    /// requiring a whole play.
    #[serde(default)]
    pub partial: bool,
    /// The position is the start of a game: refused (`not-start-position`)
    /// unless it is the variant's starting position (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub game_start: bool,
    /// Rule options of Plakoto, Fevga and Long Nardy where sources disagree
    /// (default: the most common rules; refused for the backgammon variants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables_rules: Option<super::tables::TablesRulesObject>,
}

/// How a finished game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GameOverOutput {
    /// The player who bore off every checker.
    pub winner: PlayerName,
    /// `single`, `gammon` or `backgammon`.
    pub result: GameResultName,
    /// Portes and Tavla only: the points won (no cube; a gammon or
    /// backgammon counts 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
}

/// What is known about a turn entered move by move (`partial: true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PartialOutput {
    /// The moves already form a whole legal play.
    pub complete: bool,
    /// Dice still to play, largest first.
    #[schema(schema_with = schema::remaining_dice)]
    pub remaining_dice: Vec<u8>,
    /// Distinct legal plays (by resulting position) that begin with these moves.
    pub completions: usize,
}

/// The played moves in notation and as a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlayedOutput {
    /// gnubg notation of the legal play matched (hits marked).
    pub notation: String,
    /// Its single-die moves.
    pub moves: Vec<MoveOutput>,
}

/// Response of `POST /apply-move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ApplyMoveResponse {
    /// The play as the referee understood it.
    pub play: PlayedOutput,
    /// The new position: the opponent on roll; for an unfinished partial
    /// play, the mover still on roll.
    pub position: PositionOutput,
    /// Points (mover's view) where a blot was hit.
    #[schema(schema_with = schema::hits)]
    pub hits: Vec<u8>,
    /// Set when the play ended the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_over: Option<GameOverOutput>,
    /// Set for `partial: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialOutput>,
    /// Whose turn it is now.
    pub turn: PlayerName,
}

impl LegalMovesRequest {
    /// The transport-free input.
    pub fn into_input(self) -> Result<TurnInput, ApiError> {
        Ok(TurnInput {
            variant: input::any_variant(self.variant.as_deref())?,
            position: Some(self.position.into()),
            dice: self.dice,
            game_start: self.game_start,
            tables_rules: self.tables_rules.map(Into::into),
        })
    }
}

impl ApplyMoveRequest {
    /// The transport-free input.
    pub fn into_input(self) -> Result<ApplyMoveInput, ApiError> {
        Ok(ApplyMoveInput {
            turn: TurnInput {
                variant: input::any_variant(self.variant.as_deref())?,
                position: Some(self.position.into()),
                dice: self.dice,
                game_start: self.game_start,
                tables_rules: self.tables_rules.map(Into::into),
            },
            play: Some(match self.play {
                PlayInput::Notation(text) => ApiPlay::Notation(text),
                PlayInput::Moves(list) => {
                    ApiPlay::Moves(list.iter().map(|m| (m.from, m.to)).collect())
                }
            }),
            partial: self.partial,
        })
    }
}

fn moves_output(play: &bgref_core::Play) -> Vec<MoveOutput> {
    play.moves()
        .iter()
        .map(|m| MoveOutput {
            from: m.from().get(),
            to: m.to().get(),
            hit: m.is_hit(),
        })
        .collect()
}

impl From<&PlayView> for PlayOutput {
    fn from(view: &PlayView) -> Self {
        PlayOutput {
            notation: view.play.to_string(),
            moves: moves_output(&view.play),
            position: (&view.position).into(),
        }
    }
}

impl From<&LegalMoves> for LegalMovesResponse {
    fn from(answer: &LegalMoves) -> Self {
        LegalMovesResponse {
            plays: answer.plays.iter().map(PlayOutput::from).collect(),
            dice: answer.dice.values(),
            forced: answer.forced(),
        }
    }
}

impl From<&Applied> for ApplyMoveResponse {
    fn from(answer: &Applied) -> Self {
        ApplyMoveResponse {
            play: PlayedOutput {
                notation: answer.play.to_string(),
                moves: moves_output(&answer.play),
            },
            position: (&answer.position).into(),
            hits: answer.hits().collect(),
            game_over: answer.game_over.map(|o| GameOverOutput {
                winner: o.winner.into(),
                result: o.result.into(),
                points: None,
            }),
            partial: answer.partial.as_ref().map(|p| PartialOutput {
                complete: p.complete,
                remaining_dice: p.remaining.iter().map(|d| d.get()).collect(),
                completions: p.completions,
            }),
            turn: answer.turn().into(),
        }
    }
}

objects_only!(LegalMovesRequest, MoveInput, ApplyMoveRequest);

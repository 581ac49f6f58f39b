//! The JSON shapes of the tables games (`docs/variants.md`): Plakoto,
//! Fevga and Long Nardy positions and answers, and the answers of
//! `/legal-moves` and `/apply-move` for any variant.

use bgref_core::GameResult;
use bgref_core::Player;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::common::{Board, PerPlayer, PlayerName, PositionOutput, VariantName};
use super::cube::{EndedBy, GameResultName, ScoreGameResponse};
use super::moves::{
    ApplyMoveResponse, GameOverOutput, LegalMovesResponse, MoveOutput, PartialOutput, PlayedOutput,
};
use crate::api::moves::{Applied, LegalMoves};
use crate::api::tables::{ScoreAnswer, TablesView};
use crate::api::view::PositionView;
use bgref_core::tables::OutcomeKind;
use bgref_core::{PartialPlay, VariantOutcome};

/// A Plakoto, Fevga or Long Nardy position in a response (no other keys,
/// so that it is never mistaken for a backgammon position).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TablesPositionOutput {
    /// Fevga and Long Nardy only: each side's own-view counts as a gnubg
    /// Position ID (empty bar); it identifies the position only together
    /// with the variant. Left out for Plakoto (the ID cannot carry pins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_id: Option<String>,
    /// The board encoding: `points[i]` is x's point `i + 1` (in Fevga and
    /// Long Nardy x's 24-point is x's start and o's 12-point); `bar` is
    /// always empty; Plakoto adds `pins`. No XGID applies to these games.
    pub board: Board,
    /// Pip counts.
    pub pips: PerPlayer,
}

/// A position in a response: the backgammon encodings (backgammon
/// variants, Portes, Tavla) or the tables encodings (Plakoto, Fevga, Long
/// Nardy).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum AnyPositionOutput {
    /// Position ID, XGID and board.
    Backgammon(PositionOutput),
    /// Board (with pins in Plakoto) and, for Fevga and Long Nardy, a Position ID.
    Tables(TablesPositionOutput),
}

impl AnyPositionOutput {
    /// A position in the backgammon board's encodings (`board`) or, when
    /// it is not on the board, the tables encodings (`tables`): what the
    /// api's answers give as `board_view()` and `tables_view()`, exactly
    /// one of which is set.
    pub fn new(board: Option<PositionView>, tables: Option<TablesView>) -> AnyPositionOutput {
        match (board, tables) {
            (Some(view), _) => AnyPositionOutput::Backgammon((&view).into()),
            (None, Some(view)) => AnyPositionOutput::Tables((&view).into()),
            (None, None) => unreachable!("a position is on the board or on the tables"),
        }
    }
}

impl From<&TablesView> for TablesPositionOutput {
    fn from(view: &TablesView) -> Self {
        let board = view.board();
        TablesPositionOutput {
            position_id: view.position_id(),
            board: Board {
                points: board.points.iter().map(|&n| i64::from(n)).collect(),
                bar: PerPlayer::default(),
                off: Some(board.off.into()),
                turn: board.turn,
                pins: board
                    .pins
                    .map(|pins| pins.iter().map(|&n| i64::from(n)).collect()),
            },
            pips: PerPlayer {
                x: i64::from(view.position.pip_count(bgref_core::Player::X)),
                o: i64::from(view.position.pip_count(bgref_core::Player::O)),
            },
        }
    }
}

/// A legal play of a Plakoto, Fevga or Long Nardy position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TablesPlayOutput {
    /// Move notation, points in the mover's numbering 24..1 and `off`
    /// (no bar); in Plakoto `*` marks a pin.
    pub notation: String,
    /// The single-die moves in the order played (`hit`: the move pins a
    /// checker, Plakoto).
    pub moves: Vec<MoveOutput>,
    /// The position after the play, opponent on roll.
    pub position: TablesPositionOutput,
}

/// Response of `POST /legal-moves` for Plakoto, Fevga and Long Nardy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TablesLegalMovesResponse {
    /// The variant.
    #[schema(value_type = VariantName)]
    pub variant: String,
    /// One entry per distinct resulting position; empty: no legal play, the turn passes.
    pub plays: Vec<TablesPlayOutput>,
    /// The roll, as given.
    pub dice: [u8; 2],
    /// Exactly one legal play.
    pub forced: bool,
}

/// How a Plakoto, Fevga or Long Nardy game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeName {
    /// The loser has borne off a checker: 1 point.
    Single,
    /// The loser has borne off none (Plakoto's double win, Fevga's gammon,
    /// Long Nardy's mars): 2 points.
    Double,
    /// Plakoto: the loser's mother (last checker on its starting point) is
    /// pinned there: 2 points.
    Mother,
    /// Plakoto: both mothers are pinned: no winner, 0 points.
    Draw,
}

/// The end of a Plakoto, Fevga or Long Nardy game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TablesGameOverOutput {
    /// The winner; left out for a draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PlayerName>)]
    pub winner: Option<Player>,
    /// How the game ended.
    #[schema(value_type = OutcomeName)]
    pub outcome: OutcomeKind,
    /// Points won (no cube): 1, 2, or 0 for a draw.
    pub points: u32,
}

impl From<&VariantOutcome> for TablesGameOverOutput {
    fn from(o: &VariantOutcome) -> Self {
        TablesGameOverOutput {
            winner: o.winner,
            outcome: o.kind,
            points: o.points,
        }
    }
}

/// Response of `POST /apply-move` for Plakoto, Fevga and Long Nardy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TablesApplyMoveResponse {
    /// The variant.
    #[schema(value_type = VariantName)]
    pub variant: String,
    /// The play as the referee understood it.
    pub play: PlayedOutput,
    /// The new position: the opponent on roll; for an unfinished partial
    /// play, the mover still on roll.
    pub position: TablesPositionOutput,
    /// Points (mover's view) where a checker was pinned (Plakoto).
    pub hits: Vec<u8>,
    /// Set when the play ended the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_over: Option<TablesGameOverOutput>,
    /// Set for `partial: true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialOutput>,
    /// Whose turn it is now.
    #[schema(value_type = PlayerName)]
    pub turn: Player,
}

/// Response of `POST /legal-moves`: Plakoto, Fevga and Long Nardy answer
/// with their own position encodings (and name the variant); the other
/// variants as before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum LegalMovesAnswerOutput {
    /// Plakoto, Fevga, Long Nardy.
    Tables(TablesLegalMovesResponse),
    /// The backgammon variants, Portes and Tavla.
    Backgammon(LegalMovesResponse),
}

/// Response of `POST /apply-move`: Plakoto, Fevga and Long Nardy answer
/// with their own position encodings and outcome (and name the variant);
/// the other variants as before, Portes and Tavla with `game_over.points`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ApplyMoveAnswerOutput {
    /// Plakoto, Fevga, Long Nardy.
    Tables(TablesApplyMoveResponse),
    /// The backgammon variants, Portes and Tavla.
    Backgammon(ApplyMoveResponse),
}

pub(crate) fn moves_output(play: &bgref_core::Play) -> Vec<MoveOutput> {
    play.moves()
        .iter()
        .map(|m| MoveOutput {
            from: m.from().get(),
            to: m.to().get(),
            hit: m.is_hit(),
        })
        .collect()
}

fn partial_output(p: &PartialPlay) -> PartialOutput {
    PartialOutput {
        complete: p.complete,
        remaining_dice: p.remaining.iter().map(|d| d.get()).collect(),
        completions: p.completions,
    }
}

impl From<&LegalMoves> for LegalMovesAnswerOutput {
    fn from(answer: &LegalMoves) -> Self {
        if answer.on_board().is_some() {
            return LegalMovesAnswerOutput::Backgammon(answer.into());
        }
        LegalMovesAnswerOutput::Tables(TablesLegalMovesResponse {
            variant: answer.position.variant().to_string(),
            plays: answer
                .tables()
                .map(|(play, view)| TablesPlayOutput {
                    notation: play.to_string(),
                    moves: moves_output(play),
                    position: (&view).into(),
                })
                .collect(),
            dice: answer.dice.values(),
            forced: answer.forced(),
        })
    }
}

impl From<&Applied> for ApplyMoveAnswerOutput {
    fn from(answer: &Applied) -> Self {
        let play = PlayedOutput {
            notation: answer.play.to_string(),
            moves: moves_output(&answer.play),
        };
        let variant = answer.position.variant();
        match (answer.board_view(), answer.tables_view()) {
            (Some(view), _) => ApplyMoveAnswerOutput::Backgammon(ApplyMoveResponse {
                play,
                position: (&view).into(),
                hits: answer.hits().collect(),
                game_over: answer.game_over.and_then(|o| {
                    Some(GameOverOutput {
                        winner: o.winner?,
                        result: o.result?,
                        // Portes and Tavla; a backgammon variant's points
                        // depend on the cube.
                        points: variant.game().map(|_| o.points),
                    })
                }),
                partial: answer.partial.as_ref().map(partial_output),
                turn: answer.turn(),
            }),
            (None, view) => ApplyMoveAnswerOutput::Tables(TablesApplyMoveResponse {
                variant: variant.to_string(),
                play,
                position: view.as_ref().map(Into::into).unwrap_or_else(|| {
                    unreachable!("a position not on the backgammon board is on the tables")
                }),
                hits: answer.hits().collect(),
                game_over: answer.game_over.as_ref().map(Into::into),
                partial: answer.partial.as_ref().map(partial_output),
                turn: answer.turn(),
            }),
        }
    }
}

/// Response of `POST /score` for the tables games (no cube, no match).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TablesScoreResponse {
    /// The variant.
    #[schema(value_type = VariantName)]
    pub variant: String,
    /// Always `bearoff` (Plakoto's mother and draw endings are found on the
    /// finished position too).
    pub ended_by: EndedBy,
    /// The winner; left out for a Plakoto draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PlayerName>)]
    pub winner: Option<Player>,
    /// Portes and Tavla: the result on the board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<GameResultName>)]
    pub result: Option<GameResult>,
    /// Plakoto, Fevga and Long Nardy: how the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<OutcomeName>)]
    pub outcome: Option<OutcomeKind>,
    /// Points won: 1, 2 (gammon, backgammon, mars, double win, mother), 0
    /// for a draw.
    pub points: u32,
}

/// Response of `POST /score`: the tables games answer with their own
/// shape (naming the variant), the backgammon variants as before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ScoreAnswerOutput {
    /// Portes, Tavla, Plakoto, Fevga, Long Nardy.
    Tables(TablesScoreResponse),
    /// The backgammon variants.
    Backgammon(ScoreGameResponse),
}

impl From<&ScoreAnswer> for ScoreAnswerOutput {
    fn from(answer: &ScoreAnswer) -> Self {
        match answer {
            ScoreAnswer::Backgammon(s) => ScoreAnswerOutput::Backgammon(s.into()),
            ScoreAnswer::Tables(s) => ScoreAnswerOutput::Tables(TablesScoreResponse {
                variant: s.game.to_string(),
                ended_by: EndedBy::Bearoff,
                winner: s.winner,
                result: s.result,
                outcome: s.outcome,
                points: s.points,
            }),
        }
    }
}

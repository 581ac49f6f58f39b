//! The JSON shapes of the tables games (`docs/variants.md`): Plakoto,
//! Fevga and Long Nardy positions in the one `PositionOutput`, how their
//! games end, and `/score`'s answer for the tables games.

use bgref_core::GameResult;
use bgref_core::Player;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::common::{Board, PerPlayer, PlayerName, PositionOutput, VariantName};
use super::cube::{EndedBy, GameResultName, ScoreGameResponse};
use crate::api::tables::{ScoreAnswer, TablesView};
use crate::api::view::PositionView;
use bgref_core::tables::OutcomeKind;

impl PositionOutput {
    /// A position in the backgammon board's encodings (`board`) or, when
    /// it is not on the board, the tables encodings (`tables`): what the
    /// api's answers give as `board_view()` and `TablesView::of`, exactly
    /// one of which is set.
    pub fn any(board: Option<PositionView>, tables: Option<TablesView>) -> PositionOutput {
        match (board, tables) {
            (Some(view), _) => (&view).into(),
            (None, Some(view)) => (&view).into(),
            (None, None) => unreachable!("a position is on the board or on the tables"),
        }
    }
}

/// A Plakoto, Fevga or Long Nardy position: the board (with Plakoto's
/// pins, an empty bar), the pips and, but in Plakoto, the Position ID.
impl From<&TablesView> for PositionOutput {
    fn from(view: &TablesView) -> Self {
        let board = view.board();
        PositionOutput {
            position_id: view.position_id(),
            xgid: None,
            board: Board {
                points: board.points.iter().map(|&n| i64::from(n)).collect(),
                bar: PerPlayer::default(),
                off: Some(board.off.into()),
                turn: board.turn,
                pins: board
                    .pins
                    .map(|pins| pins.iter().map(|&n| i64::from(n)).collect()),
            },
            fibs: None,
            pips: PerPlayer {
                x: i64::from(view.position.pip_count(bgref_core::Player::X)),
                o: i64::from(view.position.pip_count(bgref_core::Player::O)),
            },
            gnubg_match_id: None,
        }
    }
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

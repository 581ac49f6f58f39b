//! The JSON shapes of the tables games (`docs/variants.md`): Plakoto,
//! Fevga and Long Nardy positions in the one `PositionOutput` and how their
//! games end.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::common::{Board, PerPlayer, PositionOutput};
use crate::api::tables::TablesView;
use crate::api::view::PositionView;

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

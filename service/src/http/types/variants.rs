//! `GET /variants`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::common::{PositionOutput, VariantName};
use crate::api::tables::TablesView;
use crate::api::variants::VariantInfo;

/// Which rules of the game apply in a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VariantRulesOutput {
    /// The doubling cube is used.
    pub cube: bool,
    /// A gammon counts double.
    pub gammons: bool,
    /// A backgammon counts triple (false in the tables games, where it counts
    /// as a gammon).
    pub backgammons: bool,
}

/// One variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VariantOutput {
    /// The name requests use.
    #[schema(value_type = VariantName)]
    pub name: String,
    /// Checkers per player.
    pub checkers: u8,
    /// The starting position, x on roll, in the encodings of the variant
    /// (Plakoto, Fevga, Long Nardy: the board, and a Position ID for Fevga
    /// and Long Nardy; the others: Position ID, XGID and board).
    pub start: PositionOutput,
    /// Which rules apply.
    pub rules: VariantRulesOutput,
}

/// Response of `GET /variants`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VariantsResponse {
    /// Every variant served.
    pub variants: Vec<VariantOutput>,
}

impl From<&Vec<VariantInfo>> for VariantsResponse {
    fn from(list: &Vec<VariantInfo>) -> Self {
        VariantsResponse {
            variants: list
                .iter()
                .map(|v| VariantOutput {
                    name: v.variant.to_string(),
                    checkers: v.checkers,
                    start: PositionOutput::any(v.board_view(), TablesView::of(&v.start)),
                    rules: VariantRulesOutput {
                        cube: v.rules.cube,
                        gammons: v.rules.gammons,
                        backgammons: v.rules.backgammons,
                    },
                })
                .collect(),
        }
    }
}

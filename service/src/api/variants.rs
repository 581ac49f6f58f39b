//! The variants served, with their starting positions and which rules of
//! the game apply.

use bgref_core::{Player, Position, Variant};

use super::view::PositionView;

/// Which rules of the game apply in a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariantRules {
    /// The doubling cube is used.
    pub cube: bool,
    /// A gammon counts double.
    pub gammons: bool,
    /// A backgammon counts triple.
    pub backgammons: bool,
}

/// One variant.
#[derive(Debug, Clone)]
pub struct VariantInfo {
    /// The variant.
    pub variant: Variant,
    /// Checkers per player.
    pub checkers: u8,
    /// The starting position, x on roll.
    pub start: PositionView,
    /// Which rules apply.
    pub rules: VariantRules,
}

/// Every variant served.
pub fn list() -> Vec<VariantInfo> {
    Variant::ALL
        .iter()
        .map(|&variant| VariantInfo {
            variant,
            checkers: variant.checkers(),
            start: PositionView::new(Position::start(variant, Player::X), None),
            // The backgammon family: cube, gammons and backgammons (the
            // Jacoby rule is a request option, also in Hypergammon).
            rules: VariantRules {
                cube: true,
                gammons: true,
                backgammons: true,
            },
        })
        .collect()
}

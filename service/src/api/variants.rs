//! The variants served, with their starting positions and which rules of
//! the game apply.

use bgref_core::tables::{CHECKERS, Game, TablesRules};
use bgref_core::{BackgammonVariant, Player, Variant, VariantPosition};

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
    pub start: VariantPosition,
    /// Which rules apply.
    pub rules: VariantRules,
}

fn backgammon(variant: BackgammonVariant) -> VariantInfo {
    VariantInfo {
        variant: variant.into(),
        checkers: variant.checkers(),
        start: VariantPosition::start(variant.into(), TablesRules::DEFAULT, Player::X),
        // The backgammon family: cube, gammons and backgammons (the
        // Jacoby rule is a request option, also in Hypergammon).
        rules: VariantRules {
            cube: true,
            gammons: true,
            backgammons: true,
        },
    }
}

fn tables(game: Game) -> VariantInfo {
    VariantInfo {
        variant: game.into(),
        checkers: CHECKERS,
        start: VariantPosition::start(game.into(), TablesRules::DEFAULT, Player::X),
        // No cube in any of them; a gammon (double win, mars) counts 2;
        // a backgammon counts no more than a gammon (docs/variants.md).
        rules: VariantRules {
            cube: game.uses_cube(),
            gammons: true,
            backgammons: false,
        },
    }
}

impl VariantInfo {
    /// The start in the backgammon board's encodings (`None` in Plakoto,
    /// Fevga and Long Nardy).
    pub fn board_view(&self) -> Option<PositionView> {
        Some(PositionView::new(*self.start.board()?, None))
    }
}

/// Every variant served.
pub fn list() -> Vec<VariantInfo> {
    BackgammonVariant::ALL
        .into_iter()
        .map(backgammon)
        .chain(Game::ALL.into_iter().map(tables))
        .collect()
}

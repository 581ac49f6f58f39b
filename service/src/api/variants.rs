//! The variants served, with their starting positions and which rules of
//! the game apply.

use bgref_core::Variant;
use bgref_core::tables::{CHECKERS, Game, TablesPosition};
use bgref_core::{BackgammonVariant, Player, Position};

use super::tables::TablesView;
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

/// A starting position, in the encodings of its variant.
#[derive(Debug, Clone)]
pub enum StartView {
    /// The backgammon board (backgammon variants, Portes, Tavla).
    Backgammon(PositionView),
    /// Plakoto, Fevga, Long Nardy.
    Tables(TablesView),
}

/// One variant.
#[derive(Debug, Clone)]
pub struct VariantInfo {
    /// The variant.
    pub variant: Variant,
    /// Checkers per player.
    pub checkers: u8,
    /// The starting position, x on roll.
    pub start: StartView,
    /// Which rules apply.
    pub rules: VariantRules,
}

fn backgammon(variant: BackgammonVariant) -> VariantInfo {
    VariantInfo {
        variant: variant.into(),
        checkers: variant.checkers(),
        start: StartView::Backgammon(PositionView::new(Position::start(variant, Player::X), None)),
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
    let start = match game.backgammon_variant() {
        Some(v) => StartView::Backgammon(PositionView::new(Position::start(v, Player::X), None)),
        None => StartView::Tables(TablesView {
            position: TablesPosition::start(game, Player::X)
                .expect("the tables engine's games have a start"),
        }),
    };
    VariantInfo {
        variant: game.into(),
        checkers: CHECKERS,
        start,
        // No cube in any of them; a gammon (double win, mars) counts 2;
        // a backgammon counts no more than a gammon (docs/variants.md).
        rules: VariantRules {
            cube: game.uses_cube(),
            gammons: true,
            backgammons: false,
        },
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

//! [`Game`]: the five tables games, and the scoring of the two that move
//! like backgammon (Portes and Tavla).

use core::fmt;
use core::str::FromStr;

use crate::{BackgammonVariant, GameResult};

/// A tables game other than the backgammon variants of [`BackgammonVariant`].
///
/// Portes and Tavla move exactly like backgammon: play them with
/// [`crate::Position`] on [`Game::backgammon_variant`] and score them with
/// [`Game::backgammon_points`]. Plakoto, Fevga and Long Nardy have their own
/// engine, [`crate::tables::TablesPosition`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[repr(u8)]
pub enum Game {
    /// Greek backgammon: no cube, gammons and backgammons count 2.
    Portes,
    /// Turkish backgammon: no cube, a mars (gammon or backgammon) counts 2.
    Tavla,
    /// Greek pinning game: a checker landing on a single opposing checker
    /// pins it.
    Plakoto,
    /// Greek running game: both sides move the same way round, no hitting.
    Fevga,
    /// Russian running game, like Fevga with the head rule.
    LongNardy,
}

impl Game {
    /// Every game, in the order above.
    pub const ALL: [Game; 5] = [
        Game::Portes,
        Game::Tavla,
        Game::Plakoto,
        Game::Fevga,
        Game::LongNardy,
    ];

    /// The wire name: `portes`, `tavla`, `plakoto`, `fevga`, `long-nardy`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Game::Portes => "portes",
            Game::Tavla => "tavla",
            Game::Plakoto => "plakoto",
            Game::Fevga => "fevga",
            Game::LongNardy => "long-nardy",
        }
    }

    /// The backgammon variant whose [`crate::Position`] plays this game:
    /// `Some(BackgammonVariant::Standard)` for Portes and Tavla, `None` for the games
    /// of [`crate::tables::TablesPosition`].
    #[must_use]
    pub const fn backgammon_variant(self) -> Option<BackgammonVariant> {
        match self {
            Game::Portes | Game::Tavla => Some(BackgammonVariant::Standard),
            Game::Plakoto | Game::Fevga | Game::LongNardy => None,
        }
    }

    /// Whether the game has its own engine ([`crate::tables::TablesPosition`]).
    #[must_use]
    pub const fn is_tables_engine(self) -> bool {
        self.backgammon_variant().is_none()
    }

    /// Whether the doubling cube is used: never, in all five games.
    #[must_use]
    pub const fn uses_cube(self) -> bool {
        false
    }

    /// Points for a backgammon-board result in Portes or Tavla: a single
    /// counts 1, a gammon or backgammon (Tavla's mars) 2; with
    /// `backgammon_counts_three` (an option some Portes rule sets use) a
    /// backgammon counts 3. `None` for the other games, which have no
    /// backgammon [`GameResult`].
    #[must_use]
    pub const fn backgammon_points(
        self,
        result: GameResult,
        backgammon_counts_three: bool,
    ) -> Option<u32> {
        if self.backgammon_variant().is_none() {
            return None;
        }
        Some(match result {
            GameResult::Single => 1,
            GameResult::Gammon => 2,
            GameResult::Backgammon if backgammon_counts_three => 3,
            GameResult::Backgammon => 2,
        })
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for an unknown game name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseGameError;

impl fmt::Display for ParseGameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("game must be portes, tavla, plakoto, fevga or long-nardy")
    }
}

impl core::error::Error for ParseGameError {}

impl FromStr for Game {
    type Err = ParseGameError;
    /// Reads the wire names (exact lower case).
    fn from_str(s: &str) -> Result<Game, ParseGameError> {
        Game::ALL
            .into_iter()
            .find(|g| g.as_str() == s)
            .ok_or(ParseGameError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for game in Game::ALL {
            assert_eq!(game.as_str().parse(), Ok(game));
        }
        assert_eq!("nardy".parse::<Game>(), Err(ParseGameError));
        assert_eq!("long-nardy".parse(), Ok(Game::LongNardy));
    }

    #[test]
    fn portes_and_tavla_scoring() {
        // docs/variants.md, "Portes" and "Tavla": gammon and backgammon both 2.
        for game in [Game::Portes, Game::Tavla] {
            assert_eq!(game.backgammon_variant(), Some(BackgammonVariant::Standard));
            assert!(!game.uses_cube());
            assert_eq!(game.backgammon_points(GameResult::Single, false), Some(1));
            assert_eq!(game.backgammon_points(GameResult::Gammon, false), Some(2));
            assert_eq!(
                game.backgammon_points(GameResult::Backgammon, false),
                Some(2)
            );
            assert_eq!(
                game.backgammon_points(GameResult::Backgammon, true),
                Some(3)
            );
        }
        assert_eq!(
            Game::Fevga.backgammon_points(GameResult::Single, false),
            None
        );
    }
}

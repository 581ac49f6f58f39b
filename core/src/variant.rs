//! [`Variant`]: the ten rulesets the crate plays, by name.

use core::fmt;
use core::str::FromStr;

use crate::setup::BackgammonVariant;
use crate::tables::Game;

/// Every ruleset the crate plays: the five backgammon variants and the five
/// tables games. Its rule options (Tavla's hit-and-run, Plakoto's mother
/// rule, the primes of Fevga and Long Nardy...) are
/// [`crate::tables::TablesRules`], given beside it to
/// [`crate::VariantPosition::start`]; the backgammon variants have none.
///
/// With the `serde` feature it is (de)serialized as its wire name
/// ([`Variant::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[repr(u8)]
pub enum Variant {
    /// Backgammon.
    #[default]
    Standard,
    /// Nackgammon: backgammon from another start.
    Nackgammon,
    /// Hypergammon with one checker each.
    #[cfg_attr(feature = "serde", serde(rename = "hypergammon-1"))]
    Hypergammon1,
    /// Hypergammon with two checkers each.
    #[cfg_attr(feature = "serde", serde(rename = "hypergammon-2"))]
    Hypergammon2,
    /// Hypergammon (three checkers each).
    #[cfg_attr(feature = "serde", serde(rename = "hypergammon"))]
    Hypergammon3,
    /// Greek backgammon, no cube.
    Portes,
    /// Turkish backgammon, no cube, with the hit-and-run option.
    Tavla,
    /// Greek pinning game.
    Plakoto,
    /// Greek running game.
    Fevga,
    /// Russian running game.
    LongNardy,
}

impl Variant {
    /// Every variant: the backgammon ones first, then the tables games.
    pub const ALL: [Variant; 10] = [
        Variant::Standard,
        Variant::Nackgammon,
        Variant::Hypergammon1,
        Variant::Hypergammon2,
        Variant::Hypergammon3,
        Variant::Portes,
        Variant::Tavla,
        Variant::Plakoto,
        Variant::Fevga,
        Variant::LongNardy,
    ];

    /// The wire name: the backgammon variant's
    /// ([`BackgammonVariant::as_str`]) or the tables game's
    /// ([`Game::as_str`]).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match (self.backgammon(), self.game()) {
            (Some(variant), None) => variant.as_str(),
            (_, Some(game)) => game.as_str(),
            (None, None) => unreachable!(),
        }
    }

    /// The backgammon variant this is, for the five of them.
    #[must_use]
    pub const fn backgammon(self) -> Option<BackgammonVariant> {
        Some(match self {
            Variant::Standard => BackgammonVariant::Standard,
            Variant::Nackgammon => BackgammonVariant::Nackgammon,
            Variant::Hypergammon1 => BackgammonVariant::Hypergammon1,
            Variant::Hypergammon2 => BackgammonVariant::Hypergammon2,
            Variant::Hypergammon3 => BackgammonVariant::Hypergammon3,
            _ => return None,
        })
    }

    /// The tables game this is, for the five of them.
    #[must_use]
    pub const fn game(self) -> Option<Game> {
        Some(match self {
            Variant::Portes => Game::Portes,
            Variant::Tavla => Game::Tavla,
            Variant::Plakoto => Game::Plakoto,
            Variant::Fevga => Game::Fevga,
            Variant::LongNardy => Game::LongNardy,
            _ => return None,
        })
    }

    /// The backgammon board this is played on ([`crate::Position`]): the
    /// variant itself, [`BackgammonVariant::Standard`] for Portes and
    /// Tavla, `None` for Plakoto, Fevga and Long Nardy (played on
    /// [`crate::tables::TablesPosition`]).
    #[must_use]
    pub const fn board(self) -> Option<BackgammonVariant> {
        match self.game() {
            None => self.backgammon(),
            Some(game) => game.backgammon_variant(),
        }
    }

    /// The tables game played on the tables engine
    /// ([`crate::tables::TablesPosition`]): Plakoto, Fevga, Long Nardy.
    #[must_use]
    pub const fn tables_engine(self) -> Option<Game> {
        match self.board() {
            Some(_) => None,
            None => self.game(),
        }
    }

    /// Whether the doubling cube is used: in the backgammon variants only.
    #[must_use]
    pub const fn uses_cube(self) -> bool {
        self.backgammon().is_some()
    }
}

impl From<BackgammonVariant> for Variant {
    fn from(variant: BackgammonVariant) -> Variant {
        match variant {
            BackgammonVariant::Standard => Variant::Standard,
            BackgammonVariant::Nackgammon => Variant::Nackgammon,
            BackgammonVariant::Hypergammon1 => Variant::Hypergammon1,
            BackgammonVariant::Hypergammon2 => Variant::Hypergammon2,
            BackgammonVariant::Hypergammon3 => Variant::Hypergammon3,
        }
    }
}

impl From<Game> for Variant {
    fn from(game: Game) -> Variant {
        match game {
            Game::Portes => Variant::Portes,
            Game::Tavla => Variant::Tavla,
            Game::Plakoto => Variant::Plakoto,
            Game::Fevga => Variant::Fevga,
            Game::LongNardy => Variant::LongNardy,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for an unknown variant name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseVariantError;

impl fmt::Display for ParseVariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "variant must be standard, nackgammon, hypergammon, hypergammon-1, hypergammon-2, \
             hypergammon-3, portes, tavla, plakoto, fevga or long-nardy",
        )
    }
}

impl core::error::Error for ParseVariantError {}

impl FromStr for Variant {
    type Err = ParseVariantError;
    /// Reads the wire names, and the other spellings
    /// [`BackgammonVariant::from_str`] reads.
    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        if let Ok(variant) = s.parse::<BackgammonVariant>() {
            return Ok(variant.into());
        }
        s.parse::<Game>()
            .map(Variant::from)
            .map_err(|_| ParseVariantError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_split_the_two_families() {
        for variant in Variant::ALL {
            assert_eq!(variant.as_str().parse(), Ok(variant));
            assert_ne!(variant.backgammon().is_some(), variant.game().is_some());
            assert_eq!(variant.uses_cube(), variant.backgammon().is_some());
        }
        assert_eq!("hypergammon3".parse(), Ok(Variant::Hypergammon3));
        assert_eq!("nardy".parse::<Variant>(), Err(ParseVariantError));
        assert_eq!(Variant::Tavla.board(), Some(BackgammonVariant::Standard));
        assert_eq!(Variant::Fevga.board(), None);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_spells_the_wire_names() {
        for variant in Variant::ALL {
            let json = serde_json::to_string(&variant).unwrap();
            assert_eq!(json, alloc::format!("\"{variant}\""));
            assert_eq!(serde_json::from_str::<Variant>(&json).unwrap(), variant);
        }
    }
}

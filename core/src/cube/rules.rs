//! [`CubeRules`]: the house rules for the cube. Depends on [`super::value`]
//! and [`super::match_state`].

use super::match_state::MatchState;
use super::value::CubeValue;

/// The rule options for the cube. All money-play options are off by default
/// and are ignored in match play ([`CubeRules::effective`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct CubeRules {
    /// Jacoby rule (money only): gammons and backgammons count as single
    /// while the cube is centred, i.e. has never been turned (a cube raised
    /// by automatic doubles stays centred, so the rule still applies, as in
    /// gnubg).
    pub jacoby: bool,
    /// How many beavers and raccoons may be made on one double (money
    /// only): 0 disables them, 1 allows a beaver, 2 a beaver and a raccoon.
    pub beavers: u8,
    /// How many tied opening rolls double the centred cube (money only):
    /// 0 disables automatic doubles.
    pub automatic_doubles: u8,
    /// The highest value the cube may reach; 64 by default.
    pub max_cube: CubeValue,
}

impl CubeRules {
    /// No Jacoby, no beavers, no automatic doubles, cube up to 64.
    pub const DEFAULT: CubeRules = CubeRules {
        jacoby: false,
        beavers: 0,
        automatic_doubles: 0,
        max_cube: CubeValue::SIXTY_FOUR,
    };

    /// The rules as they apply under `match_state`: in match play Jacoby,
    /// beavers and automatic doubles are switched off; money play keeps
    /// them. The maximum cube applies in both.
    #[must_use]
    pub const fn effective(self, match_state: &MatchState) -> CubeRules {
        if match_state.is_money() {
            self
        } else {
            CubeRules {
                jacoby: false,
                beavers: 0,
                automatic_doubles: 0,
                max_cube: self.max_cube,
            }
        }
    }
}

impl CubeRules {
    /// The cube at the start of a game whose opening roll was tied
    /// `opening_ties` times (automatic doubles): in money play
    /// 2^min(`opening_ties`, [`CubeRules::automatic_doubles`]), never above
    /// [`CubeRules::max_cube`]; in match play, or with automatic doubles
    /// off, 1. The cube stays centred ([`crate::CubeState::for_new_game`]).
    ///
    /// ```
    /// use bgref_core::{CubeRules, CubeValue, MatchState};
    ///
    /// let rules = CubeRules { automatic_doubles: 2, ..CubeRules::DEFAULT };
    /// assert_eq!(rules.opening_cube(1, &MatchState::MONEY).get(), 2);
    /// assert_eq!(rules.opening_cube(5, &MatchState::MONEY).get(), 4);
    /// assert_eq!(rules.opening_cube(5, &MatchState::new_match(7)), CubeValue::ONE);
    /// ```
    #[must_use]
    pub fn opening_cube(&self, opening_ties: u32, match_state: &MatchState) -> CubeValue {
        let rules = self.effective(match_state);
        let doublings = opening_ties
            .min(u32::from(rules.automatic_doubles))
            .min(u32::from(rules.max_cube.log2()));
        // `doublings` is at most the maximum's log2, so it is a cube value.
        CubeValue::from_log2(doublings as u8).unwrap_or(rules.max_cube)
    }
}

impl Default for CubeRules {
    fn default() -> CubeRules {
        CubeRules::DEFAULT
    }
}

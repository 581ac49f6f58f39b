//! One referee for the ten rulesets: [`GameState`] is a refereed game (or
//! match) of any of them, as [`crate::VariantPosition`] is a position of
//! any of them. It dispatches to the backgammon referee
//! ([`BackgammonGame`]: standard, Nackgammon, Hypergammon, with the cube)
//! or the tables games' ([`TablesGameState`]: Portes, Tavla, Plakoto,
//! Fevga, Long Nardy and Tavli matches, without it); both take the same
//! [`Action`], report the same [`Event`] and end a game with a [`Score`].
//!
//! ```
//! use bgref_core::verify::Roller;
//! use bgref_core::tables::{TablesGameState, TablesMatch, TablesRules, TablesSeries, Game};
//! use bgref_core::{Action, BackgammonGame, BackgammonVariant, CubeRules, GameState, MatchState, Phase, Player};
//!
//! let roller = Roller::new(&[7; 32]);
//! let games = [
//!     GameState::from(BackgammonGame::new(
//!         BackgammonVariant::Standard,
//!         CubeRules::default(),
//!         MatchState::MONEY,
//!         "seed".into(),
//!     )),
//!     GameState::from(TablesGameState::new(
//!         TablesRules::DEFAULT,
//!         TablesMatch::new(TablesSeries::Single(Game::Plakoto), 1),
//!         "seed".into(),
//!     )),
//! ];
//! for game in games {
//!     assert_eq!(game.phase(), Phase::OpeningRoll);
//!     let (next, _event) = game.act(Player::X, &Action::Roll, &roller).unwrap();
//!     assert_eq!(next.to_act(), Some(next.on_roll()));
//! }
//! ```

use crate::cube::{CubeRules, CubeState, CubeValue, GameKind, GameScore, MatchState};
use crate::dice::Dice;
use crate::game::{Action, BackgammonGame, Event, GameError, Phase};
use crate::player::{ByPlayer, Player};
use crate::tables::{TablesGameState, TablesMatch, TablesScore};
use crate::variant::Variant;
use crate::variant_position::{VariantPlayList, VariantPosition};
use crate::verify::Roller;

/// How a game ended: the backgammon score (cube, match) or a tables
/// game's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// A backgammon variant's score (cube, match).
    Backgammon(GameScore),
    /// A tables game's score.
    Tables(TablesScore),
}

impl Score {
    /// The game's winner; `None` for a draw (Plakoto, both mothers pinned).
    #[must_use]
    pub const fn winner(&self) -> Option<Player> {
        match self {
            Score::Backgammon(s) => Some(s.winner),
            Score::Tables(s) => s.winner,
        }
    }

    /// The match's winner, when the game ended the match.
    #[must_use]
    pub fn match_winner(&self) -> Option<Player> {
        match self {
            Score::Backgammon(s) => s.match_outcome.winner,
            Score::Tables(s) => s.match_after.winner(),
        }
    }
}

/// The whole state of a refereed game within its match, of any ruleset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameState {
    /// Standard, Nackgammon, Hypergammon: the cube, the Crawford rule.
    Backgammon(BackgammonGame),
    /// Portes, Tavla, Plakoto, Fevga, Long Nardy, Tavli: no cube.
    Tables(TablesGameState),
}

impl From<BackgammonGame> for GameState {
    fn from(game: BackgammonGame) -> GameState {
        GameState::Backgammon(game)
    }
}

impl From<TablesGameState> for GameState {
    fn from(game: TablesGameState) -> GameState {
        GameState::Tables(game)
    }
}

/// The same field of either referee.
macro_rules! either {
    ($state:expr, $s:ident => $e:expr) => {
        match $state {
            GameState::Backgammon($s) => $e,
            GameState::Tables($s) => $e,
        }
    };
}

impl GameState {
    /// `player` takes `action`, with the match's dice from `roller`.
    ///
    /// # Errors
    /// [`GameError`]: not this player's turn, not this phase, a cube rule
    /// (or any cube action in a tables game: `no-cube-in-variant`), an
    /// illegal play, a resignation past [`crate::MAX_RESIGNATIONS`].
    pub fn act(
        &self,
        player: Player,
        action: &Action,
        roller: &Roller,
    ) -> Result<(GameState, Event), GameError> {
        match self {
            GameState::Backgammon(s) => s
                .act(player, action, roller)
                .map(|(next, event)| (GameState::Backgammon(next), event)),
            GameState::Tables(s) => s
                .act(player, action, roller)
                .map(|(next, event)| (GameState::Tables(next), event)),
        }
    }

    /// What is due.
    #[must_use]
    pub const fn phase(&self) -> Phase {
        either!(self, s => s.phase)
    }

    /// Ends the match where it stands, by a decision outside the rules of
    /// play (a player's time ran out): [`Phase::MatchOver`], the position
    /// and the last score unchanged.
    pub fn end_match(&mut self) {
        either!(self, s => s.phase = Phase::MatchOver);
    }

    /// The match began from a set position.
    #[must_use]
    pub const fn set_up(&self) -> bool {
        either!(self, s => s.set_up)
    }

    /// The client seed the match's dice are bound to.
    #[must_use]
    pub fn client_seed(&self) -> &str {
        either!(self, s => &s.client_seed)
    }

    /// The game number, from 1.
    #[must_use]
    pub const fn game(&self) -> u32 {
        either!(self, s => s.game)
    }

    /// The turn number: 0 is the opening roll, each later roll adds one.
    #[must_use]
    pub const fn turn(&self) -> u32 {
        either!(self, s => s.turn)
    }

    /// The player on roll.
    #[must_use]
    pub fn on_roll(&self) -> Player {
        either!(self, s => s.on_roll())
    }

    /// Who must act now; `None` when either player may (the opening roll,
    /// the next game) or nobody (the match is over).
    #[must_use]
    pub fn to_act(&self) -> Option<Player> {
        either!(self, s => s.to_act())
    }

    /// Resignations offered in this game so far.
    #[must_use]
    pub const fn resignations(&self) -> u8 {
        either!(self, s => s.resignations)
    }

    /// This turn's dice, once rolled and until the move is made.
    #[must_use]
    pub const fn dice(&self) -> Option<Dice> {
        either!(self, s => s.dice)
    }

    /// The ruleset played now (in a Tavli match, the game of the
    /// rotation).
    #[must_use]
    pub fn variant(&self) -> Variant {
        match self {
            GameState::Backgammon(s) => s.variant.into(),
            GameState::Tables(s) => s.current_game().into(),
        }
    }

    /// The cube as a board shows it: the game's, or in a tables game the
    /// centred 1 with the pending resignation.
    #[must_use]
    pub fn cube(&self) -> CubeState {
        match self {
            GameState::Backgammon(s) => s.cube,
            GameState::Tables(s) => CubeState {
                resignation: s.resignation,
                ..CubeState::START
            },
        }
    }

    /// Whether the player on roll may double now (never in a tables game).
    #[must_use]
    pub fn may_double(&self) -> bool {
        match self {
            GameState::Backgammon(s) => s.may_double(),
            GameState::Tables(_) => false,
        }
    }

    /// The match length (0: money play, or a session) and the score
    /// before this game.
    #[must_use]
    pub const fn match_score(&self) -> (u32, ByPlayer<u32>) {
        let m = self.match_state();
        (m.length, m.score)
    }

    /// The match before this game: length, score and Crawford flag (a
    /// tables match has no Crawford rule: never set).
    #[must_use]
    pub const fn match_state(&self) -> MatchState {
        match self {
            GameState::Backgammon(s) => s.match_state,
            GameState::Tables(s) => MatchState {
                length: s.tables_match.length,
                score: s.tables_match.score,
                crawford: false,
            },
        }
    }

    /// The cube's rule options (a tables game has no cube: no Jacoby rule,
    /// no beavers, no automatic doubles, a cube that stays at 1).
    #[must_use]
    pub const fn cube_rules(&self) -> CubeRules {
        match self {
            GameState::Backgammon(s) => s.rules,
            GameState::Tables(_) => CubeRules {
                jacoby: false,
                beavers: 0,
                automatic_doubles: 0,
                max_cube: CubeValue::ONE,
            },
        }
    }

    /// The kind of this game: normal, Crawford or post-Crawford (always
    /// normal in a tables game: no Crawford rule).
    #[must_use]
    pub fn game_kind(&self) -> GameKind {
        match self {
            GameState::Backgammon(s) => s.match_state.game_kind(),
            GameState::Tables(_) => GameKind::Normal,
        }
    }

    /// The last game's score, once it is over.
    #[must_use]
    pub fn result(&self) -> Option<Score> {
        match self {
            GameState::Backgammon(s) => s.result.map(Score::Backgammon),
            GameState::Tables(s) => s.result.map(Score::Tables),
        }
    }

    /// A tables game's match as it stands (after the game once it is
    /// over); `None` in a backgammon variant.
    #[must_use]
    pub fn tables_match(&self) -> Option<TablesMatch> {
        match self {
            GameState::Tables(s) => Some(s.match_now()),
            GameState::Backgammon(_) => None,
        }
    }

    /// The position, with the rules of the game played now.
    #[must_use]
    pub fn position(&self) -> VariantPosition {
        match self {
            GameState::Backgammon(s) => VariantPosition::from(s.position),
            GameState::Tables(s) => s.board,
        }
    }

    /// Every legal play of this turn's dice (none before the roll).
    #[must_use]
    pub fn legal_plays(&self) -> VariantPlayList {
        let position = self.position();
        match self.dice() {
            Some(dice) => position.legal_plays(dice),
            None => VariantPlayList::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::{CubeRules, MatchState};
    use crate::setup::BackgammonVariant;
    use crate::tables::{Game, TablesRules, TablesSeries};

    /// Every ruleset through the same calls: a game played out by the first
    /// legal play each turn ends with a score whose winner the state and
    /// the last event agree on.
    #[test]
    fn every_ruleset_plays_through_one_face() {
        let r = Roller::new(&[3; 32]);
        let mut starts: alloc::vec::Vec<GameState> = BackgammonVariant::ALL
            .iter()
            .map(|&v| {
                let one_point = MatchState {
                    length: 1,
                    ..MatchState::MONEY
                };
                BackgammonGame::new(v, CubeRules::default(), one_point, "s".into()).into()
            })
            .collect();
        for game in [
            Game::Portes,
            Game::Tavla,
            Game::Plakoto,
            Game::Fevga,
            Game::LongNardy,
        ] {
            let m = TablesMatch::new(TablesSeries::Single(game), 1);
            starts.push(TablesGameState::new(TablesRules::DEFAULT, m, "s".into()).into());
        }
        starts.push(
            TablesGameState::new(
                TablesRules::DEFAULT,
                TablesMatch::new(TablesSeries::Tavli, 1),
                "s".into(),
            )
            .into(),
        );
        assert_eq!(starts.len(), 11);
        for start in starts {
            let variant = start.variant();
            let end = crate::game::test_bot::play_out(start, &r, 5000);
            let score = end.result().expect("a score");
            assert_eq!(end.phase(), Phase::MatchOver, "{variant}");
            assert_eq!(score.match_winner(), score.winner(), "{variant}");
            assert!(score.winner().is_some(), "{variant}");
            assert_eq!(end.position().variant(), variant);
        }
    }
}

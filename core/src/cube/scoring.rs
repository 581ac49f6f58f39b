//! What a finished game is worth: [`GameResult`], [`GameEnd`] and
//! [`GameScore`], and the arithmetic (result times cube, the Jacoby rule,
//! the match after the game). Depends on [`super::value`],
//! [`super::match_state`] and [`super::rules`]; the checked entry point,
//! [`super::state::score_game`], validates the cube state first.

use core::fmt;
use core::str::FromStr;

use super::match_state::{MatchOutcome, MatchState};
use super::rules::CubeRules;
use super::value::{CubeOwner, CubeValue};
use crate::player::Player;

/// How big a win is, before the cube: 1, 2 or 3 times the cube value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[repr(u8)]
pub enum GameResult {
    /// The loser has borne off at least one checker.
    Single = 1,
    /// The loser has borne off none.
    Gammon = 2,
    /// The loser has borne off none and has a checker on the bar or in the
    /// winner's home board.
    Backgammon = 3,
}

impl GameResult {
    /// Single, gammon, backgammon.
    pub const ALL: [GameResult; 3] = [
        GameResult::Single,
        GameResult::Gammon,
        GameResult::Backgammon,
    ];

    /// 1, 2 or 3.
    #[must_use]
    pub const fn multiplier(self) -> u32 {
        self as u32
    }

    /// The result worth `multiplier` (1, 2 or 3) times the cube; `None`
    /// otherwise. Also reads gnubg's resignation levels, which use the same
    /// numbers.
    #[must_use]
    pub const fn from_multiplier(multiplier: u32) -> Option<GameResult> {
        match multiplier {
            1 => Some(GameResult::Single),
            2 => Some(GameResult::Gammon),
            3 => Some(GameResult::Backgammon),
            _ => None,
        }
    }

    /// `"single"`, `"gammon"` or `"backgammon"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::Single => "single",
            GameResult::Gammon => "gammon",
            GameResult::Backgammon => "backgammon",
        }
    }
}

impl core::fmt::Display for GameResult {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for a game result that is not `single`, `gammon` or `backgammon`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseGameResultError;

impl fmt::Display for ParseGameResultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("result must be \"single\", \"gammon\" or \"backgammon\"")
    }
}

impl core::error::Error for ParseGameResultError {}

impl FromStr for GameResult {
    type Err = ParseGameResultError;
    /// Reads `single`, `gammon` or `backgammon` (exact lower case).
    fn from_str(s: &str) -> Result<GameResult, ParseGameResultError> {
        match s {
            "single" => Ok(GameResult::Single),
            "gammon" => Ok(GameResult::Gammon),
            "backgammon" => Ok(GameResult::Backgammon),
            _ => Err(ParseGameResultError),
        }
    }
}

/// How a game ended, and who won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "ended_by", rename_all = "lowercase"))]
pub enum GameEnd {
    /// `winner` bore off all checkers; `result` is what the board shows.
    #[cfg_attr(feature = "serde", serde(rename = "bearoff"))]
    BearOff {
        /// The player with no checkers left.
        winner: Player,
        /// Single, gammon or backgammon, from the loser's checkers.
        result: GameResult,
    },
    /// The loser refused `winner`'s double (or beaver, or raccoon).
    Pass {
        /// The player whose double was refused.
        winner: Player,
    },
    /// The loser resigned `level` and `winner` accepted.
    Resign {
        /// The player who accepted the resignation.
        winner: Player,
        /// The level resigned.
        level: GameResult,
    },
}

impl GameEnd {
    /// The winner.
    #[must_use]
    pub const fn winner(self) -> Player {
        match self {
            GameEnd::BearOff { winner, .. }
            | GameEnd::Pass { winner }
            | GameEnd::Resign { winner, .. } => winner,
        }
    }

    /// The result before the cube and the Jacoby rule: the board's result,
    /// single for a pass, the level for a resignation.
    #[must_use]
    pub const fn result(self) -> GameResult {
        match self {
            GameEnd::BearOff { result, .. } => result,
            GameEnd::Pass { .. } => GameResult::Single,
            GameEnd::Resign { level, .. } => level,
        }
    }

    /// `"bearoff"`, `"pass"` or `"resign"`.
    #[must_use]
    pub const fn ended_by(self) -> &'static str {
        match self {
            GameEnd::BearOff { .. } => "bearoff",
            GameEnd::Pass { .. } => "pass",
            GameEnd::Resign { .. } => "resign",
        }
    }
}

/// A scored game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GameScore {
    /// How the game ended.
    pub end: GameEnd,
    /// The winner.
    pub winner: Player,
    /// The result as it happened (single for a pass).
    pub result: GameResult,
    /// Whether the Jacoby rule counted a gammon or backgammon as single.
    pub jacoby: bool,
    /// Points won: the counted result times the cube value.
    pub points: u32,
    /// The match (or money session) after this game.
    pub match_outcome: MatchOutcome,
}

impl GameScore {
    /// The score of `end` with a cube at `value` held by `owner`, under
    /// `match_state` and `rules`, without checking that the state can occur
    /// (see [`super::state::score_game`] for the rules and the checks).
    pub(crate) fn compute(
        end: GameEnd,
        value: CubeValue,
        owner: CubeOwner,
        match_state: &MatchState,
        rules: &CubeRules,
    ) -> GameScore {
        let rules = rules.effective(match_state);
        let result = end.result();
        let jacoby = rules.jacoby && owner.is_centred() && result != GameResult::Single;
        let counted = if jacoby { GameResult::Single } else { result };
        let points = counted.multiplier().saturating_mul(value.get());
        GameScore {
            end,
            winner: end.winner(),
            result,
            jacoby,
            points,
            match_outcome: match_state.after_game(end.winner(), points),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::match_state::{GameKind, InvalidMatchState};
    use crate::cube::state::{CubeError, CubeRefusal, CubeState, InvalidCubeState, score_game};
    use crate::player::ByPlayer;

    fn cube(value: u32, owner: CubeOwner) -> CubeState {
        CubeState {
            value: CubeValue::new(value),
            owner,
            ..CubeState::START
        }
    }

    #[test]
    fn results_times_the_cube() {
        let money = MatchState::MONEY;
        let rules = CubeRules::DEFAULT;
        let owned = cube(4, CubeOwner::Player(Player::O));
        for (result, points) in [
            (GameResult::Single, 4),
            (GameResult::Gammon, 8),
            (GameResult::Backgammon, 12),
        ] {
            let end = GameEnd::BearOff {
                winner: Player::X,
                result,
            };
            let score = score_game(end, &owned, &money, &rules).unwrap();
            assert_eq!(
                (score.points, score.result, score.jacoby),
                (points, result, false)
            );
            assert_eq!(score.match_outcome.score, ByPlayer { x: points, o: 0 });
        }
        let pass = score_game(GameEnd::Pass { winner: Player::O }, &owned, &money, &rules).unwrap();
        assert_eq!((pass.points, pass.result), (4, GameResult::Single));
        let resign = GameEnd::Resign {
            winner: Player::O,
            level: GameResult::Backgammon,
        };
        assert_eq!(
            score_game(resign, &owned, &money, &rules).unwrap().points,
            12
        );
    }

    #[test]
    fn jacoby() {
        let jacoby = CubeRules {
            jacoby: true,
            automatic_doubles: 1,
            ..CubeRules::DEFAULT
        };
        let gammon = GameEnd::BearOff {
            winner: Player::O,
            result: GameResult::Gammon,
        };
        let money = MatchState::MONEY;
        let centred = score_game(gammon, &CubeState::START, &money, &jacoby).unwrap();
        assert_eq!(
            (centred.points, centred.jacoby, centred.result),
            (1, true, GameResult::Gammon)
        );
        // Automatic doubles leave the cube centred: still single, times 2.
        let auto = score_game(gammon, &cube(2, CubeOwner::Centre), &money, &jacoby).unwrap();
        assert_eq!((auto.points, auto.jacoby), (2, true));
        let turned = score_game(
            gammon,
            &cube(2, CubeOwner::Player(Player::X)),
            &money,
            &jacoby,
        )
        .unwrap();
        assert_eq!((turned.points, turned.jacoby), (4, false));
        let resigned = GameEnd::Resign {
            winner: Player::O,
            level: GameResult::Backgammon,
        };
        assert_eq!(
            score_game(resigned, &CubeState::START, &money, &jacoby)
                .unwrap()
                .points,
            1
        );
        // Never in match play.
        let five = MatchState::new_match(5);
        let in_match = score_game(gammon, &CubeState::START, &five, &jacoby).unwrap();
        assert_eq!((in_match.points, in_match.jacoby), (2, false));
        let off = score_game(gammon, &CubeState::START, &money, &CubeRules::DEFAULT).unwrap();
        assert_eq!(off.points, 2);
    }

    #[test]
    fn match_outcome_and_errors() {
        let crawford = MatchState {
            length: 3,
            score: ByPlayer { x: 2, o: 0 },
            crawford: true,
        };
        let rules = CubeRules::DEFAULT;
        let single = GameEnd::BearOff {
            winner: Player::O,
            result: GameResult::Single,
        };
        let score = score_game(single, &CubeState::START, &crawford, &rules).unwrap();
        assert_eq!(score.match_outcome.next_game, Some(GameKind::PostCrawford));
        assert_eq!(
            score_game(
                GameEnd::Pass { winner: Player::X },
                &CubeState::START,
                &crawford,
                &rules
            ),
            Err(CubeError::Refused(CubeRefusal::CrawfordGame))
        );
        let over = MatchState {
            score: ByPlayer { x: 3, o: 0 },
            crawford: false,
            ..crawford
        };
        assert_eq!(
            score_game(single, &CubeState::START, &over, &rules),
            Err(CubeError::InvalidState(InvalidCubeState::Match(
                InvalidMatchState::MatchOver
            )))
        );
    }

    #[test]
    fn result_text() {
        for result in GameResult::ALL {
            assert_eq!(result.as_str().parse(), Ok(result));
            assert_eq!(
                GameResult::from_multiplier(result.multiplier()),
                Some(result)
            );
        }
        assert_eq!(GameResult::from_multiplier(0), None);
        assert!("Gammon".parse::<GameResult>().is_err());
        assert_eq!(GameEnd::Pass { winner: Player::X }.ended_by(), "pass");
    }
}

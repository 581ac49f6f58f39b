//! The match around a game: money play, or a match to N points with its
//! score and the Crawford rule. Depends on nothing else in `cube`.
//!
//! The rules are documented on [`MatchState`].

use core::fmt;

use crate::player::{ByPlayer, Player};

/// Money play or a match, with the score before the current game and
/// whether the current game is the Crawford game.
///
/// # Crawford and post-Crawford, as gnubg decides them
/// The Crawford game is the first game after either player reaches N-1
/// points: nobody may double in it. Every later game is post-Crawford and
/// doubling is allowed again. The state of a game carries only the Crawford
/// flag ([`MatchState::crawford`]); whether a game is post-Crawford is
/// derived from the score, as gnubg does: a game that is not the Crawford
/// game while a player stands at N-1 is post-Crawford. A match to 1 point
/// starts with both players at N-1 = 0, so it has no Crawford game and
/// counts as post-Crawford from the start (doubling is allowed, if
/// pointless). After a game, [`MatchState::after_game`] adds the points won
/// in full (no capping at the match length) and says whether the match is
/// won and what kind the next game is.
///
/// In money play ([`MatchState::MONEY`], length 0) the score is a running
/// session total, as in gnubg; it never ends the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct MatchState {
    /// Points needed to win the match; 0 means money play.
    pub length: u32,
    /// Points won so far (a session total in money play).
    pub score: ByPlayer<u32>,
    /// This game is the Crawford game (match play only).
    pub crawford: bool,
}

/// What kind of game a match game is, as far as the Crawford rule goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum GameKind {
    /// Before anyone reaches N-1 (and every money game): the cube is free.
    Normal,
    /// The first game after a player reaches N-1: no doubling.
    Crawford,
    /// Any game after the Crawford game: doubling allowed again.
    PostCrawford,
}

impl GameKind {
    /// `"normal"`, `"crawford"` or `"post_crawford"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameKind::Normal => "normal",
            GameKind::Crawford => "crawford",
            GameKind::PostCrawford => "post_crawford",
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The match after a game: the new score, the match winner, and the next
/// game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MatchOutcome {
    /// The match length (0 for money play).
    pub length: u32,
    /// The score after the game.
    pub score: ByPlayer<u32>,
    /// The player who reached the match length; always `None` in money play.
    pub winner: Option<Player>,
    /// The kind of the next game, `None` when the match is over.
    pub next_game: Option<GameKind>,
}

impl MatchOutcome {
    /// The state for the next game, `None` when the match is over.
    #[must_use]
    pub fn next_state(&self) -> Option<MatchState> {
        self.next_game.map(|kind| MatchState {
            length: self.length,
            score: self.score,
            crawford: kind == GameKind::Crawford,
        })
    }
}

/// Why a match state cannot occur.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvalidMatchState {
    /// A score has reached the match length: the match is over.
    MatchOver,
    /// The Crawford flag is set in money play.
    CrawfordInMoneyPlay,
    /// The Crawford flag is set but not exactly one player is one point from
    /// winning (or the match is to 1 point, which has no Crawford game).
    CrawfordNotOneAway,
}

impl InvalidMatchState {
    /// The lower-case reason, as `Display` writes it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            InvalidMatchState::MatchOver => {
                "the match is over: a score has reached the match length"
            }
            InvalidMatchState::CrawfordInMoneyPlay => "there is no crawford game in money play",
            InvalidMatchState::CrawfordNotOneAway => {
                "the crawford game needs exactly one player one point from winning the match"
            }
        }
    }
}

impl fmt::Display for InvalidMatchState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::error::Error for InvalidMatchState {}

impl MatchState {
    /// Money play: no match length, no Crawford game, score 0-0.
    pub const MONEY: MatchState = MatchState {
        length: 0,
        score: ByPlayer { x: 0, o: 0 },
        crawford: false,
    };

    /// The first game of a match to `length` points (0 gives money play).
    #[must_use]
    pub const fn new_match(length: u32) -> MatchState {
        MatchState {
            length,
            ..MatchState::MONEY
        }
    }

    /// Whether this is money play (length 0).
    #[must_use]
    pub const fn is_money(&self) -> bool {
        self.length == 0
    }

    /// Points `player` still needs to win the match (0 once won); `None`
    /// in money play.
    #[must_use]
    pub fn away(&self, player: Player) -> Option<u32> {
        (!self.is_money()).then(|| self.length.saturating_sub(self.score[player]))
    }

    /// Whether some player stands one point from winning the match.
    fn someone_one_away(&self) -> bool {
        !self.is_money() && Player::ALL.into_iter().any(|p| self.away(p) == Some(1))
    }

    /// Whether this game is post-Crawford: match play, not the Crawford
    /// game, and a player one point from winning (gnubg's rule).
    #[must_use]
    pub fn is_post_crawford(&self) -> bool {
        !self.crawford && self.someone_one_away()
    }

    /// The kind of the current game.
    #[must_use]
    pub fn game_kind(&self) -> GameKind {
        if self.crawford {
            GameKind::Crawford
        } else if self.is_post_crawford() {
            GameKind::PostCrawford
        } else {
            GameKind::Normal
        }
    }

    /// Whether the cube may be turned in this game at all (not the
    /// Crawford game). Who may turn it is [`crate::CubeState::may_double`].
    #[must_use]
    pub const fn doubling_allowed(&self) -> bool {
        !self.crawford
    }

    /// The player whose score has reached the match length, if any.
    #[must_use]
    pub fn winner(&self) -> Option<Player> {
        if self.is_money() {
            return None;
        }
        Player::ALL
            .into_iter()
            .find(|&p| self.score[p] >= self.length)
    }

    /// Checks that a game can be played in this state.
    ///
    /// # Errors
    /// [`InvalidMatchState::MatchOver`] when a score has reached the length,
    /// [`InvalidMatchState::CrawfordInMoneyPlay`], and
    /// [`InvalidMatchState::CrawfordNotOneAway`] when the Crawford flag is set
    /// without exactly one player at N-1.
    pub fn validate(&self) -> Result<(), InvalidMatchState> {
        if self.is_money() {
            return if self.crawford {
                Err(InvalidMatchState::CrawfordInMoneyPlay)
            } else {
                Ok(())
            };
        }
        if self.winner().is_some() {
            return Err(InvalidMatchState::MatchOver);
        }
        let one_away = Player::ALL
            .into_iter()
            .filter(|&p| self.away(p) == Some(1))
            .count();
        if self.crawford && (one_away != 1 || self.length < 2) {
            return Err(InvalidMatchState::CrawfordNotOneAway);
        }
        Ok(())
    }

    /// The match after `winner` wins `points` in this game: the points are
    /// added in full (saturating at `u32::MAX`), the match is won when the
    /// winner reaches the length, and otherwise the next game is the
    /// Crawford game when a player has just reached N-1 for the first time,
    /// post-Crawford once the Crawford game has been played (or a player was
    /// already at N-1), and normal before that. Money play only adds to the
    /// session score.
    ///
    /// The state is not validated (see [`MatchState::validate`]); the result
    /// is well defined for any input.
    #[must_use]
    pub fn after_game(&self, winner: Player, points: u32) -> MatchOutcome {
        let mut score = self.score;
        score[winner] = score[winner].saturating_add(points);
        let mut outcome = MatchOutcome {
            length: self.length,
            score,
            winner: None,
            next_game: Some(GameKind::Normal),
        };
        if self.is_money() {
            return outcome;
        }
        let after = MatchState { score, ..*self };
        if let Some(winner) = after.winner() {
            outcome.winner = Some(winner);
            outcome.next_game = None;
        } else if self.crawford || self.someone_one_away() {
            outcome.next_game = Some(GameKind::PostCrawford);
        } else if after.someone_one_away() {
            outcome.next_game = Some(GameKind::Crawford);
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(length: u32, x: u32, o: u32, crawford: bool) -> MatchState {
        MatchState {
            length,
            score: ByPlayer { x, o },
            crawford,
        }
    }

    #[test]
    fn kinds_from_the_score() {
        assert_eq!(state(5, 0, 0, false).game_kind(), GameKind::Normal);
        assert_eq!(state(5, 4, 2, true).game_kind(), GameKind::Crawford);
        assert_eq!(state(5, 4, 2, false).game_kind(), GameKind::PostCrawford);
        assert_eq!(state(5, 4, 4, false).game_kind(), GameKind::PostCrawford);
        assert_eq!(state(1, 0, 0, false).game_kind(), GameKind::PostCrawford);
        assert_eq!(MatchState::MONEY.game_kind(), GameKind::Normal);
        assert_eq!(state(0, 40, 3, false).game_kind(), GameKind::Normal);
        assert_eq!(state(5, 1, 3, false).away(Player::O), Some(2));
        assert_eq!(MatchState::MONEY.away(Player::X), None);
    }

    #[test]
    fn validation() {
        assert_eq!(state(5, 2, 3, false).validate(), Ok(()));
        assert_eq!(
            state(5, 5, 3, false).validate(),
            Err(InvalidMatchState::MatchOver)
        );
        assert_eq!(
            state(0, 0, 0, true).validate(),
            Err(InvalidMatchState::CrawfordInMoneyPlay)
        );
        assert_eq!(
            state(5, 3, 3, true).validate(),
            Err(InvalidMatchState::CrawfordNotOneAway)
        );
        assert_eq!(
            state(5, 4, 4, true).validate(),
            Err(InvalidMatchState::CrawfordNotOneAway)
        );
        assert_eq!(
            state(1, 0, 0, true).validate(),
            Err(InvalidMatchState::CrawfordNotOneAway)
        );
        assert_eq!(state(5, 4, 0, true).validate(), Ok(()));
        assert_eq!(state(0, 900, 3, false).validate(), Ok(()));
    }

    #[test]
    fn after_game() {
        let crawford = state(5, 2, 1, false).after_game(Player::X, 2);
        assert_eq!(crawford.next_game, Some(GameKind::Crawford));
        assert_eq!(crawford.next_state(), Some(state(5, 4, 1, true)));
        let post = state(5, 4, 1, true).after_game(Player::O, 1);
        assert_eq!(post.next_game, Some(GameKind::PostCrawford));
        assert_eq!(post.next_state(), Some(state(5, 4, 2, false)));
        // Reaching 4-4 in the Crawford game: post-Crawford, double match point.
        let dmp = state(5, 4, 2, true).after_game(Player::O, 2);
        assert_eq!(dmp.next_state(), Some(state(5, 4, 4, false)));
        // The full points count: no capping at the match length.
        let won = state(5, 4, 3, false).after_game(Player::X, 8);
        assert_eq!(
            (won.winner, won.score, won.next_game),
            (Some(Player::X), ByPlayer { x: 12, o: 3 }, None)
        );
        assert_eq!(won.next_state(), None);
        let money = MatchState::MONEY.after_game(Player::O, 4);
        assert_eq!(money.next_state(), Some(state(0, 0, 4, false)));
        assert_eq!(money.winner, None);
        let jump = state(7, 0, 0, false).after_game(Player::X, 6);
        assert_eq!(jump.next_game, Some(GameKind::Crawford));
    }
}

//! [`TavliMatch`]: a match of Portes, Plakoto and Fevga in rotation.

use core::fmt;

use crate::tables::game::Game;
use crate::{ByPlayer, Player};

/// A Tavli match: Portes, Plakoto and Fevga in that order, again and again,
/// until a player reaches the match length (usually 3, 5 or 7). No cube.
///
/// The first game's starter is found by an opening roll (each player rolls
/// one die, the higher starts and then rolls both dice for the first
/// turn: the opening dice are not played); every later game is started by
/// the previous game's winner. A drawn game (Plakoto, both mothers pinned)
/// scores nothing, counts as played (the rotation moves on) and the next
/// starter is found by an opening roll again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TavliMatch {
    /// Points needed to win the match.
    pub length: u32,
    /// Points won so far.
    pub score: ByPlayer<u32>,
    /// Games played so far (draws included): the next game is
    /// `ROTATION[games_played % 3]`.
    pub games_played: u32,
    /// The winner of the last game, who starts the next; `None` before the
    /// first game and after a draw (an opening roll decides).
    pub starter: Option<Player>,
}

/// Error for an impossible Tavli match state or result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TavliError {
    /// The match length is 0.
    ZeroLength,
    /// The match is already won.
    MatchOver,
    /// A win worth other than 1 to 3 points, or a draw with points.
    BadResult,
}

impl fmt::Display for TavliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TavliError::ZeroLength => "a tavli match is played to at least 1 point",
            TavliError::MatchOver => "the match is already won",
            TavliError::BadResult => "a game is won for 1 to 3 points, a draw for none",
        })
    }
}

impl core::error::Error for TavliError {}

impl TavliMatch {
    /// The games in the order played.
    pub const ROTATION: [Game; 3] = [Game::Portes, Game::Plakoto, Game::Fevga];

    /// A new match to `length` points.
    ///
    /// # Errors
    /// [`TavliError::ZeroLength`].
    pub const fn new(length: u32) -> Result<TavliMatch, TavliError> {
        if length == 0 {
            return Err(TavliError::ZeroLength);
        }
        Ok(TavliMatch {
            length,
            score: ByPlayer { x: 0, o: 0 },
            games_played: 0,
            starter: None,
        })
    }

    /// The game to play next.
    #[must_use]
    pub const fn game(&self) -> Game {
        TavliMatch::ROTATION[(self.games_played % 3) as usize]
    }

    /// The player who has reached the match length, if any.
    #[must_use]
    pub fn winner(&self) -> Option<Player> {
        Player::ALL
            .into_iter()
            .find(|&p| self.score[p] >= self.length)
    }

    /// The match after a game won by `winner` for `points` (1 to 3; Portes
    /// and Tavla results through [`Game::backgammon_points`]), or drawn
    /// (`winner` `None`, 0 points).
    ///
    /// # Errors
    /// [`TavliError::MatchOver`] once the match is won,
    /// [`TavliError::ZeroLength`] for a zero length, and
    /// [`TavliError::BadResult`] for other points.
    pub fn after_game(
        &self,
        winner: Option<Player>,
        points: u32,
    ) -> Result<TavliMatch, TavliError> {
        if self.length == 0 {
            return Err(TavliError::ZeroLength);
        }
        if self.winner().is_some() {
            return Err(TavliError::MatchOver);
        }
        let mut next = *self;
        match (winner, points) {
            (Some(w), 1..=3) => next.score[w] += points,
            (None, 0) => {}
            _ => return Err(TavliError::BadResult),
        }
        next.games_played += 1;
        next.starter = winner;
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_score_and_starter() {
        // docs/variants.md, "Tavli match".
        let m = TavliMatch::new(3).unwrap();
        assert_eq!((m.game(), m.starter), (Game::Portes, None));
        let m = m.after_game(Some(Player::O), 1).unwrap();
        assert_eq!((m.game(), m.starter), (Game::Plakoto, Some(Player::O)));
        let m = m.after_game(None, 0).unwrap();
        assert_eq!((m.game(), m.starter, m.score.o), (Game::Fevga, None, 1));
        let m = m.after_game(Some(Player::X), 2).unwrap();
        assert_eq!((m.game(), m.winner()), (Game::Portes, None));
        let m = m.after_game(Some(Player::X), 1).unwrap();
        assert_eq!(m.winner(), Some(Player::X));
        assert_eq!(m.after_game(Some(Player::O), 1), Err(TavliError::MatchOver));
        assert_eq!(TavliMatch::new(0), Err(TavliError::ZeroLength));
        assert_eq!(
            TavliMatch::new(5).unwrap().after_game(None, 1),
            Err(TavliError::BadResult)
        );
    }
}

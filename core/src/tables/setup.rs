//! [`TablesSetup`]: the unchecked description of a Plakoto, Fevga or Long
//! Nardy position, and the board geometry of the three games.
//!
//! # Geometry
//! Every player numbers the points from its own view, 24 (where its
//! checkers start) down to 1, and bears off from its points 1 to 6. There
//! is no bar (nobody is ever hit). How one player's numbering maps to the
//! other's depends on the game:
//! - Plakoto moves like backgammon, the two sides in opposite directions:
//!   one player's point `p` is the other's point `25 - p`.
//! - Fevga and Long Nardy start at diagonally opposite corners and both
//!   move counter-clockwise: one player's point `p` is the other's point
//!   `p + 12` (for `p <= 12`) or `p - 12`, so each player's 24-point is the
//!   other's 12-point.
//!
//! # The board as the wire carries it
//! [`TablesSetup::to_board`] / [`TablesSetup::from_board`]: 24 signed counts
//! from x's view (`board[i]` is x's point `i + 1`; positive counts are x's,
//! negative o's), plus, for Plakoto, 24 pin marks in the same order: `1`
//! where an x checker is pinned under o's checkers on that point, `-1`
//! where an o checker is pinned under x's, `0` elsewhere. The count on a
//! pinned point is the pinner's; the pinned checker is the one extra
//! checker the mark stands for. Borne-off counts and the player on roll go
//! beside them.

use crate::notation::position_id::PositionId;
use crate::tables::game::Game;
use crate::tables::rules::TablesRules;
use crate::{ByPlayer, Player};

/// Checkers per player in the three games.
pub const CHECKERS: u8 = 15;

/// The point the other player calls the mover's point `p` (1 to 24) in
/// `game`; an involution. Off (0), and any number above 24, stays as it is.
#[must_use]
pub const fn other_view(game: Game, p: u8) -> u8 {
    match (game, p) {
        (_, 0 | 25..) => p,
        (Game::Fevga | Game::LongNardy, 1..=12) => p + 12,
        (Game::Fevga | Game::LongNardy, _) => p - 12,
        _ => 25 - p,
    }
}

/// A position as described, not yet checked (see
/// [`crate::tables::TablesPosition::from_setup`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TablesSetup {
    /// The game (Plakoto, Fevga or Long Nardy).
    pub game: Game,
    /// The rule options.
    pub rules: TablesRules,
    /// Checkers on each point, each player from its own view:
    /// `points.x[i]` is the number of x's checkers on x's point `i + 1`,
    /// pinned checkers included.
    pub points: ByPlayer<[u8; 24]>,
    /// Plakoto: `pinned.x[i]` says x's single checker on x's point `i + 1`
    /// is pinned under o's checkers.
    pub pinned: ByPlayer<[bool; 24]>,
    /// Checkers borne off.
    pub off: ByPlayer<u8>,
    /// The player on roll.
    pub turn: Player,
}

impl TablesSetup {
    /// An empty board (no checkers anywhere, none off).
    #[must_use]
    pub const fn empty(game: Game, turn: Player) -> TablesSetup {
        TablesSetup {
            game,
            rules: TablesRules::DEFAULT,
            points: ByPlayer {
                x: [0; 24],
                o: [0; 24],
            },
            pinned: ByPlayer {
                x: [false; 24],
                o: [false; 24],
            },
            off: ByPlayer { x: 0, o: 0 },
            turn,
        }
    }

    /// The start of `game`: all 15 checkers of each player on its own
    /// 24-point.
    #[must_use]
    pub const fn start(game: Game, turn: Player) -> TablesSetup {
        let mut setup = TablesSetup::empty(game, turn);
        setup.points.x[23] = CHECKERS;
        setup.points.o[23] = CHECKERS;
        setup
    }

    /// The setup a Position ID describes for Fevga or Long Nardy (see
    /// [`crate::tables::TablesPosition::position_id`]); borne-off counts
    /// make up 15. Checkers on the ID's bar are dropped, so such an ID
    /// fails [`crate::tables::TablesPosition::from_setup`] on the count.
    #[must_use]
    pub fn from_position_id(game: Game, id: &PositionId, turn: Player) -> TablesSetup {
        let mut setup = TablesSetup::empty(game, turn);
        for (player, counts) in [(turn, &id.on_roll), (!turn, &id.opponent)] {
            setup.points[player].copy_from_slice(&counts[..24]);
            let on_board: u32 = counts.iter().map(|&n| u32::from(n)).sum();
            setup.off[player] =
                u8::try_from(u32::from(CHECKERS).saturating_sub(on_board)).unwrap_or(0);
        }
        setup
    }

    /// The signed board and pin marks from x's view (see the module doc).
    /// Where both players have checkers on a point and neither is marked
    /// pinned (an invalid setup), x's count wins.
    #[must_use]
    pub fn to_board(&self) -> ([i8; 24], [i8; 24]) {
        let mut board = [0i8; 24];
        let mut pins = [0i8; 24];
        for x_point in 1..=24u8 {
            let i = usize::from(x_point - 1);
            let j = usize::from(other_view(self.game, x_point) - 1);
            let (mut x, mut o) = (self.points.x[i], self.points.o[j]);
            if self.pinned.x[i] && x > 0 {
                x -= 1;
                pins[i] = 1;
            } else if self.pinned.o[j] && o > 0 {
                o -= 1;
                pins[i] = -1;
            }
            board[i] = if x > 0 {
                i8::try_from(x).unwrap_or(i8::MAX)
            } else {
                -i8::try_from(o).unwrap_or(i8::MAX)
            };
        }
        (board, pins)
    }

    /// Reads the signed board and pin marks of the wire (see the module
    /// doc). Any pin mark other than 1 or -1 means no pin.
    #[must_use]
    pub fn from_board(
        game: Game,
        board: &[i8; 24],
        pins: &[i8; 24],
        off: ByPlayer<u8>,
        turn: Player,
    ) -> TablesSetup {
        let mut setup = TablesSetup::empty(game, turn);
        for x_point in 1..=24u8 {
            let i = usize::from(x_point - 1);
            let j = usize::from(other_view(game, x_point) - 1);
            let n = board[i];
            if n > 0 {
                setup.points.x[i] = n.unsigned_abs();
            } else if n < 0 {
                setup.points.o[j] = n.unsigned_abs();
            }
            match pins[i] {
                1 => {
                    setup.points.x[i] = setup.points.x[i].saturating_add(1);
                    setup.pinned.x[i] = true;
                }
                -1 => {
                    setup.points.o[j] = setup.points.o[j].saturating_add(1);
                    setup.pinned.o[j] = true;
                }
                _ => {}
            }
        }
        setup.off = off;
        setup
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry() {
        for p in 1..=24 {
            for game in [Game::Plakoto, Game::Fevga, Game::LongNardy] {
                assert_eq!(other_view(game, other_view(game, p)), p);
            }
        }
        assert_eq!(other_view(Game::Fevga, 24), 12);
        assert_eq!(other_view(Game::LongNardy, 12), 24);
        assert_eq!(other_view(Game::Plakoto, 24), 1);
    }

    #[test]
    fn board_round_trip() {
        let mut s = TablesSetup::start(Game::Plakoto, Player::O);
        s.points.x[23] = 12;
        s.points.x[4] = 2; // x's 5 = o's 20
        s.points.o[19] = 1;
        s.pinned.o[19] = true;
        s.points.x[9] = 1; // x's 10 = o's 15, x pinned
        s.pinned.x[9] = true;
        s.points.o[14] = 1;
        s.points.o[23] = 13;
        let (board, pins) = s.to_board();
        assert_eq!((board[4], pins[4]), (2, -1));
        assert_eq!((board[9], pins[9]), (-1, 1));
        assert_eq!(
            TablesSetup::from_board(s.game, &board, &pins, s.off, s.turn),
            s
        );
    }
}

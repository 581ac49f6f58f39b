//! What operations answer about a position, in domain terms; each
//! transport renders it once into its own message.

use bgref_core::notation::fibs::{FibsBoard, UNLIMITED};
use bgref_core::notation::position_id::PositionId;
use bgref_core::notation::xgid::{Xgid, XgidDice};
use bgref_core::{ByPlayer, Player, Position};

/// A position to answer with, in all its encodings and with pip counts. `meta` is the
/// request's XGID, whose cube, score and match fields are carried into the
/// answer's XGID (its dice are not: they belonged to the position before).
#[derive(Debug, Clone)]
pub struct PositionView {
    /// The position.
    pub position: Position,
    /// The XGID of the request, if the position came as one.
    pub meta: Option<Xgid>,
}

/// The board encoding of a position: `points[i]` is point `i + 1` from x's
/// side, x's checkers positive and o's negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardView {
    /// The 24 signed counts.
    pub points: [i8; 24],
    /// Checkers on the bar.
    pub bar: ByPlayer<u8>,
    /// Checkers borne off.
    pub off: ByPlayer<u8>,
    /// The player on roll.
    pub turn: Player,
}

impl PositionView {
    /// `position`, with the request's XGID fields.
    pub fn new(position: Position, meta: Option<&Xgid>) -> PositionView {
        PositionView {
            position,
            meta: meta.cloned(),
        }
    }

    /// The gnubg Position ID.
    pub fn position_id(&self) -> String {
        PositionId::from_position(&self.position).to_string()
    }

    /// The XGID, with the request's cube, score and match fields.
    pub fn xgid(&self) -> String {
        let mut xgid = match &self.meta {
            Some(m) => Xgid {
                setup: self.position.to_setup(),
                dice: XgidDice::NotRolled,
                ..m.clone()
            },
            None => Xgid::from_position(&self.position),
        };
        xgid.setup.off = None;
        xgid.to_string()
    }

    /// The FIBS board string, with the request XGID's score, match length
    /// and cube value.
    pub fn fibs(&self) -> String {
        let mut board = FibsBoard::from_position(&self.position);
        if let Some(m) = &self.meta {
            board.score = m.score;
            board.match_length = if m.match_length == 0 {
                UNLIMITED
            } else {
                m.match_length
            };
            board.cube = m.cube_value.get();
        }
        board.to_string()
    }

    /// Both players' pip counts.
    pub fn pips(&self) -> ByPlayer<u32> {
        ByPlayer {
            x: self.position.pip_count(Player::X),
            o: self.position.pip_count(Player::O),
        }
    }

    /// The board encoding.
    pub fn board(&self) -> BoardView {
        let setup = self.position.to_setup();
        BoardView {
            points: setup.to_signed(),
            bar: setup.bar,
            off: setup.off.unwrap_or_default(),
            turn: self.position.turn(),
        }
    }
}

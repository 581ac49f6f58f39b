//! Players, positions and boards on the wire.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `x` or `o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PlayerName {
    /// x: the player whose numbering the board encoding uses.
    X,
    /// o: the other player.
    O,
}

impl From<PlayerName> for bgref_core::Player {
    fn from(p: PlayerName) -> Self {
        match p {
            PlayerName::X => bgref_core::Player::X,
            PlayerName::O => bgref_core::Player::O,
        }
    }
}

impl From<bgref_core::Player> for PlayerName {
    fn from(p: bgref_core::Player) -> Self {
        match p {
            bgref_core::Player::X => PlayerName::X,
            bgref_core::Player::O => PlayerName::O,
        }
    }
}

/// A count for each player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
pub struct PerPlayer {
    /// x's count.
    pub x: i64,
    /// o's count.
    pub o: i64,
}

/// The board encoding: `points[i]` is point `i + 1` numbered from x's side;
/// positive counts are x's checkers, negative o's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "points": [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2],
    "bar": {"x": 0, "o": 0}, "off": {"x": 0, "o": 0}, "turn": "x"}))]
pub struct Board {
    /// 24 signed counts, point 1 to 24 from x's side.
    pub points: Vec<i64>,
    /// Checkers on the bar (default none).
    #[serde(default)]
    pub bar: PerPlayer,
    /// Checkers borne off; in a request optional (then derived from the
    /// variant's checker count), and checked when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off: Option<PerPlayer>,
    /// The player on roll.
    pub turn: PlayerName,
}

/// A position in a request: exactly one of `position_id`, `xgid`, `board`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position_id": "4HPwATDgc/ABMA"}))]
pub struct PositionInput {
    /// gnubg Position ID (14 characters). The side on roll is x unless
    /// `turn` says o.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_id: Option<String>,
    /// eXtreme Gammon ID; also carries cube, turn, dice, score and match
    /// length, which responses carry forward.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xgid: Option<String>,
    /// The board encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<Board>,
    /// Only beside `position_id`: who is on roll (default x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<PlayerName>,
}

/// A position in a response, in all three encodings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PositionOutput {
    /// gnubg Position ID.
    pub position_id: String,
    /// eXtreme Gammon ID.
    pub xgid: String,
    /// The board encoding (with off counts).
    pub board: Board,
}

objects_only!(PerPlayer, Board, PositionInput);

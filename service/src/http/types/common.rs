//! Players, variants, positions and boards in JSON.

use bgref_core::{ByPlayer, Player};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::input::{BoardInput, PositionInput as ApiPosition};
use crate::api::view::PositionView;

/// `x` or `o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PlayerName {
    /// x: the player whose numbering the board encoding uses.
    X,
    /// o: the other player.
    O,
}

impl From<PlayerName> for Player {
    fn from(p: PlayerName) -> Self {
        match p {
            PlayerName::X => Player::X,
            PlayerName::O => Player::O,
        }
    }
}

impl From<Player> for PlayerName {
    fn from(p: Player) -> Self {
        match p {
            Player::X => PlayerName::X,
            Player::O => PlayerName::O,
        }
    }
}

/// The variants, by name. Requests carry the name as text so that an
/// unknown one is refused by the same validator over HTTP and gRPC
/// (`invalid-variant`); this enum documents the closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum VariantName {
    /// 15 checkers, the standard start.
    Standard,
    /// 15 checkers, Nackgammon's start.
    Nackgammon,
    /// 3 checkers (the same as `hypergammon-3`).
    Hypergammon,
    /// 1 checker.
    #[serde(rename = "hypergammon-1")]
    Hypergammon1,
    /// 2 checkers.
    #[serde(rename = "hypergammon-2")]
    Hypergammon2,
    /// 3 checkers.
    #[serde(rename = "hypergammon-3")]
    Hypergammon3,
    /// Greek backgammon: standard start and moves, no cube, gammon and
    /// backgammon count 2 (backgammon encodings).
    Portes,
    /// Turkish backgammon: standard start and moves, no cube, a mars counts
    /// 2 (backgammon encodings).
    Tavla,
    /// Greek pinning game: all 15 on the own 24-point, pins instead of
    /// hits, the mother rule; no cube (board with `pins` only).
    Plakoto,
    /// Greek running game: all 15 on the own 24-point, diagonally opposite,
    /// no hitting; no cube (board or Position ID).
    Fevga,
    /// Russian running game: as Fevga with the head rule; no cube (board or
    /// Position ID).
    LongNardy,
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
    /// Plakoto only: 24 pin marks in the order of `points`, `1` where one
    /// x checker is pinned under o's checkers there, `-1` where one o
    /// checker is pinned under x's, `0` elsewhere (the count in `points` is
    /// then the pinner's). Left out for the other variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pins: Option<Vec<i64>>,
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

impl From<PerPlayer> for ByPlayer<i64> {
    fn from(p: PerPlayer) -> Self {
        ByPlayer { x: p.x, o: p.o }
    }
}

impl<T: Into<i64>> From<ByPlayer<T>> for PerPlayer {
    fn from(p: ByPlayer<T>) -> Self {
        PerPlayer {
            x: p.x.into(),
            o: p.o.into(),
        }
    }
}

impl From<PositionInput> for ApiPosition {
    fn from(p: PositionInput) -> Self {
        ApiPosition {
            position_id: p.position_id,
            xgid: p.xgid,
            board: p.board.map(|b| BoardInput {
                points: b.points,
                bar: b.bar.into(),
                off: b.off.map(Into::into),
                turn: Some(b.turn.into()),
                pins: b.pins,
            }),
            turn: p.turn.map(Into::into),
        }
    }
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

impl From<&PositionView> for PositionOutput {
    fn from(view: &PositionView) -> Self {
        let board = view.board();
        PositionOutput {
            position_id: view.position_id(),
            xgid: view.xgid(),
            board: Board {
                points: board.points.iter().map(|&n| i64::from(n)).collect(),
                bar: board.bar.into(),
                off: Some(board.off.into()),
                turn: board.turn.into(),
                pins: None,
            },
        }
    }
}

objects_only!(PerPlayer, Board, PositionInput);

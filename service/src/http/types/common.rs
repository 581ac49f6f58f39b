//! Players, variants, positions and boards in JSON.

use bgref_core::{ByPlayer, Player};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::schema;
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
    #[schema(schema_with = schema::points)]
    pub points: Vec<i64>,
    /// Checkers on the bar (default none).
    #[serde(default)]
    #[schema(schema_with = bar_schema, required = false)]
    pub bar: PerPlayer,
    /// Checkers borne off; in a request optional (then derived from the
    /// variant's checker count), and checked when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = off_schema, required = false)]
    pub off: Option<PerPlayer>,
    /// The player on roll.
    #[schema(value_type = PlayerName)]
    pub turn: Player,
    /// Plakoto only: 24 pin marks in the order of `points`, `1` where one
    /// x checker is pinned under o's checkers there, `-1` where one o
    /// checker is pinned under x's, `0` elsewhere (the count in `points` is
    /// then the pinner's). Left out for the other variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pins: Option<Vec<i64>>,
}

fn bar_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    schema::checker_counts("Checkers on the bar, 0 to 15 each (default none).")
}

fn off_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    schema::or_null(schema::checker_counts(
        "Checkers borne off, 0 to 15 each; in a request optional (then derived from the \
         variant's checker count), and checked when given.",
    ))
}

/// A position in a request: one encoding (`position_id`, with `turn`
/// beside it; `xgid`; or `board`), or a position exactly as a response
/// carries it (every encoding, which must all agree; `pips`, when given,
/// must be right). The schema is the `oneOf` of those forms
/// (its `utoipa::PartialSchema` impl).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
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
    /// A FIBS board string (`board:...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fibs: Option<String>,
    /// Only beside `position_id` alone: who is on roll (default x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<Player>,
    /// Only in a position sent back as a response gave it: the pip counts,
    /// checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pips: Option<PerPlayer>,
    /// Only in a position sent back as a game view gave it: its gnubg
    /// Match ID, checked to be one and otherwise not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gnubg_match_id: Option<String>,
}

/// Schema only: a position as a gnubg Position ID.
#[derive(Deserialize, ToSchema)]
#[schema(as = PositionById, example = json!({"position_id": "4HPwATDgc/ABMA", "turn": "x"}))]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PositionById {
    /// gnubg Position ID (14 base64 characters).
    position_id: String,
    /// Who is on roll (default x): the ID does not say.
    #[serde(default)]
    turn: Option<PlayerName>,
}

/// Schema only: a position as an XGID.
#[derive(Deserialize, ToSchema)]
#[schema(as = PositionByXgid,
    example = json!({"xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"}))]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PositionByXgid {
    /// eXtreme Gammon ID (the `XGID=` prefix is optional); its cube, score
    /// and match fields are carried into the response's XGIDs.
    xgid: String,
}

/// Schema only: a position as the board encoding.
#[derive(Deserialize, ToSchema)]
#[schema(as = PositionByBoard)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PositionByBoard {
    /// The board encoding.
    board: Board,
}

/// Schema only: a position as a FIBS board string.
#[derive(Deserialize, ToSchema)]
#[schema(as = PositionByFibs, example = json!({"fibs": "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"}))]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PositionByFibs {
    /// A FIBS board string (`board:` and 52 more colon-separated tokens, as
    /// FIBS sends in `boardstyle 3`): its first player is x, the opponent o.
    fibs: String,
}

/// Schema only: a position exactly as responses carry it, sent back.
#[derive(Deserialize, ToSchema)]
#[schema(as = PositionEcho, example = json!({
    "position_id": "4HPwATDgc/ABMA",
    "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
    "board": {
        "points": [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2],
        "bar": {"x": 0, "o": 0}, "off": {"x": 0, "o": 0}, "turn": "x"},
    "fibs": "board:x:o:9999:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0",
    "pips": {"x": 167, "o": 167}}))]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PositionEcho {
    /// gnubg Position ID.
    position_id: String,
    /// eXtreme Gammon ID.
    xgid: String,
    /// The board encoding.
    board: Board,
    /// The FIBS board string (checked when given).
    #[serde(default)]
    fibs: Option<String>,
    /// The pip counts (checked when given).
    #[serde(default)]
    #[schema(schema_with = schema::pips_or_null, required = false)]
    pips: Option<PerPlayer>,
    /// A game view's gnubg Match ID (checked to be one when given,
    /// otherwise not read).
    #[serde(default)]
    gnubg_match_id: Option<String>,
}

impl utoipa::PartialSchema for PositionInput {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{OneOfBuilder, Ref};
        OneOfBuilder::new()
            .item(Ref::from_schema_name("PositionById"))
            .item(Ref::from_schema_name("PositionByXgid"))
            .item(Ref::from_schema_name("PositionByBoard"))
            .item(Ref::from_schema_name("PositionByFibs"))
            .item(Ref::from_schema_name("PositionEcho"))
            .description(Some(
                "A position in a request: one encoding (`position_id` with an optional \
                 `turn`, `xgid`, `board` or `fibs`), or a position exactly as a response carries it \
                 (all encodings, which must agree; `invalid-position` names the fields that \
                 disagree).",
            ))
            .examples([serde_json::json!({"position_id": "4HPwATDgc/ABMA"})])
            .into()
    }
}

impl ToSchema for PositionInput {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        use utoipa::PartialSchema as _;
        schemas.extend([
            ("PositionById".into(), PositionById::schema()),
            ("PositionByXgid".into(), PositionByXgid::schema()),
            ("PositionByBoard".into(), PositionByBoard::schema()),
            ("PositionByFibs".into(), PositionByFibs::schema()),
            ("PositionEcho".into(), PositionEcho::schema()),
            ("Board".into(), Board::schema()),
            ("PlayerName".into(), PlayerName::schema()),
        ]);
    }
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
            fibs: p.fibs,
            board: p.board.map(|b| BoardInput {
                points: b.points,
                bar: b.bar.into(),
                off: b.off.map(Into::into),
                turn: Some(b.turn),
                pins: b.pins,
            }),
            turn: p.turn,
            pips: p.pips.map(Into::into),
            gnubg_match_id: p.gnubg_match_id,
        }
    }
}

/// A position in a response, in the encodings of its variant, with both
/// players' pip counts: on the backgammon board (the backgammon variants,
/// Portes, Tavla) all four encodings; in Plakoto, Fevga and Long Nardy the
/// board (with Plakoto's pins) and, for Fevga and Long Nardy, a Position
/// ID (no XGID or FIBS board applies to them). It can be sent back
/// verbatim as a request's position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PositionOutput {
    /// gnubg Position ID; in Fevga and Long Nardy each side's own-view
    /// counts (empty bar), which identify the position only together with
    /// the variant. Left out for Plakoto (the ID cannot carry pins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = String, required = false)]
    pub position_id: Option<String>,
    /// eXtreme Gammon ID (the backgammon board only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = String, required = false)]
    pub xgid: Option<String>,
    /// The board encoding (with off counts). In Plakoto, Fevga and Long
    /// Nardy `points[i]` is x's point `i + 1` (in Fevga and Long Nardy
    /// x's 24-point is x's start and o's 12-point), the bar is always
    /// empty, and Plakoto adds `pins`.
    pub board: Board,
    /// The FIBS board string (the backgammon board only: `board:x:o:...`;
    /// x is FIBS's player, shown as O moving 24 to 1; match length 9999 in
    /// money play).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = String, required = false)]
    pub fibs: Option<String>,
    /// Pip counts.
    #[schema(schema_with = schema::pips)]
    pub pips: PerPlayer,
    /// Game views only: the gnubg Match ID of the game state (cube and
    /// owner, dice, score, match length, Crawford, who is on roll and who
    /// must act), beside `position_id` as gnubg pairs them. Not the
    /// request's `match_id`, which names the match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gnubg_match_id: Option<String>,
}

impl From<&PositionView> for Board {
    fn from(view: &PositionView) -> Self {
        let board = view.board();
        Board {
            points: board.points.iter().map(|&n| i64::from(n)).collect(),
            bar: board.bar.into(),
            off: Some(board.off.into()),
            turn: board.turn,
            pins: None,
        }
    }
}

impl From<&PositionView> for PositionOutput {
    fn from(view: &PositionView) -> Self {
        PositionOutput {
            position_id: Some(view.position_id()),
            xgid: Some(view.xgid()),
            board: view.into(),
            fibs: Some(view.fibs()),
            pips: view.pips().into(),
            gnubg_match_id: view.match_id(),
        }
    }
}

objects_only!(PerPlayer, Board, PositionInput);

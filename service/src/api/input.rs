//! The one validator: request data as any transport hands it over
//! (numbers as wide as any transport sends them, texts as given), checked
//! into domain values. Every refusal names the field by its JSON path, so
//! HTTP and gRPC give the same slug, detail and field for the same mistake.

use bgref_core::notation::position_id::PositionId;
use bgref_core::notation::xgid::Xgid;
use bgref_core::tables::Game;
use bgref_core::{ByPlayer, Dice, Die, Player, Position, Setup, Variant};

use crate::error::ApiError;

/// A position as a request gives it: exactly one encoding (HTTP may send
/// several keys; gRPC's `oneof` at most one), and `turn` only beside a
/// Position ID.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PositionInput {
    /// gnubg Position ID.
    pub position_id: Option<String>,
    /// eXtreme Gammon ID.
    pub xgid: Option<String>,
    /// The signed board.
    pub board: Option<BoardInput>,
    /// Who is on roll, beside `position_id` only (default x).
    pub turn: Option<Player>,
}

/// The board encoding as given: `points[i]` is point `i + 1` from x's side,
/// positive counts x's checkers, negative o's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardInput {
    /// The 24 signed counts.
    pub points: Vec<i64>,
    /// Checkers on the bar.
    pub bar: ByPlayer<i64>,
    /// Checkers borne off, if given (else derived from the variant).
    pub off: Option<ByPlayer<i64>>,
    /// The player on roll (`None`: left out, which is an error).
    pub turn: Option<Player>,
    /// Plakoto's pin marks, if given (refused for the other variants).
    pub pins: Option<Vec<i64>>,
}

/// A checked position, with what its XGID said besides.
#[derive(Debug, Clone)]
pub struct ReadPosition {
    /// The checked position.
    pub position: Position,
    /// The XGID the position came from, if it came from one: its cube,
    /// score and match fields are carried into response XGIDs.
    pub xgid: Option<Xgid>,
}

impl ReadPosition {
    /// The dice the XGID carries, if any.
    pub fn xgid_dice(&self) -> Option<Dice> {
        self.xgid.as_ref()?.rolled_dice()
    }
}

/// An unknown variant name or number in `field`.
pub fn unknown_variant(detail: impl std::fmt::Display) -> ApiError {
    ApiError::invalid("invalid-variant", "variant", detail)
}

/// A variant as the service knows it: a backgammon variant, or one of the
/// tables games (`docs/variants.md`). Portes and Tavla are played on the
/// backgammon board ([`AnyVariant::board`] is `Some`); Plakoto, Fevga and
/// Long Nardy on `bgref_core::tables::TablesPosition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnyVariant {
    /// Backgammon, Nackgammon, Hypergammon.
    Backgammon(Variant),
    /// Portes, Tavla, Plakoto, Fevga, Long Nardy.
    Tables(Game),
}

impl Default for AnyVariant {
    fn default() -> Self {
        AnyVariant::Backgammon(Variant::Standard)
    }
}

impl AnyVariant {
    /// Every variant served, backgammon's first.
    pub fn all() -> impl Iterator<Item = AnyVariant> {
        Variant::ALL
            .into_iter()
            .map(AnyVariant::Backgammon)
            .chain(Game::ALL.into_iter().map(AnyVariant::Tables))
    }

    /// The backgammon variant whose `Position` plays this one: itself,
    /// `Standard` for Portes and Tavla, `None` for the tables engine's games.
    pub fn board(self) -> Option<Variant> {
        match self {
            AnyVariant::Backgammon(v) => Some(v),
            AnyVariant::Tables(g) => g.backgammon_variant(),
        }
    }

    /// The tables game played on the tables engine, if this is one.
    pub fn tables_engine(self) -> Option<Game> {
        match self {
            AnyVariant::Tables(g) if g.is_tables_engine() => Some(g),
            _ => None,
        }
    }

    /// The tables game (all five), if this is one.
    pub fn game(self) -> Option<Game> {
        match self {
            AnyVariant::Tables(g) => Some(g),
            AnyVariant::Backgammon(_) => None,
        }
    }

    /// Whether the doubling cube is used.
    pub fn uses_cube(self) -> bool {
        self.game().is_none_or(Game::uses_cube)
    }
}

impl From<Variant> for AnyVariant {
    fn from(v: Variant) -> Self {
        AnyVariant::Backgammon(v)
    }
}

impl std::fmt::Display for AnyVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyVariant::Backgammon(v) => v.fmt(f),
            AnyVariant::Tables(g) => g.fmt(f),
        }
    }
}

impl std::str::FromStr for AnyVariant {
    type Err = ApiError;

    fn from_str(name: &str) -> Result<AnyVariant, ApiError> {
        if let Ok(v) = name.parse::<Variant>() {
            return Ok(AnyVariant::Backgammon(v));
        }
        name.parse::<Game>().map(AnyVariant::Tables).map_err(|_| {
            unknown_variant(
                "variant must be standard, nackgammon, hypergammon, hypergammon-1, \
                 hypergammon-2, hypergammon-3, portes, tavla, plakoto, fevga or long-nardy",
            )
        })
    }
}

/// The one validator of a variant given by name (HTTP); `None` is the
/// default, standard.
pub fn any_variant(name: Option<&str>) -> Result<AnyVariant, ApiError> {
    name.map_or(Ok(AnyVariant::default()), str::parse)
}

/// A variant an operation serves only on the backgammon board (the
/// referee game flow, the opening roll): the tables games are refused
/// with `unsupported-variant`.
pub fn backgammon_only(variant: AnyVariant, operation: &str) -> Result<Variant, ApiError> {
    match variant {
        AnyVariant::Backgammon(v) => Ok(v),
        AnyVariant::Tables(g) => Err(ApiError::invalid(
            "unsupported-variant",
            "variant",
            format!(
                "{operation} serves the backgammon variants only, not {g} (the tables games are \
                 served by /legal-moves, /apply-move, /score and /variants)"
            ),
        )),
    }
}

/// A variant an operation serves on the backgammon board only (the
/// opening roll's starting position): Portes and Tavla are the standard
/// board; Plakoto, Fevga and Long Nardy are refused with
/// `unsupported-variant`.
pub fn board_only(variant: AnyVariant, operation: &str) -> Result<Variant, ApiError> {
    match variant.board() {
        Some(v) => Ok(v),
        None => backgammon_only(variant, operation),
    }
}

/// An enum value a transport does not know, in `field`.
pub fn unknown_value(field: &str, value: impl std::fmt::Display) -> ApiError {
    ApiError::invalid(
        "invalid-request",
        field,
        format!("unknown {field} value {value}"),
    )
}

/// A required field that was left out.
pub fn required<T>(value: Option<T>, field: &str, why: &str) -> Result<T, ApiError> {
    value.ok_or_else(|| ApiError::invalid("invalid-request", field, why))
}

/// The dice of a request (`None`: left out), or those of its XGID.
pub fn dice(
    values: Option<&[i64]>,
    field: &str,
    from_position: Option<Dice>,
) -> Result<Dice, ApiError> {
    let Some(values) = values else {
        return from_position.ok_or_else(|| {
            ApiError::invalid(
                "invalid-dice",
                field,
                "dice are required: two numbers 1 to 6 (or an XGID with a roll)",
            )
        });
    };
    if values.len() != 2 {
        return Err(ApiError::invalid(
            "invalid-dice",
            field,
            format!("a roll is exactly two dice, got {}", values.len()),
        ));
    }
    let die = |i: usize| {
        Die::try_from(values[i]).map_err(|_| {
            ApiError::invalid(
                "invalid-dice",
                format!("{field}[{i}]"),
                format!("a die shows 1 to 6, got {}", values[i]),
            )
        })
    };
    Ok(Dice::new(die(0)?, die(1)?))
}

pub(super) fn count(value: i64, field: String, what: &str) -> Result<u8, ApiError> {
    u8::try_from(value)
        .ok()
        .filter(|&n| n <= 15)
        .ok_or_else(|| {
            ApiError::invalid(
                "invalid-position",
                field,
                format!("{what} must be 0 to 15, got {value}"),
            )
        })
}

/// The setup of the board encoding, field errors with their paths.
fn board_setup(board: &BoardInput, field: &str) -> Result<Setup, ApiError> {
    if board.points.len() != 24 {
        return Err(ApiError::invalid(
            "invalid-position",
            format!("{field}.points"),
            format!(
                "points has 24 entries (points 1 to 24 from x's side), got {}",
                board.points.len()
            ),
        ));
    }
    let mut points = [0i8; 24];
    for (i, &n) in board.points.iter().enumerate() {
        points[i] = i8::try_from(n)
            .ok()
            .filter(|n| (-15..=15).contains(n))
            .ok_or_else(|| {
                ApiError::invalid(
                    "invalid-position",
                    format!("{field}.points[{i}]"),
                    format!("a point holds at most 15 checkers, got {n}"),
                )
            })?;
    }
    if board.pins.is_some() {
        return Err(ApiError::invalid(
            "invalid-position",
            format!("{field}.pins"),
            "pins apply to plakoto only",
        ));
    }
    let turn = board.turn.ok_or_else(|| {
        ApiError::invalid(
            "invalid-position",
            format!("{field}.turn"),
            "board.turn is required (x or o)",
        )
    })?;
    let bar = ByPlayer {
        x: count(board.bar.x, format!("{field}.bar.x"), "a bar count")?,
        o: count(board.bar.o, format!("{field}.bar.o"), "a bar count")?,
    };
    let off = match board.off {
        None => None,
        Some(off) => Some(ByPlayer {
            x: count(off.x, format!("{field}.off.x"), "an off count")?,
            o: count(off.o, format!("{field}.off.o"), "an off count")?,
        }),
    };
    Ok(Setup::from_signed(&points, bar, off, turn))
}

/// A position that must be given.
pub fn required_position(
    input: Option<&PositionInput>,
    variant: Variant,
    field: &str,
) -> Result<ReadPosition, ApiError> {
    let input = input
        .ok_or_else(|| ApiError::invalid("invalid-position", field, "position is required"))?;
    position(input, variant, field)
}

/// Reads and checks the position of a request.
pub fn position(
    input: &PositionInput,
    variant: Variant,
    field: &str,
) -> Result<ReadPosition, ApiError> {
    let given = [
        input.position_id.is_some(),
        input.xgid.is_some(),
        input.board.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given != 1 {
        return Err(ApiError::invalid(
            "invalid-position",
            field,
            "give the position as exactly one of position_id, xgid or board",
        ));
    }
    if input.turn.is_some() && input.position_id.is_none() {
        return Err(ApiError::invalid(
            "invalid-position",
            format!("{field}.turn"),
            "turn goes only beside position_id: xgid and board say who is on roll",
        ));
    }
    let (setup, xgid, sub) = if let Some(id) = &input.position_id {
        let parsed: PositionId = id.parse().map_err(|e| {
            ApiError::invalid("invalid-position", format!("{field}.position_id"), e)
        })?;
        (
            parsed.to_setup(input.turn.unwrap_or(Player::X)),
            None,
            "position_id",
        )
    } else if let Some(text) = &input.xgid {
        let parsed: Xgid = text
            .parse()
            .map_err(|e| ApiError::invalid("invalid-position", format!("{field}.xgid"), e))?;
        (parsed.setup.clone(), Some(parsed), "xgid")
    } else if let Some(board) = &input.board {
        (
            board_setup(board, &format!("{field}.board"))?,
            None,
            "board",
        )
    } else {
        unreachable!("exactly one encoding is present")
    };
    let sub_field = format!("{field}.{sub}");
    let position = Position::from_setup(&setup, variant)
        .map_err(|e| ApiError::invalid("invalid-position", sub_field, e))?;
    Ok(ReadPosition { position, xgid })
}

/// Checks a position said to be the start of a game: it must be its
/// variant's starting position (either player on roll).
pub fn game_start(position: &Position, field: &str) -> Result<(), ApiError> {
    let variant = position.variant();
    if *position == Position::start(variant, position.turn()) {
        return Ok(());
    }
    Err(ApiError::invalid(
        "not-start-position",
        field,
        format!(
            "the position is said to be the start of a game but is not the {variant} start \
             (GET /variants lists each variant's starting position)"
        ),
    ))
}

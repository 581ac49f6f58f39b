//! The one validator: request data as any transport hands it over
//! (numbers as wide as any transport sends them, texts as given), checked
//! into domain values. Every refusal names the field by its JSON path, so
//! HTTP and gRPC give the same slug, detail and field for the same mistake.

use bgref_core::notation::fibs::FibsBoard;
use bgref_core::notation::position_id::PositionId;
use bgref_core::notation::xgid::Xgid;
use bgref_core::{BackgammonVariant, ByPlayer, Dice, Die, Player, Position, Setup, Variant};

use crate::error::ApiError;

/// A position as a request gives it: one encoding, with `turn` only beside
/// a Position ID; or every encoding, as a response carries it (HTTP may
/// send several keys; gRPC's `oneof` one form), which must all agree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PositionInput {
    /// gnubg Position ID.
    pub position_id: Option<String>,
    /// eXtreme Gammon ID.
    pub xgid: Option<String>,
    /// The signed board.
    pub board: Option<BoardInput>,
    /// A FIBS board string (`board:...`).
    pub fibs: Option<String>,
    /// Who is on roll, beside `position_id` only (default x).
    pub turn: Option<Player>,
    /// Pip counts, only beside every encoding (a response's position sent
    /// back): checked.
    pub pips: Option<ByPlayer<i64>>,
    /// A game view's gnubg Match ID, only beside every encoding (a game
    /// view's position sent back): checked to be a Match ID, otherwise
    /// not read (the position is the checkers and the turn).
    pub gnubg_match_id: Option<String>,
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

/// The one validator of a variant given by name (HTTP); `None` is the
/// default, standard.
pub fn read_variant(name: Option<&str>) -> Result<Variant, ApiError> {
    name.map_or(Ok(Variant::default()), |name| {
        name.parse().map_err(|_| {
            unknown_variant(
                "variant must be standard, nackgammon, hypergammon, hypergammon-1, \
                 hypergammon-2, hypergammon-3, portes, tavla, plakoto, fevga or long-nardy",
            )
        })
    })
}

/// A variant an operation serves only on the backgammon board (the
/// referee game flow, the opening roll): the tables games are refused
/// with `unsupported-variant`.
pub fn backgammon_only(variant: Variant, operation: &str) -> Result<BackgammonVariant, ApiError> {
    match variant.backgammon() {
        Some(v) => Ok(v),
        None => Err(ApiError::invalid(
            "unsupported-variant",
            "variant",
            format!(
                "{operation} serves the backgammon variants only, not {variant} (the tables games are \
                 served by /legal-moves, /apply-move, /score and /variants)"
            ),
        )),
    }
}

/// A variant an operation serves on the backgammon board only (the
/// opening roll's starting position): Portes and Tavla are the standard
/// board; Plakoto, Fevga and Long Nardy are refused with
/// `unsupported-variant`.
pub fn board_only(variant: Variant, operation: &str) -> Result<BackgammonVariant, ApiError> {
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

/// A checker count, 0 to 15; `field` makes the path of a refusal (only
/// then: a valid request formats nothing).
pub(super) fn count(
    value: i64,
    field: impl FnOnce() -> String,
    what: &str,
) -> Result<u8, ApiError> {
    u8::try_from(value)
        .ok()
        .filter(|&n| n <= 15)
        .ok_or_else(|| {
            ApiError::invalid(
                "invalid-position",
                field(),
                format!("{what} must be 0 to 15, got {value}"),
            )
        })
}

/// The setup of the board encoding of the position in `field`, field
/// errors with their paths (`{field}.board...`, made only on a refusal).
fn board_setup(board: &BoardInput, field: &str) -> Result<Setup, ApiError> {
    if board.points.len() != 24 {
        return Err(ApiError::invalid(
            "invalid-position",
            format!("{field}.board.points"),
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
                    format!("{field}.board.points[{i}]"),
                    format!("a point holds at most 15 checkers, got {n}"),
                )
            })?;
    }
    if board.pins.is_some() {
        return Err(ApiError::invalid(
            "invalid-position",
            format!("{field}.board.pins"),
            "pins apply to plakoto only",
        ));
    }
    let turn = board.turn.ok_or_else(|| {
        ApiError::invalid(
            "invalid-position",
            format!("{field}.board.turn"),
            "board.turn is required (x or o)",
        )
    })?;
    let bar = ByPlayer {
        x: count(
            board.bar.x,
            || format!("{field}.board.bar.x"),
            "a bar count",
        )?,
        o: count(
            board.bar.o,
            || format!("{field}.board.bar.o"),
            "a bar count",
        )?,
    };
    let off = match board.off {
        None => None,
        Some(off) => Some(ByPlayer {
            x: count(off.x, || format!("{field}.board.off.x"), "an off count")?,
            o: count(off.o, || format!("{field}.board.off.o"), "an off count")?,
        }),
    };
    Ok(Setup::from_signed(&points, bar, off, turn))
}

/// The encodings of a request position as they are read, in a fixed
/// order: the first is the position; each later one that reads differently
/// is named (at most three), to be reported once every encoding has been
/// checked on its own. On the stack: most requests give one encoding.
#[derive(Default)]
struct ReadEncodings {
    /// The first encoding read and its position.
    first: Option<(&'static str, Position)>,
    /// The later encodings that disagree with it, `disagreeing` of them.
    disagree: [&'static str; 3],
    disagreeing: usize,
}

impl ReadEncodings {
    fn push(&mut self, name: &'static str, position: Position) {
        match self.first {
            None => self.first = Some((name, position)),
            Some((_, first)) if first == position => {}
            Some(_) => {
                // At most four encodings are read, so at most three after
                // the first; a fifth (none exists) would go unnamed.
                if let Some(slot) = self.disagree.get_mut(self.disagreeing) {
                    *slot = name;
                    self.disagreeing += 1;
                }
            }
        }
    }
}

/// A position that must be given.
pub fn required_position(
    input: Option<&PositionInput>,
    variant: BackgammonVariant,
    field: &str,
) -> Result<ReadPosition, ApiError> {
    let input = input
        .ok_or_else(|| ApiError::invalid("invalid-position", field, "position is required"))?;
    position(input, variant, field)
}

/// The refusal of a position given with no encoding or with some but not all.
const ONE_ENCODING: &str = "give the position as exactly one of position_id, xgid, board or fibs, \
                            or with all of them as a response carries it";

/// Reads and checks the position of a request: one encoding, or all of
/// them as a response carries them (see [`PositionInput`]).
pub fn position(
    input: &PositionInput,
    variant: BackgammonVariant,
    field: &str,
) -> Result<ReadPosition, ApiError> {
    // A response's position carries all four; one without `fibs` (as
    // before FIBS boards were added) is accepted too.
    let all = input.position_id.is_some() && input.xgid.is_some() && input.board.is_some();
    let given = [
        input.position_id.is_some(),
        input.xgid.is_some(),
        input.board.is_some(),
        input.fibs.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given != 1 && !all {
        return Err(ApiError::invalid("invalid-position", field, ONE_ENCODING));
    }
    if input.turn.is_some() && (input.position_id.is_none() || all) {
        return Err(ApiError::invalid(
            "invalid-position",
            format!("{field}.turn"),
            "turn goes only beside position_id alone: xgid and board say who is on roll",
        ));
    }
    if let Some(id) = &input.gnubg_match_id {
        let sub = format!("{field}.gnubg_match_id");
        if !all {
            return Err(ApiError::invalid(
                "invalid-position",
                sub,
                "gnubg_match_id goes only in a position with every encoding, as a game view \
                 carries it",
            ));
        }
        id.parse::<bgref_core::notation::match_id::MatchId>()
            .map_err(|e| ApiError::invalid("invalid-position", sub, e))?;
    }
    if input.pips.is_some() && !all {
        return Err(ApiError::invalid(
            "invalid-position",
            format!("{field}.pips"),
            "pips go only in a position with every encoding, as a response carries it",
        ));
    }
    // Each encoding given, checked on its own, in a fixed order: board,
    // XGID, FIBS, Position ID (whose turn, when it is not alone, is the others').
    let check = |setup: &Setup, sub: &str| {
        Position::from_setup(setup, variant)
            .map_err(|e| ApiError::invalid("invalid-position", format!("{field}.{sub}"), e))
    };
    let mut read = ReadEncodings::default();
    let mut xgid = None;
    if let Some(board) = &input.board {
        let setup = board_setup(board, field)?;
        read.push("board", check(&setup, "board")?);
    }
    if let Some(text) = &input.xgid {
        let parsed: Xgid = text
            .parse()
            .map_err(|e| ApiError::invalid("invalid-position", format!("{field}.xgid"), e))?;
        read.push("xgid", check(&parsed.setup, "xgid")?);
        xgid = Some(parsed);
    }
    if let Some(text) = &input.fibs {
        let parsed: FibsBoard = text
            .parse()
            .map_err(|e| ApiError::invalid("invalid-position", format!("{field}.fibs"), e))?;
        read.push("fibs", check(&parsed.setup, "fibs")?);
    }
    if let Some(id) = &input.position_id {
        let parsed: PositionId = id.parse().map_err(|e| {
            ApiError::invalid("invalid-position", format!("{field}.position_id"), e)
        })?;
        let turn = read
            .first
            .map_or(input.turn.unwrap_or(Player::X), |(_, p)| p.turn());
        read.push("position_id", check(&parsed.to_setup(turn), "position_id")?);
    }
    // One encoding or all of them was given (checked above): one was read.
    let Some((first, position)) = read.first else {
        return Err(ApiError::invalid("invalid-position", field, ONE_ENCODING));
    };
    let disagree = &read.disagree[..read.disagreeing];
    if let Some(name) = disagree.first() {
        return Err(ApiError::invalid(
            "invalid-position",
            format!("{field}.{name}"),
            format!(
                "the encodings disagree: {first} gives one position, {} another",
                disagree.join(", "),
            ),
        ));
    }
    if let Some(pips) = input.pips {
        let right = ByPlayer {
            x: i64::from(position.pip_count(Player::X)),
            o: i64::from(position.pip_count(Player::O)),
        };
        if pips != right {
            return Err(ApiError::invalid(
                "invalid-position",
                format!("{field}.pips"),
                format!(
                    "the encodings disagree: pips are x {} o {}, not the position's x {} o {}",
                    pips.x, pips.o, right.x, right.o
                ),
            ));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::view::PositionView;

    const START_XGID: &str = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10";

    /// A position with every encoding, as a response renders it.
    fn echo(xgid: &str) -> PositionInput {
        let read = position(
            &PositionInput {
                xgid: Some(xgid.into()),
                ..PositionInput::default()
            },
            BackgammonVariant::Standard,
            "position",
        )
        .unwrap();
        let view = PositionView::new(read.position, read.xgid.as_ref());
        let board = view.board();
        PositionInput {
            position_id: Some(view.position_id()),
            xgid: Some(view.xgid()),
            board: Some(BoardInput {
                points: board.points.iter().map(|&n| i64::from(n)).collect(),
                bar: ByPlayer {
                    x: board.bar.x.into(),
                    o: board.bar.o.into(),
                },
                off: Some(ByPlayer {
                    x: board.off.x.into(),
                    o: board.off.o.into(),
                }),
                turn: Some(board.turn),
                pins: None,
            }),
            fibs: Some(view.fibs()),
            turn: None,
            gnubg_match_id: None,
            pips: Some(ByPlayer {
                x: view.pips().x.into(),
                o: view.pips().o.into(),
            }),
        }
    }

    #[test]
    fn every_encoding_agreeing_is_read_with_the_xgid_fields() {
        // o on roll, cube 2 owned by o, a 5-point match at 1-3.
        let xgid = "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:00:1:3:0:5:10";
        let read = position(&echo(xgid), BackgammonVariant::Standard, "position").unwrap();
        assert_eq!(read.position.turn(), Player::O);
        assert_eq!(read.xgid.unwrap().to_string(), xgid);
    }

    #[test]
    fn disagreeing_encodings_are_named() {
        let mut input = echo(START_XGID);
        input.position_id = Some("4HPwATDgc/ABMA".into());
        // The start with x on roll; now make the board disagree.
        input.board.as_mut().unwrap().points.swap(5, 7);
        let err = position(&input, BackgammonVariant::Standard, "position").unwrap_err();
        assert_eq!(err.slug, "invalid-position");
        assert_eq!(err.field.as_deref(), Some("position.xgid"));
        assert!(
            err.to_string()
                .contains("board gives one position, xgid, fibs, position_id another"),
            "{err}"
        );

        let mut input = echo(START_XGID);
        input.pips = Some(ByPlayer { x: 167, o: 166 });
        let err = position(&input, BackgammonVariant::Standard, "position").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("position.pips"));
    }

    #[test]
    fn partial_sets_and_misplaced_fields_are_refused() {
        let mut input = echo(START_XGID);
        input.board = None;
        let err = position(&input, BackgammonVariant::Standard, "position").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("position"));

        let mut input = echo(START_XGID);
        input.turn = Some(Player::O);
        let err = position(&input, BackgammonVariant::Standard, "position").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("position.turn"));

        let input = PositionInput {
            xgid: Some(START_XGID.into()),
            pips: Some(ByPlayer { x: 167, o: 167 }),
            ..PositionInput::default()
        };
        let err = position(&input, BackgammonVariant::Standard, "position").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("position.pips"));
    }
}

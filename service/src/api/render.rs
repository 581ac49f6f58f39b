//! Pictures of a position (`GET /render.svg`, `GET /render.txt`, gRPC
//! `bgref.v1.Render`): a position in any encoding, checked by the one
//! validator ([`super::input`]), with the cube, the match and the dice as
//! the request gives them (or as its XGID carries them), drawn as an SVG
//! ([`mod@svg`]), as that picture in PNG ([`mod@png`]) or as the text board
//! GNU Backgammon prints ([`mod@text`]).

#[cfg(feature = "png")]
pub mod png;
pub mod svg;
pub mod text;

use bgref_core::Variant;
use bgref_core::{
    ByPlayer, CubeOwner, CubeRules, CubeState, CubeValue, Dice, GameResult, InvalidCubeState,
    InvalidMatchState, MatchState, Player, Position, Resignation,
};

use bgref_core::notation::move_text::MoveText;

use super::input::{self, PositionInput};
use crate::error::ApiError;

/// What a picture request gives: `None` is left out (then the XGID's
/// field, if the position came as one, else the default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderInput {
    /// The variant of `position` (backgammon board variants only).
    pub variant: Variant,
    /// The position, in any encoding.
    pub position: Option<PositionInput>,
    /// The cube value, a power of two from 1 to 64 (default 1).
    pub cube_value: Option<i64>,
    /// Who holds the cube (default centre).
    pub cube_owner: Option<CubeOwner>,
    /// Points to win; 0 is money play (the default).
    pub match_length: Option<i64>,
    /// The score before this game (default 0 each).
    pub score: ByPlayer<Option<i64>>,
    /// This game is the Crawford game (default no).
    pub crawford: Option<bool>,
    /// The roll to show (default none: the player on roll is to roll).
    pub dice: Option<Vec<i64>>,
    /// Whose side the picture is drawn from (default the player on roll).
    pub perspective: Option<Player>,
    /// The player whose double (or beaver, or raccoon) waits for an
    /// answer (the SVG only).
    pub cube_offered_by: Option<Player>,
    /// Beavers and raccoons made on that double (each has doubled
    /// `cube_value` already; money play; the SVG only).
    pub cube_beavers: Option<i64>,
    /// A resignation waiting for an answer: who offers it and what it
    /// gives (both or neither; the SVG only).
    pub resignation_by: Option<Player>,
    /// The level of that resignation.
    pub resignation_level: Option<GameResult>,
    /// The players' names (default `x` and `o`).
    pub names: ByPlayer<Option<String>>,
    /// The last play, in notation, by the player not on roll (the SVG
    /// only).
    pub last_play: Option<String>,
}

/// A checked picture: the position, cube, match and dice to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// The position.
    pub position: Position,
    /// Whose side the picture is drawn from: the bottom of the SVG, the
    /// point numbers of both pictures.
    pub viewer: Player,
    /// The cube: value and owner.
    pub cube: CubeState,
    /// The match: length (0 money), score, Crawford.
    pub match_state: MatchState,
    /// The roll shown, if any.
    pub dice: Option<Dice>,
    /// The players' names (`x` and `o` unless the request names them).
    pub names: ByPlayer<String>,
    /// The last play, by the player not on roll, as written (its points
    /// from that player's side); marked on the SVG.
    pub last_play: Option<MoveText>,
}

/// A rendered picture: the SVG document or the text board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered(pub String);

/// The rules a picture's cube is checked under: the defaults, with any
/// number of automatic doubles (a centred cube above 1 is then possible in
/// money play) and of beavers.
const RULES: CubeRules = CubeRules {
    automatic_doubles: 6,
    beavers: 6,
    ..CubeRules::DEFAULT
};

fn number(value: i64, field: &str, slug: &'static str, what: &str) -> Result<u32, ApiError> {
    u32::try_from(value)
        .ok()
        .filter(|&n| n <= 32767)
        .ok_or_else(|| ApiError::invalid(slug, field, format!("{what}, got {value}")))
}

/// Checks a picture request: the position by the one validator, the cube
/// and match against each other (an owned cube above 1, no cube turned in
/// the Crawford game, no score at the match length), the dice as two dice.
///
/// # Errors
/// `invalid-position`, `invalid-cube`, `invalid-match`, `invalid-dice`
/// (400), naming the query parameter or field; `unsupported-variant` for
/// the tables games played on their own board (Plakoto, Fevga, Long
/// Nardy: see [`svg()`] for their pictures).
pub fn read(input: &RenderInput) -> Result<Picture, ApiError> {
    let variant = input::board_only(input.variant, "gnubg's text board")?;
    let read = input::required_position(input.position.as_ref(), variant, "position")?;
    let xgid = read.xgid.as_ref();
    let value = match input.cube_value {
        Some(v) => u64::try_from(v)
            .ok()
            .and_then(|v| CubeValue::try_from(v).ok())
            .ok_or_else(|| {
                ApiError::invalid(
                    "invalid-cube",
                    "cube_value",
                    format!("a cube value is a power of two from 1 to 64, got {v}"),
                )
            })?,
        None => xgid.map_or(CubeValue::ONE, |x| x.cube_value),
    };
    let owner = input
        .cube_owner
        .or(xgid.map(|x| x.cube_owner))
        .unwrap_or_default();
    let match_state = read_match(
        input,
        xgid.map(bgref_core::notation::xgid::Xgid::match_state),
    )?;
    let resignation = match (input.resignation_by, input.resignation_level) {
        (None, None) => None,
        (Some(by), Some(level)) => Some(Resignation { by, level }),
        (by, _) => {
            let missing = if by.is_none() {
                "resignation_by"
            } else {
                "resignation_level"
            };
            return Err(ApiError::invalid(
                "invalid-cube",
                missing,
                "a resignation needs both resignation_by (x or o) and resignation_level \
                 (single, gammon or backgammon)",
            ));
        }
    };
    let beavers = match input.cube_beavers {
        None => 0,
        Some(n) => u8::try_from(n).map_err(|_| {
            ApiError::invalid(
                "invalid-cube",
                "cube_beavers",
                format!("cube_beavers is a count from 0 to 6, got {n}"),
            )
        })?,
    };
    let cube = CubeState {
        value,
        owner,
        offered_by: input.cube_offered_by,
        beavers,
        resignation,
    };
    cube.validate(&match_state, &RULES)
        .map_err(|e| state_error(e, &match_state))?;
    let names = names(input)?;
    let last_play = input
        .last_play
        .as_deref()
        .map(|text| {
            text.parse::<MoveText>()
                .map_err(|e| ApiError::invalid("invalid-play", "last_play", e))
        })
        .transpose()?;
    let dice = match &input.dice {
        Some(values) => Some(input::dice(Some(values), "dice", None)?),
        None => read.xgid_dice(),
    };
    Ok(Picture {
        viewer: input.perspective.unwrap_or(read.position.turn()),
        position: read.position,
        cube,
        match_state,
        dice,
        names,
        last_play,
    })
}

/// The players' names of a request, checked as `POST /games` checks them.
fn names(input: &RenderInput) -> Result<ByPlayer<String>, ApiError> {
    let name = |given: &Option<String>, field: &str, default: &str| match given {
        Some(name) => super::games::check_player_name(name, field).map(|()| name.clone()),
        None => Ok(default.to_owned()),
    };
    Ok(ByPlayer {
        x: name(&input.names.x, "name_x", "x")?,
        o: name(&input.names.o, "name_o", "o")?,
    })
}

/// The match of a request, each part left out taken from `from_xgid`
/// (else money play, 0-0, no Crawford game). Checked with the cube.
fn read_match(input: &RenderInput, from_xgid: Option<MatchState>) -> Result<MatchState, ApiError> {
    let length = match input.match_length {
        Some(n) => number(
            n,
            "match_length",
            "invalid-match",
            "a match length is 0 (money play) to 32767",
        )?,
        None => from_xgid.map_or(0, |m| m.length),
    };
    let score = |given: Option<i64>, field: &str, xgid_score: Option<u32>| match given {
        Some(n) => number(
            n,
            field,
            "invalid-match",
            "a score is a whole number from 0 to 32767",
        ),
        None => Ok(xgid_score.unwrap_or(0)),
    };
    let match_state = MatchState {
        length,
        score: ByPlayer {
            x: score(input.score.x, "score_x", from_xgid.map(|m| m.score.x))?,
            o: score(input.score.o, "score_o", from_xgid.map(|m| m.score.o))?,
        },
        crawford: input
            .crawford
            .unwrap_or_else(|| from_xgid.is_some_and(|m| m.crawford)),
    };
    match_state
        .validate()
        .map_err(|e| state_error(InvalidCubeState::Match(e), &match_state))?;
    Ok(match_state)
}

/// An inconsistent cube or match, naming the parameter at fault.
fn state_error(err: InvalidCubeState, match_state: &MatchState) -> ApiError {
    use InvalidCubeState as S;
    let (slug, field) = match err {
        S::Match(InvalidMatchState::MatchOver) if match_state.score.x >= match_state.length => {
            ("invalid-match", "score_x")
        }
        S::Match(InvalidMatchState::MatchOver) => ("invalid-match", "score_o"),
        S::Match(_) => ("invalid-match", "crawford"),
        S::OwnedCubeAtOne => ("invalid-cube", "cube_owner"),
        S::OfferByNonOwner => ("invalid-cube", "cube_offered_by"),
        S::DoubleAndResignation => ("invalid-cube", "resignation_by"),
        S::BeaversWithoutDouble | S::BeaverCountAboveLimit | S::BeaversAboveCube => {
            ("invalid-cube", "cube_beavers")
        }
        _ => ("invalid-cube", "cube_value"),
    };
    ApiError::invalid(slug, field, err)
}

/// The SVG picture of a request: any variant; Plakoto, Fevga and Long
/// Nardy without a cube (their positions as the tables operations read
/// them: a board, or a Position ID for Fevga and Long Nardy).
///
/// # Errors
/// As [`read`]; `invalid-cube` for a cube in a game played without one.
pub fn svg(input: &RenderInput) -> Result<Rendered, ApiError> {
    let Some(game) = input.variant.tables_engine() else {
        return Ok(Rendered(svg::draw(&svg::Scene::backgammon(&read(input)?))));
    };
    let given = input::required(input.position.as_ref(), "position", "position is required")
        .map_err(|e| ApiError::invalid("invalid-position", "position", e))?;
    let position = super::tables::read_position(given, game, "position")?;
    if input.cube_value.is_some() || input.cube_owner.is_some() {
        return Err(ApiError::invalid(
            "invalid-cube",
            if input.cube_value.is_some() {
                "cube_value"
            } else {
                "cube_owner"
            },
            format!("{game} is played without the doubling cube"),
        ));
    }
    if input.last_play.is_some() {
        return Err(ApiError::invalid(
            "invalid-request",
            "last_play",
            format!(
                "the picture of {game} marks no last play: last_play is for the backgammon board"
            ),
        ));
    }
    if let Some(field) = pending(input) {
        return Err(ApiError::invalid(
            "invalid-cube",
            field,
            format!("{game} is played without the doubling cube"),
        ));
    }
    let match_state = read_match(input, None)?;
    let names = names(input)?;
    let dice = match &input.dice {
        Some(values) => Some(input::dice(Some(values), "dice", None)?),
        None => None,
    };
    Ok(Rendered(svg::draw(&svg::Scene::tables(
        &position,
        input.perspective,
        match_state,
        dice,
        names,
    ))))
}

/// The first parameter of the SVG's alone the request gives, if any: a
/// pending double or resignation, the last play.
fn pending(input: &RenderInput) -> Option<&'static str> {
    if input.last_play.is_some() {
        Some("last_play")
    } else if input.cube_offered_by.is_some() {
        Some("cube_offered_by")
    } else if input.cube_beavers.is_some() {
        Some("cube_beavers")
    } else if input.resignation_by.is_some() {
        Some("resignation_by")
    } else if input.resignation_level.is_some() {
        Some("resignation_level")
    } else {
        None
    }
}

/// The SVG picture of `input` as PNG bytes: [`svg()`], then rasterised
/// (`png::rasterise`; CPU work, so the adapters run it off
/// the async workers).
///
/// # Errors
/// As [`svg()`]; `png-unavailable` (503) in a build without the `png`
/// feature (the fuzz targets').
pub fn png(input: &RenderInput) -> Result<Vec<u8>, ApiError> {
    let svg = svg(input)?.0;
    #[cfg(feature = "png")]
    return png::rasterise(&svg);
    #[cfg(not(feature = "png"))]
    return Err(ApiError::new(
        crate::error::ErrorKind::Unavailable,
        "png-unavailable",
        format!(
            "this build of bgref has no PNG rasteriser (the `png` feature); the SVG is {} bytes: \
             GET /render.svg",
            svg.len()
        ),
    ));
}

/// [`png()`] on the blocking pool ([`crate::offload`]), one per core at a
/// time as heavy `/legal-moves` answers are: rasterising is CPU work
/// (bench/README.md, "The PNG board"). Both adapters call it.
///
/// # Errors
/// As [`png()`].
pub async fn png_off_the_workers(input: RenderInput) -> Result<Vec<u8>, ApiError> {
    crate::offload::run(move || png(&input)).await
}

/// The text board of a request, as gnubg's `show board` prints it.
///
/// # Errors
/// As [`read`].
pub fn text(input: &RenderInput) -> Result<Rendered, ApiError> {
    if let Some(field) = pending(input) {
        return Err(ApiError::invalid(
            "invalid-request",
            field,
            "gnubg's text board shows no last play, and no double or resignation waiting for an \
             answer (gnubg's `set matchid` drops them): /render.svg draws them",
        ));
    }
    Ok(Rendered(text::draw(&read(input)?)))
}

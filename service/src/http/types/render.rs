//! The query of `GET /render.svg` and `GET /render.txt`.
//!
//! Every parameter is read as text and checked here or by the one
//! validator, so a mistake is a problem document naming the parameter
//! (not a bare deserialization error); the `param` attributes document
//! the types and bounds the checks enforce.

use bgref_core::Player;
use serde::Deserialize;
use utoipa::IntoParams;

use super::common::{Board, PlayerName, PositionInput as HttpPosition, VariantName};
use super::cube::CubeOwnerName;
use crate::api::input::PositionInput;
use crate::api::render::RenderInput;
use crate::error::ApiError;

/// A position in one encoding, with the cube, the match and the dice to
/// show. What is left out comes from the XGID, if the position is one,
/// else the default (cube 1 centred, money play, no dice).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RenderQuery {
    /// gnubg Position ID (14 base64 characters); the side on roll is x
    /// unless `turn` says o. Give exactly one of `position_id`, `xgid`,
    /// `fibs` and `board`.
    #[param(value_type = Option<String>)]
    pub position_id: Option<String>,
    /// Only beside `position_id`: who is on roll (default x).
    #[param(value_type = Option<PlayerName>)]
    pub turn: Option<String>,
    /// eXtreme Gammon ID (the `XGID=` prefix is optional); its cube,
    /// score, Crawford flag and dice are drawn unless given here.
    #[param(value_type = Option<String>,
        example = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10")]
    pub xgid: Option<String>,
    /// A FIBS board string (`board:...`, as FIBS sends it).
    #[param(value_type = Option<String>)]
    pub fibs: Option<String>,
    /// The board encoding as JSON text (the `Board` schema: `points`,
    /// `bar`, `off`, `turn`, and Plakoto's `pins`): the way to give a
    /// Plakoto position.
    #[param(value_type = Option<String>)]
    pub board: Option<String>,
    /// The variant (default standard). Plakoto, Fevga and Long Nardy are
    /// drawn by `/render.svg` only (without a cube; `/render.txt` refuses
    /// them with `unsupported-variant`).
    #[param(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// The cube value: 1, 2, 4, 8, 16, 32 or 64 (default 1).
    #[param(schema_with = cube_values)]
    pub cube_value: Option<String>,
    /// Who holds the cube (default centre); an owned cube is above 1.
    #[param(value_type = Option<CubeOwnerName>)]
    pub cube_owner: Option<String>,
    /// Points to win the match; 0 (the default) is money play.
    #[param(value_type = Option<u32>, minimum = 0, maximum = 32767)]
    pub match_length: Option<String>,
    /// x's score, below the match length (default 0).
    #[param(value_type = Option<u32>, minimum = 0, maximum = 32767)]
    pub score_x: Option<String>,
    /// o's score, below the match length (default 0).
    #[param(value_type = Option<u32>, minimum = 0, maximum = 32767)]
    pub score_o: Option<String>,
    /// This game is the Crawford game (match play, one player one point
    /// away; default false).
    #[param(value_type = Option<bool>)]
    pub crawford: Option<String>,
    /// The roll to show, as two digits 1 to 6 (`65`); left out, the
    /// player on roll is to roll.
    #[param(value_type = Option<String>, pattern = "^[1-6][1-6]$", example = "65")]
    pub dice: Option<String>,
    /// Whose side the picture is drawn from: `x` or `o` (default the
    /// player on roll). The SVG puts that player at the bottom; both
    /// pictures number the points from its side.
    #[param(value_type = Option<PlayerName>)]
    pub perspective: Option<String>,
    /// A double waiting for an answer: the player who offered it (or whose
    /// beaver or raccoon waits). The SVG draws the cube in the left half's
    /// middle with the value a take makes; `/render.txt` refuses it.
    #[param(value_type = Option<PlayerName>)]
    pub cube_offered_by: Option<String>,
    /// Beavers and raccoons made on that double, money play (each has
    /// doubled `cube_value` already; default 0).
    #[param(value_type = Option<u32>, minimum = 0, maximum = 6)]
    pub cube_beavers: Option<String>,
    /// A resignation waiting for an answer: who offers it (with
    /// `resignation_level`). The SVG draws a flag with the points it
    /// gives; `/render.txt` refuses it.
    #[param(value_type = Option<PlayerName>)]
    pub resignation_by: Option<String>,
    /// What that resignation gives: `single`, `gammon` or `backgammon`.
    #[param(value_type = Option<String>)]
    pub resignation_level: Option<String>,
    /// x's name (default `x`): 1 to 31 bytes without `:`, `"`, control
    /// characters or white space at either end, as `POST /games` takes it.
    #[param(value_type = Option<String>, min_length = 1, max_length = 31)]
    pub name_x: Option<String>,
    /// o's name (default `o`), as `name_x`.
    #[param(value_type = Option<String>, min_length = 1, max_length = 31)]
    pub name_o: Option<String>,
    /// The last play, in notation (`13/7 8/7`), by the player not on roll
    /// (points from its side): the SVG marks where it moved from (a gold
    /// outline under the point, the bar or the tray) and to (gold filled);
    /// `/render.txt` refuses it.
    #[param(value_type = Option<String>)]
    pub last_play: Option<String>,
}

/// A player parameter: `x` or `o`, else `slug` naming `field`.
fn player(text: Option<&str>, field: &str, slug: &'static str) -> Result<Option<Player>, ApiError> {
    text.map(|t| {
        t.parse()
            .map_err(|_| ApiError::invalid(slug, field, format!("{field} is x or o, got {t:?}")))
    })
    .transpose()
}

/// The cube values a picture shows: a closed set.
fn cube_values() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Integer)
        .enum_values(Some([1, 2, 4, 8, 16, 32, 64]))
        .description(Some("A power of two from 1 to 64."))
        .build()
}

fn int(text: Option<&str>, field: &str, slug: &'static str) -> Result<Option<i64>, ApiError> {
    text.map(|t| {
        t.parse::<i64>().map_err(|_| {
            ApiError::invalid(slug, field, format!("{field} is a whole number, got {t:?}"))
        })
    })
    .transpose()
}

impl RenderQuery {
    /// The api input; text that is not a number, a player, an owner, a
    /// flag or two dice is refused here, naming the parameter.
    ///
    /// # Errors
    /// `invalid-position`, `invalid-cube`, `invalid-match`, `invalid-dice`,
    /// `invalid-variant` or `invalid-request` (`perspective`) (400).
    pub fn into_input(self) -> Result<RenderInput, ApiError> {
        let turn = player(self.turn.as_deref(), "turn", "invalid-position")?;
        let cube_owner = self
            .cube_owner
            .as_deref()
            .map(|t| {
                t.parse()
                    .map_err(|e| ApiError::invalid("invalid-cube", "cube_owner", e))
            })
            .transpose()?;
        let crawford = match self.crawford.as_deref() {
            None => None,
            Some("true") => Some(true),
            Some("false") => Some(false),
            Some(t) => {
                return Err(ApiError::invalid(
                    "invalid-match",
                    "crawford",
                    format!("crawford is true or false, got {t:?}"),
                ));
            }
        };
        let dice = self
            .dice
            .as_deref()
            .map(|t| {
                let digits: Vec<i64> = t
                    .chars()
                    .map(|c| c.to_digit(10).map_or(-1, i64::from))
                    .collect();
                if digits.len() == 2 && digits.iter().all(|&d| d >= 0) {
                    Ok(digits)
                } else {
                    Err(ApiError::invalid(
                        "invalid-dice",
                        "dice",
                        format!("dice are two digits 1 to 6, like 65, got {t:?}"),
                    ))
                }
            })
            .transpose()?;
        let board = self
            .board
            .as_deref()
            .map(|text| {
                serde_json::from_str::<Board>(text).map_err(|e| {
                    ApiError::invalid(
                        "invalid-position",
                        "board",
                        format!("board is a JSON board object: {e}"),
                    )
                })
            })
            .transpose()?;
        let any = self.position_id.is_some()
            || self.xgid.is_some()
            || self.fibs.is_some()
            || board.is_some();
        Ok(RenderInput {
            variant: crate::api::input::read_variant(self.variant.as_deref())?,
            position: any.then(|| {
                let mut position: PositionInput = HttpPosition {
                    board,
                    ..HttpPosition::default()
                }
                .into();
                position.position_id = self.position_id;
                position.xgid = self.xgid;
                position.fibs = self.fibs;
                position.turn = turn;
                position
            }),
            cube_value: int(self.cube_value.as_deref(), "cube_value", "invalid-cube")?,
            cube_owner,
            match_length: int(
                self.match_length.as_deref(),
                "match_length",
                "invalid-match",
            )?,
            score: bgref_core::ByPlayer {
                x: int(self.score_x.as_deref(), "score_x", "invalid-match")?,
                o: int(self.score_o.as_deref(), "score_o", "invalid-match")?,
            },
            crawford,
            dice,
            perspective: player(
                self.perspective.as_deref(),
                "perspective",
                "invalid-request",
            )?,
            cube_offered_by: player(
                self.cube_offered_by.as_deref(),
                "cube_offered_by",
                "invalid-cube",
            )?,
            cube_beavers: int(self.cube_beavers.as_deref(), "cube_beavers", "invalid-cube")?,
            resignation_by: player(
                self.resignation_by.as_deref(),
                "resignation_by",
                "invalid-cube",
            )?,
            resignation_level: self
                .resignation_level
                .as_deref()
                .map(|t| {
                    t.parse().map_err(|_| {
                        ApiError::invalid(
                            "invalid-cube",
                            "resignation_level",
                            format!("resignation_level is single, gammon or backgammon, got {t:?}"),
                        )
                    })
                })
                .transpose()?,
            names: bgref_core::ByPlayer {
                x: self.name_x,
                o: self.name_o,
            },
            last_play: self.last_play,
        })
    }
}

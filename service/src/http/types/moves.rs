//! `POST /legal-moves` and `POST /apply-move`.

use std::cell::RefCell;

use bgref_core::notation::encodings::{Encoder, Encodings, FIBS_ROOM};
use serde::ser::{Error as _, SerializeStruct as _};
use serde::{Deserialize, Serialize, Serializer};
use utoipa::ToSchema;

use super::common::{Board, PerPlayer, PlayerName, PositionInput, PositionOutput, VariantName};
use super::cube::GameResultName;
use super::schema;

use crate::api::input;
use crate::api::moves::{
    Applied, ApplyMoveInput, LegalMoves, LegalMovesInput, PlayInput as ApiPlay, PlayView, TurnInput,
};
use crate::api::view::{self, Fields, PositionView};
use crate::error::ApiError;

/// Request of `POST /legal-moves`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [6, 5]}))]
pub struct LegalMovesRequest {
    /// `standard` (default), `nackgammon`, `hypergammon`, `hypergammon-1`,
    /// `hypergammon-2`, `hypergammon-3`, or a tables game: `portes`, `tavla`
    /// (backgammon encodings), `plakoto` (board with `pins`), `fevga`,
    /// `long-nardy` (board or Position ID; no XGID).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// The position before the roll.
    pub position: PositionInput,
    /// The two dice; may be left out when the XGID carries the roll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = schema::dice_or_null, required = false)]
    pub dice: Option<Vec<i64>>,
    /// The position is the start of a game: refused (`not-start-position`)
    /// unless it is the variant's starting position (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub game_start: bool,
    /// Rule options of Plakoto, Fevga and Long Nardy where sources disagree
    /// (default: the most common rules; refused for the backgammon variants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables_rules: Option<super::tables::TablesRulesObject>,
    /// What each play carries besides its notation: any of `moves`,
    /// `position_id`, `xgid`, `board`, `fibs`, `pips` (default: all). An
    /// unknown name or an empty list is a 400 `invalid-fields`; Plakoto,
    /// Fevga and Long Nardy answer their own encodings in full and refuse
    /// it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<PlayField>>, min_items = 1)]
    pub fields: Option<Vec<String>>,
}

/// A part of a legal play that `fields` may ask for (the notation is
/// always there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlayField {
    /// The single-die moves.
    Moves,
    /// The resulting position's gnubg Position ID.
    PositionId,
    /// The resulting position's XGID.
    Xgid,
    /// The resulting position's board encoding.
    Board,
    /// The resulting position's FIBS board string.
    Fibs,
    /// The resulting position's pip counts.
    Pips,
}

/// One checker moved by one die; points from the mover's view (25 = bar, 0 = off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MoveOutput {
    /// Start point.
    #[schema(schema_with = schema::point)]
    pub from: u8,
    /// End point.
    #[schema(schema_with = schema::point)]
    pub to: u8,
    /// Whether an opposing blot was hit there.
    pub hit: bool,
}

/// A legal play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlayOutput {
    /// gnubg notation.
    pub notation: String,
    /// The single-die moves in the order played.
    pub moves: Vec<MoveOutput>,
    /// The position after the play, opponent on roll.
    pub position: PositionOutput,
}

/// A legal play of `POST /legal-moves`: its notation and what the
/// request's `fields` names (by default everything).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LegalPlayOutput {
    /// gnubg notation.
    pub notation: String,
    /// The single-die moves in the order played (unless `fields` leaves
    /// them out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Vec<MoveOutput>, required = false)]
    pub moves: Option<Vec<MoveOutput>>,
    /// The position after the play, opponent on roll, in the encodings
    /// `fields` names (left out when it names none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = PlayPositionOutput, required = false)]
    pub position: Option<PlayPositionOutput>,
}

/// The position after a legal play in the encodings the request's
/// `fields` names; by default all of them, as in `PositionOutput`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlayPositionOutput {
    /// gnubg Position ID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = String, required = false)]
    pub position_id: Option<String>,
    /// eXtreme Gammon ID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = String, required = false)]
    pub xgid: Option<String>,
    /// The board encoding (with off counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Board, required = false)]
    pub board: Option<Board>,
    /// The FIBS board string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = String, required = false)]
    pub fibs: Option<String>,
    /// Pip counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = schema::pips, required = false)]
    pub pips: Option<PerPlayer>,
}

/// Response of `POST /legal-moves`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LegalMovesResponse {
    /// One entry per distinct resulting position; empty: no legal play, the turn passes.
    pub plays: Vec<LegalPlayOutput>,
    /// The roll, as given.
    #[schema(schema_with = schema::dice)]
    pub dice: [u8; 2],
    /// Exactly one legal play.
    pub forced: bool,
}

/// A move as a caller gives it: `from`/`to` may span several dice (24/13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
pub struct MoveInput {
    /// Start point (25 = bar).
    pub from: i64,
    /// End point (0 = off).
    pub to: i64,
}

/// A play: gnubg-style notation or a list of moves.
/// Its schema is [`schema::play`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PlayInput {
    /// `"24/18 13/11"`: any order, `*` optional, `(2)` folds, `24/18/13` chains, `bar`, `off`.
    Notation(String),
    /// `[{"from": 24, "to": 18}, ...]`: at most four moves.
    Moves(Vec<MoveInput>),
}

/// Request of `POST /apply-move`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [6, 5], "play": "24/13"}))]
pub struct ApplyMoveRequest {
    /// The variant (default `standard`); as in `LegalMovesRequest`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// The position before the play.
    pub position: PositionInput,
    /// The two dice; may be left out when the XGID carries the roll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = schema::dice_or_null, required = false)]
    pub dice: Option<Vec<i64>>,
    /// The play.
    #[schema(schema_with = schema::play)]
    pub play: PlayInput,
    /// The moves are the start of a turn entered one die at a time (each
    /// move a single die, in the order played): answer whether they can be
    /// completed to a legal play and which dice remain, instead of
    /// requiring a whole play.
    #[serde(default)]
    pub partial: bool,
    /// The position is the start of a game: refused (`not-start-position`)
    /// unless it is the variant's starting position (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub game_start: bool,
    /// Rule options of Plakoto, Fevga and Long Nardy where sources disagree
    /// (default: the most common rules; refused for the backgammon variants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables_rules: Option<super::tables::TablesRulesObject>,
}

/// How a finished game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GameOverOutput {
    /// The player who bore off every checker.
    pub winner: PlayerName,
    /// `single`, `gammon` or `backgammon`.
    pub result: GameResultName,
    /// Portes and Tavla only: the points won (no cube; a gammon or
    /// backgammon counts 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
}

/// What is known about a turn entered move by move (`partial: true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PartialOutput {
    /// The moves already form a whole legal play.
    pub complete: bool,
    /// Dice still to play, largest first.
    #[schema(schema_with = schema::remaining_dice)]
    pub remaining_dice: Vec<u8>,
    /// Distinct legal plays (by resulting position) that begin with these moves.
    pub completions: usize,
}

/// The played moves in notation and as a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlayedOutput {
    /// gnubg notation of the legal play matched (hits marked).
    pub notation: String,
    /// Its single-die moves.
    pub moves: Vec<MoveOutput>,
}

/// Response of `POST /apply-move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ApplyMoveResponse {
    /// The play as the referee understood it.
    pub play: PlayedOutput,
    /// The new position: the opponent on roll; for an unfinished partial
    /// play, the mover still on roll.
    pub position: PositionOutput,
    /// Points (mover's view) where a blot was hit.
    #[schema(schema_with = schema::hits)]
    pub hits: Vec<u8>,
    /// Set when the play ended the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_over: Option<GameOverOutput>,
    /// Set for `partial: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialOutput>,
    /// Whose turn it is now.
    pub turn: PlayerName,
}

impl LegalMovesRequest {
    /// The transport-free input.
    pub fn into_input(self) -> Result<LegalMovesInput, ApiError> {
        Ok(LegalMovesInput {
            turn: TurnInput {
                variant: input::any_variant(self.variant.as_deref())?,
                position: Some(self.position.into()),
                dice: self.dice,
                game_start: self.game_start,
                tables_rules: self.tables_rules.map(Into::into),
            },
            fields: Fields::parse(self.fields.as_deref(), "fields")?,
        })
    }
}

impl ApplyMoveRequest {
    /// The transport-free input.
    pub fn into_input(self) -> Result<ApplyMoveInput, ApiError> {
        Ok(ApplyMoveInput {
            turn: TurnInput {
                variant: input::any_variant(self.variant.as_deref())?,
                position: Some(self.position.into()),
                dice: self.dice,
                game_start: self.game_start,
                tables_rules: self.tables_rules.map(Into::into),
            },
            play: Some(match self.play {
                PlayInput::Notation(text) => ApiPlay::Notation(text),
                PlayInput::Moves(list) => {
                    ApiPlay::Moves(list.iter().map(|m| (m.from, m.to)).collect())
                }
            }),
            partial: self.partial,
        })
    }
}

fn moves_output(play: &bgref_core::Play) -> Vec<MoveOutput> {
    play.moves()
        .iter()
        .map(|m| MoveOutput {
            from: m.from().get(),
            to: m.to().get(),
            hit: m.is_hit(),
        })
        .collect()
}

impl From<&PlayView> for PlayOutput {
    fn from(view: &PlayView) -> Self {
        PlayOutput {
            notation: view.play.to_string(),
            moves: moves_output(&view.play),
            position: (&view.position).into(),
        }
    }
}

impl PlayPositionOutput {
    /// The encodings of `view` that `fields` names (`None`: none).
    pub fn new(view: &PositionView, fields: Fields) -> Option<PlayPositionOutput> {
        if !fields.any(Fields::POSITION) {
            return None;
        }
        let all = PositionOutput::from(view);
        Some(PlayPositionOutput {
            position_id: fields.has(Fields::POSITION_ID).then_some(all.position_id),
            xgid: fields.has(Fields::XGID).then_some(all.xgid),
            board: fields.has(Fields::BOARD).then_some(all.board),
            fibs: fields.has(Fields::FIBS).then_some(all.fibs),
            pips: fields.has(Fields::PIPS).then_some(all.pips),
        })
    }
}

impl LegalPlayOutput {
    /// `view` with what `fields` names.
    pub fn new(view: &PlayView, fields: Fields) -> LegalPlayOutput {
        LegalPlayOutput {
            notation: view.play.to_string(),
            moves: fields.has(Fields::MOVES).then(|| moves_output(&view.play)),
            position: PlayPositionOutput::new(&view.position, fields),
        }
    }
}

impl LegalMovesResponse {
    /// The answer, each play with what `fields` names.
    pub fn new(answer: &LegalMoves, fields: Fields) -> LegalMovesResponse {
        LegalMovesResponse {
            plays: answer
                .views()
                .map(|p| LegalPlayOutput::new(&p, fields))
                .collect(),
            dice: answer.dice.values(),
            forced: answer.forced(),
        }
    }
}

impl From<&LegalMoves> for LegalMovesResponse {
    fn from(answer: &LegalMoves) -> Self {
        LegalMovesResponse::new(answer, Fields::ALL)
    }
}

impl From<&Applied> for ApplyMoveResponse {
    fn from(answer: &Applied) -> Self {
        ApplyMoveResponse {
            play: PlayedOutput {
                notation: answer.play.to_string(),
                moves: moves_output(&answer.play),
            },
            position: (&answer.position).into(),
            hits: answer.hits().collect(),
            game_over: answer.game_over.map(|o| GameOverOutput {
                winner: o.winner.into(),
                result: o.result.into(),
                points: None,
            }),
            partial: answer.partial.as_ref().map(|p| PartialOutput {
                complete: p.complete,
                remaining_dice: p.remaining.iter().map(|d| d.get()).collect(),
                completions: p.completions,
            }),
            turn: answer.turn().into(),
        }
    }
}

/// The body of a backgammon legal-moves answer, serialized from borrowed
/// views of the domain values, with no string or vector per play: the
/// same bytes as `LegalMovesResponse::new(answer, fields)` (the tests
/// compare them). The notations come from bgref-core's byte writers
/// ([`Play::write_notation`], and for each position [`Encodings`], one
/// pass for all its encodings: the texts of [`PositionId::encode`],
/// [`Xgid::write_to`] and [`FibsBoard::write_to`]) into one buffer reused
/// for the whole answer.
///
/// [`Play::write_notation`]: bgref_core::Play::write_notation
/// [`PositionId::encode`]: bgref_core::notation::position_id::PositionId::encode
/// [`Xgid::write_to`]: bgref_core::notation::xgid::Xgid::write_to
/// [`FibsBoard::write_to`]: bgref_core::notation::fibs::FibsBoard::write_to
#[derive(Debug, Clone, Copy)]
pub struct LegalMovesBody<'a> {
    /// The answer.
    pub answer: &'a LegalMoves,
    /// What each play carries.
    pub fields: Fields,
}

impl LegalMovesBody<'_> {
    /// A capacity that holds the body without growing (an opening
    /// position's play with every field is about 480 bytes).
    pub fn size_hint(&self) -> usize {
        let f = self.fields;
        let part = |field: Fields, bytes: usize| if f.has(field) { bytes } else { 0 };
        let per_play = 64
            + part(Fields::MOVES, 4 * 40)
            + part(Fields::POSITION_ID, 32)
            + part(Fields::XGID, 64)
            + part(Fields::BOARD, 24 * 4 + 80)
            + part(Fields::FIBS, 128)
            + part(Fields::PIPS, 40);
        64 + self.answer.plays.len() * per_play
    }
}

impl Serialize for LegalMovesBody<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // One encoder for the answer: every play's position has the
        // request's game fields.
        let encoder = view::encoder(self.answer.meta.as_ref());
        let text = RefCell::new(Vec::with_capacity(FIBS_ROOM));
        let plays = self.answer.plays.iter().map(|play| PlayBody {
            body: self,
            play,
            encoder: &encoder,
            text: &text,
        });
        let mut out = serializer.serialize_struct("LegalMovesResponse", 3)?;
        out.serialize_field("plays", &Seq(RefCell::new(Some(plays))))?;
        out.serialize_field("dice", &self.answer.dice.values())?;
        out.serialize_field("forced", &self.answer.forced())?;
        out.end()
    }
}

/// A sequence serialized from an iterator, once.
struct Seq<I>(RefCell<Option<I>>);

impl<I: Iterator<Item: Serialize>> Serialize for Seq<I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.borrow_mut().take() {
            Some(items) => serializer.collect_seq(items),
            None => serializer.collect_seq(std::iter::empty::<()>()),
        }
    }
}

/// The text a core writer appends to `text` (cleared first), as a `str`.
fn write_text<E: serde::ser::Error>(
    text: &RefCell<Vec<u8>>,
    write: impl FnOnce(&mut Vec<u8>),
    then: impl FnOnce(&str) -> Result<(), E>,
) -> Result<(), E> {
    let mut text = text.borrow_mut();
    text.clear();
    write(&mut text);
    then(std::str::from_utf8(&text).map_err(E::custom)?)
}

/// One play of a [`LegalMovesBody`], as `LegalPlayOutput`.
struct PlayBody<'a> {
    body: &'a LegalMovesBody<'a>,
    play: &'a bgref_core::Play,
    encoder: &'a Encoder,
    text: &'a RefCell<Vec<u8>>,
}

impl Serialize for PlayBody<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = self.body.fields;
        let mut out = serializer.serialize_struct("LegalPlayOutput", 3)?;
        write_text(
            self.text,
            |text| self.play.write_notation(text),
            |notation| out.serialize_field("notation", notation),
        )?;
        if fields.has(Fields::MOVES) {
            let moves = self.play.moves().iter().map(|m| MoveOutput {
                from: m.from().get(),
                to: m.to().get(),
                hit: m.is_hit(),
            });
            out.serialize_field("moves", &Seq(RefCell::new(Some(moves))))?;
        }
        if fields.any(Fields::POSITION) {
            let after = self.body.answer.after(self.play);
            let position = PositionBody {
                position: &self.encoder.encode(&after),
                fields,
                text: self.text,
            };
            out.serialize_field("position", &position)?;
        }
        out.end()
    }
}

/// The position after a play, as `PlayPositionOutput`.
struct PositionBody<'a> {
    position: &'a Encodings<'a>,
    fields: Fields,
    text: &'a RefCell<Vec<u8>>,
}

impl Serialize for PositionBody<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (fields, position) = (self.fields, self.position);
        let mut out = serializer.serialize_struct("PlayPositionOutput", 5)?;
        if fields.has(Fields::POSITION_ID) {
            let id = position.position_id();
            let id = std::str::from_utf8(&id).map_err(S::Error::custom)?;
            out.serialize_field("position_id", id)?;
        }
        if fields.has(Fields::XGID) {
            write_text(
                self.text,
                |text| position.write_xgid(text),
                |xgid| out.serialize_field("xgid", xgid),
            )?;
        }
        if fields.has(Fields::BOARD) {
            out.serialize_field("board", &BoardBody(position))?;
        }
        if fields.has(Fields::FIBS) {
            write_text(
                self.text,
                |text| position.write_fibs(text),
                |fibs| out.serialize_field("fibs", fibs),
            )?;
        }
        if fields.has(Fields::PIPS) {
            out.serialize_field("pips", &PerPlayer::from(position.pips()))?;
        }
        out.end()
    }
}

/// A position's board, as [`Board`] (no pins: backgammon).
struct BoardBody<'a>(&'a Encodings<'a>);

impl Serialize for BoardBody<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let position = self.0;
        let mut out = serializer.serialize_struct("Board", 4)?;
        out.serialize_field("points", &position.points())?;
        out.serialize_field("bar", &PerPlayer::from(position.bar()))?;
        out.serialize_field("off", &PerPlayer::from(position.off()))?;
        let turn = if position.turn() == bgref_core::Player::X {
            "x"
        } else {
            "o"
        };
        out.serialize_field("turn", turn)?;
        out.end()
    }
}

objects_only!(LegalMovesRequest, MoveInput, ApplyMoveRequest);

#[cfg(test)]
mod tests {
    use bgref_core::notation::position_id::PositionId;
    use bgref_core::{Dice, Player, Position, Variant};
    use serde_json::json;

    use super::{LegalMovesBody, LegalMovesRequest, LegalMovesResponse};
    use crate::api;
    use crate::api::view::Fields;

    /// Requests for positions of a game played from the start with the
    /// first or last legal play of a fixed roll sequence, plus an XGID
    /// with cube, score and match (carried into the answer) and a
    /// hypergammon position.
    fn requests() -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        let mut position = Position::start(Variant::Standard, Player::X);
        let mut seed = 7u32;
        for turn in 0..120 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let dice = Dice::ALL_21[(seed >> 16) as usize % 21];
            let [a, b] = dice.values();
            let id = PositionId::from_position(&position).to_string();
            let turn_name = if position.turn() == Player::X {
                "x"
            } else {
                "o"
            };
            out.push(json!({"position": {"position_id": id, "turn": turn_name}, "dice": [a, b]}));
            let plays = position.legal_plays(dice);
            let Some(play) = (if turn % 2 == 0 {
                plays.into_iter().next()
            } else {
                plays.into_iter().last()
            }) else {
                position = position.swap_turn();
                continue;
            };
            position = position.after(play);
            if position.outcome().is_some() {
                position = Position::start(Variant::Standard, Player::O);
            }
        }
        out.push(
            json!({"position": {"xgid": "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:2:1:0:7:10"}}),
        );
        let hyper = Position::start(Variant::Hypergammon3, Player::O);
        let id = PositionId::from_position(&hyper).to_string();
        out.push(json!({"variant": "hypergammon", "position": {"position_id": id, "turn": "o"}, "dice": [6, 6]}));
        out.push(json!({"position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [3, 1]}));
        out
    }

    #[test]
    fn the_borrowed_views_serialize_to_the_bytes_of_the_response_type() {
        let field_sets = [
            Fields::ALL,
            Fields::POSITION_ID,
            Fields::MOVES,
            Fields::parse(Some(&["xgid", "fibs"][..]), "fields").unwrap(),
            Fields::parse(Some(&["board", "pips", "moves"][..]), "fields").unwrap(),
        ];
        let mut plays = 0;
        for request in requests() {
            let req: LegalMovesRequest = serde_json::from_value(request.clone()).unwrap();
            let input = req.into_input().unwrap();
            let answer = api::moves::legal_moves(&input.turn).unwrap();
            plays += answer.plays.len();
            for fields in field_sets {
                let fast = serde_json::to_vec(&LegalMovesBody {
                    answer: &answer,
                    fields,
                })
                .unwrap();
                let reference =
                    serde_json::to_vec(&LegalMovesResponse::new(&answer, fields)).unwrap();
                assert_eq!(
                    String::from_utf8(fast).unwrap(),
                    String::from_utf8(reference).unwrap(),
                    "{request} {fields:?}"
                );
            }
        }
        assert!(plays > 1000, "{plays} plays compared");
    }

    /// Every eighth position of the movegen benchmark set (contact, race,
    /// bear-off and bar positions) with each of the 21 rolls, with every
    /// field and with one other fields list in turn.
    #[test]
    fn the_borrowed_views_serialize_to_the_bytes_of_the_response_type_for_the_benchmark_positions()
    {
        let other_fields = [
            Fields::POSITION_ID,
            Fields::MOVES,
            Fields::parse(Some(&["xgid", "fibs"][..]), "fields").unwrap(),
            Fields::parse(Some(&["board", "pips", "moves"][..]), "fields").unwrap(),
        ];
        let data = include_str!("../../../../core/benches/data/positions.txt");
        let (mut answers, mut plays) = (0, 0);
        for (i, line) in data
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .enumerate()
            .filter(|(i, _)| i % 8 == 0)
        {
            let id: PositionId = line.split_whitespace().nth(1).unwrap().parse().unwrap();
            let start = Position::from_setup(&id.to_setup(Player::X), Variant::Standard).unwrap();
            for (j, dice) in Dice::ALL_21.into_iter().enumerate() {
                let answer = api::moves::LegalMoves {
                    plays: start.legal_plays(dice),
                    position: start,
                    meta: None,
                    dice,
                };
                for fields in [Fields::ALL, other_fields[(i + j) % other_fields.len()]] {
                    let fast = serde_json::to_vec(&LegalMovesBody {
                        answer: &answer,
                        fields,
                    })
                    .unwrap();
                    let reference =
                        serde_json::to_vec(&LegalMovesResponse::new(&answer, fields)).unwrap();
                    assert!(fast == reference, "{line} {dice:?} {fields:?}");
                }
                plays += answer.plays.len();
                answers += 1;
            }
        }
        assert_eq!(answers, 500 * 21);
        assert!(plays > 100_000, "{plays} plays compared");
    }

    #[test]
    fn fields_leave_parts_out() {
        let req: LegalMovesRequest = serde_json::from_value(json!({
            "position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [3, 1],
            "fields": ["position_id", "pips"]
        }))
        .unwrap();
        let input = req.into_input().unwrap();
        let answer = api::moves::legal_moves(&input.turn).unwrap();
        let bytes = serde_json::to_vec(&LegalMovesBody {
            answer: &answer,
            fields: input.fields,
        })
        .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body["plays"].as_array().unwrap().len(), 16);
        let play = &body["plays"][0];
        assert_eq!(play.as_object().unwrap().len(), 2, "{play}");
        assert!(play["notation"].is_string());
        let position = play["position"].as_object().unwrap();
        let keys: Vec<&str> = position.keys().map(String::as_str).collect();
        assert_eq!(keys, ["pips", "position_id"]);
    }
}

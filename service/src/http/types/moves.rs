//! `POST /legal-moves` and `POST /apply-move`.

use bgref_core::GameResult;
use bgref_core::Player;
use bgref_core::notation::encodings::{Encoder, Encodings, FIBS_ROOM, XGID_ROOM};
use bgref_core::tables::OutcomeKind;
use bgref_core::{Play, PlayList, Position};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::common::{Board, PerPlayer, PlayerName, PositionInput, PositionOutput, VariantName};
use super::cube::GameResultName;
use super::schema;
use super::tables::OutcomeName;

use crate::api::games::GameView;
use crate::api::input;
use crate::api::moves::{
    Applied, ApplyMoveInput, LegalMoves, LegalMovesInput, PlayInput as ApiPlay, PlayView, TurnInput,
};
use crate::api::tables::TablesView;
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
    pub tables_rules: Option<super::rules::TablesRulesObject>,
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

/// A legal play of `POST /legal-moves` or of a game view: its notation
/// and what the request's `fields` names (by default everything; in
/// Plakoto, Fevga and Long Nardy always everything).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LegalPlayOutput {
    /// gnubg notation (in Plakoto, Fevga and Long Nardy: points in the
    /// mover's numbering 24..1 and `off`, no bar; in Plakoto `*` marks a
    /// pin).
    pub notation: String,
    /// The single-die moves in the order played (unless `fields` leaves
    /// them out; `hit`: in Plakoto, the move pins a checker).
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
/// `fields` names; by default all of them, as in `PositionOutput` (whose
/// encodings of Plakoto, Fevga and Long Nardy these are too).
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
    /// Game views only: the gnubg Match ID of the game state after the
    /// play, whenever the position is there (see `PositionOutput`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = String, required = false)]
    pub gnubg_match_id: Option<String>,
}

/// Response of `POST /legal-moves`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LegalMovesResponse {
    /// Plakoto, Fevga and Long Nardy: the variant (left out for the
    /// others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = VariantName, required = false)]
    pub variant: Option<String>,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum PlayInput {
    /// `"24/18 13/11"`: any order, `*` optional, `(2)` folds, `24/18/13` chains, `bar`, `off`.
    Notation(String),
    /// `[{"from": 24, "to": 18}, ...]`: at most four moves.
    Moves(Vec<MoveInput>),
}

/// A string is the notation, an array the moves: told apart by the JSON
/// type, without the untagged derive's buffering of the value (a replay
/// reads thousands of plays).
impl<'de> Deserialize<'de> for PlayInput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Play;
        impl<'de> serde::de::Visitor<'de> for Play {
            type Value = PlayInput;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a play: its notation (a string) or its moves (an array)")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<PlayInput, E> {
                Ok(PlayInput::Notation(text.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<PlayInput, E> {
                Ok(PlayInput::Notation(text))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                moves: A,
            ) -> Result<PlayInput, A::Error> {
                Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(moves))
                    .map(PlayInput::Moves)
            }
        }
        deserializer.deserialize_any(Play)
    }
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
    pub tables_rules: Option<super::rules::TablesRulesObject>,
}

/// How a finished game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GameOverOutput {
    /// The winner; left out for a Plakoto draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = PlayerName, required = false)]
    pub winner: Option<Player>,
    /// The backgammon board (the backgammon variants, Portes, Tavla):
    /// `single`, `gammon` or `backgammon`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = GameResultName, required = false)]
    pub result: Option<GameResult>,
    /// Plakoto, Fevga and Long Nardy: how the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = OutcomeName, required = false)]
    pub outcome: Option<OutcomeKind>,
    /// The points won without a cube: Portes and Tavla (a gammon or
    /// backgammon counts 2) and the tables games (1, 2, or 0 for a draw);
    /// left out for the backgammon variants, whose points depend on the
    /// cube.
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
    /// Plakoto, Fevga and Long Nardy: the variant (left out for the
    /// others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = VariantName, required = false)]
    pub variant: Option<String>,
    /// The play as the referee understood it.
    pub play: PlayedOutput,
    /// The new position: the opponent on roll; for an unfinished partial
    /// play, the mover still on roll.
    pub position: PositionOutput,
    /// Points (mover's view) where a blot was hit (a checker pinned, in
    /// Plakoto).
    #[schema(schema_with = schema::hits)]
    pub hits: Vec<u8>,
    /// Set when the play ended the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_over: Option<GameOverOutput>,
    /// Set for `partial: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialOutput>,
    /// Whose turn it is now.
    #[schema(value_type = PlayerName)]
    pub turn: Player,
}

impl LegalMovesRequest {
    /// The transport-free input.
    pub fn into_input(self) -> Result<LegalMovesInput, ApiError> {
        Ok(LegalMovesInput {
            turn: TurnInput {
                variant: input::read_variant(self.variant.as_deref())?,
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
                variant: input::read_variant(self.variant.as_deref())?,
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

impl PlayPositionOutput {
    /// The encodings of `view` that `fields` names (`None`: none).
    pub fn new(view: &PositionView, fields: Fields) -> Option<PlayPositionOutput> {
        if !fields.any(Fields::POSITION) {
            return None;
        }
        Some(PlayPositionOutput {
            position_id: fields.has(Fields::POSITION_ID).then(|| view.position_id()),
            xgid: fields.has(Fields::XGID).then(|| view.xgid()),
            board: fields.has(Fields::BOARD).then(|| Board::from(view)),
            fibs: fields.has(Fields::FIBS).then(|| view.fibs()),
            pips: fields.has(Fields::PIPS).then(|| view.pips().into()),
            gnubg_match_id: view.match_id(),
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

    /// A play of Plakoto, Fevga or Long Nardy leading to `after`, with
    /// everything.
    pub fn tables(play: &Play, after: &TablesView) -> LegalPlayOutput {
        let position = PositionOutput::from(after);
        LegalPlayOutput {
            notation: play.to_string(),
            moves: Some(moves_output(play)),
            position: Some(PlayPositionOutput {
                position_id: position.position_id,
                xgid: None,
                board: Some(position.board),
                fibs: None,
                pips: Some(position.pips),
                gnubg_match_id: None,
            }),
        }
    }
}

impl LegalMovesResponse {
    /// The answer, each play with what `fields` names.
    pub fn new(answer: &LegalMoves, fields: Fields) -> LegalMovesResponse {
        let (variant, plays) = match answer.on_board() {
            Some(_) => (
                None,
                answer
                    .views()
                    .map(|p| LegalPlayOutput::new(&p, fields))
                    .collect(),
            ),
            None => (
                Some(answer.position.variant().to_string()),
                TablesView::after_plays(&answer.position, &answer.plays)
                    .map(|(play, after)| LegalPlayOutput::tables(play, &after))
                    .collect(),
            ),
        };
        LegalMovesResponse {
            variant,
            plays,
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
        let variant = answer.position.variant();
        let on_board = answer.position.board().is_some();
        ApplyMoveResponse {
            variant: (!on_board).then(|| variant.to_string()),
            play: PlayedOutput {
                notation: answer.play.to_string(),
                moves: moves_output(&answer.play),
            },
            position: PositionOutput::any(answer.board_view(), TablesView::of(&answer.position)),
            hits: answer.hits().collect(),
            game_over: answer.game_over.map(|o| GameOverOutput {
                winner: o.winner,
                result: o.result,
                outcome: (!on_board).then_some(o.kind),
                // No points for the backgammon variants: they depend on
                // the cube.
                points: variant.game().map(|_| o.points),
            }),
            partial: answer.partial.as_ref().map(|p| PartialOutput {
                complete: p.complete,
                remaining_dice: p.remaining.iter().map(|d| d.get()).collect(),
                completions: p.completions,
            }),
            turn: answer.turn(),
        }
    }
}

/// The body of a backgammon legal-moves answer written straight from the
/// domain values into one buffer, with no string or vector per play, no
/// serializer and no formatting machinery: the same bytes as
/// `LegalMovesResponse::new(answer, fields)` serialized by serde_json (the
/// tests compare them), at a fraction of the cost. The notations are
/// written by bgref-core's byte writers ([`Play::write_notation`], and
/// for each position [`Encodings`], one pass for all its encodings, the
/// texts of [`PositionId::encode`], [`Xgid::write_to`] and
/// [`FibsBoard::write_to`]); none of their characters (ASCII letters,
/// digits, `/*()+:=-` and the space) needs escaping in JSON, so they go
/// between quotes as they are.
///
/// [`Play::write_notation`]: bgref_core::Play::write_notation
/// [`PositionId::encode`]: bgref_core::notation::position_id::PositionId::encode
/// [`Xgid::write_to`]: bgref_core::notation::xgid::Xgid::write_to
/// [`FibsBoard::write_to`]: bgref_core::notation::fibs::FibsBoard::write_to
#[derive(Debug, Clone, Copy)]
pub struct LegalMovesJson<'a> {
    /// The answer.
    answer: &'a LegalMoves,
    /// Its position on the backgammon board.
    position: &'a Position,
    /// Its plays.
    plays: &'a PlayList,
    /// What each play carries.
    fields: Fields,
}

impl<'a> LegalMovesJson<'a> {
    /// The writer of `answer` with what `fields` names, on the backgammon
    /// board (`None` in Plakoto, Fevga and Long Nardy, whose answers
    /// serde writes).
    pub fn new(answer: &'a LegalMoves, fields: Fields) -> Option<Self> {
        let (position, plays) = answer.on_board()?;
        Some(LegalMovesJson {
            answer,
            position,
            plays,
            fields,
        })
    }

    /// A capacity that holds the body without growing.
    pub fn size_hint(&self) -> usize {
        64 + self.plays.len() * per_play(self.fields)
    }

    /// Appends the body to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        // One encoder for the answer: every play's position has the
        // request's game fields.
        let encoder = view::encoder(self.answer.meta.as_ref());
        out.extend_from_slice(b"{\"plays\":");
        let position = self.position;
        let plays = self.plays.iter().map(|p| (p, position.after_legal(p)));
        let mut chunk = write_plays(out, plays, &encoder, self.fields, None);
        let [a, b] = self.answer.dice.values();
        chunk.put(b",\"dice\":[");
        chunk.int(a.into());
        chunk.put(b",");
        chunk.int(b.into());
        if self.answer.forced() {
            chunk.put(b"],\"forced\":true}");
        } else {
            chunk.put(b"],\"forced\":false}");
        }
        chunk.append_to(out);
    }
}

/// The room one play takes with `fields` (an opening position's play with
/// every field is about 480 bytes), with the slack of the stack chunk
/// ([`JsonChunk::append_to`]) and the room the XGID and FIBS writers fill
/// before cutting to their text: reserved before each play, so a play's
/// writes never grow the buffer.
fn per_play(fields: Fields) -> usize {
    let part = |field: Fields, bytes: usize| if fields.has(field) { bytes } else { 0 };
    64 + CHUNK
        + part(Fields::MOVES, 4 * 40)
        + part(Fields::POSITION_ID, 32)
        + part(Fields::XGID, 16 + XGID_ROOM)
        + part(Fields::BOARD, 24 * 4 + 80)
        + part(Fields::FIBS, 16 + FIBS_ROOM)
        + part(Fields::PIPS, 40)
}

/// The JSON array of `plays` (each with its resulting position), as
/// serde_json writes a `Vec<LegalPlayOutput>` of them: each play's
/// position with the encodings `fields` names and, when `match_id` is
/// given, its `gnubg_match_id`. `encoder` has the game fields of every
/// resulting position. Returns the chunk holding the array's last bytes,
/// for the caller to go on with and append.
///
/// Between the notation writers' texts, everything of a play (keys,
/// numbers, the moves, the board) is gathered in a `JsonChunk` on the
/// stack and appended in one copy.
fn write_plays<'p>(
    out: &mut Vec<u8>,
    plays: impl Iterator<Item = (&'p Play, Position)>,
    encoder: &Encoder,
    fields: Fields,
    match_id: Option<&[u8]>,
) -> JsonChunk {
    let per_play = per_play(fields);
    let mut chunk = JsonChunk::new();
    out.push(b'[');
    for (i, (play, after)) in plays.enumerate() {
        out.reserve(per_play);
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"notation\":\"");
        play.write_notation(out);
        chunk.put(b"\"");
        if fields.has(Fields::MOVES) {
            chunk.put(b",\"moves\":[");
            for (j, m) in play.moves().iter().enumerate() {
                // `,{"from":25,"to":25,"hit":false}`, and the 7 bytes
                // a word stores past.
                chunk.room(out, 40);
                if j > 0 {
                    chunk.put(b",");
                }
                chunk.put(b"{\"from\":");
                chunk.int(m.from().get().into());
                chunk.put(b",\"to\":");
                chunk.int(m.to().get().into());
                if m.is_hit() {
                    chunk.put(b",\"hit\":true}");
                } else {
                    chunk.put(b",\"hit\":false}");
                }
            }
            chunk.room(out, 1);
            chunk.put(b"]");
        }
        if fields.any(Fields::POSITION) {
            write_position(out, &mut chunk, &encoder.encode(&after), fields, match_id);
        }
        chunk.room(out, 1);
        chunk.put(b"}");
        chunk.append_to(out);
    }
    chunk.put(b"]");
    chunk
}

/// Writes `json` (serde_json's bytes of a response that holds `game`'s
/// view once, made with the view's plays left empty) with the plays of a
/// backgammon board written into it by the direct writer: the same bytes
/// as the response serialized whole with its plays (the tests compare
/// them), without a string or a serializer call per play. A view of the
/// tables games, or without plays, is `json` unchanged.
pub fn splice_game_plays(mut json: Vec<u8>, game: &GameView) -> Vec<u8> {
    const EMPTY: &[u8] = b"\"plays\":[]";
    let Some((position, plays, next)) = game.board.on_board() else {
        return json;
    };
    if plays.is_empty() {
        return json;
    }
    // Inside a JSON string every `"` is escaped, so these bytes are the
    // key itself: the view's only `plays`, which serde_json wrote empty.
    let Some(at) = json.windows(EMPTY.len()).position(|w| w == EMPTY) else {
        return json;
    };
    let tail = json.split_off(at + EMPTY.len() - 2);
    json.reserve(plays.len() * per_play(game.fields) + tail.len());
    // Every play's position has the same game fields.
    let match_id = next.match_id.as_ref().map(ToString::to_string);
    let plays = plays.iter().map(|p| (p, position.after_legal(p)));
    let mut chunk = write_plays(
        &mut json,
        plays,
        &view::encoder(Some(&next.xgid)),
        game.fields,
        match_id.as_deref().map(str::as_bytes),
    );
    chunk.append_to(&mut json);
    json.extend_from_slice(&tail[2..]);
    json
}

/// `,"position":{...}` with the encodings `fields` names, in
/// `PlayPositionOutput`'s order, from one pass over the position: the
/// fixed parts gathered in `chunk`, the XGID and FIBS texts written into
/// `out` by their writers.
fn write_position(
    out: &mut Vec<u8>,
    chunk: &mut JsonChunk,
    position: &Encodings<'_>,
    fields: Fields,
    match_id: Option<&[u8]>,
) {
    // `,"position":{"position_id":"` and the 14 characters and `"`.
    chunk.room(out, 48);
    chunk.put(b",\"position\":{");
    let mut first = true;
    let mut key = |chunk: &mut JsonChunk, name: &[u8]| {
        if !std::mem::take(&mut first) {
            chunk.put(b",");
        }
        chunk.put(name);
    };
    if fields.has(Fields::POSITION_ID) {
        key(chunk, b"\"position_id\":\"");
        chunk.put(&position.position_id());
        chunk.put(b"\"");
    }
    if fields.has(Fields::XGID) {
        chunk.room(out, 10);
        key(chunk, b"\"xgid\":\"");
        chunk.append_to(out);
        position.write_xgid(out);
        chunk.put(b"\"");
    }
    if fields.has(Fields::BOARD) {
        // `,"board":{"points":[` (21), 24 counts of at most 4 bytes and 23
        // commas, the bar and off (`],"bar":` and `,"off":`, 15, and two
        // `{"x":255,"o":255}`, 34) and `,"turn":"x"}` (12): 201.
        // The words ([`JsonChunk::word`]) store up to 7 bytes past.
        chunk.room(out, 201 + 7);
        key(chunk, b"\"board\":{\"points\":");
        // Each count with the comma before it, the first one's comma
        // turned into the `[`.
        let first = chunk.at();
        for n in position.points() {
            chunk.word(POINT_TOKENS[usize::from(n as u8)]);
        }
        chunk.bytes[first] = b'[';
        let (bar, off) = (position.bar(), position.off());
        chunk.put(b"],\"bar\":");
        chunk.counts(bar.x.into(), bar.o.into());
        chunk.put(b",\"off\":");
        chunk.counts(off.x.into(), off.o.into());
        if position.turn() == bgref_core::Player::X {
            chunk.put(b",\"turn\":\"x\"}");
        } else {
            chunk.put(b",\"turn\":\"o\"}");
        }
    }
    if fields.has(Fields::FIBS) {
        chunk.room(out, 10);
        key(chunk, b"\"fibs\":\"");
        chunk.append_to(out);
        position.write_fibs(out);
        chunk.put(b"\"");
    }
    if fields.has(Fields::PIPS) {
        // `,"pips":` and two counts of at most 10 digits (39 bytes), and
        // the 7 bytes a word stores past.
        chunk.room(out, 48);
        key(chunk, b"\"pips\":");
        let pips = position.pips();
        chunk.counts(pips.x, pips.o);
    }
    if let Some(id) = match_id {
        // `,"gnubg_match_id":"` (19), the 12 characters and `"`.
        chunk.room(out, 19 + id.len() + 1);
        key(chunk, b"\"gnubg_match_id\":\"");
        chunk.put(id);
        chunk.put(b"\"");
    }
    chunk.room(out, 1);
    chunk.put(b"}");
}

/// A number's decimal text as one word: `prefix` (unless 0) and the
/// digits (with `-` when negative) in its first bytes, their count in the
/// top byte; at most 5 bytes (`,-128`). Written by one 8-byte store and
/// one addition ([`JsonChunk::word`]) instead of a branch and a store per
/// character.
const fn decimal_token(prefix: u8, n: i32) -> u64 {
    let mut bytes = [0u8; 8];
    let mut len = 0;
    if prefix != 0 {
        bytes[0] = prefix;
        len = 1;
    }
    let mut v = if n < 0 {
        bytes[len] = b'-';
        len += 1;
        -n
    } else {
        n
    };
    let digits = if v >= 100 {
        3
    } else if v >= 10 {
        2
    } else {
        1
    };
    let mut i = digits;
    while i > 0 {
        bytes[len + i - 1] = b'0' + (v % 10) as u8;
        v /= 10;
        i -= 1;
    }
    bytes[7] = (len + digits) as u8;
    u64::from_le_bytes(bytes)
}

/// The tokens of 0 to 255.
const NUMBER_TOKENS: [u64; 256] = {
    let mut table = [0; 256];
    let mut n = 0;
    while n < 256 {
        table[n] = decimal_token(0, n as i32);
        n += 1;
    }
    table
};

/// The tokens of a board's signed counts with the comma before them
/// (`,-2`), by the count's byte (`n as u8`).
const POINT_TOKENS: [u64; 256] = {
    let mut table = [0; 256];
    let mut n = 0;
    while n < 256 {
        table[n] = decimal_token(b',', n as u8 as i8 as i32);
        n += 1;
    }
    table
};

/// The bytes a [`JsonChunk`] gathers, copied whole: room for the longest
/// group its writers put in at once (a board, 201 bytes) after other
/// bytes. The chunk's length stays below it, so it fits a byte.
const CHUNK: usize = 256;

/// The most bytes one write of a [`JsonChunk`] stores (its longest text,
/// `"board":{"points":`, is 19 bytes; a word 8), rounded up: the chunk's
/// array has this much room past [`CHUNK`].
const PAST: usize = 64;

/// Bytes of the JSON body gathered on the stack and appended to it in one
/// copy: the keys, numbers and punctuation between the notation writers'
/// texts, which written one by one into the body would each check its
/// capacity and store its length.
///
/// Each group of writes first makes sure of its room ([`JsonChunk::room`],
/// with the most the group can write), so a write never runs past
/// [`CHUNK`]. The length is a byte and the array has [`PAST`] bytes more
/// than that: a write of known size at most `PAST` is in bounds wherever
/// the length is, so the compiler checks no index, and a store into the
/// array is known not to touch the length (which then stays in a
/// register across a group of writes instead of being stored after
/// each).
struct JsonChunk {
    bytes: [u8; CHUNK + PAST],
    len: u8,
}

impl JsonChunk {
    fn new() -> JsonChunk {
        JsonChunk {
            bytes: [0; CHUNK + PAST],
            len: 0,
        }
    }

    /// Where the next byte goes.
    #[inline(always)]
    fn at(&self) -> usize {
        usize::from(self.len)
    }

    /// Makes room for `bytes` more (less than [`CHUNK`]): appends what is
    /// gathered to `out` first when the length would reach `CHUNK`.
    #[inline]
    fn room(&mut self, out: &mut Vec<u8>, bytes: usize) {
        if self.at() + bytes >= CHUNK {
            self.append_to(out);
        }
    }

    /// Adds `n` bytes written to the length (room made for them: the sum
    /// is below [`CHUNK`]).
    #[inline(always)]
    fn advance(&mut self, n: usize) {
        self.len += n as u8;
    }

    /// Appends `text` (room made for it).
    #[inline(always)]
    fn put(&mut self, text: &[u8]) {
        let at = self.at();
        self.bytes[at..at + text.len()].copy_from_slice(text);
        self.advance(text.len());
    }

    /// A number in decimal, as serde_json writes it: below 256 from a
    /// table, below 1000 by hand, others by `itoa` (what serde_json
    /// itself uses). At most 10 bytes, and (as a word) stores up to 7
    /// past the text.
    #[inline(always)]
    fn int(&mut self, n: u32) {
        match n {
            0..256 => self.word(NUMBER_TOKENS[n as usize]),
            256..1000 => self.put(&[
                b'0' + (n / 100) as u8,
                b'0' + (n / 10 % 10) as u8,
                b'0' + (n % 10) as u8,
            ]),
            _ => self.put(itoa::Buffer::new().format(n).as_bytes()),
        }
    }

    /// Appends a token ([`decimal_token`]): all 8 bytes stored, the
    /// length kept. Needs 8 bytes of room.
    #[inline(always)]
    fn word(&mut self, token: u64) {
        let at = self.at();
        self.bytes[at..at + 8].copy_from_slice(&token.to_le_bytes());
        self.advance((token >> 56) as usize);
    }

    /// `{"x":..,"o":..}`, as `PerPlayer` writes it: at most 31 bytes, and
    /// stores up to 7 past.
    #[inline(always)]
    fn counts(&mut self, x: u32, o: u32) {
        self.put(b"{\"x\":");
        self.int(x);
        self.put(b",\"o\":");
        self.int(o);
        self.put(b"}");
    }

    /// Appends the bytes gathered to `out` and empties the chunk. The
    /// first [`CHUNK`] bytes are copied, then cut (a copy of known size
    /// is a few vector stores, one of the gathered length a `memcpy`
    /// call): `out` needs `CHUNK` bytes of spare capacity not to grow.
    #[inline]
    fn append_to(&mut self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&self.bytes[..CHUNK]);
        out.truncate(start + self.at());
        self.len = 0;
    }
}

objects_only!(LegalMovesRequest, MoveInput, ApplyMoveRequest);

#[cfg(test)]
mod tests {
    use bgref_core::notation::position_id::PositionId;
    use bgref_core::{BackgammonVariant, Dice, Player, Position};
    use serde_json::json;

    use super::{LegalMovesJson, LegalMovesRequest, LegalMovesResponse};
    use crate::api;
    use crate::api::view::Fields;

    /// Requests for positions of a game played from the start with the
    /// first or last legal play of a fixed roll sequence, plus an XGID
    /// with cube, score and match (carried into the answer) and a
    /// hypergammon position.
    fn requests() -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        let mut position = Position::start(BackgammonVariant::Standard, Player::X);
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
                position = Position::start(BackgammonVariant::Standard, Player::O);
            }
        }
        out.push(
            json!({"position": {"xgid": "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:2:1:0:7:10"}}),
        );
        let hyper = Position::start(BackgammonVariant::Hypergammon3, Player::O);
        let id = PositionId::from_position(&hyper).to_string();
        out.push(json!({"variant": "hypergammon", "position": {"position_id": id, "turn": "o"}, "dice": [6, 6]}));
        out.push(json!({"position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [3, 1]}));
        out
    }

    #[test]
    fn the_direct_writer_writes_the_bytes_of_the_response_type() {
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
                let json = LegalMovesJson::new(&answer, fields).unwrap();
                let mut fast = Vec::new();
                json.write(&mut fast);
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
    /// field and with one other fields list in turn: the chunk fills to
    /// every length and goes out at every point of a play.
    #[test]
    fn the_direct_writer_writes_the_bytes_of_the_response_type_for_the_benchmark_positions() {
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
            let start =
                Position::from_setup(&id.to_setup(Player::X), BackgammonVariant::Standard).unwrap();
            for (j, dice) in Dice::ALL_21.into_iter().enumerate() {
                let answer = api::moves::LegalMoves {
                    plays: bgref_core::VariantPosition::from(start).legal_plays(dice),
                    position: start.into(),
                    meta: None,
                    dice,
                };
                for fields in [Fields::ALL, other_fields[(i + j) % other_fields.len()]] {
                    let mut fast = Vec::new();
                    LegalMovesJson::new(&answer, fields)
                        .unwrap()
                        .write(&mut fast);
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

    /// The chunk's numbers and board counts are what serde_json writes,
    /// on every value a table holds and past them; a chunk filled past
    /// its size goes out in pieces.
    #[test]
    fn the_chunk_writes_numbers_and_counts_as_serde_json_does() {
        let mut out = Vec::new();
        let mut chunk = super::JsonChunk::new();
        let mut expected = String::new();
        for n in (0..2000).chain([9_999, 10_000, 123_456, u32::MAX]) {
            chunk.room(&mut out, 18);
            chunk.int(n);
            chunk.put(b" ");
            expected.push_str(&format!("{} ", serde_json::to_string(&n).unwrap()));
        }
        for n in i8::MIN..=i8::MAX {
            chunk.room(&mut out, 8);
            chunk.word(super::POINT_TOKENS[usize::from(n as u8)]);
            expected.push_str(&format!(",{}", serde_json::to_string(&n).unwrap()));
        }
        chunk.append_to(&mut out);
        assert_eq!(String::from_utf8(out).unwrap(), expected);
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
        let mut bytes = Vec::new();
        LegalMovesJson::new(&answer, input.fields)
            .unwrap()
            .write(&mut bytes);
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

//! What operations answer about a position, in domain terms; each
//! transport renders it once into its own message.

use bgref_core::notation::encodings::Encoder;
use bgref_core::notation::fibs::FibsBoard;
use bgref_core::notation::match_id::MatchId;
use bgref_core::notation::position_id::PositionId;
use bgref_core::notation::xgid::{Xgid, XgidDice};
use bgref_core::{ByPlayer, Player, Position};

use crate::error::ApiError;

/// A position to answer with, in all its encodings and with pip counts. `meta` is the
/// request's XGID, whose cube, score and match fields are carried into the
/// answer's XGID (its dice are not: they belonged to the position before).
/// `game` is the state of a refereed game the position is part of: then
/// every string describes that whole state (see [`InGame`]).
#[derive(Debug, Clone)]
pub struct PositionView {
    /// The position.
    pub position: Position,
    /// The XGID of the request, if the position came as one.
    pub meta: Option<Xgid>,
    /// The game state around the position (game views), if any.
    pub game: Option<InGame>,
}

/// The state of a game around a position, as its strings write it.
#[derive(Debug, Clone)]
pub struct InGame {
    /// Cube value and owner, dice (or `D`, `B`, `R` for a pending double),
    /// score, Crawford flag (Jacoby and beavers in money play), match
    /// length and maximum cube; its setup is not read.
    pub xgid: Xgid,
    /// The gnubg Match ID of the state (none when a score does not fit
    /// its 15 bits).
    pub match_id: Option<MatchId>,
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
            game: None,
        }
    }

    /// `position` as part of a game whose state `game` describes.
    pub fn in_game(position: Position, game: InGame) -> PositionView {
        PositionView {
            position,
            meta: None,
            game: Some(game),
        }
    }

    /// The [`encoder`] of positions with this view's game fields (its
    /// game's, else the request's XGID): one pass over another position
    /// gives the texts its view with these fields would.
    pub fn encoder(&self) -> Encoder {
        encoder(self.game.as_ref().map(|g| &g.xgid).or(self.meta.as_ref()))
    }

    /// The gnubg Match ID, for a position in a game.
    pub fn match_id(&self) -> Option<String> {
        self.game
            .as_ref()
            .and_then(|g| g.match_id.as_ref())
            .map(MatchId::to_string)
    }

    /// The gnubg Position ID.
    pub fn position_id(&self) -> String {
        ascii_string(14, |out| {
            out.extend_from_slice(&self.position_id_value().encode());
        })
    }

    /// The gnubg Position ID to write (its `Display`).
    pub fn position_id_value(&self) -> PositionId {
        PositionId::from_position(&self.position)
    }

    /// The XGID, with the request's cube, score and match fields.
    pub fn xgid(&self) -> String {
        ascii_string(64, |out| self.xgid_value().write_to(out))
    }

    /// The XGID to write (its `Display`), with the request's cube, score
    /// and match fields.
    pub fn xgid_value(&self) -> Xgid {
        let mut xgid = match (&self.game, &self.meta) {
            (Some(game), _) => Xgid {
                setup: self.position.to_setup(),
                ..game.xgid.clone()
            },
            (None, Some(m)) => Xgid {
                setup: self.position.to_setup(),
                dice: XgidDice::NotRolled,
                ..m.clone()
            },
            (None, None) => Xgid::from_position(&self.position),
        };
        xgid.setup.off = None;
        xgid
    }

    /// The FIBS board string, with the request XGID's score, match length
    /// and cube value (in a game: the game's, with its dice, doubling
    /// flags and Crawford flag).
    pub fn fibs(&self) -> String {
        ascii_string(160, |out| self.fibs_value().write_to(out))
    }

    /// The FIBS board to write (its `Display`), with the request XGID's
    /// score, match length and cube value.
    pub fn fibs_value(&self) -> FibsBoard {
        match (&self.game, &self.meta) {
            (Some(InGame { xgid: game, .. }), _) => FibsBoard::in_game(&self.position, game),
            // The request's dice belonged to the position before.
            (None, Some(meta)) => FibsBoard::in_game(
                &self.position,
                &Xgid {
                    dice: XgidDice::NotRolled,
                    ..meta.clone()
                },
            ),
            (None, None) => FibsBoard::from_position(&self.position),
        }
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

/// The [`Encoder`] of the positions after an answer's plays, made once
/// for the answer from the request's XGID `meta` (`None`: money play at
/// 0-0 with a centred 1-cube): from one pass over each position, the same
/// texts and values as [`PositionView`]'s (`position_id_value`,
/// `xgid_value`, `fibs_value`, `board`, `pips`) with that `meta`.
pub fn encoder(meta: Option<&Xgid>) -> Encoder {
    match meta {
        // The request's dice belonged to the position before.
        Some(meta) => Encoder::new(&Xgid {
            dice: XgidDice::NotRolled,
            ..meta.clone()
        }),
        None => MONEY_ENCODER.with(Encoder::clone),
    }
}

thread_local! {
    /// The money-play encoder, made once per thread and copied for each
    /// answer (most requests give no XGID): making one writes its texts
    /// (several hundred instructions), copying it is a few block copies.
    static MONEY_ENCODER: Encoder = Encoder::money();
}

/// A play's gnubg notation (its `Display`) as a string, by the byte
/// writer (legal-moves answers make one per play).
pub fn notation(play: &bgref_core::Play) -> String {
    ascii_string(32, |out| play.write_notation(out))
}

/// The text a notation byte writer writes, as a `String` made in one
/// allocation of about `capacity` bytes, without the formatting machinery.
fn ascii_string(capacity: usize, write: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut bytes = Vec::with_capacity(capacity);
    write(&mut bytes);
    // The writers write ASCII only.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// What each play of a legal-moves answer carries besides its notation:
/// the single-die moves and the resulting position's encodings. A request
/// names them in `fields`; by default a play carries everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fields(u8);

impl Fields {
    /// The single-die moves.
    pub const MOVES: Fields = Fields(1);
    /// The resulting position's gnubg Position ID.
    pub const POSITION_ID: Fields = Fields(1 << 1);
    /// The resulting position's XGID.
    pub const XGID: Fields = Fields(1 << 2);
    /// The resulting position's board encoding.
    pub const BOARD: Fields = Fields(1 << 3);
    /// The resulting position's FIBS board string.
    pub const FIBS: Fields = Fields(1 << 4);
    /// The resulting position's pip counts.
    pub const PIPS: Fields = Fields(1 << 5);
    /// Everything: the default.
    pub const ALL: Fields = Fields((1 << 6) - 1);
    /// The position's encodings (every field but the moves).
    pub const POSITION: Fields = Fields(Fields::ALL.0 & !Fields::MOVES.0);

    /// The names a request uses, in the order answers write them.
    pub const NAMES: [(&'static str, Fields); 6] = [
        ("moves", Fields::MOVES),
        ("position_id", Fields::POSITION_ID),
        ("xgid", Fields::XGID),
        ("board", Fields::BOARD),
        ("fibs", Fields::FIBS),
        ("pips", Fields::PIPS),
    ];

    /// Whether every field of `other` is in `self`.
    pub fn has(self, other: Fields) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any field of `other` is in `self`.
    pub fn any(self, other: Fields) -> bool {
        self.0 & other.0 != 0
    }

    /// The fields a request names (`None`: left out, everything);
    /// `field` names the list in errors. Names may repeat; an empty list
    /// or an unknown name is a 400 `invalid-fields`.
    pub fn parse<S: AsRef<str>>(names: Option<&[S]>, field: &str) -> Result<Fields, ApiError> {
        let Some(names) = names else {
            return Ok(Fields::ALL);
        };
        let known = || {
            Fields::NAMES
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        };
        if names.is_empty() {
            return Err(ApiError::invalid(
                "invalid-fields",
                field,
                format!(
                    "{field} names at least one of {}; leave it out for every field",
                    known()
                ),
            ));
        }
        let mut fields = Fields(0);
        for (i, name) in names.iter().enumerate() {
            let name = name.as_ref();
            let Some((_, f)) = Fields::NAMES.iter().find(|(n, _)| *n == name) else {
                return Err(ApiError::invalid(
                    "invalid-fields",
                    format!("{field}[{i}]"),
                    format!(
                        "unknown field {:?}: the fields are {}",
                        crate::error::log_safe(name),
                        known()
                    ),
                ));
            };
            fields.0 |= f.0;
        }
        Ok(fields)
    }

    /// These fields for the plays of `variant`: Plakoto, Fevga and Long
    /// Nardy answer their own encodings in full, so naming fields for
    /// them is a 400 `invalid-fields`.
    pub fn for_variant(self, variant: bgref_core::Variant) -> Result<Fields, ApiError> {
        match variant.tables_engine() {
            Some(game) if self != Fields::ALL => Err(ApiError::invalid(
                "invalid-fields",
                "fields",
                format!(
                    "fields applies to the backgammon encodings; {game} answers its own \
                     encodings in full (leave fields out)"
                ),
            )),
            _ => Ok(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Fields;

    #[test]
    fn fields_parse_names_and_refuse_unknown_or_none() {
        assert_eq!(Fields::parse::<&str>(None, "fields").unwrap(), Fields::ALL);
        let f = Fields::parse(Some(&["pips", "position_id", "pips"][..]), "fields").unwrap();
        assert!(f.has(Fields::PIPS) && f.has(Fields::POSITION_ID));
        assert!(!f.any(Fields::MOVES) && !f.any(Fields::XGID));
        let all: Vec<&str> = Fields::NAMES.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            Fields::parse(Some(&all[..]), "fields").unwrap(),
            Fields::ALL
        );

        let err = Fields::parse(Some(&["position_id", "gnubg"][..]), "fields").unwrap_err();
        assert_eq!(err.slug, "invalid-fields");
        assert_eq!(err.field.as_deref(), Some("fields[1]"));
        assert!(err.detail.contains("\"gnubg\""), "{}", err.detail);
        let err = Fields::parse::<&str>(Some(&[]), "fields").unwrap_err();
        assert_eq!(err.slug, "invalid-fields");
        assert_eq!(err.field.as_deref(), Some("fields"));
    }
}

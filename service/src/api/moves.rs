//! Legal moves and applying a play.

use bgref_core::Variant;
use bgref_core::notation::move_text::{MoveText, Segment};
use bgref_core::notation::xgid::Xgid;
use bgref_core::{Dice, GameOutcome, Move, PartialPlay, Play, PlayList, Player, Point, Position};

use super::input::{self, PositionInput, ReadPosition};
use super::tables::LegalMovesAnswer;
use super::view::{Fields, PositionView};
use crate::error::ApiError;

/// A position and a roll: the input of both operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnInput {
    /// The variant (the tables engine's games go to [`super::tables`]).
    pub variant: Variant,
    /// The position before the roll (`None`: left out).
    pub position: Option<PositionInput>,
    /// The two dice as given (`None`: left out, then the XGID's roll).
    pub dice: Option<Vec<i64>>,
    /// The request says the position is the start of a game.
    pub game_start: bool,
    /// Rule options of Tavla, Plakoto, Fevga and Long Nardy (`None`: the
    /// defaults).
    pub tables_rules: Option<super::tables::TablesRulesInput>,
}

/// A play as a request gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayInput {
    /// gnubg-style notation.
    Notation(String),
    /// `(from, to)` pairs; each may span several dice.
    Moves(Vec<(i64, i64)>),
}

/// Input of apply-move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyMoveInput {
    /// The position and roll.
    pub turn: TurnInput,
    /// The play (`None`: left out).
    pub play: Option<PlayInput>,
    /// The moves are the start of a turn entered one die at a time.
    pub partial: bool,
}

/// One legal play and where it leads.
#[derive(Debug, Clone)]
pub struct PlayView {
    /// The play (its `Display` is gnubg notation).
    pub play: Play,
    /// The position after it, opponent on roll.
    pub position: PositionView,
}

/// Answer of legal-moves: the plays as the generator lists them, with
/// what every play's resulting position shares (the position they are
/// played from, the request's XGID) kept once for the answer. The writers
/// walk the plays and make each resulting position as they write it
/// ([`LegalMoves::after`]), so an answer holds no position, view or XGID
/// per play.
#[derive(Debug, Clone)]
pub struct LegalMoves {
    /// The position the plays are played from.
    pub position: Position,
    /// The XGID of the request, if the position came as one: its cube,
    /// score and match fields go into every play's XGID and FIBS board.
    pub meta: Option<Xgid>,
    /// One entry per distinct resulting position.
    pub plays: PlayList,
    /// The roll.
    pub dice: Dice,
}

impl LegalMoves {
    /// Exactly one legal play.
    pub fn forced(&self) -> bool {
        self.plays.len() == 1
    }

    /// The position after `play`, one of [`LegalMoves::plays`], opponent
    /// on roll: [`Position::after_legal`], which skips the checks a play
    /// of the list passes.
    #[inline]
    pub fn after(&self, play: &Play) -> Position {
        self.position.after_legal(play)
    }

    /// Each play with its resulting position as a [`PositionView`] (with
    /// the request's XGID): what the message-tree renderers take, the
    /// references the direct writers are tested against (so the position
    /// is [`Position::after`]'s, with its checks).
    pub fn views(&self) -> impl ExactSizeIterator<Item = PlayView> + '_ {
        self.plays.iter().map(|play| PlayView {
            play: *play,
            position: PositionView::new(self.position.after(play), self.meta.as_ref()),
        })
    }
}

/// Answer of apply-move.
#[derive(Debug, Clone)]
pub struct Applied {
    /// The play as the referee understood it.
    pub play: Play,
    /// The new position.
    pub position: PositionView,
    /// Set when the play ended the game.
    pub game_over: Option<GameOutcome>,
    /// Set for a partial play.
    pub partial: Option<PartialPlay>,
}

impl Applied {
    /// Points (mover's view) where a blot was hit.
    pub fn hits(&self) -> impl Iterator<Item = u8> + '_ {
        self.play
            .moves()
            .iter()
            .filter(|m| m.is_hit())
            .map(|m| m.to().get())
    }

    /// Whose turn it is now.
    pub fn turn(&self) -> Player {
        self.position.position.turn()
    }
}

/// The position and roll of a request, for a game still going on.
fn read_turn(input: &TurnInput) -> Result<(ReadPosition, Dice), ApiError> {
    let variant = input::board_only(input.variant, "the backgammon board")?;
    let read = input::required_position(input.position.as_ref(), variant, "position")?;
    let dice = input::dice(input.dice.as_deref(), "dice", read.xgid_dice())?;
    if input.game_start {
        input::game_start(&read.position, "position")?;
    }
    if let Some(outcome) = read.position.outcome() {
        return Err(ApiError::illegal(
            "game-over",
            Some("position"),
            format!(
                "the game is over: {} has borne off every checker",
                outcome.winner
            ),
        ));
    }
    Ok((read, dice))
}

/// Every legal play of the position for the roll.
pub fn legal_moves(input: &TurnInput) -> Result<LegalMoves, ApiError> {
    let hit_and_run = super::tables::hit_and_run(input)?;
    let (read, dice) = read_turn(input)?;
    Ok(LegalMoves {
        plays: hit_and_run.legal_plays(&read.position, dice),
        position: read.position,
        meta: read.xgid,
        dice,
    })
}

/// Input of legal-moves: the turn and what each play carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegalMovesInput {
    /// The position and roll.
    pub turn: TurnInput,
    /// What each play carries besides its notation.
    pub fields: Fields,
}

/// Answer of legal-moves in any variant, with what each play carries.
#[derive(Debug, Clone)]
pub struct LegalMovesReply {
    /// The legal plays.
    pub answer: LegalMovesAnswer,
    /// What each play carries besides its notation.
    pub fields: Fields,
}

/// Every legal play in any variant, each to be answered with `fields`.
/// Plakoto, Fevga and Long Nardy answer their own encodings in full: for
/// them, naming fields is a 400 `invalid-fields`.
pub fn legal_moves_reply(input: &LegalMovesInput) -> Result<LegalMovesReply, ApiError> {
    if input.fields != Fields::ALL
        && let Some(game) = input.turn.variant.tables_engine()
    {
        return Err(ApiError::invalid(
            "invalid-fields",
            "fields",
            format!(
                "fields applies to the backgammon encodings; {game} answers its own \
                 encodings in full (leave fields out)"
            ),
        ));
    }
    Ok(LegalMovesReply {
        answer: super::tables::legal_moves(&input.turn)?,
        fields: input.fields,
    })
}

/// The play of a request as move text; `field` names it in errors.
pub(crate) fn play_text(play: Option<&PlayInput>, field: &str) -> Result<MoveText, ApiError> {
    match input::required(
        play,
        field,
        &format!("{field} is required: notation or moves"),
    )? {
        PlayInput::Notation(text) => text
            .parse()
            .map_err(|e| ApiError::invalid("invalid-play", field, e)),
        PlayInput::Moves(list) => {
            if list.len() > 4 {
                return Err(ApiError::invalid(
                    "invalid-play",
                    field,
                    "a play has at most four moves",
                ));
            }
            let mut segments = Vec::with_capacity(list.len());
            for (i, &(from, to)) in list.iter().enumerate() {
                let point = |v: i64, name: &str| {
                    Point::try_from(v).map_err(|_| {
                        ApiError::invalid(
                            "invalid-play",
                            format!("{field}[{i}].{name}"),
                            format!("a point is 0 (off) to 25 (bar), got {v}"),
                        )
                    })
                };
                segments.push(Segment {
                    path: vec![(point(from, "from")?, false), (point(to, "to")?, false)],
                    count: 1,
                });
            }
            Ok(MoveText { segments })
        }
    }
}

/// Single-die hops of a move text, for partial plays.
pub(super) fn hops(text: &MoveText) -> Vec<Move> {
    let mut out = Vec::new();
    for segment in &text.segments {
        for _ in 0..segment.count {
            for pair in segment.path.windows(2) {
                out.push(Move::new(pair[0].0, pair[1].0));
            }
        }
    }
    out
}

/// Checks and applies a play (or the start of one, with `partial`).
pub fn apply_move(input: &ApplyMoveInput) -> Result<Applied, ApiError> {
    let hit_and_run = super::tables::hit_and_run(&input.turn)?;
    let (read, dice) = read_turn(&input.turn)?;
    let position = &read.position;
    let text = play_text(input.play.as_ref(), "play")?;
    let (play, partial) = if input.partial {
        let partial = hit_and_run.partial_play(position, &hops(&text), dice)?;
        let play = Play::new(&partial.moves).ok_or_else(|| {
            ApiError::invalid("invalid-play", "play", "a play has at most four moves")
        })?;
        (play, Some(partial))
    } else {
        (hit_and_run.play_text(position, &text, dice)?, None)
    };
    let mut after = position.after(&play);
    if partial.as_ref().is_some_and(|p| !p.complete) {
        // The mover is still moving.
        after = after.swap_turn();
    }
    Ok(Applied {
        play,
        game_over: after.outcome(),
        position: PositionView::new(after, read.xgid.as_ref()),
        partial,
    })
}

//! Legal moves and applying a play.

use bgref_core::notation::xgid::Xgid;
use bgref_core::tables::Game;
use bgref_core::{Dice, GameOutcome, PartialPlay, Play, PlayList, Player, Position};

use super::input::{self, ReadPosition};
use super::tables::{TablesApplied, TablesLegalMoves};
pub(crate) use super::turn::play_text;
pub use super::turn::{ApplyMoveInput, PlayInput, TurnInput};
use super::turn::{hit_and_run, hops, read_rules};
use super::view::{Fields, PositionView};
use crate::error::ApiError;

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
    let hit_and_run = hit_and_run(input)?;
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
    let fields = input.fields.for_variant(input.turn.variant)?;
    Ok(LegalMovesReply {
        answer: answer_legal_moves(&input.turn)?,
        fields,
    })
}

/// Checks and applies a play (or the start of one, with `partial`).
pub fn apply_move(input: &ApplyMoveInput) -> Result<Applied, ApiError> {
    let hit_and_run = hit_and_run(&input.turn)?;
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

/// The answer of legal-moves, for any variant.
#[derive(Debug, Clone)]
pub enum LegalMovesAnswer {
    /// The backgammon variants, Portes and Tavla.
    Backgammon(LegalMoves),
    /// Plakoto, Fevga and Long Nardy.
    Tables(TablesLegalMoves),
}

/// The answer of apply-move, for any variant.
#[derive(Debug, Clone)]
pub enum ApplyAnswer {
    /// The backgammon variants, Portes and Tavla (`game`).
    Backgammon {
        /// The answer on the backgammon board.
        applied: Applied,
        /// Portes or Tavla, which score differently.
        game: Option<Game>,
    },
    /// Plakoto, Fevga and Long Nardy.
    Tables(TablesApplied),
}

/// Every legal play of the position for the roll, in any variant.
pub fn answer_legal_moves(input: &TurnInput) -> Result<LegalMovesAnswer, ApiError> {
    read_rules(input.tables_rules.as_ref(), input.variant)?;
    match input.variant.tables_engine() {
        None => legal_moves(input).map(LegalMovesAnswer::Backgammon),
        Some(game) => super::tables::legal_moves(input, game).map(LegalMovesAnswer::Tables),
    }
}

/// Checks and applies a play (or the start of one), in any variant.
pub fn answer_apply_move(input: &ApplyMoveInput) -> Result<ApplyAnswer, ApiError> {
    read_rules(input.turn.tables_rules.as_ref(), input.turn.variant)?;
    match input.turn.variant.tables_engine() {
        None => apply_move(input).map(|applied| ApplyAnswer::Backgammon {
            applied,
            game: input.turn.variant.game(),
        }),
        Some(game) => super::tables::apply_move(input, game).map(ApplyAnswer::Tables),
    }
}

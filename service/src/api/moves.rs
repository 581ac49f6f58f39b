//! Legal moves and applying a play, in every variant: the request's
//! position read once into a [`VariantPosition`] (the backgammon board for
//! the backgammon variants, Portes and Tavla; the tables engine for
//! Plakoto, Fevga and Long Nardy) and asked once.

use bgref_core::notation::xgid::Xgid;
use bgref_core::tables::OutcomeKind;
use bgref_core::{
    Dice, PartialPlay, Play, PlayList, Player, Position, VariantOutcome, VariantPlayList,
    VariantPosition,
};

use super::input;
pub(crate) use super::turn::play_text;
pub use super::turn::{ApplyMoveInput, PlayInput, TurnInput};
use super::turn::{hops, read_rules};
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
/// walk the plays and make each resulting position as they write it, so an
/// answer holds no position, view or XGID per play.
#[derive(Debug, Clone)]
pub struct LegalMoves {
    /// The position the plays are played from.
    pub position: VariantPosition,
    /// The XGID of the request, if the position came as one: its cube,
    /// score and match fields go into every play's XGID and FIBS board.
    pub meta: Option<Xgid>,
    /// One entry per distinct resulting position.
    pub plays: VariantPlayList,
    /// The roll.
    pub dice: Dice,
}

impl LegalMoves {
    /// Exactly one legal play.
    pub fn forced(&self) -> bool {
        self.plays.len() == 1
    }

    /// The position and its plays on the backgammon board (`None` in
    /// Plakoto, Fevga and Long Nardy), for the writers of the board's
    /// encodings: a play's resulting position is then
    /// [`Position::after_legal`], which skips the checks a play of the
    /// list passes.
    pub fn on_board(&self) -> Option<(&Position, &PlayList)> {
        Some((self.position.board()?, self.plays.board()?))
    }

    /// On the backgammon board, each play with its resulting position as a
    /// [`PositionView`] (with the request's XGID): what the message-tree
    /// renderers take, the references the direct writers are tested
    /// against (so the position is [`Position::after`]'s, with its
    /// checks). Empty in Plakoto, Fevga and Long Nardy
    /// ([`super::tables::TablesView::after_plays`]).
    pub fn views(&self) -> impl Iterator<Item = PlayView> + '_ {
        let meta = self.meta.as_ref();
        self.on_board()
            .into_iter()
            .flat_map(move |(position, plays)| {
                plays.iter().map(move |play| PlayView {
                    play: *play,
                    position: PositionView::new(position.after(play), meta),
                })
            })
    }
}

/// Answer of apply-move.
#[derive(Debug, Clone)]
pub struct Applied {
    /// The play as the referee understood it.
    pub play: Play,
    /// The new position: the opponent on roll; for an unfinished partial
    /// play, the mover still on roll.
    pub position: VariantPosition,
    /// The XGID of the request, if the position came as one.
    pub meta: Option<Xgid>,
    /// Set when the play ended the game.
    pub game_over: Option<VariantOutcome>,
    /// Set for a partial play.
    pub partial: Option<PartialPlay>,
}

impl Applied {
    /// Points (mover's view) where a blot was hit (a checker pinned, in
    /// Plakoto).
    pub fn hits(&self) -> impl Iterator<Item = u8> + '_ {
        self.play
            .moves()
            .iter()
            .filter(|m| m.is_hit())
            .map(|m| m.to().get())
    }

    /// Whose turn it is now.
    pub fn turn(&self) -> Player {
        self.position.turn()
    }

    /// The new position in the backgammon board's encodings (`None` in
    /// Plakoto, Fevga and Long Nardy).
    pub fn board_view(&self) -> Option<PositionView> {
        let position = self.position.board()?;
        Some(PositionView::new(*position, self.meta.as_ref()))
    }
}

/// The position (with the XGID it came as) and roll of a request, for a
/// game still going on, in any variant.
fn read_turn(input: &TurnInput) -> Result<(VariantPosition, Option<Xgid>, Dice), ApiError> {
    let variant = input.variant;
    let rules = read_rules(input.tables_rules.as_ref(), variant)?;
    let given = input
        .position
        .as_ref()
        .ok_or_else(|| ApiError::invalid("invalid-position", "position", "position is required"))?;
    let (position, xgid, dice) = match (variant.board(), variant.tables_engine()) {
        (Some(board), _) => {
            let read = input::position(given, board, "position")?;
            let dice = input::dice(input.dice.as_deref(), "dice", read.xgid_dice())?;
            let position = VariantPosition::on_board(variant, rules, read.position)
                .map_err(|e| ApiError::invalid("invalid-position", "position", e))?;
            (position, read.xgid, dice)
        }
        (None, Some(game)) => {
            let position = super::tables::read_position(given, game, "position")?;
            let dice = input::dice(input.dice.as_deref(), "dice", None)?;
            let position = VariantPosition::from(position.with_rules(rules));
            (position, None, dice)
        }
        (None, None) => unreachable!("every variant is played on the board or the tables engine"),
    };
    if input.game_start && position != VariantPosition::start(variant, rules, position.turn()) {
        return Err(ApiError::invalid(
            "not-start-position",
            "position",
            format!(
                "the position is said to be the start of a game but is not the {variant} start \
                 (GET /variants lists each variant's starting position)"
            ),
        ));
    }
    if let Some(outcome) = position.outcome() {
        return Err(ApiError::illegal(
            "game-over",
            Some("position"),
            format!("the game is over: {}", describe(&outcome)),
        ));
    }
    Ok((position, xgid, dice))
}

/// How a game of any variant ended, in words.
fn describe(outcome: &VariantOutcome) -> String {
    match (outcome.winner, outcome.kind) {
        (None, _) | (_, OutcomeKind::Draw) => "a draw: both mothers are pinned".to_owned(),
        (Some(w), OutcomeKind::Mother) => {
            format!(
                "{w} wins {} points: {}'s mother is pinned",
                outcome.points, !w
            )
        }
        // On the backgammon board the points depend on the cube.
        (Some(w), _) if outcome.result.is_some() => format!("{w} has borne off every checker"),
        (Some(w), _) => format!(
            "{w} has borne off every checker and wins {} point{}",
            outcome.points,
            if outcome.points == 1 { "" } else { "s" }
        ),
    }
}

/// Input of legal-moves: the turn and what each play carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegalMovesInput {
    /// The position and roll.
    pub turn: TurnInput,
    /// What each play carries besides its notation.
    pub fields: Fields,
}

/// Answer of legal-moves, with what each play carries.
#[derive(Debug, Clone)]
pub struct LegalMovesReply {
    /// The legal plays.
    pub answer: LegalMoves,
    /// What each play carries besides its notation.
    pub fields: Fields,
}

/// Every legal play of the position for the roll, in any variant.
pub fn legal_moves(input: &TurnInput) -> Result<LegalMoves, ApiError> {
    let (position, meta, dice) = read_turn(input)?;
    Ok(LegalMoves {
        plays: position.legal_plays(dice),
        position,
        meta,
        dice,
    })
}

/// Every legal play in any variant, each to be answered with `fields`.
/// Plakoto, Fevga and Long Nardy answer their own encodings in full: for
/// them, naming fields is a 400 `invalid-fields`.
pub fn legal_moves_reply(input: &LegalMovesInput) -> Result<LegalMovesReply, ApiError> {
    let fields = input.fields.for_variant(input.turn.variant)?;
    Ok(LegalMovesReply {
        answer: legal_moves(&input.turn)?,
        fields,
    })
}

/// Checks and applies a play (or the start of one, with `partial`), in
/// any variant.
pub fn apply_move(input: &ApplyMoveInput) -> Result<Applied, ApiError> {
    let (position, meta, dice) = read_turn(&input.turn)?;
    let text = play_text(input.play.as_ref(), "play")?;
    let (play, after, partial) = if input.partial {
        let partial = position.partial_play(&hops(&text), dice)?;
        let play = Play::new(&partial.moves).ok_or_else(|| {
            ApiError::invalid("invalid-play", "play", "a play has at most four moves")
        })?;
        let mut after = position.after(&play);
        if !partial.complete {
            // The mover is still moving.
            after = after.swap_turn();
        }
        (play, after, Some(partial))
    } else {
        let (after, play) = position.play_text(&text, dice)?;
        (play, after, None)
    };
    Ok(Applied {
        play,
        game_over: after.outcome(),
        position: after,
        meta,
        partial,
    })
}

//! The tables games (`docs/variants.md`): their positions read and shown,
//! their games scored.
//!
//! Portes and Tavla are played on the backgammon `Position` (standard
//! start and movement): only their points differ (no cube). Plakoto, Fevga
//! and Long Nardy are played on [`TablesPosition`]: read here from the
//! board encoding (with Plakoto's pin marks) or, for Fevga and Long Nardy,
//! a Position ID; an XGID never applies to them.

use bgref_core::notation::position_id::PositionId;
use bgref_core::tables::{CHECKERS, Game, OutcomeKind, TablesPosition, TablesSetup};
use bgref_core::{
    ByPlayer, GameResult, MatchOutcome, Play, Player, Variant, VariantPlayList, VariantPosition,
};

use super::cube::{self, CubeInput, EndedBy, ScoreInput, Scored};
use super::input::{self, BoardInput, PositionInput};
pub use super::turn::{TablesRulesInput, read_rules};
use crate::error::ApiError;

/// A Plakoto, Fevga or Long Nardy position to answer with.
#[derive(Debug, Clone, Copy)]
pub struct TablesView {
    /// The position.
    pub position: TablesPosition,
}

/// The board encoding of a tables position (see `TablesSetup::to_board`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TablesBoardView {
    /// 24 signed counts from x's view (the pinner's count on a pinned point).
    pub points: [i8; 24],
    /// Plakoto's pin marks (`None` for Fevga and Long Nardy).
    pub pins: Option<[i8; 24]>,
    /// Checkers borne off.
    pub off: ByPlayer<u8>,
    /// The player on roll.
    pub turn: Player,
}

impl TablesView {
    /// `position` in the tables encodings (`None` on the backgammon
    /// board).
    pub fn of(position: &VariantPosition) -> Option<TablesView> {
        position.tables().map(|&position| TablesView { position })
    }

    /// Each of `plays`, the legal plays of `position`, with the position it
    /// leads to in the tables encodings; none on the backgammon board.
    pub fn after_plays<'a>(
        position: &'a VariantPosition,
        plays: &'a VariantPlayList,
    ) -> impl Iterator<Item = (&'a Play, TablesView)> + 'a {
        position.tables().into_iter().flat_map(move |from| {
            plays.iter().map(move |play| {
                let position = from.after(play);
                (play, TablesView { position })
            })
        })
    }

    /// The game.
    pub fn game(&self) -> Game {
        self.position.game()
    }

    /// The Position ID (Fevga and Long Nardy; `None` for Plakoto).
    pub fn position_id(&self) -> Option<String> {
        self.position.position_id().map(|id| id.to_string())
    }

    /// The board encoding.
    pub fn board(&self) -> TablesBoardView {
        let setup = self.position.to_setup();
        let (points, pins) = setup.to_board();
        TablesBoardView {
            points,
            pins: (setup.game == Game::Plakoto).then_some(pins),
            off: setup.off,
            turn: setup.turn,
        }
    }
}

fn bad_position(field: impl Into<String>, detail: impl std::fmt::Display) -> ApiError {
    ApiError::invalid("invalid-position", field, detail)
}

/// The board encoding of a tables game, field errors with their paths.
fn board_setup(game: Game, board: &BoardInput, field: &str) -> Result<TablesSetup, ApiError> {
    let signed = |values: &[i64], name: &str, range: std::ops::RangeInclusive<i8>, what: &str| {
        if values.len() != 24 {
            return Err(bad_position(
                format!("{field}.{name}"),
                format!(
                    "{name} has 24 entries (points 1 to 24 from x's side), got {}",
                    values.len()
                ),
            ));
        }
        let mut out = [0i8; 24];
        for (i, &n) in values.iter().enumerate() {
            out[i] = i8::try_from(n)
                .ok()
                .filter(|n| range.contains(n))
                .ok_or_else(|| {
                    bad_position(format!("{field}.{name}[{i}]"), format!("{what}, got {n}"))
                })?;
        }
        Ok(out)
    };
    let points = signed(
        &board.points,
        "points",
        -15..=15,
        "a point holds at most 15 checkers",
    )?;
    let pins = match &board.pins {
        None => [0i8; 24],
        Some(_) if game != Game::Plakoto => {
            return Err(bad_position(
                format!("{field}.pins"),
                "pins apply to plakoto only",
            ));
        }
        Some(pins) => signed(pins, "pins", -1..=1, "a pin mark is -1, 0 or 1")?,
    };
    if board.bar.x != 0 || board.bar.o != 0 {
        return Err(bad_position(
            format!("{field}.bar"),
            format!("there is no bar in {game}: nobody is hit"),
        ));
    }
    let turn = board
        .turn
        .ok_or_else(|| bad_position(format!("{field}.turn"), "board.turn is required (x or o)"))?;
    let mut setup = TablesSetup::from_board(game, &points, &pins, ByPlayer::default(), turn);
    setup.off = match board.off {
        Some(off) => ByPlayer {
            x: input::count(off.x, || format!("{field}.off.x"), "an off count")?,
            o: input::count(off.o, || format!("{field}.off.o"), "an off count")?,
        },
        None => {
            let off = |p: Player| {
                let on: u32 = setup.points[p].iter().map(|&n| u32::from(n)).sum();
                u8::try_from(u32::from(CHECKERS).saturating_sub(on)).unwrap_or(0)
            };
            ByPlayer {
                x: off(Player::X),
                o: off(Player::O),
            }
        }
    };
    Ok(setup)
}

/// Reads and checks a Plakoto, Fevga or Long Nardy position: the board
/// encoding, or (Fevga, Long Nardy) a Position ID with `turn`.
pub fn read_position(
    input: &PositionInput,
    game: Game,
    field: &str,
) -> Result<TablesPosition, ApiError> {
    let encodings = if game == Game::Plakoto {
        "board"
    } else {
        "position_id or board"
    };
    if input.xgid.is_some() {
        return Err(bad_position(
            format!("{field}.xgid"),
            format!("an XGID does not apply to {game}: give the position as {encodings}"),
        ));
    }
    // A response's position (a game view's, a play's) carries the board
    // and, where the game has one, its Position ID: sent back as it is,
    // the two must agree, and the board (which says who is on roll) is
    // read.
    let (setup, sub) = match (&input.position_id, &input.board) {
        (None, None) => {
            return Err(bad_position(
                field,
                format!("give the {game} position as exactly one of {encodings}"),
            ));
        }
        (Some(_), _) if game == Game::Plakoto => {
            return Err(bad_position(
                format!("{field}.position_id"),
                "a Position ID does not apply to plakoto (it cannot carry the pins): give the board",
            ));
        }
        (Some(_), Some(_)) | (None, Some(_)) if input.turn.is_some() => {
            return Err(bad_position(
                format!("{field}.turn"),
                "turn goes only beside position_id: board says who is on roll",
            ));
        }
        (Some(id), board) => {
            let parsed: PositionId = id
                .parse()
                .map_err(|e| bad_position(format!("{field}.position_id"), e))?;
            match board {
                None => (
                    TablesSetup::from_position_id(game, &parsed, input.turn.unwrap_or(Player::X)),
                    "position_id",
                ),
                Some(board) => {
                    let setup = board_setup(game, board, &format!("{field}.board"))?;
                    if TablesSetup::from_position_id(game, &parsed, setup.turn) != setup {
                        return Err(bad_position(
                            format!("{field}.position_id"),
                            "position_id and board are not the same position: send one of them",
                        ));
                    }
                    (setup, "board")
                }
            }
        }
        (None, Some(board)) => (
            board_setup(game, board, &format!("{field}.board"))?,
            "board",
        ),
    };
    TablesPosition::from_setup(&setup).map_err(|e| bad_position(format!("{field}.{sub}"), e))
}

/// The answer of score-game, for any variant: how the game ended and what
/// it won; in the variants with the cube also the Jacoby rule, the match
/// after the game and the Match IDs to carry on with (Portes, Tavla and the
/// tables games have no cube and no match state: see `docs/variants.md`,
/// "Tavli match").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreAnswer {
    /// The variant scored.
    pub variant: Variant,
    /// How the game ended (always a bear-off without the cube).
    pub ended_by: EndedBy,
    /// The winner (`None`: a Plakoto draw).
    pub winner: Option<Player>,
    /// The result on the backgammon board (`None` in Plakoto, Fevga and
    /// Long Nardy).
    pub result: Option<GameResult>,
    /// Plakoto, Fevga, Long Nardy: how the game ended.
    pub outcome: Option<OutcomeKind>,
    /// Points won.
    pub points: u32,
    /// The variants with the cube: the match after the game.
    pub match_play: Option<MatchScore>,
}

/// What a game of a variant with the cube adds to its score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchScore {
    /// The Jacoby rule counted a gammon or backgammon as single.
    pub jacoby_applied: bool,
    /// The match after the game.
    pub outcome: MatchOutcome,
    /// Match ID of the next game (or, once the match is won, of this one).
    pub match_id: Option<String>,
    /// Match ID of this game as gnubg writes it when the game ends.
    pub game_match_id: Option<String>,
}

impl ScoreAnswer {
    /// A game of `variant` (with the cube) as [`cube::score_game`] scored it.
    fn with_cube(variant: Variant, scored: Scored) -> ScoreAnswer {
        let ended_by = scored.ended_by();
        let score = scored.score;
        ScoreAnswer {
            variant,
            ended_by,
            winner: Some(score.winner),
            result: Some(score.result),
            outcome: None,
            points: score.points,
            match_play: Some(MatchScore {
                jacoby_applied: score.jacoby,
                outcome: score.match_outcome,
                match_id: scored.match_id,
                game_match_id: scored.game_match_id,
            }),
        }
    }
}

/// Scores a finished game, in any variant. The tables games end only by
/// bearing off (or, in Plakoto, by a pinned mother): no cube (a cube other
/// than the centred 1 is refused with `no-cube-in-variant`), no match
/// state, no rule options.
pub fn score_game(req: &ScoreInput) -> Result<ScoreAnswer, ApiError> {
    let Some(game) = req.variant.game() else {
        return cube::score_game(req).map(|scored| ScoreAnswer::with_cube(req.variant, scored));
    };
    if let Some(c) = &req.cube
        && *c != CubeInput::default()
    {
        return Err(ApiError::invalid(
            "no-cube-in-variant",
            "cube",
            format!(
                "{game} is played without the doubling cube: leave cube out or send the centred 1-cube"
            ),
        ));
    }
    for (given, field) in [
        (req.match_state.is_some(), "match"),
        (req.match_id.is_some(), "match_id"),
        (req.rules.is_some(), "rules"),
    ] {
        if given {
            return Err(ApiError::invalid(
                "invalid-request",
                field,
                format!(
                    "{field} does not apply to {game}: a tables game scores on its own (no cube, no match state)"
                ),
            ));
        }
    }
    match input::required(req.ended_by, "ended_by", "ended_by is required: bearoff")? {
        EndedBy::Bearoff => {}
        EndedBy::Pass | EndedBy::Resign => {
            return Err(ApiError::invalid(
                "no-cube-in-variant",
                "ended_by",
                format!(
                    "a {game} game ends only by bearing off (or, in plakoto, a pinned mother): there is no cube to pass and no resignation is served"
                ),
            ));
        }
    }
    if req.winner.is_some() || req.resign_level.is_some() {
        return Err(ApiError::invalid(
            "invalid-request",
            if req.winner.is_some() {
                "winner"
            } else {
                "resign_level"
            },
            "ended_by bearoff takes the finished position only: the position says who won",
        ));
    }
    let given = input::required(
        req.position.as_ref(),
        "position",
        "ended_by bearoff needs the finished position",
    )?;
    let not_over = || {
        ApiError::illegal(
            "game-not-over",
            Some("position"),
            format!("the {game} game is not over: nobody has borne off every checker"),
        )
    };
    let answer = if let Some(variant) = game.backgammon_variant() {
        let read = input::position(given, variant, "position")?;
        if let Some(xgid) = &read.xgid
            && (xgid.cube_value.get() != 1 || xgid.cube_owner != bgref_core::CubeOwner::Centre)
        {
            return Err(ApiError::invalid(
                "no-cube-in-variant",
                "position.xgid",
                format!(
                    "{game} is played without the doubling cube: the XGID's cube must be the centred 1"
                ),
            ));
        }
        let outcome = read.position.outcome().ok_or_else(not_over)?;
        ScoreAnswer {
            variant: req.variant,
            ended_by: EndedBy::Bearoff,
            winner: Some(outcome.winner),
            result: Some(outcome.result),
            outcome: None,
            points: game.backgammon_points(outcome.result, false).unwrap_or(1),
            match_play: None,
        }
    } else {
        let position = read_position(given, game, "position")?;
        let outcome = position.outcome().ok_or_else(not_over)?;
        ScoreAnswer {
            variant: req.variant,
            ended_by: EndedBy::Bearoff,
            winner: outcome.winner,
            result: None,
            outcome: Some(outcome.kind),
            points: outcome.points,
            match_play: None,
        }
    };
    Ok(answer)
}

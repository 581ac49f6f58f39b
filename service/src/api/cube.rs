//! Scoring finished games (`POST /score`) and resolving cube and
//! resignation actions (`POST /cube`).
//!
//! Both read the same state: the cube, the match and the rule options,
//! given explicitly, by a gnubg Match ID, or (for `/score`) by the XGID of
//! the position. An inconsistent state is a 400 naming the field it came
//! from; a refused action is a rules answer (`allowed: false` for `/cube`,
//! a 422 for `/score`).

use bgref_core::Variant;
use bgref_core::notation::match_id::{GameStatus, MatchId};
use bgref_core::notation::xgid::Xgid;
use bgref_core::{
    ByPlayer, CubeAction, CubeError, CubeOutcome, CubeOwner, CubeRefusal, CubeRules, CubeState,
    CubeValue, GameEnd, GameResult, GameScore, InvalidCubeState, InvalidMatchState, MatchState,
    Player, Resignation,
};

use super::input::{self, PositionInput, required};
use crate::error::ApiError;

/// The cube as a request gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CubeInput {
    /// The value (checked: a power of two up to 32768).
    pub value: i64,
    /// Who holds it.
    pub owner: CubeOwner,
    /// The player whose double, beaver or raccoon waits for an answer.
    pub offered_by: Option<Player>,
    /// Beavers and raccoons made on the pending double.
    pub beavers: i64,
    /// A resignation waiting for an answer.
    pub resignation: Option<Resignation>,
}

impl Default for CubeInput {
    fn default() -> Self {
        CubeInput {
            value: 1,
            owner: CubeOwner::Centre,
            offered_by: None,
            beavers: 0,
            resignation: None,
        }
    }
}

/// The match as a request gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MatchInput {
    /// Points to win; 0 is money play.
    pub length: i64,
    /// The score before this game.
    pub score: ByPlayer<i64>,
    /// This game is the Crawford game.
    pub crawford: bool,
}

/// Rule options as a request gives them; `None` is left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RulesInput {
    /// The Jacoby rule.
    pub jacoby: Option<bool>,
    /// Beavers and raccoons one double allows.
    pub beavers: Option<i64>,
    /// Tied opening rolls that double the centred cube.
    pub automatic_doubles: Option<i64>,
    /// The highest cube value.
    pub max_cube: Option<i64>,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndedBy {
    /// The winner bore off every checker.
    Bearoff,
    /// The loser passed the winner's double.
    Pass,
    /// The loser resigned and the winner accepted.
    Resign,
}

impl EndedBy {
    /// How `end` ended.
    pub fn of(end: &GameEnd) -> EndedBy {
        match end {
            GameEnd::BearOff { .. } => EndedBy::Bearoff,
            GameEnd::Pass { .. } => EndedBy::Pass,
            GameEnd::Resign { .. } => EndedBy::Resign,
        }
    }
}

/// A cube or resignation decision as a request names it (the level of a
/// resignation comes in its own field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionName {
    /// Offer a double.
    Double,
    /// Accept the pending double, beaver or raccoon.
    Take,
    /// Refuse it.
    Pass,
    /// Take and at once redouble.
    Beaver,
    /// Take a beaver and at once redouble.
    Raccoon,
    /// Offer to resign.
    Resign,
    /// Accept the opponent's resignation.
    Accept,
    /// Reject it.
    Reject,
}

/// Input of score-game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreInput {
    /// The variant of `position`.
    pub variant: Variant,
    /// How the game ended (required).
    pub ended_by: Option<EndedBy>,
    /// The finished position (required for a bear-off).
    pub position: Option<PositionInput>,
    /// The winner (required for a pass or a resignation).
    pub winner: Option<Player>,
    /// The level resigned (required for a resignation).
    pub resign_level: Option<GameResult>,
    /// The cube as the game ended.
    pub cube: Option<CubeInput>,
    /// The match before this game.
    pub match_state: Option<MatchInput>,
    /// Rule options.
    pub rules: Option<RulesInput>,
    /// gnubg Match ID instead of `cube` and `match`.
    pub match_id: Option<String>,
}

/// Input of resolve-cube.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CubeActionInput {
    /// The cube before the action.
    pub cube: Option<CubeInput>,
    /// The match.
    pub match_state: Option<MatchInput>,
    /// Rule options.
    pub rules: Option<RulesInput>,
    /// gnubg Match ID instead of `cube` and `match`.
    pub match_id: Option<String>,
    /// The player taking the action.
    pub player: Option<Player>,
    /// The action (required).
    pub action: Option<ActionName>,
    /// The level, with `resign`.
    pub resign_level: Option<GameResult>,
    /// The variant's name as given (`None`: standard); checked by
    /// [`input::read_variant`].
    pub variant: Option<String>,
}

/// A scored game with the Match IDs to carry on with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scored {
    /// The score.
    pub score: GameScore,
    /// Match ID of the next game (or, once the match is won, of this one).
    pub match_id: Option<String>,
    /// Match ID of this game as gnubg writes it when the game ends.
    pub game_match_id: Option<String>,
}

impl Scored {
    /// How the game ended.
    pub fn ended_by(&self) -> EndedBy {
        EndedBy::of(&self.score.end)
    }
}

/// The answer to a cube or resignation action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CubeAnswer {
    /// The rules refuse the action now.
    Refused {
        /// Stable slug.
        slug: &'static str,
        /// Why, as a lower-case sentence.
        reason: String,
    },
    /// Allowed; play goes on.
    Continue {
        /// The cube after the action.
        cube: CubeState,
        /// Who must answer a pending double or resignation.
        to_act: Option<Player>,
        /// Match ID of the state after the action.
        match_id: Option<String>,
    },
    /// Allowed, and it ended the game.
    GameOver(Scored),
}

/// Where a part of the state came from, so that an error names that field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Left out: the default.
    Default,
    /// The explicit `cube` or `match` object.
    Request,
    /// The `match_id`.
    MatchId,
    /// The XGID of `position`.
    Xgid,
}

impl Source {
    /// The field path of `part.sub` (`cube.value`) as given by this source.
    fn path(self, part: &str, sub: &str) -> String {
        match self {
            Source::MatchId => "match_id".to_owned(),
            Source::Xgid => "position.xgid".to_owned(),
            Source::Default | Source::Request if sub.is_empty() => part.to_owned(),
            Source::Default | Source::Request => format!("{part}.{sub}"),
        }
    }
}

/// The cube, match and rules of a request, with where each came from.
#[derive(Debug, Clone)]
struct Context {
    cube: CubeState,
    match_state: MatchState,
    rules: CubeRules,
    cube_source: Source,
    match_source: Source,
    /// The Match ID of the request, if it had one.
    match_id: Option<MatchId>,
}

impl Context {
    fn cube_field(&self, sub: &str) -> String {
        self.cube_source.path("cube", sub)
    }

    fn match_field(&self, sub: &str) -> String {
        self.match_source.path("match", sub)
    }

    /// An invalid state as a 400 naming the field at fault.
    fn state_error(&self, err: InvalidCubeState) -> ApiError {
        use InvalidCubeState as S;
        let (slug, field) = match err {
            S::Match(InvalidMatchState::MatchOver) => ("invalid-match", self.match_field("score")),
            S::Match(
                InvalidMatchState::CrawfordInMoneyPlay | InvalidMatchState::CrawfordNotOneAway,
            ) => ("invalid-match", self.match_field("crawford")),
            S::CubeAboveMaximum | S::CentredCubeTurned => {
                ("invalid-cube", self.cube_field("value"))
            }
            S::OwnedCubeAtOne => ("invalid-cube", self.cube_field("owner")),
            S::BeaversWithoutDouble | S::BeaverCountAboveLimit | S::BeaversAboveCube => {
                ("invalid-cube", self.cube_field("beavers"))
            }
            S::OfferByNonOwner => ("invalid-cube", self.cube_field("offered_by")),
            S::DoubleAndResignation => ("invalid-cube", self.cube_field("resignation")),
            S::CubeTurnedInCrawfordGame => ("invalid-cube", self.cube_field("")),
        };
        ApiError::invalid(slug, field, err)
    }

    /// Checks the state.
    fn validate(&self, cube: &CubeState) -> Result<(), ApiError> {
        cube.validate(&self.match_state, &self.rules)
            .map_err(|e| self.state_error(e))
    }

    /// Any [`CubeError`]: a refusal is a 422 with its slug, an invalid
    /// state a 400 with its field.
    fn error(&self, err: CubeError) -> ApiError {
        match err {
            CubeError::Refused(refusal) => ApiError::illegal(refusal.slug(), None, refusal),
            CubeError::InvalidState(state) => self.state_error(state),
        }
    }
}

fn cube_value(value: i64, field: String, slug: &'static str) -> Result<CubeValue, ApiError> {
    u64::try_from(value)
        .ok()
        .and_then(|v| CubeValue::try_from(v).ok())
        .ok_or_else(|| {
            ApiError::invalid(
                slug,
                field,
                format!("a cube value is a power of two from 1 to 32768, got {value}"),
            )
        })
}

fn small_count(value: i64, field: &str, slug: &'static str) -> Result<u8, ApiError> {
    u8::try_from(value).map_err(|_| {
        ApiError::invalid(
            slug,
            field,
            format!("{field} is a count from 0 to 255, got {value}"),
        )
    })
}

pub(crate) fn read_cube(cube: &CubeInput) -> Result<CubeState, ApiError> {
    Ok(CubeState {
        value: cube_value(cube.value, "cube.value".to_owned(), "invalid-cube")?,
        owner: cube.owner,
        offered_by: cube.offered_by,
        beavers: small_count(cube.beavers, "cube.beavers", "invalid-cube")?,
        resignation: cube.resignation,
    })
}

pub(crate) fn read_match(input: &MatchInput) -> Result<MatchState, ApiError> {
    let length = u32::try_from(input.length)
        .ok()
        .filter(|&n| n <= 32767)
        .ok_or_else(|| {
            ApiError::invalid(
                "invalid-match",
                "match.length",
                format!(
                    "a match length is 0 (money play) to 32767, got {}",
                    input.length
                ),
            )
        })?;
    let score = |value: i64, name: &str| {
        u32::try_from(value).map_err(|_| {
            ApiError::invalid(
                "invalid-match",
                format!("match.score.{name}"),
                format!("a score is a whole number from 0, got {value}"),
            )
        })
    };
    Ok(MatchState {
        length,
        score: ByPlayer {
            x: score(input.score.x, "x")?,
            o: score(input.score.o, "o")?,
        },
        crawford: input.crawford,
    })
}

fn read_match_id(text: &str) -> Result<MatchId, ApiError> {
    let id: MatchId = text
        .parse()
        .map_err(|e| ApiError::invalid("invalid-match-id", "match_id", e))?;
    let ended = match id.game_state {
        GameStatus::NoGame | GameStatus::Playing => return Ok(id),
        GameStatus::Over => "over (borne off)",
        GameStatus::Resigned => "resigned",
        GameStatus::Dropped => "dropped",
    };
    Err(ApiError::invalid(
        "invalid-match-id",
        "match_id",
        format!(
            "the match id is of a finished game (game state {ended}): its score already counts \
             that game; send the match id of the game in play, or the match_id returned by /score"
        ),
    ))
}

/// The rules: each option from `input`, else the Match ID (Jacoby), else
/// the XGID (Jacoby, beavers, maximum cube), else the default.
fn read_rules(
    input: Option<&RulesInput>,
    id: Option<&MatchId>,
    xgid: Option<&Xgid>,
) -> Result<CubeRules, ApiError> {
    let mut rules = xgid.map_or(CubeRules::DEFAULT, Xgid::cube_rules);
    if let Some(id) = id {
        rules.jacoby = id.jacoby;
    }
    let Some(input) = input else {
        return Ok(rules);
    };
    if let Some(jacoby) = input.jacoby {
        rules.jacoby = jacoby;
    }
    if let Some(beavers) = input.beavers {
        rules.beavers = small_count(beavers, "rules.beavers", "invalid-rules")?;
    }
    if let Some(automatic) = input.automatic_doubles {
        rules.automatic_doubles =
            small_count(automatic, "rules.automatic_doubles", "invalid-rules")?;
    }
    if let Some(max) = input.max_cube {
        rules.max_cube = cube_value(max, "rules.max_cube".to_owned(), "invalid-rules")?;
    }
    Ok(rules)
}

/// Rule options alone (no Match ID or XGID to take them from).
pub(crate) fn read_rules_only(input: Option<&RulesInput>) -> Result<CubeRules, ApiError> {
    read_rules(input, None, None)
}

/// The starting cube of a game whose opening roll tied `ties` times:
/// automatic doubles in money play (see [`CubeState::for_new_game`]).
pub(crate) fn starting_cube(
    ties: u32,
    match_input: Option<&MatchInput>,
    rules: Option<&RulesInput>,
) -> Result<CubeState, ApiError> {
    let match_state = match_input
        .map(read_match)
        .transpose()?
        .unwrap_or(MatchState::MONEY);
    match_state
        .validate()
        .map_err(|e| ApiError::invalid("invalid-match", "match", e))?;
    let rules = read_rules(rules, None, None)?;
    Ok(CubeState::for_new_game(ties, &match_state, &rules))
}

/// Reads the cube, match and rules of a request: `match_id` instead of
/// `cube` and `match`, and the XGID's fields for those left out.
fn read_context(
    cube: Option<&CubeInput>,
    match_input: Option<&MatchInput>,
    rules: Option<&RulesInput>,
    match_id: Option<&str>,
    xgid: Option<&Xgid>,
) -> Result<Context, ApiError> {
    let id = match match_id {
        None => None,
        Some(_) if cube.is_some() || match_input.is_some() => {
            return Err(ApiError::invalid(
                "invalid-request",
                "match_id",
                "give the cube and match either as match_id or as cube and match, not both",
            ));
        }
        Some(text) => Some(read_match_id(text)?),
    };
    let (cube, cube_source) = match (cube, &id, xgid) {
        (Some(cube), _, _) => (read_cube(cube)?, Source::Request),
        (None, Some(id), _) => (id.cube_state(), Source::MatchId),
        (None, None, Some(xgid)) => (xgid.cube_state(), Source::Xgid),
        (None, None, None) => (CubeState::START, Source::Default),
    };
    let (match_state, match_source) = match (match_input, &id, xgid) {
        (Some(input), _, _) => (read_match(input)?, Source::Request),
        (None, Some(id), _) => (id.match_state(), Source::MatchId),
        (None, None, Some(xgid)) => (xgid.match_state(), Source::Xgid),
        (None, None, None) => (MatchState::MONEY, Source::Default),
    };
    Ok(Context {
        cube,
        match_state,
        rules: read_rules(rules, id.as_ref(), xgid)?,
        cube_source,
        match_source,
        match_id: id,
    })
}

/// The scored game and its Match IDs; `cube` as the game ended.
fn scored(score: GameScore, cube: &CubeState, ctx: &Context) -> Scored {
    let game_match_id = MatchId::game_over(&score, cube, &ctx.match_state, &ctx.rules)
        .ok()
        .map(|id| id.to_string());
    // The next game has not started: no game state, and x on roll only as
    // a placeholder for the opening roll.
    let match_id = match score.match_outcome.next_state() {
        Some(next) => MatchId::new(&CubeState::START, &next, &ctx.rules, Player::X)
            .ok()
            .map(|id| {
                MatchId {
                    game_state: GameStatus::NoGame,
                    ..id
                }
                .to_string()
            }),
        None => game_match_id.clone(),
    };
    Scored {
        score,
        match_id,
        game_match_id,
    }
}

fn not_allowed<T>(value: &Option<T>, field: &str, why: &str) -> Result<(), ApiError> {
    match value {
        Some(_) => Err(ApiError::invalid("invalid-request", field, why)),
        None => Ok(()),
    }
}

/// Scores a game that ended by bearing off, by a dropped double or by an
/// accepted resignation.
pub fn score_game(req: &ScoreInput) -> Result<Scored, ApiError> {
    let variant = input::backgammon_only(req.variant, "this scoring")?;
    let read = req
        .position
        .as_ref()
        .map(|p| input::position(p, variant, "position"))
        .transpose()?;
    let ctx = read_context(
        req.cube.as_ref(),
        req.match_state.as_ref(),
        req.rules.as_ref(),
        req.match_id.as_deref(),
        read.as_ref().and_then(|r| r.xgid.as_ref()),
    )?;
    ctx.match_state
        .validate()
        .map_err(|e| ctx.state_error(e.into()))?;
    let ended_by = required(
        req.ended_by,
        "ended_by",
        "ended_by is required: bearoff, pass or resign",
    )?;
    let outcome = read.as_ref().and_then(|r| r.position.outcome());
    let mut cube = ctx.cube;
    let end = match ended_by {
        EndedBy::Bearoff => {
            let read = required(
                read.as_ref(),
                "position",
                "ended_by bearoff needs the finished position",
            )?;
            not_allowed(
                &req.resign_level,
                "resign_level",
                "resign_level goes only with ended_by resign",
            )?;
            let Some(outcome) = outcome else {
                let setup = read.position.to_setup();
                return Err(ApiError::illegal(
                    "game-not-over",
                    Some("position"),
                    format!(
                        "the game is not over: neither player has borne off every checker \
                         (x has {} left, o {})",
                        setup.on_board(Player::X),
                        setup.on_board(Player::O)
                    ),
                ));
            };
            if let Some(winner) = req.winner
                && winner != outcome.winner
            {
                return Err(ApiError::invalid(
                    "invalid-request",
                    "winner",
                    format!(
                        "the position shows {} has borne off every checker, not {}",
                        outcome.winner, winner
                    ),
                ));
            }
            if cube.offered_by.is_some() {
                return Err(ApiError::invalid(
                    "invalid-cube",
                    ctx.cube_field("offered_by"),
                    "a game that ended by bearing off has no double pending",
                ));
            }
            cube.resignation = None;
            GameEnd::BearOff {
                winner: outcome.winner,
                result: outcome.result,
            }
        }
        EndedBy::Pass | EndedBy::Resign => {
            if let Some(outcome) = outcome {
                return Err(ApiError::illegal(
                    "game-over",
                    Some("position"),
                    format!(
                        "the position is over ({} has borne off every checker): score it with \
                         ended_by bearoff",
                        outcome.winner
                    ),
                ));
            }
            let winner = required(
                req.winner,
                "winner",
                "ended_by pass and resign need the winner",
            )?;
            if ended_by == EndedBy::Pass {
                pass_end(&ctx, &mut cube, winner, req.resign_level)?
            } else {
                resign_end(&ctx, &mut cube, winner, req.resign_level)?
            }
        }
    };
    ctx.validate(&cube)?;
    let score = bgref_core::score_game(end, &cube, &ctx.match_state, &ctx.rules)
        .map_err(|e| ctx.error(e))?;
    Ok(scored(score, &cube, &ctx))
}

/// A pass: the winner is the player whose double waits; no doubling in
/// the Crawford game.
fn pass_end(
    ctx: &Context,
    cube: &mut CubeState,
    winner: Player,
    level: Option<GameResult>,
) -> Result<GameEnd, ApiError> {
    not_allowed(
        &level,
        "resign_level",
        "resign_level goes only with ended_by resign",
    )?;
    if ctx.match_state.crawford {
        return Err(ctx.error(CubeRefusal::CrawfordGame.into()));
    }
    match cube.offered_by {
        None if !cube.owner.is_available_to(winner) => {
            return Err(ApiError::invalid(
                "invalid-request",
                "winner",
                format!(
                    "{winner} cannot have doubled: the cube is {}'s (give the winner of the pass, \
                     the player whose double was refused)",
                    !winner
                ),
            ));
        }
        None => cube.offered_by = Some(winner),
        Some(doubler) if doubler == winner => {}
        Some(doubler) => {
            return Err(ApiError::invalid(
                "invalid-request",
                "winner",
                format!(
                    "a pass is won by the player whose double was refused: the double was \
                     offered by {doubler}, not {winner}"
                ),
            ));
        }
    }
    Ok(GameEnd::Pass { winner })
}

/// An accepted resignation: by the loser, at `level`.
fn resign_end(
    ctx: &Context,
    cube: &mut CubeState,
    winner: Player,
    level: Option<GameResult>,
) -> Result<GameEnd, ApiError> {
    let level = required(
        level,
        "resign_level",
        "ended_by resign needs resign_level: single, gammon or backgammon",
    )?;
    let offered = Resignation { by: !winner, level };
    match cube.resignation {
        None => cube.resignation = Some(offered),
        Some(pending) if pending == offered => {}
        Some(pending) => {
            return Err(ApiError::invalid(
                "invalid-request",
                ctx.cube_field("resignation"),
                format!(
                    "the pending resignation is {} resigning {}, but the request scores {} \
                     resigning {}",
                    pending.by, pending.level, offered.by, offered.level
                ),
            ));
        }
    }
    Ok(GameEnd::Resign { winner, level })
}

fn action_in(action: ActionName, level: Option<GameResult>) -> Result<CubeAction, ApiError> {
    if action != ActionName::Resign {
        not_allowed(
            &level,
            "resign_level",
            "resign_level goes only with action resign",
        )?;
    }
    Ok(match action {
        ActionName::Double => CubeAction::Double,
        ActionName::Take => CubeAction::Take,
        ActionName::Pass => CubeAction::Pass,
        ActionName::Beaver => CubeAction::Beaver,
        ActionName::Raccoon => CubeAction::Raccoon,
        ActionName::Resign => CubeAction::Resign(required(
            level,
            "resign_level",
            "action resign needs resign_level: single, gammon or backgammon",
        )?),
        ActionName::Accept => CubeAction::Accept,
        ActionName::Reject => CubeAction::Reject,
    })
}

fn refused(slug: &'static str, reason: impl ToString) -> CubeAnswer {
    CubeAnswer::Refused {
        slug,
        reason: reason.to_string(),
    }
}

/// Whether `player` may take `action` now, and what follows: the new cube,
/// or the scored game after a pass or an accepted resignation. A refusal
/// is an answer, not an error.
pub fn resolve_cube(req: &CubeActionInput) -> Result<CubeAnswer, ApiError> {
    let variant = input::read_variant(req.variant.as_deref())?;
    if !variant.uses_cube() {
        return Ok(refused(
            "no-cube-in-variant",
            format!(
                "{variant} is played without the doubling cube: there is no double, take, pass, \
                 beaver or raccoon, and no resignation at a cube value"
            ),
        ));
    }
    let ctx = read_context(
        req.cube.as_ref(),
        req.match_state.as_ref(),
        req.rules.as_ref(),
        req.match_id.as_deref(),
        None,
    )?;
    ctx.validate(&ctx.cube)?;
    let player = match (req.player, &ctx.match_id) {
        (Some(player), _) => player,
        (None, Some(id)) if id.game_state == GameStatus::Playing => id.turn,
        (None, _) => {
            return Err(ApiError::invalid(
                "invalid-request",
                "player",
                "player is required (x or o) unless the match_id of a game in play says whose \
                 turn it is",
            ));
        }
    };
    let action = action_in(
        required(
            req.action,
            "action",
            "action is required: double, take, pass, beaver, raccoon, resign, accept or reject",
        )?,
        req.resign_level,
    )?;
    // A Match ID also says whether a game is on, who is on roll and whether
    // the dice are rolled: a double is offered by the player on roll,
    // before rolling, in a game in progress.
    if let Some(id) = &ctx.match_id
        && action == CubeAction::Double
    {
        if id.game_state == GameStatus::NoGame {
            return Ok(refused(
                "no-game",
                "no game is in progress: a game starts with the opening roll, which is \
                 played at once; no double comes before it",
            ));
        }
        if id.turn == id.on_roll && player != id.on_roll {
            return Ok(refused(
                "not-your-turn",
                format!(
                    "it is {}'s turn: only the player on roll may double",
                    id.on_roll
                ),
            ));
        }
    }
    let outcome = match ctx.cube.apply(player, action, &ctx.match_state, &ctx.rules) {
        Ok(outcome) => outcome,
        Err(CubeError::Refused(refusal)) => return Ok(refused(refusal.slug(), refusal)),
        Err(CubeError::InvalidState(state)) => return Err(ctx.state_error(state)),
    };
    if let (CubeAction::Double, Some(id)) = (action, &ctx.match_id)
        && id.dice.is_some()
    {
        return Ok(refused(
            "dice-rolled",
            "the dice are rolled: a double is offered before rolling",
        ));
    }
    match outcome {
        CubeOutcome::Continue(next) => {
            // The player on roll: as the Match ID says; without one, who
            // doubled (the decision is pending, or was just taken), or who
            // resigned (pending, or just rejected).
            let on_roll = ctx.match_id.map(|id| id.on_roll).unwrap_or_else(|| {
                next.original_doubler()
                    .or(ctx.cube.original_doubler())
                    .or(next.resignation.map(|r| r.by))
                    .or(ctx.cube.resignation.map(|r| r.by))
                    .unwrap_or(player)
            });
            let match_id = MatchId::new(&next, &ctx.match_state, &ctx.rules, on_roll)
                .ok()
                .map(|id| {
                    MatchId {
                        dice: ctx.match_id.and_then(|given| given.dice),
                        ..id
                    }
                    .to_string()
                });
            Ok(CubeAnswer::Continue {
                to_act: next.to_act(),
                cube: next,
                match_id,
            })
        }
        CubeOutcome::GameOver(score) => Ok(CubeAnswer::GameOver(scored(score, &ctx.cube, &ctx))),
    }
}

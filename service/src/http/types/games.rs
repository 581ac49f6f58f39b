//! `POST /games`, `POST /games/act`, `POST /games/verify`.

use bgref_core::Player;
use bgref_core::tables::OutcomeKind;
use bgref_core::tables::{TablesScore, TablesSeries};
use bgref_core::{ByPlayer, GameKind, GameResult, Phase, Score};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::common::{PerPlayer, PlayerName, PositionInput, PositionOutput, VariantName};
use super::cube::{Cube, GameKindName, GameResultName, MatchInput, RulesInput, ScoreGameResponse};
use super::dice::RollResponse;
use super::moves::{LegalPlayOutput, PlayInput};
use super::tables::OutcomeName;
use crate::api::games::{
    ActInput, Acted, ActionInput, ActionKind, EventKind, Exported, GameView, Happened, MatchLabels,
    NewGameInput, Started, StepInput, TranscriptInput, Verdict,
};
use crate::api::input;
use crate::api::moves::PlayInput as ApiPlay;
use crate::api::tables::TablesView;
use crate::error::ApiError;

/// Request of `POST /games`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"match_id": "club-42-final", "client_seed": "alice:bob",
    "match": {"length": 5}}))]
pub struct NewGameRequest {
    /// The match the dice are bound to: 1 to 128 bytes of UTF-8, no control
    /// characters.
    #[schema(min_length = 1, max_length = 128)]
    pub match_id: String,
    /// The players' seed, fixed for the whole match: 0 to 256 bytes.
    #[serde(default)]
    #[schema(max_length = 256)]
    pub client_seed: String,
    /// The variant (default `standard`); every variant is served, the
    /// tables games without the cube (`docs/variants.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// A Tavli match: Portes, Plakoto and Fevga in rotation, no cube
    /// (leave `variant` out; `match.length` is required).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tavli: bool,
    /// Rule options of the tables games where sources disagree (default:
    /// the most common rules; refused for the backgammon variants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables_rules: Option<super::rules::TablesRulesObject>,
    /// The match (default: money play, a session of games; the tables
    /// games have no Crawford rule).
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub match_state: Option<MatchInput>,
    /// Rule options (Jacoby, beavers, automatic doubles, maximum cube);
    /// not for the tables games (`no-cube-in-variant`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesInput>,
    /// The players' names, written into `/games/export` (default `x` and
    /// `o`): 1 to 31 bytes each, without `:`, `"`, control characters or
    /// white space at either end (400 `invalid-label`). A label: not in
    /// the token (docs/referee.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Players>,
    /// The event, written into `/games/export`: 1 to 64 bytes without `"`
    /// or control characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 64)]
    pub event: Option<String>,
    /// The event's date, `YYYY-MM-DD`, written into `/games/export`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = Date, example = "2026-12-06")]
    pub date: Option<String>,
    /// The round, written into `/games/export`: as `event`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 64)]
    pub round: Option<String>,
    /// A set position the first game begins from (a lesson, a puzzle, an
    /// adjourned match), in one encoding as `/legal-moves` takes it (an
    /// XGID without dice; the tables games without an XGID). The player on roll
    /// rolls or doubles first, with the referee's dice; later games start
    /// as usual. The match is marked set up in every token and view
    /// (`set_up`), and `/games/export` refuses it (docs/referee.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<PositionInput>,
    /// The set position's cube, `value` and `owner` (default: the XGID's,
    /// else centred); no double or resignation may wait for an answer.
    /// Only with `position`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cube: Option<Cube>,
    /// The referee clock (default: untimed): a match only, every ruleset
    /// (docs/referee.md, "The clock").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockRequest>,
}

/// A referee clock: a preset, or each player's reserve and the delay.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"preset": "us-2013"}))]
pub struct ClockRequest {
    /// The reserve from the match length and score and the preset's delay:
    /// `us-2013` (U.S. Backgammon Clock Rules, March 2013: 2 minutes per
    /// match point less 1 per point already scored, 12 s delay) or
    /// `unified-2001` (Unified Clock Rules, February 2001: 6 minutes per
    /// point less 3 per point already scored, no delay). Not with
    /// `reserve_ms` or `delay_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<ClockPresetName>)]
    pub preset: Option<String>,
    /// Each player's reserve, in milliseconds (without `preset`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 604_800_000)]
    pub reserve_ms: Option<u64>,
    /// The free time at the start of each period, in milliseconds
    /// (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 600_000)]
    pub delay_ms: Option<u64>,
    /// The USBGF's optional overtime, with a preset or not: once in the
    /// match, a player whose reserve runs out gets this much more instead
    /// of losing, in milliseconds (default 0: none; the USBGF's options
    /// are 60000 and 120000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 600_000)]
    pub overtime_ms: Option<u64>,
}

/// A clock preset (gRPC `ClockPreset`: `CLOCK_PRESET_US_2013`, `CLOCK_PRESET_UNIFIED_2001`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum ClockPresetName {
    /// U.S. Backgammon Clock Rules and Procedures, March 2013.
    #[serde(rename = "us-2013")]
    Us2013,
    /// Unified Backgammon Tournament Clock Rules, February 2001.
    #[serde(rename = "unified-2001")]
    Unified2001,
}

/// The referee clock of a clocked match. Times are the referee's, Unix
/// milliseconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ClockState {
    /// Each player's reserve left; the running player's as its period
    /// began (its time left now: `deadline_ms` minus now).
    pub reserve_ms: PerPlayer,
    /// The free time at the start of each period.
    pub delay_ms: u32,
    /// Each player's overtime still to come (the request's `overtime_ms`
    /// until the player's reserve first runs out, then 0); `deadline_ms`
    /// counts it.
    pub overtime_ms: PerPlayer,
    /// Whose time runs (null: nobody's; either player may act, or the
    /// match is over).
    #[schema(value_type = Option<PlayerName>)]
    pub running: Option<Player>,
    /// When the running player's period began.
    pub since_ms: Option<u64>,
    /// When the running player's reserve runs out: an action of it after
    /// that loses the match, and the opponent may `claim_time`.
    pub deadline_ms: Option<u64>,
    /// The time of the action (or the start) that made this state: a
    /// transcript's `at_ms` (its `started_at_ms` for the start).
    pub at_ms: u64,
    /// Whose reserve ran out: the match is over and the opponent won it.
    #[schema(value_type = Option<PlayerName>)]
    pub expired: Option<Player>,
}

impl From<&crate::api::games::Clock> for ClockState {
    fn from(c: &crate::api::games::Clock) -> Self {
        ClockState {
            reserve_ms: PerPlayer {
                x: i64::from(c.reserve_ms.x),
                o: i64::from(c.reserve_ms.o),
            },
            delay_ms: c.delay_ms,
            overtime_ms: PerPlayer {
                x: i64::from(c.overtime_ms.x),
                o: i64::from(c.overtime_ms.o),
            },
            running: c.running,
            since_ms: c.running.map(|_| c.since_ms),
            deadline_ms: c.deadline_ms(),
            at_ms: c.at_ms,
            expired: c.expired,
        }
    }
}

/// The players' names.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Players {
    /// x's name.
    #[schema(min_length = 1, max_length = 31)]
    pub x: String,
    /// o's name.
    #[schema(min_length = 1, max_length = 31)]
    pub o: String,
}

/// What is due in a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PhaseName {
    /// The opening roll (either player asks `roll`).
    OpeningRoll,
    /// The player on roll rolls, doubles or resigns.
    RollOrDouble,
    /// The doubled player takes, passes or beavers (the doubler: raccoon).
    AnswerDouble,
    /// The player on roll moves (or resigns).
    Move,
    /// The opponent accepts or rejects the resignation.
    AnswerResignation,
    /// The game is over: either player asks `next_game`.
    GameOver,
    /// The match is over.
    MatchOver,
}

impl From<Phase> for PhaseName {
    fn from(phase: Phase) -> Self {
        match phase {
            Phase::OpeningRoll => PhaseName::OpeningRoll,
            Phase::RollOrDouble => PhaseName::RollOrDouble,
            Phase::AnswerDouble => PhaseName::AnswerDouble,
            Phase::Move => PhaseName::Move,
            Phase::AnswerResignation => PhaseName::AnswerResignation,
            Phase::GameOver => PhaseName::GameOver,
            Phase::MatchOver => PhaseName::MatchOver,
        }
    }
}

/// A player's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameActionName {
    /// Roll the dice (also the opening roll).
    Roll,
    /// Offer a double, before rolling.
    Double,
    /// Take the double.
    Take,
    /// Pass (drop) it: the game ends.
    #[serde(alias = "drop")]
    Pass,
    /// Take and redouble at once (money play).
    Beaver,
    /// Take a beaver and redouble at once (money play).
    Raccoon,
    /// Move: with `play`.
    Move,
    /// Offer to resign: with `level`.
    Resign,
    /// Accept the resignation.
    Accept,
    /// Reject it.
    Reject,
    /// Start the next game of the match.
    NextGame,
    /// A clocked match: claim it once the opponent's reserve ran out
    /// (after the view's `clock.deadline_ms`).
    ClaimTime,
}

impl From<ActionKind> for GameActionName {
    fn from(kind: ActionKind) -> Self {
        match kind {
            ActionKind::Roll => GameActionName::Roll,
            ActionKind::Double => GameActionName::Double,
            ActionKind::Take => GameActionName::Take,
            ActionKind::Pass => GameActionName::Pass,
            ActionKind::Beaver => GameActionName::Beaver,
            ActionKind::Raccoon => GameActionName::Raccoon,
            ActionKind::Move => GameActionName::Move,
            ActionKind::Resign => GameActionName::Resign,
            ActionKind::Accept => GameActionName::Accept,
            ActionKind::Reject => GameActionName::Reject,
            ActionKind::NextGame => GameActionName::NextGame,
        }
    }
}

fn action_input(
    action: Option<GameActionName>,
    play: Option<PlayInput>,
    level: Option<GameResult>,
) -> Option<ActionInput> {
    let play = play.map(|p| match p {
        PlayInput::Notation(text) => ApiPlay::Notation(text),
        PlayInput::Moves(list) => ApiPlay::Moves(list.iter().map(|m| (m.from, m.to)).collect()),
    });
    let action = match action? {
        GameActionName::Roll => ActionInput::Roll,
        GameActionName::Double => ActionInput::Double,
        GameActionName::Take => ActionInput::Take,
        GameActionName::Pass => ActionInput::Pass,
        GameActionName::Beaver => ActionInput::Beaver,
        GameActionName::Raccoon => ActionInput::Raccoon,
        GameActionName::Move => ActionInput::Move(None),
        GameActionName::Resign => ActionInput::Resign(None),
        GameActionName::Accept => ActionInput::Accept,
        GameActionName::Reject => ActionInput::Reject,
        GameActionName::NextGame => ActionInput::NextGame,
        GameActionName::ClaimTime => ActionInput::ClaimTime,
    };
    Some(action.with_fields(play, level))
}

/// Request of `POST /games/act`. (Its OpenAPI example, in
/// `http/examples.json`, carries a real token and seat of the example
/// server; a caller's come from this service's last answer.)
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
pub struct ActRequest {
    /// The state token of the last answer.
    #[schema(max_length = 2048)]
    pub state: String,
    /// The acting player's seat (required): its entry of the `seats` the
    /// POST /games answer gave (a missing or wrong seat: 401
    /// `invalid-seat`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = String, required = true, min_length = 32, max_length = 32)]
    pub seat: Option<String>,
    /// The player acting (optional: the seat says who acts; if given it
    /// must be the seat's player, else 403 `not-your-seat`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = PlayerName)]
    pub player: Option<Player>,
    /// The action (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = GameActionName, required = true)]
    pub action: Option<GameActionName>,
    /// With `move` only: the play, in notation or as moves (given with any
    /// other action: 400 `invalid-request`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = super::schema::play)]
    pub play: Option<PlayInput>,
    /// With `resign` only: single, gammon or backgammon (given with any
    /// other action: 400 `invalid-request`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<GameResultName>)]
    pub level: Option<GameResult>,
    /// If given, the match the token must belong to (`wrong-match` else).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// What each legal play of the answer's view carries besides its
    /// notation, as in `POST /legal-moves`: any of `moves`, `position_id`,
    /// `xgid`, `board`, `fibs`, `pips` (default: all); a play's position
    /// carries its `gnubg_match_id` whenever it is there. An unknown name
    /// or an empty list is a 400 `invalid-fields`; Plakoto, Fevga and Long
    /// Nardy refuse it. The answer's own position is always in full.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<super::moves::PlayField>>, min_items = 1)]
    pub fields: Option<Vec<String>>,
    /// Sign the receipt of the roll this action makes (the answer's
    /// `roll.signature`, Ed25519 by the key `/dice/keys` publishes). By
    /// default the receipt comes unsigned: a signature costs more than the
    /// rest of the roll, and the finished game's signed token covers every
    /// roll of the game (docs/referee.md, "The dice"). An action that rolls
    /// nothing ignores it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sign_roll: bool,
}

/// One action of a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
pub struct TranscriptStep {
    /// The player acting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = PlayerName, required = true)]
    pub player: Option<Player>,
    /// The action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = GameActionName, required = true)]
    pub action: Option<GameActionName>,
    /// With `move` only (with any other action: 400 `invalid-request`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = super::schema::play)]
    pub play: Option<PlayInput>,
    /// With `resign` only (with any other action: 400 `invalid-request`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<GameResultName>)]
    pub level: Option<GameResult>,
    /// A clocked match: the referee's time of the action (its answer's
    /// `view.clock.at_ms`); required there, refused elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<u64>,
}

/// Request of `POST /games/verify`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"start": {"match_id": "club-42-final", "client_seed": "alice:bob",
    "match": {"length": 5}}, "actions": [{"player": "x", "action": "roll"}]}))]
pub struct VerifyGameRequest {
    /// The new game the transcript starts from.
    pub start: NewGameRequest,
    /// Every action since, in order (at most 20000).
    #[schema(max_items = 20000)]
    pub actions: Vec<TranscriptStep>,
    /// The last state token the players hold, to compare with the replay's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// A clocked match: the referee's time of its start (the `POST /games`
    /// answer's `view.clock.at_ms`); required there, refused elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at_ms: Option<u64>,
}

/// Request of `POST /games/export`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"start": {"match_id": "club-42-final", "client_seed": "alice:bob",
    "match": {"length": 5}}, "actions": [{"player": "x", "action": "roll"}]}))]
pub struct ExportGameRequest {
    /// The new game the transcript starts from.
    pub start: NewGameRequest,
    /// Every action since, in order (at most 20000).
    #[schema(max_items = 20000)]
    pub actions: Vec<TranscriptStep>,
    /// As in `POST /games/verify`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at_ms: Option<u64>,
}

/// Response of `POST /games/export`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ExportGameResponse {
    /// The format of the export (gRPC `ExportFormat`).
    pub format: ExportFormat,
    /// The Jellyfish `.mat` match text that GNU Backgammon's `import mat`
    /// reads (players `x` and `o`; money play as a 0-point match).
    pub mat: String,
    /// Actions replayed.
    pub actions: usize,
}

/// The format of an exported match (gRPC `ExportFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// The Jellyfish `.mat` match text, in `mat`.
    Mat,
}

impl ExportGameRequest {
    /// The transport-free input.
    pub fn into_input(self) -> Result<TranscriptInput, ApiError> {
        VerifyGameRequest {
            start: self.start,
            actions: self.actions,
            state: None,
            started_at_ms: self.started_at_ms,
        }
        .into_input()
    }
}

impl From<&Exported> for ExportGameResponse {
    fn from(e: &Exported) -> Self {
        ExportGameResponse {
            format: ExportFormat::Mat,
            mat: e.mat.clone(),
            actions: e.actions,
        }
    }
}

impl NewGameRequest {
    /// The transport-free input.
    pub fn into_input(self) -> Result<NewGameInput, ApiError> {
        Ok(NewGameInput {
            match_id: self.match_id,
            client_seed: self.client_seed,
            variant: input::read_variant(self.variant.as_deref())?,
            tavli: self.tavli,
            tables_rules: self.tables_rules.map(Into::into),
            match_state: self.match_state.map(Into::into),
            rules: self.rules.map(Into::into),
            labels: MatchLabels {
                players: self.players.map(|p| ByPlayer { x: p.x, o: p.o }),
                event: self.event,
                date: self.date,
                round: self.round,
            },
            position: self.position.map(Into::into),
            cube: self.cube.map(Into::into),
            clock: self
                .clock
                .map(|c| {
                    crate::api::games::ClockInput::read(
                        c.preset.as_deref(),
                        c.reserve_ms,
                        c.delay_ms,
                        c.overtime_ms,
                    )
                })
                .transpose()?,
        })
    }
}

impl From<ActRequest> for ActInput {
    fn from(req: ActRequest) -> Self {
        ActInput {
            state: req.state,
            player: req.player,
            action: action_input(req.action, req.play, req.level),
            match_id: req.match_id,
            seat: req.seat,
            fields: req.fields,
            sign_roll: req.sign_roll,
        }
    }
}

impl VerifyGameRequest {
    /// The transport-free input.
    pub fn into_input(self) -> Result<TranscriptInput, ApiError> {
        Ok(TranscriptInput {
            start: self.start.into_input().map_err(|e| e.within("start"))?,
            actions: self
                .actions
                .into_iter()
                .map(|s| StepInput {
                    player: s.player,
                    action: action_input(s.action, s.play, s.level),
                    at_ms: s.at_ms,
                })
                .collect(),
            state: self.state,
            started_at_ms: self.started_at_ms,
        })
    }
}

/// The match around the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GameMatch {
    /// Points to win; 0 is money play.
    pub length: u32,
    /// The score before this game.
    pub score: PerPlayer,
    /// This game is the Crawford game.
    pub crawford: bool,
    /// Normal, Crawford or post-Crawford.
    #[schema(value_type = GameKindName)]
    pub game_kind: GameKind,
}

/// The match of a tables game (Portes, Tavla, Plakoto, Fevga, Long
/// Nardy) or a Tavli match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TablesMatchOutput {
    /// Portes, Plakoto and Fevga in rotation (`variant` is the game of
    /// the rotation played now).
    pub tavli: bool,
    /// Games played, draws included: those before this one, and this one
    /// too once it is over (`game_over`, `match_over`).
    pub games_played: u32,
    /// Who starts the next game: the last game's winner (this game's once
    /// it is over; null: an opening roll decides).
    #[schema(value_type = Option<PlayerName>)]
    pub next_starter: Option<Player>,
}

/// How a tables game ended, and the match after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TablesGameScoreOutput {
    /// The game that ended.
    #[schema(value_type = VariantName)]
    pub game: String,
    /// The winner; left out for a draw (Plakoto, both mothers pinned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PlayerName>)]
    pub winner: Option<Player>,
    /// How it ended (a resignation: `single` for 1 point, `double` for 2).
    #[schema(value_type = OutcomeName)]
    pub outcome: OutcomeKind,
    /// Portes and Tavla borne off: the result on the board; a
    /// resignation: the level resigned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<GameResultName>)]
    pub result: Option<GameResult>,
    /// The game ended by an accepted resignation.
    pub resigned: bool,
    /// Points won (no cube): 1 or 2, 0 for a draw.
    pub points: u32,
    /// The match score after the game.
    pub match_score: PerPlayer,
    /// The match winner, once a player reached the length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PlayerName>)]
    pub match_winner: Option<Player>,
}

impl From<&TablesScore> for TablesGameScoreOutput {
    fn from(s: &TablesScore) -> Self {
        TablesGameScoreOutput {
            game: s.game.to_string(),
            winner: s.winner,
            outcome: s.kind,
            result: s.result,
            resigned: s.resigned,
            points: s.points,
            match_score: s.match_after.score.into(),
            match_winner: s.match_after.winner(),
        }
    }
}

/// Everything an app shows about a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GameViewOutput {
    /// The match id.
    pub match_id: String,
    /// The variant.
    #[schema(value_type = VariantName)]
    pub variant: String,
    /// The game number, from 1.
    pub game: u32,
    /// The turn: 0 is the opening roll, each later roll adds one.
    pub turn: u32,
    /// What is due.
    pub phase: PhaseName,
    /// The player on roll.
    #[schema(value_type = PlayerName)]
    pub on_roll: Player,
    /// Who must act; null when either may (opening roll, next game) or
    /// nobody (match over).
    #[schema(value_type = Option<PlayerName>)]
    pub to_act: Option<Player>,
    /// The actions `to_act` (either player when null) may take now, as
    /// the rules decide them: e.g. `["take", "pass", "beaver"]`; empty
    /// once the match is over.
    pub actions: Vec<GameActionName>,
    /// The position, the player on roll as its turn (Plakoto, Fevga and
    /// Long Nardy: their own encodings, as `/legal-moves` answers them).
    /// On the backgammon board every string describes the whole state:
    /// the XGID, FIBS board and `gnubg_match_id` carry the cube and its
    /// owner, the dice of the move due, the match length, the score
    /// before this game, the Crawford flag and the player on roll.
    pub position: PositionOutput,
    /// This turn's dice, once rolled.
    #[schema(schema_with = super::schema::dice_or_null)]
    pub dice: Option<[u8; 2]>,
    /// The cube (and a pending double or resignation); the tables games:
    /// always the centred 1, with a pending resignation.
    pub cube: Cube,
    /// Whether the player on roll may double now.
    pub may_double: bool,
    /// The match.
    #[serde(rename = "match")]
    pub match_state: GameMatch,
    /// The legal plays, when a move is due (empty otherwise).
    pub plays: Vec<LegalPlayOutput>,
    /// The last game's score, once a game is over (backgammon variants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ScoreGameResponse>,
    /// The tables games: the match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<TablesMatchOutput>,
    /// The tables games: the last game's score, once a game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables_result: Option<TablesGameScoreOutput>,
    /// The match began from a set position (`position` of `POST /games`),
    /// not from its start; left out otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub set_up: bool,
    /// The referee clock of a clocked match; left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockState>,
    /// Once the match is over, its winner: by the points, or on time
    /// (`clock.expired`'s opponent); left out before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PlayerName>)]
    pub match_winner: Option<Player>,
}

/// A game: the token and what it shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GameResponse {
    /// The state token to send with the next action (base64url; sealed with a MAC, and signed once the game is over: docs/referee.md).
    pub state: String,
    /// What the state shows.
    pub view: GameViewOutput,
    /// The players' seats: one secret capability each, to send as `seat`
    /// with that player's actions. Hand each player only its own.
    pub seats: SeatsOutput,
}

/// The seats of a match (docs/referee.md, "Seats"): 32 base64url
/// characters each. Secrets: never log them.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatsOutput {
    /// x's seat.
    pub x: String,
    /// o's seat.
    pub o: String,
}

impl std::fmt::Debug for SeatsOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SeatsOutput { <redacted> }")
    }
}

/// The kind of an event (gRPC `GameEventKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameEventKind {
    /// The opening roll: `player` starts with `dice`, after `ties` tied
    /// throws.
    OpeningRoll,
    /// The tables games: the opening dice (`[x, o]`) pick the starter
    /// (`player`), who then rolls.
    StarterChosen,
    /// A roll (`passed` when no play was legal: the turn passed).
    Rolled,
    /// A double offered.
    Doubled,
    /// A double taken and redoubled at once (a beaver).
    Beavered,
    /// A beaver taken and redoubled at once (a raccoon).
    Raccooned,
    /// The double, beaver or raccoon taken.
    Taken,
    /// The double, beaver or raccoon passed (dropped) by `player`: the game
    /// is over (`game_over`).
    Dropped,
    /// A play (`play`).
    Moved,
    /// A resignation offered, at `level`.
    Resigned,
    /// The resignation rejected.
    Rejected,
    /// The resignation accepted: the game is over and `player` won.
    GameEnded,
    /// A new game began (`game`; the tables games: `player` is its starter,
    /// when the last game had a winner).
    NewGame,
    /// `player`'s reserve ran out (an action after its deadline, or the
    /// opponent's `claim_time`): the match is over and the opponent won it.
    TimeExpired,
}

impl From<EventKind> for GameEventKind {
    fn from(kind: EventKind) -> Self {
        match kind {
            EventKind::OpeningRoll => GameEventKind::OpeningRoll,
            EventKind::StarterChosen => GameEventKind::StarterChosen,
            EventKind::Rolled => GameEventKind::Rolled,
            EventKind::Doubled => GameEventKind::Doubled,
            EventKind::Beavered => GameEventKind::Beavered,
            EventKind::Raccooned => GameEventKind::Raccooned,
            EventKind::Taken => GameEventKind::Taken,
            EventKind::Dropped => GameEventKind::Dropped,
            EventKind::Moved => GameEventKind::Moved,
            EventKind::Resigned => GameEventKind::Resigned,
            EventKind::Rejected => GameEventKind::Rejected,
            EventKind::GameEnded => GameEventKind::GameEnded,
            EventKind::NewGame => GameEventKind::NewGame,
            EventKind::TimeExpired => GameEventKind::TimeExpired,
        }
    }
}

/// What an action did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GameEvent {
    /// What happened.
    pub kind: GameEventKind,
    /// Who acted (the starter for the opening roll, the player who dropped,
    /// the winner when a resignation was accepted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PlayerName>)]
    pub player: Option<Player>,
    /// The roll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice: Option<[u8; 2]>,
    /// A roll with no legal play: the turn passed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub passed: bool,
    /// The play, in gnubg notation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub play: Option<String>,
    /// The level resigned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<GameResultName>)]
    pub level: Option<GameResult>,
    /// Tied opening throws.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ties: Option<u32>,
    /// The new game's number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<u32>,
}

/// Response of `POST /games/act`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ActResponse {
    /// The new state token.
    pub state: String,
    /// What it shows.
    pub view: GameViewOutput,
    /// What the action did.
    pub event: GameEvent,
    /// For a roll, its receipt (signed when the action set `sign_roll`,
    /// checkable with `GET /dice/keys`; checkable against the seed once
    /// revealed; the opening roll's dice are `[x_die, o_die]` at turn 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roll: Option<RollResponse>,
    /// When the action ended the game: the score (backgammon variants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_over: Option<ScoreGameResponse>,
    /// When the action ended a tables game: the score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables_game_over: Option<TablesGameScoreOutput>,
}

/// A refused action of a transcript (named as `POST /cube` names a refused
/// action: `reason`, `reason_slug`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RefusedAction {
    /// Its index in `actions`.
    pub index: usize,
    /// The stable slug (the problem `type` `/games/act` would answer).
    pub reason_slug: String,
    /// Why (the problem `detail` `/games/act` would answer).
    pub reason: String,
}

/// Response of `POST /games/verify`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VerifyGameResponse {
    /// Every action legal, and the final state (if given) reached exactly.
    pub valid: bool,
    /// Actions replayed.
    pub actions: usize,
    /// The first refused action (the replay stops there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<RefusedAction>,
    /// Whether the given final state equals the replay's (absent when none
    /// was given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_matches: Option<bool>,
    /// The replay's last state token.
    pub state: String,
    /// What it shows.
    pub view: GameViewOutput,
}

fn score_output(score: &bgref_core::GameScore) -> ScoreGameResponse {
    ScoreGameResponse::from(&crate::api::cube::Scored {
        score: *score,
        match_id: None,
        game_match_id: None,
    })
}

impl From<&GameView> for GameViewOutput {
    fn from(view: &GameView) -> Self {
        GameViewOutput::new(view, true)
    }
}

impl GameViewOutput {
    /// The output of `view`; with `plays` false, a backgammon board's
    /// plays are left empty (for [`splice_game_plays`] to write).
    ///
    /// [`splice_game_plays`]: super::moves::splice_game_plays
    pub fn new(view: &GameView, plays: bool) -> GameViewOutput {
        let s = &view.state;
        let (length, score) = s.match_score();
        let board = &view.board;
        let position = PositionOutput::any(board.board_view(), TablesView::of(&board.position));
        let plays = if board.on_board().is_some() {
            if plays {
                board
                    .board_plays()
                    .map(|p| LegalPlayOutput::new(&p, view.fields))
                    .collect()
            } else {
                Vec::new()
            }
        } else {
            TablesView::after_plays(&board.position, &board.plays)
                .map(|(play, after)| LegalPlayOutput::tables(play, &after))
                .collect()
        };
        let (result, tables_result) = match s.result() {
            Some(Score::Backgammon(score)) => (Some(score_output(&score)), None),
            Some(Score::Tables(score)) => (None, Some((&score).into())),
            None => (None, None),
        };
        GameViewOutput {
            match_id: view.match_id.clone(),
            variant: s.variant().to_string(),
            game: s.game(),
            turn: s.turn(),
            phase: s.phase().into(),
            on_roll: s.on_roll(),
            to_act: s.to_act(),
            actions: view.actions.iter().map(|&k| k.into()).collect(),
            position,
            dice: s.dice().map(|d| d.values()),
            cube: (&s.cube()).into(),
            may_double: s.may_double(),
            match_state: GameMatch {
                length,
                score: score.into(),
                crawford: s.game_kind() == GameKind::Crawford,
                game_kind: view.game_kind(),
            },
            plays,
            result,
            tables: s.tables_match().map(|m| TablesMatchOutput {
                tavli: m.series == TablesSeries::Tavli,
                games_played: m.games_played,
                next_starter: m.starter,
            }),
            tables_result,
            set_up: s.set_up(),
            clock: view.clock.as_ref().map(Into::into),
            match_winner: view.match_winner(),
        }
    }
}

impl From<&Started> for GameResponse {
    fn from(started: &Started) -> Self {
        GameResponse {
            state: started.game.token.clone(),
            view: (&started.game).into(),
            seats: SeatsOutput {
                x: started.seats.x.clone(),
                o: started.seats.o.clone(),
            },
        }
    }
}

fn event_output(event: &Happened) -> GameEvent {
    let f = event.fields();
    GameEvent {
        kind: f.kind.into(),
        player: f.player,
        dice: f.dice,
        passed: f.passed,
        play: f.play.map(|p| p.to_string()),
        level: f.level,
        ties: f.ties,
        game: f.game,
    }
}

impl From<&Acted> for ActResponse {
    fn from(acted: &Acted) -> Self {
        ActResponse::new(acted, true)
    }
}

impl ActResponse {
    /// The answer to `acted`; with `plays` false, its view's backgammon
    /// plays are left empty, for [`ActResponse::json`].
    fn new(acted: &Acted, plays: bool) -> ActResponse {
        ActResponse {
            state: acted.game.token.clone(),
            view: GameViewOutput::new(&acted.game, plays),
            event: event_output(&acted.event),
            roll: acted.roll.as_ref().map(Into::into),
            game_over: match &acted.scored {
                Some(Score::Backgammon(score)) => Some(score_output(score)),
                _ => None,
            },
            tables_game_over: match &acted.scored {
                Some(Score::Tables(score)) => Some(score.into()),
                _ => None,
            },
        }
    }
}

impl ActResponse {
    /// The JSON body of the answer to `acted`: serde_json's bytes of
    /// `ActResponse::from(acted)`, the view's backgammon plays written by
    /// the legal-moves writer (a roll's answer lists every play in every
    /// encoding; bench/README.md, "The game view's plays").
    ///
    /// # Errors
    /// serde_json's, which these types (no map, no float) never meet.
    pub fn json(acted: &Acted) -> serde_json::Result<Vec<u8>> {
        let json = serde_json::to_vec(&ActResponse::new(acted, false))?;
        Ok(super::moves::splice_game_plays(json, &acted.game))
    }
}

impl From<&Verdict> for VerifyGameResponse {
    fn from(v: &Verdict) -> Self {
        VerifyGameResponse {
            valid: v.valid,
            actions: v.actions,
            refused: v.refused.as_ref().map(|(index, err)| RefusedAction {
                index: *index,
                reason_slug: err.slug.to_owned(),
                reason: err.detail.clone(),
            }),
            state_matches: v.state_matches,
            state: v.game.token.clone(),
            view: (&v.game).into(),
        }
    }
}

objects_only!(
    NewGameRequest,
    ActRequest,
    TranscriptStep,
    VerifyGameRequest,
    ExportGameRequest
);

#[cfg(test)]
mod tests {
    use super::ActResponse;

    /// The act answer's body with the plays written directly is serde_json's
    /// bytes of the whole answer, for every answer of the sample matches
    /// (`api::games::sample_acts`: views with plays on both boards, every
    /// play field set).
    #[test]
    fn act_json_is_serde_json_byte_for_byte() {
        crate::api::games::sample_acts(|variant, acted| {
            let direct = String::from_utf8(ActResponse::json(acted).unwrap()).unwrap();
            let serde = serde_json::to_string(&ActResponse::from(acted)).unwrap();
            assert_eq!(direct, serde, "{variant}");
        });
    }
}

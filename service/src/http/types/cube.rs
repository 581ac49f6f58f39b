//! `POST /score` and `POST /cube`: the cube, the match, the rule options
//! and a scored game on the wire.
//!
//! Numbers that the rules constrain (cube value, beaver count, match
//! length, scores, maximum cube) are read as plain integers and checked by
//! `api::cube`, so a bad value is a problem naming its field with the rule
//! it breaks, rather than a serde type error.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use bgref_core::{CubeOwner, CubeState, GameKind, GameResult, MatchOutcome, Player, Resignation};

use super::common::{PerPlayer, PlayerName, PositionInput, VariantName};
use crate::api::cube::{
    ActionName, CubeActionInput, CubeAnswer, CubeInput, EndedBy as ApiEndedBy,
    MatchInput as ApiMatch, RulesInput as ApiRules, ScoreInput, Scored,
};
use crate::api::input;
use crate::api::tables::ScoreAnswer;
use crate::error::ApiError;

/// Who holds the cube: `centre` (either player may double) or the player
/// who may redouble. `center` is accepted too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum CubeOwnerName {
    /// In the middle.
    #[default]
    #[serde(alias = "center")]
    Centre,
    /// On x's side.
    X,
    /// On o's side.
    O,
}

/// A result, or a resignation level: 1, 2 or 3 times the cube.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum GameResultName {
    /// 1 × the cube.
    Single,
    /// 2 × the cube.
    Gammon,
    /// 3 × the cube.
    Backgammon,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum EndedBy {
    /// The winner bore off every checker (`position` required).
    Bearoff,
    /// The loser passed (dropped) the winner's double, beaver or raccoon.
    #[serde(alias = "drop")]
    Pass,
    /// The loser resigned `resign_level` and the winner accepted.
    Resign,
}

/// The kind of the next game of a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameKindName {
    /// Doubling allowed (every money game, and match games before anyone
    /// reaches N-1).
    Normal,
    /// The first game after a player reaches N-1: no doubling.
    Crawford,
    /// Any later game: doubling allowed again.
    PostCrawford,
}

/// A cube or resignation decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum CubeActionName {
    /// Offer a double (on one's own turn, before rolling). Asking `double`
    /// is how to learn whether a player may double now.
    Double,
    /// Accept the pending double, beaver or raccoon.
    Take,
    /// Refuse it (`drop` is accepted too): the game ends.
    #[serde(alias = "drop")]
    Pass,
    /// Take and at once redouble, keeping the cube (money play, the doubled player).
    Beaver,
    /// Take a beaver and at once redouble (money play, the original doubler).
    Raccoon,
    /// Offer to resign `resign_level` (single, gammon or backgammon) times the cube.
    Resign,
    /// Accept the opponent's resignation: the game ends.
    Accept,
    /// Reject the opponent's resignation: play goes on.
    Reject,
}

/// A resignation waiting for an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
pub struct ResignationWire {
    /// The player who offers to resign.
    #[schema(value_type = PlayerName)]
    pub by: Player,
    /// What they offer to lose, times the cube.
    #[schema(value_type = GameResultName)]
    pub level: GameResult,
}

fn one() -> i64 {
    1
}

/// The cube. While a double waits for an answer, `value` is still the value
/// *before* it (what a pass scores), `owner` is unchanged and `offered_by`
/// names the player whose double (or beaver, or raccoon) waits; a take
/// doubles the value and gives the cube to the player who was doubled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"value": 2, "owner": "o", "offered_by": null, "beavers": 0}))]
pub struct Cube {
    /// 1, 2, 4, ... 32768 (default 1).
    #[serde(default = "one")]
    #[schema(default = 1, minimum = 1, maximum = 32768)]
    pub value: i64,
    /// `centre` (default), `x` or `o`.
    #[serde(default)]
    pub owner: CubeOwnerName,
    /// The player whose double, beaver or raccoon waits for an answer.
    #[serde(default)]
    #[schema(value_type = Option<PlayerName>)]
    pub offered_by: Option<Player>,
    /// Beavers and raccoons made on the pending double (each has already
    /// doubled `value`).
    #[serde(default)]
    #[schema(default = 0, minimum = 0)]
    pub beavers: i64,
    /// A resignation waiting for an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resignation: Option<ResignationWire>,
}

/// The match around the game. Length 0 is money play, where the score is a
/// running session total.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"length": 5, "score": {"x": 2, "o": 3}, "crawford": false}))]
pub struct MatchInput {
    /// Points needed to win, up to 32767; 0 (default) is money play.
    #[serde(default)]
    #[schema(default = 0, minimum = 0, maximum = 32767)]
    pub length: i64,
    /// The score before this game.
    #[serde(default)]
    pub score: PerPlayer,
    /// This game is the Crawford game (only in a match, with exactly one
    /// player one point from winning).
    #[serde(default)]
    pub crawford: bool,
}

/// Rule options. Each one left out comes from the `match_id` (Jacoby) or
/// the XGID (Jacoby; beavers, its beaver bit allowing one; maximum cube)
/// when the request has one, else from the default. Jacoby, beavers and automatic doubles are money-play
/// rules and never apply in a match.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"jacoby": true, "beavers": 1, "automatic_doubles": 0, "max_cube": 64}))]
pub struct RulesInput {
    /// Gammons and backgammons count as single while the cube is centred
    /// (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jacoby: Option<bool>,
    /// How many beavers and raccoons one double allows: 0 (default) none,
    /// 1 a beaver, 2 a beaver and a raccoon, and so on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 255)]
    pub beavers: Option<i64>,
    /// How many tied opening rolls may double the centred cube (default 0).
    /// A centred cube above 1 is valid only up to this many doublings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 255)]
    pub automatic_doubles: Option<i64>,
    /// The highest cube value, a power of two up to 32768 (default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 32768)]
    pub max_cube: Option<i64>,
}

/// Request of `POST /score`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"ended_by": "resign", "winner": "x", "resign_level": "gammon",
    "cube": {"value": 2, "owner": "o"},
    "match": {"length": 5, "score": {"x": 2, "o": 3}, "crawford": false}}))]
pub struct ScoreGameRequest {
    /// The variant of `position` (default `standard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// `bearoff`, `pass` (a dropped double; `drop` is accepted too) or
    /// `resign`. Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = EndedBy, required = true)]
    pub ended_by: Option<EndedBy>,
    /// Required for `bearoff`: the finished position, which gives the
    /// winner and the result. Optional otherwise. An XGID's cube value and
    /// owner, score, match length, Crawford flag, Jacoby and beaver bits
    /// and maximum cube stand in for `cube`, `match` and `rules` when those
    /// (and `match_id`) are left out; its dice field (including the
    /// double-offered marks D, B and R) is not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<PositionInput>,
    /// Required for `pass` (the player whose double was refused) and
    /// `resign` (the player who accepted); for `bearoff`, if given, it
    /// must be the player the position shows has won.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PlayerName>)]
    pub winner: Option<Player>,
    /// Required for `resign`: the level resigned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<GameResultName>)]
    pub resign_level: Option<GameResult>,
    /// The cube as the game ended; for `pass` the value before the refused
    /// double (`offered_by`, if given, must be the winner). Default: a
    /// centred 1-cube.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cube: Option<Cube>,
    /// The match before this game. Default: money play.
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub match_state: Option<MatchInput>,
    /// Rule options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesInput>,
    /// gnubg Match ID of the game in play, instead of `cube` and `match`
    /// (and giving the Jacoby rule unless `rules.jacoby` is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
}

/// The match after a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"length": 5, "score": {"x": 4, "o": 3}, "winner": null, "next_game": "crawford"}))]
pub struct MatchOutput {
    /// The match length (0: money play).
    pub length: u32,
    /// The score after the game, the points added in full (a money
    /// session total in money play).
    pub score: PerPlayer,
    /// The player who has won the match; always null in money play.
    #[schema(value_type = Option<PlayerName>)]
    pub winner: Option<Player>,
    /// The kind of the next game; null once the match is won.
    #[schema(value_type = Option<GameKindName>)]
    pub next_game: Option<GameKind>,
}

/// A scored game of a variant with the cube: `game_over` in a `POST /cube`
/// answer that ended the game, and in the game views (`POST /score`
/// answers with the same fields in `ScoreAnswerOutput`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"ended_by": "resign", "winner": "x", "result": "gammon", "points": 4,
    "jacoby_applied": false,
    "match": {"length": 5, "score": {"x": 6, "o": 3}, "winner": "x", "next_game": null},
    "match_id": "UUOgAFAAGAAA", "game_match_id": "UUOgAFAAGAAA"}))]
pub struct ScoreGameResponse {
    /// How the game ended.
    pub ended_by: EndedBy,
    /// The winner.
    #[schema(value_type = PlayerName)]
    pub winner: Player,
    /// The result as it happened: the board's for a bear-off, single for a
    /// pass, the level for a resignation (the Jacoby rule may count it as
    /// single: see `jacoby_applied`).
    #[schema(value_type = GameResultName)]
    pub result: GameResult,
    /// Points won: the counted result times the cube value.
    pub points: u32,
    /// The Jacoby rule counted a gammon or backgammon as single.
    pub jacoby_applied: bool,
    /// The match after the game.
    #[serde(rename = "match")]
    pub match_state: MatchOutput,
    /// gnubg Match ID to carry on with: while the match goes on, the next
    /// game before its opening roll (the new score, the next game's
    /// Crawford flag, a centred 1-cube, gnubg game state "no game"; send
    /// it with `player` to `/cube`); once the match is won, `game_match_id`.
    /// Absent when a score or the length does not fit a Match ID (above
    /// 32767).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// gnubg Match ID of this game as gnubg writes it when the game ends:
    /// the cube as it ended, the score after the game (capped at the match
    /// length), game state over, dropped or resigned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_match_id: Option<String>,
}

/// Response of `POST /score`, for every variant: how the game ended and
/// what it won; with the cube (the backgammon variants) also the Jacoby
/// rule, the match after the game and the Match IDs; without it (Portes,
/// Tavla, Plakoto, Fevga, Long Nardy) the variant instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"ended_by": "resign", "winner": "x", "result": "gammon", "points": 4,
    "jacoby_applied": false,
    "match": {"length": 5, "score": {"x": 6, "o": 3}, "winner": "x", "next_game": null},
    "match_id": "UUOgAFAAGAAA", "game_match_id": "UUOgAFAAGAAA"}))]
pub struct ScoreAnswerOutput {
    /// The variants without the cube: the variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// How the game ended (always `bearoff` without the cube: Plakoto's
    /// mother and draw endings are found on the finished position too).
    pub ended_by: EndedBy,
    /// The winner; left out for a Plakoto draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PlayerName>)]
    pub winner: Option<Player>,
    /// The result on the backgammon board (all but Plakoto, Fevga and Long
    /// Nardy): the board's for a bear-off, single for a pass, the level
    /// for a resignation (the Jacoby rule may count it as single: see
    /// `jacoby_applied`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<GameResultName>)]
    pub result: Option<GameResult>,
    /// Plakoto, Fevga and Long Nardy: how the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<super::tables::OutcomeName>)]
    pub outcome: Option<bgref_core::tables::OutcomeKind>,
    /// Points won: with the cube, the counted result times the cube value;
    /// without it 1, 2 (gammon, backgammon, mars, double win, mother), 0
    /// for a draw.
    pub points: u32,
    /// With the cube: the Jacoby rule counted a gammon or backgammon as
    /// single.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jacoby_applied: Option<bool>,
    /// With the cube: the match after the game.
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub match_state: Option<MatchOutput>,
    /// With the cube: gnubg Match ID to carry on with (as
    /// `ScoreGameResponse.match_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// With the cube: gnubg Match ID of this game as gnubg writes it when
    /// the game ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_match_id: Option<String>,
}

impl From<&ScoreAnswer> for ScoreAnswerOutput {
    fn from(answer: &ScoreAnswer) -> Self {
        let cube = answer.match_play.as_ref();
        ScoreAnswerOutput {
            variant: cube.is_none().then(|| answer.variant.to_string()),
            ended_by: answer.ended_by.into(),
            winner: answer.winner,
            result: answer.result,
            outcome: answer.outcome,
            points: answer.points,
            jacoby_applied: cube.map(|c| c.jacoby_applied),
            match_state: cube.map(|c| (&c.outcome).into()),
            match_id: cube.and_then(|c| c.match_id.clone()),
            game_match_id: cube.and_then(|c| c.game_match_id.clone()),
        }
    }
}

/// Request of `POST /cube`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"cube": {"value": 1, "owner": "centre", "offered_by": null, "beavers": 0},
    "match": {"length": 0, "score": {"x": 0, "o": 0}, "crawford": false},
    "rules": {"jacoby": true, "beavers": 1, "automatic_doubles": 0, "max_cube": 64},
    "player": "x", "action": "double"}))]
pub struct ResolveCubeRequest {
    /// The cube before the action. Default: a centred 1-cube.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cube: Option<Cube>,
    /// The match. Default: money play.
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub match_state: Option<MatchInput>,
    /// Rule options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesInput>,
    /// gnubg Match ID of the game in play, instead of `cube` and `match`
    /// (a pending double or resignation included). For a game in play it
    /// also says who must act (then `player` may be left out) and whether
    /// the dice are rolled: a double after the roll is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// The player taking the action (may be left out with the `match_id`
    /// of a game in play: the player it says must act).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PlayerName>)]
    pub player: Option<Player>,
    /// `double`, `take`, `pass`, `beaver`, `raccoon`, `resign` (with
    /// `resign_level`), `accept` or `reject`. Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = CubeActionName, required = true)]
    pub action: Option<CubeActionName>,
    /// Required for `resign`: single, gammon or backgammon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<GameResultName>)]
    pub resign_level: Option<GameResult>,
    /// The variant (default `standard`). The tables games (`portes`,
    /// `tavla`, `plakoto`, `fevga`, `long-nardy`) have no cube: every
    /// action is refused (`no-cube-in-variant`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
}

/// Response of `POST /cube`. A refused action is still a 200: the answer
/// is `allowed: false` with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"allowed": true,
    "cube": {"value": 1, "owner": "centre", "offered_by": "x", "beavers": 0},
    "to_act": "o", "match_id": "MBkAAAAAAAAA"}))]
pub struct ResolveCubeResponse {
    /// Whether the rules allow the action now.
    pub allowed: bool,
    /// Why not, as a lower-case sentence (only when not allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A stable slug for `reason`: `not-your-cube`, `crawford-game`,
    /// `cube-at-maximum`, `beavers-disabled`, `beavers-in-match-play`,
    /// `beaver-limit-reached`, `raccoon-expected`, `no-beaver-to-raccoon`,
    /// `not-your-turn` (also: not the player on roll, per the `match_id`), `no-game` (a `match_id` of a game not started: no double before the opening roll), `no-double-offered`, `double-already-offered`,
    /// `resignation-already-offered`, `no-resignation-offered`, or (with
    /// a `match_id`) `dice-rolled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_slug: Option<String>,
    /// The cube after the action, when it is allowed and play goes on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cube: Option<Cube>,
    /// The player who must answer the pending double or resignation now
    /// (absent when none is pending, or the action was refused or ended
    /// the game).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PlayerName>)]
    pub to_act: Option<Player>,
    /// gnubg Match ID of the state after the action, when play goes on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// The scored game, after a pass or an accepted resignation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_over: Option<ScoreGameResponse>,
}

impl From<CubeOwnerName> for CubeOwner {
    fn from(owner: CubeOwnerName) -> Self {
        match owner {
            CubeOwnerName::Centre => CubeOwner::Centre,
            CubeOwnerName::X => CubeOwner::Player(Player::X),
            CubeOwnerName::O => CubeOwner::Player(Player::O),
        }
    }
}

impl From<CubeOwner> for CubeOwnerName {
    fn from(owner: CubeOwner) -> Self {
        match owner {
            CubeOwner::Centre => CubeOwnerName::Centre,
            CubeOwner::Player(Player::X) => CubeOwnerName::X,
            CubeOwner::Player(Player::O) => CubeOwnerName::O,
        }
    }
}

impl From<EndedBy> for ApiEndedBy {
    fn from(ended_by: EndedBy) -> Self {
        match ended_by {
            EndedBy::Bearoff => ApiEndedBy::Bearoff,
            EndedBy::Pass => ApiEndedBy::Pass,
            EndedBy::Resign => ApiEndedBy::Resign,
        }
    }
}

impl From<ApiEndedBy> for EndedBy {
    fn from(ended_by: ApiEndedBy) -> Self {
        match ended_by {
            ApiEndedBy::Bearoff => EndedBy::Bearoff,
            ApiEndedBy::Pass => EndedBy::Pass,
            ApiEndedBy::Resign => EndedBy::Resign,
        }
    }
}

impl From<CubeActionName> for ActionName {
    fn from(action: CubeActionName) -> Self {
        match action {
            CubeActionName::Double => ActionName::Double,
            CubeActionName::Take => ActionName::Take,
            CubeActionName::Pass => ActionName::Pass,
            CubeActionName::Beaver => ActionName::Beaver,
            CubeActionName::Raccoon => ActionName::Raccoon,
            CubeActionName::Resign => ActionName::Resign,
            CubeActionName::Accept => ActionName::Accept,
            CubeActionName::Reject => ActionName::Reject,
        }
    }
}

impl From<Cube> for CubeInput {
    fn from(cube: Cube) -> Self {
        CubeInput {
            value: cube.value,
            owner: cube.owner.into(),
            offered_by: cube.offered_by,
            beavers: cube.beavers,
            resignation: cube.resignation.map(|r| Resignation {
                by: r.by,
                level: r.level,
            }),
        }
    }
}

impl From<&CubeState> for Cube {
    fn from(cube: &CubeState) -> Self {
        Cube {
            value: i64::from(cube.value.get()),
            owner: cube.owner.into(),
            offered_by: cube.offered_by,
            beavers: i64::from(cube.beavers),
            resignation: cube.resignation.map(|r| ResignationWire {
                by: r.by,
                level: r.level,
            }),
        }
    }
}

impl From<MatchInput> for ApiMatch {
    fn from(m: MatchInput) -> Self {
        ApiMatch {
            length: m.length,
            score: m.score.into(),
            crawford: m.crawford,
        }
    }
}

impl From<RulesInput> for ApiRules {
    fn from(r: RulesInput) -> Self {
        ApiRules {
            jacoby: r.jacoby,
            beavers: r.beavers,
            automatic_doubles: r.automatic_doubles,
            max_cube: r.max_cube,
        }
    }
}

impl ScoreGameRequest {
    /// The transport-free input.
    pub fn into_input(self) -> Result<ScoreInput, ApiError> {
        Ok(ScoreInput {
            variant: input::read_variant(self.variant.as_deref())?,
            ended_by: self.ended_by.map(Into::into),
            position: self.position.map(Into::into),
            winner: self.winner,
            resign_level: self.resign_level,
            cube: self.cube.map(Into::into),
            match_state: self.match_state.map(Into::into),
            rules: self.rules.map(Into::into),
            match_id: self.match_id,
        })
    }
}

impl From<ResolveCubeRequest> for CubeActionInput {
    fn from(req: ResolveCubeRequest) -> Self {
        CubeActionInput {
            cube: req.cube.map(Into::into),
            match_state: req.match_state.map(Into::into),
            rules: req.rules.map(Into::into),
            match_id: req.match_id,
            player: req.player,
            action: req.action.map(Into::into),
            resign_level: req.resign_level,
            variant: req.variant,
        }
    }
}

impl From<&Scored> for ScoreGameResponse {
    fn from(scored: &Scored) -> Self {
        let score = &scored.score;
        let outcome = &score.match_outcome;
        ScoreGameResponse {
            ended_by: scored.ended_by().into(),
            winner: score.winner,
            result: score.result,
            points: score.points,
            jacoby_applied: score.jacoby,
            match_state: outcome.into(),
            match_id: scored.match_id.clone(),
            game_match_id: scored.game_match_id.clone(),
        }
    }
}

impl From<&MatchOutcome> for MatchOutput {
    fn from(outcome: &MatchOutcome) -> Self {
        MatchOutput {
            length: outcome.length,
            score: outcome.score.into(),
            winner: outcome.winner,
            next_game: outcome.next_game,
        }
    }
}

impl From<&CubeAnswer> for ResolveCubeResponse {
    fn from(answer: &CubeAnswer) -> Self {
        let none = ResolveCubeResponse {
            allowed: true,
            reason: None,
            reason_slug: None,
            cube: None,
            to_act: None,
            match_id: None,
            game_over: None,
        };
        match answer {
            CubeAnswer::Refused { slug, reason } => ResolveCubeResponse {
                allowed: false,
                reason: Some(reason.clone()),
                reason_slug: Some((*slug).to_owned()),
                ..none
            },
            CubeAnswer::Continue {
                cube,
                to_act,
                match_id,
            } => ResolveCubeResponse {
                cube: Some(cube.into()),
                to_act: to_act.map(Into::into),
                match_id: match_id.clone(),
                ..none
            },
            CubeAnswer::GameOver(scored) => ResolveCubeResponse {
                game_over: Some(scored.into()),
                ..none
            },
        }
    }
}

objects_only!(
    ResignationWire,
    Cube,
    MatchInput,
    RulesInput,
    ScoreGameRequest,
    ResolveCubeRequest
);

#[cfg(test)]
mod tests {
    //! The cube and scoring operations through their JSON shapes.

    use super::*;
    use crate::api::cube::{resolve_cube, score_game};
    use crate::http::types::common::PositionInput;

    fn cube_req(body: serde_json::Value) -> Result<ResolveCubeResponse, ApiError> {
        let req: ResolveCubeRequest = serde_json::from_value(body).expect("request shape");
        resolve_cube(&req.into()).map(|answer| (&answer).into())
    }

    fn score_req(body: serde_json::Value) -> Result<ScoreGameResponse, ApiError> {
        let req: ScoreGameRequest = serde_json::from_value(body).expect("request shape");
        score_game(&req.into_input()?).map(|answer| (&answer).into())
    }

    /// `POST /score`'s one shape: the cube's fields with the cube, the
    /// variant without it, nothing else (these bytes were two types'
    /// before: the same).
    #[test]
    fn the_score_answer_has_the_fields_of_its_variant() {
        let answer = |body: serde_json::Value| {
            let req: ScoreGameRequest = serde_json::from_value(body).expect("request shape");
            let answer = crate::api::tables::score_game(&req.into_input().unwrap()).unwrap();
            serde_json::to_string(&ScoreAnswerOutput::from(&answer)).unwrap()
        };
        let mut points = vec![0; 24];
        points[1] = -5;
        points[2] = -5;
        points[3] = -5;
        let finished =
            serde_json::json!({"board": {"points": points, "off": {"x": 15, "o": 0}, "turn": "o"}});
        // With the cube: a `ScoreGameResponse`'s bytes (a `game_over`).
        for body in [
            serde_json::json!({"ended_by": "bearoff", "position": finished}),
            serde_json::json!({"ended_by": "resign", "winner": "o", "resign_level": "gammon",
                "match_id": "cAkAAAAAAAAA"}),
        ] {
            let game_over = score_req(body.clone()).unwrap();
            assert_eq!(answer(body), serde_json::to_string(&game_over).unwrap());
        }
        assert_eq!(
            answer(
                serde_json::json!({"variant": "tavla", "ended_by": "bearoff", "position": finished})
            ),
            r#"{"variant":"tavla","ended_by":"bearoff","winner":"x","result":"backgammon","points":2}"#
        );
        let mut fevga = vec![0; 24];
        fevga[12] = -15;
        let over =
            serde_json::json!({"board": {"points": fevga, "off": {"x": 15, "o": 0}, "turn": "o"}});
        assert_eq!(
            answer(
                serde_json::json!({"variant": "fevga", "ended_by": "bearoff", "position": over})
            ),
            r#"{"variant":"fevga","ended_by":"bearoff","winner":"x","outcome":"double","points":2}"#
        );
    }

    #[test]
    fn double_take_and_the_match_id_round_trip() {
        let offered = cube_req(serde_json::json!({"player": "x", "action": "double"})).unwrap();
        assert!(offered.allowed);
        assert_eq!(offered.to_act, Some(Player::O));
        let id = offered.match_id.clone().unwrap();
        // The Match ID alone carries the pending double and whose turn it is.
        let taken = cube_req(serde_json::json!({"match_id": id, "action": "take"})).unwrap();
        assert!(taken.allowed, "{taken:?}");
        let cube = taken.cube.unwrap();
        assert_eq!((cube.value, cube.owner), (2, CubeOwnerName::O));
        // x no longer owns the cube.
        let again = cube_req(serde_json::json!({"match_id": taken.match_id.unwrap(),
            "player": "x", "action": "double"}))
        .unwrap();
        assert_eq!(again.reason_slug.as_deref(), Some("not-your-cube"));
    }

    #[test]
    fn refusals_and_invalid_states() {
        let crawford =
            serde_json::json!({"length": 5, "score": {"x": 4, "o": 1}, "crawford": true});
        let answer =
            cube_req(serde_json::json!({"match": crawford, "player": "o", "action": "double"}))
                .unwrap();
        assert!(!answer.allowed);
        assert_eq!(
            answer.reason.as_deref(),
            Some("no doubling in the crawford game")
        );
        let bad =
            cube_req(serde_json::json!({"cube": {"value": 3}, "player": "o", "action": "double"}))
                .unwrap_err();
        assert_eq!(bad.field.as_deref(), Some("cube.value"));
        let money_crawford = cube_req(serde_json::json!({"match": {"crawford": true},
            "player": "o", "action": "double"}))
        .unwrap_err();
        assert_eq!(money_crawford.field.as_deref(), Some("match.crawford"));
        assert_eq!(money_crawford.slug, "invalid-match");
        let both = cube_req(serde_json::json!({"match_id": "cAkAAAAAAAAA", "cube": {},
            "action": "double"}))
        .unwrap_err();
        assert_eq!(both.field.as_deref(), Some("match_id"));
    }

    #[test]
    fn scoring_bear_off_pass_and_resign() {
        let board = serde_json::json!({"board": {
            "points": [0, -5, -5, -5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "off": {"x": 15, "o": 0}, "turn": "o"}});
        let position: PositionInput = serde_json::from_value(board.clone()).unwrap();
        let gammon = score_req(
            serde_json::json!({"ended_by": "bearoff", "position": position,
            "cube": {"value": 4, "owner": "o"}}),
        )
        .unwrap();
        assert_eq!(
            (gammon.winner, gammon.result, gammon.points),
            (Player::X, GameResult::Backgammon, 12)
        );
        let pass = score_req(serde_json::json!({"ended_by": "pass", "winner": "o",
            "cube": {"value": 2, "owner": "o"},
            "match": {"length": 5, "score": {"x": 1, "o": 2}}}))
        .unwrap();
        assert_eq!(pass.points, 2);
        assert_eq!(pass.match_state.next_game, Some(GameKind::Crawford));
        let wrong = score_req(serde_json::json!({"ended_by": "pass", "winner": "x",
            "cube": {"value": 2, "owner": "o"}}))
        .unwrap_err();
        assert_eq!(wrong.field.as_deref(), Some("winner"));
        let resign = score_req(serde_json::json!({"ended_by": "resign", "winner": "x",
            "resign_level": "gammon", "rules": {"jacoby": true}}))
        .unwrap();
        assert_eq!((resign.points, resign.jacoby_applied), (1, true));
        let not_over = score_req(serde_json::json!({"ended_by": "bearoff",
            "position": {"position_id": "4HPwATDgc/ABMA"}}))
        .unwrap_err();
        assert_eq!(not_over.slug, "game-not-over");
    }
}

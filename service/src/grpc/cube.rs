//! `ScoreGame` and `ResolveCube`: proto messages to the wire shapes of
//! `POST /score` and `POST /cube` and back, around `api::cube`.

use tonic::{Request, Status};

use super::common::{player_in, player_out, position_in, variant_in};
use crate::api;
use crate::error::ApiError;
use crate::proto;
use crate::state::AppState;
use crate::wire::common::{PerPlayer, PlayerName};
use crate::wire::cube::{
    Cube, CubeActionName, CubeOwnerName, EndedBy, GameKindName, GameResultName, MatchInput,
    MatchOutput, ResignationWire, ResolveCubeRequest, ResolveCubeResponse, RulesInput,
    ScoreGameRequest, ScoreGameResponse,
};

fn unknown(field: &str, value: i32) -> ApiError {
    ApiError::invalid(
        "invalid-request",
        field,
        format!("unknown {field} value {value}"),
    )
}

/// A player that must be given.
fn player_required(value: i32, field: &str, why: &str) -> Result<PlayerName, ApiError> {
    player_in(value)
        .map_err(|_| unknown(field, value))?
        .ok_or_else(|| ApiError::invalid("invalid-request", field, why))
}

fn optional_player(value: i32, field: &str) -> Result<Option<PlayerName>, ApiError> {
    player_in(value).map_err(|_| unknown(field, value))
}

fn result_in(value: i32, field: &str) -> Result<Option<GameResultName>, ApiError> {
    match proto::GameResult::try_from(value) {
        Ok(proto::GameResult::Unspecified) => Ok(None),
        Ok(proto::GameResult::Single) => Ok(Some(GameResultName::Single)),
        Ok(proto::GameResult::Gammon) => Ok(Some(GameResultName::Gammon)),
        Ok(proto::GameResult::Backgammon) => Ok(Some(GameResultName::Backgammon)),
        Err(_) => Err(unknown(field, value)),
    }
}

fn result_out(result: GameResultName) -> i32 {
    match result {
        GameResultName::Single => proto::GameResult::Single as i32,
        GameResultName::Gammon => proto::GameResult::Gammon as i32,
        GameResultName::Backgammon => proto::GameResult::Backgammon as i32,
    }
}

fn cube_in(cube: proto::Cube) -> Result<Cube, ApiError> {
    let owner = match proto::CubeOwner::try_from(cube.owner) {
        Ok(proto::CubeOwner::Unspecified | proto::CubeOwner::Centre) => CubeOwnerName::Centre,
        Ok(proto::CubeOwner::X) => CubeOwnerName::X,
        Ok(proto::CubeOwner::O) => CubeOwnerName::O,
        Err(_) => return Err(unknown("cube.owner", cube.owner)),
    };
    let resignation = match cube.resignation {
        None => None,
        Some(r) => Some(ResignationWire {
            by: player_required(
                r.by,
                "cube.resignation.by",
                "cube.resignation.by is required (x or o)",
            )?,
            level: result_in(r.level, "cube.resignation.level")?.ok_or_else(|| {
                ApiError::invalid(
                    "invalid-request",
                    "cube.resignation.level",
                    "cube.resignation.level is required: single, gammon or backgammon",
                )
            })?,
        }),
    };
    Ok(Cube {
        value: cube.value.map_or(1, i64::from),
        owner,
        offered_by: optional_player(cube.offered_by, "cube.offered_by")?,
        beavers: i64::from(cube.beavers),
        resignation,
    })
}

fn cube_out(cube: Cube) -> proto::Cube {
    proto::Cube {
        value: u32::try_from(cube.value).ok(),
        owner: match cube.owner {
            CubeOwnerName::Centre => proto::CubeOwner::Centre,
            CubeOwnerName::X => proto::CubeOwner::X,
            CubeOwnerName::O => proto::CubeOwner::O,
        } as i32,
        offered_by: cube.offered_by.map_or(0, player_out),
        beavers: u32::try_from(cube.beavers).unwrap_or(0),
        resignation: cube.resignation.map(|r| proto::Resignation {
            by: player_out(r.by),
            level: result_out(r.level),
        }),
    }
}

fn match_in(m: proto::MatchState) -> MatchInput {
    let score = m.score.unwrap_or_default();
    MatchInput {
        length: i64::from(m.length),
        score: PerPlayer {
            x: i64::from(score.x),
            o: i64::from(score.o),
        },
        crawford: m.crawford,
    }
}

fn rules_in(r: proto::CubeRules) -> RulesInput {
    RulesInput {
        jacoby: r.jacoby,
        beavers: r.beavers.map(i64::from),
        automatic_doubles: r.automatic_doubles.map(i64::from),
        max_cube: r.max_cube.map(i64::from),
    }
}

fn match_out(m: MatchOutput) -> proto::MatchOutcome {
    proto::MatchOutcome {
        length: m.length,
        score: Some(proto::PerPlayer {
            x: u32::try_from(m.score.x).unwrap_or(u32::MAX),
            o: u32::try_from(m.score.o).unwrap_or(u32::MAX),
        }),
        winner: m.winner.map_or(0, player_out),
        next_game: match m.next_game {
            None => proto::GameKind::Unspecified,
            Some(GameKindName::Normal) => proto::GameKind::Normal,
            Some(GameKindName::Crawford) => proto::GameKind::Crawford,
            Some(GameKindName::PostCrawford) => proto::GameKind::PostCrawford,
        } as i32,
    }
}

fn ended_by_out(ended_by: EndedBy) -> i32 {
    let value = match ended_by {
        EndedBy::Bearoff => proto::EndedBy::Bearoff,
        EndedBy::Pass => proto::EndedBy::Pass,
        EndedBy::Resign => proto::EndedBy::Resign,
    };
    value as i32
}

fn game_score_out(s: ScoreGameResponse) -> proto::GameScore {
    proto::GameScore {
        ended_by: ended_by_out(s.ended_by),
        winner: player_out(s.winner),
        result: result_out(s.result),
        points: s.points,
        jacoby_applied: s.jacoby_applied,
        r#match: Some(match_out(s.match_state)),
        match_id: s.match_id.unwrap_or_default(),
        game_match_id: s.game_match_id.unwrap_or_default(),
    }
}

/// A string field where empty means not given.
fn non_empty(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

fn score_request(req: proto::ScoreGameRequest) -> Result<ScoreGameRequest, ApiError> {
    let ended_by = match proto::EndedBy::try_from(req.ended_by) {
        Ok(proto::EndedBy::Bearoff) => Some(EndedBy::Bearoff),
        Ok(proto::EndedBy::Pass) => Some(EndedBy::Pass),
        Ok(proto::EndedBy::Resign) => Some(EndedBy::Resign),
        Ok(proto::EndedBy::Unspecified) => None,
        Err(_) => return Err(unknown("ended_by", req.ended_by)),
    };
    Ok(ScoreGameRequest {
        variant: variant_in(req.variant),
        ended_by,
        position: req
            .position
            .map(|p| position_in(Some(p), "position"))
            .transpose()?,
        winner: optional_player(req.winner, "winner")?,
        resign_level: result_in(req.resign_level, "resign_level")?,
        cube: req.cube.map(cube_in).transpose()?,
        match_state: req.r#match.map(match_in),
        rules: req.rules.map(rules_in),
        match_id: non_empty(req.match_id),
    })
}

/// ScoreGame.
pub fn score_game(
    _state: &AppState,
    req: Request<proto::ScoreGameRequest>,
) -> Result<proto::ScoreGameResponse, Status> {
    let req = score_request(req.into_inner())?;
    let s = game_score_out(api::cube::score_game(&req)?);
    Ok(proto::ScoreGameResponse {
        ended_by: s.ended_by,
        winner: s.winner,
        result: s.result,
        points: s.points,
        jacoby_applied: s.jacoby_applied,
        r#match: s.r#match,
        match_id: s.match_id,
        game_match_id: s.game_match_id,
    })
}

fn cube_request(req: proto::ResolveCubeRequest) -> Result<ResolveCubeRequest, ApiError> {
    let action = match proto::CubeAction::try_from(req.action) {
        Ok(proto::CubeAction::Double) => Some(CubeActionName::Double),
        Ok(proto::CubeAction::Take) => Some(CubeActionName::Take),
        Ok(proto::CubeAction::Pass) => Some(CubeActionName::Pass),
        Ok(proto::CubeAction::Beaver) => Some(CubeActionName::Beaver),
        Ok(proto::CubeAction::Raccoon) => Some(CubeActionName::Raccoon),
        Ok(proto::CubeAction::Resign) => Some(CubeActionName::Resign),
        Ok(proto::CubeAction::Accept) => Some(CubeActionName::Accept),
        Ok(proto::CubeAction::Reject) => Some(CubeActionName::Reject),
        Ok(proto::CubeAction::Unspecified) => None,
        Err(_) => return Err(unknown("action", req.action)),
    };
    Ok(ResolveCubeRequest {
        cube: req.cube.map(cube_in).transpose()?,
        match_state: req.r#match.map(match_in),
        rules: req.rules.map(rules_in),
        match_id: non_empty(req.match_id),
        player: optional_player(req.player, "player")?,
        action,
        resign_level: result_in(req.resign_level, "resign_level")?,
    })
}

/// ResolveCube.
pub fn resolve_cube(
    _state: &AppState,
    req: Request<proto::ResolveCubeRequest>,
) -> Result<proto::ResolveCubeResponse, Status> {
    let req = cube_request(req.into_inner())?;
    let ResolveCubeResponse {
        allowed,
        reason,
        reason_slug,
        cube,
        to_act,
        match_id,
        game_over,
    } = api::cube::resolve_cube(&req)?;
    Ok(proto::ResolveCubeResponse {
        allowed,
        reason: reason.unwrap_or_default(),
        reason_slug: reason_slug.unwrap_or_default(),
        cube: cube.map(cube_out),
        to_act: to_act.map_or(0, player_out),
        match_id: match_id.unwrap_or_default(),
        game_over: game_over.map(game_score_out),
    })
}

//! `ScoreGame` and `ResolveCube`.

use bgref_core::{CubeOwner, CubeState, GameKind, GameScore, MatchOutcome, Player, Resignation};

use super::common::{
    per_player_out, player_in, player_out, position_in, result_in, result_out, variant_in,
};
use crate::api::cube::{
    ActionName, CubeActionInput, CubeAnswer, CubeInput, EndedBy, MatchInput, RulesInput,
    ScoreInput, Scored,
};
use crate::api::input::{self, required};
use crate::api::tables::ScoreAnswer;
use crate::error::ApiError;
use crate::proto;

pub(super) fn cube_in(cube: proto::Cube) -> Result<CubeInput, ApiError> {
    let owner = match proto::CubeOwner::try_from(cube.owner) {
        Ok(proto::CubeOwner::Unspecified | proto::CubeOwner::Centre) => CubeOwner::Centre,
        Ok(proto::CubeOwner::X) => CubeOwner::Player(Player::X),
        Ok(proto::CubeOwner::O) => CubeOwner::Player(Player::O),
        Err(_) => return Err(input::unknown_value("cube.owner", cube.owner)),
    };
    let resignation = match cube.resignation {
        None => None,
        Some(r) => Some(Resignation {
            by: required(
                player_in(r.by, "cube.resignation.by")?,
                "cube.resignation.by",
                "cube.resignation.by is required (x or o)",
            )?,
            level: required(
                result_in(r.level, "cube.resignation.level")?,
                "cube.resignation.level",
                "cube.resignation.level is required: single, gammon or backgammon",
            )?,
        }),
    };
    Ok(CubeInput {
        value: cube.value.map_or(1, i64::from),
        owner,
        offered_by: player_in(cube.offered_by, "cube.offered_by")?,
        beavers: i64::from(cube.beavers),
        resignation,
    })
}

pub(super) fn cube_out(cube: &CubeState) -> proto::Cube {
    proto::Cube {
        value: Some(cube.value.get()),
        owner: match cube.owner {
            CubeOwner::Centre => proto::CubeOwner::Centre,
            CubeOwner::Player(Player::X) => proto::CubeOwner::X,
            CubeOwner::Player(Player::O) => proto::CubeOwner::O,
        }
        .into(),
        offered_by: cube.offered_by.map_or(0, player_out),
        beavers: u32::from(cube.beavers),
        resignation: cube.resignation.map(|r| proto::Resignation {
            by: player_out(r.by),
            level: result_out(r.level),
        }),
    }
}

pub(super) fn match_in(m: proto::MatchState) -> MatchInput {
    let score = m.score.unwrap_or_default();
    MatchInput {
        length: i64::from(m.length),
        score: bgref_core::ByPlayer {
            x: i64::from(score.x),
            o: i64::from(score.o),
        },
        crawford: m.crawford,
    }
}

pub(super) fn rules_in(r: proto::CubeRules) -> RulesInput {
    RulesInput {
        jacoby: r.jacoby,
        beavers: r.beavers.map(i64::from),
        automatic_doubles: r.automatic_doubles.map(i64::from),
        max_cube: r.max_cube.map(i64::from),
    }
}

fn ended_by_out(ended_by: EndedBy) -> i32 {
    match ended_by {
        EndedBy::Bearoff => proto::EndedBy::Bearoff,
        EndedBy::Pass => proto::EndedBy::Pass,
        EndedBy::Resign => proto::EndedBy::Resign,
    }
    .into()
}

fn kind_out(kind: Option<GameKind>) -> i32 {
    match kind {
        None => proto::GameKind::Unspecified,
        Some(GameKind::Normal) => proto::GameKind::Normal,
        Some(GameKind::Crawford) => proto::GameKind::Crawford,
        Some(GameKind::PostCrawford) => proto::GameKind::PostCrawford,
    }
    .into()
}

/// A scored game, without Match IDs.
pub(super) fn score_out(score: &GameScore) -> proto::GameScore {
    proto::GameScore {
        ended_by: ended_by_out(EndedBy::of(&score.end)),
        winner: player_out(score.winner),
        result: result_out(score.result),
        points: score.points,
        jacoby_applied: score.jacoby,
        r#match: Some(match_outcome_out(&score.match_outcome)),
        gnubg_match_id: String::new(),
        gnubg_game_match_id: String::new(),
    }
}

fn match_outcome_out(outcome: &MatchOutcome) -> proto::MatchOutcome {
    proto::MatchOutcome {
        length: outcome.length,
        score: Some(per_player_out(outcome.score)),
        winner: outcome.winner.map_or(0, player_out),
        next_game: kind_out(outcome.next_game),
    }
}

impl From<&Scored> for proto::GameScore {
    fn from(scored: &Scored) -> Self {
        proto::GameScore {
            gnubg_match_id: scored.match_id.clone().unwrap_or_default(),
            gnubg_game_match_id: scored.game_match_id.clone().unwrap_or_default(),
            ..score_out(&scored.score)
        }
    }
}

impl From<&ScoreAnswer> for proto::ScoreGameResponse {
    fn from(answer: &ScoreAnswer) -> Self {
        let cube = answer.match_play.as_ref();
        proto::ScoreGameResponse {
            ended_by: ended_by_out(answer.ended_by),
            winner: answer.winner.map_or(0, player_out),
            result: answer.result.map_or(0, result_out),
            points: answer.points,
            jacoby_applied: cube.is_some_and(|c| c.jacoby_applied),
            r#match: cube.map(|c| match_outcome_out(&c.outcome)),
            gnubg_match_id: cube.and_then(|c| c.match_id.clone()).unwrap_or_default(),
            gnubg_game_match_id: cube
                .and_then(|c| c.game_match_id.clone())
                .unwrap_or_default(),
            tables_outcome: answer.outcome.map_or(0, super::tables::tables_outcome_out),
        }
    }
}

/// A string field where empty means not given.
fn non_empty(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

impl TryFrom<proto::ScoreGameRequest> for ScoreInput {
    type Error = ApiError;

    fn try_from(req: proto::ScoreGameRequest) -> Result<Self, ApiError> {
        let ended_by = match proto::EndedBy::try_from(req.ended_by) {
            Ok(proto::EndedBy::Bearoff) => Some(EndedBy::Bearoff),
            Ok(proto::EndedBy::Pass) => Some(EndedBy::Pass),
            Ok(proto::EndedBy::Resign) => Some(EndedBy::Resign),
            Ok(proto::EndedBy::Unspecified) => None,
            Err(_) => return Err(input::unknown_value("ended_by", req.ended_by)),
        };
        Ok(ScoreInput {
            variant: variant_in(req.variant)?,
            ended_by,
            position: position_in(req.position, "position")?,
            winner: player_in(req.winner, "winner")?,
            resign_level: result_in(req.resign_level, "resign_level")?,
            cube: req.cube.map(cube_in).transpose()?,
            match_state: req.r#match.map(match_in),
            rules: req.rules.map(rules_in),
            match_id: non_empty(req.gnubg_match_id),
        })
    }
}

impl TryFrom<proto::ResolveCubeRequest> for CubeActionInput {
    type Error = ApiError;

    fn try_from(req: proto::ResolveCubeRequest) -> Result<Self, ApiError> {
        let action = match proto::CubeAction::try_from(req.action) {
            Ok(proto::CubeAction::Double) => Some(ActionName::Double),
            Ok(proto::CubeAction::Take) => Some(ActionName::Take),
            Ok(proto::CubeAction::Pass) => Some(ActionName::Pass),
            Ok(proto::CubeAction::Beaver) => Some(ActionName::Beaver),
            Ok(proto::CubeAction::Raccoon) => Some(ActionName::Raccoon),
            Ok(proto::CubeAction::Resign) => Some(ActionName::Resign),
            Ok(proto::CubeAction::Accept) => Some(ActionName::Accept),
            Ok(proto::CubeAction::Reject) => Some(ActionName::Reject),
            Ok(proto::CubeAction::Unspecified) => None,
            Err(_) => return Err(input::unknown_value("action", req.action)),
        };
        Ok(CubeActionInput {
            cube: req.cube.map(cube_in).transpose()?,
            match_state: req.r#match.map(match_in),
            rules: req.rules.map(rules_in),
            match_id: non_empty(req.gnubg_match_id),
            player: player_in(req.player, "player")?,
            action,
            resign_level: result_in(req.resign_level, "resign_level")?,
            variant: Some(variant_in(req.variant)?.to_string()),
        })
    }
}

impl From<&CubeAnswer> for proto::ResolveCubeResponse {
    fn from(answer: &CubeAnswer) -> Self {
        let mut out = proto::ResolveCubeResponse {
            allowed: true,
            ..Default::default()
        };
        match answer {
            CubeAnswer::Refused { slug, reason } => {
                out.allowed = false;
                out.reason = reason.clone();
                out.reason_slug = (*slug).to_owned();
            }
            CubeAnswer::Continue {
                cube,
                to_act,
                match_id,
            } => {
                out.cube = Some(cube_out(cube));
                out.to_act = to_act.map_or(0, player_out);
                out.gnubg_match_id = match_id.clone().unwrap_or_default();
            }
            CubeAnswer::GameOver(scored) => out.game_over = Some(scored.into()),
        }
        out
    }
}

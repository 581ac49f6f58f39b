//! `POST /score` and `POST /cube`.

use axum::Json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::Problem;
use super::extract::ApiJson;
use super::types::cube::{
    ResolveCubeRequest, ResolveCubeResponse, ScoreAnswerOutput, ScoreGameRequest,
};
use crate::api;
use crate::error::ApiError;
use crate::state::AppState;

/// The cube and scoring routes.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(score_game))
        .routes(routes!(resolve_cube))
}

/// Scores a finished game.
///
/// A game ends by bearing off (`position` is the finished position: the
/// winner and single, gammon or backgammon come from it), by a dropped
/// double (`winner` is the doubler, who wins the cube value before the
/// double) or by an accepted resignation (`winner` and `resign_level`).
/// Points are the result times the cube, with the Jacoby rule in money play
/// when asked. The answer has the new match score, the match winner, and
/// whether the next game is normal, the Crawford game or post-Crawford
/// (from the score, as gnubg decides it), with gnubg Match IDs of the next
/// game and of this game's end.
///
/// The cube and match may be given as `cube` and `match`, as a gnubg
/// `match_id`, or by an XGID position (its cube, score, match and rule
/// fields).
#[utoipa::path(post, path = "/score", tag = "cube",
    request_body(content = ScoreGameRequest, examples(
        ("resignation" = (summary = "A gammon resigned on a 2-cube in a 5-point match",
            value = json!({"ended_by": "resign", "winner": "x", "resign_level": "gammon",
                "cube": {"value": 2, "owner": "o"},
                "match": {"length": 5, "score": {"x": 2, "o": 3}, "crawford": false}}))),
        ("bearoff" = (summary = "A bear-off scored from the finished position (a backgammon on a 4-cube)",
            value = json!({"ended_by": "bearoff",
                "position": {"board": {"points": [0, -5, -5, -5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                    "off": {"x": 15, "o": 0}, "turn": "o"}},
                "cube": {"value": 4, "owner": "o"}}))),
        ("pass" = (summary = "A dropped double that takes x to the Crawford game",
            value = json!({"ended_by": "pass", "winner": "x", "cube": {"value": 1, "owner": "centre"},
                "match": {"length": 5, "score": {"x": 3, "o": 1}, "crawford": false}}))),
        ("match_id" = (summary = "The cube and match as a gnubg Match ID, Jacoby on",
            value = json!({"ended_by": "resign", "winner": "o", "resign_level": "gammon",
                "match_id": "cAkAAAAAAAAA"}))),
    )),
    responses(
        (status = 200, description = "The scored game and the match after it (the tables games: the points, no cube, no match)", body = ScoreAnswerOutput,
            example = json!({"ended_by": "resign", "winner": "x", "result": "gammon", "points": 4,
                "jacoby_applied": false,
                "match": {"length": 5, "score": {"x": 6, "o": 3}, "winner": "x", "next_game": null},
                "match_id": "UUOgAFAAGAAA", "game_match_id": "UUOgAFAAGAAA"})),
        (status = 400, description = "Malformed request, or an inconsistent cube, match, rules, Match ID or position (the field is named)",
            body = Problem, content_type = "application/problem+json",
            example = json!({"type": "invalid-cube", "title": "Bad Request", "status": 400,
                "detail": "a cube value is a power of two from 1 to 32768, got 3", "field": "cube.value"})),
        (status = 413, description = "The body is larger than the limit (`payload-too-large`; BGREF_MAX_BODY_BYTES, 64 KiB by default)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The rules refuse it: the position is not finished (`game-not-over`), \
            a finished position scored as a pass or resignation (`game-over`), a pass in the Crawford game (`crawford-game`)",
            body = Problem, content_type = "application/problem+json",
            example = json!({"type": "game-not-over", "title": "Unprocessable Entity", "status": 422,
                "detail": "the game is not over: neither player has borne off every checker (x has 15 left, o 15)",
                "field": "position"})),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "score_game", skip_all)]
pub async fn score_game(
    ApiJson(req): ApiJson<ScoreGameRequest>,
) -> Result<Json<ScoreAnswerOutput>, ApiError> {
    let answer = api::tables::score_game(&req.into_input()?)?;
    Ok(Json((&answer).into()))
}

/// Resolves a cube or resignation action: may this player do it now, and
/// what follows?
///
/// Actions: `double`, `take`, `pass`, `beaver`, `raccoon`, `resign` (with
/// `resign_level`), `accept` and `reject` (a resignation). **"May this
/// player double now?" is the action `double`**: `allowed` answers it, and
/// when it is false `reason` and `reason_slug` say why (not your cube, the
/// Crawford game, the cube at its maximum, ...). A refused action is a 200
/// with `allowed: false`, never an error; only a malformed or inconsistent
/// state (a cube value of 3, an owner `y`, a Crawford flag in money play,
/// ...) is a 400 problem naming the field.
///
/// When allowed, the answer is the new cube (with the player who must
/// answer in `to_act`) and its gnubg Match ID, or, after a pass or an
/// accepted resignation, the scored game in `game_over`. That it is the
/// player's turn and before the roll is the caller's business (the cube
/// state does not say); given the `match_id` of a game in play, the
/// referee refuses a double after the roll (`dice-rolled`), and `player`
/// may be left out for the player the Match ID says must act.
#[utoipa::path(post, path = "/cube", tag = "cube",
    request_body(content = ResolveCubeRequest, examples(
        ("may_double" = (summary = "May x double now? (money, Jacoby, one beaver allowed)",
            value = json!({"cube": {"value": 1, "owner": "centre", "offered_by": null, "beavers": 0},
                "match": {"length": 0, "score": {"x": 0, "o": 0}, "crawford": false},
                "rules": {"jacoby": true, "beavers": 1, "automatic_doubles": 0, "max_cube": 64},
                "player": "x", "action": "double"}))),
        ("crawford" = (summary = "No doubling in the Crawford game",
            value = json!({"match": {"length": 5, "score": {"x": 4, "o": 2}, "crawford": true},
                "player": "o", "action": "double"}))),
        ("beaver" = (summary = "o beavers x's double",
            value = json!({"cube": {"value": 1, "owner": "centre", "offered_by": "x"},
                "rules": {"beavers": 2}, "player": "o", "action": "beaver"}))),
        ("pass" = (summary = "o drops x's redouble to 4: the game ends",
            value = json!({"cube": {"value": 2, "owner": "x", "offered_by": "x"},
                "match": {"length": 7, "score": {"x": 3, "o": 5}},
                "player": "o", "action": "pass"}))),
        ("match_id" = (summary = "The state as a gnubg Match ID: the player on turn acts",
            value = json!({"match_id": "cAkAAAAAAAAA", "action": "double"}))),
    )),
    responses(
        (status = 200, description = "Whether the action is allowed, and the new cube or the scored game", body = ResolveCubeResponse,
            examples(
                ("allowed" = (summary = "x may double: o must answer",
                    value = json!({"allowed": true,
                        "cube": {"value": 1, "owner": "centre", "offered_by": "x", "beavers": 0},
                        "to_act": "o", "match_id": "MBkAAAAAAAAA"}))),
                ("refused" = (summary = "Refused, with the reason",
                    value = json!({"allowed": false, "reason": "no doubling in the crawford game",
                        "reason_slug": "crawford-game"}))),
                ("game_over" = (summary = "A pass ends the game",
                    value = json!({"allowed": true, "game_over": {"ended_by": "pass", "winner": "x",
                        "result": "single", "points": 2, "jacoby_applied": false,
                        "match": {"length": 7, "score": {"x": 5, "o": 5}, "winner": null, "next_game": "normal"},
                        "match_id": "MADgAFAAKAAA", "game_match_id": "AQzgAFAAKAAA"}}))),
            )),
        (status = 400, description = "Malformed request, or an inconsistent cube, match, rules or Match ID (the field is named)",
            body = Problem, content_type = "application/problem+json",
            example = json!({"type": "invalid-match", "title": "Bad Request", "status": 400,
                "detail": "there is no crawford game in money play", "field": "match.crawford"})),
        (status = 413, description = "The body is larger than the limit (`payload-too-large`; BGREF_MAX_BODY_BYTES, 64 KiB by default)", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "resolve_cube", skip_all)]
pub async fn resolve_cube(
    ApiJson(req): ApiJson<ResolveCubeRequest>,
) -> Result<Json<ResolveCubeResponse>, ApiError> {
    let answer = api::cube::resolve_cube(&req.into())?;
    Ok(Json((&answer).into()))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::super::types::cube::ScoreGameResponse;
    use super::{ResolveCubeRequest, ResolveCubeResponse, ScoreGameRequest};

    /// The examples of `path` in the generated document: request examples
    /// by name, and the 200 response examples (or example) by name.
    fn examples(path: &str) -> (Vec<(String, Value)>, Value) {
        let doc = serde_json::to_value(crate::http::openapi()).unwrap();
        let op = &doc["paths"][path]["post"];
        let requests = op["requestBody"]["content"]["application/json"]["examples"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, ex)| (name.clone(), ex["value"].clone()))
            .collect();
        (
            requests,
            op["responses"]["200"]["content"]["application/json"].clone(),
        )
    }

    #[test]
    fn score_examples_are_true() {
        let (requests, response) = examples("/score");
        assert_eq!(requests.len(), 4);
        for (name, body) in requests {
            let req: ScoreGameRequest = serde_json::from_value(body).unwrap();
            let answer = req
                .into_input()
                .and_then(|input| crate::api::cube::score_game(&input))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            if name == "resignation" {
                let answer = ScoreGameResponse::from(&answer);
                assert_eq!(serde_json::to_value(answer).unwrap(), response["example"]);
            }
        }
    }

    #[test]
    fn cube_examples_are_true() {
        let (requests, response) = examples("/cube");
        assert_eq!(requests.len(), 5);
        for (name, body) in requests {
            let req: ResolveCubeRequest = serde_json::from_value(body).unwrap();
            let answer = crate::api::cube::resolve_cube(&req.into())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let answer = serde_json::to_value(ResolveCubeResponse::from(&answer)).unwrap();
            let expected = match name.as_str() {
                "may_double" => "allowed",
                "crawford" => "refused",
                "pass" => "game_over",
                _ => continue,
            };
            assert_eq!(answer, response["examples"][expected]["value"], "{name}");
        }
    }
}

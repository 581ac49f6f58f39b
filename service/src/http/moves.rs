//! `POST /legal-moves` and `POST /apply-move`.

use axum::Json;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse as _, Response};

use super::error::Problem;
use super::extract::ApiJson;
use super::types::moves::{
    ApplyMoveRequest, ApplyMoveResponse, LegalMovesJson, LegalMovesRequest, LegalMovesResponse,
};
use crate::api;
use crate::api::moves::LegalMovesInput;
use crate::error::ApiError;
use crate::offload;

/// Every legal play of a position for a roll.
///
/// One entry per distinct resulting position, each with gnubg notation, its
/// single-die moves and the position after it (opponent on roll). An empty
/// list means no legal play: the turn passes.
#[utoipa::path(post, path = "/legal-moves", tag = "moves",
    request_body = LegalMovesRequest,
    responses(
        (status = 200, description = "The legal plays", body = LegalMovesResponse),
        (status = 400, description = "Malformed request, position or dice", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`payload-too-large`; BGREF_MAX_BODY_BYTES, 64 KiB by default)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The game is already over", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "legal_moves", skip_all)]
pub async fn legal_moves(ApiJson(req): ApiJson<LegalMovesRequest>) -> Result<Response, ApiError> {
    let input = req.into_input()?;
    if offload::legal_moves_may_be_heavy(&input.turn) {
        return offload::run(move || legal_moves_response(&input)).await;
    }
    legal_moves_response(&input)
}

/// The answer of [`legal_moves`] (off the runtime's threads when it may be
/// large: [`offload`]).
#[inline]
fn legal_moves_response(input: &LegalMovesInput) -> Result<Response, ApiError> {
    let reply = api::moves::legal_moves_reply(input)?;
    // The hot path, on the backgammon board: one buffer, sized up front,
    // written in one pass.
    let Some(json) = LegalMovesJson::new(&reply.answer, reply.fields) else {
        return Ok(Json(LegalMovesResponse::from(&reply.answer)).into_response());
    };
    let mut body = Vec::with_capacity(json.size_hint());
    json.write(&mut body);
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response())
}

/// Checks a play and applies it.
///
/// The play is gnubg-style notation or a list of from/to moves. An illegal
/// play is a 422 `illegal-play` whose detail says why. With `partial: true`
/// the moves are the start of a turn entered one die at a time.
#[utoipa::path(post, path = "/apply-move", tag = "moves",
    request_body = ApplyMoveRequest,
    responses(
        (status = 200, description = "The position after the play", body = ApplyMoveResponse),
        (status = 400, description = "Malformed request, position, dice or notation", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`payload-too-large`; BGREF_MAX_BODY_BYTES, 64 KiB by default)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Illegal or ambiguous play, or the game is over", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "apply_move", skip_all)]
pub async fn apply_move(
    ApiJson(req): ApiJson<ApplyMoveRequest>,
) -> Result<Json<ApplyMoveResponse>, ApiError> {
    let answer = api::moves::apply_move(&req.into_input()?)?;
    Ok(Json((&answer).into()))
}

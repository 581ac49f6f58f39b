//! `POST /dice/roll`, `POST /dice/opening`, `GET /dice/commitment`,
//! `POST /dice/reveal`, `POST /dice/verify`, `GET /dice/keys`.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, header};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ComponentsBuilder, OpenApiBuilder};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::Problem;
use super::extract::ApiJson;
use super::types::dice::{
    CommitmentQuery, CommitmentResponse, KeysResponse, OpeningRequest, OpeningResponse,
    RevealRequest, RevealResponse, RollRequest, RollResponse, VerifyRequest, VerifyResponse,
};
use crate::api;
use crate::error::ApiError;
use crate::state::AppState;

/// The dice routes, with the security schemes of the reveal (`bearer`)
/// and of the rolls (`roll_token`).
pub fn routes() -> OpenApiRouter<AppState> {
    let bearer = SecurityScheme::Http(
        HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(
                "The operator's reveal token (BGREF_REVEAL_TOKEN), for POST /dice/reveal",
            ))
            .build(),
    );
    let roll_token = SecurityScheme::Http(
        HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(
                "The operator's roll token (BGREF_DICE_ROLL_TOKEN), for POST /dice/roll and \
                 POST /dice/opening: given to a trusted game server only. Without it \
                 configured those endpoints answer 403 `roll-disabled`; players get their \
                 dice from the refereed game flow (POST /games)",
            ))
            .build(),
    );
    let doc = OpenApiBuilder::new()
        .components(Some(
            ComponentsBuilder::new()
                .security_scheme("bearer", bearer)
                .security_scheme("roll_token", roll_token)
                .build(),
        ))
        .build();
    OpenApiRouter::with_openapi(doc)
        .routes(routes!(roll))
        .routes(routes!(opening))
        .routes(routes!(commitment))
        .routes(routes!(reveal))
        .routes(routes!(verify))
        .routes(routes!(keys))
}

/// The `Authorization` header, if it is text.
fn authorization(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
}

/// Rolls the dice of one turn (trusted game server only).
///
/// The first two dice of the stream of `(match_id, client_seed, game, turn)`:
/// the same request gives the same dice on every replica. The response is
/// signed with the service's Ed25519 key. Needs `Authorization: Bearer
/// <token>` with the operator's roll token: whoever may ask can see a turn's
/// dice before it is due. Players roll through `POST /games`.
#[utoipa::path(post, path = "/dice/roll", tag = "dice", operation_id = "roll_dice",
    request_body = RollRequest,
    security(("roll_token" = [])),
    responses(
        (status = 200, description = "The signed roll", body = RollResponse),
        (status = 400, description = "Malformed request, or a field out of bounds", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or wrong roll token (`unauthorized`)", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "No roll token is configured: rolling on demand is disabled, play through POST /games (`roll-disabled`)", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`payload-too-large`; BGREF_MAX_BODY_BYTES, 64 KiB by default)", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "roll_dice", skip_all, fields(match_id = tracing::field::Empty, game = req.game, turn = req.turn))]
pub async fn roll(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<RollRequest>,
) -> Result<Json<RollResponse>, ApiError> {
    let input = req.into();
    Ok(Json(
        (&api::dice::roll(&state.dice, &input, authorization(&headers))?).into(),
    ))
}

/// Rolls the opening roll of a game (trusted game server only).
///
/// The stream of turn 0 read as pairs (x's die, o's die); ties are thrown
/// again and counted; the higher die starts and plays both dice. Signed as
/// turn 0 with the dice `[x_die, o_die]`. Needs the operator's roll token,
/// as `POST /dice/roll` does.
#[utoipa::path(post, path = "/dice/opening", tag = "dice", operation_id = "opening_roll",
    request_body = OpeningRequest,
    security(("roll_token" = [])),
    responses(
        (status = 200, description = "The signed opening roll", body = OpeningResponse),
        (status = 400, description = "Malformed request, or a field out of bounds", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or wrong roll token (`unauthorized`)", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "No roll token is configured: rolling on demand is disabled, play through POST /games (`roll-disabled`)", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`payload-too-large`; BGREF_MAX_BODY_BYTES, 64 KiB by default)", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "opening_roll", skip_all, fields(match_id = tracing::field::Empty, game = req.game))]
pub async fn opening(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<OpeningRequest>,
) -> Result<Json<OpeningResponse>, ApiError> {
    let authorization = authorization(&headers);
    // The token first: a caller without it learns nothing of the request.
    api::dice::check_roll_access(&state.dice, authorization)?;
    let input = req.into_input()?;
    Ok(Json(
        (&api::dice::opening(&state.dice, &input, authorization)?).into(),
    ))
}

/// The commitment of a match: SHA-256 of its server seed.
///
/// Publish it before the match starts; after the reveal anyone can check
/// that the seed opens it.
#[utoipa::path(get, path = "/dice/commitment", tag = "dice", operation_id = "get_commitment",
    params(CommitmentQuery),
    responses(
        (status = 200, description = "The commitment", body = CommitmentResponse),
        (status = 400, description = "Missing or malformed match_id", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "get_commitment", skip_all, fields(match_id = tracing::field::Empty))]
pub async fn commitment(
    State(state): State<AppState>,
    query: Result<Query<CommitmentQuery>, QueryRejection>,
) -> Result<Json<CommitmentResponse>, ApiError> {
    let Query(query) =
        query.map_err(|e| ApiError::invalid("invalid-match-id", "match_id", e.body_text()))?;
    Ok(Json(
        (&api::dice::commitment(&state.dice, query.match_id.as_deref())?).into(),
    ))
}

/// Reveals the server seed of a match (operator only).
///
/// Needs `Authorization: Bearer <token>` with the operator's reveal token.
/// The seed makes every roll of the match predictable: reveal it only after
/// the match is over.
#[utoipa::path(post, path = "/dice/reveal", tag = "dice", operation_id = "reveal_seed",
    request_body = RevealRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The server seed", body = RevealResponse),
        (status = 400, description = "Malformed request or match_id", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`payload-too-large`; BGREF_MAX_BODY_BYTES, 64 KiB by default)", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or wrong bearer token (`unauthorized`)", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "No reveal token is configured: reveal is disabled (`reveal-disabled`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "reveal_seed", skip_all, fields(match_id = tracing::field::Empty))]
pub async fn reveal(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<RevealRequest>,
) -> Result<Json<RevealResponse>, ApiError> {
    Ok(Json(
        (&api::dice::reveal(&state.dice, &req.match_id, authorization(&headers))?).into(),
    ))
}

/// Checks rolls against a revealed seed and the published commitment.
///
/// Pure: any bgref instance answers, whatever its secrets. Turn 0 is the
/// opening roll, whose dice are `[x_die, o_die]`. At most 1000 rolls.
#[utoipa::path(post, path = "/dice/verify", tag = "dice", operation_id = "verify_dice",
    request_body = VerifyRequest,
    responses(
        (status = 200, description = "A verdict per roll and overall", body = VerifyResponse),
        (status = 400, description = "Malformed request, seed, commitment or roll", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`payload-too-large`; BGREF_MAX_BODY_BYTES, 64 KiB by default)", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "verify_dice", skip_all, fields(match_id = tracing::field::Empty, rolls = req.rolls.len()))]
pub async fn verify(
    ApiJson(req): ApiJson<VerifyRequest>,
) -> Result<Json<VerifyResponse>, ApiError> {
    Ok(Json((&api::dice::verify(&req.into())?).into()))
}

/// The Ed25519 public keys that sign rolls, by key id.
///
/// The current key first; retired keys stay listed so older rolls still
/// verify. A key id is the first 16 hex digits of SHA-256(public key).
#[utoipa::path(get, path = "/dice/keys", tag = "dice", operation_id = "get_keys",
    responses((status = 200, description = "The published keys", body = KeysResponse)))]
#[tracing::instrument(target = "bgref_service::handler", name = "get_keys", skip_all)]
pub async fn keys(State(state): State<AppState>) -> Json<KeysResponse> {
    Json((&api::dice::keys(&state.dice)).into())
}

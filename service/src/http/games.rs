//! `POST /games`, `POST /games/act`, `POST /games/verify`,
//! `POST /games/export`.

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse as _, Response};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ComponentsBuilder, OpenApiBuilder};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::Problem;
use super::extract::{ApiJson, TranscriptJson};
use super::types::games::{
    ActRequest, ActResponse, ExportGameRequest, ExportGameResponse, GameResponse, NewGameRequest,
    VerifyGameRequest, VerifyGameResponse,
};
use crate::api;
use crate::error::ApiError;
use crate::offload;
use crate::state::AppState;

/// The caller may use the game flow: no game token is configured, or the
/// request carries it. An extractor from the request head, so the check
/// runs before the body is read.
pub struct GameAccess;

impl FromRequestParts<AppState> for GameAccess {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let authorization = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        api::games::check_game_access(&state.dice, authorization)?;
        Ok(GameAccess)
    }
}

/// The game routes, with the security scheme of the game flow
/// (`game_token`).
pub fn routes() -> OpenApiRouter<AppState> {
    let game_token = SecurityScheme::Http(
        HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(
                "The operator's game token (BGREF_GAME_TOKEN), for the refereed game flow \
                 (POST /games, /games/act, /games/verify, /games/export): given to the game \
                 server that stands between the players and bgref. When it is configured \
                 every game operation needs it (401 `unauthorized` without it); when it is \
                 not, the game flow is open and no token is needed",
            ))
            .build(),
    );
    let doc = OpenApiBuilder::new()
        .components(Some(
            ComponentsBuilder::new()
                .security_scheme("game_token", game_token)
                .build(),
        ))
        .build();
    OpenApiRouter::with_openapi(doc)
        .routes(routes!(new_game))
        .routes(routes!(act))
        .routes(routes!(verify))
        .routes(routes!(export))
}

/// Starts a refereed game or match.
///
/// Every variant: the tables games (`portes`, `tavla`, `plakoto`,
/// `fevga`, `long-nardy`) are played without the cube, and `tavli: true`
/// starts a Tavli match (Portes, Plakoto and Fevga in rotation).
///
/// Answers the first state token (signed with the service's Ed25519 key,
/// verifiable with `GET /dice/keys`) and what it shows: the opening roll is
/// due. The referee rolls every die of the match from the commit-reveal
/// stream of `match_id` and `client_seed` (`GET /dice/commitment` gives the
/// commitment to publish).
#[utoipa::path(post, path = "/games", tag = "games", operation_id = "new_game",
    request_body = NewGameRequest,
    security((), ("game_token" = [])),
    responses(
        (status = 200, description = "The first state", body = GameResponse),
        (status = 400, description = "Malformed request, match id, seed, match or rules", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A game token is configured and none or a wrong one was given (`unauthorized`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The ledger holds this match already (`match-exists`)", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`payload-too-large`; BGREF_MAX_BODY_BYTES, 64 KiB by default)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The ledger does not answer (`ledger-unavailable`): nothing was done; send it again later", body = Problem, content_type = "application/problem+json")))]
#[tracing::instrument(target = "bgref_service::handler", name = "new_game", skip_all, fields(match_id = tracing::field::Empty))]
pub async fn new_game(
    State(state): State<AppState>,
    _access: GameAccess,
    ApiJson(req): ApiJson<NewGameRequest>,
) -> Result<Json<GameResponse>, ApiError> {
    let started = crate::referee::new_game(&state, &req.into_input()?).await?;
    Ok(Json((&started).into()))
}

/// Takes one action on a game: roll, double, take, pass, beaver, raccoon,
/// move, resign, accept, reject or next_game.
///
/// The referee checks the token's signature, that it is this player's turn
/// and phase, and the rules; it rolls the dice itself (the roll's signed
/// receipt comes with the answer). A refused action is a 422 problem with
/// a stable slug: `not-your-turn`, `wrong-phase`, a cube refusal
/// (`not-your-cube`, `crawford-game`, ...; `no-cube-in-variant` in the
/// tables games), `illegal-play`, `ambiguous-play`, `too-many-offers` (a
/// game allows 32 resignation offers). A bad token is a 400
/// (`invalid-state-token`, `unknown-key`, `wrong-match`).
#[utoipa::path(post, path = "/games/act", tag = "games", operation_id = "act",
    request_body = ActRequest,
    security((), ("game_token" = [])),
    responses(
        (status = 200, description = "The new state and what happened", body = ActResponse),
        (status = 400, description = "Malformed request or state token", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A game token is configured and none or a wrong one was given (`unauthorized`), or the seat is missing or not a seat of this match (`invalid-seat`)", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The seat is the other player's than `player` (`not-your-seat`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "The ledger holds no such match (`unknown-match`: never started on it, or expired)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The state token is not the match's head (`stale-state`, naming the head's game and turn)", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`payload-too-large`; BGREF_MAX_BODY_BYTES, 64 KiB by default)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The rules refuse the action (`not-your-turn`, `wrong-phase`, a cube refusal, `illegal-play`, `ambiguous-play`, `too-many-offers`: the game has had its 32 resignation offers)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The ledger does not answer (`ledger-unavailable`): nothing was done; send it again later", body = Problem, content_type = "application/problem+json")))]
#[tracing::instrument(target = "bgref_service::handler", name = "act", skip_all, fields(match_id = tracing::field::Empty))]
pub async fn act(
    State(state): State<AppState>,
    _access: GameAccess,
    ApiJson(req): ApiJson<ActRequest>,
) -> Result<Response, ApiError> {
    let acted = crate::referee::act(&state, &req.into()).await?;
    let heavy = offload::answer_is_heavy(acted.game.plays_shown());
    let answer = move || match ActResponse::json(&acted) {
        Ok(body) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response(),
        Err(_) => Json(ActResponse::from(&acted)).into_response(),
    };
    if heavy {
        // A doubles roll's plays in every encoding: written off the
        // runtime's threads, as the view was computed.
        return Ok(offload::run(answer).await);
    }
    Ok(answer())
}

/// Replays a transcript from its new game: every action legal, every roll
/// the referee's roll for its turn, and (if given) the final state reached
/// exactly. A refused action is a verdict (`valid: false`), not an error.
#[utoipa::path(post, path = "/games/verify", tag = "games", operation_id = "verify_game",
    request_body = VerifyGameRequest,
    security((), ("game_token" = [])),
    responses(
        (status = 200, description = "The verdict", body = VerifyGameResponse),
        (status = 400, description = "Malformed request", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A game token is configured and none or a wrong one was given (`unauthorized`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "With a ledger: it holds no such match (`unknown-match`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "With a ledger: the transcript does not end at the match's head (`stale-state`)", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the transcript limit (`payload-too-large`; BGREF_MAX_TRANSCRIPT_BYTES, 2 MiB by default: a 20 000-action transcript, the most replayed)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The ledger does not answer (`ledger-unavailable`): nothing was done; send it again later", body = Problem, content_type = "application/problem+json")))]
#[tracing::instrument(target = "bgref_service::handler", name = "verify_game", skip_all, fields(match_id = tracing::field::Empty))]
pub async fn verify(
    State(state): State<AppState>,
    _access: GameAccess,
    TranscriptJson(req): TranscriptJson<VerifyGameRequest>,
) -> Result<Json<VerifyGameResponse>, ApiError> {
    let verdict = crate::referee::verify(&state, req.into_input()?).await?;
    Ok(Json((&verdict).into()))
}

/// Writes a transcript as a match file GNU Backgammon imports.
///
/// Replays the transcript from its new game (as `/games/verify` does) and
/// writes it in the Jellyfish `.mat` text format, which gnubg's `import
/// mat` reads (a CI step imports such files into GNU Backgammon and checks
/// every position, cube action and score). A refused action is a 422
/// `illegal-transcript` naming it; the tables games cannot be written in
/// that format (422 `not-exportable`).
#[utoipa::path(post, path = "/games/export", tag = "games", operation_id = "export_game",
    request_body = ExportGameRequest,
    security((), ("game_token" = [])),
    responses(
        (status = 200, description = "The match file", body = ExportGameResponse),
        (status = 400, description = "Malformed request", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A game token is configured and none or a wrong one was given (`unauthorized`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "With a ledger: it holds no such match (`unknown-match`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "With a ledger: the transcript does not end at the match's head (`stale-state`)", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the transcript limit (`payload-too-large`; BGREF_MAX_TRANSCRIPT_BYTES, 2 MiB by default: a 20 000-action transcript, the most replayed)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An action is refused (`illegal-transcript`), or the format cannot say it (`not-exportable`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The ledger does not answer (`ledger-unavailable`): nothing was done; send it again later", body = Problem, content_type = "application/problem+json")))]
#[tracing::instrument(target = "bgref_service::handler", name = "export_game", skip_all, fields(match_id = tracing::field::Empty))]
pub async fn export(
    State(state): State<AppState>,
    _access: GameAccess,
    TranscriptJson(req): TranscriptJson<ExportGameRequest>,
) -> Result<Json<ExportGameResponse>, ApiError> {
    let exported = crate::referee::export(&state, req.into_input()?).await?;
    Ok(Json((&exported).into()))
}

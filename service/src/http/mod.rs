//! The HTTP/JSON adapter: routes, the OpenAPI document, interactive docs.

pub mod cube;
pub mod dice;
pub mod error;
pub mod extract;
pub mod moves;
pub mod ops;

use axum::Router;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use utoipa_swagger_ui::SwaggerUi;

use crate::error::{ApiError, ErrorKind};
use crate::state::AppState;

/// The document's fixed parts; paths and schemas come from the handlers.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "bgref",
        version = "0.1.0",
        description = "A stateless backgammon referee: legal moves, applying plays, verifiable dice, \
                       scoring, doubling cube and Crawford state. Every operation is also a gRPC \
                       method of `bgref.v1.Referee`. Errors are `application/problem+json` with a \
                       stable `type` slug.",
        license(name = "MIT OR Apache-2.0")
    ),
    tags(
        (name = "moves", description = "Legal moves and applying plays"),
        (name = "dice", description = "Commit-reveal dice"),
        (name = "cube", description = "Doubling cube, match state and scoring"),
        (name = "service", description = "Health and operations"),
    ),
    components(schemas(error::Problem))
)]
struct ApiDoc;

fn api_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(moves::legal_moves))
        .routes(routes!(moves::apply_move))
        .routes(routes!(ops::healthz))
        .routes(routes!(ops::readyz))
        .routes(routes!(ops::metrics))
        .merge(dice::routes())
        .merge(cube::routes())
}

/// The OpenAPI document, as committed in `openapi/openapi.json`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api_router().split_for_parts().1
}

/// The HTTP routes with `/openapi.json`, `/docs` and a problem+json 404.
pub fn router(state: AppState) -> Router {
    let (router, api) = api_router().split_for_parts();
    router
        .merge(SwaggerUi::new("/docs").url("/openapi.json", api))
        .fallback(not_found)
        .with_state(state)
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        ErrorKind::NotFound,
        "not-found",
        format!("no such endpoint: {}", uri.path()),
    )
}

//! `GET /render.svg`, `GET /render.png` and `GET /render.txt`: pictures of
//! a position.

use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use axum::http::header;
use axum::response::IntoResponse;

use super::error::Problem;
use super::types::render::RenderQuery;
use crate::api;
use crate::api::render::{RenderInput, Rendered};
use crate::error::ApiError;

/// The query as api input; a field error of the position is named by its
/// query parameter (`xgid`, not `position.xgid`).
fn input(query: Result<Query<RenderQuery>, QueryRejection>) -> Result<RenderInput, ApiError> {
    let Query(query) = query.map_err(|e| super::extract::query_problem(&e))?;
    query.into_input()
}

fn unprefixed(mut err: ApiError) -> ApiError {
    if let Some(field) = err
        .field
        .as_deref()
        .and_then(|f| f.strip_prefix("position."))
    {
        err.field = Some(field.to_owned());
    }
    err
}

/// The same bytes for the same query: cacheable.
const CACHE: &str = "public, max-age=86400";

/// The board as an SVG picture.
///
/// Drawn from the side on roll's view (its home board bottom right, points
/// numbered from its side): checkers of both players (a stack over five
/// shows its count), the bar, the borne-off checkers, the cube (centred,
/// or on its owner's side) and the dice. Self-contained (no outside fonts,
/// stylesheets or images) and deterministic; 670 x 540 user units.
#[utoipa::path(get, path = "/render.svg", tag = "render", operation_id = "render_svg",
    params(RenderQuery),
    responses(
        (status = 200, description = "The picture", body = String, content_type = "image/svg+xml"),
        (status = 400, description = "Malformed, missing or inconsistent position, cube, match or dice; an unknown parameter (`invalid-query`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "render_svg", skip_all)]
pub async fn render_svg(
    query: Result<Query<RenderQuery>, QueryRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let Rendered(svg) = api::render::svg(&input(query)?).map_err(unprefixed)?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, CACHE),
        ],
        svg,
    ))
}

/// The board as a PNG picture, for chat embeds and apps that show images.
///
/// `/render.svg`'s picture rasterised (resvg, with DejaVu Sans embedded:
/// the same pixels on every replica), 670 x 540 pixels, 8-bit RGBA; the
/// same parameters, the same refusals.
#[utoipa::path(get, path = "/render.png", tag = "render", operation_id = "render_png",
    params(RenderQuery),
    responses(
        (status = 200, description = "The picture", body = Vec<u8>, content_type = "image/png"),
        (status = 400, description = "Malformed, missing or inconsistent position, cube, match or dice; an unknown parameter (`invalid-query`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "render_png", skip_all)]
pub async fn render_png(
    query: Result<Query<RenderQuery>, QueryRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let input = input(query)?;
    let png = api::render::png_off_the_workers(input)
        .await
        .map_err(unprefixed)?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::CACHE_CONTROL, CACHE),
        ],
        png,
    ))
}

/// The board as GNU Backgammon's text board.
///
/// What gnubg 1.07 prints for `show board` and then `show pipcount`, for
/// a session whose player 0 is named x and player 1 o: gnubg letters its
/// player 0 (bgref's x) `O` and player 1 (bgref's o) `X`; point numbers
/// are the side on roll's; the Position ID and Match ID lines, the cube,
/// the scores and the roll as gnubg writes them.
#[utoipa::path(get, path = "/render.txt", tag = "render", operation_id = "render_text",
    params(RenderQuery),
    responses(
        (status = 200, description = "The text board", body = String, content_type = "text/plain; charset=utf-8"),
        (status = 400, description = "Malformed, missing or inconsistent position, cube, match or dice; an unknown parameter (`invalid-query`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[tracing::instrument(target = "bgref_service::handler", name = "render_text", skip_all)]
pub async fn render_text(
    query: Result<Query<RenderQuery>, QueryRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let Rendered(text) = api::render::text(&input(query)?).map_err(unprefixed)?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, CACHE),
        ],
        text,
    ))
}

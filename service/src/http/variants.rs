//! `GET /variants`.

use axum::Json;

use super::types::variants::VariantsResponse;
use crate::api;

/// Lists the variants served.
///
/// Each with its name, checker count, starting position (x on roll) in all
/// three encodings, and which rules apply (cube, gammons, backgammons).
#[utoipa::path(get, path = "/variants", tag = "moves", operation_id = "list_variants",
    responses((status = 200, description = "The variants", body = VariantsResponse)))]
#[tracing::instrument(target = "bgref_service::handler", name = "list_variants", skip_all)]
pub async fn variants() -> Json<VariantsResponse> {
    Json((&api::variants::list()).into())
}

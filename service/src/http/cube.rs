//! Cube and scoring endpoints (filled in by the cube work).

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

/// The cube and scoring routes.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
}

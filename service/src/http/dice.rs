//! Dice endpoints (filled in by the dice work).

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

/// The dice routes.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
}

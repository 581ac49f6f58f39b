//! Liveness and readiness.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use crate::state::AppState;

/// Health status.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`, or `shutting_down` on readiness while draining.
    pub status: &'static str,
}

/// Liveness: the process serves requests.
#[utoipa::path(get, path = "/healthz", tag = "service", responses((status = 200, body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// Readiness: 200 while accepting traffic, 503 once shutdown has begun.
#[utoipa::path(get, path = "/readyz", tag = "service",
    responses((status = 200, body = Health), (status = 503, body = Health)))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Health>) {
    if state.is_ready() {
        (StatusCode::OK, Json(Health { status: "ok" }))
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health {
                status: "shutting_down",
            }),
        )
    }
}

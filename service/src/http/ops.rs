//! Liveness, readiness and metrics.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::{Extension, Json};
use serde::Serialize;
use utoipa::ToSchema;

use crate::metrics::Metrics;
use crate::state::AppState;

/// Health status.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`, or `shutting_down` on readiness while draining.
    #[schema(schema_with = health_status)]
    pub status: &'static str,
}

fn health_status() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some([
            "ok",
            "shutting_down",
            "ledger_unavailable",
            "overloaded",
        ]))
        .description(Some(
            "`ok`; on readiness `shutting_down` while draining, `ledger_unavailable` while the \
             ledger (BGREF_LEDGER_URL) does not answer, `overloaded` while every slot of \
             BGREF_MAX_CONCURRENCY is taken.",
        ))
        .build()
}

/// Liveness: the process serves requests.
#[utoipa::path(get, path = "/healthz", tag = "service", responses((status = 200, description = "The process serves requests", body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// Readiness: 200 while accepting traffic; 503 once shutdown has begun,
/// while the ledger does not answer, or while every slot of
/// `BGREF_MAX_CONCURRENCY` is taken (answered by the concurrency gate).
#[utoipa::path(get, path = "/readyz", tag = "service",
    responses(
        (status = 200, description = "Ready: accepting traffic", body = Health),
        (status = 503, description = "Shutting down, the ledger does not answer, or overloaded: send traffic elsewhere", body = Health)))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Health>) {
    let status = if !state.is_ready() {
        "shutting_down"
    } else if state.ledger.as_ref().is_some_and(|l| !l.is_reachable()) {
        "ledger_unavailable"
    } else {
        return (StatusCode::OK, Json(Health { status: "ok" }));
    };
    (StatusCode::SERVICE_UNAVAILABLE, Json(Health { status }))
}

/// Prometheus metrics: request counts and latency histograms per protocol
/// (HTTP, gRPC), operation and outcome (HTTP status, gRPC code).
#[utoipa::path(get, path = "/metrics", tag = "service",
    responses((status = 200, description = "Prometheus text exposition format 0.0.4",
        body = String, content_type = "text/plain; version=0.0.4; charset=utf-8")))]
pub async fn metrics(metrics: Option<Extension<Metrics>>) -> impl IntoResponse {
    let body = metrics.map(|Extension(m)| m.render()).unwrap_or_default();
    ([(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)], body)
}

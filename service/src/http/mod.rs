//! The HTTP/JSON adapter: routes, the OpenAPI document, interactive docs.

pub mod cube;
pub mod dice;
pub mod error;
pub mod examples;
pub mod extract;
pub mod games;
pub mod moves;
pub mod ops;
pub mod render;
pub mod types;
pub mod variants;

use axum::Router;
use axum::http::StatusCode;
use axum::response::Response;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use utoipa_swagger_ui::{Config as SwaggerConfig, SwaggerUi};

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
                       method of `bgref.v1.Referee` (the pictures: `bgref.v1.Render`). Errors are `application/problem+json` with a \
                       stable `type` slug.",
        license(name = "MIT OR Apache-2.0", identifier = "MIT OR Apache-2.0")
    ),
    servers((url = "/", description = "The server that serves this document")),
    // Only POST /dice/reveal needs credentials (its own `security`).
    security(()),
    tags(
        (name = "moves", description = "Legal moves and applying plays"),
        (name = "dice", description = "Commit-reveal dice"),
        (name = "cube", description = "Doubling cube, match state and scoring"),
        (name = "games", description = "Refereed games: an authenticated state token, server-rolled dice, transcripts"),
        (name = "render", description = "Pictures of a position: SVG, PNG and gnubg's text board"),
        (name = "service", description = "Health and operations"),
    ),
    components(schemas(error::Problem))
)]
struct ApiDoc;

fn api_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(moves::legal_moves))
        .routes(routes!(moves::apply_move))
        .routes(routes!(variants::variants))
        .routes(routes!(render::render_svg))
        .routes(routes!(render::render_png))
        .routes(routes!(render::render_text))
        .routes(routes!(ops::healthz))
        .routes(routes!(ops::readyz))
        .routes(routes!(ops::metrics))
        .merge(dice::routes())
        .merge(cube::routes())
        .merge(games::routes())
}

/// The OpenAPI document, as committed in `openapi/openapi.json`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut doc = api_router().split_for_parts().1;
    examples::apply(&mut doc);
    doc
}

/// The HTTP routes with `/openapi.json`, `/docs` (`GET /` redirects
/// there), the `/play/` page and a problem+json 404, under `/docs/` too. The Swagger UI asks
/// no outside validator for a badge: the page makes no request beyond this
/// server.
pub fn router(state: AppState) -> Router {
    let (router, mut api) = api_router().split_for_parts();
    examples::apply(&mut api);
    let docs = Router::<AppState>::from(
        SwaggerUi::new("/docs")
            .url("/openapi.json", api)
            .config(SwaggerConfig::default().validator_url("none")),
    )
    .layer(axum::middleware::from_fn(docs_not_found));
    router
        .route(
            "/",
            axum::routing::get(|| async { axum::response::Redirect::to("/docs/") }),
        )
        .route("/play/", axum::routing::get(play_page))
        .route(
            "/play",
            axum::routing::get(|| async { axum::response::Redirect::to("/play/") }),
        )
        .merge(docs)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

/// `GET /play/`: a small self-contained page (no outside script, style or
/// font) to play a match or a money session on this service, hot-seat:
/// the browser holds both seats. It calls the JSON API like any client
/// (`docs/api.md`, "A page to play on"); `scripts/ci-play.sh` plays a
/// whole match through it in Chromium.
async fn play_page() -> impl axum::response::IntoResponse {
    use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY};
    (
        [
            (CACHE_CONTROL, "no-cache"),
            // This server only; the page's own inline script and style;
            // the `.mat` download is a blob URL.
            (
                CONTENT_SECURITY_POLICY,
                "default-src 'self'; script-src 'self' 'unsafe-inline'; \
                 style-src 'self' 'unsafe-inline'; img-src 'self'; connect-src 'self'; \
                 frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
            ),
        ],
        axum::response::Html(include_str!("play.html")),
    )
}

/// A known path asked with a method it does not answer: a problem document
/// (axum keeps its `Allow` header).
async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    tracing::warn!(slug = "method-not-allowed", %method, "request refused");
    error::problem_response(
        StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        format!("{} does not answer {method}", uri.path()),
        None,
    )
}

/// The Swagger UI answers a path under `/docs/` that it does not have with
/// an empty 404: made the problem document of every other unknown path.
async fn docs_not_found(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let uri = request.uri().clone();
    let response = next.run(request).await;
    if response.status() == StatusCode::NOT_FOUND {
        return axum::response::IntoResponse::into_response(not_found(uri).await);
    }
    response
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        ErrorKind::NotFound,
        "not-found",
        format!("no such endpoint: {}", uri.path()),
    )
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use http_body_util::BodyExt as _;
    use serde_json::Value;
    use tower::ServiceExt as _;

    use crate::config::Config;
    use crate::keys::DiceKeys;
    use crate::state::AppState;

    async fn call(method: &str, path: &str) -> (axum::http::response::Parts, Value) {
        let config = Config::defaults();
        let state = AppState::new(DiceKeys::from_config(&config.dice).unwrap());
        let request = axum::http::Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .unwrap();
        let response = super::router(state).oneshot(request).await.unwrap();
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await.unwrap().to_bytes();
        (parts, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn a_compressed_body_is_a_415_saying_what_to_send() {
        let config = Config::defaults();
        let state = AppState::new(DiceKeys::from_config(&config.dice).unwrap());
        for path in ["/legal-moves", "/games/verify"] {
            let request = axum::http::Request::builder()
                .method("POST")
                .uri(path)
                .header("content-type", "application/json")
                .header("content-encoding", "br")
                .body(Body::from(vec![0x1f, 0x8b, 8, 0]))
                .unwrap();
            let response = super::router(state.clone()).oneshot(request).await.unwrap();
            let (parts, body) = response.into_parts();
            let bytes = body.collect().await.unwrap().to_bytes();
            let problem: Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(parts.status, 415, "{path}: {problem}");
            assert_eq!(parts.headers["accept-encoding"], "gzip");
            assert_eq!(problem["type"], "unsupported-media-type");
            let detail = problem["detail"].as_str().unwrap();
            assert!(detail.contains("encoding br") && detail.contains("gzipped"));
        }
    }

    #[tokio::test]
    async fn a_wrong_method_is_a_405_problem_with_allow() {
        let (parts, body) = call("DELETE", "/legal-moves").await;
        assert_eq!(parts.status, 405);
        assert_eq!(parts.headers["content-type"], "application/problem+json");
        assert_eq!(parts.headers["allow"], "POST");
        assert_eq!(body["type"], "method-not-allowed");
        assert_eq!(body["status"], 405);
        assert_eq!(body["detail"], "/legal-moves does not answer DELETE");

        let (parts, body) = call("POST", "/dice/keys").await;
        assert_eq!(parts.status, 405);
        assert_eq!(parts.headers["allow"], "GET,HEAD");
        assert_eq!(body["type"], "method-not-allowed");
    }

    async fn call_text(path: &str) -> (axum::http::response::Parts, String) {
        let config = Config::defaults();
        let state = AppState::new(DiceKeys::from_config(&config.dice).unwrap());
        let request = axum::http::Request::builder()
            .uri(path)
            .body(Body::empty())
            .unwrap();
        let response = super::router(state).oneshot(request).await.unwrap();
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await.unwrap().to_bytes();
        (parts, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[tokio::test]
    async fn root_redirects_to_the_docs_which_ask_no_outside_validator() {
        let (parts, _) = call_text("/").await;
        assert_eq!(parts.status, 303);
        assert_eq!(parts.headers["location"], "/docs/");
        let (parts, page) = call_text("/docs/swagger-initializer.js").await;
        assert_eq!(parts.status, 200);
        assert!(page.contains(r#""validatorUrl": "none""#), "{page}");
        assert!(page.contains("/openapi.json"), "{page}");
    }

    #[tokio::test]
    async fn an_unknown_path_is_a_404_problem() {
        let (parts, body) = call("GET", "/no-such-thing").await;
        assert_eq!(parts.status, 404);
        assert_eq!(parts.headers["content-type"], "application/problem+json");
        assert_eq!(body["type"], "not-found");
    }

    /// The Swagger UI used to answer an unknown file with an empty 404.
    #[tokio::test]
    async fn an_unknown_path_under_docs_is_a_404_problem() {
        for path in ["/docs/x", "/docs/no/such/file.js"] {
            let (parts, body) = call("GET", path).await;
            assert_eq!(parts.status, 404, "{path}");
            assert_eq!(parts.headers["content-type"], "application/problem+json");
            assert_eq!(body["type"], "not-found");
            assert_eq!(body["detail"], format!("no such endpoint: {path}"));
        }
        // What the UI has is still served.
        let (parts, page) = call_text("/docs/").await;
        assert_eq!(parts.status, 200);
        assert!(page.contains("swagger"), "{page}");
    }
}

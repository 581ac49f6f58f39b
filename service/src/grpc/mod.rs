//! The gRPC adapter: `bgref.v1.Referee` plus health and reflection, as axum
//! routes that share the HTTP port.

pub mod common;
pub mod cube;
pub mod dice;
pub mod error;
pub mod games;
pub mod moves;
pub mod render;
pub mod tables;

use axum::Router;
use tonic::server::NamedService;
use tonic::{Request, Response, Status};
use tower::ServiceExt as _;

use crate::api;
use crate::error::ApiError;
use crate::proto;
use crate::proto::referee_server::{Referee, RefereeServer};
use crate::state::AppState;

/// The Referee service: each method converts and calls `api`.
#[derive(Debug, Clone)]
pub struct RefereeService {
    state: AppState,
}

impl RefereeService {
    /// The service over shared state.
    pub fn new(state: AppState) -> RefereeService {
        RefereeService { state }
    }
}

type Reply<T> = Result<Response<T>, Status>;

impl RefereeService {
    /// The game flow's token check, before the message is converted (see
    /// [`api::games::check_game_access`]).
    fn check_game_access<M>(&self, request: &Request<M>) -> Result<(), ApiError> {
        api::games::check_game_access(&self.state.dice, authorization(request).as_deref())
    }
}

/// The `authorization` metadata (`Bearer <token>`), if it is text.
fn authorization<M>(request: &Request<M>) -> Option<String> {
    request
        .metadata()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The one shape of every method: the message parsed into the api input,
/// the operation, the answer rendered.
fn call<M, I, A, R>(request: Request<M>, op: impl FnOnce(&I) -> Result<A, ApiError>) -> Reply<R>
where
    M: TryInto<I>,
    ApiError: From<M::Error>,
    R: for<'a> From<&'a A>,
{
    let input = request.into_inner().try_into().map_err(ApiError::from)?;
    Ok(Response::new(R::from(&op(&input)?)))
}

/// LegalMoves, rendered (off the runtime's threads when the answer may be
/// large: [`crate::offload`]).
fn legal_moves_reply(input: &api::moves::LegalMovesInput) -> Reply<proto::LegalMovesResponse> {
    Ok(Response::new(
        (&api::moves::legal_moves_reply(input)?).into(),
    ))
}

#[tonic::async_trait]
impl Referee for RefereeService {
    #[tracing::instrument(name = "LegalMoves", skip_all)]
    async fn legal_moves(
        &self,
        request: Request<proto::LegalMovesRequest>,
    ) -> Reply<proto::LegalMovesResponse> {
        let input: api::moves::LegalMovesInput = request.into_inner().try_into()?;
        if crate::offload::legal_moves_may_be_heavy(&input.turn) {
            return crate::offload::run(move || legal_moves_reply(&input)).await;
        }
        legal_moves_reply(&input)
    }

    #[tracing::instrument(name = "ApplyMove", skip_all)]
    async fn apply_move(
        &self,
        request: Request<proto::ApplyMoveRequest>,
    ) -> Reply<proto::ApplyMoveResponse> {
        call(request, api::tables::apply_move)
    }

    #[tracing::instrument(name = "ListVariants", skip_all)]
    async fn list_variants(
        &self,
        request: Request<proto::ListVariantsRequest>,
    ) -> Reply<proto::ListVariantsResponse> {
        call(request, |_: &proto::ListVariantsRequest| {
            Ok(api::variants::list())
        })
    }

    #[tracing::instrument(name = "RollDice", skip_all)]
    async fn roll_dice(
        &self,
        request: Request<proto::RollDiceRequest>,
    ) -> Reply<proto::RollDiceResponse> {
        let authorization = authorization(&request);
        call(request, |input| {
            api::dice::roll(&self.state.dice, input, authorization.as_deref())
        })
    }

    #[tracing::instrument(name = "OpeningRoll", skip_all)]
    async fn opening_roll(
        &self,
        request: Request<proto::OpeningRollRequest>,
    ) -> Reply<proto::OpeningRollResponse> {
        // The token first: a caller without it learns nothing of the request.
        let authorization = authorization(&request);
        api::dice::check_roll_access(&self.state.dice, authorization.as_deref())?;
        call(request, |input| {
            api::dice::opening(&self.state.dice, input, authorization.as_deref())
        })
    }

    #[tracing::instrument(name = "GetCommitment", skip_all)]
    async fn get_commitment(
        &self,
        request: Request<proto::GetCommitmentRequest>,
    ) -> Reply<proto::GetCommitmentResponse> {
        call(request, |input: &proto::GetCommitmentRequest| {
            api::dice::commitment(&self.state.dice, Some(&input.match_id))
        })
    }

    #[tracing::instrument(name = "RevealSeed", skip_all)]
    async fn reveal_seed(
        &self,
        request: Request<proto::RevealSeedRequest>,
    ) -> Reply<proto::RevealSeedResponse> {
        let authorization = authorization(&request);
        call(request, |input: &proto::RevealSeedRequest| {
            api::dice::reveal(&self.state.dice, &input.match_id, authorization.as_deref())
        })
    }

    #[tracing::instrument(name = "VerifyDice", skip_all)]
    async fn verify_dice(
        &self,
        request: Request<proto::VerifyDiceRequest>,
    ) -> Reply<proto::VerifyDiceResponse> {
        call(request, api::dice::verify)
    }

    #[tracing::instrument(name = "GetKeys", skip_all)]
    async fn get_keys(
        &self,
        request: Request<proto::GetKeysRequest>,
    ) -> Reply<proto::GetKeysResponse> {
        call(request, |_: &proto::GetKeysRequest| {
            Ok(api::dice::keys(&self.state.dice))
        })
    }

    #[tracing::instrument(name = "ScoreGame", skip_all)]
    async fn score_game(
        &self,
        request: Request<proto::ScoreGameRequest>,
    ) -> Reply<proto::ScoreGameResponse> {
        call(request, api::tables::score_game)
    }

    #[tracing::instrument(name = "NewGame", skip_all, fields(match_id = tracing::field::Empty))]
    async fn new_game(
        &self,
        request: Request<proto::NewGameRequest>,
    ) -> Reply<proto::NewGameResponse> {
        self.check_game_access(&request)?;
        call(request, |input| {
            api::games::new_game(&self.state.dice, input)
        })
    }

    #[tracing::instrument(name = "Act", skip_all, fields(match_id = tracing::field::Empty))]
    async fn act(&self, request: Request<proto::ActRequest>) -> Reply<proto::ActResponse> {
        self.check_game_access(&request)?;
        call(request, |input| api::games::act(&self.state.dice, input))
    }

    #[tracing::instrument(name = "VerifyGame", skip_all, fields(match_id = tracing::field::Empty))]
    async fn verify_game(
        &self,
        request: Request<proto::VerifyGameRequest>,
    ) -> Reply<proto::VerifyGameResponse> {
        self.check_game_access(&request)?;
        call(request, |input| api::games::verify(&self.state.dice, input))
    }

    #[tracing::instrument(name = "ExportGame", skip_all, fields(match_id = tracing::field::Empty))]
    async fn export_game(
        &self,
        request: Request<proto::ExportGameRequest>,
    ) -> Reply<proto::ExportGameResponse> {
        self.check_game_access(&request)?;
        call(request, |input| api::games::export(&self.state.dice, input))
    }

    #[tracing::instrument(name = "ResolveCube", skip_all)]
    async fn resolve_cube(
        &self,
        request: Request<proto::ResolveCubeRequest>,
    ) -> Reply<proto::ResolveCubeResponse> {
        call(request, api::cube::resolve_cube)
    }
}

/// Adds one tonic service at its `/package.Service/*` path (as tonic's own
/// `Routes` does, minus its catch-all fallback, so HTTP keeps its 404),
/// speaking gRPC-Web too (`application/grpc-web`, `application/grpc-web-text`,
/// over HTTP/1.1 or HTTP/2), for browsers; plain gRPC passes through.
fn route<S>(router: Router, svc: S) -> Router
where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
            Error = std::convert::Infallible,
        > + NamedService
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let svc = tower::Layer::layer(&tonic_web::GrpcWebLayer::new(), svc);
    router.route_service(
        &format!("/{}/{{*rest}}", S::NAME),
        svc.map_request(|req: http::Request<axum::body::Body>| req.map(tonic::body::Body::new)),
    )
}

/// The gRPC routes: Referee, Render, `grpc.health.v1.Health` and server
/// reflection.
///
/// # Panics
/// If the embedded descriptor set is corrupt (a build error).
pub fn router(
    state: AppState,
    max_message_bytes: usize,
) -> (Router, tonic_health::server::HealthReporter) {
    let referee =
        RefereeServer::new(RefereeService::new(state)).max_decoding_message_size(max_message_bytes);
    let (reporter, health) = tonic_health::server::health_reporter();
    // One message size limit for every gRPC service (tonic's default is 4 MiB).
    let health = health.max_decoding_message_size(max_message_bytes);
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("embedded descriptor set")
        .max_decoding_message_size(max_message_bytes);
    let reflection_alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()
        .expect("embedded descriptor set")
        .max_decoding_message_size(max_message_bytes);
    let router = route(Router::new(), referee);
    let router = route(
        router,
        proto::render_server::RenderServer::new(render::RenderService)
            .max_decoding_message_size(max_message_bytes),
    );
    let router = route(router, health);
    let router = route(router, reflection);
    let router = route(router, reflection_alpha);
    (router, reporter)
}

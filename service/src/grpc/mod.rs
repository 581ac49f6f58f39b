//! The gRPC adapter: `bgref.v1.Referee` plus health and reflection, as axum
//! routes that share the HTTP port. Every method converts its prost
//! request and answer; LegalMoves, whose answer's message tree cost more
//! than computing it, writes its answer's protobuf bytes directly
//! ([`RefereeRoutes`], [`moves_wire`]).

pub mod common;
pub mod cube;
pub mod dice;
pub mod error;
pub mod games;
pub mod moves;
pub mod moves_wire;
pub mod render;
pub mod tables;
pub mod wire;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::Router;
use tonic::codegen::BoxFuture;
use tonic::server::{NamedService, UnaryService};
use tonic::{Request, Response, Status};

use crate::api;
use crate::error::ApiError;
use crate::http::extract::BodyLimits;
use crate::layers::RequestLayers;
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

/// LegalMoves: the request read, then the answer computed and rendered by
/// `render`: at once, or off the runtime's threads when the answer may be
/// large ([`crate::offload`]).
fn legal_moves<R: Send + 'static>(
    request: Request<proto::LegalMovesRequest>,
    render: fn(&api::moves::LegalMovesReply) -> R,
) -> Answer<R> {
    let input: api::moves::LegalMovesInput = match request.into_inner().try_into() {
        Ok(input) => input,
        Err(err) => return Answer::Ready(Some(Err(Status::from(err)))),
    };
    let heavy = crate::offload::legal_moves_may_be_heavy(&input.turn);
    let answer = move || -> Reply<R> {
        Ok(Response::new(render(&api::moves::legal_moves_reply(
            &input,
        )?)))
    };
    if heavy {
        return Answer::Offloaded(crate::offload::run(answer));
    }
    Answer::Ready(Some(answer()))
}

/// The answer of [`legal_moves`]: ready, or being computed off the
/// runtime's threads. Not a boxed future: most answers are ready when the
/// method is called.
enum Answer<R> {
    /// Ready (`None` once taken).
    Ready(Option<Reply<R>>),
    /// Offloaded.
    Offloaded(BoxFuture<Response<R>, Status>),
}

impl<R: Unpin> Future for Answer<R> {
    type Output = Reply<R>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Reply<R>> {
        match self.get_mut() {
            Answer::Ready(answer) => Poll::Ready(
                answer
                    .take()
                    .unwrap_or_else(|| Err(Status::internal("LegalMoves polled after its answer"))),
            ),
            Answer::Offloaded(work) => work.as_mut().poll(cx),
        }
    }
}

/// LegalMoves as served: the answer written as protobuf directly
/// ([`moves_wire`]), the same bytes as [`Referee::legal_moves`]'s message,
/// in the method's span (as `#[instrument]` gives the other methods).
fn legal_moves_encoded(request: Request<proto::LegalMovesRequest>) -> Answer<wire::Encoded> {
    let span = tracing::info_span!(target: crate::telemetry::HANDLER_TARGET, "LegalMoves");
    match span.in_scope(|| legal_moves(request, moves_wire::encode)) {
        Answer::Offloaded(work) => {
            Answer::Offloaded(Box::pin(tracing::Instrument::instrument(work, span)))
        }
        ready => ready,
    }
}

#[tonic::async_trait]
impl Referee for RefereeService {
    /// The prost message of the answer. The router does not call this:
    /// [`RefereeRoutes`] answers LegalMoves with the same bytes written
    /// directly (`legal_moves_encoded`); the tests compare the two.
    #[tracing::instrument(target = "bgref_service::handler", name = "LegalMoves", skip_all)]
    async fn legal_moves(
        &self,
        request: Request<proto::LegalMovesRequest>,
    ) -> Reply<proto::LegalMovesResponse> {
        legal_moves(request, |reply| reply.into()).await
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "ApplyMove", skip_all)]
    async fn apply_move(
        &self,
        request: Request<proto::ApplyMoveRequest>,
    ) -> Reply<proto::ApplyMoveResponse> {
        call(request, api::moves::apply_move)
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "ListVariants", skip_all)]
    async fn list_variants(
        &self,
        request: Request<proto::ListVariantsRequest>,
    ) -> Reply<proto::ListVariantsResponse> {
        call(request, |_: &proto::ListVariantsRequest| {
            Ok(api::variants::list())
        })
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "RollDice", skip_all)]
    async fn roll_dice(
        &self,
        request: Request<proto::RollDiceRequest>,
    ) -> Reply<proto::RollDiceResponse> {
        let authorization = authorization(&request);
        call(request, |input| {
            api::dice::roll(&self.state.dice, input, authorization.as_deref())
        })
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "OpeningRoll", skip_all)]
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

    #[tracing::instrument(target = "bgref_service::handler", name = "GetCommitment", skip_all)]
    async fn get_commitment(
        &self,
        request: Request<proto::GetCommitmentRequest>,
    ) -> Reply<proto::GetCommitmentResponse> {
        call(request, |input: &proto::GetCommitmentRequest| {
            api::dice::commitment(&self.state.dice, Some(&input.match_id))
        })
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "RevealSeed", skip_all)]
    async fn reveal_seed(
        &self,
        request: Request<proto::RevealSeedRequest>,
    ) -> Reply<proto::RevealSeedResponse> {
        let authorization = authorization(&request);
        call(request, |input: &proto::RevealSeedRequest| {
            api::dice::reveal(&self.state.dice, &input.match_id, authorization.as_deref())
        })
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "VerifyDice", skip_all)]
    async fn verify_dice(
        &self,
        request: Request<proto::VerifyDiceRequest>,
    ) -> Reply<proto::VerifyDiceResponse> {
        call(request, api::dice::verify)
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "GetKeys", skip_all)]
    async fn get_keys(
        &self,
        request: Request<proto::GetKeysRequest>,
    ) -> Reply<proto::GetKeysResponse> {
        call(request, |_: &proto::GetKeysRequest| {
            Ok(api::dice::keys(&self.state.dice))
        })
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "ScoreGame", skip_all)]
    async fn score_game(
        &self,
        request: Request<proto::ScoreGameRequest>,
    ) -> Reply<proto::ScoreGameResponse> {
        call(request, api::tables::score_game)
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "NewGame", skip_all, fields(match_id = tracing::field::Empty))]
    async fn new_game(
        &self,
        request: Request<proto::NewGameRequest>,
    ) -> Reply<proto::NewGameResponse> {
        self.check_game_access(&request)?;
        let input: api::games::NewGameInput = request.into_inner().try_into()?;
        let started = crate::referee::new_game(&self.state, &input).await?;
        Ok(Response::new((&started).into()))
    }

    /// The prost message of the answer. The router does not call this:
    /// [`RefereeRoutes`] answers Act with the same bytes, the view's plays
    /// written directly (`ActMethod`); the tests compare the two.
    #[tracing::instrument(target = "bgref_service::handler", name = "Act", skip_all, fields(match_id = tracing::field::Empty))]
    async fn act(&self, request: Request<proto::ActRequest>) -> Reply<proto::ActResponse> {
        self.check_game_access(&request)?;
        let input: api::games::ActInput = request.into_inner().try_into()?;
        let acted = crate::referee::act(&self.state, &input).await?;
        Ok(Response::new((&acted).into()))
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "VerifyGame", skip_all, fields(match_id = tracing::field::Empty))]
    async fn verify_game(
        &self,
        request: Request<proto::VerifyGameRequest>,
    ) -> Reply<proto::VerifyGameResponse> {
        self.check_game_access(&request)?;
        let input: api::games::TranscriptInput = request.into_inner().try_into()?;
        let verdict = crate::referee::verify(&self.state, input).await?;
        Ok(Response::new((&verdict).into()))
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "ExportGame", skip_all, fields(match_id = tracing::field::Empty))]
    async fn export_game(
        &self,
        request: Request<proto::ExportGameRequest>,
    ) -> Reply<proto::ExportGameResponse> {
        self.check_game_access(&request)?;
        let input: api::games::TranscriptInput = request.into_inner().try_into()?;
        let exported = crate::referee::export(&self.state, input).await?;
        Ok(Response::new((&exported).into()))
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "ResolveCube", skip_all)]
    async fn resolve_cube(
        &self,
        request: Request<proto::ResolveCubeRequest>,
    ) -> Reply<proto::ResolveCubeResponse> {
        call(request, api::cube::resolve_cube)
    }
}

/// The path of LegalMoves, which [`RefereeRoutes`] answers itself.
const LEGAL_MOVES_PATH: &str = "/bgref.v1.Referee/LegalMoves";

/// The Referee service as served: LegalMoves with its answer written as
/// protobuf directly (`legal_moves_encoded`, [`wire::EncodedCodec`]),
/// every other method by the generated server. Both paths decode requests
/// with prost, under the same message size limit and with the same
/// (tonic's default) compression settings: none accepted, none sent.
#[derive(Debug, Clone)]
pub struct RefereeRoutes {
    generated: RefereeServer<RefereeService>,
    /// The same server under the transcript limit, for VerifyGame and
    /// ExportGame.
    transcripts: RefereeServer<RefereeService>,
    max_message_bytes: usize,
    /// The game token's keeper: the game flow's calls are refused before
    /// their message is decoded.
    keys: std::sync::Arc<crate::keys::DiceKeys>,
    /// The state Act's direct answer ([`ActMethod`]) works on.
    state: AppState,
}

impl RefereeRoutes {
    /// The service over shared state, taking messages up to
    /// `limits.body` bytes, and transcripts (VerifyGame, ExportGame) up to
    /// `limits.transcript`.
    pub fn new(state: AppState, limits: BodyLimits) -> RefereeRoutes {
        let keys = state.dice.clone();
        let service = RefereeService::new(state.clone());
        RefereeRoutes {
            keys,
            state,
            generated: RefereeServer::new(service.clone()).max_decoding_message_size(limits.body),
            transcripts: RefereeServer::new(service).max_decoding_message_size(limits.transcript),
            max_message_bytes: limits.body,
        }
    }
}

/// The paths of the game flow's methods, which need the game token.
const GAME_FLOW_PATHS: [&str; 4] = [
    "/bgref.v1.Referee/NewGame",
    "/bgref.v1.Referee/Act",
    "/bgref.v1.Referee/VerifyGame",
    "/bgref.v1.Referee/ExportGame",
];

impl NamedService for RefereeRoutes {
    const NAME: &'static str = <RefereeServer<RefereeService> as NamedService>::NAME;
}

impl tower::Service<http::Request<tonic::body::Body>> for RefereeRoutes {
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        tower::Service::<http::Request<tonic::body::Body>>::poll_ready(&mut self.generated, cx)
    }

    fn call(&mut self, req: http::Request<tonic::body::Body>) -> Self::Future {
        if GAME_FLOW_PATHS.contains(&req.uri().path()) {
            let authorization = req
                .headers()
                .get(http::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok());
            if let Err(err) = api::games::check_game_access(&self.keys, authorization) {
                let refused = Status::from(err).into_http();
                return Box::pin(std::future::ready(Ok(refused)));
            }
        }
        if crate::protocol::takes_transcript(req.uri().path()) {
            return self.transcripts.call(req);
        }
        if req.uri().path() == ACT_PATH {
            let mut grpc = tonic::server::Grpc::new(wire::EncodedCodec::default())
                .max_decoding_message_size(self.max_message_bytes);
            let method = ActMethod(self.state.clone());
            return Box::pin(async move { Ok(grpc.unary(method, req).await) });
        }
        if req.uri().path() != LEGAL_MOVES_PATH {
            return self.generated.call(req);
        }
        let mut grpc = tonic::server::Grpc::new(wire::EncodedCodec::default())
            .max_decoding_message_size(self.max_message_bytes);
        Box::pin(async move { Ok(grpc.unary(LegalMovesMethod, req).await) })
    }
}

/// LegalMoves as a unary method of [`RefereeRoutes`].
#[derive(Debug, Clone, Copy)]
struct LegalMovesMethod;

impl UnaryService<proto::LegalMovesRequest> for LegalMovesMethod {
    type Response = wire::Encoded;
    type Future = Answer<wire::Encoded>;

    fn call(&mut self, request: Request<proto::LegalMovesRequest>) -> Self::Future {
        legal_moves_encoded(request)
    }
}

/// The path of Act, which [`RefereeRoutes`] answers itself.
const ACT_PATH: &str = "/bgref.v1.Referee/Act";

/// Act as a unary method of [`RefereeRoutes`]: the generated server's
/// `act`, its answer written by [`games::encode_act`] (the same bytes).
#[derive(Clone)]
struct ActMethod(AppState);

impl UnaryService<proto::ActRequest> for ActMethod {
    type Response = wire::Encoded;
    type Future = BoxFuture<Response<wire::Encoded>, Status>;

    fn call(&mut self, request: Request<proto::ActRequest>) -> Self::Future {
        let state = self.0.clone();
        let span = tracing::info_span!(
            target: crate::telemetry::HANDLER_TARGET,
            "Act",
            match_id = tracing::field::Empty
        );
        let work = async move {
            let input: api::games::ActInput = request.into_inner().try_into()?;
            let acted = crate::referee::act(&state, &input).await?;
            Ok(Response::new(wire::Encoded(games::encode_act(&acted))))
        };
        Box::pin(tracing::Instrument::instrument(work, span))
    }
}

/// A tonic service as an axum service: speaking gRPC-Web too
/// (`application/grpc-web`, `application/grpc-web-text`, over HTTP/1.1 or
/// HTTP/2), for browsers (plain gRPC passes through), and answering with
/// axum's body. (tonic-web takes axum's request body as it is.) A gRPC-Web
/// answer's status is noted for the metrics and log before tonic-web
/// writes it into the body ([`crate::metrics::GrpcWebStatus`]).
type Adapted<S> = tower::util::MapResponse<
    tonic_web::GrpcWebService<crate::metrics::NoteGrpcWebStatus<S>>,
    fn(http::Response<tonic::body::Body>) -> axum::response::Response,
>;

/// See [`Adapted`].
fn adapt<S>(svc: S) -> Adapted<S> {
    tower::util::MapResponse::new(
        tower::Layer::layer(
            &tonic_web::GrpcWebLayer::new(),
            crate::metrics::NoteGrpcWebStatus(svc),
        ),
        (|res: http::Response<tonic::body::Body>| res.map(axum::body::Body::new)) as fn(_) -> _,
    )
}

/// A tonic service behind the request layers ([`RequestLayers::apply`]),
/// speaking gRPC-Web too ([`Adapted`]), under the name of the service it
/// wraps: what tonic's `Routes` mounts, at `/package.Service/{*rest}`.
/// (`Routes` hands it tonic's body; the layers read axum's.)
struct Named<S, T> {
    inner: T,
    named: std::marker::PhantomData<fn() -> S>,
}

impl<S, T: Clone> Clone for Named<S, T> {
    fn clone(&self) -> Self {
        Named {
            inner: self.inner.clone(),
            named: std::marker::PhantomData,
        }
    }
}

impl<S> Named<S, ()>
where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
            Error = Infallible,
        > + NamedService
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    /// `svc` behind `layers`.
    fn layered(
        svc: S,
        layers: &RequestLayers,
    ) -> Named<
        S,
        impl tower::Service<
            axum::extract::Request,
            Response = axum::response::Response,
            Error = Infallible,
            Future: Send + 'static,
        >
        + Clone
        + Send
        + Sync
        + 'static
        + use<S>,
    > {
        Named {
            inner: layers.apply(adapt(svc)),
            named: std::marker::PhantomData,
        }
    }
}

impl<S: NamedService, T> NamedService for Named<S, T> {
    const NAME: &'static str = S::NAME;
}

impl<S, T> tower::Service<http::Request<tonic::body::Body>> for Named<S, T>
where
    T: tower::Service<axum::extract::Request>,
{
    type Response = T::Response;
    type Error = T::Error;
    type Future = T::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), T::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<tonic::body::Body>) -> T::Future {
        self.inner.call(req.map(axum::body::Body::new))
    }
}

/// The gRPC services: Referee, Render, `grpc.health.v1.Health` and server
/// reflection, each behind `layers`, and what adds their routes to a
/// router (any number of routers: the services and the health status are
/// shared).
///
/// The routes are added to the router that serves them with tonic's
/// `Routes` (`Routes::from(router)`, so HTTP keeps its own 404), not
/// merged into it: `Router::merge` puts each route of a service in a
/// second boxed `Route`, cloned for every call (three allocations and a
/// future per call, issue 11).
///
/// # Panics
/// If the embedded descriptor set is corrupt (a build error).
pub(crate) fn routes(
    state: AppState,
    limits: BodyLimits,
    layers: &RequestLayers,
) -> (
    impl Fn(Router) -> Router + use<>,
    tonic_health::server::HealthReporter,
) {
    let referee = RefereeRoutes::new(state, limits);
    let max_message_bytes = limits.body;
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
    let render = proto::render_server::RenderServer::new(render::RenderService)
        .max_decoding_message_size(max_message_bytes);
    let layers = layers.clone();
    let add = move |router: Router| {
        tonic::service::Routes::from(router)
            .add_service(Named::layered(referee.clone(), &layers))
            .add_service(Named::layered(render.clone(), &layers))
            .add_service(Named::layered(health.clone(), &layers))
            .add_service(Named::layered(reflection.clone(), &layers))
            .add_service(Named::layered(reflection_alpha.clone(), &layers))
            .into_axum_router()
    };
    (add, reporter)
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt as _;
    use prost::Message as _;

    use tonic::service::Routes;

    use super::{RefereeRoutes, RefereeService};
    use crate::config::Config;
    use crate::keys::DiceKeys;
    use crate::metrics::Metrics;
    use crate::proto;
    use crate::proto::referee_server::RefereeServer;
    use crate::state::AppState;

    /// Everything a client receives: status, headers, body, trailers.
    type Answer = (
        http::StatusCode,
        http::HeaderMap,
        Vec<u8>,
        Option<http::HeaderMap>,
    );

    /// How a request is sent.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Framing {
        /// gRPC over HTTP/2.
        Grpc,
        /// gRPC with the message said to be gzip-compressed.
        Gzip,
        /// gRPC-Web.
        Web,
    }

    /// `request` sent to `router`.
    async fn send(router: axum::Router, request: http::Request<axum::body::Body>) -> Answer {
        use tower::ServiceExt as _;
        let response = router.oneshot(request).await.unwrap();
        let (parts, body) = response.into_parts();
        let collected = body.collect().await.unwrap();
        let trailers = collected.trailers().cloned();
        (
            parts.status,
            parts.headers,
            collected.to_bytes().to_vec(),
            trailers,
        )
    }

    /// A LegalMoves request carrying `message`.
    fn legal_moves_request(message: &[u8], framing: Framing) -> http::Request<axum::body::Body> {
        let mut framed = vec![u8::from(framing == Framing::Gzip)];
        framed.extend_from_slice(&u32::try_from(message.len()).unwrap().to_be_bytes());
        framed.extend_from_slice(message);
        let builder = http::Request::builder()
            .version(http::Version::HTTP_2)
            .method("POST")
            .uri("http://127.0.0.1/bgref.v1.Referee/LegalMoves")
            .header("te", "trailers");
        let builder = match framing {
            Framing::Grpc => builder.header("content-type", "application/grpc"),
            Framing::Gzip => builder
                .header("content-type", "application/grpc")
                .header("grpc-encoding", "gzip")
                .header("grpc-accept-encoding", "gzip"),
            Framing::Web => builder.header("content-type", "application/grpc-web+proto"),
        };
        builder.body(axum::body::Body::from(framed)).unwrap()
    }

    /// A LegalMovesRequest: the opening position (as a Position ID) or
    /// `board`, x on roll.
    fn message(
        variant: proto::Variant,
        board: Option<[i32; 24]>,
        dice: [u32; 2],
        fields: &[&str],
    ) -> Vec<u8> {
        let encoding = match board {
            Some(points) => proto::position_input::Encoding::Board(proto::Board {
                points: points.to_vec(),
                turn: proto::Player::X.into(),
                ..proto::Board::default()
            }),
            None => proto::position_input::Encoding::PositionId("4HPwATDgc/ABMA".to_owned()),
        };
        proto::LegalMovesRequest {
            variant: variant.into(),
            position: Some(proto::PositionInput {
                encoding: Some(encoding),
                turn: proto::Player::Unspecified.into(),
            }),
            dice: dice.to_vec(),
            fields: fields.iter().map(|&f| f.to_owned()).collect(),
            ..proto::LegalMovesRequest::default()
        }
        .encode_to_vec()
    }

    /// Whatever the request, the router's LegalMoves (the answer written
    /// directly, [`RefereeRoutes`]) answers exactly what the generated
    /// server (the prost message) answers: the same status, headers, body
    /// bytes and trailers, for answers small and large (offloaded), fields,
    /// errors with their details, undecodable and oversized messages, a
    /// compressed message (not accepted), and gRPC-Web.
    #[tokio::test]
    async fn legal_moves_answers_the_generated_servers_bytes() {
        let config = Config::defaults();
        let state = AppState::new(DiceKeys::from_config(&config.dice).unwrap());
        let limit = 1024;
        let served = || {
            Routes::new(tower::Layer::layer(
                &tonic_web::GrpcWebLayer::new(),
                RefereeRoutes::new(
                    state.clone(),
                    crate::http::extract::BodyLimits {
                        body: limit,
                        transcript: limit,
                    },
                ),
            ))
            .into_axum_router()
        };
        let generated = || {
            Routes::new(tower::Layer::layer(
                &tonic_web::GrpcWebLayer::new(),
                RefereeServer::new(RefereeService::new(state.clone()))
                    .max_decoding_message_size(limit),
            ))
            .into_axum_router()
        };
        // x's checkers one on each of the points 10 to 24, o's all on x's
        // 1: a 3-3 has more than a thousand plays (offloaded).
        let mut spread = [0; 24];
        spread[9..24].fill(1);
        spread[0] = -15;
        // Plakoto's start: each side's 15 checkers on its 24-point.
        let mut plakoto = [0; 24];
        plakoto[23] = 15;
        plakoto[0] = -15;
        let standard = proto::Variant::Standard;
        let answered = [
            ("every field", message(standard, None, [3, 1], &[])),
            (
                "position_id",
                message(standard, None, [3, 1], &["position_id"]),
            ),
            (
                "moves and board",
                message(standard, None, [6, 6], &["moves", "board"]),
            ),
            ("offloaded", message(standard, Some(spread), [3, 3], &[])),
            (
                "tables",
                message(proto::Variant::Plakoto, Some(plakoto), [6, 5], &[]),
            ),
        ];
        let refused = [
            ("unknown field", message(standard, None, [3, 1], &["gnubg"])),
            (
                "tables fields",
                message(proto::Variant::Fevga, None, [6, 5], &["xgid"]),
            ),
            ("one die", message(standard, None, [3, 0], &[])),
            ("undecodable", vec![0x0a, 0x7f, 0x01]),
            ("oversized", message(standard, None, [3, 1], &["pips"; 200])),
        ];
        let opening = message(standard, None, [3, 1], &[]);
        let cases = answered
            .iter()
            .map(|(name, m)| (*name, m, Framing::Grpc, true))
            .chain(
                refused
                    .iter()
                    .map(|(name, m)| (*name, m, Framing::Grpc, false)),
            )
            .chain([
                ("compressed", &opening, Framing::Gzip, false),
                ("grpc-web", &opening, Framing::Web, true),
            ]);
        for (name, message, framing, ok) in cases {
            let (status, headers, body, trailers) =
                send(served(), legal_moves_request(message, framing)).await;
            let reference = send(generated(), legal_moves_request(message, framing)).await;
            assert_eq!(status, reference.0, "{name}");
            assert_eq!(headers, reference.1, "{name}");
            assert_eq!(trailers, reference.3, "{name}");
            assert!(body == reference.2, "{name}: the bodies differ");
            if framing == Framing::Web {
                // The status is in the body, after the message.
                assert!(body.len() > 1000, "{name}");
                continue;
            }
            let code = trailers
                .as_ref()
                .and_then(|t| t.get("grpc-status"))
                .or_else(|| headers.get("grpc-status"))
                .map(|c| c.to_str().unwrap().to_owned());
            if ok {
                assert_eq!(code.as_deref(), Some("0"), "{name}");
                let answer = proto::LegalMovesResponse::decode(&body[5..]).unwrap();
                assert!(!answer.plays.is_empty(), "{name}");
                if name == "offloaded" {
                    assert!(answer.plays.len() > 1000, "{}", answer.plays.len());
                }
            } else {
                assert!(
                    code.as_deref().is_some_and(|c| c != "0"),
                    "{name}: {code:?}"
                );
            }
        }
    }

    /// Each mounted service has one route, tonic's `Routes` wildcard: a
    /// known method answers, an unknown one reaches the service, which
    /// answers UNIMPLEMENTED.
    #[tokio::test]
    async fn each_service_is_one_route_and_unknown_methods_reach_the_service() {
        let config = Config::defaults();
        let state = AppState::new(DiceKeys::from_config(&config.dice).unwrap());
        let (_, stop) = tokio::sync::watch::channel(false);
        let layers = crate::layers::RequestLayers::new(&config, &Metrics::new(), stop);
        let (add_routes, _health) = super::routes(
            state,
            crate::http::extract::BodyLimits {
                body: 1024,
                transcript: 1024,
            },
            &layers,
        );
        let router = add_routes(axum::Router::new());
        let matched = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = matched.clone();
        let router = router.layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let route = request
                    .extensions()
                    .get::<axum::extract::MatchedPath>()
                    .map(|m| m.as_str().to_owned());
                seen.lock().unwrap().push(route);
                next.run(request)
            },
        ));
        let known = legal_moves_request(
            &message(proto::Variant::Standard, None, [3, 1], &[]),
            Framing::Grpc,
        );
        let (_, headers, _, trailers) = send(router.clone(), known).await;
        let code = |headers: &http::HeaderMap, trailers: &Option<http::HeaderMap>| {
            trailers
                .as_ref()
                .and_then(|t| t.get("grpc-status"))
                .or_else(|| headers.get("grpc-status"))
                .map(|c| c.to_str().unwrap().to_owned())
        };
        assert_eq!(code(&headers, &trailers).as_deref(), Some("0"));
        let mut unknown = legal_moves_request(&[], Framing::Grpc);
        *unknown.uri_mut() = "http://127.0.0.1/bgref.v1.Referee/NoSuchMethod"
            .parse()
            .unwrap();
        let (_, headers, _, trailers) = send(router, unknown).await;
        assert_eq!(code(&headers, &trailers).as_deref(), Some("12"));
        assert_eq!(
            *matched.lock().unwrap(),
            [
                Some("/bgref.v1.Referee/{*rest}".to_owned()),
                Some("/bgref.v1.Referee/{*rest}".to_owned()),
            ]
        );
    }
}

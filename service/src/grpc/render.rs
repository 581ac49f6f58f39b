//! `bgref.v1.Render`: `RenderSvg`, `RenderPng` and `RenderText`.

use bgref_core::{ByPlayer, CubeOwner, Player};
use tonic::{Request, Response, Status};

use super::call;
use super::common::{dice_in, player_in, position_in, result_in, variant_in};
use crate::api;
use crate::api::input;
use crate::api::render::{RenderInput, Rendered};
use crate::error::ApiError;
use crate::proto;
use crate::proto::render_server::Render;

/// The Render service: pictures of a position.
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderService;

impl TryFrom<Option<proto::Picture>> for RenderInput {
    type Error = ApiError;

    fn try_from(picture: Option<proto::Picture>) -> Result<Self, ApiError> {
        let p = picture.unwrap_or_default();
        let cube_owner = match proto::CubeOwner::try_from(p.cube_owner) {
            Ok(proto::CubeOwner::Unspecified) => None,
            Ok(proto::CubeOwner::Centre) => Some(CubeOwner::Centre),
            Ok(proto::CubeOwner::X) => Some(CubeOwner::Player(Player::X)),
            Ok(proto::CubeOwner::O) => Some(CubeOwner::Player(Player::O)),
            Err(_) => return Err(input::unknown_value("cube_owner", p.cube_owner)),
        };
        Ok(RenderInput {
            variant: variant_in(p.variant)?,
            position: position_in(p.position, "position")?,
            cube_value: p.cube_value.map(i64::from),
            cube_owner,
            match_length: p.match_length.map(i64::from),
            score: ByPlayer {
                x: p.score_x.map(i64::from),
                o: p.score_o.map(i64::from),
            },
            crawford: p.crawford,
            dice: dice_in(&p.dice),
            perspective: player_in(p.perspective, "perspective")?,
            cube_offered_by: player_in(p.cube_offered_by, "cube_offered_by")?,
            cube_beavers: p.cube_beavers.map(i64::from),
            resignation_by: player_in(p.resignation_by, "resignation_by")?,
            resignation_level: result_in(p.resignation_level, "resignation_level")?,
            names: ByPlayer {
                x: (!p.name_x.is_empty()).then_some(p.name_x),
                o: (!p.name_o.is_empty()).then_some(p.name_o),
            },
            last_play: (!p.last_play.is_empty()).then_some(p.last_play),
        })
    }
}

impl TryFrom<proto::RenderSvgRequest> for RenderInput {
    type Error = ApiError;

    fn try_from(req: proto::RenderSvgRequest) -> Result<Self, ApiError> {
        req.picture.try_into()
    }
}

impl TryFrom<proto::RenderPngRequest> for RenderInput {
    type Error = ApiError;

    fn try_from(req: proto::RenderPngRequest) -> Result<Self, ApiError> {
        req.picture.try_into()
    }
}

impl TryFrom<proto::RenderTextRequest> for RenderInput {
    type Error = ApiError;

    fn try_from(req: proto::RenderTextRequest) -> Result<Self, ApiError> {
        req.picture.try_into()
    }
}

impl From<&Rendered> for proto::RenderSvgResponse {
    fn from(Rendered(svg): &Rendered) -> Self {
        proto::RenderSvgResponse { svg: svg.clone() }
    }
}

impl From<&Rendered> for proto::RenderTextResponse {
    fn from(Rendered(text): &Rendered) -> Self {
        proto::RenderTextResponse { text: text.clone() }
    }
}

#[tonic::async_trait]
impl Render for RenderService {
    #[tracing::instrument(target = "bgref_service::handler", name = "RenderSvg", skip_all)]
    async fn render_svg(
        &self,
        request: Request<proto::RenderSvgRequest>,
    ) -> Result<Response<proto::RenderSvgResponse>, Status> {
        call(request, api::render::svg)
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "RenderPng", skip_all)]
    async fn render_png(
        &self,
        request: Request<proto::RenderPngRequest>,
    ) -> Result<Response<proto::RenderPngResponse>, Status> {
        let input = RenderInput::try_from(request.into_inner()).map_err(Status::from)?;
        let png = api::render::png_off_the_workers(input)
            .await
            .map_err(Status::from)?;
        Ok(Response::new(proto::RenderPngResponse { png }))
    }

    #[tracing::instrument(target = "bgref_service::handler", name = "RenderText", skip_all)]
    async fn render_text(
        &self,
        request: Request<proto::RenderTextRequest>,
    ) -> Result<Response<proto::RenderTextResponse>, Status> {
        call(request, api::render::text)
    }
}

//! Cube and scoring RPCs (filled in by the cube work).

use tonic::{Request, Status};

use crate::proto;
use crate::state::AppState;

/// ScoreGame.
pub fn score_game(
    _state: &AppState,
    _req: Request<proto::ScoreGameRequest>,
) -> Result<proto::ScoreGameResponse, Status> {
    Err(Status::unimplemented("not implemented yet"))
}

/// ResolveCube.
pub fn resolve_cube(
    _state: &AppState,
    _req: Request<proto::ResolveCubeRequest>,
) -> Result<proto::ResolveCubeResponse, Status> {
    Err(Status::unimplemented("not implemented yet"))
}

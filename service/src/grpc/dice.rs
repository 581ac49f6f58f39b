//! Dice RPCs (filled in by the dice work).

use tonic::{Request, Status};

use crate::proto;
use crate::state::AppState;

fn unimplemented() -> Status {
    Status::unimplemented("not implemented yet")
}

/// RollDice.
pub fn roll_dice(
    _state: &AppState,
    _req: Request<proto::RollDiceRequest>,
) -> Result<proto::RollDiceResponse, Status> {
    Err(unimplemented())
}

/// OpeningRoll.
pub fn opening_roll(
    _state: &AppState,
    _req: Request<proto::OpeningRollRequest>,
) -> Result<proto::OpeningRollResponse, Status> {
    Err(unimplemented())
}

/// GetCommitment.
pub fn get_commitment(
    _state: &AppState,
    _req: Request<proto::GetCommitmentRequest>,
) -> Result<proto::GetCommitmentResponse, Status> {
    Err(unimplemented())
}

/// RevealSeed.
pub fn reveal_seed(
    _state: &AppState,
    _req: Request<proto::RevealSeedRequest>,
) -> Result<proto::RevealSeedResponse, Status> {
    Err(unimplemented())
}

/// VerifyDice.
pub fn verify_dice(
    _state: &AppState,
    _req: Request<proto::VerifyDiceRequest>,
) -> Result<proto::VerifyDiceResponse, Status> {
    Err(unimplemented())
}

/// GetKeys.
pub fn get_keys(
    _state: &AppState,
    _req: Request<proto::GetKeysRequest>,
) -> Result<proto::GetKeysResponse, Status> {
    Err(unimplemented())
}

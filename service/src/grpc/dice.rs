//! `RollDice`, `OpeningRoll`, `GetCommitment`, `RevealSeed`, `VerifyDice`,
//! `GetKeys`: proto messages to and from the `wire::dice` shapes, and the
//! `api::dice` calls.

use tonic::{Request, Status};

use super::common::player_out;
use crate::api;
use crate::proto;
use crate::state::AppState;
use crate::wire::dice::{
    ClaimedRollInput, CommitmentQuery, OpeningRequest, RevealRequest, RollRequest, VerifyRequest,
};

fn dice_out(dice: [u8; 2]) -> Vec<u32> {
    dice.iter().map(|&d| u32::from(d)).collect()
}

/// RollDice.
pub fn roll_dice(
    state: &AppState,
    req: Request<proto::RollDiceRequest>,
) -> Result<proto::RollDiceResponse, Status> {
    let req = req.into_inner();
    let r = api::dice::roll(
        &state.dice,
        &RollRequest {
            match_id: req.match_id,
            client_seed: req.client_seed,
            game: i64::from(req.game),
            turn: i64::from(req.turn),
        },
    )?;
    Ok(proto::RollDiceResponse {
        match_id: r.match_id,
        client_seed: r.client_seed,
        game: r.game,
        turn: r.turn,
        dice: dice_out(r.dice),
        commitment: r.commitment,
        key_id: r.key_id,
        signature: r.signature,
    })
}

/// OpeningRoll.
pub fn opening_roll(
    state: &AppState,
    req: Request<proto::OpeningRollRequest>,
) -> Result<proto::OpeningRollResponse, Status> {
    let req = req.into_inner();
    let o = api::dice::opening(
        &state.dice,
        &OpeningRequest {
            match_id: req.match_id,
            client_seed: req.client_seed,
            game: i64::from(req.game),
        },
    )?;
    Ok(proto::OpeningRollResponse {
        match_id: o.match_id,
        client_seed: o.client_seed,
        game: o.game,
        turn: o.turn,
        x_die: u32::from(o.x_die),
        o_die: u32::from(o.o_die),
        starts: player_out(o.starts),
        ties: o.ties,
        dice: dice_out(o.dice),
        commitment: o.commitment,
        key_id: o.key_id,
        signature: o.signature,
    })
}

/// GetCommitment.
pub fn get_commitment(
    state: &AppState,
    req: Request<proto::GetCommitmentRequest>,
) -> Result<proto::GetCommitmentResponse, Status> {
    let query = CommitmentQuery {
        match_id: Some(req.into_inner().match_id),
    };
    let c = api::dice::commitment(&state.dice, &query)?;
    Ok(proto::GetCommitmentResponse {
        match_id: c.match_id,
        commitment: c.commitment,
    })
}

/// RevealSeed: the bearer token comes in the `authorization` metadata.
pub fn reveal_seed(
    state: &AppState,
    req: Request<proto::RevealSeedRequest>,
) -> Result<proto::RevealSeedResponse, Status> {
    let authorization = req
        .metadata()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = RevealRequest {
        match_id: req.into_inner().match_id,
    };
    let r = api::dice::reveal(&state.dice, &body, authorization.as_deref())?;
    Ok(proto::RevealSeedResponse {
        match_id: r.match_id,
        server_seed: r.server_seed,
        commitment: r.commitment,
    })
}

/// VerifyDice.
pub fn verify_dice(
    _state: &AppState,
    req: Request<proto::VerifyDiceRequest>,
) -> Result<proto::VerifyDiceResponse, Status> {
    let req = req.into_inner();
    let req = VerifyRequest {
        match_id: req.match_id,
        server_seed: req.server_seed,
        commitment: req.commitment,
        rolls: req
            .rolls
            .into_iter()
            .map(|r| ClaimedRollInput {
                client_seed: r.client_seed,
                game: i64::from(r.game),
                turn: i64::from(r.turn),
                dice: r.dice.iter().map(|&d| i64::from(d)).collect(),
            })
            .collect(),
    };
    let v = api::dice::verify(&req)?;
    Ok(proto::VerifyDiceResponse {
        match_id: v.match_id,
        seed_commitment: v.seed_commitment,
        commitment_matches: v.commitment_matches,
        rolls: v
            .rolls
            .into_iter()
            .map(|r| proto::RollVerdict {
                game: r.game,
                turn: r.turn,
                dice: dice_out(r.dice),
                expected: dice_out(r.expected),
                matches: r.matches,
            })
            .collect(),
        mismatches: v
            .mismatches
            .into_iter()
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect(),
        valid: v.valid,
    })
}

/// GetKeys.
pub fn get_keys(
    state: &AppState,
    _req: Request<proto::GetKeysRequest>,
) -> Result<proto::GetKeysResponse, Status> {
    let keys = api::dice::keys(&state.dice);
    Ok(proto::GetKeysResponse {
        keys: keys
            .keys
            .into_iter()
            .map(|k| proto::DiceKey {
                key_id: k.key_id,
                algorithm: k.algorithm,
                public_key: k.public_key,
                current: k.current,
            })
            .collect(),
    })
}

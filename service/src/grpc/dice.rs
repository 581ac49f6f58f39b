//! `RollDice`, `OpeningRoll`, `GetCommitment`, `RevealSeed`, `VerifyDice`,
//! `GetKeys`.

use super::common::{player_out, position_out, variant_in};
use super::cube::{cube_out, match_in, rules_in};
use crate::api::dice::{
    ClaimedRollInput, Commitment, Keys, Opening, OpeningInput, Revealed, RollInput, SignedRoll,
    Verdict, VerifyInput,
};
use crate::api::input;
use crate::error::ApiError;
use crate::proto;

fn dice_out(dice: [u8; 2]) -> Vec<u32> {
    dice.map(u32::from).to_vec()
}

impl From<proto::RollDiceRequest> for RollInput {
    fn from(req: proto::RollDiceRequest) -> Self {
        RollInput {
            match_id: req.match_id,
            client_seed: req.client_seed,
            game: i64::from(req.game),
            turn: i64::from(req.turn),
        }
    }
}

impl From<&SignedRoll> for proto::RollDiceResponse {
    fn from(r: &SignedRoll) -> Self {
        proto::RollDiceResponse {
            match_id: r.match_id.clone(),
            client_seed: r.client_seed.clone(),
            game: r.game,
            turn: r.turn,
            dice: dice_out(r.dice),
            commitment: r.commitment.clone(),
            key_id: r.key_id.clone(),
            signature: r.signature.clone().unwrap_or_default(),
        }
    }
}

impl TryFrom<proto::OpeningRollRequest> for OpeningInput {
    type Error = ApiError;

    fn try_from(req: proto::OpeningRollRequest) -> Result<Self, ApiError> {
        let variant = variant_in(req.variant)?;
        Ok(OpeningInput {
            match_id: req.match_id,
            client_seed: req.client_seed,
            game: i64::from(req.game),
            variant: input::board_only(variant, "the opening roll")?,
            tables_game: variant.game(),
            match_state: req.r#match.map(match_in),
            rules: req.rules.map(rules_in),
        })
    }
}

impl From<&Opening> for proto::OpeningRollResponse {
    fn from(o: &Opening) -> Self {
        proto::OpeningRollResponse {
            match_id: o.match_id.clone(),
            client_seed: o.client_seed.clone(),
            game: o.game,
            turn: o.turn,
            x_die: u32::from(o.x_die),
            o_die: u32::from(o.o_die),
            starts: player_out(o.starts),
            ties: o.ties,
            dice: dice_out(o.dice),
            dice_played: o.dice_played,
            commitment: o.commitment.clone(),
            key_id: o.key_id.clone(),
            signature: o.signature.clone(),
            cube: Some(cube_out(&o.cube)),
            position: Some(position_out(&o.position)),
        }
    }
}

impl From<&Commitment> for proto::GetCommitmentResponse {
    fn from(c: &Commitment) -> Self {
        proto::GetCommitmentResponse {
            match_id: c.match_id.clone(),
            commitment: c.commitment.clone(),
        }
    }
}

impl From<&Revealed> for proto::RevealSeedResponse {
    fn from(r: &Revealed) -> Self {
        proto::RevealSeedResponse {
            match_id: r.match_id.clone(),
            server_seed: r.server_seed.clone(),
            commitment: r.commitment.clone(),
        }
    }
}

impl From<proto::VerifyDiceRequest> for VerifyInput {
    fn from(req: proto::VerifyDiceRequest) -> Self {
        VerifyInput {
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
        }
    }
}

impl From<&Verdict> for proto::VerifyDiceResponse {
    fn from(v: &Verdict) -> Self {
        proto::VerifyDiceResponse {
            match_id: v.match_id.clone(),
            seed_commitment: v.seed_commitment.clone(),
            commitment_matches: v.commitment_matches,
            rolls: v
                .rolls
                .iter()
                .map(|r| proto::RollVerdict {
                    game: r.game,
                    turn: r.turn,
                    dice: dice_out(r.dice),
                    expected: dice_out(r.expected),
                    matches: r.matches,
                })
                .collect(),
            // At most MAX_VERIFY_ROLLS (1000) rolls: an index fits.
            mismatches: v
                .mismatches
                .iter()
                .map(|&i| u32::try_from(i).unwrap_or(u32::MAX))
                .collect(),
            valid: v.valid,
        }
    }
}

impl From<&Keys> for proto::GetKeysResponse {
    fn from(k: &Keys) -> Self {
        proto::GetKeysResponse {
            keys: k
                .keys
                .iter()
                .map(|k| proto::DiceKey {
                    key_id: k.key_id.clone(),
                    algorithm: k.algorithm.clone(),
                    public_key: k.public_key.clone(),
                    current: k.current,
                })
                .collect(),
        }
    }
}

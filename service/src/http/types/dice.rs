//! Dice shapes: rolls, opening rolls, commitments, reveals, verification and
//! the published keys. The bounds in the field docs are those of
//! `api::dice` (`MAX_MATCH_ID_BYTES` and friends).

use bgref_core::Player;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::common::{PlayerName, PositionOutput, VariantName};
use super::cube::{Cube, MatchInput, RulesInput};
use crate::api::dice::{
    ClaimedRollInput as ApiClaim, Commitment, Keys, Opening, OpeningInput, Revealed, RollInput,
    SignedRoll, Verdict, VerifyInput,
};
use crate::api::input;
use crate::error::ApiError;

/// Request of `POST /dice/roll`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"match_id": "match-0001", "client_seed": "alice:bob", "game": 1, "turn": 1}))]
pub struct RollRequest {
    /// The match: 1 to 128 bytes of UTF-8, no control characters. Fixes the
    /// server seed.
    #[schema(min_length = 1, max_length = 128)]
    pub match_id: String,
    /// The players' contribution, agreed after the commitment is published:
    /// 0 to 256 bytes of UTF-8, no control characters (`""` for none).
    #[schema(max_length = 256)]
    pub client_seed: String,
    /// The game of the match, 1 to 100000.
    #[schema(minimum = 1, maximum = 100000)]
    pub game: i64,
    /// The turn of the game, 1 to 10000 (turn 0 is the opening roll: use
    /// `POST /dice/opening`).
    #[schema(minimum = 1, maximum = 10000)]
    pub turn: i64,
}

/// A signed roll: `POST /dice/roll`'s response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RollResponse {
    /// As requested.
    pub match_id: String,
    /// As requested.
    pub client_seed: String,
    /// As requested.
    pub game: u32,
    /// As requested.
    pub turn: u32,
    /// The first two dice of the turn's stream, in the order dealt.
    #[schema(schema_with = super::schema::dice)]
    pub dice: [u8; 2],
    /// The match's commitment: lower-case hex of SHA-256(server_seed).
    pub commitment: String,
    /// Id of the referee's current key, which signs (see `GET /dice/keys`).
    pub key_id: String,
    /// Ed25519 signature (128 lower-case hex digits) over the UTF-8 bytes
    /// `"bgref-roll-v1\n" + match_id + "\n" + client_seed + "\n" + game + "\n" + turn + "\n" + d1 + "\n" + d2 + "\n" + commitment`,
    /// where `d1`, `d2` are the dice in order. Always in `POST /dice/roll`;
    /// in a `POST /games/act` answer only when the action asked for it
    /// (`sign_roll`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// Request of `POST /dice/opening`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"match_id": "match-0001", "client_seed": "alice:bob", "game": 1}))]
pub struct OpeningRequest {
    /// The match: 1 to 128 bytes of UTF-8, no control characters.
    #[schema(min_length = 1, max_length = 128)]
    pub match_id: String,
    /// The players' contribution: 0 to 256 bytes of UTF-8, no control characters.
    #[schema(max_length = 256)]
    pub client_seed: String,
    /// The game of the match, 1 to 100000.
    #[schema(minimum = 1, maximum = 100000)]
    pub game: i64,
    /// The variant whose starting position the answer gives (default
    /// `standard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// The match (default: money play).
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub match_state: Option<MatchInput>,
    /// Rule options: with `automatic_doubles` in money play each tied
    /// opening throw doubles the starting cube (up to that many times and
    /// `max_cube`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesInput>,
}

/// A signed opening roll: `POST /dice/opening`'s response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OpeningResponse {
    /// As requested.
    pub match_id: String,
    /// As requested.
    pub client_seed: String,
    /// As requested.
    pub game: u32,
    /// Always 0: the opening roll is read from the stream of turn 0, and
    /// signed as turn 0.
    pub turn: u32,
    /// x's die of the deciding throw.
    #[schema(minimum = 1, maximum = 6)]
    pub x_die: u8,
    /// o's die of the deciding throw (never equal to `x_die`).
    #[schema(minimum = 1, maximum = 6)]
    pub o_die: u8,
    /// The player with the higher die, who plays both dice (Portes and
    /// Tavla: rolls again, see `dice_played`).
    #[schema(value_type = PlayerName)]
    pub starts: Player,
    /// Tied throws before the deciding one (for automatic doubles).
    pub ties: u32,
    /// The opening roll: `[x_die, o_die]`.
    #[schema(schema_with = super::schema::dice)]
    pub dice: [u8; 2],
    /// Whether the starter plays `dice` as its first roll: true in the
    /// backgammon variants; false in Portes and Tavla, where the starter
    /// rolls again for its first turn (`POST /dice/roll`, turn 1).
    pub dice_played: bool,
    /// The match's commitment.
    pub commitment: String,
    /// Id of the key that signed.
    pub key_id: String,
    /// Ed25519 signature over the same bytes as a roll's, with turn `0` and
    /// the dice `[x_die, o_die]`.
    pub signature: String,
    /// The cube the game starts with: centred; with automatic doubles in
    /// money play 2^min(ties, automatic_doubles), at most `max_cube`; else 1
    /// (always 1 in Portes and Tavla, which have no cube).
    pub cube: Cube,
    /// The variant's starting position with the starter on roll.
    pub position: PositionOutput,
}

/// Query of `GET /dice/commitment`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CommitmentQuery {
    /// The match: 1 to 128 bytes of UTF-8, no control characters.
    #[serde(default)]
    #[param(
        required = true,
        min_length = 1,
        max_length = 128,
        example = "match-0001"
    )]
    pub match_id: Option<String>,
}

/// A match's commitment: `GET /dice/commitment`'s response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CommitmentResponse {
    /// As requested.
    pub match_id: String,
    /// Lower-case hex of SHA-256(server_seed): publish it before the match.
    pub commitment: String,
}

/// Request of `POST /dice/reveal`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"match_id": "match-0001"}))]
pub struct RevealRequest {
    /// The match whose seed to reveal: 1 to 128 bytes, no control characters.
    #[schema(min_length = 1, max_length = 128)]
    pub match_id: String,
}

/// A revealed seed: `POST /dice/reveal`'s response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RevealResponse {
    /// As requested.
    pub match_id: String,
    /// The match's server seed, 64 lower-case hex digits.
    pub server_seed: String,
    /// Its commitment, SHA-256(server_seed) in hex.
    pub commitment: String,
}

/// A roll to check, as it was dealt.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
pub struct ClaimedRollInput {
    /// The client seed the roll was asked with: 0 to 256 bytes, no control characters.
    #[schema(max_length = 256)]
    pub client_seed: String,
    /// The game, 1 to 100000.
    #[schema(minimum = 1, maximum = 100000)]
    pub game: i64,
    /// The turn, 0 to 10000; 0 is the opening roll, whose dice are `[x_die, o_die]`.
    #[schema(minimum = 0, maximum = 10000)]
    pub turn: i64,
    /// The two dice as dealt, in order.
    #[schema(schema_with = super::schema::dice)]
    pub dice: Vec<i64>,
}

/// Request of `POST /dice/verify`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(remote = "Self")]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"match_id": "match-0001",
    "server_seed": "6025512f08ad4012896b8d1ad5ca00f965105f03adc2205032d249edbfc8bc2b",
    "commitment": "aebb1934451e5e78c63cde858fb88b5eac408be3bd1d8cdd9baf6312ec7443cc",
    "rolls": [{"client_seed": "alice:bob", "game": 1, "turn": 0, "dice": [6, 5]},
              {"client_seed": "alice:bob", "game": 1, "turn": 1, "dice": [3, 5]}]}))]
pub struct VerifyRequest {
    /// The match (echoed): 1 to 128 bytes, no control characters.
    #[schema(min_length = 1, max_length = 128)]
    pub match_id: String,
    /// The revealed server seed: 64 hex digits.
    #[schema(min_length = 64, max_length = 64)]
    pub server_seed: String,
    /// The commitment published before the match: 64 hex digits.
    #[schema(min_length = 64, max_length = 64)]
    pub commitment: String,
    /// The rolls to check: at most 1000.
    #[schema(max_items = 1000)]
    pub rolls: Vec<ClaimedRollInput>,
}

/// The check of one claimed roll.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RollVerdict {
    /// As claimed.
    pub game: u32,
    /// As claimed.
    pub turn: u32,
    /// The dice claimed.
    #[schema(schema_with = super::schema::dice)]
    pub dice: [u8; 2],
    /// The dice the seed gives (for turn 0: the opening roll's `[x_die, o_die]`).
    #[schema(schema_with = super::schema::dice)]
    pub expected: [u8; 2],
    /// `dice == expected`, order included.
    pub matches: bool,
}

/// `POST /dice/verify`'s response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VerifyResponse {
    /// As requested.
    pub match_id: String,
    /// SHA-256 of the given seed, in hex.
    pub seed_commitment: String,
    /// Whether `seed_commitment` equals the given commitment.
    pub commitment_matches: bool,
    /// One verdict per claimed roll, in order.
    pub rolls: Vec<RollVerdict>,
    /// Indices (in `rolls`) of the rolls that do not match.
    pub mismatches: Vec<usize>,
    /// The commitment and every roll match.
    pub valid: bool,
}

fn ed25519() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(["ed25519"]))
        .description(Some("Always `ed25519`."))
        .build()
}

/// A published verification key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct KeyOutput {
    /// First 16 hex digits of SHA-256(public_key bytes).
    pub key_id: String,
    /// Always `ed25519`.
    #[schema(schema_with = ed25519)]
    pub algorithm: String,
    /// The 32-byte Ed25519 public key, 64 lower-case hex digits.
    pub public_key: String,
    /// Whether this key signs new rolls (the others verify older ones).
    pub current: bool,
}

/// `GET /dice/keys`'s response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct KeysResponse {
    /// The current key first, then retired keys kept for verification.
    pub keys: Vec<KeyOutput>,
}

impl From<RollRequest> for RollInput {
    fn from(r: RollRequest) -> Self {
        RollInput {
            match_id: r.match_id,
            client_seed: r.client_seed,
            game: r.game,
            turn: r.turn,
        }
    }
}

impl From<&SignedRoll> for RollResponse {
    fn from(r: &SignedRoll) -> Self {
        RollResponse {
            match_id: r.match_id.clone(),
            client_seed: r.client_seed.clone(),
            game: r.game,
            turn: r.turn,
            dice: r.dice,
            commitment: r.commitment.clone(),
            key_id: r.key_id.clone(),
            signature: r.signature.clone(),
        }
    }
}

impl OpeningRequest {
    /// The transport-free input.
    pub fn into_input(self) -> Result<OpeningInput, ApiError> {
        let variant = input::read_variant(self.variant.as_deref())?;
        Ok(OpeningInput {
            match_id: self.match_id,
            client_seed: self.client_seed,
            game: self.game,
            variant: input::board_only(variant, "the opening roll")?,
            tables_game: variant.game(),
            match_state: self.match_state.map(Into::into),
            rules: self.rules.map(Into::into),
        })
    }
}

impl From<&Opening> for OpeningResponse {
    fn from(o: &Opening) -> Self {
        OpeningResponse {
            match_id: o.match_id.clone(),
            client_seed: o.client_seed.clone(),
            game: o.game,
            turn: o.turn,
            x_die: o.x_die,
            o_die: o.o_die,
            starts: o.starts,
            ties: o.ties,
            dice: o.dice,
            dice_played: o.dice_played,
            commitment: o.commitment.clone(),
            key_id: o.key_id.clone(),
            signature: o.signature.clone(),
            cube: (&o.cube).into(),
            position: (&o.position).into(),
        }
    }
}

impl From<&Commitment> for CommitmentResponse {
    fn from(c: &Commitment) -> Self {
        CommitmentResponse {
            match_id: c.match_id.clone(),
            commitment: c.commitment.clone(),
        }
    }
}

impl From<&Revealed> for RevealResponse {
    fn from(r: &Revealed) -> Self {
        RevealResponse {
            match_id: r.match_id.clone(),
            server_seed: r.server_seed.clone(),
            commitment: r.commitment.clone(),
        }
    }
}

impl From<VerifyRequest> for VerifyInput {
    fn from(r: VerifyRequest) -> Self {
        VerifyInput {
            match_id: r.match_id,
            server_seed: r.server_seed,
            commitment: r.commitment,
            rolls: r
                .rolls
                .into_iter()
                .map(|c| ApiClaim {
                    client_seed: c.client_seed,
                    game: c.game,
                    turn: c.turn,
                    dice: c.dice,
                })
                .collect(),
        }
    }
}

impl From<&Verdict> for VerifyResponse {
    fn from(v: &Verdict) -> Self {
        VerifyResponse {
            match_id: v.match_id.clone(),
            seed_commitment: v.seed_commitment.clone(),
            commitment_matches: v.commitment_matches,
            rolls: v
                .rolls
                .iter()
                .map(|r| RollVerdict {
                    game: r.game,
                    turn: r.turn,
                    dice: r.dice,
                    expected: r.expected,
                    matches: r.matches,
                })
                .collect(),
            mismatches: v.mismatches.clone(),
            valid: v.valid,
        }
    }
}

impl From<&Keys> for KeysResponse {
    fn from(k: &Keys) -> Self {
        KeysResponse {
            keys: k
                .keys
                .iter()
                .map(|k| KeyOutput {
                    key_id: k.key_id.clone(),
                    algorithm: k.algorithm.clone(),
                    public_key: k.public_key.clone(),
                    current: k.current,
                })
                .collect(),
        }
    }
}

objects_only!(
    RollRequest,
    OpeningRequest,
    RevealRequest,
    ClaimedRollInput,
    VerifyRequest
);

//! Commit-reveal dice (docs/api.md, "Dice"): signed rolls and opening rolls,
//! commitments, the protected reveal, verification and the published keys.
//!
//! Every answer is a function of the configuration and the request alone,
//! so any replica with the same secrets answers alike. The scheme itself is
//! `bgref_core::verify`; this module bounds the inputs, signs, and checks
//! the reveal and roll tokens.
//!
//! Rolls and opening rolls are for the party entitled to them only: a roll
//! of `(match, game, turn)` can be asked at any time, so whoever may ask can
//! see turn n+1 before playing turn n. They need the operator's roll token
//! (a trusted game server that asks for each turn only when it is due);
//! without one configured they are disabled, and players get their dice
//! from the refereed game flow (`POST /games`), which rolls a turn only
//! when the signed game state says it is due.
//!
//! A roll's signature is Ed25519 over
//! [`verify::roll_signing_bytes`]; an opening roll is signed the same way
//! with turn 0 and the dice `[x_die, o_die]`.

use bgref_core::tables::Game;
use bgref_core::verify::{self, ClaimedRoll};
use bgref_core::{BackgammonVariant, CubeState, Dice, Die, Player, Position};

use super::cube::{MatchInput, RulesInput};
use super::view::PositionView;

use crate::error::{ApiError, ErrorKind};
use crate::keys::{ALGORITHM, DiceKeys, TokenAccess};

/// Request of `POST /dice/roll`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollInput {
    /// The match: 1 to 128 bytes of UTF-8, no control characters. Fixes the
    /// server seed.
    pub match_id: String,
    /// The players' contribution, agreed after the commitment is published:
    /// 0 to 256 bytes of UTF-8, no control characters (`""` for none).
    pub client_seed: String,
    /// The game of the match, 1 to 100000.
    pub game: i64,
    /// The turn of the game, 1 to 10000 (turn 0 is the opening roll: use
    /// `POST /dice/opening`).
    pub turn: i64,
}

/// A signed roll: `POST /dice/roll`'s response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedRoll {
    /// As requested.
    pub match_id: String,
    /// As requested.
    pub client_seed: String,
    /// As requested.
    pub game: u32,
    /// As requested.
    pub turn: u32,
    /// The first two dice of the turn's stream, in the order dealt.
    pub dice: [u8; 2],
    /// The match's commitment: lower-case hex of SHA-256(server_seed).
    pub commitment: String,
    /// Id of the referee's current key, which signs (see `GET /dice/keys`).
    pub key_id: String,
    /// Ed25519 signature (128 lower-case hex digits) over the UTF-8 bytes
    /// `"bgref-roll-v1\n" + match_id + "\n" + client_seed + "\n" + game + "\n" + turn + "\n" + d1 + "\n" + d2 + "\n" + commitment`,
    /// where `d1`, `d2` are the dice in order: always for the rolls on
    /// demand, in the game flow only when the action asked (`sign_roll`).
    pub signature: Option<String>,
}

/// Request of `POST /dice/opening`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpeningInput {
    /// The match: 1 to 128 bytes of UTF-8, no control characters.
    pub match_id: String,
    /// The players' contribution: 0 to 256 bytes of UTF-8, no control characters.
    pub client_seed: String,
    /// The game of the match, 1 to 100000.
    pub game: i64,
    /// The variant whose starting position the answer gives.
    pub variant: BackgammonVariant,
    /// Portes or Tavla, played on `variant`'s (standard) board: the opening
    /// roll only picks the starter, and there is no cube (`None`: a
    /// backgammon variant).
    pub tables_game: Option<Game>,
    /// The match (`None`: money play).
    pub match_state: Option<MatchInput>,
    /// Rule options (automatic doubles, maximum cube).
    pub rules: Option<RulesInput>,
}

/// A signed opening roll: `POST /dice/opening`'s response.
#[derive(Debug, Clone)]
pub struct Opening {
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
    pub x_die: u8,
    /// o's die of the deciding throw (never equal to `x_die`).
    pub o_die: u8,
    /// The player with the higher die, who plays both dice (or, in Portes
    /// and Tavla, rolls again: see `dice_played`).
    pub starts: Player,
    /// Tied throws before the deciding one (for automatic doubles).
    pub ties: u32,
    /// The opening roll: `[x_die, o_die]`.
    pub dice: [u8; 2],
    /// Whether the starter plays `dice` as its first roll (the backgammon
    /// variants); false in Portes and Tavla, where the starter rolls again
    /// for its first turn (turn 1).
    pub dice_played: bool,
    /// The match's commitment.
    pub commitment: String,
    /// Id of the key that signed.
    pub key_id: String,
    /// Ed25519 signature over the same bytes as a roll's, with turn `0` and
    /// the dice `[x_die, o_die]`.
    pub signature: String,
    /// The cube the game starts with (automatic doubles in money play);
    /// Portes and Tavla have no cube: always the centred 1.
    pub cube: CubeState,
    /// The variant's starting position, the starter on roll.
    pub position: PositionView,
}

/// A match's commitment: `GET /dice/commitment`'s response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commitment {
    /// As requested.
    pub match_id: String,
    /// Lower-case hex of SHA-256(server_seed): publish it before the match.
    pub commitment: String,
}

/// A revealed seed: `POST /dice/reveal`'s response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revealed {
    /// As requested.
    pub match_id: String,
    /// The match's server seed, 64 lower-case hex digits.
    pub server_seed: String,
    /// Its commitment, SHA-256(server_seed) in hex.
    pub commitment: String,
}

/// A roll to check, as it was dealt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedRollInput {
    /// The client seed the roll was asked with: 0 to 256 bytes, no control characters.
    pub client_seed: String,
    /// The game, 1 to 100000.
    pub game: i64,
    /// The turn, 0 to 10000; 0 is the opening roll, whose dice are `[x_die, o_die]`.
    pub turn: i64,
    /// The two dice as dealt, in order.
    pub dice: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyInput {
    /// The match (echoed): 1 to 128 bytes, no control characters.
    pub match_id: String,
    /// The revealed server seed: 64 hex digits.
    pub server_seed: String,
    /// The commitment published before the match: 64 hex digits.
    pub commitment: String,
    /// The rolls to check: at most 1000.
    pub rolls: Vec<ClaimedRollInput>,
}

/// The check of one claimed roll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollVerdict {
    /// As claimed.
    pub game: u32,
    /// As claimed.
    pub turn: u32,
    /// The dice claimed.
    pub dice: [u8; 2],
    /// The dice the seed gives (for turn 0: the opening roll's `[x_die, o_die]`).
    pub expected: [u8; 2],
    /// `dice == expected`, order included.
    pub matches: bool,
}

/// `POST /dice/verify`'s response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
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

/// A published verification key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedKey {
    /// First 16 hex digits of SHA-256(public_key bytes).
    pub key_id: String,
    /// Always `ed25519`.
    pub algorithm: String,
    /// The 32-byte Ed25519 public key, 64 lower-case hex digits.
    pub public_key: String,
    /// Whether this key signs new rolls (the others verify older ones).
    pub current: bool,
}

/// `GET /dice/keys`'s response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    /// The current key first, then retired keys kept for verification.
    pub keys: Vec<PublishedKey>,
}

/// Longest `match_id`, in bytes of UTF-8.
pub const MAX_MATCH_ID_BYTES: usize = 128;
/// Longest `client_seed`, in bytes of UTF-8.
pub const MAX_CLIENT_SEED_BYTES: usize = 256;
/// Largest game number (games count from 1).
pub const MAX_GAME: u32 = 100_000;
/// Largest turn number (turns count from 1; 0 is the opening roll).
pub const MAX_TURN: u32 = 10_000;
/// Most rolls one `POST /dice/verify` checks.
pub const MAX_VERIFY_ROLLS: usize = 1000;

/// Checks a text field: length in bytes within `min..=max`, no control
/// characters (a `\n` would make the signed bytes ambiguous).
fn check_text(
    value: &str,
    field: &str,
    slug: &'static str,
    min: usize,
    max: usize,
) -> Result<(), ApiError> {
    let name = field.rsplit('.').next().unwrap_or(field);
    if value.len() < min {
        return Err(ApiError::invalid(
            slug,
            field,
            format!("{name} is required: 1 to {max} bytes"),
        ));
    }
    if value.len() > max {
        return Err(ApiError::invalid(
            slug,
            field,
            format!("{name} is at most {max} bytes, got {}", value.len()),
        ));
    }
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(ApiError::invalid(
            slug,
            field,
            format!(
                "{name} must not contain control characters, found U+{:04X}",
                u32::from(c)
            ),
        ));
    }
    Ok(())
}

/// Checks a match id and, once it is known to be short and free of control
/// characters, records it on the current span (as `match_id`, when the span
/// declares that field).
pub(crate) fn check_match_id(match_id: &str, field: &str) -> Result<(), ApiError> {
    check_text(match_id, field, "invalid-match-id", 1, MAX_MATCH_ID_BYTES)?;
    tracing::Span::current().record("match_id", match_id);
    Ok(())
}

pub(crate) fn check_client_seed(client_seed: &str, field: &str) -> Result<(), ApiError> {
    check_text(
        client_seed,
        field,
        "invalid-client-seed",
        0,
        MAX_CLIENT_SEED_BYTES,
    )
}

/// A number within `min..=max`.
fn bounded(
    value: i64,
    field: &str,
    slug: &'static str,
    min: u32,
    max: u32,
    hint: &str,
) -> Result<u32, ApiError> {
    u32::try_from(value)
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| {
            let name = field.rsplit('.').next().unwrap_or(field);
            ApiError::invalid(
                slug,
                field,
                format!("{name} is {min} to {max}{hint}, got {value}"),
            )
        })
}

fn game(value: i64, field: &str) -> Result<u32, ApiError> {
    bounded(value, field, "invalid-game", 1, MAX_GAME, "")
}

/// The signature of a roll, in hex.
fn sign_roll(
    keys: &DiceKeys,
    match_id: &str,
    client_seed: &str,
    game: u32,
    turn: u32,
    dice: Dice,
    commitment: &[u8; verify::SEED_LEN],
) -> String {
    let message = verify::roll_signing_bytes(match_id, client_seed, game, turn, dice, commitment);
    verify::to_hex(&keys.sign(&message).to_bytes())
}

/// A roll's receipt: the dice of `(game, turn)` of the match, signed when
/// `sign` (one Ed25519 signature, most of a refereed roll's cost).
#[allow(clippy::too_many_arguments)]
pub(crate) fn roll_receipt(
    keys: &DiceKeys,
    match_id: &str,
    client_seed: &str,
    game: u32,
    turn: u32,
    dice: Dice,
    commitment: &[u8; 32],
    sign: bool,
) -> SignedRoll {
    SignedRoll {
        match_id: match_id.to_owned(),
        client_seed: client_seed.to_owned(),
        game,
        turn,
        dice: dice.values(),
        commitment: verify::to_hex(commitment),
        key_id: keys.key_id().to_owned(),
        signature: sign
            .then(|| sign_roll(keys, match_id, client_seed, game, turn, dice, commitment)),
    }
}

/// Lets the holder of the roll token through (`authorization` is the
/// `Authorization` header or metadata).
///
/// # Errors
/// `roll-disabled` (403) without a configured roll token, `unauthorized`
/// (401) for a missing or wrong one.
pub fn check_roll_access(keys: &DiceKeys, authorization: Option<&str>) -> Result<(), ApiError> {
    match keys.roll_access(authorization) {
        TokenAccess::Granted => Ok(()),
        TokenAccess::Disabled => Err(ApiError::new(
            ErrorKind::Forbidden,
            "roll-disabled",
            "rolling dice on demand is disabled on this service: a roll asked before its turn \
             is due would show the dice early. Play through the refereed game flow (POST \
             /games, then POST /games/act with the action `roll`): the referee rolls each \
             turn only when it is due. A trusted game server may be given the operator's \
             roll token (BGREF_DICE_ROLL_TOKEN)",
        )),
        TokenAccess::Denied => Err(ApiError::new(
            ErrorKind::Unauthenticated,
            "unauthorized",
            "rolling dice on demand needs the operator's roll token: `Authorization: Bearer \
             <token>`; none or a wrong one was given (players roll through POST /games)",
        )),
    }
}

/// The dice of one turn, signed, for the holder of the roll token.
///
/// # Errors
/// `roll-disabled` or `unauthorized` ([`check_roll_access`], before the
/// request is read), then `invalid-match-id`, `invalid-client-seed`,
/// `invalid-game`, `invalid-turn`.
pub fn roll(
    keys: &DiceKeys,
    req: &RollInput,
    authorization: Option<&str>,
) -> Result<SignedRoll, ApiError> {
    check_roll_access(keys, authorization)?;
    check_match_id(&req.match_id, "match_id")?;
    check_client_seed(&req.client_seed, "client_seed")?;
    let game = game(req.game, "game")?;
    let turn = bounded(
        req.turn,
        "turn",
        "invalid-turn",
        1,
        MAX_TURN,
        " (turn 0 is the opening roll: POST /dice/opening)",
    )?;
    let seed = keys.server_seed(&req.match_id);
    let dice = verify::roll(&seed, &req.client_seed, game, turn);
    Ok(roll_receipt(
        keys,
        &req.match_id,
        &req.client_seed,
        game,
        turn,
        dice,
        &verify::commitment(&seed),
        true,
    ))
}

/// The opening roll of a game, signed as turn 0 with the dice `[x_die,
/// o_die]`, for the holder of the roll token.
///
/// # Errors
/// `roll-disabled` or `unauthorized` ([`check_roll_access`]), then
/// `invalid-match-id`, `invalid-client-seed`, `invalid-game`.
pub fn opening(
    keys: &DiceKeys,
    req: &OpeningInput,
    authorization: Option<&str>,
) -> Result<Opening, ApiError> {
    check_roll_access(keys, authorization)?;
    check_match_id(&req.match_id, "match_id")?;
    check_client_seed(&req.client_seed, "client_seed")?;
    let game = game(req.game, "game")?;
    let seed = keys.server_seed(&req.match_id);
    let commitment = verify::commitment(&seed);
    let opening = verify::opening_roll(&seed, &req.client_seed, game);
    let cube =
        super::cube::starting_cube(opening.ties, req.match_state.as_ref(), req.rules.as_ref())?;
    // docs/variants.md, "The referee game flow": Portes and Tavla re-roll
    // after the opening roll and play without the cube.
    let (cube, dice_played) = match req.tables_game {
        Some(_) => (CubeState::START, false),
        None => (cube, true),
    };
    Ok(Opening {
        cube,
        dice_played,
        position: PositionView::new(Position::start(req.variant, opening.starts), None),
        match_id: req.match_id.clone(),
        client_seed: req.client_seed.clone(),
        game,
        turn: 0,
        x_die: opening.x_die.get(),
        o_die: opening.o_die.get(),
        starts: opening.starts,
        ties: opening.ties,
        dice: opening.dice.values(),
        commitment: verify::to_hex(&commitment),
        key_id: keys.key_id().to_owned(),
        signature: sign_roll(
            keys,
            &req.match_id,
            &req.client_seed,
            game,
            0,
            opening.dice,
            &commitment,
        ),
    })
}

/// The commitment of a match, to publish before it starts.
///
/// # Errors
/// `invalid-match-id`.
pub fn commitment(keys: &DiceKeys, match_id: Option<&str>) -> Result<Commitment, ApiError> {
    let match_id = match_id.unwrap_or_default();
    check_match_id(match_id, "match_id")?;
    let seed = keys.server_seed(match_id);
    Ok(Commitment {
        match_id: match_id.to_owned(),
        commitment: verify::to_hex(&verify::commitment(&seed)),
    })
}

/// The server seed of a match, for the holder of the reveal token.
/// `authorization` is the `Authorization` header (HTTP) or metadata (gRPC).
///
/// # Errors
/// `reveal-disabled` without a configured token, `unauthorized` for a
/// missing or wrong one (both checked before the request), then
/// `invalid-match-id`.
pub fn reveal(
    keys: &DiceKeys,
    match_id: &str,
    authorization: Option<&str>,
) -> Result<Revealed, ApiError> {
    match keys.reveal_access(authorization) {
        TokenAccess::Disabled => {
            return Err(ApiError::new(
                ErrorKind::Forbidden,
                "reveal-disabled",
                "revealing seeds is disabled on this service: the operator has configured no \
                 reveal token (BGREF_REVEAL_TOKEN)",
            ));
        }
        TokenAccess::Denied => {
            return Err(ApiError::new(
                ErrorKind::Unauthenticated,
                "unauthorized",
                "revealing a seed needs the operator's token: `Authorization: Bearer <token>`; \
                 none or a wrong one was given",
            ));
        }
        TokenAccess::Granted => {}
    }
    check_match_id(match_id, "match_id")?;
    let seed = keys.server_seed(match_id);
    tracing::info!(match_id = %match_id, "server seed revealed");
    Ok(Revealed {
        match_id: match_id.to_owned(),
        server_seed: verify::to_hex(&*seed),
        commitment: verify::to_hex(&verify::commitment(&seed)),
    })
}

/// Reads one claimed roll of a verify request.
fn claimed_roll(roll: &ClaimedRollInput, i: usize) -> Result<ClaimedRoll<'_>, ApiError> {
    let field = |name: &str| format!("rolls[{i}].{name}");
    check_client_seed(&roll.client_seed, &field("client_seed"))?;
    let game = game(roll.game, &field("game"))?;
    let turn = bounded(
        roll.turn,
        &field("turn"),
        "invalid-turn",
        0,
        MAX_TURN,
        " (0 is the opening roll)",
    )?;
    if roll.dice.len() != 2 {
        return Err(ApiError::invalid(
            "invalid-dice",
            field("dice"),
            format!("a roll is exactly two dice, got {}", roll.dice.len()),
        ));
    }
    let die = |k: usize| {
        Die::try_from(roll.dice[k]).map_err(|_| {
            ApiError::invalid(
                "invalid-dice",
                format!("rolls[{i}].dice[{k}]"),
                format!("a die shows 1 to 6, got {}", roll.dice[k]),
            )
        })
    };
    Ok(ClaimedRoll {
        client_seed: &roll.client_seed,
        game,
        turn,
        dice: Dice::new(die(0)?, die(1)?),
    })
}

/// Checks rolls against a revealed seed and the published commitment. Pure:
/// needs no secret.
///
/// # Errors
/// `invalid-match-id`, `invalid-server-seed`, `invalid-commitment`,
/// `too-many-rolls`, and per roll `invalid-client-seed`, `invalid-game`,
/// `invalid-turn`, `invalid-dice`.
pub fn verify(req: &VerifyInput) -> Result<Verdict, ApiError> {
    check_match_id(&req.match_id, "match_id")?;
    let seed = verify::parse_hex32(&req.server_seed).map_err(|e| {
        ApiError::invalid(
            "invalid-server-seed",
            "server_seed",
            format!("server_seed: {e}"),
        )
    })?;
    let commitment = verify::parse_hex32(&req.commitment).map_err(|e| {
        ApiError::invalid(
            "invalid-commitment",
            "commitment",
            format!("commitment: {e}"),
        )
    })?;
    if req.rolls.len() > MAX_VERIFY_ROLLS {
        return Err(ApiError::invalid(
            "too-many-rolls",
            "rolls",
            format!(
                "at most {MAX_VERIFY_ROLLS} rolls per request, got {}",
                req.rolls.len()
            ),
        ));
    }
    let claims = req
        .rolls
        .iter()
        .enumerate()
        .map(|(i, r)| claimed_roll(r, i))
        .collect::<Result<Vec<_>, _>>()?;
    let verdict = verify::verify_rolls(&seed, &commitment, &claims);
    Ok(Verdict {
        match_id: req.match_id.clone(),
        seed_commitment: verify::to_hex(&verdict.seed_commitment),
        commitment_matches: verdict.commitment_matches,
        mismatches: verdict.mismatches().collect(),
        valid: verdict.is_valid(),
        rolls: claims
            .iter()
            .zip(&verdict.rolls)
            .map(|(claim, check)| RollVerdict {
                game: claim.game,
                turn: claim.turn,
                dice: check.claimed.values(),
                expected: check.expected.values(),
                matches: check.matches,
            })
            .collect(),
    })
}

/// The public keys that sign (and signed) rolls.
pub fn keys(keys: &DiceKeys) -> Keys {
    Keys {
        keys: keys
            .published()
            .iter()
            .map(|k| PublishedKey {
                key_id: k.key_id.clone(),
                algorithm: ALGORITHM.to_owned(),
                public_key: verify::to_hex(k.public_key.as_bytes()),
                current: k.current,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::{Signature, VerifyingKey};

    const SECRET: [u8; 32] = {
        let mut s = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            s[i] = i as u8;
            i += 1;
        }
        s
    };

    const ROLL_TOKEN: &str = "roll-token-0123456789";
    const AUTH: Option<&str> = Some("Bearer roll-token-0123456789");

    fn keys(token: Option<&str>) -> DiceKeys {
        DiceKeys::from_parts(&SECRET, &[9u8; 32], token)
            .unwrap()
            .with_roll_token(ROLL_TOKEN)
    }

    fn roll_req(match_id: &str, client_seed: &str, game: i64, turn: i64) -> RollInput {
        RollInput {
            match_id: match_id.into(),
            client_seed: client_seed.into(),
            game,
            turn,
        }
    }

    fn verifying_key(k: &DiceKeys) -> VerifyingKey {
        let hex = &super::keys(k).keys[0].public_key;
        VerifyingKey::from_bytes(&verify::parse_hex32(hex).unwrap()).unwrap()
    }

    fn signature(hex: &str) -> Signature {
        let a = verify::parse_hex32(&hex[..64]).unwrap();
        let b = verify::parse_hex32(&hex[64..]).unwrap();
        let mut bytes = [0u8; 64];
        bytes[..32].copy_from_slice(&a);
        bytes[32..].copy_from_slice(&b);
        Signature::from_bytes(&bytes)
    }

    #[test]
    fn rolls_match_the_vectors_and_are_signed() {
        let k = keys(None);
        let r = roll(&k, &roll_req("match-0001", "alice:bob", 1, 1), AUTH).unwrap();
        assert_eq!(r.dice, [3, 5]);
        assert_eq!(
            r.commitment,
            "aebb1934451e5e78c63cde858fb88b5eac408be3bd1d8cdd9baf6312ec7443cc"
        );
        assert_eq!(r.key_id, k.key_id());
        let message = format!(
            "bgref-roll-v1\nmatch-0001\nalice:bob\n1\n1\n3\n5\n{}",
            r.commitment
        );
        verifying_key(&k)
            .verify_strict(
                message.as_bytes(),
                &signature(r.signature.as_ref().unwrap()),
            )
            .unwrap();
        // Deterministic, signature included (Ed25519 is deterministic).
        assert_eq!(
            roll(&k, &roll_req("match-0001", "alice:bob", 1, 1), AUTH).unwrap(),
            r
        );
    }

    #[test]
    fn opening_is_signed_as_turn_zero() {
        let k = keys(None);
        let req = OpeningInput {
            match_id: "match-0001".into(),
            client_seed: "alice:bob".into(),
            game: 2,
            variant: BackgammonVariant::Nackgammon,
            tables_game: None,
            match_state: None,
            rules: None,
        };
        let o = opening(&k, &req, AUTH).unwrap();
        assert_eq!((o.x_die, o.o_die, o.ties, o.turn), (1, 4, 0, 0));
        assert_eq!(o.starts, Player::O);
        assert_eq!(
            o.position.position,
            Position::start(BackgammonVariant::Nackgammon, Player::O)
        );
        assert_eq!(o.cube, CubeState::START);
        assert_eq!(o.dice, [1, 4]);
        let message = format!(
            "bgref-roll-v1\nmatch-0001\nalice:bob\n2\n0\n1\n4\n{}",
            o.commitment
        );
        verifying_key(&k)
            .verify_strict(message.as_bytes(), &signature(&o.signature))
            .unwrap();
    }

    #[test]
    fn portes_and_tavla_roll_again_without_a_cube() {
        // docs/variants.md, "The referee game flow" ([W-Pl], [Ludii-P],
        // [W-Tv], [BGE-Tv]): the opening roll only picks the starter, who
        // rolls again; no cube, whatever automatic doubles say.
        let k = keys(None);
        for game in [Game::Portes, Game::Tavla] {
            let mut seen_tie = false;
            for n in 1..200 {
                let req = OpeningInput {
                    match_id: "match-0001".into(),
                    client_seed: "alice:bob".into(),
                    game: n,
                    variant: BackgammonVariant::Standard,
                    tables_game: Some(game),
                    match_state: None,
                    rules: Some(RulesInput {
                        automatic_doubles: Some(2),
                        max_cube: Some(64),
                        ..RulesInput::default()
                    }),
                };
                let o = opening(&k, &req, AUTH).unwrap();
                assert!(!o.dice_played);
                assert_eq!(o.cube, CubeState::START, "{game} game {n}");
                seen_tie |= o.ties > 0;
                let backgammon = OpeningInput {
                    tables_game: None,
                    ..req
                };
                assert!(opening(&k, &backgammon, AUTH).unwrap().dice_played);
            }
            assert!(seen_tie);
        }
    }

    #[test]
    fn automatic_doubles_set_the_starting_cube() {
        let k = keys(None);
        let mut req = OpeningInput {
            match_id: "match-0001".into(),
            client_seed: "alice:bob".into(),
            game: 1,
            variant: BackgammonVariant::Standard,
            tables_game: None,
            match_state: None,
            rules: Some(RulesInput {
                automatic_doubles: Some(2),
                max_cube: Some(64),
                ..RulesInput::default()
            }),
        };
        // Find games of this match whose opening roll tied once, and more.
        let mut seen = [false; 3];
        for game in 1..=2000 {
            req.game = game;
            let o = opening(&k, &req, AUTH).unwrap();
            let doublings = o.ties.min(2);
            assert_eq!(o.cube.value.get(), 1 << doublings, "game {game}");
            assert_eq!(o.cube.owner, bgref_core::CubeOwner::Centre);
            seen[doublings as usize] = true;
            if doublings > 0 {
                // Capped by the maximum cube; no automatic doubles in a match.
                let mut capped = req.clone();
                capped.rules.as_mut().unwrap().max_cube = Some(1);
                assert_eq!(opening(&k, &capped, AUTH).unwrap().cube, CubeState::START);
                let mut in_match = req.clone();
                in_match.match_state = Some(MatchInput {
                    length: 5,
                    ..MatchInput::default()
                });
                assert_eq!(opening(&k, &in_match, AUTH).unwrap().cube, CubeState::START);
            }
        }
        assert_eq!(seen, [true; 3], "no opening roll tied twice in 2000 games");
    }

    #[test]
    fn limits() {
        let k = keys(None);
        let long_id = "m".repeat(MAX_MATCH_ID_BYTES + 1);
        let long_seed = "s".repeat(MAX_CLIENT_SEED_BYTES + 1);
        let cases = [
            (roll_req("", "c", 1, 1), "invalid-match-id", "match_id"),
            (
                roll_req(&long_id, "c", 1, 1),
                "invalid-match-id",
                "match_id",
            ),
            (roll_req("a\nb", "c", 1, 1), "invalid-match-id", "match_id"),
            (
                roll_req("m", &long_seed, 1, 1),
                "invalid-client-seed",
                "client_seed",
            ),
            (
                roll_req("m", "x\u{7f}", 1, 1),
                "invalid-client-seed",
                "client_seed",
            ),
            (roll_req("m", "c", 0, 1), "invalid-game", "game"),
            (roll_req("m", "c", 100_001, 1), "invalid-game", "game"),
            (roll_req("m", "c", -1, 1), "invalid-game", "game"),
            (roll_req("m", "c", 1, 0), "invalid-turn", "turn"),
            (roll_req("m", "c", 1, 10_001), "invalid-turn", "turn"),
            (roll_req("m", "c", 1, i64::MAX), "invalid-turn", "turn"),
        ];
        for (req, slug, field) in cases {
            let err = roll(&k, &req, AUTH).unwrap_err();
            assert_eq!(
                (err.slug, err.field.as_deref()),
                (slug, Some(field)),
                "{req:?}"
            );
            assert_eq!(err.kind, ErrorKind::InvalidInput);
        }
        // The bounds themselves are fine.
        let id = "é".repeat(MAX_MATCH_ID_BYTES / 2);
        let seed = "s".repeat(MAX_CLIENT_SEED_BYTES);
        roll(
            &k,
            &roll_req(&id, &seed, i64::from(MAX_GAME), i64::from(MAX_TURN)),
            AUTH,
        )
        .unwrap();
        roll(&k, &roll_req("m", "", 1, 1), AUTH).unwrap();
        let err = commitment(&k, None).unwrap_err();
        assert_eq!(err.slug, "invalid-match-id");
        assert!(err.detail.contains("required"), "{}", err.detail);
    }

    #[test]
    fn rolls_need_the_roll_token() {
        let req = roll_req("match-0001", "alice:bob", 1, 1);
        let opening_req = OpeningInput {
            match_id: "match-0001".into(),
            client_seed: String::new(),
            game: 1,
            variant: BackgammonVariant::Standard,
            tables_game: None,
            match_state: None,
            rules: None,
        };
        let disabled =
            DiceKeys::from_parts(&SECRET, &[9u8; 32], Some("reveal-token-0123456")).unwrap();
        for auth in [None, AUTH, Some("Bearer reveal-token-0123456")] {
            let err = roll(&disabled, &req, auth).unwrap_err();
            assert_eq!(
                (err.kind, err.slug),
                (ErrorKind::Forbidden, "roll-disabled")
            );
            assert!(err.detail.contains("POST /games"), "{}", err.detail);
            let err = opening(&disabled, &opening_req, auth).unwrap_err();
            assert_eq!(err.slug, "roll-disabled");
        }
        let k = keys(None);
        for auth in [None, Some("Bearer nope"), Some(ROLL_TOKEN)] {
            let err = roll(&k, &req, auth).unwrap_err();
            assert_eq!(
                (err.kind, err.slug),
                (ErrorKind::Unauthenticated, "unauthorized")
            );
            let err = opening(&k, &opening_req, auth).unwrap_err();
            assert_eq!(err.slug, "unauthorized");
        }
        // Access is checked before the request is read.
        let bad = roll_req("", "c", 0, 0);
        assert_eq!(roll(&k, &bad, None).unwrap_err().slug, "unauthorized");
        assert_eq!(roll(&k, &bad, AUTH).unwrap_err().slug, "invalid-match-id");
        assert_eq!(roll(&k, &req, AUTH).unwrap().dice, [3, 5]);
        opening(&k, &opening_req, AUTH).unwrap();
    }

    #[test]
    fn reveal_is_protected() {
        let req = "match-0001";
        let err = reveal(&keys(None), req, Some("Bearer x")).unwrap_err();
        assert_eq!(
            (err.kind, err.slug),
            (ErrorKind::Forbidden, "reveal-disabled")
        );
        let k = keys(Some("tok"));
        for auth in [None, Some("Bearer nope"), Some("tok")] {
            let err = reveal(&k, req, auth).unwrap_err();
            assert_eq!(
                (err.kind, err.slug),
                (ErrorKind::Unauthenticated, "unauthorized")
            );
        }
        let r = reveal(&k, req, Some("Bearer tok")).unwrap();
        assert_eq!(
            r.server_seed,
            "6025512f08ad4012896b8d1ad5ca00f965105f03adc2205032d249edbfc8bc2b"
        );
        let c = commitment(&k, Some("match-0001")).unwrap();
        assert_eq!(r.commitment, c.commitment);
    }

    #[test]
    fn verify_reports_each_roll() {
        let claim = |turn: i64, dice: Vec<i64>| ClaimedRollInput {
            client_seed: "alice:bob".into(),
            game: 1,
            turn,
            dice,
        };
        let mut req = VerifyInput {
            match_id: "match-0001".into(),
            server_seed: "6025512f08ad4012896b8d1ad5ca00f965105f03adc2205032d249edbfc8bc2b".into(),
            commitment: "AEBB1934451E5E78C63CDE858FB88B5EAC408BE3BD1D8CDD9BAF6312EC7443CC".into(),
            rolls: vec![
                claim(0, vec![6, 5]),
                claim(1, vec![3, 5]),
                claim(2, vec![2, 5]),
            ],
        };
        let v = verify(&req).unwrap();
        assert!(v.commitment_matches);
        assert!(!v.valid);
        assert_eq!(v.mismatches, [2]);
        assert_eq!(v.rolls[2].expected, [5, 2]);
        req.rolls.pop();
        assert!(verify(&req).unwrap().valid);

        let mut bad = req.clone();
        bad.rolls[1].dice = vec![3, 7];
        let err = verify(&bad).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("rolls[1].dice[1]"));
        let mut bad = req.clone();
        bad.rolls[0].dice = vec![3];
        assert_eq!(
            verify(&bad).unwrap_err().field.as_deref(),
            Some("rolls[0].dice")
        );
        let mut bad = req.clone();
        bad.server_seed.pop();
        assert_eq!(verify(&bad).unwrap_err().slug, "invalid-server-seed");
        let mut bad = req.clone();
        bad.commitment = "zz".into();
        assert_eq!(verify(&bad).unwrap_err().slug, "invalid-commitment");
        let mut bad = req.clone();
        bad.rolls = vec![claim(1, vec![1, 1]); MAX_VERIFY_ROLLS + 1];
        assert_eq!(verify(&bad).unwrap_err().slug, "too-many-rolls");
        bad.rolls.truncate(MAX_VERIFY_ROLLS);
        assert_eq!(verify(&bad).unwrap().rolls.len(), MAX_VERIFY_ROLLS);
    }

    #[test]
    fn keys_list_the_current_key() {
        let k = keys(None);
        let listed = super::keys(&k);
        assert_eq!(listed.keys.len(), 1);
        assert_eq!(listed.keys[0].key_id, k.key_id());
        assert_eq!(listed.keys[0].algorithm, "ed25519");
        assert!(listed.keys[0].current);
        assert_eq!(listed.keys[0].public_key.len(), 64);
    }
}

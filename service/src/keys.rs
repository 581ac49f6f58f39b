//! Dice secrets and signing keys from configuration.
//!
//! - The **master secret** (`BGREF_DICE_SECRET` or `BGREF_DICE_SECRET_FILE`):
//!   hex, at least 32 bytes. Every server seed derives from it.
//! - The **signing key** (`BGREF_SIGNING_KEY` or `BGREF_SIGNING_KEY_FILE`):
//!   the hex 32-byte seed of an Ed25519 key (RFC 8032), which signs the rolls on demand,
//!   the receipts an action asks signed and every finished game's token.
//! - **Extra verification keys** (`BGREF_VERIFY_KEYS`): hex Ed25519 public
//!   keys published at `GET /dice/keys` beside the current one, so rolls
//!   signed by a retired key still verify after a rotation.
//! - The **reveal token** (`BGREF_REVEAL_TOKEN` or `BGREF_REVEAL_TOKEN_FILE`):
//!   the operator bearer token of `POST /dice/reveal`; without one, reveal is
//!   disabled.
//! - The **roll token** (`BGREF_DICE_ROLL_TOKEN` or
//!   `BGREF_DICE_ROLL_TOKEN_FILE`): the bearer token of `POST /dice/roll` and
//!   `POST /dice/opening` (gRPC `RollDice`, `OpeningRoll`), for a trusted game
//!   server that rolls each turn only when it is due; without one, those
//!   endpoints are disabled and dice come only from the refereed game flow
//!   (`POST /games`).
//! - The **game token** (`BGREF_GAME_TOKEN` or `BGREF_GAME_TOKEN_FILE`): the
//!   bearer token of the refereed game flow (`POST /games`, `/games/act`,
//!   `/games/verify`, `/games/export`; gRPC `NewGame`, `Act`, `VerifyGame`,
//!   `ExportGame`), held by the game server that stands between the players
//!   and bgref. Without one the game flow is open (the development default)
//!   and one warning is logged: whoever can reach bgref can start a match
//!   again with the same match id and client seed (both in every roll
//!   receipt) and read the dice of a turn before it is due.
//!
//! Of these tokens only the SHA-256 is kept, and tokens are compared in
//! constant time (digests of equal length, so not even the length leaks).
//! Each must be at least [`MIN_TOKEN_CHARS`] characters.
//!
//! A value given in a file may be surrounded by white space (a trailing
//! newline, typically). An empty environment variable counts as unset; an
//! empty file is an error, and so is a token (reveal, roll, game) of white
//! space only (`BGREF_GAME_TOKEN=" "`): it was meant to be set. Setting both the variable and its `_FILE` twin is
//! an error. Without a master secret or a signing key, a random one is
//! generated for this process and one warning is logged: its rolls cannot be
//! reproduced or verified after a restart, nor by another replica.
//!
//! A **key id** is the first 16 hex digits (8 bytes) of the SHA-256 of the
//! 32-byte Ed25519 public key, so anyone can recompute it from `/dice/keys`.
//!
//! Nothing here logs, prints or returns a secret: errors name the bad option,
//! never its value, and the `Debug` impl shows only public facts.

use std::fmt;
use std::path::Path;

use bgref_core::{Player, verify};
use ed25519_dalek::{Signer as _, SigningKey};
use hmac::{Hmac, KeyInit, Mac as _};
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;
use zeroize::Zeroizing;

use crate::config::DiceConfig;

pub use ed25519_dalek::{Signature, VerifyingKey};

/// Shortest accepted master secret, in bytes.
pub const MIN_SECRET_BYTES: usize = 32;

/// Longest accepted master secret, in bytes (a sanity bound; HMAC hashes
/// longer keys down to 32 bytes anyway).
pub const MAX_SECRET_BYTES: usize = 1024;

/// The signature algorithm, as `GET /dice/keys` names it.
pub const ALGORITHM: &str = "ed25519";

/// The key id of an Ed25519 public key: the first 16 lower-case hex digits
/// of `SHA-256(public_key)`.
pub fn key_id(public_key: &VerifyingKey) -> String {
    let digest: [u8; 32] = Sha256::digest(public_key.as_bytes()).into();
    verify::to_hex(&digest[..8])
}

/// A public key published at `GET /dice/keys`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedKey {
    /// [`key_id`] of the key.
    pub key_id: String,
    /// The Ed25519 public key.
    pub public_key: VerifyingKey,
    /// Whether this is the key signing new rolls.
    pub current: bool,
}

/// The outcome of checking an `Authorization` value against a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenAccess {
    /// No token is configured: the operation is disabled.
    Disabled,
    /// No bearer token was given, or not the configured one.
    Denied,
    /// The configured token was given.
    Granted,
}

/// The loaded dice secrets and keys.
pub struct DiceKeys {
    signing_key: SigningKey,
    key_id: String,
    published: Vec<PublishedKey>,
    reveal_token_digest: Option<[u8; 32]>,
    roll_token_digest: Option<[u8; 32]>,
    game_token_digest: Option<[u8; 32]>,
    /// HMAC-SHA256 keyed with the seat key, its key blocks hashed once.
    seat_mac: Hmac<Sha256>,
    /// HMAC-SHA256 keyed with the token key, its key blocks hashed once.
    token_mac: Hmac<Sha256>,
    /// HMAC-SHA256 keyed with the master secret, its key blocks and the
    /// seed derivation's prefix hashed once ([`DiceKeys::server_seed`]).
    seed_mac: Hmac<Sha256>,
    ephemeral_secret: bool,
    ephemeral_signing_key: bool,
}

impl fmt::Debug for DiceKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<&str> = self.published.iter().map(|k| k.key_id.as_str()).collect();
        f.debug_struct("DiceKeys")
            .field("master_secret", &"<redacted>")
            .field("key_id", &self.key_id)
            .field("published", &ids)
            .field("reveal_enabled", &self.reveal_token_digest.is_some())
            .field("roll_enabled", &self.roll_token_digest.is_some())
            .field("game_token", &self.game_token_digest.is_some())
            .field("ephemeral_secret", &self.ephemeral_secret)
            .field("ephemeral_signing_key", &self.ephemeral_signing_key)
            .finish_non_exhaustive()
    }
}

/// A secret option's value: from the variable or from its file, white space
/// trimmed, `None` when neither is set.
fn read_option(
    value: Option<&str>,
    file: Option<&Path>,
    name: &str,
) -> Result<Option<Zeroizing<String>>, String> {
    let value = value.filter(|v| !v.trim().is_empty());
    match (value, file) {
        (Some(_), Some(_)) => Err(format!("set {name} or {name}_FILE, not both")),
        (Some(v), None) => Ok(Some(Zeroizing::new(v.trim().to_owned()))),
        (None, Some(path)) => {
            let text = read_bounded(path)
                .map_err(|e| format!("{name}_FILE: cannot read {}: {e}", path.display()))?;
            let trimmed = text.trim();
            if trimmed.is_empty() {
                return Err(format!("{name}_FILE: {} is empty", path.display()));
            }
            Ok(Some(Zeroizing::new(trimmed.to_owned())))
        }
        (None, None) => Ok(None),
    }
}

/// Bytes of a seat before base64url (192 bits: 32 characters).
pub const SEAT_BYTES: usize = 24;

/// HMAC-SHA256 keyed with `key`, its key blocks hashed.
fn keyed(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"))
}

/// A key derived from the master secret (`master`, keyed with it):
/// `HMAC-SHA256(master secret, label)`. The seats' key (`bgref-seat-v1`) and the tokens' MAC key
/// (`bgref-token-mac-v1`, which every replica with the same master secret
/// shares) are; the master secret is never rotated (docs/dice.md), so both
/// outlive a signing-key rotation.
fn derived_key(master: &Hmac<Sha256>, label: &[u8]) -> Zeroizing<[u8; 32]> {
    let mut mac = master.clone();
    mac.update(label);
    Zeroizing::new(mac.finalize().into_bytes().into())
}

/// Bytes of the MAC that ends every state token (128 bits).
pub const TOKEN_MAC_BYTES: usize = 16;

/// Largest secret file read, in bytes: `/dev/zero` or a log file named by
/// mistake is refused instead of read without end.
pub const MAX_SECRET_FILE_BYTES: u64 = 64 * 1024;

/// Shortest accepted reveal, roll or game token, in characters.
pub const MIN_TOKEN_CHARS: usize = 16;

/// Reads a secret file of at most [`MAX_SECRET_FILE_BYTES`].
fn read_bounded(path: &Path) -> std::io::Result<Zeroizing<String>> {
    use std::io::Read as _;
    let file = std::fs::File::open(path)?;
    let mut bytes = Zeroizing::new(Vec::new());
    file.take(MAX_SECRET_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SECRET_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "longer than {MAX_SECRET_FILE_BYTES} bytes"
        )));
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| std::io::Error::other("not UTF-8 text"))?;
    Ok(Zeroizing::new(text.to_owned()))
}

/// Decodes hex (either case); `None` on an odd length or a non-hex digit.
fn decode_hex(text: &str) -> Option<Vec<u8>> {
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes
        .chunks_exact(2)
        .map(|pair| Some((nibble(pair[0])? << 4) | nibble(pair[1])?))
        .collect()
}

fn random_bytes<const N: usize>(what: &str) -> Result<Zeroizing<[u8; N]>, String> {
    let mut bytes = Zeroizing::new([0u8; N]);
    getrandom::fill(bytes.as_mut_slice())
        .map_err(|e| format!("cannot generate an ephemeral {what}: {e}"))?;
    Ok(bytes)
}

fn master_secret(config: &DiceConfig) -> Result<Option<Zeroizing<Vec<u8>>>, String> {
    let Some(text) = read_option(
        config.dice_secret.as_deref(),
        config.dice_secret_file.as_deref(),
        "BGREF_DICE_SECRET",
    )?
    else {
        return Ok(None);
    };
    let bytes = decode_hex(&text).map(Zeroizing::new).ok_or_else(|| {
        "BGREF_DICE_SECRET: not hex (an even number of digits 0-9, a-f)".to_owned()
    })?;
    if !(MIN_SECRET_BYTES..=MAX_SECRET_BYTES).contains(&bytes.len()) {
        return Err(format!(
            "BGREF_DICE_SECRET: must be {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} bytes \
             ({} to {} hex digits), got {} bytes",
            2 * MIN_SECRET_BYTES,
            2 * MAX_SECRET_BYTES,
            bytes.len()
        ));
    }
    Ok(Some(bytes))
}

fn signing_key(config: &DiceConfig) -> Result<Option<SigningKey>, String> {
    let Some(text) = read_option(
        config.signing_key.as_deref(),
        config.signing_key_file.as_deref(),
        "BGREF_SIGNING_KEY",
    )?
    else {
        return Ok(None);
    };
    let seed = verify::parse_hex32(&text)
        .map(Zeroizing::new)
        .map_err(|_| {
            "BGREF_SIGNING_KEY: must be an Ed25519 seed of exactly 32 bytes (64 hex digits)"
                .to_owned()
        })?;
    Ok(Some(SigningKey::from_bytes(&seed)))
}

fn verify_keys(config: &DiceConfig) -> Result<Vec<VerifyingKey>, String> {
    let entries = config
        .verify_keys
        .iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty());
    let mut keys = Vec::new();
    for (i, entry) in entries.enumerate() {
        let key = verify::parse_hex32(entry)
            .ok()
            .and_then(|bytes| VerifyingKey::from_bytes(&bytes).ok())
            .ok_or_else(|| {
                format!(
                    "BGREF_VERIFY_KEYS: entry {} is not an Ed25519 public key (64 hex digits)",
                    i + 1
                )
            })?;
        keys.push(key);
    }
    Ok(keys)
}

/// A bearer token option: its SHA-256, `None` when unset (an empty
/// variable counts as unset).
///
/// # Errors
/// A value of white space only: it was meant to set the token, and a blank
/// one would leave its operation open (the game flow) or disabled without
/// a word, so it is refused by name; the errors of [`read_option`]; a
/// token shorter than [`MIN_TOKEN_CHARS`].
fn token_digest(
    value: Option<&str>,
    file: Option<&Path>,
    name: &str,
) -> Result<Option<[u8; 32]>, String> {
    if value.is_some_and(|v| !v.is_empty() && v.trim().is_empty()) {
        return Err(format!(
            "{name} is white space only: give the token (at least {MIN_TOKEN_CHARS} \
             characters), or leave it empty or unset for none"
        ));
    }
    let token = read_option(value, file, name)?;
    if let Some(t) = &token
        && t.chars().count() < MIN_TOKEN_CHARS
    {
        return Err(format!(
            "{name}: must be at least {MIN_TOKEN_CHARS} characters"
        ));
    }
    Ok(token.map(|t| Sha256::digest(t.as_bytes()).into()))
}

impl DiceKeys {
    /// Loads the secrets named by the configuration, generating an ephemeral
    /// master secret and signing key where none is configured (and logging
    /// one warning saying so).
    ///
    /// # Errors
    /// A message naming the bad option (never its value).
    pub fn from_config(config: &DiceConfig) -> Result<DiceKeys, String> {
        let secret = master_secret(config)?;
        let signing = signing_key(config)?;
        let extra = verify_keys(config)?;
        let reveal = token_digest(
            config.reveal_token.as_deref(),
            config.reveal_token_file.as_deref(),
            "BGREF_REVEAL_TOKEN",
        )?;
        let roll = token_digest(
            config.dice_roll_token.as_deref(),
            config.dice_roll_token_file.as_deref(),
            "BGREF_DICE_ROLL_TOKEN",
        )?;
        let game = token_digest(
            config.game_token.as_deref(),
            config.game_token_file.as_deref(),
            "BGREF_GAME_TOKEN",
        )?;
        let ephemeral_secret = secret.is_none();
        let ephemeral_signing_key = signing.is_none();
        let secret = match secret {
            Some(s) => s,
            None => Zeroizing::new(random_bytes::<32>("master secret")?.to_vec()),
        };
        let signing = match signing {
            Some(k) => k,
            None => SigningKey::from_bytes(&*random_bytes::<32>("signing key")?),
        };
        if ephemeral_secret || ephemeral_signing_key {
            let what = match (ephemeral_secret, ephemeral_signing_key) {
                (true, true) => "no dice secret and no signing key configured",
                (true, false) => "no dice secret configured",
                _ => "no signing key configured",
            };
            tracing::warn!(
                ephemeral_secret,
                ephemeral_signing_key,
                "{what}: using a random one for this process only; its rolls and signatures \
                 will not survive a restart nor match another replica (set BGREF_DICE_SECRET \
                 and BGREF_SIGNING_KEY, or their _FILE variants)"
            );
        }
        let mut keys = DiceKeys::new(secret, signing, &extra, reveal);
        keys.roll_token_digest = roll;
        keys.game_token_digest = game;
        keys.ephemeral_secret = ephemeral_secret;
        keys.ephemeral_signing_key = ephemeral_signing_key;
        Ok(keys)
    }

    fn new(
        master_secret: Zeroizing<Vec<u8>>,
        signing_key: SigningKey,
        extra: &[VerifyingKey],
        reveal_token_digest: Option<[u8; 32]>,
    ) -> DiceKeys {
        let current = signing_key.verifying_key();
        let key_id = key_id(&current);
        let mut published = vec![PublishedKey {
            key_id: key_id.clone(),
            public_key: current,
            current: true,
        }];
        for key in extra {
            if published.iter().all(|k| k.public_key != *key) {
                published.push(PublishedKey {
                    key_id: self::key_id(key),
                    public_key: *key,
                    current: false,
                });
            }
        }
        let master = keyed(&master_secret);
        let seat_mac = keyed(derived_key(&master, b"bgref-seat-v1").as_slice());
        let token_mac = keyed(derived_key(&master, b"bgref-token-mac-v1").as_slice());
        let mut seed_mac = master;
        seed_mac.update(verify::SEED_PREFIX);
        DiceKeys {
            seat_mac,
            token_mac,
            seed_mac,
            signing_key,
            key_id,
            published,
            reveal_token_digest,
            roll_token_digest: None,
            game_token_digest: None,
            ephemeral_secret: false,
            ephemeral_signing_key: false,
        }
    }

    /// Keys from explicit values (tests and embedding): a master secret, the
    /// signing key seed, and the reveal token if reveal is enabled.
    ///
    /// # Errors
    /// A master secret shorter than [`MIN_SECRET_BYTES`] or longer than
    /// [`MAX_SECRET_BYTES`].
    pub fn from_parts(
        master_secret: &[u8],
        signing_seed: &[u8; 32],
        reveal_token: Option<&str>,
    ) -> Result<DiceKeys, String> {
        if !(MIN_SECRET_BYTES..=MAX_SECRET_BYTES).contains(&master_secret.len()) {
            return Err(format!(
                "the master secret must be {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} bytes"
            ));
        }
        Ok(DiceKeys::new(
            Zeroizing::new(master_secret.to_vec()),
            SigningKey::from_bytes(signing_seed),
            &[],
            reveal_token.map(|t| Sha256::digest(t.as_bytes()).into()),
        ))
    }

    /// The same keys with `POST /dice/roll` and `POST /dice/opening` enabled
    /// for the holder of `token` (tests and embedding).
    #[must_use]
    pub fn with_roll_token(mut self, token: &str) -> DiceKeys {
        self.roll_token_digest = Some(Sha256::digest(token.as_bytes()).into());
        self
    }

    /// The same keys with the game flow closed to all but the holder of
    /// `token` (tests and embedding).
    #[must_use]
    pub fn with_game_token(mut self, token: &str) -> DiceKeys {
        self.game_token_digest = Some(Sha256::digest(token.as_bytes()).into());
        self
    }

    /// The server seed of a match (docs/api.md: `HMAC-SHA256(master_secret,
    /// "bgref-seed-v1:" || match_id)`). Secret until revealed.
    pub fn server_seed(&self, match_id: &str) -> Zeroizing<[u8; verify::SEED_LEN]> {
        // `verify::server_seed(master secret, match_id)`, from the HMAC
        // state keyed once (two SHA-256 blocks fewer a request).
        let mut mac = self.seed_mac.clone();
        mac.update(match_id.as_bytes());
        Zeroizing::new(mac.finalize().into_bytes().into())
    }

    /// The seat of `player` in the match whose chain starts with `start`
    /// (docs/referee.md, "Seats"): base64url of the first
    /// [`SEAT_BYTES`] bytes of `HMAC-SHA256(seat key, start || player)`,
    /// the seat key being `HMAC-SHA256(master secret, "bgref-seat-v1")`.
    /// A capability: never log it.
    pub fn seat(&self, start: &[u8; 32], player: Player) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(self.seat_bytes(start, player))
    }

    fn seat_bytes(&self, start: &[u8; 32], player: Player) -> [u8; SEAT_BYTES] {
        let mut mac = self.seat_mac.clone();
        mac.update(start);
        mac.update(match player {
            Player::X => b"x",
            Player::O => b"o",
        });
        let tag = mac.finalize().into_bytes();
        let mut out = [0u8; SEAT_BYTES];
        out.copy_from_slice(&tag[..SEAT_BYTES]);
        out
    }

    /// The player whose seat `seat` is in the match whose chain starts
    /// with `start`, compared in constant time; `None` for any other text.
    /// `likely` is checked first (one HMAC instead of two when it holds).
    pub fn seat_player(&self, start: &[u8; 32], seat: &str, likely: Player) -> Option<Player> {
        use base64::Engine as _;
        let given = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(seat.as_bytes())
            .ok()
            .filter(|b| b.len() == SEAT_BYTES)?;
        [likely, !likely]
            .into_iter()
            .find(|&p| bool::from(self.seat_bytes(start, p).ct_eq(given.as_slice())))
    }

    /// The MAC of a state token's bytes before it (docs/referee.md, "The
    /// token"): the first [`TOKEN_MAC_BYTES`] of
    /// `HMAC-SHA256(token key, bytes)`, the token key being
    /// `HMAC-SHA256(master secret, "bgref-token-mac-v1")`.
    pub fn token_mac(&self, bytes: &[u8]) -> [u8; TOKEN_MAC_BYTES] {
        let mut mac = self.token_mac.clone();
        mac.update(bytes);
        let tag = mac.finalize().into_bytes();
        let mut out = [0u8; TOKEN_MAC_BYTES];
        out.copy_from_slice(&tag[..TOKEN_MAC_BYTES]);
        out
    }

    /// Whether `tag` is the MAC of `bytes` ([`DiceKeys::token_mac`]),
    /// compared in constant time.
    pub fn token_mac_matches(&self, bytes: &[u8], tag: &[u8]) -> bool {
        let mut mac = self.token_mac.clone();
        mac.update(bytes);
        tag.len() == TOKEN_MAC_BYTES && mac.verify_truncated_left(tag).is_ok()
    }

    /// Signs `message` with the current key.
    pub fn sign(&self, message: &[u8]) -> Signature {
        self.signing_key.sign(message)
    }

    /// The id of the current signing key.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The current public key first, then the extra verification keys.
    pub fn published(&self) -> &[PublishedKey] {
        &self.published
    }

    /// Whether the master secret or the signing key was generated for this
    /// process only.
    pub fn is_ephemeral(&self) -> bool {
        self.ephemeral_secret || self.ephemeral_signing_key
    }

    /// Checks an `Authorization` value (`Bearer <token>`, the scheme in any
    /// case) against the reveal token, in constant time.
    pub fn reveal_access(&self, authorization: Option<&str>) -> TokenAccess {
        access(self.reveal_token_digest.as_ref(), authorization)
    }

    /// Checks an `Authorization` value against the roll token of
    /// `POST /dice/roll` and `POST /dice/opening`, in constant time.
    pub fn roll_access(&self, authorization: Option<&str>) -> TokenAccess {
        access(self.roll_token_digest.as_ref(), authorization)
    }

    /// Whether a game token closes the game flow.
    pub fn has_game_token(&self) -> bool {
        self.game_token_digest.is_some()
    }

    /// Checks an `Authorization` value against the game token of the
    /// refereed game flow, in constant time; [`TokenAccess::Disabled`] means
    /// no game token is configured, so the game flow is open.
    pub fn game_access(&self, authorization: Option<&str>) -> TokenAccess {
        access(self.game_token_digest.as_ref(), authorization)
    }
}

/// Compares the bearer token of `authorization` with a configured token's
/// digest: SHA-256 of the given token, then a constant-time comparison of
/// the two 32-byte digests.
fn access(expected: Option<&[u8; 32]>, authorization: Option<&str>) -> TokenAccess {
    let Some(expected) = expected else {
        return TokenAccess::Disabled;
    };
    let token = authorization.and_then(|value| {
        let (scheme, token) = value.trim().split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
    });
    let Some(token) = token else {
        return TokenAccess::Denied;
    };
    let given: [u8; 32] = Sha256::digest(token.as_bytes()).into();
    if bool::from(given.ct_eq(expected)) {
        TokenAccess::Granted
    } else {
        TokenAccess::Denied
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    const SECRET: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    // RFC 8032, section 7.1, test 1.
    const RFC_SEED: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    const RFC_PUBLIC: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

    fn config() -> DiceConfig {
        DiceConfig {
            dice_secret: Some(SECRET.into()),
            signing_key: Some(RFC_SEED.into()),
            reveal_token: Some("s3cret-token-long".into()),
            ..DiceConfig::default()
        }
    }

    fn temp_file(name: &str, contents: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("bgref-keys-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// The HMAC states keyed once give what keying HMAC-SHA256 afresh
    /// gives: the server seed of `verify::server_seed` and the seat of
    /// docs/referee.md, for match ids on both sides of SHA-256's 64-byte
    /// block (with the 14-byte prefix).
    #[test]
    fn seeds_and_seats_are_the_hmacs_keyed_afresh() {
        let secret = [7u8; 40];
        let keys = DiceKeys::from_parts(&secret, &[9u8; 32], None).unwrap();
        for len in [0, 1, 49, 50, 51, 113, 114, 128] {
            let id = "m".repeat(len);
            assert_eq!(
                *keys.server_seed(&id),
                verify::server_seed(&secret, &id),
                "{len}"
            );
        }
        let seat_key = derived_key(&keyed(&secret), b"bgref-seat-v1");
        for (start, player) in [([0u8; 32], Player::X), ([0xa5; 32], Player::O)] {
            let mut mac = keyed(seat_key.as_slice());
            mac.update(&start);
            mac.update(player.as_str().as_bytes());
            let tag = mac.finalize().into_bytes();
            assert_eq!(keys.seat_bytes(&start, player), tag[..SEAT_BYTES]);
            let seat = keys.seat(&start, player);
            assert_eq!(keys.seat_player(&start, &seat, !player), Some(player));
        }
    }

    #[test]
    fn loads_configured_keys() {
        let keys = DiceKeys::from_config(&config()).unwrap();
        assert!(!keys.is_ephemeral());
        let current = &keys.published()[0];
        assert!(current.current);
        assert_eq!(verify::to_hex(current.public_key.as_bytes()), RFC_PUBLIC);
        let digest = Sha256::digest(current.public_key.as_bytes());
        assert_eq!(keys.key_id(), &verify::to_hex(&digest)[..16]);
        assert_eq!(keys.key_id().len(), 16);
        // The seed matches the published vector.
        assert_eq!(
            verify::to_hex(&*keys.server_seed("match-0001")),
            "6025512f08ad4012896b8d1ad5ca00f965105f03adc2205032d249edbfc8bc2b"
        );
        // RFC 8032 test 1: the empty message.
        assert_eq!(
            verify::to_hex(&keys.sign(b"").to_bytes()),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155\
             5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        );
    }

    #[test]
    fn files_and_upper_case_hex() {
        let secret = temp_file("secret", &format!("  {}\n", SECRET.to_uppercase()));
        let key = temp_file("key", &format!("{RFC_SEED}\n"));
        let token = temp_file("token", "s3cret-token-long\n");
        let cfg = DiceConfig {
            dice_secret_file: Some(secret.clone()),
            signing_key_file: Some(key.clone()),
            reveal_token_file: Some(token.clone()),
            ..DiceConfig::default()
        };
        let keys = DiceKeys::from_config(&cfg).unwrap();
        let direct = DiceKeys::from_config(&config()).unwrap();
        assert_eq!(*keys.server_seed("m"), *direct.server_seed("m"));
        assert_eq!(keys.key_id(), direct.key_id());
        assert_eq!(
            keys.reveal_access(Some("Bearer s3cret-token-long")),
            TokenAccess::Granted
        );
        for p in [secret, key, token] {
            let _ = std::fs::remove_file(p);
        }
    }

    #[test]
    fn errors_name_the_option_never_the_value() {
        let bad = [
            (
                DiceConfig {
                    dice_secret: Some("zz-not-hex-value".into()),
                    ..config()
                },
                "BGREF_DICE_SECRET",
            ),
            (
                DiceConfig {
                    dice_secret: Some("abcdef0123456789".into()),
                    ..config()
                },
                "BGREF_DICE_SECRET",
            ),
            (
                DiceConfig {
                    signing_key: Some("abcdef0123456789".into()),
                    ..config()
                },
                "BGREF_SIGNING_KEY",
            ),
            (
                DiceConfig {
                    dice_secret_file: Some(PathBuf::from("/nonexistent/bgref")),
                    ..config()
                },
                "not both",
            ),
            (
                DiceConfig {
                    dice_secret: None,
                    dice_secret_file: Some(PathBuf::from("/nonexistent/bgref")),
                    ..config()
                },
                "BGREF_DICE_SECRET_FILE",
            ),
            (
                DiceConfig {
                    verify_keys: vec!["abcdef0123456789".into()],
                    ..config()
                },
                "BGREF_VERIFY_KEYS: entry 1",
            ),
        ];
        for (cfg, expected) in bad {
            let err = DiceKeys::from_config(&cfg).unwrap_err();
            assert!(err.contains(expected), "{err}");
            for secret in ["zz-not-hex-value", "abcdef0123456789", SECRET, RFC_SEED] {
                assert!(!err.contains(secret), "{err}");
            }
        }
        let empty = temp_file("empty", "\n");
        let cfg = DiceConfig {
            reveal_token: None,
            reveal_token_file: Some(empty.clone()),
            ..config()
        };
        let err = DiceKeys::from_config(&cfg).unwrap_err();
        assert!(err.contains("BGREF_REVEAL_TOKEN_FILE"), "{err}");
        let _ = std::fs::remove_file(empty);
    }

    #[test]
    fn unbounded_files_and_short_tokens_are_refused() {
        let cfg = DiceConfig {
            dice_secret: None,
            dice_secret_file: Some(PathBuf::from("/dev/zero")),
            ..config()
        };
        let err = DiceKeys::from_config(&cfg).unwrap_err();
        assert!(
            err.contains("BGREF_DICE_SECRET_FILE") && err.contains("longer than"),
            "{err}"
        );
        let cfg = DiceConfig {
            reveal_token: Some("x".into()),
            ..config()
        };
        let err = DiceKeys::from_config(&cfg).unwrap_err();
        assert!(err.contains("at least 16"), "{err}");
    }

    #[test]
    fn ephemeral_keys_differ_per_process_start() {
        let a = DiceKeys::from_config(&DiceConfig::default()).unwrap();
        let b = DiceKeys::from_config(&DiceConfig::default()).unwrap();
        assert!(a.is_ephemeral());
        assert_ne!(a.key_id(), b.key_id());
        assert_ne!(*a.server_seed("m"), *b.server_seed("m"));
        // Empty variables count as unset.
        let cfg = DiceConfig {
            dice_secret: Some(String::new()),
            signing_key: Some(" ".into()),
            reveal_token: Some(String::new()),
            ..DiceConfig::default()
        };
        let keys = DiceKeys::from_config(&cfg).unwrap();
        assert!(keys.is_ephemeral());
        assert_eq!(keys.reveal_access(Some("Bearer ")), TokenAccess::Disabled);
    }

    #[test]
    fn verify_keys_are_published_after_the_current_one() {
        let other = SigningKey::from_bytes(&[7u8; 32]).verifying_key();
        let cfg = DiceConfig {
            verify_keys: vec![
                format!("{},{}", verify::to_hex(other.as_bytes()), RFC_PUBLIC),
                String::new(),
            ],
            ..config()
        };
        let keys = DiceKeys::from_config(&cfg).unwrap();
        let published = keys.published();
        assert_eq!(published.len(), 2, "the current key is not listed twice");
        assert!(published[0].current && !published[1].current);
        assert_eq!(published[1].public_key, other);
        assert_eq!(published[1].key_id, key_id(&other));
    }

    #[test]
    fn reveal_token_checks() {
        let keys = DiceKeys::from_config(&config()).unwrap();
        for (header, access) in [
            (Some("Bearer s3cret-token-long"), TokenAccess::Granted),
            (Some("bearer  s3cret-token-long "), TokenAccess::Granted),
            (Some("Bearer s3cret-tokeN"), TokenAccess::Denied),
            (Some("Bearer s3cret"), TokenAccess::Denied),
            (Some("Basic s3cret-token-long"), TokenAccess::Denied),
            (Some("s3cret-token-long"), TokenAccess::Denied),
            (Some(""), TokenAccess::Denied),
            (None, TokenAccess::Denied),
        ] {
            assert_eq!(keys.reveal_access(header), access, "{header:?}");
        }
        let no_token = DiceConfig {
            reveal_token: None,
            ..config()
        };
        let keys = DiceKeys::from_config(&no_token).unwrap();
        assert_eq!(
            keys.reveal_access(Some("Bearer s3cret-token-long")),
            TokenAccess::Disabled
        );
    }

    #[test]
    fn the_roll_token_is_its_own() {
        let roll = temp_file("roll", "roll-token-0123456789\n");
        let cfg = DiceConfig {
            dice_roll_token_file: Some(roll.clone()),
            ..config()
        };
        let keys = DiceKeys::from_config(&cfg).unwrap();
        assert_eq!(
            keys.roll_access(Some("Bearer roll-token-0123456789")),
            TokenAccess::Granted
        );
        // Neither token opens the other's door.
        assert_eq!(
            keys.roll_access(Some("Bearer s3cret-token-long")),
            TokenAccess::Denied
        );
        assert_eq!(
            keys.reveal_access(Some("Bearer roll-token-0123456789")),
            TokenAccess::Denied
        );
        assert_eq!(keys.roll_access(None), TokenAccess::Denied);
        let _ = std::fs::remove_file(roll);
        // Without one, rolling outside the game flow is disabled.
        let keys = DiceKeys::from_config(&config()).unwrap();
        assert_eq!(
            keys.roll_access(Some("Bearer s3cret-token-long")),
            TokenAccess::Disabled
        );
        // Short, doubly given or unbounded: refused, naming the option.
        for (cfg, expected) in [
            (
                DiceConfig {
                    dice_roll_token: Some("short".into()),
                    ..config()
                },
                "BGREF_DICE_ROLL_TOKEN: must be at least 16",
            ),
            (
                DiceConfig {
                    dice_roll_token: Some("roll-token-0123456789".into()),
                    dice_roll_token_file: Some(PathBuf::from("/dev/zero")),
                    ..config()
                },
                "not both",
            ),
            (
                DiceConfig {
                    dice_roll_token_file: Some(PathBuf::from("/dev/zero")),
                    ..config()
                },
                "BGREF_DICE_ROLL_TOKEN_FILE",
            ),
        ] {
            let err = DiceKeys::from_config(&cfg).unwrap_err();
            assert!(err.contains(expected), "{err}");
            assert!(!err.contains("short"), "{err}");
        }
    }

    /// A token of white space only was meant to be set: refused, naming
    /// the option (a blank game token used to leave the game flow open).
    #[test]
    fn blank_tokens_are_refused_by_name() {
        const BLANK: &str = "  \t ";
        let cases = [
            (
                DiceConfig {
                    game_token: Some(BLANK.into()),
                    ..config()
                },
                "BGREF_GAME_TOKEN",
            ),
            (
                DiceConfig {
                    dice_roll_token: Some(BLANK.into()),
                    ..config()
                },
                "BGREF_DICE_ROLL_TOKEN",
            ),
            (
                DiceConfig {
                    reveal_token: Some(BLANK.into()),
                    ..config()
                },
                "BGREF_REVEAL_TOKEN",
            ),
        ];
        for (cfg, name) in cases {
            let err = DiceKeys::from_config(&cfg).unwrap_err();
            assert!(
                err.starts_with(name) && err.contains("white space only"),
                "{err}"
            );
            assert!(err.contains("leave it empty or unset"), "{err}");
        }
        // An empty variable still counts as unset.
        let mut cfg = config();
        cfg.reveal_token = Some(String::new());
        cfg.dice_roll_token = Some(String::new());
        let keys = DiceKeys::from_config(&cfg).unwrap();
        assert_eq!(keys.reveal_access(None), TokenAccess::Disabled);
        assert_eq!(keys.roll_access(None), TokenAccess::Disabled);
    }

    #[test]
    fn the_game_token_is_its_own() {
        let game = temp_file("game", "  game-token-0123456789\n");
        let cfg = DiceConfig {
            game_token_file: Some(game.clone()),
            dice_roll_token: Some("roll-token-0123456789".into()),
            ..config()
        };
        let keys = DiceKeys::from_config(&cfg).unwrap();
        let _ = std::fs::remove_file(game);
        for (header, access) in [
            (Some("Bearer game-token-0123456789"), TokenAccess::Granted),
            (Some("bearer game-token-0123456789 "), TokenAccess::Granted),
            (Some("Bearer game-token-012345678"), TokenAccess::Denied),
            (Some("game-token-0123456789"), TokenAccess::Denied),
            (Some("Bearer roll-token-0123456789"), TokenAccess::Denied),
            (Some("Bearer s3cret-token-long"), TokenAccess::Denied),
            (None, TokenAccess::Denied),
        ] {
            assert_eq!(keys.game_access(header), access, "{header:?}");
        }
        // Nor does the game token open the other doors.
        assert_eq!(
            keys.roll_access(Some("Bearer game-token-0123456789")),
            TokenAccess::Denied
        );
        assert_eq!(
            keys.reveal_access(Some("Bearer game-token-0123456789")),
            TokenAccess::Denied
        );
        let text = format!("{keys:?}");
        assert!(text.contains("game_token: true"), "{text}");
        assert!(!text.contains("game-token-0123456789"), "{text}");
        // Without one (or with an empty variable) the game flow is open.
        for cfg in [
            config(),
            DiceConfig {
                game_token: Some(String::new()),
                ..config()
            },
        ] {
            let keys = DiceKeys::from_config(&cfg).unwrap();
            assert_eq!(keys.game_access(None), TokenAccess::Disabled);
            assert!(format!("{keys:?}").contains("game_token: false"));
        }
        // Short, doubly given, empty or unbounded: refused, naming the option.
        let empty = temp_file("game-empty", "\n");
        for (cfg, expected) in [
            (
                DiceConfig {
                    game_token: Some("short-game-tok".into()),
                    ..config()
                },
                "BGREF_GAME_TOKEN: must be at least 16",
            ),
            (
                DiceConfig {
                    game_token: Some("game-token-0123456789".into()),
                    game_token_file: Some(PathBuf::from("/nonexistent/bgref")),
                    ..config()
                },
                "not both",
            ),
            (
                DiceConfig {
                    game_token_file: Some(empty.clone()),
                    ..config()
                },
                "BGREF_GAME_TOKEN_FILE",
            ),
            (
                DiceConfig {
                    game_token_file: Some(PathBuf::from("/dev/zero")),
                    ..config()
                },
                "BGREF_GAME_TOKEN_FILE",
            ),
        ] {
            let err = DiceKeys::from_config(&cfg).unwrap_err();
            assert!(err.contains(expected), "{err}");
            assert!(!err.contains("short-game-tok"), "{err}");
            assert!(!err.contains("game-token-0123456789"), "{err}");
        }
        let _ = std::fs::remove_file(empty);
    }

    #[test]
    fn debug_output_hides_secrets() {
        let keys = DiceKeys::from_config(&config()).unwrap();
        let text = format!("{keys:?}");
        assert!(text.contains(keys.key_id()), "{text}");
        for secret in [SECRET, RFC_SEED, "s3cret-token-long", "000102030405"] {
            assert!(!text.contains(secret), "{text}");
        }
    }
}

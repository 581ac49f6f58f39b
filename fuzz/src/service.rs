//! The in-process bgref-service the service targets fuzz: fixed keys (the
//! e2e tests' secrets, so seed tokens made by a test binary verify), one
//! current-thread runtime, the HTTP router without its transport layers.

use std::sync::OnceLock;

use bgref_service::keys::DiceKeys;
use bgref_service::state::AppState;

/// The master secret of the e2e tests (`tests/src/lib.rs`).
const SECRET: [u8; 32] = {
    let mut s = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        s[i] = i as u8;
        i += 1;
    }
    s
};
/// The signing key seed of the e2e tests (RFC 8032, test 1).
const SIGNING_SEED: [u8; 32] = [
    0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec, 0x2c, 0xc4,
    0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60,
];
/// One token for the reveal and the rolls.
const TOKEN: &str = "fuzz-token-0123456789";
/// The `Authorization` header every request carries.
pub const BEARER: &str = "Bearer fuzz-token-0123456789";

/// The POST operations with a JSON body.
pub const ROUTES: &[&str] = &[
    "/legal-moves",
    "/apply-move",
    "/score",
    "/cube",
    "/dice/roll",
    "/dice/opening",
    "/dice/reveal",
    "/dice/verify",
    "/games",
    "/games/act",
    "/games/verify",
    "/games/export",
];

/// The keys, built once.
pub fn keys() -> &'static DiceKeys {
    static KEYS: OnceLock<DiceKeys> = OnceLock::new();
    KEYS.get_or_init(|| {
        DiceKeys::from_parts(&SECRET, &SIGNING_SEED, Some(TOKEN))
            .expect("keys")
            .with_roll_token(TOKEN)
    })
}

/// The HTTP router over the fuzz keys.
pub fn app() -> axum::Router {
    let keys = DiceKeys::from_parts(&SECRET, &SIGNING_SEED, Some(TOKEN))
        .expect("keys")
        .with_roll_token(TOKEN);
    bgref_service::http::router(AppState::new(keys))
}

/// A current-thread runtime, built once.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
    })
}

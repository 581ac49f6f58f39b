//! The refereed game flow as both adapters call it: the pure operations of
//! [`crate::api::games`], checked against the ledger when one is
//! configured (docs/referee.md, "The ledger").

use crate::api::games::{
    self, ActInput, Acted, Exported, NewGameInput, Started, TranscriptInput, Verdict,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::ApiError;
use crate::keys::DiceKeys;
use crate::ledger::Head;
use crate::state::AppState;

/// Logs, once at start-up, what a player can do in this deployment
/// (docs/referee.md, "Deployments"): a warning naming every cheat the
/// open mode allows, else one line saying which guarantee holds.
pub fn log_mode(state: &AppState) {
    match (state.dice.has_game_token(), state.ledger.is_some()) {
        (false, false) => tracing::warn!(
            game_flow = "open",
            "no game token configured and no ledger: the refereed game flow (POST /games, \
             /games/act, /games/verify, /games/export and their gRPC methods) is open to anyone \
             who can reach this service, and a player can: read the dice of a turn before it is \
             due (start the match again with the match id and client seed of its roll receipts, \
             or replay its transcript one roll further with /games/verify); peek at a roll, then \
             take another action on the same state token (a fork); act again on an old state \
             token; act for the opponent with the seats of such a second match. Fine for a \
             first try; set BGREF_LEDGER_URL (one history per match: each of these is refused) \
             or BGREF_GAME_TOKEN (only the game server reaches the game flow)"
        ),
        (false, true) => tracing::info!(
            game_flow = "ledger",
            "game flow open to players, on the ledger: each match starts once and has one \
             history, every action needs its player's seat (whoever starts a match receives \
             both seats and hands them out)"
        ),
        (true, false) => tracing::info!(
            game_flow = "game-token",
            "game flow closed by the game token, without a ledger: players cannot reach it; \
             the game server holding the token can still fork a match (set BGREF_LEDGER_URL \
             to refuse forks)"
        ),
        (true, true) => tracing::info!(
            game_flow = "game-token+ledger",
            "game flow closed by the game token, on the ledger: one history per match"
        ),
    }
}

/// A replaying operation: the keys, the transcript, and whether to stop.
type Replayer<T> = fn(&DiceKeys, &TranscriptInput, &dyn Fn() -> bool) -> Result<T, ApiError>;

/// Sets its flag when dropped: the request's future is gone (its time
/// limit passed, or its client left), so the replay it started stops.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs a replay on the blocking pool, one per core at a time, as heavy
/// `/legal-moves` answers run ([`crate::offload`]): a transcript of up to
/// 20 000 actions does not hold the async workers, and it stops when the
/// request is dropped.
async fn off_the_workers<T: Send + 'static>(
    state: &AppState,
    input: &Arc<TranscriptInput>,
    replay: Replayer<T>,
) -> Result<T, ApiError> {
    let cancelled = Arc::new(AtomicBool::new(false));
    let _guard = CancelOnDrop(cancelled.clone());
    let keys = state.dice.clone();
    let input = Arc::clone(input);
    crate::offload::run(move || replay(&keys, &input, &|| cancelled.load(Ordering::Relaxed))).await
}

fn head_of(view: &games::GameView) -> Head {
    Head {
        chain: view.chain,
        game: view.state.game(),
        turn: view.state.turn(),
    }
}

/// Starts a match; with a ledger, records it (once per match id).
///
/// # Errors
/// The operation's errors; `match-exists`, `ledger-unavailable`.
pub async fn new_game(state: &AppState, input: &NewGameInput) -> Result<Started, ApiError> {
    let started = games::new_game(&state.dice, input, state.time.now_ms()?)?;
    if let Some(ledger) = &state.ledger {
        ledger
            .create(&started.game.match_id, &head_of(&started.game))
            .await?;
    }
    Ok(started)
}

/// Takes one action; with a ledger, only on the match's head (a retry of
/// the action that made the head is answered again).
///
/// # Errors
/// The operation's errors; `stale-state`, `unknown-match`,
/// `ledger-unavailable`.
pub async fn act(state: &AppState, input: &ActInput) -> Result<Acted, ApiError> {
    let prepared = games::prepare_act(&state.dice, input, state.time.now_ms()?)?;
    let acted = if prepared.may_be_heavy() {
        // A view of many plays: off the runtime's threads, as heavy
        // `/legal-moves` answers are.
        let keys = state.dice.clone();
        crate::offload::run(move || prepared.run(&keys)).await?
    } else {
        prepared.run(&state.dice)?
    };
    if let Some(ledger) = &state.ledger {
        ledger
            .advance(&acted.game.match_id, &acted.from, &head_of(&acted.game))
            .await?;
    }
    Ok(acted)
}

/// Replays a transcript; with a ledger, only one that reaches the match's
/// head.
///
/// # Errors
/// The operation's errors; `stale-state`, `unknown-match`,
/// `ledger-unavailable`.
pub async fn verify(state: &AppState, input: TranscriptInput) -> Result<Verdict, ApiError> {
    let input = Arc::new(input);
    let verdict = off_the_workers(state, &input, |keys, input, cancelled| {
        games::verify(keys, input, cancelled)
    })
    .await?;
    if let Some(ledger) = &state.ledger {
        ledger
            .check_head(&input.start.match_id, &verdict.game.chain)
            .await?;
    }
    Ok(verdict)
}

/// Writes a transcript as a match file; with a ledger, only one that
/// reaches the match's head.
///
/// # Errors
/// The operation's errors; `stale-state`, `unknown-match`,
/// `ledger-unavailable`.
pub async fn export(state: &AppState, input: TranscriptInput) -> Result<Exported, ApiError> {
    let input = Arc::new(input);
    let exported = off_the_workers(state, &input, |keys, input, cancelled| {
        games::export(keys, input, cancelled)
    })
    .await?;
    if let Some(ledger) = &state.ledger {
        ledger
            .check_head(&input.start.match_id, &exported.chain)
            .await?;
    }
    Ok(exported)
}

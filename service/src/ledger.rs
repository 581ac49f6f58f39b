//! The ledger: one history per match, on a Redis-protocol store
//! (`BGREF_LEDGER_URL`; docs/referee.md, "The ledger").
//!
//! Per match one key, `bgref:v1:match:` and the hex SHA-256 of the match
//! id, holds its head: the chain hash of the last token the referee
//! signed, its game and its turn (`<64 hex> <game> <turn>`), with a TTL
//! renewed on every action. Starting a match creates the key (`SET NX`);
//! an action advances it in one server-side script that compares and sets,
//! so of two replicas racing on one token exactly one wins. Every call has
//! a timeout; an unreachable store is `ledger-unavailable`, never unchecked
//! play.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bgref_core::verify::{parse_hex32, to_hex};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use sha2::{Digest as _, Sha256};

use crate::error::{ApiError, ErrorKind};

/// Where a match stands in the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The chain hash of the match's last token.
    pub chain: [u8; 32],
    /// Its game number.
    pub game: u32,
    /// Its turn number.
    pub turn: u32,
}

impl Head {
    fn value(&self) -> String {
        format!("{} {} {}", to_hex(&self.chain), self.game, self.turn)
    }

    fn parse(value: &str) -> Option<Head> {
        let mut parts = value.split(' ');
        let chain = parse_hex32(parts.next()?).ok()?;
        Some(Head {
            chain,
            game: parts.next()?.parse().ok()?,
            turn: parts.next()?.parse().ok()?,
        })
    }
}

/// Compare-and-advance, in one step on the server. `KEYS[1]` the match,
/// `ARGV[1]` the chain hash of the token acted on, `ARGV[2]` the new head's
/// value, `ARGV[3]` the TTL in seconds. Answers `1` (advanced), `2` (the
/// head already is the new one: a retry of the same action), `0` (no such
/// match), or the head's value (another history: stale).
const ADVANCE: &str = r"
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local head = string.sub(v, 1, 64)
if head == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 1
end
if head == string.sub(ARGV[2], 1, 64) then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return 2
end
return v
";

/// A connection to the ledger's store, shared by every request.
#[derive(Clone)]
pub struct Ledger {
    connection: ConnectionManager,
    advance: Arc<redis::Script>,
    ttl: Duration,
    timeout: Duration,
    reachable: Arc<AtomicBool>,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold a password: never printed.
        f.debug_struct("Ledger")
            .field("ttl", &self.ttl)
            .field("timeout", &self.timeout)
            .field("reachable", &self.is_reachable())
            .finish_non_exhaustive()
    }
}

/// The error of an unreachable or failing store.
fn unavailable() -> ApiError {
    ApiError::new(
        ErrorKind::Unavailable,
        "ledger-unavailable",
        "the ledger (BGREF_LEDGER_URL) does not answer: no game action is taken without it; \
         send the same request again later",
    )
}

impl Ledger {
    /// A ledger on the store at `url` (`redis://HOST:PORT/DB`, `rediss://`
    /// for TLS). Connects lazily: an unreachable store makes calls fail
    /// with `ledger-unavailable` (and readiness fail), not the start.
    ///
    /// # Errors
    /// A URL the client cannot read (the message never quotes it: it may
    /// hold a password).
    pub fn new(url: &str, ttl: Duration, timeout: Duration) -> Result<Ledger, String> {
        let client = redis::Client::open(url).map_err(|e| {
            format!(
                "BGREF_LEDGER_URL is not a Redis URL (redis://HOST:PORT/DB): {}",
                e.category()
            )
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1)
            .set_max_delay(timeout);
        let connection = ConnectionManager::new_lazy_with_config(client, config)
            .map_err(|e| format!("BGREF_LEDGER_URL: {}", e.category()))?;
        Ok(Ledger {
            connection,
            advance: Arc::new(redis::Script::new(ADVANCE)),
            ttl,
            timeout,
            reachable: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Whether the last call to the store was answered.
    pub fn is_reachable(&self) -> bool {
        self.reachable.load(Ordering::Relaxed)
    }

    fn key(match_id: &str) -> String {
        format!(
            "bgref:v1:match:{}",
            to_hex(&Sha256::digest(match_id.as_bytes()))
        )
    }

    fn ttl_seconds(&self) -> u64 {
        self.ttl.as_secs().max(1)
    }

    /// Runs one call with the timeout, noting whether the store answered.
    async fn run<T>(
        &self,
        call: impl std::future::Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, ApiError> {
        match tokio::time::timeout(self.timeout, call).await {
            Ok(Ok(value)) => {
                self.reachable.store(true, Ordering::Relaxed);
                Ok(value)
            }
            Ok(Err(err)) => {
                self.reachable.store(false, Ordering::Relaxed);
                tracing::warn!(error = err.category(), "ledger call failed");
                Err(unavailable())
            }
            Err(_) => {
                self.reachable.store(false, Ordering::Relaxed);
                tracing::warn!(
                    timeout_ms = self.timeout.as_millis() as u64,
                    "ledger call timed out"
                );
                Err(unavailable())
            }
        }
    }

    /// Asks the store whether it answers (the readiness probe).
    pub async fn ping(&self) -> bool {
        let mut connection = self.connection.clone();
        self.run(async move {
            redis::cmd("PING")
                .query_async::<String>(&mut connection)
                .await
        })
        .await
        .is_ok()
    }

    /// Records a new match at `head`.
    ///
    /// # Errors
    /// `match-exists` (409) when the ledger holds the match already;
    /// `ledger-unavailable` (503).
    pub async fn create(&self, match_id: &str, head: &Head) -> Result<(), ApiError> {
        let mut connection = self.connection.clone();
        let key = Self::key(match_id);
        let value = head.value();
        let ttl = self.ttl_seconds();
        let created: Option<String> = self
            .run(async move {
                redis::cmd("SET")
                    .arg(&key)
                    .arg(&value)
                    .arg("NX")
                    .arg("EX")
                    .arg(ttl)
                    .query_async(&mut connection)
                    .await
            })
            .await?;
        match created {
            Some(_) => Ok(()),
            None => Err(ApiError::new(
                ErrorKind::AlreadyExists,
                "match-exists",
                format!(
                    "the ledger already holds match {match_id:?}: a match is started once; \
                     choose another match_id"
                ),
            )),
        }
    }

    /// Advances the match from the token whose chain is `from` to `to`. A
    /// retry (the head is `to` already) is answered as the first time.
    ///
    /// # Errors
    /// `stale-state` (409, naming the head's game and turn) when `from` is
    /// not the head; `unknown-match` (404) when the ledger does not hold
    /// the match; `ledger-unavailable` (503).
    pub async fn advance(
        &self,
        match_id: &str,
        from: &[u8; 32],
        to: &Head,
    ) -> Result<(), ApiError> {
        let mut connection = self.connection.clone();
        let mut invocation = self.advance.prepare_invoke();
        invocation
            .key(Self::key(match_id))
            .arg(to_hex(from))
            .arg(to.value())
            .arg(self.ttl_seconds());
        let answer: redis::Value = self
            .run(async move { invocation.invoke_async(&mut connection).await })
            .await?;
        match answer {
            redis::Value::Int(1 | 2) => Ok(()),
            redis::Value::Int(0) => Err(unknown(match_id)),
            redis::Value::BulkString(bytes) => Err(stale(
                match_id,
                std::str::from_utf8(&bytes).ok().and_then(Head::parse),
            )),
            _ => Err(unavailable()),
        }
    }

    /// The head of a match, `None` when the ledger does not hold it.
    ///
    /// # Errors
    /// `ledger-unavailable` (503).
    pub async fn head(&self, match_id: &str) -> Result<Option<Head>, ApiError> {
        let mut connection = self.connection.clone();
        let key = Self::key(match_id);
        let value: Option<String> = self
            .run(async move {
                redis::cmd("GET")
                    .arg(&key)
                    .query_async(&mut connection)
                    .await
            })
            .await?;
        Ok(value.as_deref().and_then(Head::parse))
    }

    /// Checks that a replayed transcript ends at the match's head: with a
    /// ledger, `/games/verify` and `/games/export` replay a match only to
    /// where it stands, so a replay cannot show the dice of a turn not yet
    /// played nor a fork.
    ///
    /// # Errors
    /// `unknown-match` (404), `stale-state` (409), `ledger-unavailable`.
    pub async fn check_head(&self, match_id: &str, last: &[u8; 32]) -> Result<(), ApiError> {
        match self.head(match_id).await? {
            None => Err(unknown(match_id)),
            Some(head) if head.chain == *last => Ok(()),
            Some(head) => Err(stale(match_id, Some(head))),
        }
    }
}

fn unknown(match_id: &str) -> ApiError {
    ApiError::new(
        ErrorKind::NotFound,
        "unknown-match",
        format!(
            "the ledger holds no match {match_id:?}: it was never started on this ledger, or it \
             expired (BGREF_LEDGER_TTL after its last action), or the store lost it; start a \
             new match with POST /games"
        ),
    )
}

fn stale(match_id: &str, head: Option<Head>) -> ApiError {
    let at = head.map_or_else(String::new, |h| {
        format!(" (game {}, turn {})", h.game, h.turn)
    });
    ApiError::new(
        ErrorKind::Conflict,
        "stale-state",
        format!(
            "this state token is not the head of match {match_id:?}: the match has moved on{at}; \
             act on the latest state token"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_reads_back_its_value() {
        let head = Head {
            chain: [0xab; 32],
            game: 3,
            turn: 41,
        };
        assert_eq!(Head::parse(&head.value()), Some(head.clone()));
        assert_eq!(head.value().len(), 64 + 1 + 1 + 1 + 2);
        for bad in [
            "",
            "ab 1 2",
            &"g".repeat(64),
            &format!("{} x 1", "a".repeat(64)),
        ] {
            assert_eq!(Head::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn keys_do_not_quote_the_match_id() {
        let key = Ledger::key("club final\n");
        assert!(key.starts_with("bgref:v1:match:"));
        assert_eq!(key.len(), "bgref:v1:match:".len() + 64);
    }
}

//! Configuration: every option is a flag with a `BGREF_*` environment
//! variable, and the bare binary runs on the embedded defaults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// bgref: a stateless backgammon referee serving HTTP/JSON and gRPC on one port.
#[derive(Debug, Clone, Parser)]
#[command(name = "bgref", version, about, long_about = None, after_help = ENVIRONMENT_HELP)]
pub struct Cli {
    /// What to do (default: serve).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Service options.
    #[command(flatten)]
    pub config: Config,
}

/// Subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Serve HTTP and gRPC (the default).
    Serve,
    /// Print the OpenAPI document and exit.
    Openapi,
}

/// All service options.
#[derive(Debug, Clone, Args)]
pub struct Config {
    /// Address for HTTP and gRPC together.
    #[arg(long, env = "BGREF_LISTEN", default_value = "0.0.0.0:8080")]
    pub listen: SocketAddr,

    /// Optional separate address for gRPC only (gRPC is always also served on --listen).
    #[arg(long, env = "BGREF_GRPC_LISTEN")]
    pub grpc_listen: Option<SocketAddr>,

    /// Largest accepted request body, in bytes (HTTP and gRPC messages),
    /// except the transcripts of --max-transcript-bytes.
    #[arg(long, env = "BGREF_MAX_BODY_BYTES", default_value_t = 64 * 1024)]
    pub max_body_bytes: usize,

    /// Largest accepted transcript, in bytes: the bodies of POST
    /// /games/verify and /games/export and the gRPC VerifyGame and
    /// ExportGame messages (never below --max-body-bytes). The default
    /// holds the longest transcript replayed (20 000 actions) with its
    /// plays in notation.
    #[arg(long, env = "BGREF_MAX_TRANSCRIPT_BYTES", default_value_t = 2 * 1024 * 1024)]
    pub max_transcript_bytes: usize,

    /// Time limit for one request (e.g. 10s, 500ms; more than 0).
    #[arg(long, env = "BGREF_REQUEST_TIMEOUT", default_value = "10s", value_parser = parse_positive_duration)]
    pub request_timeout: Duration,

    /// Requests handled at once, HTTP and gRPC together (at least 1); more
    /// wait up to --queue-timeout for a slot, then get 503 (gRPC
    /// UNAVAILABLE) with `Retry-After`. Health checks and /metrics never wait.
    #[arg(long, env = "BGREF_MAX_CONCURRENCY", default_value_t = 1024, value_parser = parse_positive)]
    pub max_concurrency: usize,

    /// How long a request may wait for a slot under --max-concurrency.
    #[arg(long, env = "BGREF_QUEUE_TIMEOUT", default_value = "1s", value_parser = parse_duration)]
    pub queue_timeout: Duration,

    /// Open connections at once (at least 1); further connections wait in
    /// the listen backlog until one closes. Keep it below the process's
    /// file-descriptor limit (`ulimit -n`).
    #[arg(long, env = "BGREF_MAX_CONNECTIONS", default_value_t = 512, value_parser = parse_positive)]
    pub max_connections: usize,

    /// Open connections at once from one client address (at least 1): one
    /// more from that address is closed at once, so one client cannot take
    /// every connection. Clients behind one proxy or NAT share it.
    #[arg(long, env = "BGREF_MAX_CONNECTIONS_PER_PEER", default_value_t = 64, value_parser = parse_positive)]
    pub max_connections_per_peer: usize,

    /// Time from a connection's accept to its first complete request head;
    /// a connection that sends none by then (a silent socket, an HTTP/2
    /// client that only pings) is closed.
    #[arg(long, env = "BGREF_FIRST_REQUEST_TIMEOUT", default_value = "10s", value_parser = parse_positive_duration)]
    pub first_request_timeout: Duration,

    /// Connections the kernel holds for the server before it accepts them
    /// (the listen backlog; Linux caps it at `net.core.somaxconn`).
    #[arg(long, env = "BGREF_LISTEN_BACKLOG", default_value_t = 1024, value_parser = parse_positive_u32)]
    pub listen_backlog: u32,

    /// Largest request head (HTTP/1 request line and headers; HTTP/2 and
    /// gRPC header list), in bytes: larger ones get 431 (at least 8192).
    #[arg(long, env = "BGREF_MAX_HEADER_BYTES", default_value_t = 16 * 1024, value_parser = parse_header_bytes)]
    pub max_header_bytes: usize,

    /// Time a client has to send a complete HTTP/1 request head; a slower
    /// one is disconnected (more than 0).
    #[arg(long, env = "BGREF_HEADER_TIMEOUT", default_value = "5s", value_parser = parse_positive_duration)]
    pub header_timeout: Duration,

    /// A connection on which no byte moved in either direction for this
    /// long is closed (idle keep-alive, stalled HTTP/2 streams, silent
    /// clients); an HTTP/2 connection with no stream open is idle whatever
    /// frames it sends (PINGs do not keep it). Keep it above --request-timeout
    /// (more than 0).
    #[arg(long, env = "BGREF_IDLE_TIMEOUT", default_value = "60s", value_parser = parse_positive_duration)]
    pub idle_timeout: Duration,

    /// A response write that makes no progress for this long (a client
    /// that does not read) closes the connection (more than 0).
    #[arg(long, env = "BGREF_SEND_TIMEOUT", default_value = "10s", value_parser = parse_positive_duration)]
    pub send_timeout: Duration,

    /// Time a response has, once its handler has answered, to be handed in
    /// full to the connection (more than 0). A response still unsent then
    /// (a client that does not read, or keeps an HTTP/2 stream window
    /// shut) is dropped: its HTTP/2 stream is reset, or its connection
    /// closed. Streaming gRPC responses have --stream-timeout instead.
    #[arg(long, env = "BGREF_RESPONSE_SEND_TIMEOUT", default_value = "10s", value_parser = parse_positive_duration)]
    pub response_send_timeout: Duration,

    /// Bytes of HTTP answers of more than 8 KiB waiting to be sent, over
    /// all connections (at least 1): an answer that would pass it is
    /// refused with 503 `overloaded` (`Retry-After: 1`) instead. What
    /// clients that do not read can make the server hold.
    #[arg(long, env = "BGREF_MAX_PENDING_ANSWER_BYTES", default_value_t = 32 * 1024 * 1024, value_parser = parse_positive)]
    pub max_pending_answer_bytes: usize,

    /// Longest life of a streaming response (gRPC reflection, health
    /// Watch): it then ends with DEADLINE_EXCEEDED (more than 0).
    #[arg(long, env = "BGREF_STREAM_TIMEOUT", default_value = "60s", value_parser = parse_positive_duration)]
    pub stream_timeout: Duration,

    /// HTTP/2 (and gRPC) streams open at once on one connection.
    #[arg(long, env = "BGREF_MAX_STREAMS_PER_CONNECTION", default_value_t = 64, value_parser = parse_positive_u32)]
    pub max_streams_per_connection: u32,

    /// gRPC health Watch streams open at once, over all connections (at
    /// least 1); one more is refused with RESOURCE_EXHAUSTED.
    #[arg(long, env = "BGREF_MAX_WATCH_STREAMS", default_value_t = 1024, value_parser = parse_positive)]
    pub max_watch_streams: usize,

    /// After SIGTERM or Ctrl-C, how long in-flight requests may take before the process exits.
    #[arg(long, env = "BGREF_SHUTDOWN_TIMEOUT", default_value = "20s", value_parser = parse_duration)]
    pub shutdown_timeout: Duration,

    /// After SIGTERM or Ctrl-C, how long to keep accepting requests while
    /// /readyz answers 503 and gRPC health says NOT_SERVING, so that load
    /// balancers stop sending traffic first (a second signal cuts it short).
    /// 0 stops accepting at once (use it with a Kubernetes preStop sleep).
    #[arg(long, env = "BGREF_SHUTDOWN_DELAY", default_value = "0s", value_parser = parse_duration)]
    pub shutdown_delay: Duration,

    /// Browser origins allowed to call the API (CORS), comma-separated
    /// (`https://app.example.org,http://localhost:5173`), or `*` for any;
    /// none by default (no CORS headers are sent).
    #[arg(long, env = "BGREF_CORS_ORIGINS", value_delimiter = ',', value_parser = parse_origin)]
    pub cors_origins: Vec<String>,

    /// For tests only: the referee clock reads the time (Unix
    /// milliseconds, in decimal) from this file at every action instead of
    /// the system clock, so a test moves time without waiting. Never in
    /// production: whoever writes the file decides every clocked match.
    #[arg(long, env = "BGREF_TEST_CLOCK_FILE")]
    pub test_clock_file: Option<PathBuf>,

    /// Dice secrets and keys.
    #[command(flatten)]
    pub dice: DiceConfig,

    /// The ledger of the refereed game flow.
    #[command(flatten)]
    pub ledger: LedgerConfig,

    /// Logs and traces.
    #[command(flatten)]
    pub telemetry: TelemetryConfig,
}

/// Secrets of the dice service. Values are never logged or printed.
#[derive(Clone, Default, Args)]
pub struct DiceConfig {
    /// Master secret for dice seeds, hex, at least 32 bytes. Without it (and
    /// without --dice-secret-file) an ephemeral secret is generated.
    #[arg(long, env = "BGREF_DICE_SECRET", hide_env_values = true)]
    pub dice_secret: Option<String>,

    /// File holding the master secret (hex); surrounding white space is ignored.
    #[arg(long, env = "BGREF_DICE_SECRET_FILE")]
    pub dice_secret_file: Option<PathBuf>,

    /// Ed25519 signing key: hex 32-byte seed. Without it an ephemeral key is generated.
    #[arg(long, env = "BGREF_SIGNING_KEY", hide_env_values = true)]
    pub signing_key: Option<String>,

    /// File holding the signing key seed (hex).
    #[arg(long, env = "BGREF_SIGNING_KEY_FILE")]
    pub signing_key_file: Option<PathBuf>,

    /// Extra verification keys to publish at /dice/keys (key rotation):
    /// comma-separated hex Ed25519 public keys.
    #[arg(long, env = "BGREF_VERIFY_KEYS", value_delimiter = ',')]
    pub verify_keys: Vec<String>,

    /// Operator bearer token for POST /dice/reveal; without it reveal is disabled.
    #[arg(long, env = "BGREF_REVEAL_TOKEN", hide_env_values = true)]
    pub reveal_token: Option<String>,

    /// File holding the reveal token.
    #[arg(long, env = "BGREF_REVEAL_TOKEN_FILE")]
    pub reveal_token_file: Option<PathBuf>,

    /// Bearer token of POST /dice/roll and /dice/opening (gRPC RollDice,
    /// OpeningRoll), at least 16 characters, for a trusted game server that
    /// rolls each turn only when it is due. Without it those endpoints are
    /// disabled (403 `roll-disabled`): players get their dice from the
    /// refereed game flow (POST /games).
    #[arg(long, env = "BGREF_DICE_ROLL_TOKEN", hide_env_values = true)]
    pub dice_roll_token: Option<String>,

    /// File holding the roll token.
    #[arg(long, env = "BGREF_DICE_ROLL_TOKEN_FILE")]
    pub dice_roll_token_file: Option<PathBuf>,

    /// Bearer token of the refereed game flow (POST /games, /games/act,
    /// /games/verify, /games/export; gRPC NewGame, Act, VerifyGame,
    /// ExportGame), at least 16 characters, held by the game server that
    /// stands between players and bgref. Without it the game flow is open to
    /// anyone who can reach bgref, who could then replay a match to read its
    /// dice early (one warning is logged at startup).
    #[arg(long, env = "BGREF_GAME_TOKEN", hide_env_values = true)]
    pub game_token: Option<String>,

    /// File holding the game token.
    #[arg(long, env = "BGREF_GAME_TOKEN_FILE")]
    pub game_token_file: Option<PathBuf>,
}

impl std::fmt::Debug for DiceConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = |o: &Option<String>| if o.is_some() { "<set>" } else { "<unset>" };
        f.debug_struct("DiceConfig")
            .field("dice_secret", &set(&self.dice_secret))
            .field("dice_secret_file", &self.dice_secret_file)
            .field("signing_key", &set(&self.signing_key))
            .field("signing_key_file", &self.signing_key_file)
            .field("verify_keys", &self.verify_keys)
            .field("reveal_token", &set(&self.reveal_token))
            .field("reveal_token_file", &self.reveal_token_file)
            .field("dice_roll_token", &set(&self.dice_roll_token))
            .field("dice_roll_token_file", &self.dice_roll_token_file)
            .field("game_token", &set(&self.game_token))
            .field("game_token_file", &self.game_token_file)
            .finish()
    }
}

/// The ledger: one history per match on a Redis-protocol store
/// (docs/referee.md, "The ledger").
#[derive(Clone, Args)]
pub struct LedgerConfig {
    /// Redis-protocol store of the match heads, `redis://[:PASSWORD@]HOST:PORT/DB`
    /// (`rediss://` for TLS): every action is checked against its match's
    /// head, so a match has one history (no fork, no replay of an old
    /// token, no second match with the same id). Unset: no ledger, the
    /// service keeps no state.
    #[arg(long, env = "BGREF_LEDGER_URL", hide_env_values = true, value_parser = parse_ledger_url)]
    pub ledger_url: Option<String>,

    /// How long the ledger keeps a match after its last action (e.g. 30d,
    /// 12h); later, its tokens are refused (`unknown-match`).
    #[arg(long, env = "BGREF_LEDGER_TTL", default_value = "30d", value_parser = parse_positive_duration)]
    pub ledger_ttl: Duration,

    /// Time limit of one call to the ledger (connecting included); past
    /// it the action is refused with 503 `ledger-unavailable`.
    #[arg(long, env = "BGREF_LEDGER_TIMEOUT", default_value = "1s", value_parser = parse_positive_duration)]
    pub ledger_timeout: Duration,
}

impl std::fmt::Debug for LedgerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password.
        f.debug_struct("LedgerConfig")
            .field("ledger_url", &self.ledger_url.as_ref().map(|_| "<set>"))
            .field("ledger_ttl", &self.ledger_ttl)
            .field("ledger_timeout", &self.ledger_timeout)
            .finish()
    }
}

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// Logs and traces. Log levels come from `--log-filter`, else `RUST_LOG`
/// (default `info`); OpenTelemetry traces are exported over OTLP/gRPC only
/// when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (the standard `OTEL_*`
/// variables apply; see `bgref --help`).
#[derive(Debug, Clone, Args)]
pub struct TelemetryConfig {
    /// Log format: text lines or one JSON object per line, on stderr.
    #[arg(long, env = "BGREF_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Log filter in `RUST_LOG` syntax, e.g. `info` or
    /// `warn,bgref_service=debug` (default: `RUST_LOG`, else `info`).
    #[arg(long, env = "BGREF_LOG_FILTER")]
    pub log_filter: Option<String>,
}

/// Shown after the options in `bgref --help`.
const ENVIRONMENT_HELP: &str = "\
Other environment variables:
  RUST_LOG                         Log filter when --log-filter is not given (default: info)
  OTEL_EXPORTER_OTLP_ENDPOINT      Export traces over OTLP/gRPC to this endpoint, e.g.
                                   http://otel-collector:4317 (unset: nothing is exported);
                                   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT also works
  OTEL_SERVICE_NAME                service.name of the traces (default: bgref)
  OTEL_RESOURCE_ATTRIBUTES         More resource attributes, key=value,...
  OTEL_TRACES_SAMPLER[_ARG]        Sampler (default: parentbased_always_on)
  OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_EXPORTER_OTLP_COMPRESSION,
  OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE, ...  as the OpenTelemetry spec defines them
  OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none    Turn trace export off

Endpoints: HTTP/JSON and gRPC (bgref.v1.Referee, grpc.health.v1.Health, server reflection)
share one port; GET /healthz, /readyz, /metrics (Prometheus), /openapi.json, /docs.";

/// Reads `10s`, `500ms`, `2m` or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (number, unit) = s
        .find(|c: char| !c.is_ascii_digit())
        .map_or((s, "s"), |i| (&s[..i], &s[i..]));
    let n: u64 = number
        .parse()
        .map_err(|_| format!("not a duration: {s:?} (use 10s, 500ms, 2m)"))?;
    match unit {
        "ms" => Ok(Duration::from_millis(n)),
        "s" => Ok(Duration::from_secs(n)),
        "m" => Ok(Duration::from_secs(n * 60)),
        "h" => Ok(Duration::from_secs(n * 3600)),
        "d" => Ok(Duration::from_secs(n * 86_400)),
        _ => Err(format!(
            "not a duration: {s:?} (use 10s, 500ms, 2m, 12h, 30d)"
        )),
    }
}

/// A duration of more than 0: the time limits where 0 makes no sense (it
/// would end every request, connection, stream or answer at once, or keep
/// no match in the ledger). `--queue-timeout` (0: no wait for a slot),
/// `--shutdown-timeout` (0: no grace) and `--shutdown-delay` take 0.
fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() {
        return Err(format!(
            "must be more than 0 ({s:?} would cut everything off at once): send a duration \
             such as 500ms, 10s or 2m, or leave the option out for its default"
        ));
    }
    Ok(d)
}

/// The ledger's URL as given; white space only is refused (it was meant to
/// set a ledger, and would have run without one), an empty value is none.
/// The URL itself is checked when the ledger is made, without echoing it
/// (it may hold a password).
fn parse_ledger_url(s: &str) -> Result<String, String> {
    if !s.is_empty() && s.trim().is_empty() {
        return Err(
            "white space only: give the store's URL (redis://HOST:PORT/DB), or leave it empty \
             or unset for no ledger"
                .to_owned(),
        );
    }
    Ok(s.to_owned())
}

/// A CORS origin: `*`, or `http(s)://host[:port]` without a path.
fn parse_origin(s: &str) -> Result<String, String> {
    let s = s.trim();
    let valid = s == "*"
        || ((s.starts_with("http://") || s.starts_with("https://"))
            && !s
                .split_once("://")
                .is_some_and(|(_, rest)| rest.is_empty() || rest.contains('/'))
            && axum::http::HeaderValue::from_str(s).is_ok());
    if valid {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "not an origin: {s:?} (expected * or scheme://host[:port], e.g. https://app.example.org)"
        ))
    }
}

/// A count of at least 1 (0 would refuse, or hang, every request).
pub fn parse_positive(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1 (0 would let no request through)".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("not a whole number: {s:?}")),
    }
}

fn parse_positive_u32(s: &str) -> Result<u32, String> {
    let n = parse_positive(s)?;
    u32::try_from(n).map_err(|_| format!("at most {}", u32::MAX))
}

/// Header size limits below 8 KiB are refused (hyper's HTTP/1 minimum).
fn parse_header_bytes(s: &str) -> Result<usize, String> {
    let n = parse_positive(s)?;
    if n < 8192 {
        return Err("must be at least 8192".to_owned());
    }
    Ok(n)
}

impl Config {
    /// The embedded defaults (as the bare binary runs).
    pub fn defaults() -> Config {
        Cli::parse_from(["bgref"]).config
    }

    /// The request body limits: the global one and the transcripts'.
    pub fn body_limits(&self) -> crate::http::extract::BodyLimits {
        crate::http::extract::BodyLimits {
            body: self.max_body_bytes,
            transcript: self.max_transcript_bytes.max(self.max_body_bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("20"), Ok(Duration::from_secs(20)));
        assert_eq!(parse_duration("5h"), Ok(Duration::from_secs(5 * 3600)));
        assert_eq!(parse_duration("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert!(parse_duration("5w").is_err());
        let config = Cli::try_parse_from(["bgref"]).unwrap().config;
        assert_eq!(config.ledger.ledger_ttl, Duration::from_secs(30 * 86_400));
        assert_eq!(config.ledger.ledger_url, None);
        assert_eq!(parse_positive_duration("2s"), Ok(Duration::from_secs(2)));
        assert!(parse_positive_duration("0s").is_err());
        assert!(parse_positive_duration("0ms").is_err());
    }

    /// Every time limit where 0 makes no sense refuses it, naming the
    /// option and saying what to send; the three where 0 means something
    /// take it.
    #[test]
    fn zero_is_refused_where_it_makes_no_sense() {
        for flag in [
            "--request-timeout",
            "--header-timeout",
            "--idle-timeout",
            "--send-timeout",
            "--response-send-timeout",
            "--stream-timeout",
            "--ledger-ttl",
            "--ledger-timeout",
        ] {
            for zero in ["0s", "0", "0ms"] {
                let err = Cli::try_parse_from(["bgref", flag, zero])
                    .unwrap_err()
                    .to_string();
                assert!(err.contains(flag), "{flag} {zero}: {err}");
                assert!(err.contains("must be more than 0"), "{err}");
                assert!(err.contains("such as 500ms, 10s or 2m"), "{err}");
            }
        }
        for flag in ["--queue-timeout", "--shutdown-timeout", "--shutdown-delay"] {
            assert!(Cli::try_parse_from(["bgref", flag, "0s"]).is_ok(), "{flag}");
        }
    }

    #[test]
    fn a_blank_ledger_url_is_refused() {
        let err = Cli::try_parse_from(["bgref", "--ledger-url", "  "])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--ledger-url") && err.contains("white space only"),
            "{err}"
        );
        let empty = Cli::try_parse_from(["bgref", "--ledger-url", ""]).unwrap();
        assert_eq!(empty.config.ledger.ledger_url.as_deref(), Some(""));
    }

    #[test]
    fn every_option_has_a_bgref_variable_and_help() {
        use clap::CommandFactory as _;
        let command = Cli::command();
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            let env = arg.get_env().and_then(|e| e.to_str()).unwrap_or_default();
            assert!(env.starts_with("BGREF_"), "--{id} has no BGREF_* variable");
            assert!(arg.get_help().is_some(), "--{id} has no help");
        }
    }

    #[test]
    fn the_bare_binary_has_safe_defaults() {
        let config = Cli::try_parse_from(["bgref"])
            .expect("no arguments needed")
            .config;
        assert_eq!(config.shutdown_delay, Duration::ZERO);
        assert!(config.shutdown_timeout > Duration::ZERO);
        assert_eq!(config.telemetry.log_format, LogFormat::Text);
    }

    #[test]
    fn secrets_are_not_in_debug_output() {
        let dice = DiceConfig {
            dice_secret: Some("00112233".into()),
            dice_roll_token: Some("roll-token-0123456789".into()),
            game_token: Some("game-token-0123456789".into()),
            ..DiceConfig::default()
        };
        let text = format!("{dice:?}");
        assert!(!text.contains("00112233"), "{text}");
        assert!(!text.contains("roll-token"), "{text}");
        assert!(!text.contains("game-token"), "{text}");
    }
}

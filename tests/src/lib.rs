//! Helpers for the black-box tests: start the real `bgref` binary on a free
//! loopback port and talk to it over HTTP and gRPC; and the JSON <-> proto
//! translator ([`wire`]) that the tests comparing the two protocols use.
//!
//! The binary is `target/<profile>/bgref` next to the test executable
//! (`cargo test --workspace` builds it), or the path in `BGREF_BIN`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use bgref_service::proto;
use bgref_service::proto::referee_client::RefereeClient;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tonic::transport::Channel;
use tonic_types::StatusExt as _;

pub mod wire;

/// A running `bgref` process, killed on drop.
#[derive(Debug)]
pub struct Server {
    child: Child,
    /// The address it listens on.
    pub addr: SocketAddr,
    http: reqwest::Client,
    /// Log lines (JSON) printed after start-up.
    pub logs: tokio::sync::mpsc::UnboundedReceiver<String>,
}

/// The `bgref` binary to test.
pub fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("BGREF_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/<test> -> target/<profile>/bgref
    let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    let bin = dir.join(format!("bgref{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} not found: run `cargo build -p bgref-service` (cargo test --workspace does) or set BGREF_BIN",
        bin.display()
    );
    bin
}

/// Fixed test secrets (never used outside tests).
pub const TEST_DICE_SECRET: &str =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
/// Fixed test signing key seed.
pub const TEST_SIGNING_KEY: &str =
    "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
/// Fixed test reveal token.
pub const TEST_REVEAL_TOKEN: &str = "test-reveal-token";
/// Fixed test roll token (`POST /dice/roll`, `POST /dice/opening`).
pub const TEST_ROLL_TOKEN: &str = "test-roll-token-0001";

/// A gRPC request carrying the test roll token in its `authorization`
/// metadata (for `RollDice` and `OpeningRoll`).
pub fn with_roll_token<T>(message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {TEST_ROLL_TOKEN}")
            .parse()
            .expect("metadata value"),
    );
    request
}

/// A gRPC request with an `authorization` value (or none).
pub fn authorized<T>(message: T, authorization: Option<&str>) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Some(a) = authorization {
        request
            .metadata_mut()
            .insert("authorization", a.parse().expect("metadata value"));
    }
    request
}

/// A `bgref` command on 127.0.0.1 with a free port and JSON logs on a
/// piped stderr, an otherwise empty environment, the fixed test secrets
/// (dice secret, signing key, reveal and roll tokens) when `test_secrets`,
/// and `env` on top.
pub fn command(env: &[(&str, &str)], test_secrets: bool) -> Command {
    let mut cmd = Command::new(binary());
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("BGREF_LISTEN", "127.0.0.1:0")
        .env("BGREF_LOG_FORMAT", "json")
        .env("RUST_LOG", "info");
    if test_secrets {
        cmd.env("BGREF_DICE_SECRET", TEST_DICE_SECRET)
            .env("BGREF_SIGNING_KEY", TEST_SIGNING_KEY)
            .env("BGREF_REVEAL_TOKEN", TEST_REVEAL_TOKEN)
            .env("BGREF_DICE_ROLL_TOKEN", TEST_ROLL_TOKEN);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

/// Spawns `cmd` (see [`command`]) and reads its stderr lines up to the one
/// saying it serves (or to its exit, at most 30 s); returns them and the
/// running process.
pub async fn start_until_serving(mut cmd: Command) -> (Vec<String>, Child) {
    let mut child = cmd.spawn().expect("start bgref");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            let serving = line.contains("bgref serving HTTP and gRPC");
            out.push(line);
            if serving {
                break;
            }
        }
    })
    .await;
    (out, child)
}

impl Server {
    /// Starts `bgref` on 127.0.0.1 with a free port, the test secrets and
    /// `env` on top; waits until it serves.
    pub async fn start(env: &[(&str, &str)]) -> Server {
        Server::start_with_args(env, &[]).await
    }

    /// As [`Server::start`], with extra command-line arguments.
    pub async fn start_with_args(env: &[(&str, &str)], args: &[&str]) -> Server {
        let mut cmd = command(env, true);
        cmd.args(args);
        let mut child = cmd.spawn().expect("start bgref");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let addr = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && v["message"] == "bgref serving HTTP and gRPC"
                {
                    return v["listen"].as_str().and_then(|s| s.parse().ok());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .expect("bgref did not report its address");
        let (tx, logs) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let _ = tx.send(line);
            }
        });
        Server {
            child,
            addr,
            http: reqwest::Client::new(),
            logs,
        }
    }

    /// The process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Resident memory of the process in KiB (Linux `/proc`), if readable.
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()?)).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// `http://127.0.0.1:port`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// POSTs JSON; returns the status and the JSON body (Null if none). A
    /// `/games/act` body without `seat` is sent with its player's seat
    /// ([`seated`]), here and in [`Server::post_auth`].
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let (status, _, body) = self.post_auth(path, body, None).await;
        (status, body)
    }

    /// POSTs JSON with `Authorization: Bearer` and the test roll token (for
    /// `/dice/roll` and `/dice/opening`); returns the status and the JSON body.
    pub async fn post_roll(&self, path: &str, body: &Value) -> (u16, Value) {
        let bearer = format!("Bearer {TEST_ROLL_TOKEN}");
        let (status, _, body) = self.post_auth(path, body, Some(&bearer)).await;
        (status, body)
    }

    /// POSTs JSON with an `Authorization` value (or none); returns the
    /// status, the `WWW-Authenticate` header and the JSON body (Null if
    /// none).
    pub async fn post_auth(
        &self,
        path: &str,
        body: &Value,
        authorization: Option<&str>,
    ) -> (u16, Option<String>, Value) {
        // `/games/act` bodies get their player's seat unless they give one.
        let body = if path == "/games/act" {
            &seated(body)
        } else {
            body
        };
        let mut req = self.http.post(self.url(path)).json(body);
        if let Some(a) = authorization {
            req = req.header("authorization", a);
        }
        let resp = req.send().await.expect("HTTP request");
        let status = resp.status().as_u16();
        let www = resp
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        (status, www, resp.json().await.unwrap_or(Value::Null))
    }

    /// POSTs raw bytes; returns the status, content type and body text.
    pub async fn post_raw(&self, path: &str, body: Vec<u8>) -> (u16, String, String) {
        let resp = self
            .http
            .post(self.url(path))
            .body(body)
            .send()
            .await
            .expect("HTTP request");
        let status = resp.status().as_u16();
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        (status, ct, resp.text().await.unwrap_or_default())
    }

    /// GETs; returns the status and the body text.
    pub async fn get(&self, path: &str) -> (u16, String) {
        let resp = self
            .http
            .get(self.url(path))
            .send()
            .await
            .expect("HTTP request");
        let status = resp.status().as_u16();
        (status, resp.text().await.unwrap_or_default())
    }

    /// A gRPC client of `bgref.v1.Referee` on the same port.
    pub async fn grpc(&self) -> RefereeClient<Channel> {
        RefereeClient::connect(self.url(""))
            .await
            .expect("gRPC connect")
    }

    /// A gRPC channel (for health and other services).
    pub async fn channel(&self) -> Channel {
        Channel::from_shared(self.url(""))
            .expect("uri")
            .connect()
            .await
            .expect("gRPC connect")
    }

    /// Sends SIGTERM (Unix) and waits for the exit code.
    pub async fn terminate(mut self) -> Option<i32> {
        if let Some(id) = self.child.id() {
            let _ = std::process::Command::new("kill")
                .arg("-TERM")
                .arg(id.to_string())
                .status();
        }
        tokio::time::timeout(Duration::from_secs(30), self.child.wait())
            .await
            .ok()
            .and_then(Result::ok)
            .and_then(|s| s.code())
    }

    /// Kills the process at once.
    pub async fn kill(mut self) {
        let _ = self.child.kill().await;
    }
}

/// The stable slug of a gRPC error (its `ErrorInfo` reason).
pub fn grpc_slug(status: &tonic::Status) -> String {
    status.get_details_error_info().expect("ErrorInfo").reason
}

/// Asserts a gRPC error's code and slug.
#[track_caller]
pub fn assert_grpc_error(status: &tonic::Status, code: tonic::Code, slug: &str) {
    assert_eq!(status.code(), code, "{status:?}");
    assert_eq!(grpc_slug(status), slug, "{status:?}");
}

/// The seat of `player` (`"x"` or `"o"`) in the match of the state token
/// `state`, as a server with the test dice secret gives it (whatever key
/// signed the token: seats hang on the master secret); `None` for text
/// that is not a token or a player that is neither.
pub fn test_seat(state: &str, player: &Value) -> Option<String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(state)
        .ok()?;
    // version, key id, chain; then the match id and the client seed.
    let rest = bytes.get(1 + 8 + 32..)?;
    let n = usize::from(*rest.first()?);
    let match_id = std::str::from_utf8(rest.get(1..1 + n)?).ok()?;
    let rest = rest.get(1 + n..)?;
    let m = usize::from(u16::from_be_bytes([*rest.first()?, *rest.get(1)?]));
    let client_seed = std::str::from_utf8(rest.get(2..2 + m)?).ok()?;
    let seats = bgref_service::api::games::seats(&test_keys(), match_id, client_seed);
    match player.as_str()? {
        "x" => Some(seats.x),
        "o" => Some(seats.o),
        _ => None,
    }
}

/// The keys of a server started with the test secrets.
pub fn test_keys() -> bgref_service::keys::DiceKeys {
    let hex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect()
    };
    let seed: [u8; 32] = hex(TEST_SIGNING_KEY).try_into().expect("32 bytes");
    bgref_service::keys::DiceKeys::from_parts(&hex(TEST_DICE_SECRET), &seed, None)
        .expect("test keys")
}

/// A `POST /games/act` body with its `seat`: a body without one gets the
/// seat of its `player` from the test secrets ([`test_seat`]), so the
/// rule tests act as the seated player; a body that has `seat` (a string,
/// or `null` for none) keeps it.
pub fn seated(body: &Value) -> Value {
    let mut body = body.clone();
    if let Some(object) = body.as_object_mut()
        && !object.contains_key("seat")
        && let Some(seat) = object
            .get("state")
            .and_then(Value::as_str)
            .and_then(|state| test_seat(state, object.get("player").unwrap_or(&Value::Null)))
    {
        object.insert("seat".into(), Value::String(seat));
    }
    body
}

/// The gRPC `ActRequest` of a JSON step of `POST /games/act` (its
/// `player`, `action`, `play`, `level`, `seat`, through [`wire`]) on the
/// token `state`; without `seat`, the player's seat from the test secrets
/// ([`seated`]).
pub fn proto_act(state: &str, step: &Value) -> proto::ActRequest {
    let mut body = step.clone();
    body["state"] = Value::String(state.to_owned());
    if step.get("seat").is_none() {
        body["seat"] = test_seat(state, &step["player"]).map_or(Value::Null, Value::String);
    }
    wire::to_message("ActRequest", &body)
}

/// The gRPC `TranscriptStep` of the same JSON step (a `seat` it has is not
/// part of a transcript: left out).
pub fn proto_step(step: &Value) -> proto::TranscriptStep {
    let mut step = step.clone();
    if let Some(object) = step.as_object_mut() {
        object.remove("seat");
    }
    wire::to_message("TranscriptStep", &step)
}

/// A Redis-protocol server for the ledger tests: Debian's `redis-server`
/// (or `valkey-server`) on a free loopback port, without persistence,
/// killed on drop. `scripts/ci-ledger.sh` installs it.
#[derive(Debug)]
pub struct Redis {
    child: Option<Child>,
    binary: PathBuf,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

impl Redis {
    /// Starts one; `None` when no server binary is installed, which fails
    /// under CI (`CI` set: `.ci/run` installs it) and skips elsewhere.
    pub async fn start() -> Option<Redis> {
        let binary = ["redis-server", "valkey-server"].iter().find_map(|name| {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/sbin")])
                .map(|dir| dir.join(name))
                .find(|path| path.is_file())
        });
        let Some(binary) = binary else {
            assert!(
                std::env::var_os("CI").is_none(),
                "no redis-server or valkey-server installed: scripts/ci-ledger.sh installs it"
            );
            eprintln!("SKIPPED: no redis-server or valkey-server (apt-get install redis-server)");
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let mut redis = Redis {
            child: None,
            binary,
            port,
        };
        redis.restart().await;
        Some(redis)
    }

    /// The ledger URL of this server.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Stops the server (its data is lost: no persistence).
    pub async fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill().await;
        }
    }

    /// Starts the server again on the same port (after [`Redis::stop`]) and
    /// waits until it accepts connections.
    pub async fn restart(&mut self) {
        self.stop().await;
        let child = Command::new(&self.binary)
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start redis-server");
        self.child = Some(child);
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("redis-server did not listen on {}", self.port);
    }
}

/// `start` begun over HTTP (`POST /games`) and over gRPC (`NewGame`): both
/// must succeed and sign the same first token. The HTTP answer and the
/// gRPC one.
pub async fn new_game_over_both(
    server: &Server,
    grpc: &mut RefereeClient<Channel>,
    start: &Value,
) -> (Value, proto::NewGameResponse) {
    let (status, first) = server.post("/games", start).await;
    assert_eq!(status, 200, "{start}: {first}");
    let g = grpc
        .new_game(wire::to_message::<proto::NewGameRequest>(
            "NewGameRequest",
            start,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(g.state, first["state"], "HTTP and gRPC start differently");
    (first, g)
}

/// `step` acted on `state` over HTTP and over gRPC: both must succeed and
/// sign the same next token. The HTTP answer and the gRPC one.
pub async fn act_over_both(
    server: &Server,
    grpc: &mut RefereeClient<Channel>,
    state: &str,
    step: &Value,
) -> (Value, proto::ActResponse) {
    let mut body = step.clone();
    body["state"] = Value::String(state.to_owned());
    let (status, answer) = server.post("/games/act", &body).await;
    assert_eq!(status, 200, "{body}: {answer}");
    let g = grpc.act(proto_act(state, step)).await.unwrap().into_inner();
    assert_eq!(g.state, answer["state"], "{step}: the protocols disagree");
    (answer, g)
}

/// Reads from `stream` until EOF or an error, for at most `limit`: what was
/// read, and whether the server closed the connection within the limit.
pub async fn read_until_closed(
    stream: &mut tokio::net::TcpStream,
    limit: Duration,
) -> (String, bool) {
    use tokio::io::AsyncReadExt as _;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let closed = tokio::time::timeout(limit, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .is_ok();
    (String::from_utf8_lossy(&out).into_owned(), closed)
}

/// The opening 3-1's `POST /legal-moves` body.
pub const LEGAL_MOVES: &str = r#"{"position":{"position_id":"4HPwATDgc/ABMA"},"dice":[3,1]}"#;

/// `n` connections to `addr`, each with a `POST /legal-moves` of
/// [`LEGAL_MOVES`] whose body stops after its first 5 bytes (the rest
/// never comes): stalled uploads, open until dropped.
pub async fn stalled_uploads(addr: SocketAddr, n: usize) -> Vec<tokio::net::TcpStream> {
    use tokio::io::AsyncWriteExt as _;
    let head = format!(
        "POST /legal-moves HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{}",
        LEGAL_MOVES.len(),
        &LEGAL_MOVES[..5]
    );
    let mut stalled = Vec::with_capacity(n);
    for _ in 0..n {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(head.as_bytes()).await.unwrap();
        stalled.push(s);
    }
    stalled
}

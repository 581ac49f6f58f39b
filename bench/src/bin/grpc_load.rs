//! A gRPC load client: a fixed number of unary calls in flight over a few
//! HTTP/2 connections, for a fixed time. Requests are encoded once and
//! responses are not decoded (a raw-bytes codec), so the client does the
//! same small work against bgref and against the echo server.
//!
//! ```text
//! bench-grpc-load URL TARGET [--fields LIST] [--concurrency 64]
//!     [--connections 4] [--duration 5] [--warmup 1] [--drain 0|1]
//! ```
//!
//! `TARGET` is `legal-moves` (`bgref.v1.Referee/LegalMoves`, the opening
//! position with 3-1), `echo` (`bench.v1.Echo/Echo`, 300 bytes), `answer`
//! (`bench.v1.Echo/Answer`: the same 300-byte request, answered with the
//! echo server's fixed payload), `act-roll` / `act-move` (`Act`: a roll,
//! and the starter's move after the opening roll, each on the same token of
//! a fresh money game every time; what `bench/game.py requests` sends over
//! HTTP), `act-roll-signed` (the roll with `sign_roll`, its receipt signed)
//! or `mix`:
//! every Referee method in turn, each with a valid request (checked once
//! before the load: a request the server refuses stops the run), `Act` on
//! a fresh `NewGame` token, and `RollDice`/`OpeningRoll` with the bearer
//! token of `$BGREF_DICE_ROLL_TOKEN` when it is set. The game calls
//! (`NewGame`, `Act`) carry the bearer token of `$BGREF_GAME_TOKEN` when it
//! is set.
//!
//! Prints one line: `requests=.. errors=.. refused=.. rps=.. p50_us=..
//! p99_us=..`. `errors` counts every failed call; with `--drain 1` (the
//! server is sent SIGTERM during the run) calls the server never took
//! (`UNAVAILABLE`: a stream refused in its GOAWAY, a connection closed or
//! refused; `CANCELLED` "operation was canceled": still queued in the
//! client when the connection closed) are counted as `refused` instead, and
//! any other failure is an error. The exit status is non-zero when `errors` is.

use std::io;
use std::time::{Duration, Instant};

use bytes::{Buf as _, BufMut as _, Bytes};
use http::uri::PathAndQuery;
use prost::Message as _;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Status};

use bgref_service::proto;

/// Sends and receives message bytes as they are.
#[derive(Debug, Clone, Copy, Default)]
struct RawCodec;

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }

    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put(item);
        Ok(())
    }
}

impl Decoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}

struct Args {
    url: String,
    target: String,
    fields: Vec<String>,
    concurrency: usize,
    connections: usize,
    duration: Duration,
    warmup: Duration,
    drain: bool,
}

fn args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let url = it
        .next()
        .ok_or("usage: bench-grpc-load URL TARGET [options]")?;
    let target = it.next().ok_or(
        "missing TARGET (legal-moves, echo, answer, act-roll, act-roll-signed, act-move or mix)",
    )?;
    let mut args = Args {
        url,
        target,
        fields: Vec::new(),
        concurrency: 64,
        connections: 4,
        duration: Duration::from_secs(5),
        warmup: Duration::from_secs(1),
        drain: false,
    };
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || value.parse::<f64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--fields" => args.fields = value.split(',').map(str::to_owned).collect(),
            "--concurrency" => args.concurrency = number()?.max(1.0) as usize,
            "--connections" => args.connections = number()?.max(1.0) as usize,
            "--duration" => args.duration = Duration::from_secs_f64(number()?),
            "--warmup" => args.warmup = Duration::from_secs_f64(number()?),
            "--drain" => args.drain = number()? != 0.0,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(args)
}

/// One call of a load: the method path, the encoded request, whether it
/// carries the roll token, and the game token it carries, if any.
#[derive(Clone)]
struct Call {
    path: &'static str,
    body: Bytes,
    roll_token: bool,
    game_token: Token,
}

impl Call {
    fn new(path: &'static str, message: &impl prost::Message) -> Call {
        Call {
            path,
            body: Bytes::from(message.encode_to_vec()),
            roll_token: false,
            game_token: None,
        }
    }

    /// The same call with `Authorization: Bearer $BGREF_GAME_TOKEN`, when
    /// that variable is set (the game flow then needs it).
    fn game(mut self) -> Call {
        self.game_token = std::env::var("BGREF_GAME_TOKEN")
            .ok()
            .and_then(|t| format!("Bearer {t}").parse().ok());
        self
    }
}

/// The calls of a target (the mix needs a `NewGame` token first).
async fn requests(args: &Args, channel: &Channel) -> Result<Vec<Call>, String> {
    match args.target.as_str() {
        "legal-moves" => Ok(vec![Call::new(
            "/bgref.v1.Referee/LegalMoves",
            &legal_moves_request(&args.fields),
        )]),
        target @ ("echo" | "answer") => {
            let mut buf = Vec::with_capacity(304);
            // Field 1 (bytes), length 300 as a varint, 300 bytes.
            buf.extend_from_slice(&[0x0a, 0xac, 0x02]);
            buf.extend(std::iter::repeat_n(b'x', 300));
            Ok(vec![Call {
                path: if target == "echo" {
                    "/bench.v1.Echo/Echo"
                } else {
                    "/bench.v1.Echo/Answer"
                },
                body: Bytes::from(buf),
                roll_token: false,
                game_token: None,
            }])
        }
        "mix" => mix(channel).await,
        target @ ("act-roll" | "act-roll-signed" | "act-move") => {
            let (mut roll, play) = act_requests(channel).await?;
            roll.sign_roll = target == "act-roll-signed";
            let request = if target == "act-move" { play } else { roll };
            Ok(vec![Call::new("/bgref.v1.Referee/Act", &request).game()])
        }
        other => Err(format!(
            "unknown target {other} (legal-moves, echo, answer, act-roll, act-roll-signed, act-move or mix)"
        )),
    }
}

/// `Act` on a fresh money game: one call and its answer.
async fn act(
    client: &mut tonic::client::Grpc<Channel>,
    request: &proto::ActRequest,
) -> Result<proto::ActResponse, String> {
    let answer = call(
        client,
        &Call::new("/bgref.v1.Referee/Act", request).game(),
        None,
    )
    .await
    .map_err(|e| format!("Act: {:?} {}", e.code(), e.message()))?;
    proto::ActResponse::decode(answer.as_ref()).map_err(|e| format!("Act answer: {e}"))
}

/// The `act-roll` and `act-move` requests: the opening roll made, the
/// starter's move (the first play listed), then the other player's roll.
async fn act_requests(channel: &Channel) -> Result<(proto::ActRequest, proto::ActRequest), String> {
    let mut client = tonic::client::Grpc::new(channel.clone());
    let new_game = proto::NewGameRequest {
        match_id: "bench-act-0001".to_owned(),
        client_seed: "bench:act".to_owned(),
        ..Default::default()
    };
    let started = call(
        &mut client,
        &Call::new("/bgref.v1.Referee/NewGame", &new_game).game(),
        None,
    )
    .await
    .map_err(|e| format!("NewGame: {e}"))?;
    let started = proto::NewGameResponse::decode(started.as_ref())
        .map_err(|e| format!("NewGame answer: {e}"))?;
    let seats = started.seats.unwrap_or_default();
    let seat = |player: i32| {
        if player == proto::Player::O as i32 {
            seats.o.clone()
        } else {
            seats.x.clone()
        }
    };
    let request = |state: String, player: i32, action: proto::GameAction| proto::ActRequest {
        state,
        seat: seat(player),
        player,
        action: action as i32,
        ..Default::default()
    };
    let x = proto::Player::X as i32;
    let opened = act(
        &mut client,
        &request(started.state, x, proto::GameAction::Roll),
    )
    .await?;
    let view = opened.view.unwrap_or_default();
    let notation = view
        .plays
        .first()
        .ok_or("the opening roll's view lists no play")?
        .notation
        .clone();
    let mut play = request(opened.state, view.to_act, proto::GameAction::Move);
    play.play = Some(proto::act_request::Play::Notation(notation));
    let moved = act(&mut client, &play).await?;
    let to_act = moved.view.unwrap_or_default().to_act;
    let roll = request(moved.state, to_act, proto::GameAction::Roll);
    Ok((roll, play))
}

fn position_id(id: &str) -> Option<proto::PositionInput> {
    Some(proto::PositionInput {
        encoding: Some(proto::position_input::Encoding::PositionId(id.to_owned())),
        ..Default::default()
    })
}

/// Every Referee method with a valid request.
async fn mix(channel: &Channel) -> Result<Vec<Call>, String> {
    let start = "4HPwATDgc/ABMA";
    let new_game = proto::NewGameRequest {
        match_id: "load-match-0001".to_owned(),
        client_seed: "load:test".to_owned(),
        r#match: Some(proto::MatchState {
            length: 5,
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut client = tonic::client::Grpc::new(channel.clone());
    let started = call(
        &mut client,
        &Call::new("/bgref.v1.Referee/NewGame", &new_game).game(),
        None,
    )
    .await
    .map_err(|e| format!("NewGame: {e}"))?;
    let started = proto::NewGameResponse::decode(started.as_ref())
        .map_err(|e| format!("NewGame answer: {e}"))?;
    let (state, seat) = (started.state, started.seats.unwrap_or_default().x);
    let mut calls = vec![
        Call::new("/bgref.v1.Referee/LegalMoves", &legal_moves_request(&[])),
        Call::new(
            "/bgref.v1.Referee/ApplyMove",
            &proto::ApplyMoveRequest {
                position: position_id(start),
                dice: vec![3, 1],
                play: Some(proto::apply_move_request::Play::Notation(
                    "8/5 6/5".to_owned(),
                )),
                ..Default::default()
            },
        ),
        Call::new(
            "/bgref.v1.Referee/ScoreGame",
            &proto::ScoreGameRequest {
                ended_by: proto::EndedBy::Pass as i32,
                winner: proto::Player::X as i32,
                ..Default::default()
            },
        ),
        Call::new(
            "/bgref.v1.Referee/ResolveCube",
            &proto::ResolveCubeRequest {
                player: proto::Player::X as i32,
                action: proto::CubeAction::Double as i32,
                ..Default::default()
            },
        ),
        Call::new(
            "/bgref.v1.Referee/ListVariants",
            &proto::ListVariantsRequest::default(),
        ),
        Call::new("/bgref.v1.Referee/NewGame", &new_game).game(),
        Call::new(
            "/bgref.v1.Referee/Act",
            &proto::ActRequest {
                state,
                seat,
                player: proto::Player::X as i32,
                action: proto::GameAction::Roll as i32,
                ..Default::default()
            },
        )
        .game(),
        Call::new(
            "/bgref.v1.Referee/GetCommitment",
            &proto::GetCommitmentRequest {
                match_id: "load-match-0001".to_owned(),
            },
        ),
        Call::new("/bgref.v1.Referee/GetKeys", &proto::GetKeysRequest {}),
        Call::new(
            "/bgref.v1.Referee/VerifyDice",
            &proto::VerifyDiceRequest {
                match_id: "match-0001".to_owned(),
                server_seed: "6025512f08ad4012896b8d1ad5ca00f965105f03adc2205032d249edbfc8bc2b"
                    .to_owned(),
                commitment: "aebb1934451e5e78c63cde858fb88b5eac408be3bd1d8cdd9baf6312ec7443cc"
                    .to_owned(),
                rolls: vec![proto::ClaimedRoll {
                    client_seed: "alice:bob".to_owned(),
                    game: 1,
                    turn: 1,
                    dice: vec![3, 5],
                }],
            },
        ),
    ];
    if std::env::var_os("BGREF_DICE_ROLL_TOKEN").is_some() {
        let roll = proto::RollDiceRequest {
            match_id: "load-match-0001".to_owned(),
            client_seed: "load:test".to_owned(),
            game: 1,
            turn: 1,
        };
        let opening = proto::OpeningRollRequest {
            match_id: "load-match-0001".to_owned(),
            client_seed: "load:test".to_owned(),
            game: 1,
            ..Default::default()
        };
        for mut c in [
            Call::new("/bgref.v1.Referee/RollDice", &roll),
            Call::new("/bgref.v1.Referee/OpeningRoll", &opening),
        ] {
            c.roll_token = true;
            calls.push(c);
        }
    }
    Ok(calls)
}

fn legal_moves_request(fields: &[String]) -> proto::LegalMovesRequest {
    proto::LegalMovesRequest {
        position: Some(proto::PositionInput {
            encoding: Some(proto::position_input::Encoding::PositionId(
                "4HPwATDgc/ABMA".to_owned(),
            )),
            ..Default::default()
        }),
        dice: vec![3, 1],
        fields: fields.to_vec(),
        ..Default::default()
    }
}

async fn call(
    client: &mut tonic::client::Grpc<Channel>,
    call: &Call,
    roll_token: Option<&tonic::metadata::MetadataValue<tonic::metadata::Ascii>>,
) -> Result<Bytes, Status> {
    client
        .ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let mut request = Request::new(call.body.clone());
    let token = if call.roll_token {
        roll_token
    } else {
        call.game_token.as_ref()
    };
    if let Some(token) = token {
        request
            .metadata_mut()
            .insert("authorization", token.clone());
    }
    let response = client
        .unary(request, PathAndQuery::from_static(call.path), RawCodec)
        .await?;
    Ok(response.into_inner())
}

#[derive(Default)]
struct Tally {
    latencies_us: Vec<u32>,
    errors: u64,
    refused: u64,
    first_error: Option<String>,
}

type Token = Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>;

#[allow(clippy::too_many_arguments)]
async fn worker(
    mut client: tonic::client::Grpc<Channel>,
    calls: Vec<Call>,
    offset: usize,
    token: Token,
    drain: bool,
    start: Instant,
    warmup: Duration,
    end: Instant,
) -> Tally {
    let mut tally = Tally::default();
    for i in offset.. {
        let t0 = Instant::now();
        if t0 >= end {
            break;
        }
        let result = call(&mut client, &calls[i % calls.len()], token.as_ref()).await;
        if t0.duration_since(start) < warmup {
            continue;
        }
        match result {
            Ok(_) => {
                let us = t0.elapsed().as_micros();
                tally
                    .latencies_us
                    .push(u32::try_from(us).unwrap_or(u32::MAX));
            }
            Err(status) if drain && never_accepted(&status) => {
                tally.refused += 1;
                // The server is gone: do not spin.
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Err(status) => {
                tally.errors += 1;
                tally.first_error.get_or_insert_with(|| {
                    format!(
                        "{}: {:?} {}",
                        calls[i % calls.len()].path,
                        status.code(),
                        status.message()
                    )
                });
            }
        }
    }
    tally
}

/// A failure that says the server never took the call: `UNAVAILABLE` (a
/// connection refused or closed, a stream refused by the GOAWAY), or
/// hyper's "operation was canceled", which tonic reports as `CANCELLED` for
/// a request still queued in the client when its connection closed (hyper:
/// "a pending item was dropped before ever being processed").
fn never_accepted(status: &Status) -> bool {
    match status.code() {
        tonic::Code::Unavailable => true,
        tonic::Code::Cancelled => status.message().contains("operation was canceled"),
        _ => false,
    }
}

fn percentile(sorted: &[u32], p: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args()?;
    let endpoint = Endpoint::from_shared(args.url.clone())?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(5));
    let mut channels = Vec::with_capacity(args.connections);
    for _ in 0..args.connections {
        channels.push(endpoint.connect().await?);
    }
    let token: Token = match std::env::var("BGREF_DICE_ROLL_TOKEN") {
        Ok(t) => Some(format!("Bearer {t}").parse()?),
        Err(_) => None,
    };
    let calls = requests(&args, &channels[0]).await?;
    // Each call checked once first: a harness pointed at the wrong server,
    // or a request the server refuses, stops here.
    let mut probe = tonic::client::Grpc::new(channels[0].clone());
    for c in &calls {
        let answer = call(&mut probe, c, token.as_ref())
            .await
            .map_err(|e| format!("{}: {:?} {}", c.path, e.code(), e.message()))?;
        if args.target == "legal-moves" {
            let decoded = proto::LegalMovesResponse::decode(answer.as_ref())?;
            eprintln!(
                "legal-moves: {} plays, {} bytes per response",
                decoded.plays.len(),
                answer.len()
            );
        }
    }
    if calls.len() > 1 {
        eprintln!("mix: {} methods, each checked once", calls.len());
    }
    let start = Instant::now();
    let end = start + args.warmup + args.duration;
    let tasks: Vec<_> = (0..args.concurrency)
        .map(|i| {
            let client = tonic::client::Grpc::new(channels[i % channels.len()].clone());
            tokio::spawn(worker(
                client,
                calls.clone(),
                i,
                token.clone(),
                args.drain,
                start,
                args.warmup,
                end,
            ))
        })
        .collect();
    let mut latencies = Vec::new();
    let (mut errors, mut refused, mut first_error) = (0, 0, None);
    for task in tasks {
        let tally = task.await?;
        latencies.extend(tally.latencies_us);
        errors += tally.errors;
        refused += tally.refused;
        first_error = first_error.or(tally.first_error);
    }
    let measured = end
        .saturating_duration_since(start + args.warmup)
        .as_secs_f64();
    latencies.sort_unstable();
    println!(
        "requests={} errors={} refused={} rps={:.0} p50_us={} p99_us={}",
        latencies.len(),
        errors,
        refused,
        latencies.len() as f64 / measured,
        percentile(&latencies, 50.0),
        percentile(&latencies, 99.0),
    );
    if errors > 0 {
        let first = first_error.unwrap_or_default();
        return Err(io::Error::other(format!("{errors} calls failed; first: {first}")).into());
    }
    Ok(())
}

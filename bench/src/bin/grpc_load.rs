//! A gRPC load client: a fixed number of unary calls in flight over a few
//! HTTP/2 connections, for a fixed time. Requests are encoded once and
//! responses are not decoded (a raw-bytes codec), so the client does the
//! same small work against bgref and against the echo server.
//!
//! ```text
//! bench-grpc-load URL TARGET [--fields LIST] [--concurrency 64]
//!     [--connections 4] [--duration 5] [--warmup 1]
//! ```
//!
//! `TARGET` is `legal-moves` (`bgref.v1.Referee/LegalMoves`, the opening
//! position with 3-1) or `echo` (`bench.v1.Echo/Echo`, 300 bytes).
//! Prints one line: `requests=.. errors=.. rps=.. p50_us=.. p99_us=..`.

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
}

fn args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let url = it
        .next()
        .ok_or("usage: bench-grpc-load URL TARGET [options]")?;
    let target = it.next().ok_or("missing TARGET (legal-moves or echo)")?;
    let mut args = Args {
        url,
        target,
        fields: Vec::new(),
        concurrency: 64,
        connections: 4,
        duration: Duration::from_secs(5),
        warmup: Duration::from_secs(1),
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
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(args)
}

/// The method path and the encoded request of a target.
fn request(args: &Args) -> Result<(&'static str, Bytes), String> {
    match args.target.as_str() {
        "legal-moves" => {
            let req = legal_moves_request(&args.fields);
            Ok((
                "/bgref.v1.Referee/LegalMoves",
                Bytes::from(req.encode_to_vec()),
            ))
        }
        "echo" => {
            let mut buf = Vec::with_capacity(304);
            // Field 1 (bytes), length 300 as a varint, 300 bytes.
            buf.extend_from_slice(&[0x0a, 0xac, 0x02]);
            buf.extend(std::iter::repeat_n(b'x', 300));
            Ok(("/bench.v1.Echo/Echo", Bytes::from(buf)))
        }
        other => Err(format!("unknown target {other} (legal-moves or echo)")),
    }
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
    path: &'static str,
    body: &Bytes,
) -> Result<Bytes, Status> {
    client
        .ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let response = client
        .unary(
            Request::new(body.clone()),
            PathAndQuery::from_static(path),
            RawCodec,
        )
        .await?;
    Ok(response.into_inner())
}

#[derive(Default)]
struct Tally {
    latencies_us: Vec<u32>,
    errors: u64,
}

async fn worker(
    mut client: tonic::client::Grpc<Channel>,
    path: &'static str,
    body: Bytes,
    start: Instant,
    warmup: Duration,
    end: Instant,
) -> Tally {
    let mut tally = Tally::default();
    loop {
        let t0 = Instant::now();
        if t0 >= end {
            return tally;
        }
        let result = call(&mut client, path, &body).await;
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
            Err(_) => tally.errors += 1,
        }
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
    let (path, body) = request(&args)?;
    let endpoint = Endpoint::from_shared(args.url.clone())?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(5));
    let mut channels = Vec::with_capacity(args.connections);
    for _ in 0..args.connections {
        channels.push(endpoint.connect().await?);
    }
    // One checked call first: a harness pointed at the wrong server stops here.
    let mut probe = tonic::client::Grpc::new(channels[0].clone());
    let answer = call(&mut probe, path, &body).await?;
    if args.target == "legal-moves" {
        let decoded = proto::LegalMovesResponse::decode(answer.as_ref())?;
        eprintln!(
            "legal-moves: {} plays, {} bytes per response",
            decoded.plays.len(),
            answer.len()
        );
    }
    let start = Instant::now();
    let end = start + args.warmup + args.duration;
    let tasks: Vec<_> = (0..args.concurrency)
        .map(|i| {
            let client = tonic::client::Grpc::new(channels[i % channels.len()].clone());
            tokio::spawn(worker(client, path, body.clone(), start, args.warmup, end))
        })
        .collect();
    let mut latencies = Vec::new();
    let mut errors = 0;
    for task in tasks {
        let tally = task.await?;
        latencies.extend(tally.latencies_us);
        errors += tally.errors;
    }
    let measured = end
        .saturating_duration_since(start + args.warmup)
        .as_secs_f64();
    latencies.sort_unstable();
    println!(
        "requests={} errors={} rps={:.0} p50_us={} p99_us={}",
        latencies.len(),
        errors,
        latencies.len() as f64 / measured,
        percentile(&latencies, 50.0),
        percentile(&latencies, 99.0),
    );
    if errors > 0 {
        return Err(io::Error::other(format!("{errors} calls failed")).into());
    }
    Ok(())
}

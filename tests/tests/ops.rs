//! Operating the real binary: health and readiness, gRPC health and
//! reflection, Prometheus metrics, request ids and structured logs,
//! OpenTelemetry traces to a real OTLP receiver, graceful shutdown on
//! SIGTERM, and configuration by flags and `BGREF_*` variables.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bgref_e2e::Server;
use bgref_service::proto;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;
use tokio::sync::mpsc::UnboundedReceiver;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const LEGAL_MOVES: &str = r#"{"position":{"position_id":"4HPwATDgc/ABMA"},"dice":[3,1]}"#;

fn legal_moves_request() -> proto::LegalMovesRequest {
    proto::LegalMovesRequest {
        variant: 0,
        position: Some(proto::PositionInput {
            encoding: Some(proto::position_input::Encoding::PositionId(
                "4HPwATDgc/ABMA".into(),
            )),
            turn: 0,
        }),
        dice: vec![3, 1],
        game_start: false,
        tables_rules: None,
        fields: Vec::new(),
    }
}

/// Takes the log receiver out of `server` (so that `terminate` can consume it).
fn take_logs(server: &mut Server) -> UnboundedReceiver<String> {
    let (_, empty) = tokio::sync::mpsc::unbounded_channel();
    std::mem::replace(&mut server.logs, empty)
}

/// The first JSON log line matching `want`, waiting at most 10 s.
async fn find_log(logs: &mut UnboundedReceiver<String>, want: impl Fn(&Value) -> bool) -> Value {
    tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(line) = logs.recv().await {
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && want(&v)
            {
                return v;
            }
        }
        panic!("log closed before the line was found");
    })
    .await
    .expect("log line within 10 s")
}

async fn health_status(channel: tonic::transport::Channel, service: &str) -> ServingStatus {
    let reply = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: service.into(),
        })
        .await
        .unwrap_or_else(|s| panic!("health of {service:?}: {s:?}"));
    reply.into_inner().status()
}

#[tokio::test]
async fn health_readiness_and_grpc_health() {
    let server = Server::start(&[]).await;
    assert_eq!(
        server.get("/healthz").await,
        (200, r#"{"status":"ok"}"#.into())
    );
    assert_eq!(
        server.get("/readyz").await,
        (200, r#"{"status":"ok"}"#.into())
    );
    let channel = server.channel().await;
    assert_eq!(
        health_status(channel.clone(), "").await,
        ServingStatus::Serving
    );
    assert_eq!(
        health_status(channel.clone(), "bgref.v1.Referee").await,
        ServingStatus::Serving
    );
    let unknown = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: "no.such.Service".into(),
        })
        .await
        .expect_err("unknown service");
    assert_eq!(unknown.code(), tonic::Code::NotFound);
}

#[tokio::test]
async fn reflection_lists_the_services_v1_and_v1alpha() {
    use tonic_reflection::pb::{v1, v1alpha};
    let server = Server::start(&[]).await;
    let want = [
        "bgref.v1.Referee",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
    ];

    let request = v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(v1::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let mut stream =
        v1::server_reflection_client::ServerReflectionClient::new(server.channel().await)
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .expect("reflection v1")
            .into_inner();
    let reply = stream.message().await.expect("reply").expect("one message");
    let Some(v1::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        reply.message_response
    else {
        panic!("not a service list: {reply:?}");
    };
    let names: Vec<&str> = list.service.iter().map(|s| s.name.as_str()).collect();
    for name in want {
        assert!(names.contains(&name), "v1 lists {names:?}, not {name}");
    }

    let request = v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            v1alpha::server_reflection_request::MessageRequest::FileContainingSymbol(
                "bgref.v1.Referee".into(),
            ),
        ),
    };
    let mut stream =
        v1alpha::server_reflection_client::ServerReflectionClient::new(server.channel().await)
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .expect("reflection v1alpha")
            .into_inner();
    let reply = stream.message().await.expect("reply").expect("one message");
    let Some(v1alpha::server_reflection_response::MessageResponse::FileDescriptorResponse(files)) =
        reply.message_response
    else {
        panic!("not a file descriptor: {reply:?}");
    };
    assert!(!files.file_descriptor_proto.is_empty());
}

/// `name{labels} value` lines of a Prometheus text exposition.
fn sample(text: &str, name: &str, labels: &str) -> Option<f64> {
    let prefix = format!("{name}{{{labels}}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|v| v.parse().ok())
}

#[tokio::test]
async fn metrics_count_and_time_http_and_grpc_by_operation_and_outcome() {
    let server = Server::start(&[]).await;
    let request: Value = serde_json::from_str(LEGAL_MOVES).unwrap();
    for _ in 0..2 {
        assert_eq!(server.post("/legal-moves", &request).await.0, 200);
    }
    assert_eq!(
        server
            .post("/legal-moves", &json!({"dice": [3, 1]}))
            .await
            .0,
        400
    );
    assert_eq!(server.get("/no/such/path").await.0, 404);

    let mut grpc = server.grpc().await;
    grpc.legal_moves(legal_moves_request())
        .await
        .expect("gRPC OK");
    let invalid = grpc
        .legal_moves(proto::LegalMovesRequest {
            dice: vec![9, 1],
            game_start: false,
            fields: Vec::new(),
            ..legal_moves_request()
        })
        .await
        .expect_err("invalid dice");
    assert_eq!(invalid.code(), tonic::Code::InvalidArgument);
    // A method the service does not have.
    let mut raw = tonic::client::Grpc::new(server.channel().await);
    raw.ready().await.unwrap();
    let missing = raw
        .unary::<_, proto::GetKeysResponse, _>(
            tonic::Request::new(proto::GetKeysRequest {}),
            "/bgref.v1.Referee/NoSuchMethod".parse().unwrap(),
            tonic_prost::ProstCodec::default(),
        )
        .await
        .expect_err("no such method");
    assert_eq!(missing.code(), tonic::Code::Unimplemented);

    let resp = reqwest::get(server.url("/metrics")).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        resp.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let text = resp.text().await.unwrap();
    let count = |labels: &str| sample(&text, "bgref_requests_total", labels);
    assert_eq!(
        count(r#"protocol="http",operation="POST /legal-moves",status="200""#),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        count(r#"protocol="http",operation="POST /legal-moves",status="400""#),
        Some(1.0)
    );
    assert_eq!(
        count(r#"protocol="http",operation="GET unmatched",status="404""#),
        Some(1.0)
    );
    assert_eq!(
        count(r#"protocol="grpc",operation="/bgref.v1.Referee/LegalMoves",status="OK""#),
        Some(1.0)
    );
    assert_eq!(
        count(
            r#"protocol="grpc",operation="/bgref.v1.Referee/LegalMoves",status="INVALID_ARGUMENT""#
        ),
        Some(1.0)
    );
    assert_eq!(
        count(r#"protocol="grpc",operation="unknown",status="UNIMPLEMENTED""#),
        Some(1.0)
    );

    let labels = r#"protocol="grpc",operation="/bgref.v1.Referee/LegalMoves",status="OK""#;
    let h = "bgref_request_duration_seconds";
    assert_eq!(sample(&text, &format!("{h}_count"), labels), Some(1.0));
    assert_eq!(
        sample(
            &text,
            &format!("{h}_bucket"),
            &format!("{labels},le=\"+Inf\"")
        ),
        Some(1.0)
    );
    assert!(sample(&text, &format!("{h}_sum"), labels).unwrap() > 0.0);
    assert!(text.contains("# TYPE bgref_request_duration_seconds histogram\n"));
    // The scrape itself is in flight.
    let in_flight = text
        .lines()
        .find_map(|l| l.strip_prefix("bgref_requests_in_flight "));
    assert_eq!(in_flight, Some("1"));
}

/// Every metric `/metrics` exports (its `# TYPE` line) has a row in the
/// metrics table of `deploy/README.md`, and every row names one that is
/// exported (`bgref_responses_abandoned_total` was once left out).
#[tokio::test]
async fn every_exported_metric_is_documented_in_the_deploy_readme() {
    let server = Server::start(&[]).await;
    assert_eq!(server.get("/healthz").await.0, 200);
    let (status, text) = server.get("/metrics").await;
    assert_eq!(status, 200);
    let exported: std::collections::BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(exported.len() >= 6, "{text}");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/README.md"))
            .unwrap();
    let documented: std::collections::BTreeSet<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` | "))
        .filter(|(_, rest)| {
            ["counter", "gauge", "histogram"]
                .iter()
                .any(|t| rest.starts_with(&format!("{t} |")))
        })
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        exported, documented,
        "metrics exported vs documented in deploy/README.md"
    );
}

/// The fields of the `request completed` lines of an HTTP request with a
/// `traceparent`, one to an unmatched path and a gRPC call are those the
/// log field table of `deploy/README.md` names, no more, no fewer.
#[tokio::test]
async fn every_documented_log_field_is_logged() {
    let mut server = Server::start(&[]).await;
    let http = reqwest::Client::new();
    let resp = http
        .post(server.url("/legal-moves"))
        .header("content-type", "application/json")
        .header("x-request-id", "fields-http")
        .header(
            "traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        )
        .body(LEGAL_MOVES)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let resp = http
        .get(server.url("/no-such-route"))
        .header("x-request-id", "fields-unmatched")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    let mut grpc = server.grpc().await;
    let mut request = tonic::Request::new(legal_moves_request());
    request
        .metadata_mut()
        .insert("x-request-id", "fields-grpc".parse().unwrap());
    grpc.legal_moves(request).await.unwrap();

    let mut logs = take_logs(&mut server);
    let mut logged = std::collections::BTreeSet::new();
    for id in ["fields-http", "fields-unmatched", "fields-grpc"] {
        let line = find_log(&mut logs, |v| {
            v["message"] == "request completed" && v["request_id"] == id
        })
        .await;
        logged.extend(line.as_object().unwrap().keys().cloned());
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/README.md"))
            .unwrap();
    let documented: std::collections::BTreeSet<String> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` | log | "))
        .map(|(name, _)| name.to_owned())
        .collect();
    assert_eq!(
        logged, documented,
        "log fields logged vs documented in deploy/README.md"
    );
    assert_eq!(server.terminate().await, Some(0));
}

#[tokio::test]
async fn request_ids_are_kept_or_made_echoed_and_logged() {
    let mut server = Server::start(&[]).await;
    let http = reqwest::Client::new();
    let post = |id: Option<&str>, traceparent: Option<&str>| {
        let mut req = http
            .post(server.url("/legal-moves"))
            .header("content-type", "application/json")
            .body(LEGAL_MOVES);
        if let Some(id) = id {
            req = req.header("x-request-id", id);
        }
        if let Some(tp) = traceparent {
            req = req.header("traceparent", tp);
        }
        req.send()
    };
    let echoed = |r: &reqwest::Response| r.headers()["x-request-id"].to_str().unwrap().to_owned();

    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let resp = post(
        Some("client-id-1"),
        Some(&format!("00-{trace_id}-00f067aa0ba902b7-01")),
    )
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(echoed(&resp), "client-id-1");

    let made = echoed(&post(None, None).await.unwrap());
    assert_eq!(made.len(), 36, "a UUID: {made}");
    assert_eq!(made.matches('-').count(), 4, "a UUID: {made}");
    let long = "x".repeat(300);
    let replaced = echoed(&post(Some(&long), None).await.unwrap());
    assert_eq!(
        replaced.len(),
        36,
        "an over-long id is replaced: {replaced}"
    );

    let mut grpc = server.grpc().await;
    let mut request = tonic::Request::new(legal_moves_request());
    request
        .metadata_mut()
        .insert("x-request-id", "grpc-id-7".parse().unwrap());
    let reply = grpc.legal_moves(request).await.unwrap();
    assert_eq!(reply.metadata().get("x-request-id").unwrap(), "grpc-id-7");

    // One "request completed" line per request, with its fields.
    let mut logs = take_logs(&mut server);
    let line = find_log(&mut logs, |v| {
        v["message"] == "request completed" && v["request_id"] == "client-id-1"
    })
    .await;
    let http_line = line.clone();
    assert_eq!(line["level"], "INFO");
    assert_eq!(line["status"], "200");
    assert!(line["latency_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(line["protocol"], "http");
    assert_eq!(line["http.request.method"], "POST");
    assert_eq!(line["http.route"], "/legal-moves");
    assert_eq!(line["http.response.status_code"], 200);
    // Without an OTLP endpoint the caller's trace id is still logged.
    assert_eq!(line["trace_id"], trace_id);

    let line = find_log(&mut logs, |v| {
        v["message"] == "request completed" && v["request_id"] == "grpc-id-7"
    })
    .await;
    assert_eq!(line["status"], "OK");
    assert_eq!(line["protocol"], "grpc");
    assert_eq!(line["rpc.service"], "bgref.v1.Referee");
    assert_eq!(line["rpc.method"], "LegalMoves");
    assert_eq!(line["rpc.grpc.status_code"], 0);
    // Without export, each fact once: nothing the fields above tell
    // (OpenTelemetry's naming fields, the route's own path, gRPC's POST).
    for line in [&http_line, &line] {
        for gone in ["otel.name", "otel.kind", "rpc.system", "url.path"] {
            assert!(line.get(gone).is_none(), "{gone} in {line}");
        }
    }
    assert!(line.get("http.request.method").is_none(), "{line}");
}

mod otlp {
    use super::*;
    use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
        TraceService, TraceServiceServer,
    };
    use opentelemetry_proto::tonic::collector::trace::v1::{
        ExportTraceServiceRequest, ExportTraceServiceResponse,
    };
    use opentelemetry_proto::tonic::common::v1::KeyValue;
    use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
    use opentelemetry_proto::tonic::trace::v1::Span;

    /// An OTLP/gRPC trace receiver that keeps what it is sent.
    #[derive(Clone, Default)]
    pub struct Collector {
        requests: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
    }

    #[tonic::async_trait]
    impl TraceService for Collector {
        async fn export(
            &self,
            request: tonic::Request<ExportTraceServiceRequest>,
        ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
            self.requests.lock().unwrap().push(request.into_inner());
            Ok(tonic::Response::new(ExportTraceServiceResponse {
                partial_success: None,
            }))
        }
    }

    impl Collector {
        /// Serves on a free loopback port; returns its `http://` endpoint.
        pub async fn start() -> (Collector, String) {
            let collector = Collector::default();
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let endpoint = format!("http://{}", listener.local_addr().unwrap());
            let service = TraceServiceServer::new(collector.clone());
            tokio::spawn(
                tonic::transport::Server::builder()
                    .add_service(service)
                    .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)),
            );
            (collector, endpoint)
        }

        /// Every span received, with its resource's `service.name`.
        pub fn spans(&self) -> Vec<(String, Span)> {
            let mut out = Vec::new();
            for request in self.requests.lock().unwrap().iter() {
                for rs in &request.resource_spans {
                    let service = rs
                        .resource
                        .as_ref()
                        .and_then(|r| attr_of(&r.attributes, "service.name"))
                        .unwrap_or_default();
                    for ss in &rs.scope_spans {
                        for span in &ss.spans {
                            out.push((service.clone(), span.clone()));
                        }
                    }
                }
            }
            out
        }
    }

    fn attr_of(attributes: &[KeyValue], key: &str) -> Option<String> {
        let value = attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?;
        Some(match value.value.as_ref()? {
            Any::StringValue(s) => s.clone(),
            Any::IntValue(i) => i.to_string(),
            Any::BoolValue(b) => b.to_string(),
            Any::DoubleValue(d) => d.to_string(),
            other => format!("{other:?}"),
        })
    }

    pub fn attr(span: &Span, key: &str) -> Option<String> {
        attr_of(&span.attributes, key)
    }

    pub fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

#[tokio::test]
async fn traces_go_to_the_otlp_endpoint_and_are_flushed_at_exit() {
    use otlp::{Collector, attr, hex};
    let (collector, endpoint) = Collector::start().await;
    // A long batch delay: the spans arrive only because exit flushes them.
    let server = Server::start(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
        ("OTEL_BSP_SCHEDULE_DELAY", "600000"),
    ])
    .await;
    let trace_id = "0af7651916cd43dd8448eb211c80319c";
    let remote_parent = "b7ad6b7169203331";
    let resp = reqwest::Client::new()
        .post(server.url("/legal-moves"))
        .header("content-type", "application/json")
        .header("x-request-id", "otel-http-1")
        .header("traceparent", format!("00-{trace_id}-{remote_parent}-01"))
        .body(LEGAL_MOVES)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let mut grpc = server.grpc().await;
    let mut request = tonic::Request::new(legal_moves_request());
    request
        .metadata_mut()
        .insert("x-request-id", "otel-grpc-1".parse().unwrap());
    grpc.legal_moves(request).await.unwrap();
    let invalid = grpc
        .legal_moves(proto::LegalMovesRequest {
            dice: vec![7, 7],
            game_start: false,
            fields: Vec::new(),
            ..legal_moves_request()
        })
        .await;
    assert!(invalid.is_err());
    drop(grpc);
    assert!(collector.spans().is_empty(), "nothing before the flush");
    assert_eq!(server.terminate().await, Some(0));

    let spans = collector.spans();
    let names: Vec<&str> = spans.iter().map(|(_, s)| s.name.as_str()).collect();
    assert!(
        spans.iter().all(|(service, _)| service == "bgref"),
        "{spans:?}"
    );
    let find = |pred: &dyn Fn(&opentelemetry_proto::tonic::trace::v1::Span) -> bool| {
        spans
            .iter()
            .map(|(_, s)| s)
            .find(|s| pred(s))
            .unwrap_or_else(|| panic!("span not among {names:?}"))
            .clone()
    };

    // HTTP: the request span is a server span, child of the caller's span.
    let http = find(&|s| s.name == "POST /legal-moves");
    assert_eq!(hex(&http.trace_id), trace_id);
    assert_eq!(hex(&http.parent_span_id), remote_parent);
    assert_eq!(http.kind, 2, "SPAN_KIND_SERVER");
    assert_eq!(attr(&http, "http.request.method").as_deref(), Some("POST"));
    assert_eq!(attr(&http, "http.route").as_deref(), Some("/legal-moves"));
    assert_eq!(
        attr(&http, "http.response.status_code").as_deref(),
        Some("200")
    );
    assert_eq!(attr(&http, "request_id").as_deref(), Some("otel-http-1"));
    assert_eq!(attr(&http, "trace_id").as_deref(), Some(trace_id));
    // The handler's span is its child.
    let handler = find(&|s| s.name == "legal_moves");
    assert_eq!(handler.trace_id, http.trace_id);
    assert_eq!(handler.parent_span_id, http.span_id);

    // gRPC: named after the method, with the gRPC status.
    let rpc = find(&|s| {
        s.name == "bgref.v1.Referee/LegalMoves"
            && attr(s, "request_id").as_deref() == Some("otel-grpc-1")
    });
    assert!(rpc.parent_span_id.is_empty(), "no traceparent: a root span");
    assert_eq!(attr(&rpc, "rpc.system").as_deref(), Some("grpc"));
    assert_eq!(
        attr(&rpc, "rpc.service").as_deref(),
        Some("bgref.v1.Referee")
    );
    assert_eq!(attr(&rpc, "rpc.method").as_deref(), Some("LegalMoves"));
    assert_eq!(attr(&rpc, "rpc.grpc.status_code").as_deref(), Some("0"));
    let method = find(&|s| s.name == "LegalMoves" && s.parent_span_id == rpc.span_id);
    assert_eq!(method.trace_id, rpc.trace_id);
    // A client error is not a span error.
    let refused = find(&|s| {
        s.name == "bgref.v1.Referee/LegalMoves"
            && attr(s, "rpc.grpc.status_code").as_deref() == Some("3")
    });
    assert_ne!(refused.status.map(|s| s.code), Some(2), "STATUS_CODE_ERROR");

    // The exporter's own transport is not traced.
    for (_, span) in &spans {
        let module = attr(span, "code.namespace")
            .or_else(|| attr(span, "code.module.name"))
            .unwrap_or_default();
        for noisy in ["hyper", "h2", "tonic", "tower", "opentelemetry"] {
            assert!(!module.starts_with(noisy), "{} from {module}", span.name);
        }
    }
}

#[tokio::test]
async fn no_traces_when_export_is_turned_off() {
    let (collector, endpoint) = otlp::Collector::start().await;
    let server = Server::start(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
        ("OTEL_TRACES_EXPORTER", "none"),
    ])
    .await;
    let request: Value = serde_json::from_str(LEGAL_MOVES).unwrap();
    assert_eq!(server.post("/legal-moves", &request).await.0, 200);
    assert_eq!(server.terminate().await, Some(0));
    assert!(collector.spans().is_empty());
}

/// Sends a `POST /legal-moves` head and the first `sent` bytes of its body.
async fn start_slow_request(addr: SocketAddr, sent: usize) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /legal-moves HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n",
        LEGAL_MOVES.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
        .write_all(&LEGAL_MOVES.as_bytes()[..sent])
        .await
        .unwrap();
    stream.flush().await.unwrap();
    stream
}

/// Whether new connections are refused, polling for up to 5 s.
async fn refuses_connections(addr: SocketAddr) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if TcpStream::connect(addr).await.is_err() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn sigterm_stops_accepting_finishes_in_flight_requests_and_exits_0() {
    let mut server = Server::start(&[]).await;
    let addr = server.addr;
    let mut logs = take_logs(&mut server);
    // A request in flight: its body is still coming when SIGTERM arrives.
    let mut slow = start_slow_request(addr, 10).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let exit = tokio::spawn(server.terminate());
    find_log(&mut logs, |v| v["message"] == "shutdown signal: draining").await;
    assert!(
        refuses_connections(addr).await,
        "still accepting after SIGTERM"
    );
    assert!(!exit.is_finished(), "exited with a request in flight");

    slow.write_all(&LEGAL_MOVES.as_bytes()[10..]).await.unwrap();
    let mut response = String::new();
    slow.read_to_string(&mut response).await.unwrap();
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert!(response.contains(r#""plays":"#), "{response}");
    assert_eq!(exit.await.unwrap(), Some(0));
}

#[tokio::test]
async fn sigterm_waits_no_longer_than_the_shutdown_timeout() {
    let server = Server::start(&[
        ("BGREF_SHUTDOWN_TIMEOUT", "1s"),
        ("BGREF_REQUEST_TIMEOUT", "60s"),
    ])
    .await;
    // Never finished by the client.
    let _stuck = start_slow_request(server.addr, 5).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let start = Instant::now();
    assert_eq!(server.terminate().await, Some(0));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(8),
        "exited after {took:?}"
    );
}

#[tokio::test]
async fn with_a_shutdown_delay_readiness_fails_first_then_the_process_exits_0() {
    let mut server = Server::start(&[("BGREF_SHUTDOWN_DELAY", "5s")]).await;
    let addr = server.addr;
    let channel = server.channel().await;
    let mut logs = take_logs(&mut server);
    let start = Instant::now();
    let exit = tokio::spawn(server.terminate());
    find_log(&mut logs, |v| v["message"] == "shutdown signal: draining").await;

    // Still serving, on new connections too, but no longer ready.
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let url = |p: &str| format!("http://{addr}{p}");
    let readyz = http.get(url("/readyz")).send().await.unwrap();
    assert_eq!(readyz.status(), 503);
    assert_eq!(
        readyz.text().await.unwrap(),
        r#"{"status":"shutting_down"}"#
    );
    assert_eq!(
        http.get(url("/healthz")).send().await.unwrap().status(),
        200
    );
    let moves = http
        .post(url("/legal-moves"))
        .header("content-type", "application/json")
        .body(LEGAL_MOVES)
        .send()
        .await
        .unwrap();
    assert_eq!(moves.status(), 200);
    assert_eq!(
        health_status(channel.clone(), "").await,
        ServingStatus::NotServing
    );
    assert_eq!(
        health_status(channel, "bgref.v1.Referee").await,
        ServingStatus::NotServing
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "checks took too long"
    );

    assert_eq!(exit.await.unwrap(), Some(0));
    assert!(
        start.elapsed() >= Duration::from_secs(5),
        "exited before the delay"
    );
}

#[tokio::test]
async fn help_documents_every_option_and_its_environment_variable() {
    let out = tokio::process::Command::new(bgref_e2e::binary())
        .arg("--help")
        .env_clear()
        .output()
        .await
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for (flag, env) in [
        ("--listen", "BGREF_LISTEN"),
        ("--grpc-listen", "BGREF_GRPC_LISTEN"),
        ("--max-body-bytes", "BGREF_MAX_BODY_BYTES"),
        ("--request-timeout", "BGREF_REQUEST_TIMEOUT"),
        ("--max-concurrency", "BGREF_MAX_CONCURRENCY"),
        ("--shutdown-timeout", "BGREF_SHUTDOWN_TIMEOUT"),
        ("--shutdown-delay", "BGREF_SHUTDOWN_DELAY"),
        ("--log-format", "BGREF_LOG_FORMAT"),
        ("--log-filter", "BGREF_LOG_FILTER"),
        ("--dice-secret", "BGREF_DICE_SECRET"),
        ("--signing-key", "BGREF_SIGNING_KEY"),
    ] {
        assert!(help.contains(flag), "{flag} missing from --help:\n{help}");
        assert!(
            help.contains(&format!("[env: {env}")),
            "{env} missing from --help"
        );
    }
    for var in [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_SERVICE_NAME",
        "RUST_LOG",
    ] {
        assert!(help.contains(var), "{var} missing from --help");
    }
}

#[tokio::test]
async fn the_bare_binary_runs_with_text_logs() {
    // No configuration at all but a free port (the default 0.0.0.0:8080 may be taken).
    let mut child = tokio::process::Command::new(bgref_e2e::binary())
        .args(["--listen", "127.0.0.1:0"])
        .env_clear()
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr: SocketAddr = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            assert!(
                serde_json::from_str::<Value>(&line).is_err(),
                "JSON: {line}"
            );
            assert!(!line.contains('\u{1b}'), "colour codes in a pipe: {line}");
            if line.contains("bgref serving HTTP and gRPC") {
                let listen = line.split("listen=").nth(1).unwrap();
                return listen.split_whitespace().next().unwrap().parse().unwrap();
            }
        }
        panic!("no start-up line");
    })
    .await
    .unwrap();
    let health = reqwest::get(format!("http://{addr}/healthz"))
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    // A request's text line: each fact once (no `otel.name`, `otel.kind`,
    // `rpc.system`, nor a path that is the route's or a gRPC call's
    // `POST`), one line per request.
    let answer = reqwest::Client::new()
        .post(format!("http://{addr}/legal-moves"))
        .header("content-type", "application/json")
        .header("x-request-id", "text-http-1")
        .body(LEGAL_MOVES)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let mut grpc = proto::referee_client::RefereeClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    let mut request = tonic::Request::new(legal_moves_request());
    request
        .metadata_mut()
        .insert("x-request-id", "text-grpc-1".parse().unwrap());
    grpc.legal_moves(request).await.unwrap();
    let expected = [
        "bgref_service::telemetry: request completed protocol=\"http\" request_id=\"text-http-1\" \
         http.request.method=\"POST\" http.route=\"/legal-moves\" http.response.status_code=200 \
         status=\"200\" latency_ms=",
        "bgref_service::telemetry: request completed protocol=\"grpc\" request_id=\"text-grpc-1\" \
         rpc.service=\"bgref.v1.Referee\" rpc.method=\"LegalMoves\" rpc.grpc.status_code=0 \
         status=\"OK\" latency_ms=",
    ];
    let mut seen = [false; 2];
    tokio::time::timeout(Duration::from_secs(30), async {
        while seen.contains(&false) {
            let line = lines.next_line().await.unwrap().expect("a request line");
            for (seen, text) in seen.iter_mut().zip(expected) {
                if line.contains(text) {
                    assert!(
                        line.starts_with("20") && line.contains("Z  INFO "),
                        "{line}"
                    );
                    *seen = true;
                }
            }
        }
    })
    .await
    .expect("both request lines");
    let pid = child.id().unwrap().to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

#[tokio::test]
async fn the_log_format_flag_wins_over_the_environment() {
    // The harness finds the address in a JSON line: the flag must win over
    // BGREF_LOG_FORMAT=text.
    let server =
        Server::start_with_args(&[("BGREF_LOG_FORMAT", "text")], &["--log-format", "json"]).await;
    assert_eq!(server.get("/healthz").await.0, 200);
    assert_eq!(server.terminate().await, Some(0));
}

/// No secret reaches a trace: the spans exported after requests that carry
/// the reveal and roll tokens (right and wrong), reveal a seed, roll, and
/// fail, searched for the dice secret, the signing key and both tokens.
#[tokio::test]
async fn traces_carry_no_secret() {
    use bgref_e2e::{TEST_DICE_SECRET, TEST_REVEAL_TOKEN, TEST_ROLL_TOKEN, TEST_SIGNING_KEY};
    let (collector, endpoint) = otlp::Collector::start().await;
    let server = Server::start(&[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)]).await;
    let http = reqwest::Client::new();
    let roll = serde_json::json!({"match_id": "m", "client_seed": "c", "game": 1, "turn": 1});
    let reveal = serde_json::json!({"match_id": "m"});
    for (path, body, token, status) in [
        ("/dice/roll", &roll, TEST_ROLL_TOKEN, 200),
        ("/dice/roll", &roll, TEST_REVEAL_TOKEN, 401),
        ("/dice/reveal", &reveal, TEST_REVEAL_TOKEN, 200),
        ("/dice/reveal", &reveal, TEST_ROLL_TOKEN, 401),
        ("/dice/reveal", &reveal, TEST_DICE_SECRET, 401),
        ("/legal-moves", &reveal, TEST_SIGNING_KEY, 400),
    ] {
        let resp = http
            .post(server.url(path))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), status, "{path}");
    }
    let mut grpc = server.grpc().await;
    grpc.roll_dice(bgref_e2e::with_roll_token(proto::RollDiceRequest {
        match_id: "m".into(),
        client_seed: "c".into(),
        game: 1,
        turn: 2,
    }))
    .await
    .unwrap();
    drop(grpc);
    assert_eq!(server.terminate().await, Some(0));
    let spans = collector.spans();
    assert!(spans.len() >= 8, "{} spans", spans.len());
    let text = format!("{spans:?}");
    for secret in [
        TEST_DICE_SECRET,
        TEST_SIGNING_KEY,
        TEST_REVEAL_TOKEN,
        TEST_ROLL_TOKEN,
    ] {
        assert!(!text.contains(secret), "a span carries {secret}");
    }
    // The search finds what a span does carry.
    assert!(text.contains("/dice/reveal"));
}

const GAME_TOKEN: &str = "ops-test-game-token-0001";

/// POST `body` to `path` on `addr` with the game token: the status and the
/// JSON answer, or `None` when no answer came (the process is gone).
async fn game_call(
    http: &reqwest::Client,
    addr: SocketAddr,
    path: &str,
    body: &Value,
) -> Option<(u16, Value)> {
    let resp = http
        .post(format!("http://{addr}{path}"))
        .header("authorization", format!("Bearer {GAME_TOKEN}"))
        .json(&bgref_e2e::seated(body))
        .send()
        .await
        .ok()?;
    let status = resp.status().as_u16();
    Some((status, resp.json().await.ok()?))
}

/// The next action of a deterministic player (no doubling): roll, or the
/// `n`-th play of the list.
fn next_action(view: &Value, state: &str, n: usize) -> Value {
    let mut step = json!({"player": view["to_act"].as_str().unwrap_or("x"), "state": state});
    if view["phase"] == "move" {
        let plays = view["plays"].as_array().unwrap();
        step["action"] = json!("move");
        step["play"] = plays[(n * 7) % plays.len()]["notation"].clone();
    } else {
        step["action"] = json!("roll");
    }
    step
}

/// Plays one money game through `next_action` from the answer of `POST
/// /games`; returns every act answer in order.
async fn play_game_on(http: &reqwest::Client, addr: SocketAddr, first: &Value) -> Vec<Value> {
    let mut answers = Vec::new();
    let mut last = first.clone();
    for n in 0..2_000 {
        if last.get("game_over").is_some() {
            return answers;
        }
        let step = next_action(&last["view"], last["state"].as_str().unwrap(), n);
        let (status, answer) = game_call(http, addr, "/games/act", &step).await.unwrap();
        assert_eq!(status, 200, "{step}: {answer}");
        answers.push(answer.clone());
        last = answer;
    }
    panic!("the game did not end");
}

/// "A replica killed under load loses no game": the game state lives with
/// the client (the signed `state` token), so when the replica serving a
/// game is killed (SIGKILL, with requests in flight, its last action sent
/// as it dies), the client sends that action again to another replica with
/// the same secrets and plays on to the end: every answer equals that of
/// the same game played on one instance alone.
#[tokio::test]
async fn a_game_goes_on_on_another_replica_when_its_own_is_killed_under_load() {
    let env = [("BGREF_GAME_TOKEN", GAME_TOKEN)];
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let start = json!({"match_id": "ops-kill-1", "client_seed": "alice:bob"});

    // The reference: the whole game on one instance.
    let lone = Server::start(&env).await;
    let (status, first) = game_call(&http, lone.addr, "/games", &start).await.unwrap();
    assert_eq!(status, 200, "{first}");
    let reference = play_game_on(&http, lone.addr, &first).await;
    lone.kill().await;
    assert!(reference.len() > 20, "{} actions", reference.len());

    let doomed = Server::start(&env).await;
    let survivor = Server::start(&env).await;
    let (a, b) = (doomed.addr, survivor.addr);
    let (status, again) = game_call(&http, a, "/games", &start).await.unwrap();
    assert_eq!((status, &again), (200, &first), "the start differs");

    // Load on the doomed replica: legal moves (small and 1 MB answers) and
    // game actions; any answer but 200 fails (a refused or cut connection
    // once it is killed is expected).
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut load = Vec::new();
    for i in 0..8 {
        let (http, stop, first) = (http.clone(), stop.clone(), first.clone());
        load.push(tokio::spawn(async move {
            let mut answered = 0;
            let mut wrong = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let (path, body) = match i % 3 {
                    0 => ("/legal-moves", serde_json::from_str(LEGAL_MOVES).unwrap()),
                    // 1 828 plays: x one checker on each of 10 to 24.
                    1 => (
                        "/legal-moves",
                        json!({"position": {"board": {"points": [
                            -15, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
                        ], "turn": "x"}}, "dice": [3, 3]}),
                    ),
                    _ => (
                        "/games/act",
                        next_action(&first["view"], first["state"].as_str().unwrap(), 0),
                    ),
                };
                match game_call(&http, a, path, &body).await {
                    Some((200, _)) => answered += 1,
                    Some((status, answer)) => wrong.push(format!("{path}: {status} {answer}")),
                    None => tokio::time::sleep(Duration::from_millis(20)).await,
                }
            }
            (answered, wrong)
        }));
    }

    // Half the game on the doomed replica, its next action in flight as it
    // is killed.
    let half = reference.len() / 2;
    let mut last = first.clone();
    for (n, expected) in reference.iter().enumerate().take(half) {
        let step = next_action(&last["view"], last["state"].as_str().unwrap(), n);
        let (status, answer) = game_call(&http, a, "/games/act", &step).await.unwrap();
        assert_eq!((status, &answer), (200, expected), "action {n}");
        last = answer;
    }
    let step = next_action(&last["view"], last["state"].as_str().unwrap(), half);
    let in_flight = tokio::spawn({
        let (http, step) = (http.clone(), step.clone());
        async move { game_call(&http, a, "/games/act", &step).await }
    });
    tokio::time::sleep(Duration::from_millis(2)).await;
    doomed.kill().await;
    let answered_by_doomed = match in_flight.await.unwrap() {
        Some((status, answer)) => {
            assert_eq!((status, &answer), (200, &reference[half]));
            true
        }
        None => false,
    };
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut answered = 0;
    for task in load {
        let (n, wrong) = task.await.unwrap();
        assert!(wrong.is_empty(), "{wrong:?}");
        answered += n;
    }
    assert!(answered > 0, "no load was served");
    assert!(
        TcpStream::connect(a).await.is_err(),
        "the killed replica still accepts"
    );

    // The client goes on with the other replica: the action sent as the
    // first one died (again: the same state and action give the same
    // answer), then the rest of the game.
    let mut answers = reference[..half].to_vec();
    let mut last = reference[half - 1].clone();
    for (n, expected) in reference.iter().enumerate().skip(half) {
        let step = next_action(&last["view"], last["state"].as_str().unwrap(), n);
        let (status, answer) = game_call(&http, b, "/games/act", &step).await.unwrap();
        assert_eq!((status, &answer), (200, expected), "action {n}");
        answers.push(answer.clone());
        last = answer;
    }
    assert_eq!(answers, reference);
    assert!(answers.last().unwrap().get("game_over").is_some());
    eprintln!(
        "{} actions; killed after {half} with the next in flight ({}); {answered} load \
         requests answered by the killed replica before it died",
        reference.len(),
        if answered_by_doomed {
            "answered before the kill"
        } else {
            "lost with it, sent again"
        }
    );
}

/// `body` gzipped.
fn gzip(body: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(body).unwrap();
    encoder.finish().unwrap()
}

/// Issue 29, item 6: answers gzipped when the client accepts it, gzipped
/// bodies decoded, with the body limit counted on the decoded bytes.
#[tokio::test]
async fn http_answers_are_gzipped_when_asked_and_gzipped_bodies_are_read() {
    use std::io::Read as _;
    let server = Server::start(&[]).await;
    let client = reqwest::Client::new();
    // Every play of a 1-1 in the opening, with its position.
    let request = json!({
        "position": {"position_id": "4HPwATDgc/ABMA"},
        "dice": [1, 1],
    })
    .to_string();
    let post = |body: Vec<u8>, headers: &[(&str, &str)]| {
        let mut builder = client
            .post(server.url("/legal-moves"))
            .header("content-type", "application/json")
            .body(body);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.send()
    };

    let plain = post(request.clone().into_bytes(), &[]).await.unwrap();
    assert_eq!(plain.status(), 200);
    assert!(plain.headers().get("content-encoding").is_none());
    let plain = plain.bytes().await.unwrap();

    let zipped = post(request.clone().into_bytes(), &[("accept-encoding", "gzip")])
        .await
        .unwrap();
    assert_eq!(zipped.status(), 200);
    assert_eq!(zipped.headers()["content-encoding"], "gzip");
    assert!(
        zipped.headers()["vary"]
            .to_str()
            .unwrap()
            .contains("accept-encoding")
    );
    let zipped = zipped.bytes().await.unwrap();
    let mut decoded = Vec::new();
    flate2::read::GzDecoder::new(&zipped[..])
        .read_to_end(&mut decoded)
        .unwrap();
    assert_eq!(
        decoded, plain,
        "the gzipped answer decodes to the plain one"
    );
    assert!(
        zipped.len() * 4 < plain.len(),
        "{} bytes gzipped of {}",
        zipped.len(),
        plain.len()
    );

    // A gzipped body is read as the plain one.
    let sent = post(gzip(request.as_bytes()), &[("content-encoding", "gzip")])
        .await
        .unwrap();
    assert_eq!(sent.status(), 200);
    assert_eq!(sent.bytes().await.unwrap(), plain);

    // 10 MiB of spaces in 10 KB of gzip: decoded only up to the 64 KiB limit.
    let mut bomb = request.clone().into_bytes();
    bomb.splice(0..0, std::iter::repeat_n(b' ', 10 << 20));
    let bomb = gzip(&bomb);
    assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
    let refused = post(bomb, &[("content-encoding", "gzip")]).await.unwrap();
    assert_eq!(refused.status(), 413);
    let problem: Value = refused.json().await.unwrap();
    assert_eq!(problem["type"], "payload-too-large", "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("BGREF_MAX_BODY_BYTES")
    );

    // Not gzip after all: the body cannot be read.
    let broken = post(
        b"\x1f\x8b not gzip".to_vec(),
        &[("content-encoding", "gzip")],
    )
    .await
    .unwrap();
    assert_eq!(broken.status(), 400);
    let problem: Value = broken.json().await.unwrap();
    assert_eq!(problem["type"], "unreadable-body", "{problem}");

    // Another coding: 415, saying which it takes.
    let other = post(request.clone().into_bytes(), &[("content-encoding", "br")])
        .await
        .unwrap();
    assert_eq!(other.status(), 415);
    assert_eq!(other.headers()["accept-encoding"], "gzip");
    let problem: Value = other.json().await.unwrap();
    assert_eq!(problem["type"], "unsupported-media-type", "{problem}");

    // gRPC answers are never gzipped by HTTP's content coding.
    let mut grpc = server.grpc().await;
    let mut call = tonic::Request::new(proto::ListVariantsRequest::default());
    call.metadata_mut()
        .insert("accept-encoding", "gzip".parse().unwrap());
    let answer = grpc.list_variants(call).await.unwrap();
    assert!(answer.metadata().get("content-encoding").is_none());
    assert!(!answer.into_inner().variants.is_empty());
    server.terminate().await;
}

//! A bare tonic 0.14 server with one unary method that answers the
//! request's payload (`bench.v1.Echo/Echo`): the gRPC baseline of
//! `bench/run.sh`, and `bench.v1.Echo/Answer`, a fixed payload of
//! `$BENCH_ANSWER_BYTES` bytes whatever the request. No layers.
//!
//! With `BENCH_BGREF_CONN=1` the same service is served the way bgref
//! serves its connections (`bgref_service::transport::serve`: its socket
//! wrapper, which gathers HTTP/2 writes, and its HTTP/2 settings) instead of
//! by tonic's own server: the baseline for bgref's own work on the same
//! transport.

use tonic::{Request, Response, Status};

mod proto {
    tonic::include_proto!("bench.v1");
}

use proto::echo_server::{Echo, EchoServer};
use proto::{AnswerMessage, EchoMessage};

#[derive(Debug)]
struct EchoService {
    /// The payload `Answer` sends (a cheap clone: reference counted).
    answer: bytes::Bytes,
}

#[tonic::async_trait]
impl Echo for EchoService {
    async fn echo(&self, request: Request<EchoMessage>) -> Result<Response<EchoMessage>, Status> {
        Ok(Response::new(request.into_inner()))
    }

    async fn answer(
        &self,
        _request: Request<EchoMessage>,
    ) -> Result<Response<AnswerMessage>, Status> {
        Ok(Response::new(AnswerMessage {
            payload: self.answer.clone(),
        }))
    }
}

#[tokio::main]
async fn main() {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .unwrap_or_else(|e| panic!("cannot listen on {addr}: {e}"));
    if let Ok(local) = listener.local_addr() {
        println!("listening on {local}");
    }
    let service = EchoServer::new(EchoService {
        answer: bytes::Bytes::from(vec![b'x'; bgref_bench::answer_bytes()]),
    });
    if std::env::var_os("BENCH_BGREF_CONN").is_some_and(|v| v == "1") {
        let config = bgref_service::config::Config::defaults();
        let router = tonic::service::Routes::new(service).into_axum_router();
        bgref_service::transport::serve(
            listener,
            router,
            bgref_service::transport::ConnLimits::from_config(&config),
            std::future::pending(),
            std::time::Duration::ZERO,
        )
        .await
        .unwrap_or_else(|e| panic!("server failed: {e}"));
        return;
    }
    let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
    tonic::transport::Server::builder()
        .add_service(service)
        .serve_with_incoming(incoming)
        .await
        .unwrap_or_else(|e| panic!("server failed: {e}"));
}

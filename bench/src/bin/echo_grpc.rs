//! A bare tonic 0.14 server with one unary method that answers the
//! request's payload (`bench.v1.Echo/Echo`): the gRPC baseline of
//! `bench/run.sh`, and `bench.v1.Echo/Answer`, a fixed payload of
//! `$BENCH_ANSWER_BYTES` bytes whatever the request. No layers.

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
    let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
    tonic::transport::Server::builder()
        .add_service(EchoServer::new(EchoService {
            answer: bytes::Bytes::from(vec![b'x'; bgref_bench::answer_bytes()]),
        }))
        .serve_with_incoming(incoming)
        .await
        .unwrap_or_else(|e| panic!("server failed: {e}"));
}

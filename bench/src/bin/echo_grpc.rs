//! A bare tonic 0.14 server with one unary method that answers the
//! request's payload (`bench.v1.Echo/Echo`): the gRPC baseline of
//! `bench/run.sh`. No layers.

use tonic::{Request, Response, Status};

mod proto {
    tonic::include_proto!("bench.v1");
}

use proto::EchoMessage;
use proto::echo_server::{Echo, EchoServer};

#[derive(Debug, Default)]
struct EchoService;

#[tonic::async_trait]
impl Echo for EchoService {
    async fn echo(&self, request: Request<EchoMessage>) -> Result<Response<EchoMessage>, Status> {
        Ok(Response::new(request.into_inner()))
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
        .add_service(EchoServer::new(EchoService))
        .serve_with_incoming(incoming)
        .await
        .unwrap_or_else(|e| panic!("server failed: {e}"));
}

//! bgref-service: the thin HTTP/JSON and gRPC adapter over `bgref-core`,
//! and the `bgref` binary's building blocks.

pub mod api;
pub mod config;
pub mod error;
pub mod grpc;
pub mod http;
pub mod keys;
pub mod layers;
pub mod ledger;
pub mod metrics;
pub mod offload;
pub mod protocol;
pub mod referee;
pub mod server;
pub mod state;
pub mod telemetry;
pub mod transport;

/// Code generated from `proto/bgref/v1/*.proto`.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod proto {
    tonic::include_proto!("bgref.v1");

    /// The encoded descriptor set, served by gRPC reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/bgref_descriptor.bin"));
}

//! The JSON shapes of the public contract (`api.md`), shared by the HTTP
//! adapter (serde, OpenAPI schemas) and the transport-free `api` module.
//! The gRPC adapter converts its messages to and from these.

pub mod common;
pub mod cube;
pub mod dice;
pub mod moves;

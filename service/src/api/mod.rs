//! The service API as plain functions: our request structs in, response
//! structs or [`ApiError`](crate::error::ApiError) out. No transport, no
//! async: `http/` and `grpc/` only convert and call these.

pub mod common;
pub mod cube;
pub mod dice;
pub mod moves;

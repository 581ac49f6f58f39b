//! The service API, transport-free: each operation takes domain input
//! (checked by [`input`], the one validator, so both transports refuse a
//! mistake with the same slug, detail and field) and answers with domain
//! views. `http/` and `grpc/` each parse their own messages into that
//! input and render the views once:
//!
//! ```text
//! JSON  -> http::types -> api input -> bgref_core -> api view -> http::types -> JSON
//! proto ---------------> api input -> bgref_core -> api view ---------------> proto
//! ```

pub mod cube;
pub mod dice;
pub mod games;
pub mod input;
pub mod moves;
pub mod render;
pub mod tables;
pub mod turn;
pub mod variants;
pub mod view;

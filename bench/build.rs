//! Compiles `proto/echo.proto` (the bare tonic echo server) into OUT_DIR.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("proto");
    let proto = root.join("echo.proto");
    println!("cargo:rerun-if-changed={}", proto.display());
    let fds = protox::compile([&proto], [&root])?;
    tonic_prost_build::configure()
        .build_client(false)
        .build_server(true)
        .bytes(".bench.v1.AnswerMessage.payload")
        .compile_fds(fds)?;
    Ok(())
}

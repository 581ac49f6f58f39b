//! `openapi/openapi.json` is the document the code generates; this test
//! fails on any drift. `UPDATE_OPENAPI=1 cargo test -p bgref-service --test openapi`
//! rewrites the file.

#[test]
fn committed_openapi_matches_the_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
    let generated = bgref_service::http::openapi()
        .to_pretty_json()
        .expect("serializable")
        + "\n";
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(path, &generated).expect("write openapi.json");
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/openapi.json is out of date: run `UPDATE_OPENAPI=1 cargo test -p bgref-service --test openapi`"
    );
}

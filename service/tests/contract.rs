//! One contract for both protocols: each operation's HTTP schema
//! (`openapi/openapi.json`, as the code generates it) names the same fields
//! and enum values as its proto message (the descriptor set the build
//! compiles from `proto/`).
//!
//! For every `bgref.v1.Referee` method and its HTTP route, the request and
//! the response are walked together: an HTTP property pairs with the proto
//! field (or `oneof`) of the same name, and each pair of objects is walked
//! again; an HTTP `enum` pairs with a proto `enum` whose values, without
//! the type's prefix and in lower case, are the HTTP values (`-` read as
//! `_`; `UNSPECIFIED` aside). Every difference is a mismatch, and each
//! mismatch must be one of the differences the contract chose
//! (`contract/deliberate.rs`, each with its reason, docs/api.md
//! "Operations"; the e2e crate's translator applies the same list); a new one fails
//! the test, and so does a listed one that is gone.

use std::collections::{BTreeMap, BTreeSet};

use prost::Message as _;
use prost_types::field_descriptor_proto::Type;
use prost_types::{DescriptorProto, EnumDescriptorProto, FileDescriptorSet};
use serde_json::Value;

/// Each HTTP operation and its gRPC method's request and response messages
/// (`None`: a GET without parameters, whose request message is empty).
const OPERATIONS: &[(&str, &str, Option<&str>, &str)] = &[
    (
        "post",
        "/legal-moves",
        Some("LegalMovesRequest"),
        "LegalMovesResponse",
    ),
    (
        "post",
        "/apply-move",
        Some("ApplyMoveRequest"),
        "ApplyMoveResponse",
    ),
    ("get", "/variants", None, "ListVariantsResponse"),
    (
        "post",
        "/dice/roll",
        Some("RollDiceRequest"),
        "RollDiceResponse",
    ),
    (
        "post",
        "/dice/opening",
        Some("OpeningRollRequest"),
        "OpeningRollResponse",
    ),
    (
        "get",
        "/dice/commitment",
        Some("GetCommitmentRequest"),
        "GetCommitmentResponse",
    ),
    (
        "post",
        "/dice/reveal",
        Some("RevealSeedRequest"),
        "RevealSeedResponse",
    ),
    (
        "post",
        "/dice/verify",
        Some("VerifyDiceRequest"),
        "VerifyDiceResponse",
    ),
    ("get", "/dice/keys", None, "GetKeysResponse"),
    (
        "post",
        "/score",
        Some("ScoreGameRequest"),
        "ScoreGameResponse",
    ),
    (
        "post",
        "/cube",
        Some("ResolveCubeRequest"),
        "ResolveCubeResponse",
    ),
    ("post", "/games", Some("NewGameRequest"), "NewGameResponse"),
    ("post", "/games/act", Some("ActRequest"), "ActResponse"),
    (
        "post",
        "/games/verify",
        Some("VerifyGameRequest"),
        "VerifyGameResponse",
    ),
    (
        "post",
        "/games/export",
        Some("ExportGameRequest"),
        "ExportGameResponse",
    ),
];

include!("contract/deliberate.rs");

/// The mismatches the walk must find: each difference of
/// `contract/deliberate.rs` as the walk words it.
fn deliberate() -> BTreeSet<String> {
    let renamed = RENAMED.iter().flat_map(|&(message, http, proto, _)| {
        [
            format!("{message}.{http}: HTTP only"),
            format!("{message}.{proto}: proto only"),
        ]
    });
    let one_sided = ONE_SIDED.iter().map(|&(m, _)| m.to_owned());
    let strings = STRING_ENUMS
        .iter()
        .map(|&(field, _)| format!("{field}: HTTP enum, proto string"));
    let aliases = ALIASES
        .iter()
        .map(|&(e, http, _, _)| format!("{e}: HTTP only value {http}"));
    renamed
        .chain(one_sided)
        .chain(strings)
        .chain(aliases)
        .collect()
}

struct Proto {
    messages: BTreeMap<String, DescriptorProto>,
    enums: BTreeMap<String, EnumDescriptorProto>,
}

impl Proto {
    fn load() -> Proto {
        let set = FileDescriptorSet::decode(bgref_service::proto::FILE_DESCRIPTOR_SET)
            .expect("the build's descriptor set");
        let mut proto = Proto {
            messages: BTreeMap::new(),
            enums: BTreeMap::new(),
        };
        for file in set.file {
            assert_eq!(file.package(), "bgref.v1");
            for message in file.message_type {
                assert!(message.nested_type.is_empty() && message.enum_type.is_empty());
                proto.messages.insert(message.name().to_owned(), message);
            }
            for e in file.enum_type {
                proto.enums.insert(e.name().to_owned(), e);
            }
        }
        proto
    }
}

/// A proto field's type: a message or enum name, or a scalar.
fn type_name(field: &prost_types::FieldDescriptorProto) -> String {
    match field.r#type() {
        Type::Message | Type::Enum => field
            .type_name()
            .trim_start_matches(".bgref.v1.")
            .to_owned(),
        other => other.as_str_name().to_owned(),
    }
}

struct Walk<'a> {
    doc: &'a Value,
    proto: &'a Proto,
    seen: BTreeSet<(String, String)>,
    mismatches: BTreeSet<String>,
}

impl Walk<'_> {
    /// The schemas `schema` may be: references resolved, `oneOf`, `anyOf`
    /// and `allOf` flattened, `null` left out.
    fn leaves(&self, schema: &Value) -> Vec<Value> {
        if let Some(r) = schema["$ref"].as_str() {
            let name = r.trim_start_matches("#/components/schemas/");
            return self.leaves(&self.doc["components"]["schemas"][name]);
        }
        let mut out = Vec::new();
        let mut combined = false;
        for key in ["oneOf", "anyOf", "allOf"] {
            for alt in schema[key].as_array().into_iter().flatten() {
                combined = true;
                out.extend(self.leaves(alt));
            }
        }
        if (!combined || schema.get("properties").is_some()) && schema["type"] != "null" {
            out.push(schema.clone());
        }
        out
    }

    fn enum_values(leaves: &[Value]) -> BTreeSet<String> {
        leaves
            .iter()
            .flat_map(|l| l["enum"].as_array().cloned().unwrap_or_default())
            .filter_map(|v| v.as_str().map(|s| s.replace('-', "_")))
            .collect()
    }

    fn compare(&mut self, schema: &Value, proto_type: &str, context: &str) {
        if !self
            .seen
            .insert((schema.to_string(), proto_type.to_owned()))
        {
            return;
        }
        let leaves = self.leaves(schema);
        let is_array = leaves.iter().any(|l| l["type"] == "array");
        let has_properties = leaves.iter().any(|l| l.get("properties").is_some());
        if is_array && !has_properties {
            let items: Vec<Value> = leaves
                .iter()
                .filter_map(|l| l.get("items").cloned())
                .collect();
            self.compare(&serde_json::json!({ "oneOf": items }), proto_type, context);
            return;
        }
        if let Some(e) = self.proto.enums.get(proto_type) {
            let prefix = format!("{}_", screaming(proto_type));
            let proto_values: BTreeSet<String> = e
                .value
                .iter()
                .map(|v| v.name().trim_start_matches(&prefix).to_lowercase())
                .filter(|v| v != "unspecified")
                .collect();
            let http_values = Self::enum_values(&leaves);
            if http_values.is_empty() {
                self.mismatches
                    .insert(format!("{context}: HTTP no enum, proto enum {proto_type}"));
            }
            for v in http_values.difference(&proto_values) {
                self.mismatches
                    .insert(format!("{proto_type}: HTTP only value {v}"));
            }
            for v in proto_values.difference(&http_values) {
                self.mismatches
                    .insert(format!("{proto_type}: proto only value {v}"));
            }
            return;
        }
        let Some(message) = self.proto.messages.get(proto_type) else {
            if has_properties {
                self.mismatches
                    .insert(format!("{context}: HTTP object, proto {proto_type}"));
            } else if !Self::enum_values(&leaves).is_empty() {
                self.mismatches
                    .insert(format!("{context}: HTTP enum, proto string"));
            }
            return;
        };
        let message = message.clone();
        let mut properties: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for leaf in &leaves {
            for (name, property) in leaf["properties"].as_object().into_iter().flatten() {
                properties
                    .entry(name.clone())
                    .or_default()
                    .push(property.clone());
            }
        }
        if !has_properties {
            self.mismatches
                .insert(format!("{context}: HTTP no object, proto {proto_type}"));
            return;
        }
        // Real oneofs (not proto3 `optional`'s synthetic ones) by name.
        let oneofs: BTreeSet<String> = message
            .oneof_decl
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                message.field.iter().any(|f| {
                    f.oneof_index == Some(i32::try_from(*i).unwrap()) && !f.proto3_optional()
                })
            })
            .map(|(_, o)| o.name().to_owned())
            .collect();
        let fields: BTreeMap<String, _> = message
            .field
            .iter()
            .map(|f| (f.name().to_owned(), f.clone()))
            .collect();
        for name in properties.keys() {
            if !fields.contains_key(name) && !oneofs.contains(name) {
                self.mismatches
                    .insert(format!("{proto_type}.{name}: HTTP only"));
            }
        }
        for (name, field) in &fields {
            let in_oneof = field.oneof_index.is_some() && !field.proto3_optional();
            let oneof_named = field
                .oneof_index
                .and_then(|i| message.oneof_decl.get(usize::try_from(i).unwrap()))
                .is_some_and(|o| properties.contains_key(o.name()));
            match properties.get(name) {
                // The alternatives' schemas of one property (a backgammon
                // and a tables answer) together: one proto field holds both.
                Some(schemas) => {
                    let union = serde_json::json!({ "oneOf": schemas });
                    let context = format!("{proto_type}.{name}");
                    self.compare(&union, &type_name(field), &context);
                }
                // A oneof the HTTP schema names as one property (`play`:
                // notation or moves) pairs by the oneof's name.
                None if in_oneof && oneof_named => {}
                None => {
                    self.mismatches
                        .insert(format!("{proto_type}.{name}: proto only"));
                }
            }
        }
    }
}

#[test]
fn http_and_grpc_name_the_same_fields_and_values() {
    let doc = serde_json::to_value(bgref_service::http::openapi()).expect("document");
    let proto = Proto::load();
    let mut walk = Walk {
        doc: &doc,
        proto: &proto,
        seen: BTreeSet::new(),
        mismatches: BTreeSet::new(),
    };
    for &(method, path, request, response) in OPERATIONS {
        let op = &doc["paths"][path][method];
        assert!(op.is_object(), "{method} {path} is not in the document");
        match (method, request) {
            ("post", Some(request)) => {
                let schema = op["requestBody"]["content"]["application/json"]["schema"].clone();
                walk.compare(&schema, request, request);
            }
            (_, Some(request)) => {
                let mut properties = serde_json::Map::new();
                for p in op["parameters"].as_array().into_iter().flatten() {
                    properties.insert(p["name"].as_str().unwrap().to_owned(), p["schema"].clone());
                }
                let schema = serde_json::json!({"type": "object", "properties": properties});
                walk.compare(&schema, request, request);
            }
            (_, None) => assert!(op.get("parameters").is_none(), "{method} {path}"),
        }
        let schema = op["responses"]["200"]["content"]["application/json"]["schema"].clone();
        walk.compare(&schema, response, response);
    }
    // Every Referee method is an operation here.
    let set = FileDescriptorSet::decode(bgref_service::proto::FILE_DESCRIPTOR_SET).unwrap();
    let referee = set
        .file
        .iter()
        .flat_map(|f| &f.service)
        .find(|s| s.name() == "Referee")
        .expect("bgref.v1.Referee");
    let answered: BTreeSet<&str> = OPERATIONS
        .iter()
        .map(|&(_, _, _, response)| response)
        .collect();
    for method in &referee.method {
        let output = method.output_type().trim_start_matches(".bgref.v1.");
        assert!(
            answered.contains(output),
            "Referee.{} ({output}) has no HTTP operation in OPERATIONS",
            method.name()
        );
    }

    let deliberate = deliberate();
    let unexpected: Vec<&String> = walk
        .mismatches
        .iter()
        .filter(|m| !deliberate.contains(m.as_str()))
        .collect();
    let gone: Vec<&String> = deliberate
        .iter()
        .filter(|d| !walk.mismatches.contains(*d))
        .collect();
    assert!(
        unexpected.is_empty() && gone.is_empty(),
        "HTTP and proto disagree:\n  {}\nlisted in contract/deliberate.rs but agreeing now:\n  {}",
        unexpected
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  "),
        gone.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

//! JSON <-> proto by the contract: an HTTP body or answer as its gRPC
//! message, and a gRPC message in the HTTP answer's JSON shape, driven by
//! the service's descriptor set and the rules `service/tests/contract.rs`
//! checks the two schemas against:
//!
//! - a JSON property is the proto field of the same name, or the member of
//!   a `oneof` of that name that takes the value (`play`: a string is
//!   `notation`, a list is `moves`); `null` is an absent field;
//! - an enum value is the proto value without the type's prefix, in lower
//!   case, `-` read as `_` (`long-nardy`: `VARIANT_LONG_NARDY`);
//! - a list where a message is due is that message's one repeated field
//!   (`MoveList`);
//! - the deliberate differences ([`contract`], shared with the contract
//!   test) apply: the renamed fields, the aliases, HTTP's echoes left out,
//!   and a response's position sent back (several encodings of one
//!   `oneof`, with `pips`) is the oneof's `position` member.
//!
//! Whatever else a JSON value holds (an unknown property, a value of the
//! wrong type, an enum value proto does not have) is an error naming its
//! path: the translation is the contract, not a best effort.

use std::collections::HashMap;
use std::sync::OnceLock;

use prost_reflect::{
    DescriptorPool, DynamicMessage, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor,
    OneofDescriptor, ReflectMessage as _, Value as Proto,
};
use serde_json::{Map, Value};

/// The deliberate differences between the HTTP and the gRPC contract
/// (`service/tests/contract/deliberate.rs`).
pub mod contract {
    include!("../../service/tests/contract/deliberate.rs");
}

/// The service's messages (`bgref.v1`).
pub fn pool() -> &'static DescriptorPool {
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    POOL.get_or_init(|| {
        DescriptorPool::decode(bgref_service::proto::FILE_DESCRIPTOR_SET)
            .expect("the service's descriptor set")
    })
}

/// The descriptor of `bgref.v1.<name>`.
///
/// # Panics
/// If there is no such message.
pub fn message(name: &str) -> MessageDescriptor {
    pool()
        .get_message_by_name(&format!("bgref.v1.{name}"))
        .unwrap_or_else(|| panic!("no message bgref.v1.{name}"))
}

/// The HTTP spelling of each enum value, keyed by its `_` reading
/// (`long_nardy` -> `long-nardy`): the values of the OpenAPI document.
fn spellings() -> &'static HashMap<String, String> {
    static SPELLINGS: OnceLock<HashMap<String, String>> = OnceLock::new();
    SPELLINGS.get_or_init(|| {
        fn walk(value: &Value, out: &mut HashMap<String, String>) {
            match value {
                Value::Object(object) => {
                    for (key, value) in object {
                        if key == "enum" {
                            for v in value.as_array().into_iter().flatten() {
                                if let Some(s) = v.as_str() {
                                    out.insert(s.replace('-', "_"), s.to_owned());
                                }
                            }
                        } else {
                            walk(value, out);
                        }
                    }
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
                _ => {}
            }
        }
        let doc = serde_json::to_value(bgref_service::http::openapi()).expect("document");
        let mut out = HashMap::new();
        walk(&doc, &mut out);
        out
    })
}

/// The number of the HTTP enum value `value` of the enum `name` (`Player`,
/// `x`): `None` if proto has no such value.
pub fn enum_number(name: &str, value: &str) -> Option<i32> {
    let e = pool().get_enum_by_name(&format!("bgref.v1.{name}"))?;
    enum_value(&e, value)
}

fn enum_value(e: &EnumDescriptor, value: &str) -> Option<i32> {
    let value = value.replace('-', "_");
    let value = contract::ALIASES
        .iter()
        .find(|&&(name, http, _, _)| name == e.name() && http == value)
        .map_or(value.as_str(), |&(_, _, proto, _)| proto);
    if value == "unspecified" {
        return None;
    }
    let full = format!("{}_{}", contract::screaming(e.name()), value.to_uppercase());
    e.get_value_by_name(&full).map(|v| v.number())
}

/// The HTTP name of an enum value (`PLAYER_X` -> `x`).
fn enum_name(e: &EnumDescriptor, number: i32) -> Value {
    let Some(v) = e.get_value(number) else {
        return Value::from(number);
    };
    let prefix = format!("{}_", contract::screaming(e.name()));
    let plain = v.name().trim_start_matches(&prefix).to_lowercase();
    if plain == "unspecified" {
        return Value::Null;
    }
    Value::String(spellings().get(&plain).cloned().unwrap_or(plain))
}

/// The proto name of the HTTP property `key` of `message`.
fn proto_name<'a>(message: &str, key: &'a str) -> &'a str {
    contract::RENAMED
        .iter()
        .find(|&&(m, http, _, _)| m == message && http == key)
        .map_or(key, |&(_, _, proto, _)| proto)
}

/// The HTTP name of the proto field `field` of `message`.
fn http_name<'a>(message: &str, field: &'a str) -> &'a str {
    contract::RENAMED
        .iter()
        .find(|&&(m, _, proto, _)| m == message && proto == field)
        .map_or(field, |&(_, http, _, _)| http)
}

/// Whether `message.field` is one of the contract's one-sided fields
/// (`side`: `HTTP only` or `proto only`).
fn one_sided(message: &str, field: &str, side: &str) -> bool {
    let wanted = format!("{message}.{field}: {side}");
    contract::ONE_SIDED.iter().any(|&(m, _)| m == wanted)
}

/// The one field of `desc` if it is a list (`MoveList.moves`): a JSON list
/// stands for such a message.
fn list_wrapper(desc: &MessageDescriptor) -> Option<FieldDescriptor> {
    let mut fields = desc.fields();
    match (fields.next(), fields.next()) {
        (Some(only), None) if only.is_list() => Some(only),
        _ => None,
    }
}

/// A real (not proto3 `optional`) oneof HTTP names as one property: its
/// members are told apart by their JSON type (`play`: a string or a list),
/// where PositionInput's encodings (several strings) keep their names.
fn one_property(oneof: &OneofDescriptor) -> bool {
    let shapes: Vec<&str> = oneof
        .fields()
        .map(|f| match f.kind() {
            Kind::Message(m) if list_wrapper(&m).is_some() => "list",
            Kind::Message(_) => "object",
            Kind::String => "string",
            Kind::Bool => "bool",
            _ => "number",
        })
        .collect();
    !oneof.is_synthetic()
        && shapes
            .iter()
            .enumerate()
            .all(|(i, s)| !shapes[..i].contains(s))
}

/// The proto message `name` (`ActRequest`) of an HTTP body or answer.
///
/// # Errors
/// What the contract does not translate, with its path.
pub fn from_http(name: &str, json: &Value) -> Result<DynamicMessage, String> {
    decode_message(&message(name), json, name)
}

/// The generated message `T` of `name` of an HTTP body or answer.
///
/// # Panics
/// If [`from_http`] fails, or its message does not decode as a `T`.
pub fn to_message<T: prost::Message + Default>(name: &str, json: &Value) -> T {
    from_http(name, json)
        .unwrap_or_else(|e| panic!("{e}"))
        .transcode_to()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn decode_message(
    desc: &MessageDescriptor,
    json: &Value,
    path: &str,
) -> Result<DynamicMessage, String> {
    let mut out = DynamicMessage::new(desc.clone());
    if json.is_array()
        && let Some(only) = list_wrapper(desc)
    {
        out.set_field(&only, decode_field(&only, json, path)?);
        return Ok(out);
    }
    let Value::Object(object) = json else {
        return Err(format!("{path}: {json} is not a {}", desc.name()));
    };
    let mut object = object.clone();
    gather_sent_back(desc, &mut object);
    for (key, value) in &object {
        let path = format!("{path}.{key}");
        let name = proto_name(desc.name(), key);
        if let Some(field) = desc.get_field_by_name(name) {
            if !value.is_null() {
                out.set_field(&field, decode_field(&field, value, &path)?);
            }
        } else if let Some(oneof) = desc.oneofs().find(|o| o.name() == name && one_property(o)) {
            if value.is_null() {
                continue;
            }
            let mut fits = oneof
                .fields()
                .filter_map(|f| decode_field(&f, value, &path).ok().map(|v| (f, v)));
            let (field, v) = fits
                .next()
                .ok_or_else(|| format!("{path}: {value} fits no member of {name}"))?;
            out.set_field(&field, v);
        } else if !one_sided(desc.name(), key, "HTTP only") {
            return Err(format!("{path}: {} has no field {key}", desc.name()));
        }
    }
    Ok(out)
}

/// A response's position sent back (`PositionInput` with several of its
/// encodings, or with `pips`): the fields go into the oneof's member that
/// has them all (`position`, "PositionInput.position: proto only").
fn gather_sent_back(desc: &MessageDescriptor, object: &mut Map<String, Value>) {
    for oneof in desc.oneofs().filter(|o| !o.is_synthetic()) {
        let named: Vec<String> = object
            .iter()
            .filter(|(k, v)| !v.is_null() && oneof.fields().any(|f| f.name() == k.as_str()))
            .map(|(k, _)| k.clone())
            .collect();
        let extra: Vec<String> = object
            .keys()
            .filter(|k| one_sided(desc.name(), k, "HTTP only"))
            .cloned()
            .collect();
        if named.len() < 2 && extra.is_empty() {
            continue;
        }
        let holder = oneof.fields().find(|f| {
            one_sided(desc.name(), f.name(), "proto only")
                && f.kind().as_message().is_some_and(|m| {
                    named
                        .iter()
                        .chain(&extra)
                        .all(|k| m.get_field_by_name(k).is_some())
                })
        });
        if let Some(holder) = holder {
            let inner: Map<String, Value> = named
                .iter()
                .chain(&extra)
                .filter_map(|k| object.remove(k).map(|v| (k.clone(), v)))
                .collect();
            object.insert(holder.name().to_owned(), Value::Object(inner));
        }
    }
}

fn decode_field(field: &FieldDescriptor, json: &Value, path: &str) -> Result<Proto, String> {
    if field.is_list() {
        let Value::Array(items) = json else {
            return Err(format!("{path}: {json} is not a list"));
        };
        return items
            .iter()
            .enumerate()
            .map(|(i, v)| decode_kind(&field.kind(), v, &format!("{path}[{i}]")))
            .collect::<Result<_, _>>()
            .map(Proto::List);
    }
    decode_kind(&field.kind(), json, path)
}

fn decode_kind(kind: &Kind, json: &Value, path: &str) -> Result<Proto, String> {
    let value = match kind {
        Kind::Message(m) => return decode_message(m, json, path).map(Proto::Message),
        Kind::Enum(e) => json
            .as_str()
            .and_then(|s| enum_value(e, s))
            .map(Proto::EnumNumber),
        Kind::Bool => json.as_bool().map(Proto::Bool),
        Kind::String => json.as_str().map(|s| Proto::String(s.to_owned())),
        Kind::Uint32 | Kind::Fixed32 => json
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .map(Proto::U32),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => json
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .map(Proto::I32),
        Kind::Uint64 | Kind::Fixed64 => json.as_u64().map(Proto::U64),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => json.as_i64().map(Proto::I64),
        Kind::Double => json.as_f64().map(Proto::F64),
        Kind::Float | Kind::Bytes => None,
    };
    value.ok_or_else(|| format!("{path}: {json} is not a {kind:?}"))
}

/// The query string of a GET as the JSON object of `name`'s fields: each
/// value read as its field's type (numbers, booleans), `+` and `%XX`
/// decoded.
pub fn query(name: &str, query: &str) -> Value {
    let desc = message(name);
    let decode = |s: &str| {
        let s = s.replace('+', " ");
        let mut out = Vec::new();
        let mut bytes = s.bytes();
        while let Some(b) = bytes.next() {
            if b == b'%' {
                let hex: String = bytes.by_ref().take(2).map(char::from).collect();
                out.push(u8::from_str_radix(&hex, 16).expect("a %XX escape"));
            } else {
                out.push(b);
            }
        }
        String::from_utf8(out).expect("UTF-8")
    };
    let mut object = Map::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (key, value) = (decode(key), decode(value));
        let typed = match desc.get_field_by_name(&key).map(|f| f.kind()) {
            Some(Kind::String | Kind::Enum(_)) | None => Value::String(value),
            Some(_) => serde_json::from_str(&value).unwrap_or(Value::String(value)),
        };
        object.insert(key, typed);
    }
    Value::Object(object)
}

/// A proto message in the HTTP answer's JSON shape: the fields it has (a
/// proto3 field without presence only when it is not its default), with
/// their HTTP names and enum values.
pub fn to_http(message: &DynamicMessage) -> Value {
    let desc = message.descriptor();
    let mut out = Map::new();
    for (field, value) in message.fields() {
        let oneof = field.containing_oneof();
        match (value, oneof) {
            // A response's position sent back: its fields in place.
            (Proto::Message(m), Some(_)) if one_sided(desc.name(), field.name(), "proto only") => {
                if let Value::Object(fields) = to_http(m) {
                    out.extend(fields);
                }
            }
            (Proto::Message(m), Some(o)) if one_property(&o) => {
                let inner = list_wrapper(&m.descriptor()).map_or_else(
                    || to_http(m),
                    |only| encode(&only.kind(), &m.get_field(&only)),
                );
                out.insert(o.name().to_owned(), inner);
            }
            (_, Some(o)) if one_property(&o) => {
                out.insert(o.name().to_owned(), encode(&field.kind(), value));
            }
            _ => {
                let key = http_name(desc.name(), field.name()).to_owned();
                out.insert(key, encode(&field.kind(), value));
            }
        }
    }
    Value::Object(out)
}

fn encode(kind: &Kind, value: &Proto) -> Value {
    match value {
        Proto::Bool(b) => Value::Bool(*b),
        Proto::I32(n) => Value::from(*n),
        Proto::I64(n) => Value::from(*n),
        Proto::U32(n) => Value::from(*n),
        Proto::U64(n) => Value::from(*n),
        Proto::F32(n) => Value::from(*n),
        Proto::F64(n) => Value::from(*n),
        Proto::String(s) => Value::String(s.clone()),
        Proto::Bytes(b) => Value::from(b.to_vec()),
        Proto::EnumNumber(n) => match kind {
            Kind::Enum(e) => enum_name(e, *n),
            _ => Value::from(*n),
        },
        Proto::Message(m) => to_http(m),
        Proto::List(items) => Value::Array(items.iter().map(|v| encode(kind, v)).collect()),
        Proto::Map(_) => unreachable!("bgref.v1 has no map fields"),
    }
}

/// `grpc` without the contract's proto-only fields that `http` (an HTTP
/// answer through [`from_http`]) has not: what the HTTP answer can show
/// of the gRPC one. Lists are matched item by item.
pub fn as_http_shows(grpc: &DynamicMessage, http: &DynamicMessage) -> DynamicMessage {
    let mut out = grpc.clone();
    let desc = grpc.descriptor();
    for field in desc.fields() {
        if !grpc.has_field(&field) {
            continue;
        }
        if one_sided(desc.name(), field.name(), "proto only") && !http.has_field(&field) {
            out.clear_field(&field);
            continue;
        }
        let shown = http.get_field(&field);
        let value = match (&*grpc.get_field(&field), &*shown) {
            (Proto::Message(g), h) => {
                let empty = DynamicMessage::new(g.descriptor());
                Proto::Message(as_http_shows(g, h.as_message().unwrap_or(&empty)))
            }
            (Proto::List(g), h) => {
                let h = h.as_list().unwrap_or_default();
                Proto::List(
                    g.iter()
                        .enumerate()
                        .map(|(i, item)| match item {
                            Proto::Message(m) => {
                                let empty = DynamicMessage::new(m.descriptor());
                                let shown = h.get(i).and_then(Proto::as_message).unwrap_or(&empty);
                                Proto::Message(as_http_shows(m, shown))
                            }
                            other => other.clone(),
                        })
                        .collect(),
                )
            }
            (other, _) => other.clone(),
        };
        out.set_field(&field, value);
    }
    out
}

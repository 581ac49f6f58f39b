//! The JSON shapes of the public contract (`docs/api.md`): serde and the
//! OpenAPI schemas, each request with its conversion into the api input
//! and each response rendered from an api view.

use serde::Deserializer;
use serde::de::Visitor;

/// Request structs read from JSON objects only.
///
/// serde's derived `Deserialize` for a struct also accepts a JSON array of
/// its fields in order (`"cube": []` as the default cube, `"bar": [0, 1]`,
/// a whole request as `["match-1", "", 1, 1]`), a form the OpenAPI
/// document does not allow. Each type named here derives with
/// `#[serde(remote = "Self")]` (serde then makes inherent `serialize` and
/// `deserialize` functions), and its trait impls call those, reading
/// through [`ObjectOnly`]: an array is then an "invalid type" error that
/// names the field.
macro_rules! objects_only {
    ($($ty:ty),* $(,)?) => {$(
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <$ty>::deserialize($crate::http::types::ObjectOnly(deserializer))
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                <$ty>::serialize(self, serializer)
            }
        }
    )*};
}

pub mod common;
pub mod cube;
pub mod dice;
pub mod games;
pub mod moves;
pub mod render;
pub mod rules;
pub mod schema;
pub mod tables;
pub mod variants;

/// A deserializer that reads a struct as a map only (see `objects_only!`);
/// the derived code of a struct asks for nothing else.
#[derive(Debug)]
pub struct ObjectOnly<D>(pub D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for ObjectOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::common::{Board, PositionInput};
    use super::cube::{Cube, ResolveCubeRequest};
    use super::dice::RollRequest;
    use super::moves::ApplyMoveRequest;

    #[test]
    fn structs_are_read_from_objects_not_arrays() {
        let err = serde_json::from_value::<RollRequest>(json!(["m", "", 1, 1])).unwrap_err();
        assert!(err.to_string().contains("invalid type: sequence"), "{err}");
        assert!(serde_json::from_value::<Cube>(json!([])).is_err());
        assert!(
            serde_json::from_value::<ResolveCubeRequest>(json!({"cube": [], "action": "double"}))
                .is_err()
        );
        let mut points = vec![0; 24];
        points[0] = 1;
        assert!(
            serde_json::from_value::<Board>(json!({"points": points, "bar": [0, 0], "turn": "x"}))
                .is_err()
        );
        assert!(
            serde_json::from_value::<ApplyMoveRequest>(json!({
                "position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [3, 1],
                "play": [[8, 5], [6, 5]]}))
            .is_err()
        );

        // Objects still read, and write back the same.
        let cube: Cube = serde_json::from_value(json!({"value": 2, "owner": "o"})).unwrap();
        assert_eq!(cube.value, 2);
        let request = json!({"position": {"position_id": "4HPwATDgc/ABMA"}, "dice": [3, 1],
            "play": [{"from": 8, "to": 5}, {"from": 6, "to": 5}], "partial": false});
        let parsed: ApplyMoveRequest = serde_json::from_value(request.clone()).unwrap();
        assert_eq!(serde_json::to_value(&parsed).unwrap(), request);
        let position: PositionInput =
            serde_json::from_value(json!({"position_id": "4HPwATDgc/ABMA", "turn": "o"})).unwrap();
        assert_eq!(
            serde_json::to_value(&position).unwrap(),
            json!({"position_id": "4HPwATDgc/ABMA", "turn": "o"})
        );
    }
}

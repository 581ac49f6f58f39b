//! Schemas the derive cannot state: arrays of an exact length with bounded
//! items, and numbers bounded the way the validator bounds them. Each is
//! used with `#[schema(schema_with = ...)]`; the server refuses (400) what
//! these schemas refuse, so a client that type-checks against the document
//! only sends what the validator reads.

use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};
use utoipa::openapi::{Array, RefOr};

fn integer(min: i64, max: i64, description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(min))
        .maximum(Some(max))
        .description(Some(description))
}

fn pair(item: ObjectBuilder, description: &str) -> ArrayBuilder {
    ArrayBuilder::new()
        .items(item)
        .min_items(Some(2))
        .max_items(Some(2))
        .description(Some(description))
}

/// A roll: exactly two integers 1 to 6.
pub fn dice() -> Array {
    pair(integer(1, 6, "A die."), "The two dice, each 1 to 6.")
        .examples([serde_json::json!([6, 5])])
        .build()
}

/// A roll in a request, where it may be left out (or null) when the XGID
/// carries one.
pub fn dice_or_null() -> Array {
    pair(
        integer(1, 6, "A die."),
        "The two dice, each 1 to 6; may be left out when the XGID carries the roll.",
    )
    .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
    .examples([serde_json::json!([6, 5])])
    .build()
}

/// The dice still to play after a partial turn: 0 to 4 dice, largest first.
pub fn remaining_dice() -> Array {
    ArrayBuilder::new()
        .items(integer(1, 6, "A die."))
        .max_items(Some(4))
        .description(Some("Dice still to play, largest first."))
        .build()
}

/// The 24 signed point counts of the board encoding.
pub fn points() -> Array {
    ArrayBuilder::new()
        .items(integer(
            -15,
            15,
            "Checkers on the point: positive x's, negative o's.",
        ))
        .min_items(Some(24))
        .max_items(Some(24))
        .description(Some("24 signed counts, point 1 to 24 from x's side."))
        .build()
}

/// A board point a move starts or ends on, from the mover's view.
pub fn point() -> ObjectBuilder {
    integer(
        0,
        25,
        "A point from the mover's view: 1 to 24, 25 the bar, 0 off.",
    )
}

/// Hit points of an applied play.
pub fn hits() -> Array {
    ArrayBuilder::new()
        .items(integer(1, 24, "A point from the mover's view."))
        .max_items(Some(4))
        .description(Some(
            "Points (mover's view) where an opposing blot was hit.",
        ))
        .build()
}

/// Checkers per player on the bar or borne off: 0 to 15 each.
pub fn checker_counts(description: &str) -> RefOr<Schema> {
    let count = |who: &str| integer(0, 15, &format!("{who}'s checkers."));
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("x", count("x"))
        .property("o", count("o"))
        .required("x")
        .required("o")
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .description(Some(description))
        .into()
}

/// `schema` or `null` (an optional request field that serde also reads
/// from `null`).
pub fn or_null(schema: RefOr<Schema>) -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(schema)
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .into()
}

/// Pip counts, or `null`, in a request.
pub fn pips_or_null() -> RefOr<Schema> {
    or_null(pips())
}

/// Pip counts per player (at most 15 checkers × 25 pips).
pub fn pips() -> RefOr<Schema> {
    let count = |who: &str| integer(0, 375, &format!("{who}'s pip count."));
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("x", count("x"))
        .property("o", count("o"))
        .required("x")
        .required("o")
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .description(Some(
            "Pip counts: the pips each player needs to bear off every checker \
             (a checker on its n-point counts n, on the bar 25).",
        ))
        .into()
}

/// A play: gnubg-style notation, or at most four moves.
pub fn play() -> RefOr<Schema> {
    let mv = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("from", point().description(Some("Start point (25 = bar).")))
        .property("to", point().description(Some("End point (0 = off).")))
        .required("from")
        .required("to")
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .description(Some(
            "A move as a caller gives it: `from`/`to` may span several dice (24/13).",
        ));
    OneOfBuilder::new()
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some(
                    "`\"24/18 13/11\"`: any order, `*` optional, `(2)` folds, `24/18/13` \
                     chains, `bar`, `off`.",
                )),
        )
        .item(
            ArrayBuilder::new()
                .items(mv)
                .max_items(Some(4))
                .description(Some(
                    "`[{\"from\": 24, \"to\": 18}, ...]`: at most four moves.",
                )),
        )
        .description(Some("A play: gnubg-style notation or a list of moves."))
        .into()
}

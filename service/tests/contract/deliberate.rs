// The differences the HTTP/JSON and gRPC contracts keep on purpose, each
// with its reason (docs/api.md "Operations"). Shared, by `include!`, by
// the contract test (`service/tests/contract.rs`: the schemas differ in
// exactly these) and the e2e crate's JSON <-> proto translator
// (`tests/src/wire.rs`: it applies them).

/// Fields each protocol names its own way: message, HTTP name, proto
/// name, and why.
pub const RENAMED: &[(&str, &str, &str, &str)] = &[
    // Keywords: `from` is reserved in Python and many proto targets.
    ("Move", "from", "from_point", "keyword: `from`"),
    ("Move", "to", "to_point", "paired with from"),
    // cube.proto: `match_id` names the dice match in dice.proto; a gnubg
    // Match ID is gnubg_match_id there, and each JSON request has its own.
    (
        "ScoreGameRequest",
        "match_id",
        "gnubg_match_id",
        "cube.proto's naming note",
    ),
    (
        "ScoreGameResponse",
        "match_id",
        "gnubg_match_id",
        "cube.proto's naming note",
    ),
    (
        "ScoreGameResponse",
        "game_match_id",
        "gnubg_game_match_id",
        "cube.proto's naming note",
    ),
    (
        "GameScore",
        "match_id",
        "gnubg_match_id",
        "cube.proto's naming note",
    ),
    (
        "GameScore",
        "game_match_id",
        "gnubg_game_match_id",
        "cube.proto's naming note",
    ),
    (
        "ResolveCubeRequest",
        "match_id",
        "gnubg_match_id",
        "cube.proto's naming note",
    ),
    (
        "ResolveCubeResponse",
        "match_id",
        "gnubg_match_id",
        "cube.proto's naming note",
    ),
    // The tables games' outcome: one HTTP name, `outcome`, beside result;
    // proto's is a field of the backgammon scores' message.
    (
        "ScoreGameResponse",
        "outcome",
        "tables_outcome",
        "a field of the backgammon scores' message",
    ),
    (
        "GameOver",
        "outcome",
        "tables_outcome",
        "a field of the backgammon scores' message",
    ),
];

/// Fields one protocol has and the other has not (`Message.field: HTTP
/// only` or `proto only`), and why.
pub const ONE_SIDED: &[(&str, &str)] = &[
    // HTTP answers echo the variant; gRPC callers have it in the request.
    (
        "LegalMovesResponse.variant: HTTP only",
        "an echo of the request",
    ),
    (
        "ApplyMoveResponse.variant: HTTP only",
        "an echo of the request",
    ),
    (
        "ScoreGameResponse.variant: HTTP only",
        "an echo of the request",
    ),
    // A position sent back: HTTP takes the response's fields beside the
    // encodings; proto takes the whole Position as one oneof member.
    (
        "PositionInput.position: proto only",
        "HTTP sends the response's position's fields in place",
    ),
    (
        "PositionInput.pips: HTTP only",
        "checked when a response's position is sent back (proto: in position)",
    ),
    (
        "PositionInput.gnubg_match_id: HTTP only",
        "accepted when a view's position is sent back (proto: in position)",
    ),
    // Plays in responses: HTTP leaves out the encodings not asked for
    // (`fields`) and names the play's position in its own schemas.
    (
        "Play.position: proto only",
        "HTTP's ApplyMoveResponse.play has no position: the answer's position is it",
    ),
    ("VariantInfo.variant: proto only", "HTTP has the name only"),
];

/// Names proto gives as strings and HTTP as enums, and why.
pub const STRING_ENUMS: &[(&str, &str)] = &[
    ("VariantInfo.name", "proto has the enum as VariantInfo.variant"),
    ("DiceKey.algorithm", "one value, ed25519"),
];

/// HTTP enum values proto spells otherwise: enum, HTTP value, proto value
/// (without the type's prefix, lower case), and why.
pub const ALIASES: &[(&str, &str, &str, &str)] = &[(
    "Variant",
    "hypergammon",
    "hypergammon_3",
    "an alias of hypergammon-3",
)];

/// The prefix of a proto enum's values, which the HTTP values leave out
/// (lower-cased): `GameEventKind` -> `GAME_EVENT_KIND`.
pub fn screaming(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

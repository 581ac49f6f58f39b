//! The `serde` feature: every vocabulary type round-trips through JSON in
//! the spelling the service uses on the wire, and bad values are refused.
//!
//! Run with `cargo test -p bgref-core --features serde`.
#![cfg(feature = "serde")]

use bgref_core::{
    BackgammonVariant, ByPlayer, CubeAction, CubeOwner, CubeRules, CubeState, CubeValue, Dice, Die,
    GameKind, GameResult, MatchState, Player, Point,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// `value` serializes to `json` and reads back as itself.
#[track_caller]
fn round_trip<T>(value: T, json: &str)
where
    T: Serialize + DeserializeOwned + PartialEq + core::fmt::Debug,
{
    assert_eq!(serde_json::to_string(&value).unwrap(), json);
    assert_eq!(serde_json::from_str::<T>(json).unwrap(), value);
}

/// `json` is not a `T`.
#[track_caller]
fn refused<T: DeserializeOwned + core::fmt::Debug>(json: &str) {
    let result = serde_json::from_str::<T>(json);
    assert!(result.is_err(), "{json} read as {result:?}");
}

#[test]
fn player() {
    round_trip(Player::X, r#""x""#);
    round_trip(Player::O, r#""o""#);
    refused::<Player>(r#""X""#);
    refused::<Player>(r#""white""#);
    refused::<Player>("0");
}

#[test]
fn variant() {
    for (variant, name) in [
        (BackgammonVariant::Standard, "standard"),
        (BackgammonVariant::Nackgammon, "nackgammon"),
        (BackgammonVariant::Hypergammon3, "hypergammon"),
        (BackgammonVariant::Hypergammon1, "hypergammon-1"),
        (BackgammonVariant::Hypergammon2, "hypergammon-2"),
    ] {
        assert_eq!(variant.to_string(), name);
        round_trip(variant, &format!("\"{name}\""));
    }
    // The other spellings FromStr reads.
    for (alias, variant) in [
        ("hypergammon-3", BackgammonVariant::Hypergammon3),
        ("hypergammon3", BackgammonVariant::Hypergammon3),
        ("hypergammon1", BackgammonVariant::Hypergammon1),
        ("hypergammon2", BackgammonVariant::Hypergammon2),
    ] {
        assert_eq!(alias.parse::<BackgammonVariant>(), Ok(variant));
        assert_eq!(
            serde_json::from_str::<BackgammonVariant>(&format!("\"{alias}\"")).unwrap(),
            variant
        );
    }
    refused::<BackgammonVariant>(r#""Standard""#);
    refused::<BackgammonVariant>(r#""acey-deucey""#);
}

#[test]
fn game_result_owner_kind_action() {
    round_trip(GameResult::Single, r#""single""#);
    round_trip(GameResult::Gammon, r#""gammon""#);
    round_trip(GameResult::Backgammon, r#""backgammon""#);
    refused::<GameResult>(r#""Gammon""#);

    round_trip(CubeOwner::Centre, r#""centre""#);
    round_trip(CubeOwner::Player(Player::X), r#""x""#);
    round_trip(CubeOwner::Player(Player::O), r#""o""#);
    assert_eq!(
        serde_json::from_str::<CubeOwner>(r#""center""#).unwrap(),
        CubeOwner::Centre
    );
    refused::<CubeOwner>(r#""middle""#);

    round_trip(GameKind::Normal, r#""normal""#);
    round_trip(GameKind::Crawford, r#""crawford""#);
    round_trip(GameKind::PostCrawford, r#""post_crawford""#);
    refused::<GameKind>(r#""post-crawford""#);

    for (action, json) in [
        (CubeAction::Double, r#""double""#),
        (CubeAction::Take, r#""take""#),
        (CubeAction::Pass, r#""pass""#),
        (CubeAction::Beaver, r#""beaver""#),
        (CubeAction::Raccoon, r#""raccoon""#),
        (CubeAction::Accept, r#""accept""#),
        (CubeAction::Reject, r#""reject""#),
        (
            CubeAction::Resign(GameResult::Gammon),
            r#"{"resign":"gammon"}"#,
        ),
    ] {
        round_trip(action, json);
    }
    refused::<CubeAction>(r#""Double""#);
    refused::<CubeAction>(r#"{"resign":"double"}"#);
}

#[test]
fn numbers_are_range_checked() {
    for n in 1..=6u8 {
        round_trip(Die::new(n), &n.to_string());
    }
    refused::<Die>("0");
    refused::<Die>("7");
    refused::<Die>("-1");
    refused::<Die>(r#""3""#);

    round_trip(Dice::new(Die::new(6), Die::new(5)), "[6,5]");
    round_trip(Dice::new(Die::new(1), Die::new(3)), "[1,3]");
    refused::<Dice>("[6]");
    refused::<Dice>("[6,5,4]");
    refused::<Dice>("[0,5]");
    refused::<Dice>("[6,7]");
    refused::<Dice>("65");

    for n in 0..=25u8 {
        round_trip(Point::new(n), &n.to_string());
    }
    refused::<Point>("26");
    refused::<Point>("-1");
    refused::<Point>(r#""bar""#);

    for log2 in 0..=15u8 {
        let value = CubeValue::from_log2(log2).unwrap();
        round_trip(value, &value.get().to_string());
    }
    for bad in ["0", "3", "96", "65536", "-2", "1.5"] {
        refused::<CubeValue>(bad);
    }
}

#[test]
fn compound_types() {
    round_trip(
        MatchState {
            length: 5,
            score: ByPlayer { x: 4, o: 2 },
            crawford: true,
        },
        r#"{"length":5,"score":{"x":4,"o":2},"crawford":true}"#,
    );
    round_trip(
        CubeRules::DEFAULT,
        r#"{"jacoby":false,"beavers":0,"automatic_doubles":0,"max_cube":64}"#,
    );
    round_trip(
        CubeState {
            value: CubeValue::new(4),
            owner: CubeOwner::Player(Player::O),
            ..CubeState::START
        },
        r#"{"value":4,"owner":"o","offered_by":null,"beavers":0,"resignation":null}"#,
    );
    refused::<CubeState>(r#"{"value": 5}"#);
    refused::<CubeRules>(r#"{"max_cube": 100}"#);
}

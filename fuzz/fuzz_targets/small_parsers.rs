//! The small `FromStr` parsers of core's vocabulary (dice, point, player,
//! variant, cube owner, cube action, game result): none panics, and what
//! each accepts is written by `Display` as text it reads back the same.
#![no_main]

use std::fmt::Display;
use std::str::FromStr;

use bgref_core::{BackgammonVariant, CubeAction, CubeOwner, Dice, GameResult, Player, Point};
use libfuzzer_sys::fuzz_target;

fn round_trip<T>(s: &str)
where
    T: FromStr + Display + PartialEq + std::fmt::Debug,
    T::Err: Display,
{
    match s.parse::<T>() {
        Ok(value) => {
            let text = value.to_string();
            match text.parse::<T>() {
                Ok(again) => assert_eq!(again, value, "{s:?} -> {text:?}"),
                Err(e) => panic!("{s:?} -> {text:?} does not parse: {e}"),
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    round_trip::<Dice>(s);
    round_trip::<Point>(s);
    round_trip::<Player>(s);
    round_trip::<BackgammonVariant>(s);
    round_trip::<CubeOwner>(s);
    round_trip::<CubeAction>(s);
    round_trip::<GameResult>(s);
});

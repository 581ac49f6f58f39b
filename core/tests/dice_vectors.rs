//! Checks every vector of `data/dice-vectors.json` (computed from the public
//! contract by an independent implementation, see `data/README.md`) against
//! `bgref_core::verify`.

use bgref_core::verify::{
    self, ByteStream, ClaimedRoll, DieStream, Roller, commitment, die_from_byte, opening_roll,
    parse_hex32, roll, server_seed, to_hex,
};
use bgref_core::{Dice, Die, Player};
use serde_json::Value;

const VECTORS: &str = include_str!("data/dice-vectors.json");

fn vectors() -> Value {
    serde_json::from_str(VECTORS).expect("dice-vectors.json is valid JSON")
}

fn hex_bytes(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd-length hex {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is a string in {v}"))
}

fn u32_field(v: &Value, key: &str) -> u32 {
    v[key]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or_else(|| panic!("{key} is a u32 in {v}"))
}

fn die(v: &Value) -> Die {
    let n = v.as_u64().expect("a die is a number");
    Die::try_from(u8::try_from(n).expect("small")).expect("a die is 1 to 6")
}

fn dice_field(v: &Value, key: &str) -> Dice {
    let pair = v[key].as_array().expect("dice are an array");
    assert_eq!(pair.len(), 2, "two dice in {v}");
    Dice::new(die(&pair[0]), die(&pair[1]))
}

fn master_secret(all: &Value) -> Vec<u8> {
    hex_bytes(str_field(all, "master_secret_hex"))
}

fn matches(all: &Value) -> &[Value] {
    let list = all["matches"].as_array().expect("matches is an array");
    assert!(!list.is_empty());
    list
}

#[test]
fn seeds_and_commitments() {
    let all = vectors();
    let secret = master_secret(&all);
    assert_eq!(secret.len(), 32);
    for m in matches(&all) {
        let match_id = str_field(m, "match_id");
        let seed = server_seed(&secret, match_id);
        assert_eq!(
            to_hex(&seed),
            str_field(m, "server_seed_hex"),
            "seed of {match_id}"
        );
        let c = commitment(&seed);
        assert_eq!(
            to_hex(&c),
            str_field(m, "commitment"),
            "commitment of {match_id}"
        );
        assert_eq!(parse_hex32(str_field(m, "commitment")), Ok(c));
        assert_eq!(parse_hex32(str_field(m, "server_seed_hex")), Ok(seed));
    }
}

#[test]
fn rolls() {
    let all = vectors();
    let secret = master_secret(&all);
    let mut checked = 0;
    for m in matches(&all) {
        let seed = server_seed(&secret, str_field(m, "match_id"));
        let client_seed = str_field(m, "client_seed");
        let roller = Roller::new(&seed);
        for r in m["rolls"].as_array().expect("rolls is an array") {
            let (game, turn) = (u32_field(r, "game"), u32_field(r, "turn"));
            let expected = dice_field(r, "dice");
            assert_eq!(
                roll(&seed, client_seed, game, turn),
                expected,
                "{} game {game} turn {turn}",
                str_field(m, "match_id")
            );
            assert_eq!(roller.roll(client_seed, game, turn), expected);
            checked += 1;
        }
    }
    assert_eq!(checked, 24);
}

#[test]
fn openings() {
    let all = vectors();
    let secret = master_secret(&all);
    let mut checked = 0;
    for m in matches(&all) {
        let seed = server_seed(&secret, str_field(m, "match_id"));
        let client_seed = str_field(m, "client_seed");
        for o in m["opening"].as_array().expect("opening is an array") {
            let game = u32_field(o, "game");
            let got = opening_roll(&seed, client_seed, game);
            let x_die = die(&o["x_die"]);
            let o_die = die(&o["o_die"]);
            let starts: Player = str_field(o, "starts").parse().expect("x or o");
            let what = format!("{} opening of game {game}", str_field(m, "match_id"));
            assert_eq!(got.x_die, x_die, "{what}");
            assert_eq!(got.o_die, o_die, "{what}");
            assert_eq!(got.starts, starts, "{what}");
            assert_eq!(got.ties, u32_field(o, "ties"), "{what}");
            assert_eq!(got.dice, Dice::new(x_die, o_die), "{what}");
            checked += 1;
        }
    }
    assert_eq!(checked, 15);
}

#[test]
fn rejection_example_skips_a_high_byte() {
    let all = vectors();
    let secret = master_secret(&all);
    let ex = &all["rejection_example"];
    let seed = server_seed(&secret, str_field(ex, "match_id"));
    let client_seed = str_field(ex, "client_seed");
    let (game, turn) = (u32_field(ex, "game"), u32_field(ex, "turn"));

    let stream = ByteStream::new(&seed, client_seed, game, turn);
    let block = stream.block(0);
    assert_eq!(to_hex(&block), str_field(ex, "first_block_hex"));
    let streamed: Vec<u8> = stream.take(32).collect();
    assert_eq!(streamed, block);

    // The point of the example: a byte >= 252 comes before the second die,
    // so reading bytes without skipping would give other dice.
    let first_two_accepted: Vec<usize> = block
        .iter()
        .enumerate()
        .filter(|(_, b)| **b < verify::REJECT_FROM)
        .map(|(i, _)| i)
        .take(2)
        .collect();
    assert!(
        block[..=first_two_accepted[1]]
            .iter()
            .any(|&b| b >= verify::REJECT_FROM),
        "the example's first two dice must straddle a rejected byte"
    );
    let naive = Dice::new(Die::new(block[0] % 6 + 1), Die::new(block[1] % 6 + 1));

    let expected = dice_field(ex, "dice");
    assert_ne!(naive, expected);
    assert_eq!(roll(&seed, client_seed, game, turn), expected);
    let dice: Vec<Die> = DieStream::new(&seed, client_seed, game, turn)
        .take(2)
        .collect();
    assert_eq!(
        dice,
        first_two_accepted
            .iter()
            .map(|&i| die_from_byte(block[i]).expect("accepted"))
            .collect::<Vec<_>>()
    );
    assert_eq!(Dice::new(dice[0], dice[1]), expected);
}

#[test]
fn verify_rolls_accepts_every_vector_and_rejects_a_changed_one() {
    let all = vectors();
    let secret = master_secret(&all);
    for m in matches(&all) {
        let seed = parse_hex32(str_field(m, "server_seed_hex")).expect("seed hex");
        let published = parse_hex32(str_field(m, "commitment")).expect("commitment hex");
        let client_seed = str_field(m, "client_seed");
        let mut claims: Vec<ClaimedRoll<'_>> = m["rolls"]
            .as_array()
            .expect("rolls")
            .iter()
            .map(|r| ClaimedRoll {
                client_seed,
                game: u32_field(r, "game"),
                turn: u32_field(r, "turn"),
                dice: dice_field(r, "dice"),
            })
            .collect();
        // Openings are claimed as turn 0.
        for o in m["opening"].as_array().expect("opening") {
            claims.push(ClaimedRoll {
                client_seed,
                game: u32_field(o, "game"),
                turn: 0,
                dice: Dice::new(die(&o["x_die"]), die(&o["o_die"])),
            });
        }
        let verdict = verify::verify_rolls(&seed, &published, &claims);
        assert!(verdict.is_valid(), "{verdict:?}");
        assert_eq!(verdict.rolls.len(), claims.len());

        // Change one die of one roll: exactly that roll fails.
        let mut tampered = claims.clone();
        let d = tampered[3].dice;
        let other = Die::new(d.second().get() % 6 + 1);
        tampered[3].dice = Dice::new(d.first(), other);
        let verdict = verify::verify_rolls(&seed, &published, &tampered);
        assert!(verdict.commitment_matches);
        assert_eq!(verdict.mismatches().collect::<Vec<_>>(), [3]);
        assert_eq!(verdict.rolls[3].expected, claims[3].dice);

        // Another match's seed does not open this commitment.
        let wrong = server_seed(&secret, "not-this-match");
        assert!(!verify::verify_rolls(&wrong, &published, &claims).commitment_matches);
    }
}

#[test]
fn signing_bytes_of_a_vector_roll() {
    let all = vectors();
    let m = &matches(&all)[0];
    let c = parse_hex32(str_field(m, "commitment")).expect("hex");
    let r = &m["rolls"][0];
    let bytes = verify::roll_signing_bytes(
        str_field(m, "match_id"),
        str_field(m, "client_seed"),
        u32_field(r, "game"),
        u32_field(r, "turn"),
        dice_field(r, "dice"),
        &c,
    );
    let d = dice_field(r, "dice").values();
    let expected = format!(
        "bgref-roll-v1\n{}\n{}\n{}\n{}\n{}\n{}\n{}",
        str_field(m, "match_id"),
        str_field(m, "client_seed"),
        u32_field(r, "game"),
        u32_field(r, "turn"),
        d[0],
        d[1],
        str_field(m, "commitment")
    );
    assert_eq!(String::from_utf8(bytes).expect("utf-8"), expected);
}

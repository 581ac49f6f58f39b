//! Writes the seed corpus, `fuzz/corpus/<target>/seed-*`, from real IDs
//! and plays: the gnubg-checked positions of `core/tests/data/
//! legal_moves.jsonl.gz`, the Match IDs of `selfplay_results.jsonl` and the
//! core docs, the XGIDs of the core docs and the README.
//!
//! `cargo run --manifest-path fuzz/Cargo.toml --example seeds` (the files
//! are committed; run it again only to change them).

use std::fs;
use std::path::{Path, PathBuf};

use bgref_core::notation::move_text::MoveText;
use bgref_core::notation::position_id::PositionId;
use bgref_core::tables::{Game, TablesGameState, TablesMatch, TablesRules, TablesSeries};
use bgref_core::verify::Roller;
use bgref_core::{
    Action, BackgammonGame, BackgammonVariant, CubeRules, Dice, Die, GameState, MatchState, Phase,
    Player, Position,
};
use bgref_fuzz::{Bytes, dice_from_byte, dice_to_byte, position_from_bytes, position_to_bytes};

/// `(name, variant, Position ID with x on roll, roll, a legal play)`, from
/// `core/tests/data/legal_moves.jsonl.gz`.
const POSITIONS: &[(&str, BackgammonVariant, &str, [u8; 2], &str)] = &[
    (
        "start-65",
        BackgammonVariant::Standard,
        "4HPwATDgc/ABMA",
        [6, 5],
        "24/13",
    ),
    (
        "dance",
        BackgammonVariant::Standard,
        "27YBBwDg/wcAQA",
        [6, 5],
        "",
    ),
    (
        "forced-larger",
        BackgammonVariant::Standard,
        "4P8DABgAEAAAAA",
        [6, 5],
        "13/7",
    ),
    (
        "bearoff-high-die",
        BackgammonVariant::Standard,
        "4P8PAAAKAAAAAA",
        [6, 1],
        "3/off 2/1",
    ),
    (
        "hit",
        BackgammonVariant::Standard,
        "zB3iAwSMt4MBMA",
        [4, 5],
        "13/4*",
    ),
    (
        "enter",
        BackgammonVariant::Standard,
        "LG8HATDMHeIDQA",
        [5, 3],
        "bar/20 13/10",
    ),
    (
        "race-22",
        BackgammonVariant::Standard,
        "XwMAAHpWAdgIAA",
        [2, 2],
        "17/11 7/5",
    ),
    (
        "bears-off-22",
        BackgammonVariant::Standard,
        "/5cBAIBv4wsAAA",
        [2, 2],
        "7/5 6/4 2/off(2)",
    ),
    (
        "nack-66",
        BackgammonVariant::Nackgammon,
        "4Dl4ADbgOXgANg",
        [6, 6],
        "24/18(2) 13/7(2)",
    ),
    (
        "nack-enter-hit",
        BackgammonVariant::Nackgammon,
        "JXdgsAIEB08wYw",
        [1, 6],
        "bar/24*",
    ),
    (
        "hyper3-66",
        BackgammonVariant::Hypergammon3,
        "AACgAgAAKgAAAA",
        [6, 6],
        "24/12 23/17 22/16",
    ),
    (
        "hyper1-55",
        BackgammonVariant::Hypergammon1,
        "AACAAAAAAgAAAA",
        [5, 5],
        "24/4",
    ),
];

const MATCH_IDS: &[&str] = &[
    // The gnubg manual's example (core/src/notation/match_id.rs).
    "QYkqASAAIAAA",
    "QYkqASAAIAAI",
    "cIkLAAAAAAAA",
    "8AkAAAAAAAAA",
    // Final Match IDs of gnubg self-play games (selfplay_results.jsonl).
    "UQoAACAAAAAE",
    "ASsAACAAEAAE",
    "AQIAAAACiAIE",
    "AgwAAIAAMAAE",
];

const XGIDS: &[&str] = &[
    // The start (core/src/notation/xgid.rs) and the README's example.
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
    "XGID=-AB---------------bbbc----:0:0:1:61:0:0:0:0:10",
    "XGID=-B----------------bbbc----:0:0:-1:00:0:0:0:0:10",
    // Bar, cube owned by o, o on turn, rolled 52, match to 7 (xgid.rs).
    "XGID=-a----M------------------B:1:-1:-1:52:3:4:1:7:10",
    "XGID=-b----E-C---eE---c-e----B-:1:1:-1:D:2:5:0:9",
    "-b----E-C---eE---c-e----B-:0:0:1:33:0:0:3:0:10",
];

const SMALL: &[&str] = &[
    "65",
    "6-5",
    "3,1",
    "bar",
    "off",
    "13",
    "x",
    "o",
    "standard",
    "hypergammon-2",
    "centre",
    "double",
    "resign gammon",
    "resign-backgammon",
    "drop",
    "single",
];

const MOVE_TEXTS: &[&str] = &["24/18*/13", "8/5(2) 6/3(2)", "bar/22, 6/off", "25/20 0"];

fn write(dir: &Path, target: &str, name: &str, bytes: &[u8]) {
    let dir = dir.join(target);
    fs::create_dir_all(&dir).expect("corpus directory");
    fs::write(dir.join(format!("seed-{name}")), bytes).expect("seed file");
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for &(name, variant, id, [a, b], play) in POSITIONS {
        let parsed: PositionId = id.parse().expect("a real Position ID");
        let position =
            Position::from_setup(&parsed.to_setup(Player::X), variant).expect("a real position");
        let dice = Dice::new(Die::new(a), Die::new(b));
        let mut movegen = vec![dice_to_byte(dice)];
        movegen.extend(position_to_bytes(&position));
        // The seeds mean what they say to the targets.
        let mut bytes = Bytes::new(&movegen);
        assert_eq!(dice_from_byte(bytes.byte_or(0)), dice);
        assert_eq!(position_from_bytes(&mut bytes), Some(position), "{name}");
        let text: MoveText = play.parse().expect("a real play");
        let resolved = text.to_play(&position, dice);
        assert!(resolved.is_ok(), "{name}: {play} gives {resolved:?}");
        write(&dir, "movegen", name, &movegen);
        let mut move_text = format!("{play}\n").into_bytes();
        move_text.extend(&movegen);
        write(&dir, "move_text", name, &move_text);
        write(&dir, "position_id", name, id.as_bytes());
        let fibs = bgref_core::notation::fibs::FibsBoard::from_position(&position).to_string();
        write(&dir, "fibs", name, fibs.as_bytes());
        let mut setup = vec![0u8; 53];
        setup[0] = BackgammonVariant::ALL
            .iter()
            .position(|&v| v == variant)
            .unwrap_or(0) as u8
            | 0x40;
        let side_x = position.side(Player::X);
        let side_o = position.side(Player::O);
        setup[1..25].copy_from_slice(&side_x[1..25]);
        setup[25] = side_x[25];
        setup[26..50].copy_from_slice(&side_o[1..25]);
        setup[50] = side_o[25];
        setup[51] = side_x[0];
        setup[52] = side_o[0];
        write(&dir, "setup", name, &setup);
    }
    for (i, text) in MOVE_TEXTS.iter().enumerate() {
        write(&dir, "move_text", &format!("text-{i}"), text.as_bytes());
    }
    write(&dir, "position_id", "padded", b" 4HPwATDgc/ABMA==\n");
    // The rawboard help's example: the player moving 24 to 1, on roll with
    // 6-2 in a 3-point match.
    write(&dir, "fibs", "rawboard-help", b"board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0");
    for id in MATCH_IDS {
        write(&dir, "match_id", &id.replace('/', "_"), id.as_bytes());
    }
    for (i, xgid) in XGIDS.iter().enumerate() {
        write(&dir, "xgid", &i.to_string(), xgid.as_bytes());
    }
    for text in SMALL {
        write(
            &dir,
            "small_parsers",
            &text.replace([' ', '/', ','], "_"),
            text.as_bytes(),
        );
    }
    // Verify: 64 hex digits; a master secret, game 1, turn 1 (and turn 0),
    // then the client seed (as in the bgref_core::verify docs).
    let hex = bgref_core::verify::to_hex(&[0xab; 32]);
    write(&dir, "verify", "hex", hex.to_uppercase().as_bytes());
    for (name, turn) in [("roll", 1u8), ("opening", 0)] {
        let mut bytes = b"a master secret of at least 32 b".to_vec();
        bytes.extend([1, 0, 0, 0, turn, 0, 0, 0]);
        bytes.extend(b"alice:bob");
        write(&dir, "verify", name, &bytes);
    }
    // Cube: flags, log2 value, owner, beavers, length, score x, score o,
    // rules, max cube, then (player, action) steps.
    let cubes: &[(&str, &[u8])] = &[
        (
            "money-double-take",
            &[0, 0, 0, 0, 0, 0, 0, 0x03, 6, 0, 0, 1, 1, 1, 0, 0, 2],
        ),
        (
            "money-beaver-raccoon",
            &[0, 0, 0, 0, 0, 0, 0, 0x05, 6, 0, 0, 1, 3, 0, 4, 1, 1],
        ),
        (
            "match-crawford",
            &[0x40, 0, 0, 0, 5, 4, 2, 0, 6, 0, 0, 1, 5, 0, 6],
        ),
        ("resign-accept", &[0, 1, 1, 0, 7, 0, 0, 0, 6, 0, 13, 1, 6]),
        ("offered-pass", &[0x03, 2, 1, 0, 0, 0, 0, 0, 6, 0, 2]),
    ];
    for (name, bytes) in cubes {
        write(&dir, "cube", name, bytes);
    }
    // State bytes: the layout, then the fields of a 3-point match's state
    // after a few turns (each side taking its first legal play), in each
    // engine: backgammon with the cube, Portes on the same board, Plakoto
    // with its pins, Long Nardy on the tables engine.
    let three = MatchState {
        length: 3,
        ..MatchState::MONEY
    };
    let starts: [(&str, GameState); 4] = [
        (
            "backgammon",
            BackgammonGame::new(
                BackgammonVariant::Standard,
                CubeRules::default(),
                three,
                "s".into(),
            )
            .into(),
        ),
        ("portes", tables_start(Game::Portes)),
        ("plakoto", tables_start(Game::Plakoto)),
        ("long-nardy", tables_start(Game::LongNardy)),
    ];
    let roller = Roller::new(&[7u8; 32]);
    for (name, mut state) in starts {
        for _ in 0..24 {
            let player = state.to_act().unwrap_or(Player::X);
            let action = match state.phase() {
                Phase::Move => match state.legal_plays().get(0) {
                    Some(play) => Action::Move(play.to_string().parse().expect("a play's text")),
                    None => break,
                },
                Phase::OpeningRoll | Phase::RollOrDouble => Action::Roll,
                _ => break,
            };
            state = state
                .act(player, &action, &roller)
                .expect("a legal action")
                .0;
        }
        let mut bytes = vec![state.layout()];
        state.write_fields(&mut bytes);
        let (read, rest) =
            GameState::read_fields(bytes[0], &bytes[1..], "seed".into()).expect("the seed reads");
        assert!(
            rest.is_empty() && read.position() == state.position(),
            "{name}"
        );
        write(&dir, "state_bytes", name, &bytes);
    }
}

fn tables_start(game: Game) -> GameState {
    TablesGameState::new(
        TablesRules::DEFAULT,
        TablesMatch::new(TablesSeries::Single(game), 3),
        "s".into(),
    )
    .into()
}

//! The writers a legal-moves answer runs once per play (Position ID, XGID,
//! FIBS board, the signed board, pip counts and the play's notation)
//! against plain reference
//! writers kept here, byte for byte: every legal play of the benchmark's
//! 4 000 positions (`benches/data/positions.txt`) for all 21 rolls, about
//! 1.6 million resulting positions; and random values with counts no
//! position has, which take the writers' fallback paths.
//!
//! The references are the formats written out one field and one checker
//! at a time with `format!`, as the module docs describe them; they share
//! no code with the writers.
//!
//! The one-pass writer of every encoding (`notation::encodings`) is
//! compared with those writers on the same positions and on random
//! positions of every variant, with random game fields.

use bgref_core::notation::encodings::{Encoder, Encodings};
use bgref_core::notation::fibs::{FibsBoard, UNLIMITED};
use bgref_core::notation::position_id::PositionId;
use bgref_core::notation::xgid::{Xgid, XgidDice};
use bgref_core::{
    BackgammonVariant, ByPlayer, CubeOwner, CubeValue, Dice, Die, Play, Player, Point, Position,
    Setup,
};
use proptest::prelude::*;

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The Position ID bit by bit: for the opponent and then the player on
/// roll, each slot's checkers as 1s (at most 48, the writer's rule for
/// counts no position has) and a 0; the first 80 bits in bytes, least
/// significant bit first; the 10 bytes in base64, without padding.
fn reference_position_id(id: &PositionId) -> String {
    let mut bits = Vec::new();
    for side in [&id.opponent, &id.on_roll] {
        for &n in side {
            bits.extend(std::iter::repeat_n(true, usize::from(n.min(48))));
            bits.push(false);
        }
    }
    bits.resize(80, false);
    let bytes: Vec<u8> = bits
        .chunks(8)
        .map(|byte| (0..8).fold(0u8, |b, i| b | u8::from(byte[i]) << i))
        .collect();
    let mut stream: Vec<bool> = bytes
        .iter()
        .flat_map(|&b| (0..8).rev().map(move |i| b >> i & 1 == 1))
        .collect();
    stream.resize(84, false);
    stream
        .chunks(6)
        .map(|six| char::from(BASE64[six.iter().fold(0, |v, &bit| v << 1 | usize::from(bit))]))
        .collect()
}

/// The XGID field by field.
fn reference_xgid(xgid: &Xgid) -> String {
    let s = &xgid.setup;
    let letter = |n: u8, first: u8| {
        if n == 0 {
            '-'
        } else {
            char::from(first + n.min(26) - 1)
        }
    };
    let mut board = String::new();
    board.push(letter(s.bar.o, b'a'));
    for p in 1..=24 {
        let (x, o) = (s.points.x[p - 1], s.points.o[24 - p]);
        board.push(if x > 0 {
            letter(x, b'A')
        } else {
            letter(o, b'a')
        });
    }
    board.push(letter(s.bar.x, b'A'));
    let owner = match xgid.cube_owner {
        CubeOwner::Centre => 0,
        CubeOwner::Player(Player::X) => 1,
        CubeOwner::Player(Player::O) => -1,
    };
    let turn = if s.turn == Player::X { 1 } else { -1 };
    let dice = match xgid.dice {
        XgidDice::NotRolled => "00".to_string(),
        XgidDice::Rolled(d) => format!("{}{}", d.first().get(), d.second().get()),
        XgidDice::DoubleOffered => "D".to_string(),
        XgidDice::Beavered => "B".to_string(),
        XgidDice::Raccooned => "R".to_string(),
    };
    let rules = if xgid.match_length == 0 {
        u8::from(xgid.jacoby) | u8::from(xgid.beavers) << 1
    } else {
        u8::from(xgid.crawford)
    };
    format!(
        "XGID={board}:{}:{owner}:{turn}:{dice}:{}:{}:{rules}:{}:{}",
        xgid.cube_value.log2(),
        xgid.score.x,
        xgid.score.o,
        xgid.match_length,
        xgid.max_cube.log2()
    )
}

/// The FIBS board token by token.
fn reference_fibs(board: &FibsBoard) -> String {
    let s = &board.setup;
    let mut out = format!(
        "board:x:o:{}:{}:{}",
        board.match_length, board.score.x, board.score.o
    );
    let mut counts = [0i32; 26];
    counts[25] = i32::from(s.bar.x);
    counts[0] = -i32::from(s.bar.o);
    for k in 1..=24usize {
        counts[k] += i32::from(s.points.x[k - 1]);
        counts[25 - k] -= i32::from(s.points.o[k - 1]);
    }
    for n in counts {
        out += &format!(":{n}");
    }
    let turn = if s.turn == Player::X { 1 } else { -1 };
    let off = s.off.unwrap_or_default();
    let [a, b] = board.dice.map_or([0, 0], |d| d.values());
    let dice = if s.turn == Player::X {
        format!("{a}:{b}:0:0")
    } else {
        format!("0:0:{a}:{b}")
    };
    let flag = |f: bool| u8::from(f);
    out += &format!(
        ":{turn}:{dice}:{}:{}:{}:{}:1:-1:0:25:{}:{}:{}:{}:0:0:{}:0",
        board.cube,
        flag(board.may_double.x),
        flag(board.may_double.o),
        flag(board.doubled),
        off.x,
        off.o,
        s.bar.x,
        s.bar.o,
        flag(board.crawford)
    );
    out
}

/// The signed board point by point: x's count where x has checkers, else
/// o's negated (counts above 127 written as 127).
fn reference_signed(setup: &Setup) -> [i8; 24] {
    let mut out = [0i8; 24];
    for (i, slot) in out.iter_mut().enumerate() {
        let (x, o) = (setup.points.x[i], setup.points.o[23 - i]);
        *slot = if x > 0 {
            x.min(127) as i8
        } else {
            -(o.min(127) as i8)
        };
    }
    out
}

/// Pips point by point from the setup.
fn reference_pips(position: &Position, player: Player) -> u32 {
    let setup = position.to_setup();
    let points: u32 = (1..=24u32)
        .map(|p| p * u32::from(setup.points[player][p as usize - 1]))
        .sum();
    points + 25 * u32::from(setup.bar[player])
}

/// The notation as gnubg writes it, in vectors: the moves highest start
/// (then farther end) first in a stable sort; each continues the first
/// chain ending where it starts (not off) or starts one; chains highest
/// start first (stable); identical chains folded with their hits merged;
/// intermediate points written only where hit.
fn reference_notation(play: &Play) -> String {
    let mut moves = play.moves().to_vec();
    moves.sort_by_key(|m| std::cmp::Reverse((m.from(), m.to())));
    let mut chains: Vec<Vec<(Point, bool)>> = Vec::new();
    for mv in moves {
        let from = mv.from();
        match chains
            .iter_mut()
            .find(|c| c.last().map(|l| l.0) == Some(from) && !from.is_off())
        {
            Some(chain) => chain.push((mv.to(), mv.is_hit())),
            None => chains.push(vec![(from, false), (mv.to(), mv.is_hit())]),
        }
    }
    chains.sort_by_key(|c| std::cmp::Reverse(c[0].0));
    let mut folded: Vec<(Vec<(Point, bool)>, u8)> = Vec::new();
    for chain in chains {
        if let Some((last, count)) = folded.last_mut()
            && last.len() == chain.len()
            && last.iter().zip(&chain).all(|(a, b)| a.0 == b.0)
        {
            *count += 1;
            for (a, b) in last.iter_mut().zip(&chain) {
                a.1 |= b.1;
            }
            continue;
        }
        folded.push((chain, 1));
    }
    let texts: Vec<String> = folded
        .iter()
        .map(|(chain, count)| {
            let last = chain.len() - 1;
            let points: Vec<String> = chain
                .iter()
                .enumerate()
                .filter(|&(i, &(_, hit))| i == 0 || i == last || hit)
                .map(|(_, &(p, hit))| format!("{p}{}", if hit { "*" } else { "" }))
                .collect();
            let fold = if *count > 1 {
                format!("({count})")
            } else {
                String::new()
            };
            points.join("/") + &fold
        })
        .collect();
    texts.join(" ")
}

/// What `write_to` appends after a prefix already in the buffer.
fn appended(write: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut out = b"prefix".to_vec();
    write(&mut out);
    assert!(out.starts_with(b"prefix"));
    String::from_utf8(out.split_off(6)).expect("ASCII")
}

/// The one-pass encodings of `position` against the per-encoding writers
/// with the same fields (`xgid` and `fibs` as the writers' values of the
/// position with the game's fields).
fn assert_encodings_agree(
    encodings: &Encodings<'_>,
    position: &Position,
    xgid: &Xgid,
    fibs: &FibsBoard,
) {
    let context = || xgid.to_string();
    assert_eq!(
        encodings.position_id(),
        PositionId::from_position(position).encode(),
        "{}",
        context()
    );
    let mut expected = Vec::new();
    xgid.write_to(&mut expected);
    let written = appended(|out| encodings.write_xgid(out));
    assert_eq!(written.as_bytes(), expected, "{}", context());
    let mut expected = Vec::new();
    fibs.write_to(&mut expected);
    let written = appended(|out| encodings.write_fibs(out));
    assert_eq!(written.as_bytes(), expected, "{}", context());
    let setup = position.to_setup();
    assert_eq!(encodings.points(), setup.to_signed(), "{}", context());
    let zigzag = setup
        .to_signed()
        .map(|n| ((i32::from(n) << 1) ^ (i32::from(n) >> 31)) as u8);
    assert_eq!(encodings.zigzag_points(), zigzag, "{}", context());
    assert_eq!(encodings.bar(), setup.bar, "{}", context());
    assert_eq!(
        encodings.off(),
        setup.off.unwrap_or_default(),
        "{}",
        context()
    );
    assert_eq!(encodings.turn(), position.turn());
    assert_eq!(
        encodings.pips(),
        ByPlayer {
            x: position.pip_count(Player::X),
            o: position.pip_count(Player::O),
        },
        "{}",
        context()
    );
}

/// The benchmark's positions.
fn benchmark_positions() -> Vec<Position> {
    include_str!("../benches/data/positions.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let id: PositionId = l.split_whitespace().nth(1).unwrap().parse().unwrap();
            Position::from_setup(&id.to_setup(Player::X), BackgammonVariant::Standard).unwrap()
        })
        .collect()
}

#[test]
fn every_play_of_the_benchmark_positions_is_written_as_the_references_write_it() {
    let mut positions = 0usize;
    let mut bars = 0usize;
    let mut hits = 0usize;
    let mut folds = 0usize;
    let money = Encoder::money();
    for (i, start) in benchmark_positions().iter().enumerate() {
        for a in 1..=6 {
            for b in a..=6 {
                let dice = Dice::new(Die::new(a), Die::new(b));
                for play in &start.legal_plays(dice) {
                    let position = start.after(play);

                    let notation = reference_notation(play);
                    assert_eq!(play.to_string(), notation);
                    assert_eq!(appended(|out| play.write_notation(out)), notation);

                    let id = PositionId::from_position(&position);
                    let text = reference_position_id(&id);
                    assert_eq!(id.encode(), text.as_bytes(), "{notation}");
                    assert_eq!(id.to_string(), text);

                    // Every third position with the fields away from
                    // their defaults: a match, a score, a cube, the dice.
                    let mut xgid = Xgid::from_position(&position);
                    let mut fibs = FibsBoard::from_position(&position);
                    if positions % 3 == 1 {
                        xgid.cube_value = CubeValue::new(64);
                        xgid.cube_owner = CubeOwner::Player(!position.turn());
                        xgid.dice = XgidDice::Rolled(dice);
                        xgid.score = ByPlayer { x: 4, o: 11 };
                        xgid.match_length = 13;
                        xgid.crawford = i % 2 == 0;
                        fibs = FibsBoard::in_game(&position, &xgid);
                        assert_eq!(
                            (fibs.match_length, fibs.score, fibs.cube),
                            (13, ByPlayer { x: 4, o: 11 }, 64)
                        );
                    }
                    let text = reference_xgid(&xgid);
                    assert_eq!(xgid.to_string(), text);
                    assert_eq!(appended(|out| xgid.write_to(out)), text);
                    let text = reference_fibs(&fibs);
                    assert_eq!(fibs.to_string(), text);
                    assert_eq!(appended(|out| fibs.write_to(out)), text);

                    // The one-pass writer with the same fields.
                    if positions % 3 == 1 {
                        let encoder = Encoder::new(&xgid);
                        assert_encodings_agree(&encoder.encode(&position), &position, &xgid, &fibs);
                    } else {
                        let encodings = money.encode(&position);
                        assert_encodings_agree(&encodings, &position, &xgid, &fibs);
                    }

                    let setup = position.to_setup();
                    assert_eq!(setup.to_signed(), reference_signed(&setup), "{notation}");
                    for player in Player::ALL {
                        assert_eq!(
                            position.pip_count(player),
                            reference_pips(&position, player),
                            "{notation}"
                        );
                    }

                    positions += 1;
                    bars += usize::from(setup.bar.x + setup.bar.o > 0);
                    hits += usize::from(notation.contains('*'));
                    folds += usize::from(notation.contains('('));
                }
            }
        }
    }
    assert!(
        positions > 1_000_000 && bars > 10_000 && hits > 10_000 && folds > 10_000,
        "{positions} positions, {bars} with a checker on the bar, {hits} plays hitting, {folds} folding"
    );
}

/// Every legal play's position of the benchmark's positions for all 21
/// rolls, each answer (a position and a roll) with its own encoder, as the
/// service's answer writers make them: an encoder keeps what it derived
/// from the words of the play before, so each answer's plays run through
/// it in order, against each writer.
#[test]
fn every_answer_of_the_benchmark_positions_is_encoded_by_its_own_encoder_as_each_writer_writes_it()
{
    let mut plays = 0usize;
    let mut answers = 0usize;
    for (i, start) in benchmark_positions().iter().enumerate() {
        for (j, dice) in Dice::ALL_21.into_iter().enumerate() {
            // Every other answer in a match with a cube, a score and the
            // dice of the play before.
            let game = if (i + j) % 2 == 0 {
                Xgid {
                    setup: Setup::empty(Player::X),
                    ..Xgid::from_position(start)
                }
            } else {
                Xgid {
                    setup: Setup::empty(Player::X),
                    cube_value: CubeValue::new(4),
                    cube_owner: CubeOwner::Player(start.turn()),
                    dice: XgidDice::Rolled(dice),
                    score: ByPlayer { x: 2, o: 6 },
                    match_length: 7,
                    ..Xgid::from_position(start)
                }
            };
            let encoder = Encoder::new(&game);
            for play in &start.legal_plays(dice) {
                let position = start.after(play);
                let (xgid, fibs) = writers_values(&position, &game);
                assert_encodings_agree(&encoder.encode(&position), &position, &xgid, &fibs);
                plays += 1;
            }
            answers += 1;
        }
    }
    assert!(
        plays > 1_000_000 && answers == 84_000,
        "{plays} plays in {answers} answers"
    );
}

/// The writers' values of `position` with `game`'s fields, as the
/// service's answers make them: its XGID, and its FIBS board with the
/// game's score, match length ([`UNLIMITED`] in money play) and cube.
fn writers_values(position: &Position, game: &Xgid) -> (Xgid, FibsBoard) {
    let xgid = Xgid {
        setup: position.to_setup(),
        ..game.clone()
    };
    (xgid, FibsBoard::in_game(position, game))
}

/// A count as positions have them: mostly none, a few checkers, at most
/// 15, so that the writers' fast paths run.
fn calm() -> impl Strategy<Value = u8> {
    prop_oneof![8 => Just(0u8), 2 => 1u8..=3, 1 => 0u8..=15]
}

/// Any count, mostly small: the writers' fallbacks for counts no position
/// has.
fn wild() -> impl Strategy<Value = u8> {
    prop_oneof![4 => 0u8..=15, 1 => any::<u8>()]
}

/// 24 counts, half the time all calm and half the time wild.
fn points() -> impl Strategy<Value = [u8; 24]> {
    prop_oneof![
        prop::array::uniform24(calm()),
        prop::array::uniform24(wild())
    ]
}

/// 25 counts, half the time all calm and half the time wild.
fn slots() -> impl Strategy<Value = [u8; 25]> {
    prop_oneof![
        prop::array::uniform25(calm()),
        prop::array::uniform25(wild())
    ]
}

/// A point number, mostly one of off and the lowest three.
fn near() -> impl Strategy<Value = u8> {
    prop_oneof![3 => 0u8..=3, 1 => 0u8..=25]
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        points(),
        points(),
        (calm(), wild()),
        prop::option::of((calm(), wild())),
        any::<bool>(),
    )
        .prop_map(|(x, o, (bar_x, bar_o), off, o_turn)| Setup {
            points: ByPlayer { x, o },
            bar: ByPlayer { x: bar_x, o: bar_o },
            off: off.map(|(x, o)| ByPlayer { x, o }),
            turn: if o_turn { Player::O } else { Player::X },
        })
}

/// A position of any variant: each checker of each player on a random
/// slot (off, a point or the bar, off and the bar more often than a point
/// each); o's checkers that land on a point of x's are borne off instead.
/// The positions where both players have borne off every checker (not
/// positions) are left out.
fn position() -> impl Strategy<Value = Position> {
    let slot = || prop_oneof![6 => 0u8..=25, 1 => Just(0u8), 1 => Just(25u8)];
    (
        0usize..BackgammonVariant::ALL.len(),
        prop::collection::vec(slot(), 15),
        prop::collection::vec(slot(), 15),
        any::<bool>(),
    )
        .prop_filter_map("both players finished", |(variant, xs, os, o_turn)| {
            let variant = BackgammonVariant::ALL[variant];
            let n = usize::from(variant.checkers());
            let mut setup = Setup::empty(if o_turn { Player::O } else { Player::X });
            let mut off = ByPlayer { x: 0, o: 0 };
            for &slot in &xs[..n] {
                match slot {
                    0 => off.x += 1,
                    25 => setup.bar.x += 1,
                    p => setup.points.x[usize::from(p) - 1] += 1,
                }
            }
            for &slot in &os[..n] {
                match slot {
                    0 => off.o += 1,
                    25 => setup.bar.o += 1,
                    // o's point q is x's point 25 - q.
                    q if setup.points.x[usize::from(24 - q)] > 0 => off.o += 1,
                    q => setup.points.o[usize::from(q) - 1] += 1,
                }
            }
            setup.off = Some(off);
            Position::from_setup(&setup, variant).ok()
        })
}

/// An XGID's fields besides the position (its setup empty): any cube,
/// owner, dice, score, match length and rule flags.
fn any_game_fields() -> impl Strategy<Value = Xgid> {
    (
        (0u8..=15, 0u8..=15),
        0u8..3,
        (0u8..10, 1u8..=6, 1u8..=6),
        (
            prop_oneof![0u32..100, any::<u32>()],
            prop_oneof![0u32..100, any::<u32>()],
        ),
        prop_oneof![Just(0u32), 1u32..100, any::<u32>()],
        (any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |((cube, max_cube), owner, dice, score, match_length, (crawford, jacoby, beavers))| {
                Xgid {
                    setup: Setup::empty(Player::X),
                    cube_value: CubeValue::from_log2(cube).unwrap(),
                    cube_owner: match owner {
                        0 => CubeOwner::Centre,
                        1 => CubeOwner::Player(Player::X),
                        _ => CubeOwner::Player(Player::O),
                    },
                    dice: match dice.0 {
                        0 => XgidDice::NotRolled,
                        1 => XgidDice::DoubleOffered,
                        2 => XgidDice::Beavered,
                        3 => XgidDice::Raccooned,
                        _ => XgidDice::Rolled(Dice::new(Die::new(dice.1), Die::new(dice.2))),
                    },
                    score: ByPlayer {
                        x: score.0,
                        o: score.1,
                    },
                    crawford,
                    jacoby,
                    beavers,
                    match_length,
                    max_cube: CubeValue::from_log2(max_cube).unwrap(),
                }
            },
        )
}

/// An XGID's fields besides the position (its setup empty), the common
/// ones (money play at 0-0, a centred 1-cube) a third of the time.
fn game() -> impl Strategy<Value = Xgid> {
    prop_oneof![
        1 => Just(Xgid {
            setup: Setup::empty(Player::X),
            ..Xgid::from_position(&Position::start(BackgammonVariant::Standard, Player::X))
        }),
        2 => any_game_fields(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_position_id_is_written_as_the_reference_writes_it(
        on_roll in slots(),
        opponent in slots(),
    ) {
        let id = PositionId { on_roll, opponent };
        let text = reference_position_id(&id);
        prop_assert_eq!(id.encode(), text.as_bytes());
    }

    #[test]
    fn any_xgid_is_written_as_the_reference_writes_it(
        setup in setup(),
        game in any_game_fields(),
    ) {
        let xgid = Xgid { setup, ..game };
        let text = reference_xgid(&xgid);
        prop_assert_eq!(xgid.to_string(), text.clone());
        prop_assert_eq!(appended(|out| xgid.write_to(out)), text);
    }

    #[test]
    fn any_play_is_written_as_the_reference_writes_it(
        moves in prop::collection::vec((near(), near()), 0..=4),
    ) {
        // Moves no roll makes too (backwards, from off, alike, chained;
        // the points mostly few, so that they meet): the writer's paths
        // for one or two moves and for more against the same reference.
        let moves: Vec<bgref_core::Move> = moves
            .iter()
            .map(|&(from, to)| bgref_core::Move::new(Point::new(from), Point::new(to)))
            .collect();
        let play = Play::new(&moves).unwrap();
        let text = reference_notation(&play);
        prop_assert_eq!(play.to_string(), text.clone());
        prop_assert_eq!(appended(|out| play.write_notation(out)), text);
    }

    #[test]
    fn any_setup_gives_the_reference_signed_board(setup in setup()) {
        prop_assert_eq!(setup.to_signed(), reference_signed(&setup));
    }

    #[test]
    fn any_fibs_board_is_written_as_the_reference_writes_it(
        setup in setup(),
        match_length in prop_oneof![Just(UNLIMITED), 0u32..100, any::<u32>()],
        score in (prop_oneof![0u32..100, any::<u32>()], prop_oneof![0u32..100, any::<u32>()]),
        cube in prop_oneof![Just(1u32), any::<u32>()],
        dice in prop::option::of((1u8..=6, 1u8..=6)),
        flags in any::<(bool, bool, bool, bool)>(),
    ) {
        let board = FibsBoard {
            setup,
            match_length,
            score: ByPlayer { x: score.0, o: score.1 },
            cube,
            dice: dice.map(|(a, b)| bgref_core::Dice::new(bgref_core::Die::new(a), bgref_core::Die::new(b))),
            may_double: ByPlayer { x: flags.0, o: flags.1 },
            doubled: flags.2,
            crawford: flags.3,
        };
        let text = reference_fibs(&board);
        prop_assert_eq!(board.to_string(), text.clone());
        prop_assert_eq!(appended(|out| board.write_to(out)), text);
    }

    #[test]
    fn any_position_is_encoded_in_one_pass_as_each_writer_writes_it(
        position in position(),
        game in game(),
    ) {
        let (xgid, fibs) = writers_values(&position, &game);
        let encoder = Encoder::new(&game);
        assert_encodings_agree(&encoder.encode(&position), &position, &xgid, &fibs);
        // And against the references.
        prop_assert_eq!(appended(|out| encoder.encode(&position).write_xgid(out)), reference_xgid(&xgid));
        prop_assert_eq!(appended(|out| encoder.encode(&position).write_fibs(out)), reference_fibs(&fibs));
    }

    #[test]
    fn any_answer_is_encoded_by_one_encoder_as_each_writer_writes_it(
        position in position(),
        game in game(),
        dice in (1u8..=6, 1u8..=6),
    ) {
        // Every play's position in turn, as an answer's writer meets
        // them, then the position played from (the other side on roll):
        // what the encoder keeps from one position must not leak into
        // the next.
        let dice = Dice::new(Die::new(dice.0), Die::new(dice.1));
        let encoder = Encoder::new(&game);
        let plays = position.legal_plays(dice);
        let positions = plays.iter().map(|play| position.after(play)).chain([position]);
        for after in positions {
            let (xgid, fibs) = writers_values(&after, &game);
            assert_encodings_agree(&encoder.encode(&after), &after, &xgid, &fibs);
        }
    }
}

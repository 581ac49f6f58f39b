//! The `LegalMoves` answer written as protobuf in one pass.
//!
//! The bytes of `proto::LegalMovesResponse` built from the same answer and
//! encoded by prost (the tests compare them over thousands of answers),
//! written straight from the domain values into one buffer: no `String`
//! per encoding, no message tree with a `Vec` per play, and each nested
//! length computed once (prost measures a nested message again at every
//! level above it). The notations are written by bgref-core's byte
//! writers, each position's encodings in one pass over it
//! (`bgref_core::notation::encodings`), as the HTTP answer's hand-written
//! JSON does (`http::types::moves::LegalMovesJson`).
//!
//! The messages, by field number:
//!
//! - `LegalMovesResponse`: plays 1 (`Play`), dice 2 (packed), forced 3;
//! - `Play`: notation 1, moves 2 (`Move`: from_point 1, to_point 2,
//!   hit 3), position 3;
//! - `Position`: position_id 1, xgid 2, board 3, pips 4, fibs 5;
//! - `Board`: points 1 (packed sint32), bar 2, off 3, turn 4, pins 5
//!   (packed sint32);
//! - `PerPlayer`: x 1, o 2.

use bgref_core::notation::encodings::{Encodings, FIBS_ROOM, XGID_ROOM};
use bgref_core::notation::move_text::NOTATION_ROOM;
use bgref_core::{ByPlayer, Play, PlayList, Player, Position};

use super::common::player_out;
use super::wire::{self, Chunk, Encoded};
use crate::api::moves::{LegalMoves, LegalMovesReply};
use crate::api::tables::TablesView;
use crate::api::view::{self, Fields, InGame};

/// The protobuf bytes of `proto::LegalMovesResponse::from(reply)`.
pub fn encode(reply: &LegalMovesReply) -> Encoded {
    let mut out = Vec::new();
    match reply.answer.on_board() {
        Some(board) => write_backgammon(&mut out, &reply.answer, board, reply.fields),
        // Tables answers have every field (the api refuses others).
        None => write_tables(&mut out, &reply.answer),
    }
    Encoded(out)
}

/// The most one play takes with `fields` (an opening position's play with
/// every field is about 300 bytes), with the slack the stack chunks need
/// ([`Chunk::append_to`]) and the room the XGID and FIBS writers fill
/// before cutting to their text: reserved before each play, so that a
/// play's writes do not grow the buffer.
fn per_play(fields: Fields) -> usize {
    let part = |field: Fields, bytes: usize| if fields.has(field) { bytes } else { 0 };
    16 + HEAD_CHUNK
        + part(Fields::POSITION_ID, 16)
        + part(Fields::XGID, 2 + XGID_ROOM)
        + part(Fields::BOARD, BOARD_CHUNK + 8)
        + part(Fields::FIBS, 3 + FIBS_ROOM)
        + part(Fields::PIPS, 12)
}

fn write_backgammon(
    out: &mut Vec<u8>,
    answer: &LegalMoves,
    (position, plays): (&Position, &PlayList),
    fields: Fields,
) {
    // The bytes the FIBS board's length took last time (its text is
    // about 128 bytes, one side or the other): the guess for the next.
    let mut fibs_len = 2;
    // One encoder for the answer: every play's position has the
    // request's game fields.
    let encoder = view::encoder(answer.meta.as_ref());
    write_plays(
        out,
        1,
        plays.as_slice(),
        fields,
        |play| play,
        |out, play| {
            let after = position.after_legal(play);
            write_position(out, &encoder.encode(&after), fields, &mut fibs_len);
        },
    );
    write_tail(out, answer.dice.values(), answer.forced());
}

fn write_tables(out: &mut Vec<u8>, answer: &LegalMoves) {
    let plays: Vec<(Play, TablesView)> = TablesView::after_plays(&answer.position, &answer.plays)
        .map(|(p, v)| (*p, v))
        .collect();
    write_plays(
        out,
        1,
        &plays,
        Fields::ALL,
        |(play, _)| play,
        |out, (_, view)| {
            write_tables_position(out, view);
        },
    );
    write_tail(out, answer.dice.values(), answer.forced());
}

/// The `plays` field (13) of a `GameView` of the backgammon board:
/// the bytes prost gives `view_out`'s plays, each play's position with
/// the encodings `fields` names and the game's gnubg Match ID (field 6).
pub fn write_game_plays(
    out: &mut Vec<u8>,
    (position, plays, next): (&Position, &PlayList, &InGame),
    fields: Fields,
) {
    // Every play's position has the same game fields.
    let encoder = view::encoder(Some(&next.xgid));
    let match_id = next.match_id.as_ref().map(ToString::to_string);
    let mut fibs_len = 2;
    write_plays(
        out,
        13,
        plays.as_slice(),
        fields,
        |play| play,
        |out, play| {
            let encodings = encoder.encode(&position.after_legal(play));
            write_position(out, &encodings, fields, &mut fibs_len);
            if let Some(id) = &match_id {
                wire::bytes(out, 6, id.as_bytes());
            }
        },
    );
}

/// The `plays` field (number `field`): each play's head, then (when
/// `fields` has any of the position's encodings) its `Position` as
/// `position` writes it.
/// One reservation per play; each nested length is written once, after
/// its content, in the bytes held for it ([`wire::open`], [`wire::close`]).
fn write_plays<V>(
    out: &mut Vec<u8>,
    field: u8,
    plays: &[V],
    fields: Fields,
    play: impl Fn(&V) -> &Play,
    mut position: impl FnMut(&mut Vec<u8>, &V),
) {
    let per_play = per_play(fields);
    out.reserve(16 + plays.len() * per_play);
    // The bytes each nested length took last time: the guess for the
    // next (two for an answer with every field, one with a few); the
    // first guess from the size of a play with `fields`.
    let first_guess = if per_play > 0x100 { 2 } else { 1 };
    let (mut play_len, mut position_len) = (first_guess, first_guess);
    let with_position = fields.any(Fields::POSITION);
    for view in plays {
        out.reserve(per_play);
        out.push(wire::key(field, wire::LEN));
        let play_at = wire::open(out, play_len);
        write_play_head(out, play(view), fields);
        if with_position {
            out.push(wire::key(3, wire::LEN));
            let position_at = wire::open(out, position_len);
            position(out, view);
            position_len = wire::close(out, position_at, position_len);
        }
        play_len = wire::close(out, play_at, play_len);
    }
}

/// The most [`write_play_head`] gathers: the notation field's key and
/// length, the room the notation writer fills (the text is at most 43
/// bytes) and after the text four `Move` messages at most (8 each: key,
/// length and three one-byte fields, points being 0 to 25), the last
/// stored as a word of 8.
const HEAD_CHUNK: usize = 2 + NOTATION_ROOM + 4 * 8 + 8;

/// A `Play`'s notation and, when `fields` has them, its moves (a play
/// has at most four): gathered in one chunk, the notation's length (one
/// byte: it is shorter than 128) written once the text is there.
#[inline]
fn write_play_head(out: &mut Vec<u8>, play: &Play, fields: Fields) {
    let mut chunk = Chunk::<HEAD_CHUNK>::new();
    chunk.pair(wire::key(1, wire::LEN), 0);
    match chunk.fill(|room| play.notation_into(room)) {
        // An empty notation (no move) is left out.
        0 => chunk.truncate(0),
        len => chunk.set(1, len as u8),
    }
    if fields.has(Fields::MOVES) {
        for m in play.moves() {
            let (from, to, hit) = (m.from().get(), m.to().get(), u8::from(m.is_hit()));
            let (word, len) = if from < 26 && to < 26 {
                let word =
                    MOVE_FIELDS[(usize::from(from) * 26 + usize::from(to)) * 2 + usize::from(hit)];
                // The message's length is byte 1.
                (word, 2 + (word >> 8 & 0xff) as usize)
            } else {
                move_field(from, to, hit)
            };
            chunk.word(word, len);
        }
    }
    chunk.append_to(out);
}

/// The `Move` message field (2) of each move between points 0 and 25, by
/// `(from * 26 + to) * 2 + hit`, as [`move_field`] makes it.
const MOVE_FIELDS: [u64; 26 * 26 * 2] = {
    let mut table = [0; 26 * 26 * 2];
    let mut i = 0;
    while i < table.len() {
        let (from, to, hit) = ((i / 52) as u8, (i / 2 % 26) as u8, (i % 2) as u8);
        table[i] = move_field(from, to, hit).0;
        i += 1;
    }
    table
};

/// A `Move` message field (2) of values below 128 (points 0 to 25, `hit`
/// 0 or 1): at most 8 bytes (key, length and three one-byte fields, those
/// at 0 left out) as the low bytes of a word, and their count.
const fn move_field(from: u8, to: u8, hit: u8) -> (u64, usize) {
    let values = [from, to, hit];
    let mut word = wire::key(2, wire::LEN) as u64;
    let mut shift = 16;
    let mut i = 0;
    while i < values.len() {
        if values[i] != 0 {
            let field = wire::key(i as u8 + 1, wire::VARINT) as u64 | (values[i] as u64) << 8;
            word |= field << shift;
            shift += 16;
        }
        i += 1;
    }
    let len = shift / 8;
    word |= ((len - 2) as u64) << 8;
    (word, len)
}

/// The `dice` and `forced` fields of the response.
fn write_tail(out: &mut Vec<u8>, dice: [u8; 2], forced: bool) {
    wire::packed_uint32(out, 2, &dice);
    wire::uint32(out, 3, u32::from(forced));
}

/// A backgammon `Position`'s content: the encodings `fields` names (all
/// of them: `position_out`'s message), from one pass over the position.
/// `fibs_len`: the bytes to hold for the FIBS board's length, updated to
/// those it took.
fn write_position(
    out: &mut Vec<u8>,
    position: &Encodings<'_>,
    fields: Fields,
    fibs_len: &mut usize,
) {
    if fields.has(Fields::POSITION_ID) {
        // Key, length and the 14 characters in one copy of known size.
        let mut field = [0; 16];
        field[0] = wire::key(1, wire::LEN);
        field[1] = 14;
        field[2..].copy_from_slice(&position.position_id());
        out.extend_from_slice(&field);
    }
    if fields.has(Fields::XGID) {
        // An XGID is shorter than 128 bytes: its length takes one byte.
        wire::string_with(out, 2, 1, |out| position.write_xgid(out));
    }
    let (board, pips) = (fields.has(Fields::BOARD), fields.has(Fields::PIPS));
    if board || pips {
        write_board_and_pips(out, position, board, pips);
    }
    if fields.has(Fields::FIBS) {
        *fibs_len = wire::string_with(out, 5, *fibs_len, |out| position.write_fibs(out));
    }
}

/// The most [`write_board_and_pips`] gathers: the board message (key and
/// length 2, points 2 + 24, bar and off 2 + 2 × 3 each, turn 2) and the
/// pips (2 + 2 × 3), with values below 2^14: 54, each `PerPlayer` stored
/// as 8 bytes whatever its length.
const BOARD_CHUNK: usize = 64;

/// The `PerPlayer` message of counts `x` and `o` of 0 to 15, by `x << 4 |
/// o`: its length and content as [`wire::small_per_player`] writes them
/// after the key (the low byte, left 0 here), the length in byte 1.
const PER_PLAYER_COUNTS: [u64; 256] = {
    let mut table = [0; 256];
    let mut i = 0;
    while i < table.len() {
        table[i] = wire::small_per_player(0, (i >> 4) as u16, (i & 15) as u16).0 & !0xff;
        i += 1;
    }
    table
};

/// The `board` (3) and `pips` (4) fields of a backgammon `Position` (those
/// asked for), next to each other in field order: gathered in one chunk,
/// every length known before it is written. A position's counts are at
/// most 15 (the board's zigzag bytes at most 30, the bar and off from a
/// table), its pips at most 375 and its turn 1 or 2; other values (none
/// a position has) take the general writers.
fn write_board_and_pips(out: &mut Vec<u8>, position: &Encodings<'_>, board: bool, pips: bool) {
    let small = |v: u32| u16::try_from(v).ok().filter(|&v| v < 0x4000);
    let (bar, off) = (position.bar(), position.off());
    let turn = player_out(position.turn());
    let counts_fit = (bar.x | bar.o | off.x | off.o) < 16 && (0..0x80).contains(&turn);
    if board && !counts_fit {
        return write_board_and_pips_general(out, position, board, pips);
    }
    let pip_counts = match pips.then(|| position.pips()) {
        None => None,
        Some(counts) => match (small(counts.x), small(counts.o)) {
            (Some(x), Some(o)) => Some((x, o)),
            _ => return write_board_and_pips_general(out, position, board, pips),
        },
    };
    let mut chunk = Chunk::<BOARD_CHUNK>::new();
    if board {
        let field = |number: u8, x: u8, o: u8| {
            let word = PER_PLAYER_COUNTS[usize::from(x << 4 | o)]
                | u64::from(wire::key(number, wire::LEN));
            (word, 2 + (word >> 8 & 0xff) as usize)
        };
        let (bar_word, bar_len) = field(2, bar.x, bar.o);
        let (off_word, off_len) = field(3, off.x, off.o);
        // An enum value below 128 (checked above): one byte.
        let turn_len = if turn == 0 { 0 } else { 2 };
        let len = (2 + 24 + bar_len + off_len + turn_len) as u8;
        chunk.array([wire::key(3, wire::LEN), len, wire::key(1, wire::LEN), 24]);
        chunk.array(position.zigzag_points());
        chunk.word(bar_word, bar_len);
        chunk.word(off_word, off_len);
        if turn_len != 0 {
            chunk.pair(wire::key(4, wire::VARINT), turn as u8);
        }
    }
    if let Some((x, o)) = pip_counts {
        chunk.small_per_player(4, x, o);
    }
    chunk.append_to(out);
}

/// [`write_board_and_pips`] by the general writers.
#[cold]
#[inline(never)]
fn write_board_and_pips_general(
    out: &mut Vec<u8>,
    position: &Encodings<'_>,
    board: bool,
    pips: bool,
) {
    if board {
        let points = position.points();
        write_board(
            out,
            &points,
            position.bar(),
            position.off(),
            position.turn(),
            &[],
        );
    }
    if pips {
        let counts = position.pips();
        wire::per_player(out, 4, counts.x, counts.o);
    }
}

/// A Plakoto, Fevga or Long Nardy `Position`'s content
/// (`tables_position_out`'s message): the Position ID (not in Plakoto),
/// the board with an empty bar and Plakoto's pins, the pips.
fn write_tables_position(out: &mut Vec<u8>, view: &TablesView) {
    if let Some(id) = view.position.position_id() {
        wire::bytes(out, 1, &id.encode());
    }
    let board = view.board();
    write_board(
        out,
        &board.points,
        ByPlayer { x: 0, o: 0 },
        board.off,
        board.turn,
        board.pins.as_ref().map_or(&[], |pins| &pins[..]),
    );
    wire::per_player(
        out,
        4,
        view.position.pip_count(Player::X),
        view.position.pip_count(Player::O),
    );
}

/// The `board` field (3) of a `Position`.
fn write_board(
    out: &mut Vec<u8>,
    points: &[i8],
    bar: ByPlayer<u8>,
    off: ByPlayer<u8>,
    turn: Player,
    pins: &[i8],
) {
    wire::message(out, 3, 1, |out| {
        wire::packed_sint32(out, 1, points);
        wire::per_player(out, 2, bar.x.into(), bar.o.into());
        wire::per_player(out, 3, off.x.into(), off.o.into());
        wire::int32(out, 4, player_out(turn));
        wire::packed_sint32(out, 5, pins);
    });
}

#[cfg(test)]
mod tests {
    use bgref_core::notation::position_id::PositionId;
    use bgref_core::tables::{Game, TablesPosition};
    use bgref_core::{Dice, Player};
    use prost::Message as _;

    use crate::api;
    use crate::api::moves::LegalMovesInput;
    use crate::proto;

    /// The fields lists a request may give: every field (none given),
    /// the benchmark's Position ID alone, and mixes.
    const FIELD_LISTS: [&[&str]; 6] = [
        &[],
        &["position_id"],
        &["moves"],
        &["xgid", "fibs"],
        &["board", "pips", "moves"],
        &["pips", "xgid", "board", "position_id"],
    ];

    fn request(
        variant: proto::Variant,
        position: proto::position_input::Encoding,
        dice: Option<[u32; 2]>,
        fields: &[&str],
    ) -> proto::LegalMovesRequest {
        proto::LegalMovesRequest {
            variant: variant.into(),
            position: Some(proto::PositionInput {
                encoding: Some(position),
                turn: proto::Player::Unspecified.into(),
            }),
            dice: dice.map_or_else(Vec::new, |d| d.to_vec()),
            fields: fields.iter().map(|&f| f.to_owned()).collect(),
            ..proto::LegalMovesRequest::default()
        }
    }

    /// Compares the direct bytes with prost's for one request; returns
    /// the number of plays.
    fn compare(request: &proto::LegalMovesRequest) -> usize {
        let input = LegalMovesInput::try_from(request.clone()).unwrap();
        let reply = api::moves::legal_moves_reply(&input).unwrap();
        let message = proto::LegalMovesResponse::from(&reply);
        let direct = super::encode(&reply).0;
        let reference = message.encode_to_vec();
        if direct != reference {
            let first = direct
                .iter()
                .zip(&reference)
                .position(|(a, b)| a != b)
                .unwrap_or(direct.len().min(reference.len()));
            panic!(
                "{request:?}: {} bytes written, prost {}, first difference at {first}",
                direct.len(),
                reference.len()
            );
        }
        message.plays.len()
    }

    /// Every position of the movegen benchmark set (contact, race,
    /// bear-off and bar positions) with each of the 21 rolls, with every
    /// field and with the Position ID alone (the two benchmarked
    /// settings), and one more fields list in turn.
    #[test]
    fn the_bytes_are_prosts_for_the_benchmark_positions_and_every_roll() {
        let data = include_str!("../../../core/benches/data/positions.txt");
        let (mut answers, mut plays) = (0, 0);
        for (i, line) in data
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .enumerate()
        {
            let id = line.split_whitespace().nth(1).unwrap();
            let position = proto::position_input::Encoding::PositionId(id.to_owned());
            for (j, dice) in Dice::ALL_21.iter().enumerate() {
                let [a, b] = dice.values().map(u32::from);
                let extra = FIELD_LISTS[2 + (i + j) % (FIELD_LISTS.len() - 2)];
                for fields in [FIELD_LISTS[0], FIELD_LISTS[1], extra] {
                    let req = request(
                        proto::Variant::Standard,
                        position.clone(),
                        Some([a, b]),
                        fields,
                    );
                    plays += compare(&req);
                    answers += 1;
                }
            }
        }
        assert_eq!(answers, 4000 * 21 * 3);
        assert!(plays > 1_000_000, "{plays} plays compared");
    }

    /// An XGID whose cube, score and match go into every answer's XGID
    /// and FIBS board, the other backgammon variants, the tables games
    /// (pins, no XGID, no Position ID in Plakoto), a forced play and a
    /// roll with no play.
    #[test]
    fn the_bytes_are_prosts_for_every_variant_and_the_edge_cases() {
        use proto::position_input::Encoding;
        let xgid = |s: &str| Encoding::Xgid(s.to_owned());
        let id_of = |p: &bgref_core::Position| {
            Encoding::PositionId(PositionId::from_position(p).to_string())
        };
        let mut cases = vec![
            (
                proto::Variant::Standard,
                xgid("XGID=-b----E-C---eE---c-e----B-:1:1:1:52:2:1:0:7:10"),
                None,
            ),
            // x has one checker on its 1-point and two on its 2-point.
            (
                proto::Variant::Standard,
                xgid("XGID=-AB---------------bbbc----:0:0:1:00:0:0:0:0:10"),
                Some([6, 1]),
            ),
        ];
        // Portes and Tavla are played on the backgammon board.
        for (board, variant) in [
            (
                bgref_core::BackgammonVariant::Nackgammon,
                proto::Variant::Nackgammon,
            ),
            (
                bgref_core::BackgammonVariant::Hypergammon1,
                proto::Variant::Hypergammon1,
            ),
            (
                bgref_core::BackgammonVariant::Hypergammon2,
                proto::Variant::Hypergammon2,
            ),
            (
                bgref_core::BackgammonVariant::Hypergammon3,
                proto::Variant::Hypergammon3,
            ),
            (
                bgref_core::BackgammonVariant::Standard,
                proto::Variant::Portes,
            ),
            (
                bgref_core::BackgammonVariant::Standard,
                proto::Variant::Tavla,
            ),
        ] {
            let start = bgref_core::Position::start(board, Player::X);
            for dice in [[6, 6], [3, 1], [5, 2]] {
                cases.push((variant, id_of(&start), Some(dice)));
            }
        }
        let mut compared = 0;
        for (variant, position, dice) in cases {
            for fields in FIELD_LISTS {
                compared += compare(&request(variant, position.clone(), dice, fields));
            }
        }
        // The tables games, walked from the start with the first play of
        // each roll: every field only.
        for (game, variant) in [
            (Game::Plakoto, proto::Variant::Plakoto),
            (Game::Fevga, proto::Variant::Fevga),
            (Game::LongNardy, proto::Variant::LongNardy),
        ] {
            let mut position = TablesPosition::start(game, Player::X).unwrap();
            for turn in 0..60 {
                let dice = Dice::ALL_21[(turn * 7 + 3) % 21];
                let board = super::super::tables::tables_position_out(&api::tables::TablesView {
                    position,
                });
                let req = request(
                    variant,
                    Encoding::Board(board.board.unwrap()),
                    Some(dice.values().map(u32::from)),
                    &[],
                );
                compared += compare(&req);
                let plays = position.legal_plays(dice);
                position = match (&plays).into_iter().next() {
                    Some(play) => position.after(play),
                    None => position.swap_turn(),
                };
                if position.outcome().is_some() {
                    position = TablesPosition::start(game, Player::O).unwrap();
                }
            }
        }
        assert!(compared > 3000, "{compared} plays compared");
    }

    /// Lengths of one, two and three bytes, whatever was reserved for
    /// them: the content moves when its length needs more or fewer bytes.
    #[test]
    fn nested_lengths_take_the_bytes_prost_gives_them() {
        for len in [0usize, 1, 127, 128, 300, 16_383, 16_384, 70_000] {
            let content: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            // What prost writes for field 1 holding those bytes.
            let mut expected = vec![0xee];
            prost::encoding::bytes::encode(1, &content, &mut expected);
            for reserved in [0, 1, 2, 3] {
                let mut out = vec![0xee];
                let used = super::wire::message(&mut out, 1, reserved, |out| {
                    out.extend_from_slice(&content);
                });
                assert_eq!(out, expected, "{len} {reserved}");
                assert_eq!(used, prost::encoding::encoded_len_varint(len as u64));
            }
        }
    }
}

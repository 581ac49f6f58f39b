//! Shared pieces of the bgref-core fuzz targets: how fuzz bytes become
//! positions and dice, and the invariants every target checks.
//!
//! Every check panics (through `assert!`) on a broken invariant; libFuzzer
//! reports the panic as a crash and saves the input under
//! `fuzz/artifacts/<target>/`.

use std::collections::HashSet;

use bgref_core::notation::move_text::MoveText;
use bgref_core::notation::position_id::PositionId;
use bgref_core::notation::xgid::Xgid;
use bgref_core::{BackgammonVariant, Dice, Die, Move, Play, Player, Position, Setup};

pub mod reference;
pub mod service;

/// A cursor over the fuzz input; reads past the end give `None`.
#[derive(Debug, Clone)]
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// A cursor at the start of `data`.
    #[must_use]
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data }
    }

    /// The next byte, if any.
    pub fn byte(&mut self) -> Option<u8> {
        let (&first, rest) = self.data.split_first()?;
        self.data = rest;
        Some(first)
    }

    /// The next byte, or `default` at the end.
    pub fn byte_or(&mut self, default: u8) -> u8 {
        self.byte().unwrap_or(default)
    }

    /// A little-endian `u32` from up to four bytes (missing bytes are 0).
    pub fn u32(&mut self) -> u32 {
        let mut out = 0u32;
        for i in 0..4 {
            out |= u32::from(self.byte_or(0)) << (8 * i);
        }
        out
    }

    /// Whatever is left.
    #[must_use]
    pub fn rest(&self) -> &'a [u8] {
        self.data
    }
}

/// A roll from one byte: `b % 36` read as two base-6 digits.
#[must_use]
pub fn dice_from_byte(b: u8) -> Dice {
    let d = b % 36;
    Dice::new(Die::new(d / 6 + 1), Die::new(d % 6 + 1))
}

/// The byte [`dice_from_byte`] reads as `dice`.
#[must_use]
pub fn dice_to_byte(dice: Dice) -> u8 {
    (dice.first().get() - 1) * 6 + (dice.second().get() - 1)
}

/// The places of a variant's starting checkers, one entry per checker
/// (0 off, 1 to 24 the points from the owner's view, 25 the bar).
fn start_slots(variant: BackgammonVariant) -> Vec<u8> {
    variant
        .start()
        .iter()
        .flat_map(|&(point, count)| std::iter::repeat_n(point, usize::from(count)))
        .collect()
}

/// A valid position from fuzz bytes, or `None` when both players would have
/// borne off every checker.
///
/// Format: one byte for the variant (`b % 5`, in [`BackgammonVariant::ALL`] order)
/// and the player on roll (bit 7: o); then one byte per checker, x's first,
/// then o's, each `b % 26` a place (0 off, 1 to 24 a point from the
/// owner's view, 25 the bar). A checker whose byte is missing stands where
/// it starts the game, so the empty input is the standard start with x on
/// roll. An o checker that would share a point with x goes to o's bar.
#[must_use]
pub fn position_from_bytes(bytes: &mut Bytes<'_>) -> Option<Position> {
    let head = bytes.byte_or(0);
    let variant = BackgammonVariant::ALL[usize::from(head % 5)];
    let turn = if head & 0x80 == 0 {
        Player::X
    } else {
        Player::O
    };
    let mut setup = Setup::empty(turn);
    let mut off = bgref_core::ByPlayer { x: 0u8, o: 0u8 };
    for player in Player::ALL {
        for default in start_slots(variant) {
            let slot = bytes.byte().map_or(default, |b| b % 26);
            match slot {
                0 => off[player] += 1,
                25 => setup.bar[player] += 1,
                p => {
                    let i = usize::from(p) - 1;
                    if player == Player::O && setup.points.x[23 - i] > 0 {
                        setup.bar.o += 1;
                    } else {
                        setup.points[player][i] += 1;
                    }
                }
            }
        }
    }
    setup.off = Some(off);
    Position::from_setup(&setup, variant).ok()
}

/// The bytes [`position_from_bytes`] reads as `position`.
#[must_use]
pub fn position_to_bytes(position: &Position) -> Vec<u8> {
    let variant = BackgammonVariant::ALL
        .iter()
        .position(|&v| v == position.variant())
        .unwrap_or(0) as u8;
    let mut out = vec![
        variant
            | if position.turn() == Player::O {
                0x80
            } else {
                0
            },
    ];
    for player in Player::ALL {
        for (slot, &n) in position.side(player).iter().enumerate() {
            out.extend(std::iter::repeat_n(slot as u8, usize::from(n)));
        }
    }
    out
}

/// Checkers of `player` in `position`, off, on the board and on the bar.
#[must_use]
pub fn checkers(position: &Position, player: Player) -> u32 {
    position.side(player).iter().map(|&n| u32::from(n)).sum()
}

/// A position survives its own encodings: the setup, the Position ID and
/// the XGID all lead back to it.
pub fn check_codecs(position: &Position) {
    let variant = position.variant();
    assert_eq!(
        Position::from_setup(&position.to_setup(), variant),
        Ok(*position),
        "to_setup does not round-trip"
    );
    let id = PositionId::from_position(position);
    let text = id.to_string();
    let parsed: PositionId = text.parse().expect("our Position ID parses");
    assert_eq!(parsed, id, "Position ID {text} does not round-trip");
    assert_eq!(
        Position::from_setup(&parsed.to_setup(position.turn()), variant),
        Ok(*position),
        "Position ID {text} gives another position"
    );
    let xgid = Xgid::from_position(position);
    let text = xgid.to_string();
    let parsed: Xgid = text.parse().expect("our XGID parses");
    assert_eq!(parsed.to_string(), text, "XGID {text} does not round-trip");
    assert_eq!(
        Position::from_setup(&parsed.setup, variant),
        Ok(*position),
        "XGID {text} gives another position"
    );
}

/// How many plays of one list get the checks that regenerate moves.
pub const DEEP_CHECKS: usize = 2;

/// The resulting positions of the legal plays, as the mover's and the
/// opponent's sides.
fn results(position: &Position, plays: &bgref_core::PlayList) -> HashSet<([u8; 26], [u8; 26])> {
    let me = position.turn();
    plays
        .iter()
        .map(|play| {
            let after = position.after(play);
            (*after.side(me), *after.side(!me))
        })
        .collect()
}

/// The movegen invariants for one position and roll:
///
/// - the legal plays equal, as a set of resulting positions, those of the
///   naive generator in [`reference`] (which follows the rules text, not
///   the engine), and each is listed once;
/// - every play is a sequence of single legal moves using the dice, with
///   the hit marks right, and reaches the listed position;
/// - `is_legal` holds and `play` succeeds, giving the same position with
///   the turn passed; checkers are conserved for both players;
/// - the set does not depend on the order of the dice;
/// - every prefix of a play is a valid partial play, complete only at the
///   end; the play's notation parses back to the same play;
/// - the empty play is legal exactly when no play is;
/// - every resulting position survives its encodings ([`check_codecs`]).
///
/// The checks that generate moves again (`is_legal`, `play`,
/// `partial_play`, `to_play`) and the encodings run on at most
/// [`DEEP_CHECKS`] plays, spread over the list and shifted by `pick`
/// (a byte of the input), so a double with hundreds of plays costs
/// linear time, not quadratic; the rest runs on every play.
pub fn check_movegen(position: &Position, dice: Dice, pick: u8) {
    let me = position.turn();
    let n = u32::from(position.variant().checkers());
    let plays = position.legal_plays(dice);
    let swapped = position.legal_plays(Dice::new(dice.second(), dice.first()));
    let set = results(position, &plays);
    assert_eq!(
        set.len(),
        plays.len(),
        "a resulting position is listed twice"
    );
    assert_eq!(
        set,
        results(position, &swapped),
        "the legal set depends on the order of the dice"
    );

    check_outcome(position);
    if position.outcome().is_some() {
        assert!(plays.is_empty(), "plays listed in a finished game");
        assert!(!position.is_legal(&Play::EMPTY, dice));
        assert!(position.play(&Play::EMPTY, dice).is_err());
        return;
    }

    let expected = reference::legal_results(position, dice);
    if expected.is_empty() {
        assert!(plays.is_empty(), "plays listed where none is possible");
    } else {
        assert_eq!(set, expected, "the legal set differs from the reference");
    }

    let per_play = plays.moves_per_play();
    let stride = plays.len().div_ceil(DEEP_CHECKS).max(1);
    for (i, play) in plays.iter().enumerate() {
        assert_eq!(play.len(), per_play, "plays of different lengths");
        let after = position.after(play);
        assert_eq!(
            reference::replay(position, play.moves(), dice),
            Some((*after.side(me), *after.side(!me))),
            "{play:?} is not a sequence of single legal moves reaching the listed position"
        );
        assert_eq!(after.turn(), !me);
        assert_eq!(checkers(&after, Player::X), n, "x's checkers not conserved");
        assert_eq!(checkers(&after, Player::O), n, "o's checkers not conserved");
        assert!(
            after.pip_count(me) < position.pip_count(me),
            "a play that does not move forward"
        );
        check_outcome(&after);
        if (i + usize::from(pick)) % stride != 0 {
            continue;
        }
        assert!(position.is_legal(play, dice), "{play:?} is not legal");
        let (next, matched) = position.play(play, dice).expect("a listed play is legal");
        assert_eq!(next, after, "play and after disagree for {play:?}");
        assert_eq!(position.after(&matched), next);

        for k in 0..=play.len() {
            let partial = position
                .partial_play(&play.moves()[..k], dice)
                .expect("a prefix of a legal play is a partial play");
            assert!(partial.completions >= 1);
            assert_eq!(partial.complete, k == play.len(), "prefix {k} of {play:?}");
            assert_eq!(partial.moves.len(), k);
        }

        let text = MoveText::format(play);
        let parsed: MoveText = text.parse().expect("our notation parses");
        assert_eq!(parsed.to_string(), text);
        let again = parsed
            .to_play(position, dice)
            .expect("our notation resolves");
        assert_eq!(position.after(&again), next, "{text} names another play");

        check_codecs(&next);
    }
    if plays.is_empty() {
        assert!(position.is_legal(&Play::EMPTY, dice));
        let (next, _) = position.play(&Play::EMPTY, dice).expect("the pass");
        assert_eq!(next, position.swap_turn());
    } else {
        assert!(!position.is_legal(&Play::EMPTY, dice));
        assert!(position.play(&Play::EMPTY, dice).is_err());
    }
}

/// `outcome()` agrees with the rules text ([`reference::outcome`]).
pub fn check_outcome(position: &Position) {
    assert_eq!(
        position.outcome().map(|o| (o.winner, o.result)),
        reference::outcome(position),
        "wrong outcome for {position:?}"
    );
}

/// Arbitrary moves never panic `is_legal`, `play` or `partial_play`, and
/// agree with the legal list.
pub fn check_arbitrary_play(position: &Position, dice: Dice, moves: &[Move]) {
    let Some(play) = Play::new(moves) else {
        return;
    };
    let legal = position.is_legal(&play, dice);
    match position.play(&play, dice) {
        Ok((next, _)) => {
            assert!(legal, "play accepts what is_legal refuses: {play:?}");
            let plays = position.legal_plays(dice);
            if plays.is_empty() {
                assert_eq!(next, position.swap_turn());
            } else {
                assert!(plays.iter().any(|p| position.after(p) == next));
            }
        }
        Err(reason) => {
            assert!(!legal, "is_legal accepts what play refuses: {play:?}");
            assert!(!reason.to_string().is_empty());
        }
    }
    if let Ok(partial) = position.partial_play(moves, dice) {
        assert!(partial.completions >= 1);
        assert_eq!(partial.moves.len(), moves.len());
    }
}

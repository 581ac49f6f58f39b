//! Property tests: every generated play is legal and applies to the listed
//! position, checkers are conserved, codecs round-trip, notation parses
//! back to the same play, and no parser panics on any input.

use bgref_core::notation::fibs::FibsBoard;
use bgref_core::notation::match_id::MatchId;
use bgref_core::notation::move_text::MoveText;
use bgref_core::notation::position_id::PositionId;
use bgref_core::notation::xgid::Xgid;
use bgref_core::{BackgammonVariant, ByPlayer, Dice, Die, Move, Player, Point, Position, Setup};
use proptest::prelude::*;

/// A random valid position: each checker on a random place (off, a point
/// or the bar); an o checker that would share a point with x goes to o's bar.
fn position() -> impl Strategy<Value = Position> {
    (
        prop::sample::select(BackgammonVariant::ALL.to_vec()),
        prop::collection::vec(0u8..26, 15),
        prop::collection::vec(0u8..26, 15),
        any::<bool>(),
        // Bias towards the home board so bear-offs happen often.
        any::<bool>(),
    )
        .prop_filter_map("a finished game", |(variant, xs, os, o_turn, home)| {
            let n = usize::from(variant.checkers());
            let mut setup = Setup::empty(if o_turn { Player::O } else { Player::X });
            let mut off = ByPlayer { x: 0u8, o: 0u8 };
            for (player, slots) in [(Player::X, &xs), (Player::O, &os)] {
                for &slot in &slots[..n] {
                    let slot = if home && slot > 6 && slot < 25 {
                        slot % 7
                    } else {
                        slot
                    };
                    match slot {
                        0 => off[player] += 1,
                        25 => setup.bar[player] += 1,
                        p => {
                            let i = usize::from(p) - 1;
                            let clash = player == Player::O && setup.points.x[23 - i] > 0;
                            if clash {
                                setup.bar.o += 1;
                            } else {
                                setup.points[player][i] += 1;
                            }
                        }
                    }
                }
            }
            setup.off = Some(off);
            let pos = Position::from_setup(&setup, variant).ok()?;
            pos.outcome().is_none().then_some(pos)
        })
}

fn dice() -> impl Strategy<Value = Dice> {
    (1u8..=6, 1u8..=6).prop_map(|(a, b)| Dice::new(Die::new(a), Die::new(b)))
}

fn checkers(pos: &Position, player: Player) -> u32 {
    pos.side(player).iter().map(|&n| u32::from(n)).sum()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn every_generated_play_is_legal(pos in position(), dice in dice()) {
        let plays = pos.legal_plays(dice);
        let swapped = pos.legal_plays(Dice::new(dice.second(), dice.first()));
        prop_assert_eq!(plays.len(), swapped.len());
        let n = u32::from(pos.variant().checkers());
        for play in &plays {
            prop_assert!(pos.is_legal(play, dice), "{:?} not legal", play);
            let (next, matched) = pos.play(play, dice).expect("legal");
            prop_assert_eq!(next, pos.after(play));
            prop_assert_eq!(pos.after(&matched), next);
            prop_assert_eq!(next.turn(), !pos.turn());
            prop_assert_eq!(checkers(&next, Player::X), n);
            prop_assert_eq!(checkers(&next, Player::O), n);
            // The notation we write names this play again.
            let text = MoveText::format(play);
            let parsed: MoveText = text.parse().expect("our notation parses");
            prop_assert_eq!(parsed.to_string(), text.clone());
            let again = parsed.to_play(&pos, dice).expect("our notation resolves");
            prop_assert_eq!(pos.after(&again), next, "{}", text);
            // Every prefix is a valid partial play; the whole is complete.
            for k in 0..=play.len() {
                let partial = pos.partial_play(&play.moves()[..k], dice).expect("prefix");
                prop_assert!(partial.completions >= 1);
                prop_assert_eq!(partial.complete, k == play.len());
            }
        }
        if plays.is_empty() {
            prop_assert!(pos.is_legal(&bgref_core::Play::EMPTY, dice));
        } else {
            prop_assert!(!pos.is_legal(&bgref_core::Play::EMPTY, dice));
        }
    }

    #[test]
    fn position_id_and_xgid_round_trip(pos in position()) {
        let id = PositionId::from_position(&pos).to_string();
        let parsed: PositionId = id.parse().expect("our ID parses");
        prop_assert_eq!(Position::from_setup(&parsed.to_setup(pos.turn()), pos.variant()), Ok(pos));
        let xgid = Xgid::from_position(&pos).to_string();
        let parsed: Xgid = xgid.parse().expect("our XGID parses");
        prop_assert_eq!(parsed.to_string(), xgid);
        prop_assert_eq!(Position::from_setup(&parsed.setup, pos.variant()), Ok(pos));
    }

    #[test]
    fn fibs_board_round_trips(pos in position()) {
        let text = FibsBoard::from_position(&pos).to_string();
        let parsed: FibsBoard = text.parse().expect("our FIBS board parses");
        prop_assert_eq!(parsed.to_string(), text.clone());
        prop_assert_eq!(Position::from_setup(&parsed.setup, pos.variant()), Ok(pos));
        // Any field flipped to a non-number is refused, never a panic.
        let _ = text.replacen(":0:", ":?:", 1).parse::<FibsBoard>();
    }

    #[test]
    fn illegal_plays_are_refused_without_panic(pos in position(), dice in dice(),
            moves in prop::collection::vec((0u8..=25, 0u8..=25), 0..5)) {
        let moves: Vec<Move> = moves.iter().map(|&(f, t)| Move::new(Point::new(f), Point::new(t))).collect();
        if let Some(play) = bgref_core::Play::new(&moves) {
            let legal = pos.is_legal(&play, dice);
            match pos.play(&play, dice) {
                Ok((next, _)) => {
                    prop_assert!(legal);
                    let plays = pos.legal_plays(dice);
                    if plays.is_empty() {
                        prop_assert_eq!(next, pos.swap_turn());
                    } else {
                        prop_assert!(plays.iter().any(|p| pos.after(p) == next));
                    }
                }
                Err(reason) => {
                    prop_assert!(!legal);
                    prop_assert!(!reason.to_string().is_empty());
                }
            }
            let _ = pos.partial_play(&moves, dice);
        }
    }

    #[test]
    fn parsers_never_panic(s in "\\PC{0,80}", pos in position(), dice in dice()) {
        let _ = s.parse::<PositionId>();
        let _ = s.parse::<Xgid>();
        let _ = s.parse::<FibsBoard>();
        let _ = s.parse::<MatchId>();
        let _ = s.parse::<Dice>();
        let _ = s.parse::<Point>();
        let _ = s.parse::<BackgammonVariant>();
        if let Ok(text) = s.parse::<MoveText>() {
            let _ = text.to_play(&pos, dice);
        }
    }

    #[test]
    fn notation_like_strings_never_panic(s in "([0-9]{1,2}|bar|off)(/([0-9]{1,2}|bar|off)\\*?){1,3}(\\([0-9]\\))?( ([0-9]{1,2}|bar)/([0-9]{1,2}|off)\\*?){0,3}",
            pos in position(), dice in dice()) {
        if let Ok(text) = s.parse::<MoveText>() {
            let _ = text.to_play(&pos, dice);
            prop_assert_eq!(text.to_string().parse::<MoveText>(), Ok(text));
        }
    }

    #[test]
    fn id_like_strings_never_panic(s in "[A-Za-z0-9+/]{14}", m in "[A-Za-z0-9+/]{12}",
            x in "XGID=[-a-pA-P]{26}:[0-9]{1,2}:-?[01]:-?1:([0-6]{2}|D|B|R):[0-9]{1,3}:[0-9]{1,3}:[0-3]:[0-9]{1,2}:[0-9]{1,2}") {
        if let Ok(id) = s.parse::<PositionId>() {
            let _ = Position::from_setup(&id.to_setup(Player::X), BackgammonVariant::Standard);
        }
        if let Ok(id) = m.parse::<MatchId>() {
            // The writer puts the larger die first, as gnubg does; otherwise identical.
            let again: MatchId = id.to_string().parse().expect("our Match ID parses");
            prop_assert_eq!(again.to_string(), id.to_string());
        }
        if let Ok(xgid) = x.parse::<Xgid>() {
            let _ = Position::from_setup(&xgid.setup, BackgammonVariant::Standard);
        }
    }
}

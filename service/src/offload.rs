//! Heavy requests off the runtime's threads.
//!
//! A `/legal-moves` request of 140 bytes can ask for 1 828 plays (a 1 MB
//! answer, about 3 ms of CPU in a release build, 250 ms in a debug one).
//! Computed on the runtime's worker threads (one per core), a flood of
//! them queued everything else behind them: with 500 such requests in
//! flight a release build answered `/healthz` in 0.5 s (median) to 1.9 s,
//! and in a debug build beyond the probes' 2 s budget
//! (`tests/tests/hardening.rs`,
//! `huge_answers_do_not_hold_up_probes_or_small_requests`).
//!
//! So a request whose answer may be large runs on tokio's blocking pool,
//! at most one per core at a time ([`run`]): the workers stay free for
//! probes, small requests and I/O, and the operating system shares the
//! cores between both. Which requests may be large is estimated before any
//! work ([`legal_moves_may_be_heavy`]), so that an ordinary request pays
//! one comparison and runs in place as before.
//!
//! `/games/act` (gRPC `Act`) is such a request too: a 278-byte action whose
//! answer's view shows the plays of a doubles roll, each in every encoding
//! (up to some 1 700 plays, 900 KB). [`game_view_may_be_heavy`] applies the
//! same test to the roll the action leads to, before the action is taken.

use std::future::Future;
use std::pin::Pin;
use std::sync::LazyLock;

use tokio::sync::Semaphore;

use bgref_core::verify::Roller;
use bgref_core::{Action, Dice, GameState, Phase, Position};

use crate::api::input;
use crate::api::moves::TurnInput;

/// The heavy requests computed at once: one per core.
static SLOTS: LazyLock<Semaphore> = LazyLock::new(|| {
    Semaphore::new(std::thread::available_parallelism().map_or(2, std::num::NonZero::get))
});

/// A doubles roll moved from at least this many points (the bar counts as
/// one) may have many plays. Worst cases over the 40 000 positions of the
/// gnubg corpus and the movegen benchmark set: 362 plays from 7 points,
/// 460 from 8, 597 from 9, 1 024 from 12; the constructed 15-point case of
/// the tests has 1 828. Any other roll has at most 126 (a few tenths of a
/// millisecond in a release build): it runs in place.
const HEAVY_FROM_POINTS: usize = 8;

/// Most plays of a roll that is not doubles (see [`HEAVY_FROM_POINTS`]): a
/// view showing more was a doubles roll's, and is written out off the
/// runtime's threads too ([`answer_is_heavy`]).
const MOST_PLAYS_IN_PLACE: usize = 126;

/// Whether an answer showing `plays` legal plays is large enough to be
/// written (serialized) on the blocking pool: more than any roll but a
/// doubles roll has.
#[inline]
pub fn answer_is_heavy(plays: usize) -> bool {
    plays > MOST_PLAYS_IN_PLACE
}

/// Runs `work` on the blocking pool once one of the heavy slots (one per
/// core) is free, in the current span; the wait ends with the request's
/// time limit like any other. Once started, the work runs to its end even
/// if the client has gone; the slot keeps the number of such runs bounded.
///
/// The future is boxed: a caller's own future grows by a pointer only, so
/// that the ordinary requests, which never take this path, do not pay for
/// it (a larger handler future measured 0.3 % more instructions per small
/// request under callgrind).
pub fn run<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Pin<Box<dyn Future<Output = T> + Send>> {
    #[cfg(test)]
    tests::RUNS.with(|runs| runs.set(runs.get() + 1));
    Box::pin(async move {
        // Never closed, so the error cannot happen; without a permit the
        // work would still run.
        let permit = SLOTS.acquire().await.ok();
        let span = tracing::Span::current();
        let joined = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            span.in_scope(work)
        })
        .await;
        match joined {
            Ok(value) => value,
            // A panic goes on up to the handler's panic layer (a 500 problem).
            Err(err) => std::panic::resume_unwind(
                err.try_into_panic()
                    .unwrap_or_else(|err| Box::new(err.to_string())),
            ),
        }
    })
}

/// Whether a legal-moves request may have a large answer: a doubles roll
/// (given, or the XGID's when none is given) with the side on roll's
/// checkers on at least eight points (the bar counts as one; see the
/// figures beside `HEAVY_FROM_POINTS`), or any doubles roll of Plakoto,
/// Fevga or Long Nardy. Only a doubles roll reads the position
/// (a second time; the operation reads it again), and a request that does
/// not read is answered in place with its error.
#[inline]
pub fn legal_moves_may_be_heavy(turn: &TurnInput) -> bool {
    match turn.dice.as_deref() {
        Some([first, second]) if first != second => false,
        Some([_, _]) | None => doubles_may_be_heavy(turn),
        Some(_) => false,
    }
}

/// [`legal_moves_may_be_heavy`] for a doubles roll, or none given (then the
/// XGID's roll decides); kept out of line, away from the common path.
#[inline(never)]
fn doubles_may_be_heavy(turn: &TurnInput) -> bool {
    let Some(variant) = turn.variant.board() else {
        return true;
    };
    let Some(Ok(read)) = turn
        .position
        .as_ref()
        .map(|position| input::position(position, variant, "position"))
    else {
        return false;
    };
    if turn.dice.is_none() && !read.xgid_dice().is_some_and(bgref_core::Dice::is_double) {
        return false;
    }
    spread_wide(&read.position)
}

/// Whether the side on roll has checkers on at least
/// [`HEAVY_FROM_POINTS`] points (the bar counts as one).
fn spread_wide(position: &Position) -> bool {
    let side = position.side(position.turn());
    side[1..].iter().filter(|&&n| n > 0).count() >= HEAVY_FROM_POINTS
}

/// Whether the view that answers `action` on `state` may be large: the
/// action leads to a move due with a doubles roll (a roll, whose dice the
/// match's `roller` gives before it is taken, or a rejected resignation
/// with doubles rolled) and, as for [`legal_moves_may_be_heavy`], the side
/// on roll has checkers on at least eight points, or the game is Plakoto,
/// Fevga or Long Nardy. Anything else (another action, a refused one, the
/// opening roll, which is never doubles) is answered in place.
#[inline]
pub fn game_view_may_be_heavy(state: &GameState, action: &Action, roller: &Roller) -> bool {
    let rolls = match (state.phase(), action) {
        (Phase::RollOrDouble, Action::Roll) => true,
        (Phase::AnswerResignation, Action::Reject) => false,
        _ => return false,
    };
    // Plakoto, Fevga and Long Nardy: not on the backgammon board. Asked
    // before the roll, whose two HMAC blocks most positions then skip.
    if !state.position().board().is_none_or(spread_wide) {
        return false;
    }
    let dice = if rolls {
        Some(roller.roll(
            state.client_seed(),
            state.game(),
            state.turn().saturating_add(1),
        ))
    } else {
        state.dice()
    };
    dice.is_some_and(Dice::is_double)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::input::{BoardInput, PositionInput};
    use bgref_core::tables::Game;
    use bgref_core::{BackgammonVariant, ByPlayer, Variant};

    fn turn(points: [i64; 24], dice: Option<[i64; 2]>, variant: Variant) -> TurnInput {
        TurnInput {
            variant,
            position: Some(PositionInput {
                board: Some(BoardInput {
                    points: points.to_vec(),
                    bar: ByPlayer { x: 0, o: 0 },
                    off: None,
                    turn: Some(bgref_core::Player::X),
                    pins: None,
                }),
                ..PositionInput::default()
            }),
            dice: dice.map(|d| d.to_vec()),
            game_start: false,
            tables_rules: None,
        }
    }

    /// x's checkers one on each of the points 10 to 24, o's all on x's 1.
    fn spread() -> [i64; 24] {
        let mut points = [0; 24];
        points[9..24].fill(1);
        points[0] = -15;
        points
    }

    fn start() -> [i64; 24] {
        let mut points = [0; 24];
        for (i, n) in [(5, 5), (7, 3), (12, 5), (23, 2)] {
            points[i] = n;
        }
        for (i, n) in [(0, -2), (11, -5), (16, -3), (18, -5)] {
            points[i] = n;
        }
        points
    }

    #[test]
    fn only_doubles_from_many_points_are_heavy() {
        let bg = Variant::Standard;
        assert!(legal_moves_may_be_heavy(&turn(spread(), Some([3, 3]), bg)));
        assert!(!legal_moves_may_be_heavy(&turn(spread(), Some([3, 1]), bg)));
        assert!(!legal_moves_may_be_heavy(&turn(start(), Some([3, 3]), bg)));
        assert!(!legal_moves_may_be_heavy(&turn(start(), Some([6, 5]), bg)));
        // Malformed: refused in place.
        let mut one_die = turn(spread(), None, bg);
        one_die.dice = Some(vec![3]);
        assert!(!legal_moves_may_be_heavy(&one_die));
        let mut broken = turn(spread(), Some([3, 3]), bg);
        broken.position = None;
        assert!(!legal_moves_may_be_heavy(&broken));
        // Portes is played on the backgammon board.
        let portes = Variant::Portes;
        assert!(legal_moves_may_be_heavy(&turn(
            spread(),
            Some([2, 2]),
            portes
        )));
        // The tables engine's games: any doubles roll.
        let nardy = Variant::LongNardy;
        assert!(legal_moves_may_be_heavy(&turn(
            start(),
            Some([2, 2]),
            nardy
        )));
        assert!(!legal_moves_may_be_heavy(&turn(
            start(),
            Some([2, 1]),
            nardy
        )));
    }

    #[test]
    fn the_xgid_roll_counts_when_no_dice_are_given() {
        let bg = Variant::Standard;
        let board = turn(spread(), None, bg).position.unwrap();
        let read = input::position(&board, BackgammonVariant::Standard, "position").unwrap();
        let id = bgref_core::notation::xgid::Xgid::from_position(&read.position).to_string();
        let xgid = |dice: &str| {
            let mut fields: Vec<&str> = id.split(':').collect();
            fields[4] = dice;
            TurnInput {
                position: Some(PositionInput {
                    xgid: Some(fields.join(":")),
                    ..PositionInput::default()
                }),
                ..turn(start(), None, bg)
            }
        };
        assert!(legal_moves_may_be_heavy(&xgid("33")));
        assert!(!legal_moves_may_be_heavy(&xgid("31")));
        assert!(!legal_moves_may_be_heavy(&xgid("00")));
    }

    /// A money game at `turn`, x on roll before rolling, on `points`.
    fn game_on(points: [i64; 24], at: u32) -> GameState {
        let bg = Variant::Standard;
        let board = turn(points, None, bg).position.unwrap();
        let read = input::position(&board, BackgammonVariant::Standard, "position").unwrap();
        let mut state = bgref_core::BackgammonGame::new(
            BackgammonVariant::Standard,
            bgref_core::CubeRules::DEFAULT,
            bgref_core::MatchState::MONEY,
            "s".into(),
        );
        state.position = read.position;
        state.phase = Phase::RollOrDouble;
        state.turn = at;
        GameState::Backgammon(state)
    }

    /// The first turn from 1 whose next roll is (or is not) doubles.
    fn turn_rolling(roller: &Roller, doubles: bool) -> u32 {
        (1..)
            .find(|t| roller.roll("s", 1, t + 1).is_double() == doubles)
            .unwrap()
    }

    #[test]
    fn only_game_views_of_doubles_from_many_points_are_heavy() {
        let roller = Roller::new(&[3; 32]);
        let (doubles, other) = (turn_rolling(&roller, true), turn_rolling(&roller, false));
        let heavy =
            |state: &GameState, action: Action| game_view_may_be_heavy(state, &action, &roller);
        assert!(heavy(&game_on(spread(), doubles), Action::Roll));
        assert!(!heavy(&game_on(spread(), other), Action::Roll));
        assert!(!heavy(&game_on(start(), doubles), Action::Roll));
        assert!(!heavy(&game_on(spread(), doubles), Action::Double));
        // A resignation rejected after a doubles roll shows the move again.
        let GameState::Backgammon(mut rolled) = game_on(spread(), doubles) else {
            unreachable!()
        };
        rolled.phase = Phase::AnswerResignation;
        rolled.dice = Some(Dice::new(bgref_core::Die::new(3), bgref_core::Die::new(3)));
        let rolled = GameState::Backgammon(rolled);
        assert!(heavy(&rolled, Action::Reject));
        assert!(!heavy(&rolled, Action::Accept));
        // The tables engine's games: any doubles roll.
        let mut plakoto = bgref_core::tables::TablesGameState::new(
            bgref_core::tables::TablesRules::DEFAULT,
            bgref_core::tables::TablesMatch::new(
                bgref_core::tables::TablesSeries::Single(Game::Plakoto),
                3,
            ),
            "s".into(),
        );
        plakoto.phase = Phase::RollOrDouble;
        plakoto.turn = doubles;
        assert!(heavy(&GameState::Tables(plakoto.clone()), Action::Roll));
        plakoto.turn = other;
        assert!(!heavy(&GameState::Tables(plakoto), Action::Roll));
    }

    thread_local! {
        /// The calls of [`run`] made on this thread (a test's own: each
        /// test runs on a thread of its own, its runtime too).
        pub(super) static RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// `/games/act` and gRPC `Act` (both through [`crate::referee::act`])
    /// compute a heavy view on the blocking pool ([`run`]), a light one in
    /// place. (Counted, not told by whether the first poll is pending: a
    /// blocking thread may finish the work before that poll on a loaded
    /// machine.)
    #[tokio::test]
    async fn heavy_game_views_run_on_the_blocking_pool() {
        use crate::api::games::{self, ActInput, ActionInput};

        let keys = crate::keys::DiceKeys::from_parts(&[5u8; 32], &[9u8; 32], None).unwrap();
        let roller = Roller::new(&keys.server_seed("m"));
        let seat = games::seats(&keys, "m", "s").x;
        let state = crate::state::AppState::new(keys);
        let keys = &state.dice;
        let roll_on = |game: GameState| ActInput {
            state: games::encode(keys, &game, None, "m", &[0; 32]).0,
            player: Some(bgref_core::Player::X),
            action: Some(ActionInput::Roll),
            match_id: None,
            seat: Some(seat.clone()),
            fields: None,
            sign_roll: false,
        };
        for (points, heavy) in [(spread(), true), (start(), false)] {
            let input = roll_on(game_on(points, turn_rolling(&roller, true)));
            let runs = RUNS.with(std::cell::Cell::get);
            let acted = crate::referee::act(&state, &input).await.unwrap();
            assert_eq!(RUNS.with(std::cell::Cell::get) - runs, usize::from(heavy));
            assert_eq!(answer_is_heavy(acted.game.plays_shown()), heavy);
        }
    }

    #[tokio::test]
    async fn heavy_work_runs_on_the_blocking_pool() {
        let here = std::thread::current().id();
        assert_ne!(run(move || std::thread::current().id()).await, here);
        let panicked = tokio::spawn(run(|| panic!("boom"))).await;
        assert!(panicked.unwrap_err().is_panic());
    }
}

//! [`Move`] (one checker, one die or a bear-off) and [`Play`] (a whole turn).

use core::fmt;

use crate::dice::Die;
use crate::point::Point;

/// One checker moved by one die, from the mover's own view (25 = bar,
/// 0 = off), with whether it hit a blot where it landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    from: Point,
    to: Point,
    hit: bool,
}

impl Move {
    /// A move from `from` to `to`, not marked as a hit.
    #[must_use]
    pub const fn new(from: Point, to: Point) -> Move {
        Move {
            from,
            to,
            hit: false,
        }
    }

    pub(crate) const fn with_hit(from: Point, to: Point, hit: bool) -> Move {
        Move { from, to, hit }
    }

    /// Where the checker starts.
    #[must_use]
    pub const fn from(self) -> Point {
        self.from
    }

    /// Where the checker lands.
    #[must_use]
    pub const fn to(self) -> Point {
        self.to
    }

    /// Whether the checker hit an opposing blot where it landed.
    #[must_use]
    pub const fn is_hit(self) -> bool {
        self.hit
    }
}

/// A whole turn: up to four moves, in the order played. The empty play is
/// the pass of a player who cannot move.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Play {
    moves: [Move; 4],
    len: u8,
}

impl Play {
    /// The empty play (no legal move: the turn passes).
    pub const EMPTY: Play = Play {
        moves: [Move::new(Point::OFF, Point::OFF); 4],
        len: 0,
    };

    /// A play from up to four moves; `None` when there are more.
    #[must_use]
    pub fn new(moves: &[Move]) -> Option<Play> {
        if moves.len() > 4 {
            return None;
        }
        let mut play = Play::EMPTY;
        play.moves[..moves.len()].copy_from_slice(moves);
        play.len = moves.len() as u8;
        Some(play)
    }

    /// The moves in the order played.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves[..usize::from(self.len)]
    }

    /// The moves in the order played, to mark hits in place (the tables
    /// generator's pins).
    pub(crate) fn moves_mut(&mut self) -> &mut [Move] {
        &mut self.moves[..usize::from(self.len)]
    }

    /// All four move slots, the first [`Play::len`] of them the moves in
    /// the order played (the rest mean nothing): a fixed-size copy for the
    /// notation writer, where copying the slice costs a `memcpy` call.
    pub(crate) const fn move_slots(&self) -> [Move; 4] {
        self.moves
    }

    /// The points the play hits on, as bit `p` for point `p`.
    pub(crate) fn hit_mask(&self) -> u32 {
        self.moves()
            .iter()
            .filter(|m| m.is_hit())
            .fold(0, |acc, m| acc | 1 << m.to().get())
    }

    /// The number of moves (dice used).
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether this is the empty play.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends a move; the play must have fewer than four.
    #[inline(always)]
    pub(crate) fn push(&mut self, mv: Move) {
        debug_assert!(self.len < 4, "a play has at most four moves");
        // `& 3`: no bounds check on the generator's hot path.
        self.moves[usize::from(self.len & 3)] = mv;
        self.len += 1;
    }

    /// [`Play::push`] onto a play of `len` moves (fewer than four). The
    /// generator knows `len` at compile time (its search depth), so the
    /// store goes to a fixed offset.
    #[inline(always)]
    pub(crate) fn push_at(&mut self, len: usize, mv: Move) {
        debug_assert!(len < 4, "a play has at most four moves");
        debug_assert_eq!(usize::from(self.len), len);
        // `& 3`: no bounds check on the generator's hot path.
        self.moves[len & 3] = mv;
        self.len = (len + 1) as u8;
    }
}

// `Display` for `Play` (gnubg notation) lives beside the formatter in
// `notation/move_text.rs`.

impl fmt::Debug for Play {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.moves()).finish()
    }
}

/// Why a play is not legal, as the referee tells the player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalPlay {
    /// The game is over: nobody moves.
    GameOver,
    /// A move starts where the mover has no checker.
    NoChecker(Point),
    /// A move lands on (or passes through, as an intermediate landing point)
    /// a point held by two or more opposing checkers.
    Blocked(Point),
    /// A move starts elsewhere while a checker is still on the bar.
    MustEnterFirst,
    /// A checker is borne off while another stands outside the home board
    /// (on the point given, 25 meaning the bar).
    CannotBearOff(Point),
    /// A move's distance is not a die of the roll (nor a legal bear-off).
    DistanceNotRolled(Point, Point),
    /// A move goes backwards, stays put, or enters from somewhere but the bar.
    Backwards(Point, Point),
    /// Only one die was played but both can be.
    BothDiceCanBePlayed,
    /// Fewer moves were played than the roll allows (the number allowed).
    MoreMovesPossible(u8),
    /// Only the smaller die was played but the larger can be.
    LargerDieMustBePlayed,
    /// More moves than the dice allow.
    TooManyMoves,
    /// No move was given but a legal play exists.
    MustMove,
    /// A move is marked as a hit where no blot is hit.
    NoHit(Point),
    /// Moves were given but no move is possible with this roll.
    NoMovePossible,
    /// The checker that hit a blot on this point of the mover's home board
    /// moves on in the same turn (Tavla with
    /// [`crate::tables::HitAndRun::ForbiddenInHome`]).
    HitAndRun(Point),
    /// Not a legal play for this roll.
    NotLegal,
}

impl fmt::Display for IllegalPlay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            IllegalPlay::GameOver => f.write_str("the game is over"),
            IllegalPlay::NoChecker(p) => {
                write!(f, "no checker of the player on roll on {}", describe(p))
            }
            IllegalPlay::Blocked(p) => write!(f, "point {p} is blocked"),
            IllegalPlay::MustEnterFirst => f.write_str("a checker on the bar must enter first"),
            IllegalPlay::CannotBearOff(p) if p.is_bar() => {
                f.write_str("cannot bear off with a checker on the bar")
            }
            IllegalPlay::CannotBearOff(p) => {
                write!(f, "cannot bear off with a checker on the {p}-point")
            }
            IllegalPlay::DistanceNotRolled(from, to) => {
                write!(f, "{from}/{to} does not match the dice rolled")
            }
            IllegalPlay::Backwards(from, to) => write!(f, "{from}/{to} does not move toward home"),
            IllegalPlay::BothDiceCanBePlayed => f.write_str("both dice can be played"),
            IllegalPlay::MoreMovesPossible(n) => write!(f, "{n} moves can be played"),
            IllegalPlay::LargerDieMustBePlayed => f.write_str("the larger die must be played"),
            IllegalPlay::TooManyMoves => f.write_str("more moves than the dice allow"),
            IllegalPlay::MustMove => f.write_str("a legal play exists: the turn cannot be passed"),
            IllegalPlay::NoHit(p) => write!(f, "no blot is hit on point {p}"),
            IllegalPlay::NoMovePossible => {
                f.write_str("no move is possible with this roll: the play must be empty")
            }
            IllegalPlay::HitAndRun(p) => write!(
                f,
                "the checker that hit on point {p} of the home board may not move on this turn"
            ),
            IllegalPlay::NotLegal => f.write_str("not a legal play for this roll"),
        }
    }
}

fn describe(p: Point) -> impl fmt::Display {
    struct D(Point);
    impl fmt::Display for D {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self.0.get() {
                0 => f.write_str("off"),
                25 => f.write_str("the bar"),
                n => write!(f, "point {n}"),
            }
        }
    }
    D(p)
}

impl core::error::Error for IllegalPlay {}

/// What is known about an unfinished turn (moves entered one at a time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartialPlay {
    /// The moves given, as the legal play they begin (with their hits).
    pub moves: alloc::vec::Vec<Move>,
    /// Dice still to play after the moves given, largest first (empty when
    /// the moves already form a whole legal play).
    pub remaining: alloc::vec::Vec<Die>,
    /// Whether the moves given are already a whole legal play.
    pub complete: bool,
    /// How many distinct legal plays (by resulting position) start with the
    /// moves given.
    pub completions: usize,
}

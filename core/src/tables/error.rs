//! Errors of the tables engine: invalid setups and illegal plays.

use core::fmt;

use bitflags::bitflags;

use crate::Point;

bitflags! {
    /// Every reason a [`crate::tables::TablesSetup`] is not a valid
    /// position (several may hold).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct TablesPositionError: u8 {
        /// The game is Portes or Tavla, which [`crate::Position`] plays.
        const NOT_TABLES_GAME = 1 << 0;
        /// x does not have 15 checkers (on the board and borne off).
        const X_CHECKER_COUNT = 1 << 1;
        /// o does not have 15 checkers.
        const O_CHECKER_COUNT = 1 << 2;
        /// A point holds checkers of both players without a pin (Plakoto),
        /// or at all (Fevga, Long Nardy).
        const SHARED_POINT = 1 << 3;
        /// A pin mark where there is no single checker under opposing
        /// checkers, both players marked pinned on one point, or a pin in a
        /// game without pins.
        const BAD_PIN = 1 << 4;
        /// Both players have borne off every checker.
        const BOTH_FINISHED = 1 << 5;
    }
}

impl TablesPositionError {
    /// One sentence per reason, in flag order.
    pub fn reasons(self) -> impl Iterator<Item = &'static str> {
        self.iter().map(|flag| match flag {
            TablesPositionError::NOT_TABLES_GAME => {
                "portes and tavla are played on the backgammon position"
            }
            TablesPositionError::X_CHECKER_COUNT => "x does not have 15 checkers",
            TablesPositionError::O_CHECKER_COUNT => "o does not have 15 checkers",
            TablesPositionError::SHARED_POINT => {
                "a point holds checkers of both players without a pin"
            }
            TablesPositionError::BAD_PIN => {
                "a pin mark does not mark one checker under opposing checkers"
            }
            _ => "both players have borne off every checker",
        })
    }
}

impl fmt::Display for TablesPositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, reason) in self.reasons().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(reason)?;
        }
        Ok(())
    }
}

impl core::error::Error for TablesPositionError {}

/// Why a play is not legal in Plakoto, Fevga or Long Nardy, as the referee
/// tells the player. Points are in the mover's numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TablesIllegalPlay {
    /// The game is over: nobody moves.
    GameOver,
    /// A move starts where the mover has no checker (the bar, 25, never
    /// holds one in these games).
    NoChecker(Point),
    /// A move starts from a point where the mover's only checker is pinned
    /// (Plakoto).
    Pinned(Point),
    /// A move lands on (or touches down on) a point the mover may not use:
    /// held by the opponent (two or more checkers in Plakoto, or any pinner;
    /// one checker in Fevga and Long Nardy).
    Blocked(Point),
    /// A checker is borne off while another stands outside the home board
    /// (on the point given).
    CannotBearOff(Point),
    /// A checker is borne off while one of the mover's checkers is pinned
    /// (Plakoto).
    PinnedCannotBearOff,
    /// A move's distance is not a die of the roll (nor a legal bear-off).
    DistanceNotRolled(Point, Point),
    /// A move goes backwards or stays put.
    Backwards(Point, Point),
    /// A second checker leaves the head this turn (Long Nardy).
    HeadRule,
    /// A second checker leaves the start before the first has passed the
    /// opponent's starting point (Fevga).
    FirstCheckerRule,
    /// The move would hold all six points of the mover's starting quarter
    /// (Fevga).
    StartingQuarter(Point),
    /// The move would make a six-point prime with no opposing checker
    /// ahead of it (Fevga, Long Nardy).
    Prime(Point),
    /// The mover began the turn with a prime that blocks the opponent
    /// fully and a legal play opens it, but this play keeps such a prime
    /// (Fevga's usual prime rule).
    MustOpenPrime,
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
    /// Moves were given but no move is possible with this roll.
    NoMovePossible,
    /// Not a legal play for this roll.
    NotLegal,
}

impl fmt::Display for TablesIllegalPlay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TablesIllegalPlay as E;
        match *self {
            E::GameOver => f.write_str("the game is over"),
            E::NoChecker(p) => write!(f, "no checker of the player on roll on point {p}"),
            E::Pinned(p) => write!(f, "the checker on point {p} is pinned"),
            E::Blocked(p) => write!(f, "point {p} is blocked"),
            E::CannotBearOff(p) => write!(f, "cannot bear off with a checker on the {p}-point"),
            E::PinnedCannotBearOff => f.write_str("cannot bear off while a checker is pinned"),
            E::DistanceNotRolled(from, to) => {
                write!(f, "{from}/{to} does not match the dice rolled")
            }
            E::Backwards(from, to) => write!(f, "{from}/{to} does not move toward home"),
            E::HeadRule => f.write_str("only one checker may leave the head this turn"),
            E::FirstCheckerRule => f.write_str(
                "the first checker must pass the opponent's starting point before another leaves the start",
            ),
            E::StartingQuarter(p) => write!(
                f,
                "moving to point {p} would hold all six points of the starting quarter"
            ),
            E::Prime(p) => write!(
                f,
                "moving to point {p} would make a six-point prime with no opposing checker ahead of it"
            ),
            E::MustOpenPrime => f.write_str(
                "the opponent is fully blocked by a six-point prime: a play that opens it must be played",
            ),
            E::BothDiceCanBePlayed => f.write_str("both dice can be played"),
            E::MoreMovesPossible(n) => write!(f, "{n} moves can be played"),
            E::LargerDieMustBePlayed => f.write_str("the larger die must be played"),
            E::TooManyMoves => f.write_str("more moves than the dice allow"),
            E::MustMove => f.write_str("a legal play exists: the turn cannot be passed"),
            E::NoMovePossible => {
                f.write_str("no move is possible with this roll: the play must be empty")
            }
            E::NotLegal => f.write_str("not a legal play for this roll"),
        }
    }
}

impl core::error::Error for TablesIllegalPlay {}

//! FIBS board strings: the `board:...` line the First Internet Backgammon
//! Server sends to clients in `boardstyle 3`, and that FIBS clients and bots
//! pass around.
//!
//! The format is described in the FIBS `rawboard` help
//! (<http://fibs.com/macfibs/help/fibsCommands/pages/rawboard.html>) and in
//! Evan McLean's *FIBS Client Protocol Detailed Specification*
//! (<http://www.fibs.com/fibs_interface.html>, "Board"): 53 colon-separated
//! tokens,
//!
//! ```text
//! board:NAME:NAME:LEN:GOT:GOT:B0:...:B25:TURN:D1:D2:D3:D4:CUBE:MAY:MAY:DOUBLED:
//! COLOUR:DIRECTION:HOME:BAR:ONHOME:ONHOME:ONBAR:ONBAR:CANMOVE:FORCED:CRAWFORD:REDOUBLES
//! ```
//!
//! the literal `board`; the player's and the opponent's names; the match
//! length (9999: unlimited); both scores; 26 signed board counts (O's
//! checkers positive, X's negative; 0 and 25 are the bars); whose turn
//! (-1 X, +1 O, 0 game over); the player's and the opponent's dice; the
//! cube; whether each may double; whether the player was just doubled; the
//! player's colour (-1 X, +1 O); the player's direction (-1: from 24 to 1,
//! +1: from 1 to 24); home and bar (0 or 25, from the direction); checkers
//! borne off and on the bar, the player's first; then four tokens about the
//! move in progress.
//!
//! bgref reads the *player* (the first name) as x and the opponent as o.
//! With direction -1 the player's point `k` is board index `k` and the
//! opponent's is `25 - k`; with direction +1 the other way round.
//!
//! Parser leniency: surrounding white space is ignored; exactly 53 tokens
//! are required, the first `board`, names free (no `:`), every other token
//! an integer. Only the board counts, turn, colour, direction and the
//! borne-off and bar counts make the [`Setup`]; the bar counts come from
//! the on-bar tokens (board indexes 0 and 25 are not read), and a turn of 0
//! (game over) reads as the player on roll. Match length, scores, cube,
//! the dice of the player on turn (the player's pair when the turn is the
//! player's, else the opponent's; a pair that is not two dice 1-6 reads as
//! not rolled), the two may-double flags, the doubled flag and the
//! Crawford flag (each nonzero: set) are kept in [`FibsBoard`]; the move
//! tokens (can-move, forced, redoubles) must be integers and are otherwise
//! not read. Whether the checkers make a legal position is
//! [`crate::Position::from_setup`]'s business.
//!
//! The writer emits names `x` and `o`, the player as O (colour +1,
//! direction -1, home 0, bar 25, as FIBS shows its own player), the bars
//! also at board indexes 25 (player) and 0 (opponent), the dice in the pair
//! of the player on turn (the other pair `0:0`; both `0:0` when not
//! rolled), the may-double, doubled and Crawford flags as
//! [`FibsBoard`] holds them, and zeros for the other move tokens
//! (can-move, forced, redoubles). A board from a position alone
//! ([`FibsBoard::from_position`]) has no dice, both players allowed to
//! double, nobody doubled and no Crawford game.

use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::cube::CubeOwner;
use crate::dice::{Dice, Die};
use crate::digits::{Text, colon_token};
use crate::player::{ByPlayer, Player};
use crate::position::Position;
use crate::setup::{BYTES, Setup};

/// The match length FIBS writes for an unlimited match (money play).
pub const UNLIMITED: u32 = 9999;

const TOKENS: usize = 53;

/// What a FIBS board string says about the game, as bgref reads it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FibsBoard {
    /// The checkers (player x, opponent o), bar, borne off and turn.
    pub setup: Setup,
    /// The match length; [`UNLIMITED`] for money play.
    pub match_length: u32,
    /// Each player's score.
    pub score: ByPlayer<u32>,
    /// The number on the cube.
    pub cube: u32,
    /// The dice of the player on turn, once rolled.
    pub dice: Option<Dice>,
    /// Whether each player may double (FIBS's two may-double tokens, the
    /// player's first).
    pub may_double: ByPlayer<bool>,
    /// The player (x) has been doubled and must answer (FIBS has no
    /// token for a double offered to the opponent).
    pub doubled: bool,
    /// This game is the Crawford game.
    pub crawford: bool,
}

/// Error for a string that is not a FIBS board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseFibsError {
    /// Not 53 colon-separated tokens starting with `board`.
    Tokens,
    /// A token that must be an integer is not one.
    Number,
    /// A board count, bar or borne-off count out of range (more than 15
    /// checkers, or a checker of the wrong colour's sign).
    Count,
    /// Colour or direction not -1 or +1, or a turn not -1, 0 or +1.
    Orientation,
    /// A negative match length, score or cube.
    Match,
}

impl fmt::Display for ParseFibsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseFibsError::Tokens => {
                "a fibs board is 53 colon-separated tokens starting with board"
            }
            ParseFibsError::Number => "a fibs board token is not an integer",
            ParseFibsError::Count => "a fibs board checker count is out of range",
            ParseFibsError::Orientation => {
                "fibs board colour and direction must be -1 or 1, and turn -1, 0 or 1"
            }
            ParseFibsError::Match => {
                "fibs board match length, scores and cube must not be negative"
            }
        })
    }
}

impl core::error::Error for ParseFibsError {}

impl FromStr for FibsBoard {
    type Err = ParseFibsError;

    fn from_str(s: &str) -> Result<FibsBoard, ParseFibsError> {
        let mut tokens = [""; TOKENS];
        let mut n = 0;
        for token in s.trim().split(':') {
            *tokens.get_mut(n).ok_or(ParseFibsError::Tokens)? = token;
            n += 1;
        }
        if n != TOKENS || tokens[0] != "board" {
            return Err(ParseFibsError::Tokens);
        }
        let mut numbers = [0i32; TOKENS];
        for (i, token) in tokens.iter().enumerate().skip(3) {
            numbers[i] = token.trim().parse().map_err(|_| ParseFibsError::Number)?;
        }
        let unsigned = |i: usize| u32::try_from(numbers[i]).map_err(|_| ParseFibsError::Match);
        let count = |i: usize| {
            u8::try_from(numbers[i])
                .ok()
                .filter(|&c| c <= 15)
                .ok_or(ParseFibsError::Count)
        };
        let (colour, direction, turn) = (numbers[41], numbers[42], numbers[32]);
        if !matches!(colour, -1 | 1) || !matches!(direction, -1 | 1) || !matches!(turn, -1..=1) {
            return Err(ParseFibsError::Orientation);
        }
        let mut setup = Setup::empty(if turn == -colour {
            Player::O
        } else {
            Player::X
        });
        for index in 1..=24usize {
            let signed = numbers[6 + index];
            if signed == 0 {
                continue;
            }
            let checkers = u8::try_from(signed.unsigned_abs())
                .ok()
                .filter(|&c| c <= 15)
                .ok_or(ParseFibsError::Count)?;
            // The player's own numbering of this index, and the opponent's.
            let mine = if direction == -1 { index } else { 25 - index };
            if signed.signum() == colour {
                setup.points.x[mine - 1] = checkers;
            } else {
                setup.points.o[25 - mine - 1] = checkers;
            }
        }
        setup.off = Some(ByPlayer {
            x: count(45)?,
            o: count(46)?,
        });
        setup.bar = ByPlayer {
            x: count(47)?,
            o: count(48)?,
        };
        // The dice of the player on turn: the player's pair (tokens 33
        // and 34) or the opponent's (35 and 36).
        let first = if setup.turn == Player::X { 33 } else { 35 };
        let die = |i: usize| {
            u8::try_from(numbers[i])
                .ok()
                .and_then(|d| Die::try_from(d).ok())
        };
        let dice = match (die(first), die(first + 1)) {
            (Some(a), Some(b)) => Some(Dice::new(a, b)),
            _ => None,
        };
        Ok(FibsBoard {
            setup,
            match_length: unsigned(3)?,
            score: ByPlayer {
                x: unsigned(4)?,
                o: unsigned(5)?,
            },
            cube: unsigned(37)?,
            dice,
            may_double: ByPlayer {
                x: numbers[38] != 0,
                o: numbers[39] != 0,
            },
            doubled: numbers[40] != 0,
            crawford: numbers[51] != 0,
        })
    }
}

/// The flags of a FIBS board in the game an XGID describes, with `turn`
/// on roll (see [`FibsBoard::in_game`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GameFlags {
    pub(crate) may_double: ByPlayer<bool>,
    pub(crate) doubled: bool,
    pub(crate) crawford: bool,
}

impl GameFlags {
    pub(crate) fn of(game: &super::xgid::Xgid, turn: Player) -> GameFlags {
        use super::xgid::XgidDice;
        let crawford = !game.is_money() && game.crawford;
        let cube_alive = !crawford && game.max_cube.get() > 1;
        let may = |p: Player| {
            cube_alive && [CubeOwner::Centre, CubeOwner::Player(p)].contains(&game.cube_owner)
        };
        GameFlags {
            may_double: ByPlayer {
                x: may(Player::X),
                o: may(Player::O),
            },
            doubled: match game.dice {
                XgidDice::DoubleOffered | XgidDice::Raccooned => turn == Player::O,
                XgidDice::Beavered => turn == Player::X,
                XgidDice::NotRolled | XgidDice::Rolled(_) => false,
            },
            crawford,
        }
    }

    /// The last four tokens: can-move, forced, Crawford, redoubles.
    pub(crate) const fn tail(&self) -> &'static [u8; 8] {
        if self.crawford {
            b":0:0:1:0"
        } else {
            b":0:0:0:0"
        }
    }
}

/// The FIBS match length of a game whose XGID match length is
/// `match_length`: the same, or [`UNLIMITED`] for 0 (money play).
#[must_use]
pub const fn match_length_of(match_length: u32) -> u32 {
    if match_length == 0 {
        UNLIMITED
    } else {
        match_length
    }
}

impl FibsBoard {
    /// The board of `position` in the game `game` describes (its `setup`
    /// is not read): its score, match length ([`match_length_of`]), cube
    /// value, dice (a rolled dice field), Crawford flag (match play only),
    /// who may double (nobody in the Crawford game or with a maximum cube
    /// of 1, else the centre's or the owner's players) and whether the
    /// player x has been doubled (a `D`, `B` or `R` dice field that leaves
    /// x to answer: `D` and `R` with o on turn, `B` with x on turn).
    #[must_use]
    pub fn in_game(position: &Position, game: &super::xgid::Xgid) -> FibsBoard {
        let flags = GameFlags::of(game, position.turn());
        FibsBoard {
            score: game.score,
            match_length: match_length_of(game.match_length),
            cube: game.cube_value.get(),
            dice: game.rolled_dice(),
            may_double: flags.may_double,
            doubled: flags.doubled,
            crawford: flags.crawford,
            ..FibsBoard::from_position(position)
        }
    }

    /// The board of `position` in money play (unlimited match, 0-0, cube 1).
    #[must_use]
    pub fn from_position(position: &Position) -> FibsBoard {
        let mut setup = position.to_setup();
        if setup.off.is_none() {
            let on_board = |p: Player| {
                setup
                    .points
                    .get(p)
                    .iter()
                    .map(|&n| u32::from(n))
                    .sum::<u32>()
                    + u32::from(*setup.bar.get(p))
            };
            let checkers = u32::from(position.variant().checkers());
            setup.off = Some(ByPlayer {
                x: u8::try_from(checkers - on_board(Player::X)).unwrap_or(0),
                o: u8::try_from(checkers - on_board(Player::O)).unwrap_or(0),
            });
        }
        FibsBoard {
            setup,
            match_length: UNLIMITED,
            score: ByPlayer { x: 0, o: 0 },
            cube: 1,
            dice: None,
            may_double: ByPlayer { x: true, o: true },
            doubled: false,
            crawford: false,
        }
    }
}

impl fmt::Display for FibsBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(core::str::from_utf8(self.encode(&mut [0; FIBS_TEXT])).map_err(|_| fmt::Error)?)
    }
}

/// The buffer of the FIBS writer. The longest line is 235 bytes:
/// `board:x:o` (9), the match length, two scores and the cube (11 each
/// with their colons: up to 10 digits), 26 board counts (5 each: `:-255`
/// where a setup names both players on one point), the turn (3), the dice
/// (8), the flags, colour, direction, home and bar (17), four counts (4
/// each) and the move tokens (8); [`Text::SLACK`] more. (Below 256 bytes,
/// the compiler clears it with a few vector stores rather than a `memset`
/// call.)
const FIBS_TEXT: usize = 248;
const _: () = assert!(235 + Text::<'static, FIBS_TEXT>::SLACK <= FIBS_TEXT);

/// `:a:b` for two counts `a` and `b` in -15..=15, at index
/// `(a + 15) * 32 + (b + 15)`: the token's bytes in a word, little-endian
/// (`:-15:-15`, the longest, fills it), and in [`PAIR_LENS`] its length.
/// Two board tokens for one load: a board line from a position is 30 of
/// them.
const PAIRS: [u64; 1024] = {
    let mut table = [0u64; 1024];
    let mut i = 0;
    while i < 1024 {
        let (word, _) = pair_token(i);
        table[i] = word;
        i += 1;
    }
    table
};

/// The lengths of the [`PAIRS`] tokens.
const PAIR_LENS: [u8; 1024] = {
    let mut table = [0u8; 1024];
    let mut i = 0;
    while i < 1024 {
        let (_, len) = pair_token(i);
        table[i] = len as u8;
        i += 1;
    }
    table
};

/// The [`PAIRS`] entry at `index` and its length (indexes past 30 in
/// either half, which no count has, give an empty token).
const fn pair_token(index: usize) -> (u64, usize) {
    let (a, b) = (index / 32, index % 32);
    if a > 30 || b > 30 {
        return (0, 0);
    }
    let (first, first_len) = colon_token(a as i64 - 15);
    let (second, second_len) = colon_token(b as i64 - 15);
    let mut bytes = first;
    let mut k = 0;
    while k < second_len {
        bytes[first_len + k] = second[k];
        k += 1;
    }
    let len = first_len + second_len;
    (u64::from_le_bytes(bytes), len)
}

/// Appends the [`PAIRS`] token at `index` (masked to the table).
#[inline(always)]
fn pair<const N: usize>(out: &mut Text<'_, N>, index: u64) {
    let i = (index & 1023) as usize;
    out.word(PAIRS[i], usize::from(PAIR_LENS[i]));
}

/// Appends the borne-off and bar counts, each at most 15, as two
/// [`PAIRS`] tokens (count + 15 is the pair's half).
#[inline(always)]
pub(crate) fn write_counts<const N: usize>(
    off: ByPlayer<u8>,
    bar: ByPlayer<u8>,
    out: &mut Text<'_, N>,
) {
    let half = |n: u8| u64::from(n) + 15;
    pair(out, half(off.x) << 5 | half(off.o));
    pair(out, half(bar.x) << 5 | half(bar.o));
}

/// The low byte of each 16-bit lane.
const LOW_BYTES: u64 = 0x00FF_00FF_00FF_00FF;

/// Appends the board tokens of eight points: byte `k` of `x` and `o` are
/// x's and o's counts on one point, each at most 15. Each byte of x's
/// count minus o's plus 15 (0 to 30: no byte borrows from the next); then
/// each two neighbouring bytes as one [`PAIRS`] index (lane j of `pairs`:
/// byte 2j times 32 plus byte 2j + 1).
#[inline(always)]
pub(crate) fn eight_points<const N: usize>(x: u64, o: u64, out: &mut Text<'_, N>) {
    let biased = (x + 15 * BYTES) - o;
    let pairs = ((biased & LOW_BYTES) << 5) | ((biased >> 8) & LOW_BYTES);
    for j in 0..4 {
        pair(out, pairs >> (16 * j));
    }
}

impl FibsBoard {
    /// Appends the board line (what `Display` writes) to `out`, without
    /// the formatting machinery: legal-moves answers write one per play.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.encode(&mut [0; FIBS_TEXT]));
    }

    /// The line, written into `buf`.
    fn encode<'b>(&self, buf: &'b mut [u8; FIBS_TEXT]) -> &'b [u8] {
        let s = &self.setup;
        let mut out = Text::new(buf);
        write_head(self.match_length, self.score, &mut out);
        // The player is O (positive) moving 24 to 1: its point k is index
        // k, the opponent's point k index 25 - k; the bars are indexes 25
        // (player) and 0 (opponent).
        out.colon_int(-i64::from(s.bar.o));
        if let Some(words) = s.small_point_words() {
            // Every position: eight points at a time.
            for (x, o) in words {
                eight_points(x, o, &mut out);
            }
        } else {
            for (&x, &o) in s.points.x.iter().zip(s.points.o.iter().rev()) {
                out.colon_int(i64::from(x) - i64::from(o));
            }
        }
        out.colon_int(i64::from(s.bar.x));
        write_middle_with(
            self.cube,
            s.turn,
            self.dice,
            GameFlags {
                may_double: self.may_double,
                doubled: self.doubled,
                crawford: self.crawford,
            },
            &mut out,
        );
        let off = s.off.unwrap_or_default();
        let counts = [off.x, off.o, s.bar.x, s.bar.o];
        if counts.iter().all(|&n| n <= 15) {
            write_counts(off, s.bar, &mut out);
        } else {
            for n in counts {
                out.colon_int(i64::from(n));
            }
        }
        out.bytes(if self.crawford {
            b":0:0:1:0"
        } else {
            b":0:0:0:0"
        });
        out.finish()
    }
}

/// Appends the tokens before the board: `board`, the names, the match
/// length and the scores (at most 42 bytes).
#[inline]
pub(crate) fn write_head<const N: usize>(
    match_length: u32,
    score: ByPlayer<u32>,
    out: &mut Text<'_, N>,
) {
    if match_length == UNLIMITED && score.x == 0 && score.o == 0 {
        // Money play from the start, what every board from a position
        // says: one copy.
        out.bytes(b"board:x:o:9999:0:0");
    } else {
        out.bytes(b"board:x:o");
        out.colon_int(i64::from(match_length));
        out.colon_int(i64::from(score.x));
        out.colon_int(i64::from(score.o));
    }
}

/// Appends the tokens between the board and the borne-off counts: the
/// turn, the dice, the cube, the doubling flags, colour, direction, home
/// and bar (at most 39 bytes).
#[inline]
pub(crate) fn write_middle<const N: usize>(cube: u32, turn: Player, out: &mut Text<'_, N>) {
    out.bytes(if turn == Player::X { b":1" } else { b":-1" });
    out.bytes(b":0:0:0:0");
    out.colon_int(i64::from(cube));
    out.bytes(b":1:1:0:1:-1:0:25");
}

/// [`write_middle`] with the dice of the player on turn (in its pair) and
/// the doubling flags of `flags` (its Crawford flag goes in the tail).
pub(crate) fn write_middle_with<const N: usize>(
    cube: u32,
    turn: Player,
    dice: Option<Dice>,
    flags: GameFlags,
    out: &mut Text<'_, N>,
) {
    if dice.is_none() && flags.may_double.x && flags.may_double.o && !flags.doubled {
        return write_middle(cube, turn, out);
    }
    out.bytes(if turn == Player::X { b":1" } else { b":-1" });
    let dice = dice.map_or([0, 0], |d| d.values());
    let (mine, theirs) = if turn == Player::X {
        (dice, [0, 0])
    } else {
        ([0, 0], dice)
    };
    for d in mine.into_iter().chain(theirs) {
        out.colon_int(i64::from(d));
    }
    out.colon_int(i64::from(cube));
    for flag in [flags.may_double.x, flags.may_double.o, flags.doubled] {
        out.colon_int(i64::from(flag));
    }
    out.bytes(b":1:-1:0:25");
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString as _;

    use super::*;
    use crate::BackgammonVariant;

    /// The opening example of the rawboard help: the player (O, moving 24
    /// to 1) on roll with 6-2 at the standard start of a 3-point match.
    const START: &str = "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0";

    #[test]
    fn a_board_in_a_game_has_its_score_match_length_and_cube() {
        let position = Position::start(BackgammonVariant::Standard, Player::X);
        let mut game = super::super::xgid::Xgid::money(position.to_setup());
        let money = FibsBoard::in_game(&position, &game);
        assert_eq!(money, FibsBoard::from_position(&position));
        assert_eq!(money.match_length, UNLIMITED);
        game.match_length = 7;
        game.score = ByPlayer { x: 2, o: 5 };
        game.cube_value = crate::CubeValue::new(4);
        let board = FibsBoard::in_game(&position, &game);
        assert_eq!(
            (board.match_length, board.score, board.cube),
            (7, game.score, 4)
        );
        assert_eq!(board.setup, money.setup);
    }

    #[test]
    fn a_board_in_a_game_has_its_dice_cube_flags_and_crawford() {
        use crate::notation::xgid::XgidDice;
        let position = Position::start(BackgammonVariant::Standard, Player::O);
        let mut game = super::super::xgid::Xgid::money(position.to_setup());
        game.match_length = 5;
        game.score = ByPlayer { x: 1, o: 2 };
        game.cube_value = crate::CubeValue::new(2);
        game.cube_owner = CubeOwner::Player(Player::X);
        game.dice = XgidDice::Rolled(Dice::new(Die::new(3), Die::new(2)));
        let board = FibsBoard::in_game(&position, &game);
        let text = board.to_string();
        assert!(text.starts_with("board:x:o:5:1:2:"), "{text}");
        let read: FibsBoard = text.parse().unwrap();
        assert_eq!(read, board);
        assert_eq!(read.dice.map(|d| d.values()), Some([3, 2]));
        assert_eq!(read.may_double, ByPlayer { x: true, o: false });
        assert!(!read.crawford && !read.doubled);

        game.crawford = true;
        game.dice = XgidDice::NotRolled;
        let read: FibsBoard = FibsBoard::in_game(&position, &game)
            .to_string()
            .parse()
            .unwrap();
        assert!(read.crawford);
        assert_eq!(read.may_double, ByPlayer { x: false, o: false });
        assert_eq!(read.dice, None);

        game.crawford = false;
        game.cube_owner = CubeOwner::Centre;
        game.dice = XgidDice::DoubleOffered;
        let read: FibsBoard = FibsBoard::in_game(&position, &game)
            .to_string()
            .parse()
            .unwrap();
        assert!(read.doubled);
    }

    #[test]
    fn reads_the_start() {
        let board: FibsBoard = START.parse().unwrap();
        let position = Position::from_setup(&board.setup, BackgammonVariant::Standard).unwrap();
        assert_eq!(
            position,
            Position::start(BackgammonVariant::Standard, Player::X)
        );
        assert_eq!(board.match_length, 3);
        assert_eq!(board.cube, 1);
    }

    #[test]
    fn reads_the_other_orientation() {
        // The same position told from the opponent's side: the player is X
        // (negative) moving 1 to 24, and it is the opponent's turn.
        let text = START.replace(
            ":1:6:2:0:0:1:1:1:0:1:-1:0:25:",
            ":1:0:0:6:2:1:1:1:0:-1:1:25:0:",
        );
        let mut tokens: alloc::vec::Vec<alloc::string::String> =
            text.split(':').map(alloc::string::String::from).collect();
        // Index i becomes 25 - i, and the signs flip.
        let board: alloc::vec::Vec<i32> =
            tokens[6..32].iter().map(|t| t.parse().unwrap()).collect();
        for (i, n) in board.iter().rev().enumerate() {
            tokens[6 + i] = alloc::format!("{}", -n);
        }
        let board: FibsBoard = tokens.join(":").parse().unwrap();
        let position = Position::from_setup(&board.setup, BackgammonVariant::Standard).unwrap();
        // x (the player) moves 1 to 24 with X's signs: the start, o (O) on
        // roll.
        assert_eq!(
            position,
            Position::start(BackgammonVariant::Standard, Player::O)
        );
    }

    #[test]
    fn refuses_what_is_not_a_board() {
        assert_eq!(
            "board:a:b".parse::<FibsBoard>(),
            Err(ParseFibsError::Tokens)
        );
        assert_eq!(
            START.replacen("board", "bored", 1).parse::<FibsBoard>(),
            Err(ParseFibsError::Tokens)
        );
        assert_eq!(
            START.replace(":-5:5:", ":-5:x:").parse::<FibsBoard>(),
            Err(ParseFibsError::Number)
        );
        assert_eq!(
            START
                .replace(":1:-1:0:25:", ":2:-1:0:25:")
                .parse::<FibsBoard>(),
            Err(ParseFibsError::Orientation)
        );
        assert_eq!(
            START.replace(":-5:5:", ":-5:16:").parse::<FibsBoard>(),
            Err(ParseFibsError::Count)
        );
    }

    #[test]
    fn writes_what_it_reads() {
        let board: FibsBoard = START.parse().unwrap();
        let position = Position::from_setup(&board.setup, BackgammonVariant::Standard).unwrap();
        let written = FibsBoard::from_position(&position).to_string();
        assert!(written.starts_with("board:x:o:9999:0:0:0:-2:"), "{written}");
        let again: FibsBoard = written.parse().unwrap();
        assert_eq!(again.setup, board.setup);
    }
}

//! Move notation as gnubg writes it: `24/18 13/11*`, `bar/22`, `6/off`,
//! `8/5(2)`, `24/18*/13`.
//!
//! Parsing happens in two phases, as for chess SAN: [`MoveText::from_str`]
//! checks the syntax only; [`MoveText::to_play`] finds the legal play the
//! text means in a position for a roll. Every point the text names is a
//! point a checker lands on (a blot there is hit, a blocked one makes the
//! play illegal); only the route inside a hop that spans several dice is
//! left open, as gnubg folds it (see [`MoveText::to_play`]).
//!
//! Parser leniency: moves may come in any order, separated by white space
//! or commas; `bar` and `off` in any case (and 25 and 0 as numbers); a `*`
//! may follow any point after the first and is optional (it only narrows
//! the choice when the plain text fits two plays that hit differently);
//! chains (`24/18/13`) and folds (`(2)`, up to 4) are read; the empty
//! string is the empty play (no move possible). At most 4 single hops and
//! 64 characters.
//!
//! The writer emits gnubg's form: chains merged, an intermediate point
//! written only where it hit, `*` after each point hit, identical chains
//! folded as `(n)`, highest starting point first.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::{self, Write as _};
use core::str::FromStr;

use crate::board::Board;
use crate::dice::Dice;
use crate::play::{IllegalPlay, Move, Play};
use crate::point::Point;
use crate::position::Position;

/// One chain of a checker (or of several, with `count`): the points it
/// passes, each with whether it was marked as a hit (the first never is).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Segment {
    /// The points from start to end, with the hit marks.
    pub path: Vec<(Point, bool)>,
    /// How many checkers make this chain (`(2)` folds).
    pub count: u8,
}

/// A play as written: chains of points, not yet checked against a position.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct MoveText {
    /// The chains, in the order written.
    pub segments: Vec<Segment>,
}

/// Syntax error in move notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseMoveTextError {
    /// Longer than 64 characters.
    TooLong,
    /// A point is not 0 to 25, `bar` or `off`.
    Point,
    /// A move needs at least two points separated by `/`.
    Shape,
    /// A fold is not `(1)` to `(4)`.
    Fold,
    /// More than four single moves.
    TooManyMoves,
}

impl fmt::Display for ParseMoveTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseMoveTextError::TooLong => "a play is at most 64 characters",
            ParseMoveTextError::Point => "a point is 1 to 24, bar or off",
            ParseMoveTextError::Shape => "a move is written from/to, for example 24/18 or bar/22*",
            ParseMoveTextError::Fold => "a repeat count is written (2), (3) or (4)",
            ParseMoveTextError::TooManyMoves => "a play has at most four moves",
        })
    }
}

impl core::error::Error for ParseMoveTextError {}

/// A point's name as [`Point`]'s `FromStr` reads it: `bar`, `off` (any
/// case) or one or two digits making 0 to 25.
fn point_named(name: &[u8]) -> Option<Point> {
    match name {
        [a, b, c] if [a, b, c].map(u8::to_ascii_lowercase) == *b"bar" => Some(Point::BAR),
        [a, b, c] if [a, b, c].map(u8::to_ascii_lowercase) == *b"off" => Some(Point::OFF),
        [d] if d.is_ascii_digit() => Point::try_from(d - b'0').ok(),
        [t, d] if t.is_ascii_digit() && d.is_ascii_digit() => {
            Point::try_from((t - b'0') * 10 + (d - b'0')).ok()
        }
        _ => None,
    }
}

fn parse_segment(token: &[u8]) -> Result<Segment, ParseMoveTextError> {
    let (body, count) = match token.iter().position(|&b| b == b'(') {
        Some(i) => {
            let count = match &token[i..] {
                b"(1)" => 1,
                b"(2)" => 2,
                b"(3)" => 3,
                b"(4)" => 4,
                _ => return Err(ParseMoveTextError::Fold),
            };
            (&token[..i], count)
        }
        None => (token, 1),
    };
    let mut path = Vec::with_capacity(2);
    for (i, part) in body.split(|&b| b == b'/').enumerate() {
        let (name, hit) = match part.strip_suffix(b"*") {
            Some(name) => (name, true),
            None => (part, false),
        };
        if i == 0 && hit {
            return Err(ParseMoveTextError::Shape);
        }
        let point = point_named(name).ok_or(if name.is_empty() {
            ParseMoveTextError::Shape
        } else {
            ParseMoveTextError::Point
        })?;
        if path.len() >= 5 {
            return Err(ParseMoveTextError::TooManyMoves);
        }
        path.push((point, hit));
    }
    if path.len() < 2 {
        return Err(ParseMoveTextError::Shape);
    }
    Ok(Segment { path, count })
}

impl FromStr for MoveText {
    type Err = ParseMoveTextError;
    fn from_str(s: &str) -> Result<MoveText, ParseMoveTextError> {
        if s.len() > 64 {
            return Err(ParseMoveTextError::TooLong);
        }
        let mut segments = Vec::with_capacity(2);
        let mut hops = 0usize;
        let mut add = |token: &[u8]| {
            if token.is_empty() {
                return Ok(());
            }
            let segment = parse_segment(token)?;
            hops += (segment.path.len() - 1) * usize::from(segment.count);
            if hops > 4 {
                return Err(ParseMoveTextError::TooManyMoves);
            }
            segments.push(segment);
            Ok(())
        };
        if s.is_ascii() {
            // `char::is_whitespace` of the ASCII characters, and commas.
            let separator = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b',');
            s.as_bytes().split(separator).try_for_each(add)?;
        } else {
            s.split(|c: char| c.is_whitespace() || c == ',')
                .try_for_each(|token| add(token.as_bytes()))?;
        }
        Ok(MoveText { segments })
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            if i > 0 {
                f.write_char(' ')?;
            }
            for (j, &(point, hit)) in segment.path.iter().enumerate() {
                if j > 0 {
                    f.write_char('/')?;
                }
                write!(f, "{point}")?;
                if hit {
                    f.write_char('*')?;
                }
            }
            if segment.count > 1 {
                write!(f, "({})", segment.count)?;
            }
        }
        Ok(())
    }
}

/// Why a move text names no single legal play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalMoveText {
    /// No legal play matches, for this reason.
    Illegal(IllegalPlay),
    /// Several legal plays match: mark the hits (`*`).
    Ambiguous,
}

impl fmt::Display for IllegalMoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMoveText::Illegal(reason) => reason.fmt(f),
            IllegalMoveText::Ambiguous => f.write_str(
                "the notation fits more than one legal play: mark the hits with * or give intermediate points",
            ),
        }
    }
}

impl core::error::Error for IllegalMoveText {}

impl MoveText {
    /// The text of a play, in gnubg's form (see the module docs).
    #[must_use]
    pub fn from_play(play: &Play) -> MoveText {
        let folded = FoldedChains::of(play);
        let segments = folded
            .chains()
            .iter()
            .map(|chain| {
                // Intermediate points are written only where they hit.
                let points = chain.points();
                let path = (0..points.len())
                    .filter(|&i| i == 0 || i == points.len() - 1 || chain.hit(i))
                    .map(|i| (points[i], chain.hit(i)))
                    .collect();
                Segment {
                    path,
                    count: chain.count,
                }
            })
            .collect();
        MoveText { segments }
    }

    /// The text of a play as a string: the same as `play.to_string()`.
    #[must_use]
    pub fn format(play: &Play) -> String {
        play.to_string()
    }

    /// The legal play this text means in `position` for `dice`.
    ///
    /// Every point the text names is a point where a checker lands: each
    /// segment `a/b/c` is the hops `a/b` and `b/c`, and a checker moving
    /// `a/b` stops on `b` (so a blot there is hit, and if two or more
    /// opposing checkers hold it the play is illegal:
    /// [`IllegalPlay::Blocked`]). A list of single moves given as separate
    /// segments (`13/10 10/9`) therefore means the same as the chain
    /// `13/10/9`. Only the route *inside* a hop that spans several dice
    /// (`24/16` with 4-4, `13/9` with 3-1) is left open, as gnubg folds it:
    /// any legal route will do. A `(n)` fold is `n` checkers each making the
    /// segment's hops.
    ///
    /// When the open routes reach legal plays that differ only in what they
    /// hit (a route through a blot is a different play from one around it),
    /// the `*` marks decide: a marked point must be hit, and if that still
    /// leaves several, the one hitting exactly the marked points is taken
    /// (so `24/13` means the play that hits nothing, as gnubg would write
    /// `24/18*/13` for the other); otherwise the text is ambiguous.
    ///
    /// # Errors
    /// [`IllegalMoveText::Illegal`] with the reason the text is not a legal
    /// play; [`IllegalMoveText::Ambiguous`] when it fits several.
    pub fn to_play(&self, position: &Position, dice: Dice) -> Result<Play, IllegalMoveText> {
        let legal = position.legal_plays(dice);
        if position.outcome().is_some() {
            return Err(IllegalMoveText::Illegal(IllegalPlay::GameOver));
        }
        match self.canonical_among(legal.as_slice()) {
            Some(play) => Ok(play),
            None => self.search(position, dice, legal.as_slice()),
        }
    }

    /// [`MoveText::to_play`] by the search alone, on a position where the
    /// game is not over and its `legal` plays.
    fn search(
        &self,
        position: &Position,
        dice: Dice,
        legal: &[Play],
    ) -> Result<Play, IllegalMoveText> {
        let mover = position.side(position.turn());
        // The named hops, by chain (one chain per checker: a segment, once
        // per fold), and how many checkers leave each point.
        let mut counts = [0i32; 26];
        for (c, &n) in counts.iter_mut().zip(mover.iter()) {
            *c = i32::from(n);
        }
        let mut hops: Vec<Move> = Vec::new();
        let mut chains: Vec<Vec<(Point, Point)>> = Vec::new();
        let mut marked = 0u32;
        for segment in &self.segments {
            let mut chain = Vec::new();
            for pair in segment.path.windows(2) {
                let (from, to) = (pair[0].0, pair[1].0);
                if to >= from || to.is_bar() || from.is_off() {
                    return Err(IllegalMoveText::Illegal(IllegalPlay::Backwards(from, to)));
                }
                if pair[1].1 {
                    marked |= 1 << to.get();
                }
                counts[usize::from(from.get())] -= i32::from(segment.count);
                counts[usize::from(to.get())] += i32::from(segment.count);
                for _ in 0..segment.count {
                    hops.push(Move::with_hit(from, to, pair[1].1));
                }
                chain.push((from, to));
            }
            for _ in 0..segment.count {
                chains.push(chain.clone());
            }
        }
        if let Some(p) = counts.iter().position(|&c| c < 0) {
            return Err(IllegalMoveText::Illegal(IllegalPlay::NoChecker(
                Point::new(p as u8),
            )));
        }
        if self.segments.is_empty() && legal.is_empty() {
            return Ok(Play::EMPTY);
        }
        // Every way to make the named hops with single legal moves of the
        // dice, as the positions they reach; then the legal plays reaching
        // those positions.
        let board = Board {
            me: *mover,
            opp: *position.side(!position.turn()),
        };
        let mut reached: Vec<Position> = Vec::new();
        let mut search = Realize {
            position,
            chains: &chains,
            at: chains.iter().map(|chain| (chain[0].0.get(), 0)).collect(),
            dice: dice.to_play(),
            used: 0,
            moves: Vec::new(),
            reached: &mut reached,
        };
        search.step(&board);
        let candidates: Vec<(Play, u32)> = if reached.is_empty() {
            Vec::new()
        } else {
            legal
                .iter()
                .filter(|play| reached.contains(&position.after(play)))
                .map(|play| (*play, play.hit_mask()))
                .collect()
        };
        let marked_ok: Vec<&(Play, u32)> = candidates
            .iter()
            .filter(|(_, hits)| marked & !hits == 0)
            .collect();
        match (candidates.len(), marked_ok.len()) {
            (_, 1) => return Ok(marked_ok[0].0),
            (0, _) => {}
            (_, 0) => {
                let p = (marked & !candidates[0].1).trailing_zeros() as u8;
                return Err(IllegalMoveText::Illegal(IllegalPlay::NoHit(Point::new(p))));
            }
            _ => {
                let exact: Vec<_> = marked_ok
                    .iter()
                    .filter(|(_, hits)| *hits == marked)
                    .collect();
                return match exact.as_slice() {
                    [one] => Ok(one.0),
                    _ => Err(IllegalMoveText::Ambiguous),
                };
            }
        }
        Err(IllegalMoveText::Illegal(position.explain(&hops, dice)))
    }

    /// The legal play whose notation, as this crate writes it, is this
    /// text, if one is: the text of a play sent back as a view listed it,
    /// which is what clients and replays send. The search below gives the
    /// same play for such a text (`core/tests/properties.rs` and the gnubg
    /// corpus check that every legal play's notation resolves to it, so no
    /// two legal plays share one); this only finds it without the search,
    /// comparing bytes. Anything else (other orders, folds written out,
    /// omitted hits) is left to the search.
    /// The text as [`fmt::Display`] writes it, written into `out` from
    /// the tokens [`notation`] writes (its length); `None` when it does
    /// not fit (no play's notation is that long) or marks a hit on a
    /// chain's start (no play's notation does).
    fn written_into(&self, out: &mut [u8; MAX_NOTATION]) -> Option<usize> {
        let mut len = 0;
        let mut put = |token: u64| {
            out.get_mut(len..len + 8)?
                .copy_from_slice(&token.to_le_bytes());
            len += (token >> 56) as usize;
            Some(())
        };
        for (i, segment) in self.segments.iter().enumerate() {
            if i > 0 {
                put(SPACE)?;
            }
            for (j, &(point, hit)) in segment.path.iter().enumerate() {
                let tokens = POINT_TOKENS.get(usize::from(point.get()))?;
                put(match (j, hit) {
                    (0, false) => tokens[0],
                    (0, true) => return None,
                    _ => tokens[1 + usize::from(hit)],
                })?;
            }
            put(*FOLDS.get(usize::from(segment.count))?)?;
        }
        Some(len)
    }

    fn canonical_among(&self, legal: &[Play]) -> Option<Play> {
        // The hits the text marks: a canonical text marks every hit.
        let mut marked = 0u32;
        for segment in &self.segments {
            for &(point, hit) in &segment.path[1..] {
                if hit {
                    marked |= 1 << point.get();
                }
            }
        }
        let mut text = [0u8; MAX_NOTATION];
        let len = self.written_into(&mut text)?;
        let text = &text[..len];
        let mut room = [0u8; MAX_NOTATION];
        legal
            .iter()
            .filter(|play| play.hit_mask() == marked)
            .find(|play| {
                let len = notation(play, &mut room);
                room[..len] == *text
            })
            .copied()
    }
}

/// The search behind [`MoveText::to_play`]: every order of single legal
/// moves of the dice that makes the named hops, each chain's checker
/// stopping on every point the chain names (an open route inside a hop may
/// take any way, and the checkers' moves may interleave, as entering two
/// checkers before moving either on); the positions reached.
struct Realize<'a> {
    position: &'a Position,
    chains: &'a [Vec<(Point, Point)>],
    /// For each chain, its checker's point and the index of the hop it is
    /// making (the chain's length once done).
    at: Vec<(u8, usize)>,
    dice: Vec<u8>,
    /// Bit i: `dice[i]` is used.
    used: u8,
    moves: Vec<Move>,
    reached: &'a mut Vec<Position>,
}

impl Realize<'_> {
    /// Plays one more die for some chain from `board`, or records the
    /// position once every chain is done.
    fn step(&mut self, board: &Board) {
        let mut done = true;
        for c in 0..self.chains.len() {
            let (at, hop) = self.at[c];
            let Some(&(_, to)) = self.chains[c].get(hop) else {
                continue;
            };
            done = false;
            let to = to.get();
            for i in 0..self.dice.len() {
                let d = self.dice[i];
                let seen = (0..i).any(|j| self.used & (1 << j) == 0 && self.dice[j] == d);
                if self.used & (1 << i) != 0 || seen {
                    continue;
                }
                let Some(next) = board.single_move(at, d) else {
                    continue;
                };
                if next < to {
                    continue;
                }
                let mut after = *board;
                let hit = after.apply(Move::new(Point::new(at), Point::new(next)));
                self.used |= 1 << i;
                self.moves
                    .push(Move::with_hit(Point::new(at), Point::new(next), hit));
                self.at[c] = (next, if next == to { hop + 1 } else { hop });
                self.step(&after);
                self.at[c] = (at, hop);
                self.moves.pop();
                self.used &= !(1 << i);
            }
        }
        if done && let Some(play) = Play::new(&self.moves) {
            let after = self.position.after(&play);
            if !self.reached.contains(&after) {
                self.reached.push(after);
            }
        }
    }
}

impl fmt::Display for Play {
    /// The play in gnubg's notation, as [`MoveText::from_play`] writes it
    /// (`24/18 13/11*`, `8/5(2) 6/3(2)`; the empty play is empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = [0u8; MAX_NOTATION];
        let len = notation(self, &mut text);
        f.write_str(core::str::from_utf8(&text[..len]).map_err(|_| fmt::Error)?)
    }
}

impl Play {
    /// Appends the play's notation (its `Display`, [`MoveText::from_play`]
    /// written out) to `out`, without the formatting machinery or an
    /// allocation of its own: legal-moves answers write one per play.
    pub fn write_notation(&self, out: &mut Vec<u8>) {
        let mut text = [0u8; MAX_NOTATION];
        let len = notation(self, &mut text);
        // The whole buffer, then cut: a copy of known size is a few
        // moves, one of the text's length a `memcpy` call.
        let start = out.len();
        out.extend_from_slice(&text);
        out.truncate(start + len);
    }

    /// Writes the play's notation (as [`Play::write_notation`] appends
    /// it) at the start of `room` and returns its length, at most 43:
    /// for a writer that gathers the text with other bytes in a buffer of
    /// its own (a protobuf field's key and length before it). The bytes
    /// after the text are scratch: the writer stores whole words past it.
    pub fn notation_into(&self, room: &mut [u8; NOTATION_ROOM]) -> usize {
        notation(self, room)
    }
}

/// The room [`Play::notation_into`] writes in: the longest notation (43
/// characters) and the word its last token is stored as.
pub const NOTATION_ROOM: usize = MAX_NOTATION;

/// The notation buffer: at most 43 characters (four chain starts of 3
/// (`bar`), four steps of 4 (`/22*`), four folds of 3 (`(2)`) and three
/// spaces, more than any play has), and 8 for the last token's word.
const MAX_NOTATION: usize = 64;

/// A token as one word, its first `len` bytes of `bytes` first and its
/// length in the top byte: one load, one fixed-size store and one addition
/// to write.
const fn token(bytes: [u8; 7], len: usize) -> u64 {
    let mut word = [0u8; 8];
    let mut i = 0;
    while i < len {
        word[i] = bytes[i];
        i += 1;
    }
    word[7] = len as u8;
    u64::from_le_bytes(word)
}

/// The tokens of each point: its name as a chain's start (`bar`, `13`),
/// and as a later point of a chain (`/off`, `/5`), without and with the
/// hit mark (`/5*`).
const POINT_TOKENS: [[u64; 3]; 26] = {
    let mut table = [[0u64; 3]; 26];
    let mut p = 0;
    while p < 26 {
        let (name, len): ([u8; 3], usize) = match p {
            0 => (*b"off", 3),
            25 => (*b"bar", 3),
            1..=9 => ([b'0' + p as u8, 0, 0], 1),
            _ => ([b'0' + (p / 10) as u8, b'0' + (p % 10) as u8, 0], 2),
        };
        let [a, b, c] = name;
        let mut step = [b'/', a, b, c, 0, 0, 0];
        table[p][0] = token([a, b, c, 0, 0, 0, 0], len);
        table[p][1] = token(step, len + 1);
        step[len + 1] = b'*';
        table[p][2] = token(step, len + 2);
        p += 1;
    }
    table
};

/// The space between chains.
const SPACE: u64 = token([b' ', 0, 0, 0, 0, 0, 0], 1);

/// `(n)` for a fold of `n` checkers, nothing for one.
const FOLDS: [u64; 5] = {
    let mut folds = [0u64; 5];
    let mut n = 2;
    while n < 5 {
        folds[n] = token([b'(', b'0' + n as u8, b')', 0, 0, 0, 0], 3);
        n += 1;
    }
    folds
};

/// A chain of a play's points (the first `len`; bit `i` of `hits` set
/// where the checker hit on point `i`) and how many checkers make it.
#[derive(Clone, Copy)]
struct Chain {
    points: [Point; 5],
    len: u8,
    hits: u8,
    count: u8,
}

impl Chain {
    const EMPTY: Chain = Chain {
        points: [Point::OFF; 5],
        len: 0,
        hits: 0,
        count: 0,
    };

    /// The chain's points.
    fn points(&self) -> &[Point] {
        &self.points[..usize::from(self.len)]
    }

    /// Whether the checker hit on point `i` of the chain.
    fn hit(&self, i: usize) -> bool {
        self.hits >> i & 1 != 0
    }
}

/// A play's chains of points (with hit marks) in gnubg's order, identical
/// chains folded into one with its count: at most four chains of at most
/// five points, on the stack. [`MoveText::from_play`] and the notation
/// writer behind `Display` and [`Play::write_notation`] both read it.
struct FoldedChains {
    chains: [Chain; 4],
    len: usize,
}

impl FoldedChains {
    fn of(play: &Play) -> FoldedChains {
        // A play has at most four moves. Highest start first, and from one
        // start the farther move first; moves alike stay in the order
        // played (an insertion sort, stable).
        let mut moves = play.move_slots();
        let n = play.len().min(4);
        let key = |m: &Move| (m.from(), m.to());
        for i in 1..n {
            let mut j = i;
            while j > 0 && key(&moves[j - 1]) < key(&moves[j]) {
                moves.swap(j - 1, j);
                j -= 1;
            }
        }
        // Each move continues the first chain that ends where it starts
        // (not off), or starts a chain. Chains begin in the moves' order,
        // so they are already highest start first.
        let mut chains = [Chain::EMPTY; 4];
        let mut count = 0;
        for mv in &moves[..n] {
            let (from, to, hit) = (mv.from(), mv.to(), u8::from(mv.is_hit()));
            let end = chains[..count]
                .iter_mut()
                .find(|c| c.points().last() == Some(&from) && !from.is_off());
            match end {
                Some(chain) if chain.len < 5 => {
                    chain.points[usize::from(chain.len)] = to;
                    chain.hits |= hit << chain.len;
                    chain.len += 1;
                }
                _ => {
                    chains[count] = Chain {
                        points: [from, to, Point::OFF, Point::OFF, Point::OFF],
                        len: 2,
                        hits: hit << 1,
                        count: 1,
                    };
                    count += 1;
                }
            }
        }
        // Identical chains (side by side, as they share a start) fold into
        // the first of them; a hit by any of them marks the fold.
        let mut folded = 0;
        for i in 0..count {
            let chain = chains[i];
            if folded > 0
                && chains[folded - 1].len == chain.len
                && chains[folded - 1].points == chain.points
            {
                chains[folded - 1].count += 1;
                chains[folded - 1].hits |= chain.hits;
            } else {
                chains[folded] = chain;
                folded += 1;
            }
        }
        FoldedChains {
            chains,
            len: folded,
        }
    }

    /// The chains, highest start first.
    fn chains(&self) -> &[Chain] {
        &self.chains[..self.len]
    }
}

/// Writes `play` as [`MoveText::from_play`] and its `Display` do, into
/// `out`; returns the length.
fn notation(play: &Play, out: &mut [u8; MAX_NOTATION]) -> usize {
    let mut len = 0;
    let mut put = |token: u64| {
        // Within the buffer by its bound; a token that did not fit would
        // be left out rather than panic.
        if let Some(dst) = out.get_mut(len..len + 8) {
            dst.copy_from_slice(&token.to_le_bytes());
            len += (token >> 56) as usize;
        }
    };
    // One or two moves (every play of a roll that is not a double, and
    // most plays' count): the chains and folds decided directly, as
    // `FoldedChains` would make them.
    let moves = play.move_slots();
    let step =
        |point: Point, hit: bool| POINT_TOKENS[usize::from(point.get())][1 + usize::from(hit)];
    let start = |point: Point| POINT_TOKENS[usize::from(point.get())][0];
    match play.len() {
        0 => return 0,
        1 => {
            let m = moves[0];
            put(start(m.from()));
            put(step(m.to(), m.is_hit()));
            return len;
        }
        2 => {
            // Highest start (then farthest end) first; alike moves stay
            // in the order played.
            let (a, b) = if (moves[0].from(), moves[0].to()) < (moves[1].from(), moves[1].to()) {
                (moves[1], moves[0])
            } else {
                (moves[0], moves[1])
            };
            put(start(a.from()));
            if b.from() == a.to() && !a.to().is_off() {
                // One checker: the intermediate point only where it hit.
                if a.is_hit() {
                    put(step(a.to(), true));
                }
                put(step(b.to(), b.is_hit()));
            } else if (a.from(), a.to()) == (b.from(), b.to()) {
                // Two checkers alike: folded, a hit by either marks it.
                put(step(a.to(), a.is_hit() || b.is_hit()));
                put(FOLDS[2]);
            } else {
                put(step(a.to(), a.is_hit()));
                put(SPACE);
                put(start(b.from()));
                put(step(b.to(), b.is_hit()));
            }
            return len;
        }
        _ => {}
    }
    for (i, chain) in FoldedChains::of(play).chains().iter().enumerate() {
        if i > 0 {
            put(SPACE);
        }
        let points = chain.points();
        put(POINT_TOKENS[usize::from(points[0].get())][0]);
        // Intermediate points are written only where they hit.
        let last = points.len() - 1;
        for (j, &point) in points.iter().enumerate().skip(1) {
            if j == last || chain.hit(j) {
                put(POINT_TOKENS[usize::from(point.get())][1 + usize::from(chain.hit(j))]);
            }
        }
        put(FOLDS.get(usize::from(chain.count)).copied().unwrap_or(0));
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Die;
    use crate::player::Player;
    use crate::setup::BackgammonVariant;

    #[test]
    fn the_array_writer_writes_what_move_text_writes() {
        // Every play of the 4 000 checked-in positions (core/benches/data)
        // for all 21 rolls: the allocation-free writer behind `Display`
        // and `write_notation` against `MoveText::from_play`.
        let mut plays = 0;
        let mut folds = 0;
        for (_, pos) in crate::position::benchmark_positions() {
            for a in 1..=6 {
                for b in a..=6 {
                    for &play in pos.legal_plays(dice(a, b)).iter() {
                        let expected = MoveText::from_play(&play).to_string();
                        assert_eq!(play.to_string(), expected);
                        let mut out = alloc::vec![b'x'];
                        play.write_notation(&mut out);
                        assert_eq!(&out[1..], expected.as_bytes());
                        plays += 1;
                        folds += usize::from(expected.contains('('));
                    }
                }
            }
        }
        assert!(
            plays > 100_000 && folds > 1_000,
            "{plays} plays, {folds} folds"
        );
    }

    /// The parser as it was written over `str` (before it read bytes):
    /// the reference the byte parser is checked against.
    fn reference_parse(s: &str) -> Result<MoveText, ParseMoveTextError> {
        fn segment(token: &str) -> Result<Segment, ParseMoveTextError> {
            let (body, count) = match token.find('(') {
                Some(i) => {
                    let fold = token[i..]
                        .strip_prefix('(')
                        .and_then(|s| s.strip_suffix(')'))
                        .ok_or(ParseMoveTextError::Fold)?;
                    let n = match fold {
                        "1" => 1,
                        "2" => 2,
                        "3" => 3,
                        "4" => 4,
                        _ => return Err(ParseMoveTextError::Fold),
                    };
                    (&token[..i], n)
                }
                None => (token, 1),
            };
            let mut path = Vec::new();
            for (i, part) in body.split('/').enumerate() {
                let (name, hit) = match part.strip_suffix('*') {
                    Some(name) => (name, true),
                    None => (part, false),
                };
                if i == 0 && hit {
                    return Err(ParseMoveTextError::Shape);
                }
                let point = name.parse::<Point>().map_err(|_| {
                    if name.is_empty() {
                        ParseMoveTextError::Shape
                    } else {
                        ParseMoveTextError::Point
                    }
                })?;
                if path.len() >= 5 {
                    return Err(ParseMoveTextError::TooManyMoves);
                }
                path.push((point, hit));
            }
            if path.len() < 2 {
                return Err(ParseMoveTextError::Shape);
            }
            Ok(Segment { path, count })
        }
        if s.len() > 64 {
            return Err(ParseMoveTextError::TooLong);
        }
        let mut segments = Vec::new();
        let mut hops = 0usize;
        for token in s
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
        {
            let segment = segment(token)?;
            hops += (segment.path.len() - 1) * usize::from(segment.count);
            if hops > 4 {
                return Err(ParseMoveTextError::TooManyMoves);
            }
            segments.push(segment);
        }
        Ok(MoveText { segments })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// The byte parser reads every text as the `str` parser did, errors
        /// included: texts made of the notation's pieces, separators
        /// (Unicode white space among them) and stray characters.
        #[test]
        fn the_byte_parser_reads_as_the_str_parser(pieces in proptest::collection::vec(
            proptest::sample::select(alloc::vec![
                "24", "13", "8", "6", "5", "3", "1", "0", "25", "00", "07", "26", "99", "123",
                "bar", "BAR", "Off", "off", "ofF", "ba", "/", "/", "/", "*", "(", ")", "(2)",
                "(4)", "(5)", "(1)", "()", " ", " ", ",", "\t", "\u{0B}", "\u{0C}", "\r\n",
                "\u{A0}", "\u{2003}", "\u{3000}", "x", "é", "-", "",
            ]),
            0..24,
        )) {
            let text: String = pieces.concat();
            let parsed = text.parse::<MoveText>();
            proptest::prop_assert_eq!(&parsed, &reference_parse(&text), "{:?}", text);
            if let Ok(parsed) = parsed {
                // The byte writer writes what `Display` writes, when it
                // writes at all (it gives up on texts longer than any
                // notation).
                let mut room = [0u8; MAX_NOTATION];
                if let Some(len) = parsed.written_into(&mut room) {
                    let shown = parsed.to_string();
                    proptest::prop_assert_eq!(&room[..len], shown.as_bytes());
                }
            }
        }
    }

    #[test]
    fn the_search_and_the_byte_comparison_find_the_same_play() {
        // `to_play` compares a text with every legal play's notation
        // before it searches; that is only right if the search resolves
        // each legal play's notation to that play. Every play of the
        // 4 000 checked-in positions for all 21 rolls, both ways.
        let mut plays = 0;
        for (line, pos) in crate::position::benchmark_positions() {
            for a in 1..=6 {
                for b in a..=6 {
                    let legal = pos.legal_plays(dice(a, b));
                    for &play in legal.iter() {
                        let text: MoveText = play.to_string().parse().unwrap();
                        assert_eq!(
                            text.search(&pos, dice(a, b), legal.as_slice()),
                            Ok(play),
                            "{line}: {a}-{b} {play}"
                        );
                        assert_eq!(text.canonical_among(legal.as_slice()), Some(play));
                        let mut room = [0u8; MAX_NOTATION];
                        let len = text.written_into(&mut room).unwrap();
                        assert_eq!(&room[..len], play.to_string().as_bytes());
                        plays += 1;
                    }
                }
            }
        }
        assert!(plays > 100_000, "{plays} plays");
    }

    #[test]
    fn texts_not_written_as_the_crate_writes_them_are_searched() {
        let pos = Position::start(BackgammonVariant::Standard, Player::X);
        let legal = pos.legal_plays(dice(6, 1));
        for text in ["8/7 13/7", "8/7,13/7", "8/7(1) 13/7"] {
            let text: MoveText = text.parse().unwrap();
            assert_eq!(text.canonical_among(legal.as_slice()), None, "{text}");
            assert_eq!(
                text.to_play(&pos, dice(6, 1)).unwrap().to_string(),
                "13/7 8/7"
            );
        }
    }

    fn dice(a: u8, b: u8) -> Dice {
        Dice::new(Die::new(a), Die::new(b))
    }

    #[test]
    fn syntax() {
        let t: MoveText = "24/18*/13 bar/22(2)".parse().unwrap();
        assert_eq!(t.to_string(), "24/18*/13 bar/22(2)");
        let t: MoveText = " 8/5,6/OFF  ".parse().unwrap();
        assert_eq!(t.to_string(), "8/5 6/off");
        assert_eq!("".parse::<MoveText>().unwrap().segments.len(), 0);
        assert_eq!(
            "24/18(5)".parse::<MoveText>(),
            Err(ParseMoveTextError::Fold)
        );
        assert_eq!(
            "24/18/12/6/1/0".parse::<MoveText>(),
            Err(ParseMoveTextError::TooManyMoves)
        );
        assert_eq!("24".parse::<MoveText>(), Err(ParseMoveTextError::Shape));
        assert_eq!("24/x".parse::<MoveText>(), Err(ParseMoveTextError::Point));
        assert_eq!("*24/18".parse::<MoveText>(), Err(ParseMoveTextError::Point));
    }

    #[test]
    fn opening_plays() {
        let pos = Position::start(BackgammonVariant::Standard, Player::X);
        let play = "13/11 24/18"
            .parse::<MoveText>()
            .unwrap()
            .to_play(&pos, dice(6, 2))
            .unwrap();
        assert_eq!(MoveText::format(&play), "24/18 13/11");
        let play = "24/13"
            .parse::<MoveText>()
            .unwrap()
            .to_play(&pos, dice(6, 5))
            .unwrap();
        assert_eq!(MoveText::format(&play), "24/13");
        let play = "8/5(2) 6/3(2)"
            .parse::<MoveText>()
            .unwrap()
            .to_play(&pos, dice(3, 3))
            .unwrap();
        assert_eq!(MoveText::format(&play), "8/5(2) 6/3(2)");
        assert_eq!(play.to_string(), "8/5(2) 6/3(2)");
        let err = "13/7"
            .parse::<MoveText>()
            .unwrap()
            .to_play(&pos, dice(6, 5))
            .unwrap_err();
        assert_eq!(
            err,
            IllegalMoveText::Illegal(IllegalPlay::BothDiceCanBePlayed)
        );
        let err = "24/20 13/7"
            .parse::<MoveText>()
            .unwrap()
            .to_play(&pos, dice(6, 5))
            .unwrap_err();
        assert_eq!(
            err,
            IllegalMoveText::Illegal(IllegalPlay::DistanceNotRolled(
                Point::new(24),
                Point::new(20)
            ))
        );
        let err = "6/1 13/7"
            .parse::<MoveText>()
            .unwrap()
            .to_play(&pos, dice(6, 5))
            .unwrap_err();
        assert_eq!(
            err,
            IllegalMoveText::Illegal(IllegalPlay::Blocked(Point::new(1)))
        );
    }

    /// The standard start, x on roll, after `edit` changes o's checkers
    /// (o's own point numbers, 1 to 24).
    fn start_with(edit: &[(usize, u8)]) -> Position {
        let mut setup = crate::setup::Setup::start(BackgammonVariant::Standard, Player::X);
        setup.off = None;
        for &(point, count) in edit {
            setup.points.o[point - 1] = count;
        }
        Position::from_setup(&setup, BackgammonVariant::Standard).unwrap()
    }

    fn resolve(pos: &Position, text: &str, d: Dice) -> Result<Play, IllegalMoveText> {
        text.parse::<MoveText>().unwrap().to_play(pos, d)
    }

    fn hit_points(play: &Play) -> Vec<u8> {
        play.moves()
            .iter()
            .filter(|m| m.is_hit())
            .map(|m| m.to().get())
            .collect()
    }

    /// The list-of-moves form: one segment `[from, to]` per move.
    fn moves_text(moves: &[(u8, u8)]) -> MoveText {
        MoveText {
            segments: moves
                .iter()
                .map(|&(from, to)| Segment {
                    path: alloc::vec![(Point::new(from), false), (Point::new(to), false)],
                    count: 1,
                })
                .collect(),
        }
    }

    #[test]
    fn a_named_point_with_a_blot_is_hit() {
        // o has a blot on x's 5 (o's 20), taken from o's 13; x's 7 is open.
        let pos = start_with(&[(13, 4), (20, 1)]);
        let roll = dice(3, 1);
        for text in ["8/5/4", "8/5*/4", "8/5 5/4", "5/4 8/5"] {
            let play = resolve(&pos, text, roll).unwrap();
            assert_eq!(hit_points(&play), [5], "{text}");
            assert_eq!(play.to_string(), "8/5*/4", "{text}");
        }
        let listed = moves_text(&[(8, 5), (5, 4)]).to_play(&pos, roll).unwrap();
        assert_eq!(hit_points(&listed), [5]);
        assert_eq!(listed.to_string(), "8/5*/4");
        // No intermediate point named: gnubg's fold, the route that does not hit.
        let folded = resolve(&pos, "8/4", roll).unwrap();
        assert_eq!(hit_points(&folded), [] as [u8; 0]);
        assert_eq!(folded.to_string(), "8/4");
        let folded = moves_text(&[(8, 4)]).to_play(&pos, roll).unwrap();
        assert_eq!(hit_points(&folded), [] as [u8; 0]);
        // Going around by the other die, named.
        let around = resolve(&pos, "8/7/4", roll).unwrap();
        assert_eq!(around, folded);
        let listed = moves_text(&[(8, 7), (7, 4)]).to_play(&pos, roll).unwrap();
        assert_eq!(listed, folded);
        assert_eq!(
            resolve(&pos, "8/4*", roll),
            Err(IllegalMoveText::Illegal(IllegalPlay::NoHit(Point::new(4))))
        );
        // With the only open route through the blot, the fold hits.
        let only = start_with(&[(15, 1), (13, 4)]);
        let play = resolve(&only, "13/9", roll).unwrap();
        assert_eq!(hit_points(&play), [10]);
    }

    #[test]
    fn a_named_blocked_point_makes_the_play_illegal() {
        // At the start o holds x's 19 (o's 6) and x's 17 (o's 8).
        let pos = Position::start(BackgammonVariant::Standard, Player::X);
        let roll = dice(5, 3);
        let blocked = IllegalMoveText::Illegal(IllegalPlay::Blocked(Point::new(19)));
        assert_eq!(resolve(&pos, "24/19/16", roll), Err(blocked));
        assert_eq!(
            moves_text(&[(24, 19), (19, 16)]).to_play(&pos, roll),
            Err(blocked)
        );
        assert_eq!(blocked.to_string(), "point 19 is blocked");
        // Named the open way, or not named at all: the same legal play.
        let named = resolve(&pos, "24/21/16", roll).unwrap();
        let folded = resolve(&pos, "24/16", roll).unwrap();
        assert_eq!(named, folded);
        assert_eq!(folded.to_string(), "24/16");
    }

    #[test]
    fn doubles_and_folds() {
        let pos = Position::start(BackgammonVariant::Standard, Player::X);
        // 4-4: 24/16 has one route (via 20); naming it changes nothing.
        let roll = dice(4, 4);
        let a = resolve(&pos, "24/16(2)", roll).unwrap();
        let b = resolve(&pos, "24/20/16(2)", roll).unwrap();
        let c = moves_text(&[(24, 20), (20, 16), (24, 20), (20, 16)])
            .to_play(&pos, roll)
            .unwrap();
        assert_eq!((a, b), (c, c));
        assert_eq!(a.to_string(), "24/16(2)");
        // 3-3: 24/18 is 24/21/18, and o's blot on x's 21 (o's 4) is hit by
        // the first checker only.
        let roll = dice(3, 3);
        let blot = start_with(&[(6, 4), (4, 1)]);
        let one = resolve(&blot, "24/18 13/7", roll).unwrap();
        assert_eq!(hit_points(&one), [21]);
        let two = resolve(&blot, "24/18(2)", roll).unwrap();
        assert_eq!(hit_points(&two), [21]);
        assert_eq!(two.to_string(), "24/21*/18(2)");
        // o's point on x's 21: no route for 24/18, and a named 21 is blocked.
        let point = start_with(&[(6, 3), (4, 2)]);
        let blocked = IllegalMoveText::Illegal(IllegalPlay::Blocked(Point::new(21)));
        assert_eq!(resolve(&point, "24/18 13/7", roll), Err(blocked));
        assert_eq!(resolve(&point, "24/21/18 13/7", roll), Err(blocked));
    }

    #[test]
    fn every_legal_play_given_move_by_move_is_itself() {
        let mut positions = alloc::vec![
            Position::start(BackgammonVariant::Standard, Player::X),
            start_with(&[(13, 4), (20, 1)]),
            start_with(&[(6, 4), (4, 1)]),
            start_with(&[(13, 3), (15, 1), (20, 1)]),
        ];
        // x on the bar against a few blots.
        let mut setup = crate::setup::Setup::start(BackgammonVariant::Standard, Player::X);
        setup.off = None;
        setup.points.x[23] = 1;
        setup.bar.x = 1;
        setup.points.o[5] = 3;
        setup.points.o[3] = 1;
        setup.points.o[2] = 1;
        positions.push(Position::from_setup(&setup, BackgammonVariant::Standard).unwrap());
        for pos in positions {
            for roll in Dice::ALL_21 {
                for play in pos.legal_plays(roll).iter() {
                    let listed: alloc::vec::Vec<(u8, u8)> = play
                        .moves()
                        .iter()
                        .map(|m| (m.from().get(), m.to().get()))
                        .collect();
                    let resolved = moves_text(&listed).to_play(&pos, roll);
                    assert_eq!(
                        resolved.map(|p| pos.after(&p)),
                        Ok(pos.after(play)),
                        "{play} as {listed:?} with {roll}"
                    );
                    let text = play.to_string();
                    assert_eq!(resolve(&pos, &text, roll), Ok(*play), "{text} with {roll}");
                }
            }
        }
    }
}

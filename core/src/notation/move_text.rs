//! Move notation as gnubg writes it: `24/18 13/11*`, `bar/22`, `6/off`,
//! `8/5(2)`, `24/18*/13`.
//!
//! Parsing happens in two phases, as for chess SAN: [`MoveText::from_str`]
//! checks the syntax only; [`MoveText::to_play`] finds the legal play the
//! text means in a position for a roll.
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

fn parse_segment(token: &str) -> Result<Segment, ParseMoveTextError> {
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

impl FromStr for MoveText {
    type Err = ParseMoveTextError;
    fn from_str(s: &str) -> Result<MoveText, ParseMoveTextError> {
        if s.len() > 64 {
            return Err(ParseMoveTextError::TooLong);
        }
        let mut segments = Vec::new();
        let mut hops = 0usize;
        for token in s
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
        {
            let segment = parse_segment(token)?;
            hops += (segment.path.len() - 1) * usize::from(segment.count);
            if hops > 4 {
                return Err(ParseMoveTextError::TooManyMoves);
            }
            segments.push(segment);
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
        let mut moves: Vec<Move> = play.moves().to_vec();
        moves.sort_by(|a, b| b.from().cmp(&a.from()).then(b.to().cmp(&a.to())));
        // Chains as lists of (point, hit).
        let mut chains: Vec<Vec<(Point, bool)>> = Vec::new();
        for mv in moves {
            let end = chains.iter_mut().find(|c| {
                let last = c[c.len() - 1].0;
                last == mv.from() && !last.is_off()
            });
            match end {
                Some(chain) => chain.push((mv.to(), mv.is_hit())),
                None => chains.push(alloc::vec![(mv.from(), false), (mv.to(), mv.is_hit())]),
            }
        }
        // Highest start first; from one start, in the order the chains began.
        chains.sort_by(|a, b| b[0].0.cmp(&a[0].0));
        // Identical chains fold (a hit by any of them marks the fold).
        let mut segments: Vec<Segment> = Vec::new();
        for path in chains {
            match segments.last_mut() {
                Some(last)
                    if last.path.len() == path.len()
                        && last.path.iter().zip(&path).all(|(a, b)| a.0 == b.0) =>
                {
                    last.count += 1;
                    for (a, b) in last.path.iter_mut().zip(&path) {
                        a.1 |= b.1;
                    }
                }
                _ => segments.push(Segment { path, count: 1 }),
            }
        }
        // Intermediate points are written only where they hit.
        for segment in &mut segments {
            let last = segment.path.len() - 1;
            let mut i = 0;
            segment.path.retain(|&(_, hit)| {
                let keep = i == 0 || i == last || hit;
                i += 1;
                keep
            });
        }
        MoveText { segments }
    }

    /// The text of a play as a string: the same as `play.to_string()`.
    #[must_use]
    pub fn format(play: &Play) -> String {
        play.to_string()
    }

    /// The legal play this text means in `position` for `dice`.
    ///
    /// The text fixes where the mover's checkers end up; the legal play
    /// reaching that placement is the answer. When two legal plays reach it
    /// but hit differently, the `*` marks decide: a marked point must be
    /// hit, and if that still leaves several, the one hitting exactly the
    /// marked points is taken (so `24/13` means the play that hits nothing,
    /// as gnubg would write `24/18*/13` for the other).
    ///
    /// # Errors
    /// [`IllegalMoveText::Illegal`] with the reason the text is not a legal
    /// play; [`IllegalMoveText::Ambiguous`] when it fits several.
    pub fn to_play(&self, position: &Position, dice: Dice) -> Result<Play, IllegalMoveText> {
        let legal = position.legal_plays(dice);
        if position.outcome().is_some() {
            return Err(IllegalMoveText::Illegal(IllegalPlay::GameOver));
        }
        let mover = position.side(position.turn());
        // Where the mover's checkers end up, and the hops in order.
        let mut counts = [0i32; 26];
        for (c, &n) in counts.iter_mut().zip(mover.iter()) {
            *c = i32::from(n);
        }
        let mut hops: Vec<Move> = Vec::new();
        let mut marked = 0u32;
        for segment in &self.segments {
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
            }
        }
        if let Some(p) = counts.iter().position(|&c| c < 0) {
            return Err(IllegalMoveText::Illegal(IllegalPlay::NoChecker(
                Point::new(p as u8),
            )));
        }
        let candidates: Vec<(Play, u32)> = legal
            .iter()
            .filter_map(|play| {
                let after = position.after(play);
                let side = after.side(position.turn());
                let same = side
                    .iter()
                    .zip(counts.iter())
                    .all(|(&a, &b)| i32::from(a) == b);
                same.then(|| (*play, hits_of(play)))
            })
            .collect();
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
        if self.segments.is_empty() && legal.is_empty() {
            return Ok(Play::EMPTY);
        }
        Err(IllegalMoveText::Illegal(position.explain(&hops, dice)))
    }
}

impl fmt::Display for Play {
    /// The play in gnubg's notation, as [`MoveText::from_play`] writes it
    /// (`24/18 13/11*`, `8/5(2) 6/3(2)`; the empty play is empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&MoveText::from_play(self), f)
    }
}

/// Bit `p` for each point `p` a play hits on.
fn hits_of(play: &Play) -> u32 {
    play.moves()
        .iter()
        .filter(|m| m.is_hit())
        .fold(0, |acc, m| acc | 1 << m.to().get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Die;
    use crate::player::Player;
    use crate::setup::Variant;

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
        let pos = Position::start(Variant::Standard, Player::X);
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
}

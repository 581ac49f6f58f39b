//! The text board as GNU Backgammon 1.07 prints it (`show board`, then
//! `show pipcount`), character for character, for a gnubg session whose
//! player 0 is named `x` and player 1 `o`, or as the request names them.
//!
//! gnubg's player 0 is bgref's `x` (see `bgref_core::notation::match_id`),
//! and gnubg's text board letters player 0 `O` and player 1 `X`: so bgref's
//! `x` checkers are the `O`s (top) and `o`'s the `X`s (bottom). The point
//! numbers are those of the player on roll; `v` beside the bar when `o`
//! (gnubg's X) is on roll, `^` when `x` is. A request's `perspective`
//! numbers the points from that player's side instead (gnubg has no such
//! option: only then does the board differ from gnubg's). Stacks over five show their
//! count on the fifth row (`6` to `9`, then `A` to `F`). The Match ID is
//! the one gnubg writes for the state: playing, the dice as given, and
//! Jacoby as gnubg's defaults have it (on in money play, off in a match).
//! `scripts/ci-render.sh` compares this output with gnubg's own.

use std::fmt::Write as _;

use bgref_core::notation::match_id::MatchId;
use bgref_core::notation::position_id::PositionId;
use bgref_core::{CubeOwner, Player};

use super::{Picture, RULES};

/// A stack's fifth-row mark: blank under 5, the letter at 5, then the count.
const COUNTS: &[u8; 16] = b"     #6789ABCDEF";

/// gnubg's board as two arrays from each player's own view: index 0 to 23
/// are points 1 to 24, 24 the bar; `[0]` is player 0 (bgref's x).
struct Sides {
    board: [[u8; 25]; 2],
    off: [u32; 2],
}

impl Sides {
    fn new(picture: &Picture) -> Sides {
        let side = |p: Player| {
            let s = picture.position.side(p);
            let mut out = [0u8; 25];
            out[..24].copy_from_slice(&s[1..25]);
            out[24] = s[25];
            out
        };
        let off = |p: Player| u32::from(picture.position.side(p)[0]);
        Sides {
            board: [side(Player::X), side(Player::O)],
            off: [off(Player::X), off(Player::O)],
        }
    }

    /// gnubg's X (player 1) on player 1's point index `i`, else O.
    fn cell(&self, i: usize, row: u8) -> char {
        if self.board[1][i] > row {
            'X'
        } else if self.board[0][23 - i] > row {
            'O'
        } else {
            ' '
        }
    }

    /// The fifth row's mark on player 1's point index `i`.
    fn count(&self, i: usize) -> char {
        if self.board[1][i] > 0 {
            mark(self.board[1][i], 'X')
        } else {
            mark(self.board[0][23 - i], 'O')
        }
    }

    /// The three columns of borne-off checkers of `player` on `row`.
    fn off(&self, player: usize, row: u32, letter: char) -> String {
        (0..3)
            .map(|k| {
                if self.off[player] > 5 * k + row {
                    letter
                } else {
                    ' '
                }
            })
            .collect()
    }
}

fn mark(n: u8, letter: char) -> char {
    match COUNTS.get(usize::from(n)) {
        Some(b'#') => letter,
        Some(&c) => char::from(c),
        None => '?',
    }
}

/// gnubg's `ngettext("%d point", "%d points", n)`.
fn points(n: u32) -> String {
    if n == 1 {
        "1 point".to_owned()
    } else {
        format!("{n} points")
    }
}

/// gnubg's `ngettext("%d point match", "%d points match", n)`.
fn match_to(n: u32) -> String {
    if n == 1 {
        "1 point match".to_owned()
    } else {
        format!("{n} points match")
    }
}

/// The Match ID gnubg writes for the picture's state.
fn match_id(picture: &Picture) -> Option<String> {
    let mut id = MatchId::new(
        &picture.cube,
        &picture.match_state,
        &RULES,
        picture.position.turn(),
    )
    .ok()?;
    id.dice = picture.dice;
    id.jacoby = picture.match_state.is_money();
    Some(id.to_string())
}

/// The seven texts beside the board (gnubg's `apch`): player 0's name,
/// score, the roll line of player 0, the cube or match, the roll line of
/// player 1, player 1's score and name.
fn labels(picture: &Picture) -> [Option<String>; 7] {
    let m = &picture.match_state;
    let mut asz: [Option<String>; 7] = Default::default();
    let names = &picture.names;
    let name = |p: Player| match p {
        Player::X => format!("O: {}", names.x),
        Player::O => format!("X: {}", names.o),
    };
    asz[0] = Some(name(Player::X));
    asz[1] = Some(points(m.score.x));
    asz[5] = Some(points(m.score.o));
    asz[6] = Some(name(Player::O));
    let roll = match picture.dice {
        Some(d) => format!("Rolled {}{}", d.first().get(), d.second().get()),
        None if picture.position.outcome().is_none() => "On roll".to_owned(),
        None => String::new(),
    };
    asz[if picture.position.turn() == Player::O {
        4
    } else {
        2
    }] = Some(roll);
    let value = picture.cube.value.get();
    match picture.cube.owner {
        CubeOwner::Centre => {
            asz[3] = Some(match m.length {
                0 => format!("(Cube: {value})"),
                1 => match_to(1),
                n if m.crawford => format!("{} (Crawford game)", match_to(n)),
                n => format!("{} (Cube: {value})", match_to(n)),
            });
        }
        CubeOwner::Player(p) => {
            let i = match p {
                Player::X => 0,
                Player::O => 6,
            };
            asz[i] = Some(format!("{} (Cube: {value})", name(p)));
            if m.length > 0 {
                asz[3] = Some(match_to(m.length));
            }
        }
    }
    asz
}

/// The board, an empty line, and the pip counts line.
pub fn draw(picture: &Picture) -> String {
    let sides = Sides::new(picture);
    let asz = labels(picture);
    let label = |i: usize| asz[i].as_deref().unwrap_or("");
    // gnubg's fRoll: its player 1 (bgref's o) is on roll.
    let o_on_roll = picture.position.turn() == Player::O;
    let (top, bottom) = (
        " +13-14-15-16-17-18------19-20-21-22-23-24-+     ",
        " +12-11-10--9--8--7-------6--5--4--3--2--1-+     ",
    );
    // The point numbers are the viewer's (gnubg's: the side on roll's).
    let (top, bottom) = if picture.viewer == Player::O {
        (top, bottom)
    } else {
        (bottom, top)
    };
    let mut s = String::with_capacity(1200);
    let _ = writeln!(
        s,
        " GNU Backgammon  Position ID: {}",
        PositionId::from_position(&picture.position)
    );
    if let Some(id) = match_id(picture) {
        let _ = writeln!(s, "                 Match ID   : {id}");
    }
    let _ = writeln!(s, "{top}{}", label(0));
    let bar = |player: usize, row: u8, letter: char| {
        if sides.board[player][24] > row {
            letter
        } else {
            ' '
        }
    };
    for row in 0..4u8 {
        s.push_str(" |");
        for i in 12..18 {
            let _ = write!(s, " {} ", sides.cell(i, row));
        }
        let _ = write!(s, "| {} |", bar(0, row, 'O'));
        for i in 18..24 {
            let _ = write!(s, " {} ", sides.cell(i, row));
        }
        let _ = write!(s, "| {} ", sides.off(0, u32::from(row), 'O'));
        if row < 2 {
            s.push_str(label(usize::from(row) + 1));
        }
        s.push('\n');
    }
    s.push_str(" |");
    for i in 12..18 {
        let _ = write!(s, " {} ", sides.count(i));
    }
    let _ = write!(s, "| {} |", mark(sides.board[0][24], 'O'));
    for i in 18..24 {
        let _ = write!(s, " {} ", sides.count(i));
    }
    let _ = writeln!(s, "| {}", sides.off(0, 4, 'O'));
    let _ = writeln!(
        s,
        "{}|                  |BAR|                  |     {}",
        if o_on_roll { 'v' } else { '^' },
        label(3)
    );
    s.push_str(" |");
    for i in (6..12).rev() {
        let _ = write!(s, " {} ", sides.count(i));
    }
    let _ = write!(s, "| {} |", mark(sides.board[1][24], 'X'));
    for i in (0..6).rev() {
        let _ = write!(s, " {} ", sides.count(i));
    }
    let _ = writeln!(s, "| {}", sides.off(1, 4, 'X'));
    for row in (0..4u8).rev() {
        s.push_str(" |");
        for i in (6..12).rev() {
            let _ = write!(s, " {} ", sides.cell(i, row));
        }
        let _ = write!(s, "| {} |", bar(1, row, 'X'));
        for i in (0..6).rev() {
            let _ = write!(s, " {} ", sides.cell(i, row));
        }
        let _ = write!(s, "| {} ", sides.off(1, u32::from(row), 'X'));
        if row < 2 {
            s.push_str(label(5 - usize::from(row)));
        }
        s.push('\n');
    }
    let _ = writeln!(s, "{bottom}{}", label(6));
    // gnubg names the player on roll first.
    let me = picture.position.turn();
    let _ = writeln!(
        s,
        "\nThe pip counts are: {} {}, {} {}.",
        picture.names[me],
        picture.position.pip_count(me),
        picture.names[!me],
        picture.position.pip_count(!me)
    );
    s
}

#[cfg(test)]
mod tests {
    use bgref_core::{BackgammonVariant, ByPlayer, CubeState, MatchState, Position};

    use super::*;

    /// What gnubg 1.07 prints for `show board` and `show pipcount` after
    /// `new session`, naming its players x and o, `set matchid
    /// MAEAAAAAAAAA` and `set board 4HPwATDgc/ABMA`: the start, x (gnubg's
    /// player 0) on roll, money, centred cube (after the leading newline).
    const START_X: &str = "
 GNU Backgammon  Position ID: 4HPwATDgc/ABMA
                 Match ID   : MAEAAAAAAAAA
 +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: x
 | X           O    |   | O              X |     0 points
 | X           O    |   | O              X |     On roll
 | X           O    |   | O                |     
 | X                |   | O                |     
 | X                |   | O                |    
^|                  |BAR|                  |     (Cube: 1)
 | O                |   | X                |    
 | O                |   | X                |     
 | O           X    |   | X                |     
 | O           X    |   | X              O |     
 | O           X    |   | X              O |     0 points
 +13-14-15-16-17-18------19-20-21-22-23-24-+     X: o

The pip counts are: x 167, o 167.
";

    #[test]
    fn the_start_is_drawn_as_gnubg_draws_it() {
        let picture = Picture {
            position: Position::start(BackgammonVariant::Standard, Player::X),
            viewer: Player::X,
            cube: CubeState::START,
            match_state: MatchState::MONEY,
            dice: None,
            names: ByPlayer {
                x: "x".into(),
                o: "o".into(),
            },
            last_play: None,
        };
        assert_eq!(draw(&picture), &START_X[1..]);
    }

    #[test]
    fn the_perspective_numbers_the_points() {
        let picture = Picture {
            position: Position::start(BackgammonVariant::Standard, Player::X),
            viewer: Player::O,
            cube: CubeState::START,
            match_state: MatchState::MONEY,
            dice: None,
            names: ByPlayer {
                x: "x".into(),
                o: "o".into(),
            },
            last_play: None,
        };
        let lines = |s: &str| s.lines().map(str::to_owned).collect::<Vec<_>>();
        let (from_o, from_x) = (lines(&draw(&picture)), lines(&START_X[1..]));
        // Only the two number lines differ: swapped, their labels kept.
        for (i, (o, x)) in from_o.iter().zip(&from_x).enumerate() {
            match i {
                2 => assert!(
                    o.starts_with(" +13-14-15") && x.starts_with(" +12-11-10"),
                    "{o}"
                ),
                14 => assert!(
                    o.starts_with(" +12-11-10") && x.starts_with(" +13-14-15"),
                    "{o}"
                ),
                _ => assert_eq!(o, x, "line {i}"),
            }
        }
        assert_eq!(from_o.len(), from_x.len());
        assert!(from_o[8].starts_with('^'), "x is still on roll");
    }
}

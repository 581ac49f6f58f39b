//! Match transcripts in the Jellyfish `.mat` text format, as GNU
//! Backgammon's `import mat` reads it.
//!
//! [`write_mat`] turns what [`BackgammonGame::act`] returned for a whole match
//! (or money session, or a part of one) into the text of a `.mat` file:
//!
//! ```text
//! ; [Variation "Backgammon"]
//!
//!  3 point match
//!
//!  Game 1
//!  x : 0                          o : 0
//!   1) 62: 24/22 24/18             11: 24/22(2)
//!   2)  Doubles => 2                Drops
//!       Wins 1 point
//!
//!  Game 2
//!  x : 1                          o : 0
//!   1)                             61: 24/23 24/18
//!                                   Wins 2 points
//! ```
//!
//! (x's column is padded with spaces to its full width on every line, as
//! gnubg's reader needs; see below.)
//!
//! # What the writer emits
//! - A comment line `; [Variation "..."]` (`Backgammon`, `NackGammon`,
//!   `HyperGammon (1)`, `(2)` or `(3)`), which gnubg reads to pick the
//!   variant; then ` N point match`, with `0` for money play: gnubg reads a
//!   length of 0 as an unlimited session.
//! - With a [`MatHeader`] ([`write_mat_with`]), first the comment lines
//!   `; [Player 1 "..."]`, `; [Player 2 "..."]`, `; [EventDate
//!   "YYYY.MM.DD"]`, `; [Event "..."]`, `; [Round "..."]`.
//! - For each game: ` Game k` and the score before it, ` x : 2` left and
//!   ` o : 1` right. The players are named `x` and `o` (or as the header
//!   names them: gnubg takes the names from this line): x always has the
//!   left column, which gnubg imports as its player 0 (`X` in its Python
//!   `gnubg.match()`), and o the right one (player 1, `O`). gnubg's text
//!   board draws player 1 with the X checkers: go by the names.
//! - Numbered lines, `  7) ` then x's entry padded to 28 characters then
//!   o's: a roll and its play from the mover's own side, in gnubg notation
//!   with the higher die first (`52: 13/8 13/11`, `bar/22*`, `6/off`,
//!   `8/5(2)`); a roll with no legal play as the dice alone (`52:`);
//!   ` Doubles => 4`, ` Beavers => 4`, ` Raccoons => 8` (the value the cube
//!   reaches if taken), ` Takes`, ` Drops`. An entry starts a new line when
//!   it is x's or when o's side of the line is taken.
//! - The end of a game, on its own line in the winner's column:
//!   ` Wins 2 points`, with ` and the match` when it ends the match.
//!
//! # What the format cannot say
//! - **Resignations** are written only as their result: the winner's
//!   ` Wins N points` line without a preceding play or drop, which gnubg
//!   reads as a resignation of `N / cube` (single, gammon or backgammon;
//!   under the Jacoby rule a gammon resigned with the cube centred counts
//!   single, and so reads as a single resignation). A
//!   rejected resignation leaves no trace. A roll followed by an accepted
//!   resignation, without a play, is not written: gnubg would play a forced
//!   move for it.
//! - **Beavers and raccoons**: written as above; gnubg reads both as a
//!   redouble of the pending double, and a roll after a beaver as its take.
//!   The writer always writes the take. A beaver that is dropped is written
//!   ` Doubles => N` (the same record for gnubg): gnubg 1.07 keeps a
//!   "beaver pending" flag that only a take or a roll clears, so after
//!   `Beavers`, `Drops` it reads the next game's first roll as a take of
//!   nothing and loses that roll.
//! - **Jacoby and the beaver limit** are house rules the format has no
//!   field for; gnubg applies its own settings (`set jacoby`, `set beavers`)
//!   to a money session it imports.
//! - **Automatic doubles** cannot be written: the format starts every game
//!   with the cube at 1. [`write_mat`] refuses such a transcript
//!   ([`MatError::AutomaticDouble`]).
//! - The Crawford game is not marked: the reader finds it from the scores,
//!   as the rules do (the first game after a player reaches N-1).
//!
//! # Sources
//! The layout follows the files GNU Backgammon 1.07.001 (the Debian
//! package) writes with `export match mat`, and what its reader accepts,
//! read in gnubg's source (the GitMirroring/gnubg mirror of the GNU
//! repository): `ImportMatVariation`,
//! `ImportGame`, `ParseMatMove` and `ExpandMatMove` in gnubg's `import.c`
//! (the header is read as `%d point match`, length 0 being an unlimited
//! session; a line is split into two columns at the second roll's colon or
//! at the first double space after column 15; `Doubles`, `Beavers`,
//! `Raccoons`, `Takes`, `Drops` and `Wins` are matched by their first
//! letters; a roll with nothing after it is a pass when no play is legal),
//! and gnubg's `ParseMove` (`drawboard.c`) for the move syntax (`bar`,
//! `off`, `*`, `(2)`, chains such as `24/18*/13`). No code was taken from
//! them. `scripts/ci-gnubg-import.sh` has gnubg import bot-played matches
//! and compares every position, cube action and score with bgref's.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write as _};

use crate::cube::{GameEnd, GameScore};
use crate::dice::Dice;
use crate::game::{BackgammonGame, Event, Phase};
use crate::player::{ByPlayer, Player};
use crate::setup::BackgammonVariant;

/// Why a transcript cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatError {
    /// A game started with the cube above 1 (automatic doubles), which the
    /// format cannot express.
    AutomaticDouble,
    /// The start is not at an opening roll, or a step does not follow
    /// from the state before it (for instance a play with no dice rolled):
    /// not a transcript of [`BackgammonGame::act`] from a game's start.
    Inconsistent,
    /// The match began from a set position ([`BackgammonGame::set_up`]): the
    /// format starts every game from the starting position.
    SetUp,
}

impl fmt::Display for MatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MatError::AutomaticDouble => {
                "the .mat format cannot express a cube raised by automatic doubles"
            }
            MatError::Inconsistent => "a step does not follow from the state before it",
            MatError::SetUp => {
                "the match began from a set position, and a .mat file starts every game from the \
                 starting position"
            }
        })
    }
}

impl core::error::Error for MatError {}

/// The name gnubg's `[Variation "..."]` comment gives `variant`.
const fn variation_name(variant: BackgammonVariant) -> &'static str {
    match variant {
        BackgammonVariant::Standard => "Backgammon",
        BackgammonVariant::Nackgammon => "NackGammon",
        BackgammonVariant::Hypergammon1 => "HyperGammon (1)",
        BackgammonVariant::Hypergammon2 => "HyperGammon (2)",
        BackgammonVariant::Hypergammon3 => "HyperGammon (3)",
    }
}

/// Width of x's column on a move line, after the line number.
const LEFT_WIDTH: usize = 28;

/// One game's lines while they are being built.
#[derive(Debug, Default)]
struct Rows {
    /// `(x's entry, o's entry)` per numbered line.
    lines: Vec<(Option<String>, Option<String>)>,
}

impl Rows {
    fn push(&mut self, player: Player, entry: String) {
        match (player, self.lines.last_mut()) {
            (Player::O, Some((_, right @ None))) => *right = Some(entry),
            (Player::O, _) => self.lines.push((None, Some(entry))),
            (Player::X, _) => self.lines.push((Some(entry), None)),
        }
    }

    /// The entry pushed last.
    fn last_mut(&mut self) -> Option<&mut String> {
        let (left, right) = self.lines.last_mut()?;
        right.as_mut().or(left.as_mut())
    }

    fn write(&mut self, out: &mut String) {
        for (i, (left, right)) in self.lines.drain(..).enumerate() {
            let _ = write!(out, "{:>3}) ", i + 1);
            pad_left(out, left.as_deref().unwrap_or_default());
            if let Some(right) = right {
                out.push_str(&right);
            }
            out.push('\n');
        }
    }
}

/// Writes x's entry padded to its column, always followed by at least two
/// spaces.
///
/// gnubg's reader (1.07, `ImportGame`) finds o's column at the second
/// roll's colon or else at the first double space after column 15, and
/// when neither is there it reuses the split point of the line before,
/// reading the rest of that line again. Every line written here has one of
/// the two, so each is read on its own.
fn pad_left(out: &mut String, left: &str) {
    out.push_str(left);
    let pad = LEFT_WIDTH.saturating_sub(left.len()).max(2);
    out.extend(core::iter::repeat_n(' ', pad));
}

/// The dice, higher first, as Jellyfish and gnubg write them.
fn roll_text(dice: Dice) -> String {
    let [a, b] = dice.values();
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    let mut s = String::new();
    let _ = write!(s, "{hi}{lo}:");
    s
}

fn write_game_header(out: &mut String, game: u32, score: ByPlayer<u32>, names: ByPlayer<&str>) {
    let mut left = String::new();
    let _ = write!(left, "{} : {}", names.x, score.x);
    // A long name still leaves a space before o's, as gnubg splits there.
    let gap = if left.len() < 31 { 31 - left.len() } else { 1 };
    let _ = writeln!(
        out,
        "\n Game {game}\n {left}{:gap$}{} : {}",
        "", names.o, score.o
    );
}

/// What a `.mat` file says about its match besides the games: the
/// players' names and the event, as gnubg's `import mat` reads them
/// (the names from each game's score line, the rest from the
/// `; [Event "..."]`, `; [Round "..."]` and `; [EventDate "..."]` comment
/// lines). [`MatHeader::default`] writes what [`write_mat`] always wrote:
/// players `x` and `o`, no event.
///
/// The writer does not check the texts: a name with `:` or a line break,
/// or an event with `"`, would not read back. The service checks them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatHeader<'a> {
    /// The players' names (`None`: `x` and `o`).
    pub players: Option<ByPlayer<&'a str>>,
    /// The event.
    pub event: Option<&'a str>,
    /// The round.
    pub round: Option<&'a str>,
    /// The date: year, month, day.
    pub date: Option<(u16, u8, u8)>,
}

impl MatHeader<'_> {
    fn names(&self) -> ByPlayer<&str> {
        self.players.unwrap_or(ByPlayer { x: "x", o: "o" })
    }

    fn write(&self, out: &mut String) {
        if let Some(players) = self.players {
            let _ = writeln!(out, "; [Player 1 \"{}\"]", players.x);
            let _ = writeln!(out, "; [Player 2 \"{}\"]", players.o);
        }
        if let Some((y, m, d)) = self.date {
            let _ = writeln!(out, "; [EventDate \"{y:04}.{m:02}.{d:02}\"]");
        }
        if let Some(event) = self.event {
            let _ = writeln!(out, "; [Event \"{event}\"]");
        }
        if let Some(round) = self.round {
            let _ = writeln!(out, "; [Round \"{round}\"]");
        }
    }
}

fn write_result(out: &mut String, score: &GameScore) {
    let plural = if score.points == 1 { "" } else { "s" };
    let and_match = if score.match_outcome.winner.is_some() {
        " and the match"
    } else {
        ""
    };
    let mut wins = String::new();
    let _ = write!(wins, " Wins {} point{plural}{and_match}", score.points);
    out.push_str("     ");
    match score.winner {
        Player::X => pad_left(out, &wins),
        Player::O => {
            pad_left(out, "");
            out.push_str(&wins);
        }
    }
    out.push('\n');
}

/// Writes the transcript of a match as a Jellyfish `.mat` file.
///
/// `start` is the state before the first step, at a game's opening roll
/// (usually [`BackgammonGame::new`]; the first game's score line is `start`'s
/// score); `steps` are the pairs [`BackgammonGame::act`] returned, in order,
/// each state the one *after* its event. The transcript may stop anywhere:
/// a game still going on is written without a result.
///
/// ```
/// use bgref_core::notation::mat::write_mat;
/// use bgref_core::verify::Roller;
/// use bgref_core::{Action, CubeRules, BackgammonGame, MatchState, Player, BackgammonVariant};
///
/// let roller = Roller::new(&[7; 32]);
/// let start = BackgammonGame::new(
///     BackgammonVariant::Standard,
///     CubeRules::DEFAULT,
///     MatchState::new_match(3),
///     "seed".into(),
/// );
/// let step = start.act(Player::X, &Action::Roll, &roller)?;
/// let text = write_mat(&start, &[step])?;
/// assert!(text.contains(" 3 point match\n\n Game 1\n x : 0"));
/// # Ok::<_, Box<dyn core::error::Error>>(())
/// ```
///
/// # Errors
/// [`MatError::AutomaticDouble`] when a game's cube starts above 1;
/// [`MatError::Inconsistent`] when `start` is not at an opening roll or a
/// step cannot follow the state before it.
pub fn write_mat(
    start: &BackgammonGame,
    steps: &[(BackgammonGame, Event)],
) -> Result<String, MatError> {
    write_mat_with(start, steps, &MatHeader::default())
}

/// [`write_mat`] with the players' names and the event of `header`.
///
/// # Errors
/// As [`write_mat`].
pub fn write_mat_with(
    start: &BackgammonGame,
    steps: &[(BackgammonGame, Event)],
    header: &MatHeader<'_>,
) -> Result<String, MatError> {
    if start.set_up {
        return Err(MatError::SetUp);
    }
    if start.phase != Phase::OpeningRoll {
        return Err(MatError::Inconsistent);
    }
    let names = header.names();
    let mut out = String::new();
    header.write(&mut out);
    let _ = writeln!(
        out,
        "; [Variation \"{}\"]\n\n {} point match",
        variation_name(start.variant),
        start.match_state.length
    );
    write_game_header(&mut out, start.game, start.match_state.score, names);
    let mut rows = Rows::default();
    let mut prev = start;
    for (state, event) in steps {
        match event {
            Event::OpeningRoll { .. } => {
                if state.cube.value.get() != 1 {
                    return Err(MatError::AutomaticDouble);
                }
            }
            Event::Rolled {
                player,
                dice,
                passed,
            } => {
                if *passed {
                    rows.push(*player, roll_text(*dice));
                }
            }
            Event::Moved { player, play } => {
                let dice = prev.dice.ok_or(MatError::Inconsistent)?;
                let mut entry = roll_text(dice);
                let _ = write!(entry, " {play}");
                rows.push(*player, String::from(entry.trim_end()));
                if let Some(score) = &state.result {
                    rows.write(&mut out);
                    write_result(&mut out, score);
                }
            }
            Event::Doubled { by } | Event::Beavered { by } | Event::Raccooned { by } => {
                let word = match event {
                    Event::Doubled { .. } => "Doubles",
                    Event::Beavered { .. } => "Beavers",
                    _ => "Raccoons",
                };
                let value = state.cube.value.doubled().ok_or(MatError::Inconsistent)?;
                let mut entry = String::new();
                let _ = write!(entry, " {word} => {}", value.get());
                rows.push(*by, entry);
            }
            Event::Taken { by } => rows.push(*by, String::from(" Takes")),
            Event::Resigned { .. } | Event::Rejected { .. } => {}
            // A backgammon game's events hold no tables game's.
            Event::StarterChosen { .. } | Event::GameEnded(crate::Score::Tables(_)) => {
                return Err(MatError::Inconsistent);
            }
            Event::GameEnded(crate::Score::Backgammon(score)) => {
                if let GameEnd::Pass { winner } = score.end {
                    // A dropped beaver is written as a redouble (see the
                    // module doc: gnubg 1.07 would read the next roll as
                    // the beaver's take).
                    if !prev.cube.beavers.is_multiple_of(2)
                        && let Some(entry) = rows.last_mut()
                    {
                        *entry = entry.replacen(" Beavers", " Doubles", 1);
                    }
                    rows.push(!winner, String::from(" Drops"));
                }
                rows.write(&mut out);
                write_result(&mut out, score);
            }
            Event::NewGame { game, .. } => {
                rows.write(&mut out);
                write_game_header(&mut out, *game, state.match_state.score, names);
            }
        }
        prev = state;
    }
    rows.write(&mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use super::*;
    use crate::cube::{CubeRules, GameResult, MatchState};
    use crate::game::Action;
    use crate::notation::move_text::MoveText;
    use crate::verify::Roller;

    /// Plays `script` from `start`; `None` in the script means "the first
    /// legal play" for whoever must move, and the player is whoever must
    /// act (x when either may).
    fn run(start: &BackgammonGame, script: &[Option<Action>]) -> Vec<(BackgammonGame, Event)> {
        let roller = Roller::new(&[7; 32]);
        let mut steps: Vec<(BackgammonGame, Event)> = Vec::new();
        for action in script {
            let state = steps.last().map_or(start, |(s, _)| s);
            let action = action.clone().unwrap_or_else(|| {
                let play = *state
                    .position
                    .legal_plays(state.dice.unwrap())
                    .iter()
                    .next()
                    .unwrap();
                Action::Move(play.to_string().parse::<MoveText>().unwrap())
            });
            let player = state.to_act().unwrap_or(Player::X);
            steps.push(state.act(player, &action, &roller).unwrap());
        }
        steps
    }

    #[test]
    fn a_hand_checked_match() {
        // Dice of the roller [7; 32] for client seed "hand": game 1 x
        // opens 62, o rolls 11; game 2 o opens 61.
        let start = BackgammonGame::new(
            BackgammonVariant::Standard,
            CubeRules::DEFAULT,
            MatchState::new_match(3),
            "hand".into(),
        );
        let steps = run(
            &start,
            &[
                Some(Action::Roll),
                None,
                Some(Action::Roll),
                None,
                Some(Action::Double),
                Some(Action::Pass),
                Some(Action::NextGame),
                Some(Action::Roll),
                None,
                // x resigns a gammon before rolling: rejected (no trace),
                // then accepted (o wins 2 times the cube).
                Some(Action::Resign(GameResult::Gammon)),
                Some(Action::Reject),
                Some(Action::Resign(GameResult::Gammon)),
                Some(Action::Accept),
            ],
        );
        let expected = [
            "; [Variation \"Backgammon\"]",
            "",
            " 3 point match",
            "",
            " Game 1",
            " x : 0                          o : 0",
            "  1) 62: 24/22 24/18             11: 24/22(2)",
            "  2)  Doubles => 2                Drops",
            "      Wins 1 point               ",
            "",
            " Game 2",
            " x : 1                          o : 0",
            "  1)                             61: 24/23 24/18",
            "                                  Wins 2 points",
            "",
        ];
        assert_eq!(write_mat(&start, &steps).unwrap(), expected.join("\n"));
        // Every line has the second roll's colon or a double space after
        // column 15 (gnubg's reader needs one of them).
        for line in write_mat(&start, &steps).unwrap().lines() {
            if line.starts_with("  ") {
                assert!(line.len() > 15 && line[15..].contains("  "), "{line:?}");
            }
        }
    }

    #[test]
    fn the_header_names_the_players_and_the_event() {
        let start = BackgammonGame::new(
            BackgammonVariant::Standard,
            CubeRules::DEFAULT,
            MatchState::new_match(3),
            "hand".into(),
        );
        let steps = run(&start, &[Some(Action::Roll), None]);
        let long = "Anna-Maria Konstantinopoulou 3";
        let header = MatHeader {
            players: Some(ByPlayer {
                x: "Alice Smith",
                o: long,
            }),
            event: Some("Club Final"),
            round: Some("Semi-final 2"),
            date: Some((2026, 3, 7)),
        };
        let text = write_mat_with(&start, &steps, &header).unwrap();
        let expected = [
            "; [Player 1 \"Alice Smith\"]",
            "; [Player 2 \"Anna-Maria Konstantinopoulou 3\"]",
            "; [EventDate \"2026.03.07\"]",
            "; [Event \"Club Final\"]",
            "; [Round \"Semi-final 2\"]",
            "; [Variation \"Backgammon\"]",
            "",
            " 3 point match",
            "",
            " Game 1",
            " Alice Smith : 0                Anna-Maria Konstantinopoulou 3 : 0",
            "  1) 62: 24/22 24/18             ",
            "",
        ];
        assert_eq!(text, expected.join("\n"));
        // A name as long as the column still leaves a space before o's.
        let header = MatHeader {
            players: Some(ByPlayer { x: long, o: "o" }),
            ..MatHeader::default()
        };
        let text = write_mat_with(&start, &steps, &header).unwrap();
        assert!(
            text.contains(" Anna-Maria Konstantinopoulou 3 : 0 o : 0\n"),
            "{text}"
        );
        // The default header is write_mat's.
        assert_eq!(
            write_mat_with(&start, &steps, &MatHeader::default()).unwrap(),
            write_mat(&start, &steps).unwrap()
        );
    }

    #[test]
    fn beavers_raccoons_and_a_dropped_beaver() {
        let money = BackgammonGame::new(
            BackgammonVariant::Standard,
            CubeRules {
                beavers: 2,
                ..CubeRules::DEFAULT
            },
            MatchState::MONEY,
            "beaver".into(),
        );
        let steps = run(
            &money,
            &[
                Some(Action::Roll),
                None,
                Some(Action::Double),
                Some(Action::Beaver),
                Some(Action::Pass),
                Some(Action::NextGame),
                Some(Action::Roll),
                None,
                Some(Action::Double),
                Some(Action::Beaver),
                Some(Action::Raccoon),
                Some(Action::Take),
                Some(Action::Roll),
                None,
            ],
        );
        // Game 1: x opens, o doubles, x beavers and o drops the beaver
        // (written as a redouble); x wins the beavered cube, 2. Game 2:
        // beaver, raccoon, take; the cube is at 8.
        let expected = [
            "; [Variation \"Backgammon\"]",
            "",
            " 0 point match",
            "",
            " Game 1",
            " x : 0                          o : 0",
            "  1) 54: 24/20 13/8               Doubles => 2",
            "  2)  Doubles => 4                Drops",
            "      Wins 2 points              ",
            "",
            " Game 2",
            " x : 2                          o : 0",
            "  1) 65: 24/13                    Doubles => 2",
            "  2)  Beavers => 4                Raccoons => 8",
            "  3)  Takes                      65: 24/13",
            "",
        ];
        assert_eq!(write_mat(&money, &steps).unwrap(), expected.join("\n"));
        assert_eq!(steps.last().unwrap().0.cube.value.get(), 8);
    }

    #[test]
    fn what_cannot_be_written() {
        let roller = Roller::new(&[7; 32]);
        let rules = CubeRules {
            automatic_doubles: 1,
            ..CubeRules::DEFAULT
        };
        let money = BackgammonGame::new(
            BackgammonVariant::Standard,
            rules,
            MatchState::MONEY,
            "m".into(),
        );
        let (start, step) = (1..500)
            .map(|game| BackgammonGame {
                game,
                ..money.clone()
            })
            .find_map(|s| {
                let step = s.act(Player::X, &Action::Roll, &roller).unwrap();
                (step.0.cube.value.get() > 1).then_some((s, step))
            })
            .expect("a tied opening roll");
        assert_eq!(write_mat(&start, &[step]), Err(MatError::AutomaticDouble));
        // A match from a set position.
        let set_up = BackgammonGame {
            set_up: true,
            ..money.clone()
        };
        assert_eq!(write_mat(&set_up, &[]), Err(MatError::SetUp));
        // A play with no dice before it; a start in the middle of a game.
        let steps = run(&money, &[Some(Action::Roll), None]);
        assert_eq!(write_mat(&money, &steps[1..]), Err(MatError::Inconsistent));
        assert_eq!(
            write_mat(&steps[0].0, &steps[1..]),
            Err(MatError::Inconsistent)
        );
        assert_eq!(
            MatError::Inconsistent.to_string(),
            "a step does not follow from the state before it"
        );
    }
}

//! [`VariantPosition`]: one position type for the ten rulesets of
//! [`Variant`], as shakmaty's `VariantPosition` is for its chess variants.
//!
//! Each ruleset is played by the engine that fits it, behind this one face:
//! the backgammon variants and Portes on [`Position`] with its generator,
//! Tavla on [`Position`] with the hit-and-run generator
//! ([`crate::tables::HitAndRun`]), and Plakoto, Fevga and Long Nardy on
//! [`TablesPosition`]. Every question (legal plays, a play checked with the
//! reason it is illegal, the outcome and its points, the encodings, pips)
//! is asked once here; the dispatch is a `match` on a private enum, so the
//! standard generator runs exactly as [`Position::legal_plays`] does.
//!
//! ```
//! use bgref_core::tables::TablesRules;
//! use bgref_core::{Dice, Die, Player, Variant, VariantPosition};
//!
//! let dice = Dice::new(Die::new(6), Die::new(5));
//! for variant in [Variant::Standard, Variant::Plakoto] {
//!     let start = VariantPosition::start(variant, TablesRules::DEFAULT, Player::X);
//!     let plays = start.legal_plays(dice);
//!     let (after, played) = start.play(plays.get(0).unwrap(), dice)?;
//!     assert_eq!((after.turn(), after.variant()), (Player::O, variant));
//!     assert!(after.outcome().is_none(), "{played}");
//! }
//! # Ok::<_, bgref_core::IllegalVariantPlay>(())
//! ```

use core::fmt;

use bitflags::bitflags;

use crate::cube::GameResult;
use crate::dice::Dice;
use crate::movegen::PlayList;
use crate::notation::move_text::{IllegalMoveText, MoveText};
use crate::notation::position_id::PositionId;
use crate::play::{IllegalPlay, Move, PartialPlay, Play};
use crate::player::Player;
use crate::position::Position;
use crate::setup::BackgammonVariant;
use crate::tables::{
    HitAndRun, OutcomeKind, TablesIllegalPlay, TablesPlayList, TablesPosition, TablesRules,
};
use crate::variant::Variant;

/// The engine behind a [`VariantPosition`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Engine {
    /// The backgammon variants, Portes and Tavla.
    Board(Position),
    /// Plakoto, Fevga and Long Nardy.
    Tables(TablesPosition),
}

/// A valid position of any of the ten rulesets, with its rule options and
/// the player on roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VariantPosition {
    variant: Variant,
    rules: TablesRules,
    engine: Engine,
}

/// A [`Position`] given for a variant that is not played on its board
/// (Plakoto, Fevga, Long Nardy), or on another backgammon board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrongBoard;

impl fmt::Display for WrongBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the variant is not played on this backgammon board")
    }
}

impl core::error::Error for WrongBoard {}

bitflags! {
    /// The text encodings a position can be written in, beside the signed
    /// board every ruleset has.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Notations: u8 {
        /// gnubg's Position ID (Plakoto's pins do not fit it).
        const POSITION_ID = 1 << 0;
        /// XGID (the backgammon board only).
        const XGID = 1 << 1;
        /// FIBS board (the backgammon board only).
        const FIBS = 1 << 2;
        /// Pin marks beside the board (Plakoto).
        const PINS = 1 << 3;
    }
}

/// Why a play is not legal, in whichever engine plays the variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalVariantPlay {
    /// On the backgammon board (the backgammon variants, Portes, Tavla).
    Board(IllegalPlay),
    /// A move text that several legal plays match: mark the hits (`*`).
    Ambiguous,
    /// In Plakoto, Fevga or Long Nardy.
    Tables(TablesIllegalPlay),
}

impl fmt::Display for IllegalVariantPlay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalVariantPlay::Board(reason) => reason.fmt(f),
            IllegalVariantPlay::Ambiguous => IllegalMoveText::Ambiguous.fmt(f),
            IllegalVariantPlay::Tables(reason) => reason.fmt(f),
        }
    }
}

impl core::error::Error for IllegalVariantPlay {}

impl From<IllegalMoveText> for IllegalVariantPlay {
    fn from(err: IllegalMoveText) -> IllegalVariantPlay {
        match err {
            IllegalMoveText::Illegal(reason) => IllegalVariantPlay::Board(reason),
            IllegalMoveText::Ambiguous => IllegalVariantPlay::Ambiguous,
        }
    }
}

/// How a game of any ruleset ended, and the points it is worth before any
/// cube.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VariantOutcome {
    /// The winner; `None` for a draw (Plakoto, both mothers pinned).
    pub winner: Option<Player>,
    /// The kind of ending: a single, a double win (gammon, backgammon,
    /// mars), Plakoto's mother or draw.
    pub kind: OutcomeKind,
    /// On the backgammon board: single, gammon or backgammon.
    pub result: Option<GameResult>,
    /// Points won without the cube: 1 to 3 in backgammon, 1 or 2 in the
    /// tables games (a backgammon counts 2 in Portes and Tavla), 0 for a
    /// draw.
    pub points: u32,
}

/// The legal plays of a [`VariantPosition`] for one roll, one per distinct
/// resulting position; empty when the turn passes.
#[derive(Debug, Clone)]
pub struct VariantPlayList(Plays);

impl Default for VariantPlayList {
    /// No play.
    fn default() -> VariantPlayList {
        VariantPlayList(Plays::Board(PlayList::default()))
    }
}

#[derive(Debug, Clone)]
enum Plays {
    Board(PlayList),
    Tables(TablesPlayList),
}

impl VariantPlayList {
    /// The number of plays.
    #[must_use]
    pub fn len(&self) -> usize {
        match &self.0 {
            Plays::Board(list) => list.len(),
            Plays::Tables(list) => list.len(),
        }
    }

    /// Whether there is no legal play (the turn passes).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The play at `index`.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<&Play> {
        match &self.0 {
            Plays::Board(list) => list.get(index),
            Plays::Tables(list) => list.get(index),
        }
    }

    /// The plays, in generation order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Play> + '_ {
        (0..self.len()).map(|i| self.get(i).expect("an index below len"))
    }

    /// The plays on the backgammon board, as its generator lists them
    /// (`None` in Plakoto, Fevga and Long Nardy): for a caller that also
    /// holds the board's [`Position`] ([`VariantPosition::board`]).
    #[must_use]
    pub const fn board(&self) -> Option<&PlayList> {
        match &self.0 {
            Plays::Board(list) => Some(list),
            Plays::Tables(_) => None,
        }
    }

    /// The most single-die moves a play makes (0 when empty).
    #[must_use]
    pub fn moves_per_play(&self) -> usize {
        match &self.0 {
            Plays::Board(list) => list.moves_per_play(),
            Plays::Tables(list) => list.moves_per_play(),
        }
    }
}

impl VariantPosition {
    /// The start of `variant` with `turn` on roll, under `rules` (the
    /// options of the tables games; the backgammon variants ignore them).
    #[must_use]
    pub fn start(variant: Variant, rules: TablesRules, turn: Player) -> VariantPosition {
        let engine = match (variant.board(), variant.game()) {
            (Some(board), _) => Engine::Board(Position::start(board, turn)),
            (None, Some(game)) => match TablesPosition::start(game, turn) {
                Ok(position) => Engine::Tables(position.with_rules(rules)),
                // Only Portes and Tavla fail, and they have a board.
                Err(_) => Engine::Board(Position::start(BackgammonVariant::Standard, turn)),
            },
            (None, None) => unreachable!("every variant is a backgammon variant or a game"),
        };
        VariantPosition {
            variant,
            rules,
            engine,
        }
    }

    /// `position` played as `variant` (a backgammon variant on its own
    /// board, or Portes or Tavla on the standard board) under `rules`.
    ///
    /// # Errors
    /// [`WrongBoard`] when `variant` is not played on `position`'s board.
    pub fn on_board(
        variant: Variant,
        rules: TablesRules,
        position: Position,
    ) -> Result<VariantPosition, WrongBoard> {
        if variant.board() != Some(position.variant()) {
            return Err(WrongBoard);
        }
        Ok(VariantPosition {
            variant,
            rules,
            engine: Engine::Board(position),
        })
    }

    /// The variant.
    #[must_use]
    pub const fn variant(&self) -> Variant {
        self.variant
    }

    /// The rule options (the tables games').
    #[must_use]
    pub const fn rules(&self) -> TablesRules {
        self.rules
    }

    /// The backgammon board, for the backgammon variants, Portes and Tavla.
    #[must_use]
    pub const fn board(&self) -> Option<&Position> {
        match &self.engine {
            Engine::Board(position) => Some(position),
            Engine::Tables(_) => None,
        }
    }

    /// The tables engine's position, for Plakoto, Fevga and Long Nardy.
    #[must_use]
    pub const fn tables(&self) -> Option<&TablesPosition> {
        match &self.engine {
            Engine::Board(_) => None,
            Engine::Tables(position) => Some(position),
        }
    }

    /// The player on roll.
    #[must_use]
    pub const fn turn(&self) -> Player {
        match &self.engine {
            Engine::Board(position) => position.turn(),
            Engine::Tables(position) => position.turn(),
        }
    }

    /// The same checkers with the other player on roll.
    #[must_use]
    pub fn swap_turn(&self) -> VariantPosition {
        self.with(match &self.engine {
            Engine::Board(position) => Engine::Board(position.swap_turn()),
            Engine::Tables(position) => Engine::Tables(position.swap_turn()),
        })
    }

    /// Pips `player` needs to bear off every checker.
    #[must_use]
    pub fn pip_count(&self, player: Player) -> u32 {
        match &self.engine {
            Engine::Board(position) => position.pip_count(player),
            Engine::Tables(position) => position.pip_count(player),
        }
    }

    /// The encodings this position can be written in.
    #[must_use]
    pub fn notations(&self) -> Notations {
        match self.variant {
            Variant::Plakoto => Notations::PINS,
            Variant::Fevga | Variant::LongNardy => Notations::POSITION_ID,
            _ => Notations::POSITION_ID | Notations::XGID | Notations::FIBS,
        }
    }

    /// The Position ID, where [`VariantPosition::notations`] has it.
    #[must_use]
    pub fn position_id(&self) -> Option<PositionId> {
        match &self.engine {
            Engine::Board(position) => Some(PositionId::from_position(position)),
            Engine::Tables(position) => position.position_id(),
        }
    }

    /// The hit-and-run rule on the backgammon board (Tavla's option).
    fn hit_and_run(&self) -> HitAndRun {
        self.variant
            .game()
            .map_or(HitAndRun::Allowed, |game| self.rules.hit_and_run_in(game))
    }

    fn with(&self, engine: Engine) -> VariantPosition {
        VariantPosition { engine, ..*self }
    }

    /// How the game ended, or `None` while it goes on.
    #[must_use]
    pub fn outcome(&self) -> Option<VariantOutcome> {
        match &self.engine {
            Engine::Board(position) => position.outcome().map(|o| {
                let points = match self.variant.game() {
                    Some(game) => game.backgammon_points(o.result, false).unwrap_or(1),
                    None => o.result.multiplier(),
                };
                VariantOutcome {
                    winner: Some(o.winner),
                    kind: if o.result == GameResult::Single {
                        OutcomeKind::Single
                    } else {
                        OutcomeKind::Double
                    },
                    result: Some(o.result),
                    points,
                }
            }),
            Engine::Tables(position) => position.outcome().map(|o| VariantOutcome {
                winner: o.winner,
                kind: o.kind,
                result: None,
                points: o.points,
            }),
        }
    }

    /// Every legal play for `dice`, one per distinct resulting position;
    /// empty when the player cannot move or the game is over.
    #[must_use]
    pub fn legal_plays(&self, dice: Dice) -> VariantPlayList {
        VariantPlayList(match &self.engine {
            Engine::Board(position) => Plays::Board(self.hit_and_run().legal_plays(position, dice)),
            Engine::Tables(position) => Plays::Tables(position.legal_plays(dice)),
        })
    }

    /// The position after a play from [`VariantPosition::legal_plays`]
    /// (opponent on roll).
    ///
    /// # Panics
    /// As [`Position::after`] and [`TablesPosition::after`], for a play
    /// that is not one of this position's.
    #[must_use]
    pub fn after(&self, play: &Play) -> VariantPosition {
        self.with(match &self.engine {
            Engine::Board(position) => Engine::Board(position.after(play)),
            Engine::Tables(position) => Engine::Tables(position.after(play)),
        })
    }

    /// Checks `play` for `dice` and returns the new position (opponent on
    /// roll) with the legal play it matched.
    ///
    /// # Errors
    /// [`IllegalVariantPlay`] with the precise reason.
    pub fn play(
        &self,
        play: &Play,
        dice: Dice,
    ) -> Result<(VariantPosition, Play), IllegalVariantPlay> {
        match &self.engine {
            Engine::Board(position) => self
                .hit_and_run()
                .play(position, play, dice)
                .map(|(after, played)| (self.with(Engine::Board(after)), played))
                .map_err(IllegalVariantPlay::Board),
            Engine::Tables(position) => position
                .play(play, dice)
                .map(|(after, played)| (self.with(Engine::Tables(after)), played))
                .map_err(IllegalVariantPlay::Tables),
        }
    }

    /// Checks a play written in move notation and plays it: the new
    /// position with the legal play the text means.
    ///
    /// # Errors
    /// [`IllegalVariantPlay`]: the reason, or
    /// [`IllegalVariantPlay::Ambiguous`] when the text could mean several
    /// plays.
    pub fn play_text(
        &self,
        text: &MoveText,
        dice: Dice,
    ) -> Result<(VariantPosition, Play), IllegalVariantPlay> {
        match &self.engine {
            Engine::Board(position) => {
                let play = self.hit_and_run().play_text(position, text, dice)?;
                Ok((self.with(Engine::Board(position.after(&play))), play))
            }
            Engine::Tables(position) => position
                .play_text(text, dice)
                .map(|(after, played)| (self.with(Engine::Tables(after)), played))
                .map_err(IllegalVariantPlay::Tables),
        }
    }

    /// What is known about an unfinished turn: `moves` in the order played.
    ///
    /// # Errors
    /// [`IllegalVariantPlay`] when no legal play begins with these moves.
    pub fn partial_play(
        &self,
        moves: &[Move],
        dice: Dice,
    ) -> Result<PartialPlay, IllegalVariantPlay> {
        match &self.engine {
            Engine::Board(position) => self
                .hit_and_run()
                .partial_play(position, moves, dice)
                .map_err(IllegalVariantPlay::Board),
            Engine::Tables(position) => position
                .partial_play(moves, dice)
                .map_err(IllegalVariantPlay::Tables),
        }
    }
}

impl From<Position> for VariantPosition {
    /// A backgammon position as its own variant.
    fn from(position: Position) -> VariantPosition {
        VariantPosition {
            variant: position.variant().into(),
            rules: TablesRules::DEFAULT,
            engine: Engine::Board(position),
        }
    }
}

impl From<TablesPosition> for VariantPosition {
    /// A Plakoto, Fevga or Long Nardy position, with its rules.
    fn from(position: TablesPosition) -> VariantPosition {
        VariantPosition {
            variant: position.game().into(),
            rules: position.rules(),
            engine: Engine::Tables(position),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Die;

    fn dice(a: u8, b: u8) -> Dice {
        Dice::new(Die::new(a), Die::new(b))
    }

    #[test]
    fn each_variant_answers_as_its_engine() {
        for variant in Variant::ALL {
            let start = VariantPosition::start(variant, TablesRules::DEFAULT, Player::O);
            assert_eq!((start.variant(), start.turn()), (variant, Player::O));
            assert_eq!(start.board().is_some(), variant.board().is_some());
            for roll in [dice(3, 1), dice(6, 6), dice(5, 2)] {
                let plays = start.legal_plays(roll);
                let expected = match (start.board(), start.tables()) {
                    (Some(p), _) => start.hit_and_run().legal_plays(p, roll).len(),
                    (_, Some(p)) => p.legal_plays(roll).len(),
                    _ => unreachable!(),
                };
                assert_eq!(plays.len(), expected, "{variant} {roll}");
                for play in plays.iter() {
                    let (after, played) = start.play(play, roll).unwrap();
                    assert_eq!(after, start.after(&played));
                    assert_eq!(after.turn(), Player::X);
                }
            }
        }
    }

    #[test]
    fn illegal_plays_say_why_in_each_engine() {
        let roll = dice(6, 5);
        let bad = Play::new(&[Move::new(crate::Point::new(3), crate::Point::new(1))]).unwrap();
        let standard = VariantPosition::start(Variant::Standard, TablesRules::DEFAULT, Player::X);
        assert!(matches!(
            standard.play(&bad, roll),
            Err(IllegalVariantPlay::Board(_))
        ));
        let plakoto = VariantPosition::start(Variant::Plakoto, TablesRules::DEFAULT, Player::X);
        assert!(matches!(
            plakoto.play(&bad, roll),
            Err(IllegalVariantPlay::Tables(_))
        ));
        assert_eq!(plakoto.notations(), Notations::PINS);
        assert!(plakoto.position_id().is_none());
        assert!(standard.notations().contains(Notations::XGID));
    }

    #[test]
    fn on_board_refuses_a_variant_of_another_board() {
        let position = Position::start(BackgammonVariant::Standard, Player::X);
        let rules = TablesRules::DEFAULT;
        assert!(VariantPosition::on_board(Variant::Tavla, rules, position).is_ok());
        assert_eq!(
            VariantPosition::on_board(Variant::Fevga, rules, position),
            Err(WrongBoard)
        );
        assert_eq!(
            VariantPosition::on_board(Variant::Nackgammon, rules, position),
            Err(WrongBoard)
        );
    }
}

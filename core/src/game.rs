//! A whole game, and a whole match, as a state machine: who must act, what
//! they may do, and what follows. The referee's game token is this state,
//! signed; every transition is a function of the state, the action and the
//! dice of the [`Roller`] (the match's seed), so replaying the same actions
//! from the same start gives the same states, dice included.
//!
//! # Phases
//! - [`Phase::OpeningRoll`]: either player asks [`Action::Roll`]; the
//!   opening roll (ties thrown again, counted for automatic doubles) picks
//!   who starts, and the starter moves with both dice at once: no double
//!   comes first.
//! - [`Phase::RollOrDouble`]: the player on roll rolls, doubles (when the
//!   cube allows it) or resigns. A roll with no legal play passes the turn
//!   at once.
//! - [`Phase::AnswerDouble`]: the doubled player takes, passes, or (money
//!   play, when allowed) beavers; after a beaver the doubler takes, passes
//!   or raccoons.
//! - [`Phase::Move`]: the player on roll moves (or resigns).
//! - [`Phase::AnswerResignation`]: the opponent accepts or rejects; a
//!   rejection goes back to where the resignation was offered. A game
//!   allows [`MAX_RESIGNATIONS`] offers: an offer and its rejection change
//!   nothing, so without a bound the pair could repeat for ever.
//! - [`Phase::GameOver`]: either player asks [`Action::NextGame`].
//! - [`Phase::MatchOver`]: nothing more.
//!
//! The dice of a game's turn `t` are the roll of `(game, t)` of the match's
//! commit-reveal stream ([`crate::verify`]); turn 0 is the opening roll.

use alloc::string::String;
use alloc::sync::Arc;
use core::fmt;

use crate::cube::{
    CubeAction, CubeError, CubeOutcome, CubeRefusal, CubeRules, CubeState, GameEnd, GameResult,
    GameScore, InvalidCubeState, MatchState,
};
use crate::dice::Dice;
use crate::notation::move_text::{IllegalMoveText, MoveText};
use crate::play::Play;
use crate::player::Player;
use crate::position::Position;
use crate::referee::Score;
use crate::setup::BackgammonVariant;
use crate::tables::{Game, TablesIllegalPlay};
use crate::verify::Roller;

/// Most resignations offered in one game, by both players together; the
/// next offer is refused ([`GameError::TooManyOffers`]).
///
/// An offer and its rejection are the one pair of actions that leaves the
/// game as it was (a double raises the cube, which stops at its maximum,
/// and beavers are counted), so this bounds how long a game can be drawn
/// out without a roll. No real game comes near it: gnubg never offers again
/// a level its opponent declined, and a player who offers anew every turn
/// of a lost race (the one time repeated offers make sense) offers about
/// as often as the race has turns left, rarely more than 15.
pub const MAX_RESIGNATIONS: u8 = 32;

/// Where a game stands: what is due, and from whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Phase {
    /// The opening roll is due (either player may ask for it).
    OpeningRoll = 0,
    /// The player on roll rolls or doubles.
    RollOrDouble = 1,
    /// The doubled player answers a double (or the doubler a beaver).
    AnswerDouble = 2,
    /// The player on roll moves the dice rolled.
    Move = 3,
    /// The opponent answers a resignation.
    AnswerResignation = 4,
    /// The game is over; the match goes on.
    GameOver = 5,
    /// The match (or money session) is over.
    MatchOver = 6,
}

impl Phase {
    /// Every phase, by its number.
    pub const ALL: [Phase; 7] = [
        Phase::OpeningRoll,
        Phase::RollOrDouble,
        Phase::AnswerDouble,
        Phase::Move,
        Phase::AnswerResignation,
        Phase::GameOver,
        Phase::MatchOver,
    ];

    /// The name: `opening_roll`, `roll_or_double`, `answer_double`, `move`,
    /// `answer_resignation`, `game_over`, `match_over`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::OpeningRoll => "opening_roll",
            Phase::RollOrDouble => "roll_or_double",
            Phase::AnswerDouble => "answer_double",
            Phase::Move => "move",
            Phase::AnswerResignation => "answer_resignation",
            Phase::GameOver => "game_over",
            Phase::MatchOver => "match_over",
        }
    }
}

impl Phase {
    /// Where play goes on once an offer is answered and play continues:
    /// the move when this turn's dice are rolled, else the roll.
    pub(crate) const fn resume(dice_rolled: bool) -> Phase {
        if dice_rolled {
            Phase::Move
        } else {
            Phase::RollOrDouble
        }
    }

    /// The phase after a game ends: the match is over once it has a
    /// winner.
    pub(crate) const fn after_game(match_won: bool) -> Phase {
        if match_won {
            Phase::MatchOver
        } else {
            Phase::GameOver
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a player does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Roll the dice (also the opening roll).
    Roll,
    /// Offer a double, before rolling.
    Double,
    /// Accept the double (or the beaver, or the raccoon).
    Take,
    /// Refuse it: the game ends.
    Pass,
    /// Take and at once redouble, keeping the cube (money play).
    Beaver,
    /// Take a beaver and at once redouble (money play).
    Raccoon,
    /// Move: a play in notation or as moves.
    Move(MoveText),
    /// Offer to resign a single, gammon or backgammon.
    Resign(GameResult),
    /// Accept the opponent's resignation: the game ends.
    Accept,
    /// Reject it: play goes on.
    Reject,
    /// Start the next game of the match.
    NextGame,
}

impl Action {
    /// The name: `roll`, `double`, `take`, `pass`, `beaver`, `raccoon`,
    /// `move`, `resign`, `accept`, `reject`, `next_game`.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            Action::Roll => "roll",
            Action::Double => "double",
            Action::Take => "take",
            Action::Pass => "pass",
            Action::Beaver => "beaver",
            Action::Raccoon => "raccoon",
            Action::Move(_) => "move",
            Action::Resign(_) => "resign",
            Action::Accept => "accept",
            Action::Reject => "reject",
            Action::NextGame => "next_game",
        }
    }
}

/// Why an action is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameError {
    /// Another player must act now.
    NotYourTurn {
        /// The player who must act.
        expected: Player,
    },
    /// The action does not fit the phase.
    WrongPhase {
        /// The phase the game is in.
        phase: Phase,
        /// The action's name.
        action: &'static str,
    },
    /// The cube rules refuse it.
    Cube(CubeRefusal),
    /// The play is not legal.
    Illegal(IllegalMoveText),
    /// The state cannot occur (never for a state this module made).
    InvalidState(InvalidCubeState),
    /// A cube action in a tables game, which has no cube.
    NoCube(Game),
    /// The play is not legal in Plakoto, Fevga or Long Nardy.
    TablesIllegal(TablesIllegalPlay),
    /// A resignation offered when the game has had [`MAX_RESIGNATIONS`].
    TooManyOffers,
}

impl GameError {
    /// A stable slug: `not-your-turn`, `wrong-phase`, the cube refusal's
    /// slug, `illegal-play`, `ambiguous-play`, `invalid-state`,
    /// `no-cube-in-variant`.
    #[must_use]
    pub fn slug(&self) -> &'static str {
        match self {
            GameError::NotYourTurn { .. } => "not-your-turn",
            GameError::WrongPhase { .. } => "wrong-phase",
            GameError::Cube(refusal) => refusal.slug(),
            GameError::Illegal(IllegalMoveText::Ambiguous) => "ambiguous-play",
            GameError::Illegal(IllegalMoveText::Illegal(_)) => "illegal-play",
            GameError::InvalidState(_) => "invalid-state",
            GameError::NoCube(_) => "no-cube-in-variant",
            GameError::TablesIllegal(_) => "illegal-play",
            GameError::TooManyOffers => "too-many-offers",
        }
    }
}

impl GameError {
    /// `action` does not fit `phase`.
    pub(crate) const fn wrong_phase(phase: Phase, action: &Action) -> GameError {
        GameError::WrongPhase {
            phase,
            action: action.name(),
        }
    }

    /// Refuses a resignation when the game has had [`MAX_RESIGNATIONS`]
    /// (`offered` so far); other actions pass.
    pub(crate) fn check_offers(action: &Action, offered: u8) -> Result<(), GameError> {
        match action {
            Action::Resign(_) if offered >= MAX_RESIGNATIONS => Err(GameError::TooManyOffers),
            _ => Ok(()),
        }
    }

    /// Refuses an action of `player` when another player must act
    /// (`to_act`; `None`: either may).
    pub(crate) fn check_turn(to_act: Option<Player>, player: Player) -> Result<(), GameError> {
        match to_act {
            Some(expected) if expected != player => Err(GameError::NotYourTurn { expected }),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::NotYourTurn { expected } => write!(f, "it is {expected}'s turn to act"),
            GameError::WrongPhase { phase, action } => {
                write!(f, "{action} is not possible now: the game is at {phase}")
            }
            GameError::Cube(refusal) => refusal.fmt(f),
            GameError::Illegal(reason) => reason.fmt(f),
            GameError::InvalidState(state) => state.fmt(f),
            GameError::NoCube(game) => {
                write!(f, "{game} is played without the doubling cube")
            }
            GameError::TablesIllegal(reason) => reason.fmt(f),
            GameError::TooManyOffers => write!(
                f,
                "this game has had {MAX_RESIGNATIONS} resignation offers, the most a game allows: \
                 play on (move or roll)"
            ),
        }
    }
}

impl core::error::Error for GameError {}

impl From<crate::IllegalVariantPlay> for GameError {
    fn from(err: crate::IllegalVariantPlay) -> GameError {
        use crate::IllegalVariantPlay as E;
        match err {
            E::Board(reason) => GameError::Illegal(IllegalMoveText::Illegal(reason)),
            E::Ambiguous => GameError::Illegal(IllegalMoveText::Ambiguous),
            E::Tables(reason) => GameError::TablesIllegal(reason),
        }
    }
}

impl From<CubeError> for GameError {
    fn from(err: CubeError) -> GameError {
        match err {
            CubeError::Refused(refusal) => GameError::Cube(refusal),
            CubeError::InvalidState(state) => GameError::InvalidState(state),
        }
    }
}

/// What happened, besides the new state, in a game of any ruleset (the
/// tables games' referee, [`crate::tables::TablesGameState`], reports the
/// same events, without the cube's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The backgammon variants' opening roll: `starts` moves with `dice`.
    OpeningRoll {
        /// x's die of the deciding throw.
        x_die: crate::dice::Die,
        /// o's die.
        o_die: crate::dice::Die,
        /// The starter.
        starts: Player,
        /// Tied throws before it.
        ties: u32,
        /// The starter's roll.
        dice: Dice,
    },
    /// The tables games' opening roll: one die each picked the starter,
    /// who rolls next.
    StarterChosen {
        /// x's die of the deciding throw.
        x_die: crate::dice::Die,
        /// o's die.
        o_die: crate::dice::Die,
        /// The starter.
        starts: Player,
        /// Tied throws before it.
        ties: u32,
    },
    /// A roll of turn `turn`; `passed` when no play was legal (the turn
    /// passed at once).
    Rolled {
        /// Who rolled.
        player: Player,
        /// The roll.
        dice: Dice,
        /// No legal play: the turn passed.
        passed: bool,
    },
    /// A double offered.
    Doubled {
        /// Who doubled.
        by: Player,
    },
    /// A double taken and redoubled at once (money play with beavers).
    Beavered {
        /// Who beavered.
        by: Player,
    },
    /// A beaver taken and redoubled at once.
    Raccooned {
        /// Who raccooned.
        by: Player,
    },
    /// The double (beaver, raccoon) was taken.
    Taken {
        /// Who took.
        by: Player,
    },
    /// A play.
    Moved {
        /// Who moved.
        player: Player,
        /// The play.
        play: Play,
    },
    /// A resignation offered.
    Resigned {
        /// Who resigned.
        by: Player,
        /// At what level.
        level: GameResult,
    },
    /// The resignation was rejected.
    Rejected {
        /// Who rejected.
        by: Player,
    },
    /// The game ended by a pass (drop: the backgammon score's `end` is
    /// [`GameEnd::Pass`]) or an accepted resignation. A game ended on the
    /// board is the [`Event::Moved`] that ended it (its score is in the
    /// state).
    GameEnded(Score),
    /// A new game began.
    NewGame {
        /// Its number.
        game: u32,
        /// Its starter, when the rules name one (a tables game after a won
        /// game: the winner); `None`: an opening roll decides.
        starter: Option<Player>,
    },
}

/// The whole state of a game within its match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackgammonGame {
    /// The variant.
    pub variant: BackgammonVariant,
    /// The rule options.
    pub rules: CubeRules,
    /// The match before this game: length, score, Crawford flag.
    pub match_state: MatchState,
    /// The client seed the match's dice are bound to.
    pub client_seed: Arc<str>,
    /// The game number, from 1.
    pub game: u32,
    /// The turn number: 0 is the opening roll, each later roll adds one.
    pub turn: u32,
    /// The position; its side on roll is the player on roll.
    pub position: Position,
    /// The cube (and a pending double or resignation).
    pub cube: CubeState,
    /// What is due.
    pub phase: Phase,
    /// The dice of this turn, once rolled and until the move is made.
    pub dice: Option<Dice>,
    /// The last game's score, in [`Phase::GameOver`] and [`Phase::MatchOver`].
    pub result: Option<GameScore>,
    /// Resignations offered in this game so far (at most
    /// [`MAX_RESIGNATIONS`]; 0 again at the next game).
    pub resignations: u8,
    /// The match began from a set position ([`BackgammonGame::from_position`]:
    /// a lesson, a puzzle, an adjourned match), not from its variant's
    /// start. Its later games start as usual; the mark stays for the whole
    /// match, so nobody takes it for a match played from the start.
    pub set_up: bool,
}

/// Why a set position cannot begin a match ([`BackgammonGame::from_position`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetUpError {
    /// The position is of another variant.
    WrongVariant,
    /// A player has borne off every checker: the game is over.
    GameOver,
    /// The cube waits for an answer (a double or a resignation): a set
    /// position begins with the player on roll to roll or double.
    PendingAnswer,
    /// The cube cannot occur in this match ([`CubeState::validate`]).
    Cube(InvalidCubeState),
}

impl fmt::Display for SetUpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetUpError::WrongVariant => f.write_str("the position is of another variant"),
            SetUpError::GameOver => {
                f.write_str("a player has borne off every checker: the game is already over")
            }
            SetUpError::PendingAnswer => f.write_str(
                "a set position begins with the player on roll to roll or double: no double, \
                 beaver or resignation can wait for an answer",
            ),
            SetUpError::Cube(err) => err.fmt(f),
        }
    }
}

impl core::error::Error for SetUpError {}

impl BackgammonGame {
    /// A new match (or money session, `match_state.length == 0`) at its
    /// first game, before the opening roll.
    #[must_use]
    pub fn new(
        variant: BackgammonVariant,
        rules: CubeRules,
        match_state: MatchState,
        client_seed: String,
    ) -> BackgammonGame {
        BackgammonGame::with_seed(variant, rules, match_state, client_seed.into())
    }

    /// [`BackgammonGame::new`] with the seed shared (each state of a match
    /// holds the same one).
    fn with_seed(
        variant: BackgammonVariant,
        rules: CubeRules,
        match_state: MatchState,
        client_seed: Arc<str>,
    ) -> BackgammonGame {
        BackgammonGame {
            variant,
            rules,
            match_state,
            client_seed,
            game: 1,
            turn: 0,
            position: Position::start(variant, Player::X),
            cube: CubeState::START,
            phase: Phase::OpeningRoll,
            dice: None,
            result: None,
            resignations: 0,
            set_up: false,
        }
    }

    /// A match (or money session) whose first game begins from `position`
    /// with `cube`: the player on roll (`position.turn()`) rolls or
    /// doubles first (no opening roll), and the dice are the match's as
    /// ever, from turn 1. The state is marked [`BackgammonGame::set_up`]; the
    /// games after the first start from the variant's start.
    ///
    /// # Errors
    /// [`SetUpError`]: a position of another variant or of a finished
    /// game, a cube waiting for an answer, a cube the match cannot have
    /// (for instance turned in the Crawford game; the match itself is
    /// checked too).
    pub fn from_position(
        variant: BackgammonVariant,
        rules: CubeRules,
        match_state: MatchState,
        client_seed: String,
        position: Position,
        cube: CubeState,
    ) -> Result<BackgammonGame, SetUpError> {
        if position.variant() != variant {
            return Err(SetUpError::WrongVariant);
        }
        if position.outcome().is_some() {
            return Err(SetUpError::GameOver);
        }
        if cube.offered_by.is_some() || cube.resignation.is_some() || cube.beavers > 0 {
            return Err(SetUpError::PendingAnswer);
        }
        cube.validate(&match_state, &rules)
            .map_err(SetUpError::Cube)?;
        Ok(BackgammonGame {
            position,
            cube,
            phase: Phase::RollOrDouble,
            set_up: true,
            ..BackgammonGame::new(variant, rules, match_state, client_seed)
        })
    }

    /// The player who must act now; `None` when either may (the opening
    /// roll, the next game) or nobody (the match is over).
    #[must_use]
    pub fn to_act(&self) -> Option<Player> {
        match self.phase {
            Phase::RollOrDouble | Phase::Move => Some(self.position.turn()),
            Phase::AnswerDouble | Phase::AnswerResignation => self.cube.to_act(),
            Phase::OpeningRoll | Phase::GameOver | Phase::MatchOver => None,
        }
    }

    /// The player on roll (the mover of this turn).
    #[must_use]
    pub const fn on_roll(&self) -> Player {
        self.position.turn()
    }

    /// Whether the player on roll may double now.
    #[must_use]
    pub fn may_double(&self) -> bool {
        self.phase == Phase::RollOrDouble
            && self
                .cube
                .may_double(self.on_roll(), &self.match_state, &self.rules)
                .is_ok()
    }

    /// `player` takes `action`, with the match's dice from `roller`.
    ///
    /// # Errors
    /// [`GameError`]: not this player's turn, not this phase, a cube rule,
    /// an illegal play, a resignation past [`MAX_RESIGNATIONS`].
    pub fn act(
        &self,
        player: Player,
        action: &Action,
        roller: &Roller,
    ) -> Result<(BackgammonGame, Event), GameError> {
        let wrong_phase = || GameError::wrong_phase(self.phase, action);
        GameError::check_turn(self.to_act(), player)?;
        let mut next = self.clone();
        let event = match (self.phase, action) {
            (Phase::OpeningRoll, Action::Roll) => {
                let opening = roller.opening_roll(&self.client_seed, self.game);
                next.turn = 0;
                next.position = Position::start(self.variant, opening.starts);
                next.cube = CubeState::for_new_game(opening.ties, &self.match_state, &self.rules);
                next.phase = Phase::Move;
                next.dice = Some(opening.dice);
                Event::OpeningRoll {
                    x_die: opening.x_die,
                    o_die: opening.o_die,
                    starts: opening.starts,
                    ties: opening.ties,
                    dice: opening.dice,
                }
            }
            (Phase::RollOrDouble, Action::Roll) => {
                next.turn = self.turn.saturating_add(1);
                let dice = roller.roll(&self.client_seed, self.game, next.turn);
                let passed = !self.position.can_play(dice);
                if passed {
                    next.position = self.position.swap_turn();
                    next.dice = None;
                } else {
                    next.phase = Phase::Move;
                    next.dice = Some(dice);
                }
                Event::Rolled {
                    player,
                    dice,
                    passed,
                }
            }
            (Phase::Move, Action::Move(text)) => {
                let dice = self.dice.ok_or_else(wrong_phase)?;
                let play = text
                    .to_play(&self.position, dice)
                    .map_err(GameError::Illegal)?;
                let after = self.position.after(&play);
                next.position = after;
                next.dice = None;
                next.phase = Phase::RollOrDouble;
                if let Some(outcome) = after.outcome() {
                    let end = GameEnd::BearOff {
                        winner: outcome.winner,
                        result: outcome.result,
                    };
                    let score =
                        crate::cube::score_game(end, &self.cube, &self.match_state, &self.rules)?;
                    next.end_game(score);
                    // Both events matter; the play is the one reported
                    // here and the score is in the state.
                }
                Event::Moved { player, play }
            }
            (Phase::RollOrDouble, Action::Double)
            | (
                Phase::AnswerDouble,
                Action::Take | Action::Pass | Action::Beaver | Action::Raccoon,
            )
            | (Phase::RollOrDouble | Phase::Move, Action::Resign(_))
            | (Phase::AnswerResignation, Action::Accept | Action::Reject) => {
                GameError::check_offers(action, self.resignations)?;
                let cube_action = match action {
                    Action::Double => CubeAction::Double,
                    Action::Take => CubeAction::Take,
                    Action::Pass => CubeAction::Pass,
                    Action::Beaver => CubeAction::Beaver,
                    Action::Raccoon => CubeAction::Raccoon,
                    Action::Resign(level) => CubeAction::Resign(*level),
                    Action::Accept => CubeAction::Accept,
                    _ => CubeAction::Reject,
                };
                match self
                    .cube
                    .apply(player, cube_action, &self.match_state, &self.rules)?
                {
                    CubeOutcome::GameOver(score) => {
                        next.end_game(score);
                        Event::GameEnded(Score::Backgammon(score))
                    }
                    CubeOutcome::Continue(cube) => {
                        next.cube = cube;
                        next.phase = if cube.offered_by.is_some() {
                            Phase::AnswerDouble
                        } else if cube.resignation.is_some() {
                            Phase::AnswerResignation
                        } else {
                            Phase::resume(self.dice.is_some())
                        };
                        match action {
                            Action::Double => Event::Doubled { by: player },
                            Action::Beaver => Event::Beavered { by: player },
                            Action::Raccoon => Event::Raccooned { by: player },
                            Action::Take => Event::Taken { by: player },
                            Action::Resign(level) => {
                                next.resignations = self.resignations.saturating_add(1);
                                Event::Resigned {
                                    by: player,
                                    level: *level,
                                }
                            }
                            _ => Event::Rejected { by: player },
                        }
                    }
                }
            }
            (Phase::GameOver, Action::NextGame) => {
                let Some(match_state) = self.result.and_then(|r| r.match_outcome.next_state())
                else {
                    return Err(wrong_phase());
                };
                next = BackgammonGame::with_seed(
                    self.variant,
                    self.rules,
                    match_state,
                    self.client_seed.clone(),
                );
                next.game = self.game.saturating_add(1);
                next.set_up = self.set_up;
                Event::NewGame {
                    game: next.game,
                    starter: None,
                }
            }
            _ => return Err(wrong_phase()),
        };
        Ok((next, event))
    }

    /// Ends the game with `score`: game over, or match over.
    fn end_game(&mut self, score: GameScore) {
        self.dice = None;
        self.phase = Phase::after_game(score.match_outcome.winner.is_some());
        self.result = Some(score);
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use super::*;
    use crate::cube::{CubeOwner, CubeValue};
    use crate::verify::Roller;
    use crate::{ByPlayer, Setup};

    fn roller() -> Roller {
        Roller::new(&[7u8; 32])
    }

    fn play_out(state: BackgammonGame, roller: &Roller) -> BackgammonGame {
        test_bot::play_out(state, roller, 2000)
    }

    #[test]
    fn a_money_game_runs_to_its_end() {
        let start = BackgammonGame::new(
            BackgammonVariant::Standard,
            CubeRules::DEFAULT,
            MatchState::MONEY,
            "a:b".into(),
        );
        assert_eq!(start.phase, Phase::OpeningRoll);
        assert_eq!(start.to_act(), None);
        let end = play_out(start.clone(), &roller());
        assert_eq!(end.phase, Phase::GameOver);
        let score = end.result.unwrap();
        assert!(score.points >= 1);
        // Deterministic: the same actions give the same end.
        assert_eq!(play_out(start, &roller()), end);
        // The next game starts over, the session score carried on.
        let (next, event) = end.act(Player::O, &Action::NextGame, &roller()).unwrap();
        assert_eq!(
            event,
            Event::NewGame {
                game: 2,
                starter: None
            }
        );
        assert_eq!(next.phase, Phase::OpeningRoll);
        assert_eq!(next.match_state.score[score.winner], score.points);
    }

    /// A race: x has two checkers on its 1 and 2 points, o three on its
    /// 6 point; the rest are off.
    fn race(turn: Player) -> Position {
        let mut setup = Setup::empty(turn);
        setup.points.x[0] = 1;
        setup.points.x[1] = 1;
        setup.points.o[5] = 3;
        Position::from_setup(&setup, BackgammonVariant::Standard).unwrap()
    }

    #[test]
    fn a_match_begins_from_a_set_position() {
        let r = roller();
        let rules = CubeRules::DEFAULT;
        let five = MatchState {
            length: 5,
            score: ByPlayer { x: 1, o: 3 },
            crawford: false,
        };
        let cube = CubeState {
            value: CubeValue::ONE.doubled().unwrap(),
            owner: CubeOwner::Player(Player::O),
            ..CubeState::START
        };
        let from = |position, cube, m| {
            BackgammonGame::from_position(
                BackgammonVariant::Standard,
                rules,
                m,
                "a:b".into(),
                position,
                cube,
            )
        };
        let start = from(race(Player::X), cube, five).unwrap();
        assert!(start.set_up);
        assert_eq!((start.game, start.turn), (1, 0));
        assert_eq!(start.phase, Phase::RollOrDouble);
        assert_eq!(start.to_act(), Some(Player::X));
        // x may not double: o owns the cube.
        assert!(!start.may_double());
        assert!(start.act(Player::X, &Action::Double, &r).is_err());
        // The first roll is turn 1 of game 1 of the match's dice.
        let (rolled, event) = start.act(Player::X, &Action::Roll, &r).unwrap();
        assert_eq!(rolled.turn, 1);
        let dice = r.roll("a:b", 1, 1);
        assert!(matches!(event, Event::Rolled { dice: d, .. } if d == dice));
        // x bears off both checkers with any roll: the game ends, scored at
        // the set cube, and the next game starts from the start, still
        // marked.
        let end = play_out(start.clone(), &r);
        let score = end.result.unwrap();
        assert_eq!((score.winner, score.points), (Player::X, 2));
        assert_eq!(end.match_state.score, ByPlayer { x: 1, o: 3 });
        let (next, _) = end.act(Player::O, &Action::NextGame, &r).unwrap();
        assert_eq!(next.phase, Phase::OpeningRoll);
        assert_eq!(
            next.position,
            Position::start(BackgammonVariant::Standard, Player::X)
        );
        assert_eq!(next.match_state.score, ByPlayer { x: 3, o: 3 });
        assert!(next.set_up);
        assert!(
            !BackgammonGame::new(BackgammonVariant::Standard, rules, five, "a:b".into()).set_up
        );

        // Refused: another variant, a finished game, an answer waiting, a
        // cube the match cannot have.
        let nack = Position::start(BackgammonVariant::Nackgammon, Player::X);
        assert_eq!(from(nack, cube, five), Err(SetUpError::WrongVariant));
        let mut over = Setup::empty(Player::O);
        over.points.o[5] = 3;
        let over = Position::from_setup(&over, BackgammonVariant::Standard).unwrap();
        assert_eq!(from(over, cube, five), Err(SetUpError::GameOver));
        let doubled = CubeState {
            offered_by: Some(Player::O),
            ..cube
        };
        assert_eq!(
            from(race(Player::X), doubled, five),
            Err(SetUpError::PendingAnswer)
        );
        let crawford = MatchState {
            score: ByPlayer { x: 1, o: 4 },
            crawford: true,
            ..five
        };
        assert_eq!(
            from(race(Player::X), cube, crawford),
            Err(SetUpError::Cube(InvalidCubeState::CubeTurnedInCrawfordGame))
        );
        assert!(from(race(Player::O), CubeState::START, crawford).is_ok());
    }

    #[test]
    fn turns_and_phases_are_enforced() {
        let r = roller();
        let start = BackgammonGame::new(
            BackgammonVariant::Standard,
            CubeRules::DEFAULT,
            MatchState::MONEY,
            "a:b".into(),
        );
        // No double before the opening roll.
        assert!(matches!(
            start.act(Player::X, &Action::Double, &r),
            Err(GameError::WrongPhase { .. })
        ));
        let (moving, event) = start.act(Player::O, &Action::Roll, &r).unwrap();
        let Event::OpeningRoll { starts, dice, .. } = event else {
            panic!("{event:?}")
        };
        assert_eq!(moving.phase, Phase::Move);
        assert_eq!(moving.dice, Some(dice));
        assert_eq!(moving.to_act(), Some(starts));
        // The other player may not move, double or roll now.
        for action in [Action::Roll, Action::Double] {
            assert_eq!(
                moving.act(!starts, &action, &r),
                Err(GameError::NotYourTurn { expected: starts })
            );
        }
        // The starter may not double with the dice rolled.
        assert!(matches!(
            moving.act(starts, &Action::Double, &r),
            Err(GameError::WrongPhase { .. })
        ));
        let play = moving
            .position
            .legal_plays(dice)
            .iter()
            .next()
            .copied()
            .unwrap();
        let (after, _) = moving
            .act(starts, &Action::Move(play.to_string().parse().unwrap()), &r)
            .unwrap();
        assert_eq!(after.phase, Phase::RollOrDouble);
        assert_eq!(after.to_act(), Some(!starts));
        // Double, take: the doubler rolls; the taker owns the cube.
        let (offered, _) = after.act(!starts, &Action::Double, &r).unwrap();
        assert_eq!(offered.phase, Phase::AnswerDouble);
        assert_eq!(offered.to_act(), Some(starts));
        let (taken, _) = offered.act(starts, &Action::Take, &r).unwrap();
        assert_eq!(taken.phase, Phase::RollOrDouble);
        assert_eq!(taken.to_act(), Some(!starts));
        assert_eq!(taken.cube.value.get(), 2);
        assert_eq!(
            taken.act(!starts, &Action::Double, &r),
            Err(GameError::Cube(CubeRefusal::NotYourCube))
        );
        // A resignation, rejected then accepted.
        let (resigned, _) = taken
            .act(!starts, &Action::Resign(GameResult::Gammon), &r)
            .unwrap();
        assert_eq!(resigned.phase, Phase::AnswerResignation);
        let (rejected, _) = resigned.act(starts, &Action::Reject, &r).unwrap();
        assert_eq!(rejected.phase, Phase::RollOrDouble);
        let (over, event) = resigned.act(starts, &Action::Accept, &r).unwrap();
        assert_eq!(over.phase, Phase::GameOver);
        let Event::GameEnded(Score::Backgammon(score)) = event else {
            panic!("{event:?}")
        };
        assert_eq!((score.winner, score.points), (starts, 4));
    }

    #[test]
    fn resignation_offers_are_bounded_per_game() {
        let r = roller();
        let start = BackgammonGame::new(
            BackgammonVariant::Standard,
            CubeRules::DEFAULT,
            MatchState::MONEY,
            "a:b".into(),
        );
        let (mut state, event) = start.act(Player::X, &Action::Roll, &r).unwrap();
        let Event::OpeningRoll { starts, .. } = event else {
            panic!("{event:?}")
        };
        let resign = Action::Resign(GameResult::Single);
        for offered in 0..MAX_RESIGNATIONS {
            assert_eq!(state.resignations, offered);
            let (offer, _) = state.act(starts, &resign, &r).unwrap();
            state = offer.act(!starts, &Action::Reject, &r).unwrap().0;
        }
        assert_eq!(state.phase, Phase::Move);
        assert_eq!(state.resignations, MAX_RESIGNATIONS);
        let refused = state.act(starts, &resign, &r).unwrap_err();
        assert_eq!(refused, GameError::TooManyOffers);
        assert_eq!(refused.slug(), "too-many-offers");
        // Play goes on, and the next game counts afresh.
        let over = play_out(state, &r);
        assert_eq!(over.resignations, MAX_RESIGNATIONS);
        let (next, _) = over.act(Player::X, &Action::NextGame, &r).unwrap();
        assert_eq!(next.resignations, 0);
    }

    #[test]
    fn a_match_ends_and_automatic_doubles_start_the_cube() {
        let r = roller();
        let mut rules = CubeRules::DEFAULT;
        rules.automatic_doubles = 3;
        let mut state = BackgammonGame::new(
            BackgammonVariant::Hypergammon3,
            rules,
            MatchState {
                length: 3,
                ..MatchState::MONEY
            },
            "m".into(),
        );
        let mut games = 0;
        while state.phase != Phase::MatchOver {
            state = play_out(state, &r);
            games += 1;
            if state.phase == Phase::GameOver {
                state = state.act(Player::X, &Action::NextGame, &r).unwrap().0;
            }
        }
        assert!(games >= 1);
        let score = state.result.unwrap();
        assert!(score.match_outcome.winner.is_some());
        assert!(
            state
                .act(Player::X, &Action::NextGame, &r)
                .is_err_and(|e| e.slug() == "wrong-phase")
        );
        // Automatic doubles apply in money play only: find a tied opening.
        let money = BackgammonGame::new(
            BackgammonVariant::Standard,
            rules,
            MatchState::MONEY,
            "m".into(),
        );
        let tied = (1..500)
            .map(|game| BackgammonGame {
                game,
                ..money.clone()
            })
            .find_map(|s| match s.act(Player::X, &Action::Roll, &r).unwrap() {
                (next, Event::OpeningRoll { ties, .. }) if ties > 0 => Some((next, ties)),
                _ => None,
            })
            .expect("a tied opening roll");
        assert_eq!(tied.0.cube.value.get(), 1 << tied.1.min(3));
    }
}

/// A bot for the tests of both referees ([`BackgammonGame`] and
/// [`crate::tables::TablesGameState`]): the first legal play every turn,
/// never a double.
#[cfg(test)]
pub(crate) mod test_bot {
    use alloc::string::ToString;

    use super::{Action, BackgammonGame, GameError, Phase};
    use crate::play::Play;
    use crate::player::Player;
    use crate::tables::TablesGameState;
    use crate::verify::Roller;

    /// What the bot needs of a referee.
    pub(crate) trait Refereed: Sized {
        fn phase(&self) -> Phase;
        fn to_act(&self) -> Option<Player>;
        /// The first legal play for this turn's dice.
        fn first_play(&self) -> Play;
        fn act_as(&self, player: Player, action: &Action, r: &Roller) -> Result<Self, GameError>;
    }

    impl Refereed for BackgammonGame {
        fn phase(&self) -> Phase {
            self.phase
        }
        fn to_act(&self) -> Option<Player> {
            self.to_act()
        }
        fn first_play(&self) -> Play {
            let plays = self.position.legal_plays(self.dice.unwrap());
            *plays.iter().next().unwrap()
        }
        fn act_as(&self, player: Player, action: &Action, r: &Roller) -> Result<Self, GameError> {
            self.act(player, action, r).map(|(next, _)| next)
        }
    }

    impl Refereed for crate::GameState {
        fn phase(&self) -> Phase {
            self.phase()
        }
        fn to_act(&self) -> Option<Player> {
            self.to_act()
        }
        fn first_play(&self) -> Play {
            *self.legal_plays().get(0).unwrap()
        }
        fn act_as(&self, player: Player, action: &Action, r: &Roller) -> Result<Self, GameError> {
            self.act(player, action, r).map(|(next, _)| next)
        }
    }

    impl Refereed for TablesGameState {
        fn phase(&self) -> Phase {
            self.phase
        }
        fn to_act(&self) -> Option<Player> {
            self.to_act()
        }
        fn first_play(&self) -> Play {
            self.legal_plays(self.dice.unwrap())[0]
        }
        fn act_as(&self, player: Player, action: &Action, r: &Roller) -> Result<Self, GameError> {
            self.act(player, action, r).map(|(next, _)| next)
        }
    }

    /// Plays until the game (or the match) is over, at most `max_actions`
    /// actions; returns the last state.
    pub(crate) fn play_out<S: Refereed>(mut state: S, r: &Roller, max_actions: usize) -> S {
        for _ in 0..max_actions {
            let player = state.to_act().unwrap_or(Player::X);
            let action = match state.phase() {
                Phase::OpeningRoll | Phase::RollOrDouble => Action::Roll,
                Phase::Move => Action::Move(state.first_play().to_string().parse().unwrap()),
                _ => return state,
            };
            state = state.act_as(player, &action, r).unwrap();
        }
        panic!("the game did not end");
    }
}

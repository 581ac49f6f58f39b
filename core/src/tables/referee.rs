//! [`TablesGameState`]: a refereed game (or match) of a tables game, the
//! counterpart of [`crate::BackgammonGame`] for Portes, Tavla, Plakoto, Fevga and
//! Long Nardy, and for a Tavli match (Portes, Plakoto and Fevga in
//! rotation). See `docs/variants.md`, "The referee game flow".
//!
//! # Phases
//! The phases of [`Phase`] without the cube:
//! - [`Phase::OpeningRoll`]: either player asks [`Action::Roll`]; one die
//!   each (ties thrown again) picks who starts, and the starter then rolls
//!   both dice: the opening dice are not played (but in Long Nardy with
//!   [`crate::tables::NardyOpening::PlayDice`], where the starter plays
//!   them at once). A game that follows a won game skips it: the previous
//!   winner starts.
//! - [`Phase::RollOrDouble`]: the player on roll rolls (no double: every
//!   cube action is refused with `no-cube-in-variant`) or resigns. A roll
//!   with no legal play passes the turn at once.
//! - [`Phase::Move`]: the player on roll moves (or resigns).
//! - [`Phase::AnswerResignation`]: the opponent accepts or rejects.
//! - [`Phase::GameOver`], [`Phase::MatchOver`]: as in backgammon.
//!
//! The dice of a game's turn `t` are the roll of `(game, t)` of the match's
//! commit-reveal stream; turn 0 is the opening roll, so the starter's first
//! roll is turn 1.

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::cube::{GameResult, Resignation};
use crate::dice::Dice;
use crate::game::{Action, Event, GameError, Phase};
use crate::play::Play;
use crate::player::{ByPlayer, Player};
use crate::referee::Score;
use crate::tables::game::Game;
use crate::tables::outcome::OutcomeKind;
use crate::tables::rules::{HitAndRun, TablesRules};
use crate::tables::tavli::TavliMatch;
use crate::variant_position::{VariantOutcome, VariantPosition};
use crate::verify::Roller;

/// What a tables match plays: one game over and over, or Tavli's rotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TablesSeries {
    /// The same game every time.
    Single(Game),
    /// Portes, Plakoto and Fevga in that order, again and again.
    Tavli,
}

impl TablesSeries {
    /// The game played after `games_played` games.
    #[must_use]
    pub const fn game(self, games_played: u32) -> Game {
        match self {
            TablesSeries::Single(game) => game,
            TablesSeries::Tavli => TavliMatch::ROTATION[(games_played % 3) as usize],
        }
    }
}

/// A tables match (or, with length 0, a session that never ends): no cube,
/// no Crawford rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TablesMatch {
    /// What is played.
    pub series: TablesSeries,
    /// Points to win; 0: a session, never over.
    pub length: u32,
    /// Points won so far.
    pub score: ByPlayer<u32>,
    /// Games played so far, draws included.
    pub games_played: u32,
    /// Who starts the next game: the last game's winner; `None` before
    /// the first game and after a draw (an opening roll decides).
    pub starter: Option<Player>,
}

impl TablesMatch {
    /// A new match (or session, `length` 0) of `series`.
    #[must_use]
    pub const fn new(series: TablesSeries, length: u32) -> TablesMatch {
        TablesMatch {
            series,
            length,
            score: ByPlayer { x: 0, o: 0 },
            games_played: 0,
            starter: None,
        }
    }

    /// The game played now (or next).
    #[must_use]
    pub const fn game(&self) -> Game {
        self.series.game(self.games_played)
    }

    /// The match winner, once a player has reached the length.
    #[must_use]
    pub fn winner(&self) -> Option<Player> {
        if self.length == 0 {
            return None;
        }
        Player::ALL
            .into_iter()
            .find(|&p| self.score[p] >= self.length)
    }

    /// The match after a game won by `winner` (`None`: a draw) for
    /// `points`.
    #[must_use]
    pub fn after_game(&self, winner: Option<Player>, points: u32) -> TablesMatch {
        let mut next = *self;
        if let Some(w) = winner {
            next.score[w] = next.score[w].saturating_add(points);
        }
        next.games_played = next.games_played.saturating_add(1);
        next.starter = winner;
        next
    }
}

/// How a tables game ended, and the match after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TablesScore {
    /// The game that ended.
    pub game: Game,
    /// The winner; `None` for a draw (Plakoto, both mothers pinned).
    pub winner: Option<Player>,
    /// How it ended (for a resignation: single for 1 point, double for 2).
    pub kind: OutcomeKind,
    /// Portes and Tavla borne off: the backgammon result on the board;
    /// a resignation: the level resigned.
    pub result: Option<GameResult>,
    /// The game ended by an accepted resignation.
    pub resigned: bool,
    /// Points won.
    pub points: u32,
    /// The match after the game.
    pub match_after: TablesMatch,
}

/// The whole state of a tables game within its match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablesGameState {
    /// The rule options.
    pub rules: TablesRules,
    /// The match before this game.
    pub tables_match: TablesMatch,
    /// The client seed the match's dice are bound to.
    pub client_seed: Arc<str>,
    /// The game number, from 1.
    pub game: u32,
    /// The turn number: 0 is the opening roll, each later roll adds one.
    pub turn: u32,
    /// The board (Portes and Tavla on the backgammon board, the others on
    /// the tables engine); its side on roll is the player on roll.
    pub board: VariantPosition,
    /// What is due.
    pub phase: Phase,
    /// The dice of this turn, once rolled and until the move is made.
    pub dice: Option<Dice>,
    /// A resignation waiting for an answer.
    pub resignation: Option<Resignation>,
    /// The last game's score, in [`Phase::GameOver`] and [`Phase::MatchOver`].
    pub result: Option<TablesScore>,
    /// Resignations offered in this game so far (at most
    /// [`crate::MAX_RESIGNATIONS`]; 0 again at the next game).
    pub resignations: u8,
    /// The match began from a set position
    /// ([`TablesGameState::from_position`]), as
    /// [`crate::BackgammonGame::set_up`].
    pub set_up: bool,
}

/// Points a resignation at `level` costs in `game`: 1 for a single, 2 for
/// a gammon or a backgammon (no tables game counts a triple).
#[must_use]
pub const fn resignation_points(game: Game, level: GameResult) -> u32 {
    match game.backgammon_points(level, false) {
        Some(points) => points,
        None => match level {
            GameResult::Single => 1,
            GameResult::Gammon | GameResult::Backgammon => 2,
        },
    }
}

impl TablesGameState {
    /// A new match (or session) at its first game, before the opening
    /// roll.
    #[must_use]
    pub fn new(
        rules: TablesRules,
        tables_match: TablesMatch,
        client_seed: String,
    ) -> TablesGameState {
        TablesGameState::with_seed(rules, tables_match, client_seed.into())
    }

    /// [`TablesGameState::new`] with the seed shared (each state of a
    /// match holds the same one).
    fn with_seed(
        rules: TablesRules,
        tables_match: TablesMatch,
        client_seed: Arc<str>,
    ) -> TablesGameState {
        let game = tables_match.game();
        let (board, phase) = match tables_match.starter {
            Some(starter) => (
                VariantPosition::start(game.into(), rules, starter),
                Phase::RollOrDouble,
            ),
            None => (
                VariantPosition::start(game.into(), rules, Player::X),
                Phase::OpeningRoll,
            ),
        };
        TablesGameState {
            rules,
            tables_match,
            client_seed,
            game: 1,
            turn: 0,
            board,
            phase,
            dice: None,
            resignation: None,
            result: None,
            resignations: 0,
            set_up: false,
        }
    }

    /// A match (or session) whose first game begins from `board`: the
    /// player on roll rolls first (no opening roll), with the match's
    /// dice from turn 1; marked [`TablesGameState::set_up`]. `board` must
    /// be of the match's first game, under `rules`.
    ///
    /// # Errors
    /// [`crate::SetUpError::WrongVariant`] for a board of another game or
    /// other rules, [`crate::SetUpError::GameOver`] for a finished game.
    pub fn from_position(
        rules: TablesRules,
        tables_match: TablesMatch,
        client_seed: String,
        board: VariantPosition,
    ) -> Result<TablesGameState, crate::SetUpError> {
        let game = tables_match.game();
        if board.variant() != game.into() || board.rules() != rules {
            return Err(crate::SetUpError::WrongVariant);
        }
        if board.outcome().is_some() {
            return Err(crate::SetUpError::GameOver);
        }
        Ok(TablesGameState {
            board,
            phase: Phase::RollOrDouble,
            set_up: true,
            ..TablesGameState::new(rules, tables_match, client_seed)
        })
    }

    /// The match as it stands: once the game is over ([`Phase::GameOver`],
    /// [`Phase::MatchOver`]) the match after it (the game counted, its
    /// winner the next starter), else [`TablesGameState::tables_match`].
    #[must_use]
    pub fn match_now(&self) -> TablesMatch {
        self.result.map_or(self.tables_match, |r| r.match_after)
    }

    /// The game played now.
    #[must_use]
    pub const fn current_game(&self) -> Game {
        self.tables_match.game()
    }

    /// The hit-and-run rule of the game played now (the option in Tavla).
    #[must_use]
    pub const fn hit_and_run(&self) -> HitAndRun {
        self.rules.hit_and_run_in(self.current_game())
    }

    /// Every legal play of the player on roll for `dice` in the game played
    /// now.
    #[must_use]
    pub fn legal_plays(&self, dice: Dice) -> Vec<Play> {
        self.board.legal_plays(dice).iter().copied().collect()
    }

    /// The player on roll.
    #[must_use]
    pub fn on_roll(&self) -> Player {
        self.board.turn()
    }

    /// The player who must act now; `None` when either may (the opening
    /// roll, the next game) or nobody (the match is over).
    #[must_use]
    pub fn to_act(&self) -> Option<Player> {
        match self.phase {
            Phase::RollOrDouble | Phase::Move => Some(self.on_roll()),
            Phase::AnswerResignation => self.resignation.map(|r| !r.by),
            _ => None,
        }
    }

    /// `player` takes `action`, with the match's dice from `roller`.
    ///
    /// # Errors
    /// [`GameError`]: `no-cube-in-variant` for every cube action, not this
    /// player's turn, not this phase, an illegal play.
    pub fn act(
        &self,
        player: Player,
        action: &Action,
        roller: &Roller,
    ) -> Result<(TablesGameState, Event), GameError> {
        let game = self.current_game();
        if matches!(
            action,
            Action::Double | Action::Take | Action::Pass | Action::Beaver | Action::Raccoon
        ) {
            return Err(GameError::NoCube(game));
        }
        let wrong_phase = || GameError::wrong_phase(self.phase, action);
        GameError::check_turn(self.to_act(), player)?;
        let mut next = self.clone();
        let event = match (self.phase, action) {
            (Phase::OpeningRoll, Action::Roll) => {
                let opening = roller.opening_roll(&self.client_seed, self.game);
                next.turn = 0;
                next.board = VariantPosition::start(game.into(), self.rules, opening.starts);
                next.phase = Phase::RollOrDouble;
                // Long Nardy, NardyOpening::PlayDice ([SG-N]): the single
                // dice are the starter's first roll (never a double, so
                // the head rule's first-roll doubles do not arise).
                if self.rules.plays_opening_dice(game) {
                    if next.board.legal_plays(opening.dice).is_empty() {
                        next.board = next.board.swap_turn();
                    } else {
                        next.phase = Phase::Move;
                        next.dice = Some(opening.dice);
                    }
                }
                Event::StarterChosen {
                    x_die: opening.x_die,
                    o_die: opening.o_die,
                    starts: opening.starts,
                    ties: opening.ties,
                }
            }
            (Phase::RollOrDouble, Action::Roll) => {
                next.turn = self.turn.saturating_add(1);
                let dice = roller.roll(&self.client_seed, self.game, next.turn);
                let passed = self.board.legal_plays(dice).is_empty();
                if passed {
                    next.board = self.board.swap_turn();
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
                let (after, play) = self.board.play_text(text, dice)?;
                next.board = after;
                next.dice = None;
                next.phase = Phase::RollOrDouble;
                if let Some(VariantOutcome {
                    winner,
                    kind,
                    result,
                    points,
                }) = after.outcome()
                {
                    next.end_game(TablesScore {
                        game,
                        winner,
                        kind,
                        result,
                        resigned: false,
                        points,
                        match_after: self.tables_match.after_game(winner, points),
                    });
                }
                Event::Moved { player, play }
            }
            (Phase::RollOrDouble | Phase::Move, Action::Resign(level)) => {
                GameError::check_offers(action, self.resignations)?;
                next.resignations = self.resignations.saturating_add(1);
                next.resignation = Some(Resignation {
                    by: player,
                    level: *level,
                });
                next.phase = Phase::AnswerResignation;
                Event::Resigned {
                    by: player,
                    level: *level,
                }
            }
            (Phase::AnswerResignation, Action::Accept) => {
                let resignation = self.resignation.ok_or_else(wrong_phase)?;
                let points = resignation_points(game, resignation.level);
                let winner = Some(!resignation.by);
                let score = TablesScore {
                    game,
                    winner,
                    kind: if points == 1 {
                        OutcomeKind::Single
                    } else {
                        OutcomeKind::Double
                    },
                    result: Some(resignation.level),
                    resigned: true,
                    points,
                    match_after: self.tables_match.after_game(winner, points),
                };
                next.end_game(score);
                Event::GameEnded(Score::Tables(score))
            }
            (Phase::AnswerResignation, Action::Reject) => {
                next.resignation = None;
                next.phase = Phase::resume(self.dice.is_some());
                Event::Rejected { by: player }
            }
            (Phase::GameOver, Action::NextGame) => {
                let Some(score) = self.result else {
                    return Err(wrong_phase());
                };
                next = TablesGameState::with_seed(
                    self.rules,
                    score.match_after,
                    self.client_seed.clone(),
                );
                next.game = self.game.saturating_add(1);
                next.set_up = self.set_up;
                Event::NewGame {
                    game: next.game,
                    starter: score.match_after.starter,
                }
            }
            _ => return Err(wrong_phase()),
        };
        Ok((next, event))
    }

    /// Ends the game with `score`: game over, or match over.
    fn end_game(&mut self, score: TablesScore) {
        self.dice = None;
        self.resignation = None;
        self.phase = Phase::after_game(score.match_after.winner().is_some());
        self.result = Some(score);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roller() -> Roller {
        Roller::new(&[9u8; 32])
    }

    fn play_out(state: TablesGameState, r: &Roller) -> TablesGameState {
        crate::game::test_bot::play_out(state, r, 5000)
    }

    /// A Plakoto match from a set position: x (on roll) has two checkers
    /// left on its 1 and 2 points, o fourteen on its 10 point and one
    /// off. x rolls first, the game is scored, the next
    /// game starts from the start, still marked; a board of another game
    /// or a finished one is refused.
    #[test]
    fn a_match_begins_from_a_set_position() {
        use crate::tables::position::TablesPosition;
        use crate::tables::setup::TablesSetup;
        let r = roller();
        let mut setup = TablesSetup::empty(Game::Plakoto, Player::X);
        setup.points.x[0] = 1;
        setup.points.x[1] = 1;
        setup.off.x = 13;
        setup.points.o[9] = 14; // o's 10 point, x's 15
        setup.off.o = 1;
        let board = VariantPosition::from(TablesPosition::from_setup(&setup).unwrap());
        let plakoto = TablesMatch::new(TablesSeries::Single(Game::Plakoto), 3);
        let start =
            TablesGameState::from_position(TablesRules::DEFAULT, plakoto, "s".into(), board)
                .unwrap();
        assert!(start.set_up);
        assert_eq!(
            (start.phase, start.turn, start.to_act()),
            (Phase::RollOrDouble, 0, Some(Player::X))
        );
        let end = play_out(start, &r);
        let score = end.result.unwrap();
        assert_eq!(score.winner, Some(Player::X));
        let (next, _) = end.act(Player::O, &Action::NextGame, &r).unwrap();
        assert!(next.set_up);
        let fresh = VariantPosition::start(
            crate::Variant::Plakoto,
            TablesRules::DEFAULT,
            next.board.turn(),
        );
        assert_eq!(next.board, fresh);
        // Refused: a Fevga board for a Plakoto match, a finished game.
        let fevga = VariantPosition::start(crate::Variant::Fevga, TablesRules::DEFAULT, Player::X);
        assert_eq!(
            TablesGameState::from_position(TablesRules::DEFAULT, plakoto, "s".into(), fevga),
            Err(crate::SetUpError::WrongVariant)
        );
        let mut over = TablesSetup::empty(Game::Plakoto, Player::O);
        over.off.x = 15;
        over.points.o[23] = 15;
        let over = VariantPosition::from(TablesPosition::from_setup(&over).unwrap());
        assert_eq!(
            TablesGameState::from_position(TablesRules::DEFAULT, plakoto, "s".into(), over),
            Err(crate::SetUpError::GameOver)
        );
    }

    #[test]
    fn every_game_runs_to_its_end_without_a_cube() {
        let r = roller();
        for game in Game::ALL {
            let start = TablesGameState::new(
                TablesRules::DEFAULT,
                TablesMatch::new(TablesSeries::Single(game), 0),
                "s".into(),
            );
            assert_eq!(
                start.act(Player::X, &Action::Double, &r),
                Err(GameError::NoCube(game))
            );
            let (rolled, event) = start.act(Player::O, &Action::Roll, &r).unwrap();
            let Event::StarterChosen { starts, .. } = event else {
                panic!("{event:?}")
            };
            // The opening dice are not played: the starter rolls.
            assert_eq!(
                (rolled.phase, rolled.to_act()),
                (Phase::RollOrDouble, Some(starts))
            );
            let end = play_out(start, &r);
            assert_eq!(end.phase, Phase::GameOver, "{game}");
            let score = end.result.unwrap();
            assert_eq!(score.game, game);
            // The winner starts the next game, without an opening roll.
            let (next, _) = end.act(Player::X, &Action::NextGame, &r).unwrap();
            assert_eq!(next.game, 2);
            if let Some(w) = score.winner {
                assert_eq!((next.phase, next.to_act()), (Phase::RollOrDouble, Some(w)));
                assert_eq!(next.tables_match.score[w], score.points);
            }
        }
    }

    #[test]
    fn a_tavli_match_rotates_and_ends() {
        let r = roller();
        let mut state = TablesGameState::new(
            TablesRules::DEFAULT,
            TablesMatch::new(TablesSeries::Tavli, 5),
            "tavli".into(),
        );
        let mut games = Vec::new();
        while state.phase != Phase::MatchOver {
            games.push(state.current_game());
            state = play_out(state, &r);
            if state.phase == Phase::GameOver {
                state = state.act(Player::O, &Action::NextGame, &r).unwrap().0;
            }
        }
        for (i, g) in games.iter().enumerate() {
            assert_eq!(*g, TavliMatch::ROTATION[i % 3]);
        }
        let after = state.result.unwrap().match_after;
        assert!(after.score.x >= 5 || after.score.o >= 5);
        assert!(state.act(Player::X, &Action::NextGame, &r).is_err());
    }

    #[test]
    fn resignations_score_the_game() {
        let r = roller();
        let start = TablesGameState::new(
            TablesRules::DEFAULT,
            TablesMatch::new(TablesSeries::Single(Game::Fevga), 3),
            "r".into(),
        );
        let (rolled, _) = start.act(Player::X, &Action::Roll, &r).unwrap();
        let p = rolled.on_roll();
        let (offered, _) = rolled
            .act(p, &Action::Resign(GameResult::Backgammon), &r)
            .unwrap();
        assert_eq!(offered.to_act(), Some(!p));
        let (back, _) = offered.act(!p, &Action::Reject, &r).unwrap();
        assert_eq!(back.phase, Phase::RollOrDouble);
        let (over, event) = offered.act(!p, &Action::Accept, &r).unwrap();
        let Event::GameEnded(Score::Tables(score)) = event else {
            panic!("{event:?}")
        };
        assert_eq!((score.winner, score.points), (Some(!p), 2));
        assert_eq!(over.phase, Phase::GameOver);
    }

    #[test]
    fn resignation_offers_are_bounded_per_game() {
        let r = roller();
        let start = TablesGameState::new(
            TablesRules::DEFAULT,
            TablesMatch::new(TablesSeries::Single(Game::Plakoto), 3),
            "r".into(),
        );
        let (mut state, _) = start.act(Player::X, &Action::Roll, &r).unwrap();
        let p = state.on_roll();
        let resign = Action::Resign(GameResult::Single);
        for _ in 0..crate::MAX_RESIGNATIONS {
            let (offered, _) = state.act(p, &resign, &r).unwrap();
            state = offered.act(!p, &Action::Reject, &r).unwrap().0;
        }
        assert_eq!(state.resignations, crate::MAX_RESIGNATIONS);
        assert_eq!(
            state.act(p, &resign, &r).unwrap_err(),
            GameError::TooManyOffers
        );
        // The roll is still open; the next game counts afresh.
        let over = play_out(state, &r);
        let (next, _) = over.act(Player::X, &Action::NextGame, &r).unwrap();
        assert_eq!(next.resignations, 0);
    }
}

#[cfg(test)]
mod notation_round_trip {
    use alloc::string::ToString;

    use super::*;
    use crate::notation::move_text::MoveText;

    #[test]
    fn every_legal_play_in_notation_is_accepted() {
        let r = Roller::new(&[3u8; 32]);
        let tavla = TablesRules {
            hit_and_run: HitAndRun::ForbiddenInHome,
            ..TablesRules::DEFAULT
        };
        for (game, rules) in [
            (Game::Plakoto, TablesRules::DEFAULT),
            (Game::Fevga, TablesRules::DEFAULT),
            (Game::LongNardy, TablesRules::DEFAULT),
            (Game::Tavla, tavla),
        ] {
            for seed in 0..20u32 {
                let mut state = TablesGameState::new(
                    rules,
                    TablesMatch::new(TablesSeries::Single(game), 0),
                    seed.to_string(),
                );
                let mut n = seed as usize;
                while !matches!(state.phase, Phase::GameOver) {
                    let player = state.to_act().unwrap_or(Player::X);
                    if state.phase == Phase::Move {
                        let dice = state.dice.unwrap();
                        let plays = state.legal_plays(dice);
                        for play in &plays {
                            let text: MoveText = play.to_string().parse().unwrap();
                            if let Err(e) = state.board.play_text(&text, dice) {
                                panic!(
                                    "{game} {:?} {dice:?}: {play} ({:?}): {e}",
                                    state.board,
                                    play.moves()
                                );
                            }
                        }
                        n = n.wrapping_mul(31).wrapping_add(7);
                        let pick = plays[n % plays.len()];
                        state = state
                            .act(player, &Action::Move(pick.to_string().parse().unwrap()), &r)
                            .unwrap()
                            .0;
                    } else {
                        state = state.act(player, &Action::Roll, &r).unwrap().0;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod game_end {
    use alloc::string::ToString;

    use super::*;
    use crate::tables::position::TablesPosition;
    use crate::tables::setup::TablesSetup;

    #[test]
    fn the_mother_pin_ends_the_game_at_the_move_and_the_view_counts_it() {
        // docs/variants.md, "Plakoto / The mother rule": the move that pins
        // the mother ends the game; the match after it is the match now.
        let mut setup = TablesSetup::empty(Game::Plakoto, Player::X);
        setup.points.x[3] = 1; // x's 4
        setup.points.x[1] = 1; // x's 2
        setup.off.x = 13;
        setup.points.o[23] = 1; // o's mother, x's 1
        setup.points.o[14] = 14; // o's 15, x's 10
        let board = TablesPosition::from_setup(&setup).unwrap();
        let fresh = TablesGameState::new(
            TablesRules::DEFAULT,
            TablesMatch::new(TablesSeries::Single(Game::Plakoto), 3),
            "seed".to_string(),
        );
        let state = TablesGameState {
            board: VariantPosition::from(board),
            phase: Phase::Move,
            dice: Some(Dice::new(crate::Die::new(3), crate::Die::new(1))),
            turn: 5,
            ..fresh
        };
        assert_eq!(state.match_now(), state.tables_match);
        let roller = Roller::new(&[9u8; 32]);
        let (over, _) = state
            .act(Player::X, &Action::Move("4/1*".parse().unwrap()), &roller)
            .unwrap();
        assert_eq!(over.phase, Phase::GameOver);
        let score = over.result.unwrap();
        assert_eq!(
            (score.winner, score.kind, score.points),
            (Some(Player::X), OutcomeKind::Mother, 2)
        );
        // The view's match: the game counted, its winner starts the next.
        assert_eq!(over.tables_match.games_played, 0);
        let now = over.match_now();
        assert_eq!(
            (now.games_played, now.starter, now.score.x),
            (1, Some(Player::X), 2)
        );
        let (next, _) = over.act(Player::X, &Action::NextGame, &roller).unwrap();
        assert_eq!(next.match_now(), now);
    }
}

#[cfg(test)]
mod nardy_opening {
    use alloc::string::ToString;

    use super::*;
    use crate::tables::rules::NardyOpening;

    #[test]
    fn long_nardy_may_play_the_opening_dice() {
        // docs/variants.md, "The referee game flow / Opening": [SG-N] has
        // the starter play the two single dice; [RD-N] has it roll again.
        let roller = Roller::new(&[5u8; 32]);
        let rules = TablesRules {
            nardy_opening: NardyOpening::PlayDice,
            ..TablesRules::DEFAULT
        };
        for (game, rules, played) in [
            (Game::LongNardy, rules, true),
            (Game::LongNardy, TablesRules::DEFAULT, false),
            (Game::Fevga, rules, false),
        ] {
            let state = TablesGameState::new(
                rules,
                TablesMatch::new(TablesSeries::Single(game), 0),
                "a:b".to_string(),
            );
            let (next, event) = state.act(Player::X, &Action::Roll, &roller).unwrap();
            let Event::StarterChosen {
                x_die,
                o_die,
                starts,
                ..
            } = event
            else {
                panic!("{event:?}");
            };
            assert_eq!(next.on_roll(), starts);
            assert_eq!(next.turn, 0);
            if played {
                assert_eq!(next.phase, Phase::Move);
                assert_eq!(next.dice, Some(Dice::new(x_die, o_die)));
                let play = next.legal_plays(next.dice.unwrap())[0];
                let (after, _) = next
                    .act(
                        starts,
                        &Action::Move(play.to_string().parse().unwrap()),
                        &roller,
                    )
                    .unwrap();
                assert_eq!(
                    (after.phase, after.on_roll()),
                    (Phase::RollOrDouble, !starts)
                );
                let (rolled, _) = after.act(!starts, &Action::Roll, &roller).unwrap();
                assert_eq!(rolled.turn, 1);
            } else {
                assert_eq!((next.phase, next.dice), (Phase::RollOrDouble, None));
            }
        }
    }
}

//! A seeded bot that plays whole matches through `BackgammonGame::act`: a
//! random legal play, a double now and then, takes, drops, beavers and
//! raccoons when the rules allow them, resignations offered, accepted and
//! rejected. Shared by `examples/write_mat.rs` and `tests/mat.rs`; the
//! randomness is a xorshift generator seeded by the caller, so every match
//! is reproducible.

#![allow(dead_code)]

use bgref_core::notation::move_text::MoveText;
use bgref_core::verify::Roller;
use bgref_core::{Action, BackgammonGame, Event, GameResult, Phase, Player};

/// How often the bot does what (out of 1000 decisions of that kind).
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// Doubles when it may.
    pub double: u64,
    /// Takes a double (else drops, or beavers when allowed).
    pub take: u64,
    /// Beavers (or raccoons) a double it takes, when allowed.
    pub beaver: u64,
    /// Offers to resign, before rolling or before moving.
    pub resign: u64,
    /// Accepts a resignation.
    pub accept: u64,
}

impl Style {
    /// Doubles now and then, takes most, never resigns.
    pub const CUBE: Style = Style {
        double: 60,
        take: 650,
        beaver: 0,
        resign: 0,
        accept: 0,
    };
}

/// The bot: its style and its generator.
#[derive(Debug, Clone)]
pub struct Bot {
    state: u64,
    /// What it does how often.
    pub style: Style,
}

impl Bot {
    /// A bot seeded with `seed`.
    pub fn new(seed: u64, style: Style) -> Bot {
        Bot {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            style,
        }
    }

    fn next(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state = x;
        x
    }

    fn per_mille(&mut self, n: u64) -> bool {
        self.next() % 1000 < n
    }

    /// The actions to try now, best first (the first one `act` accepts is
    /// taken).
    fn candidates(&mut self, state: &BackgammonGame) -> Vec<Action> {
        match state.phase {
            Phase::OpeningRoll => vec![Action::Roll],
            Phase::RollOrDouble => {
                let mut out = Vec::new();
                if self.per_mille(self.style.resign) {
                    out.push(Action::Resign(self.level()));
                }
                if state.may_double() && self.per_mille(self.style.double) {
                    out.push(Action::Double);
                }
                out.push(Action::Roll);
                out
            }
            Phase::AnswerDouble => {
                let mut out = Vec::new();
                if self.per_mille(self.style.take) {
                    if self.per_mille(self.style.beaver) {
                        out.push(Action::Beaver);
                        out.push(Action::Raccoon);
                    }
                    out.push(Action::Take);
                }
                out.push(Action::Pass);
                out
            }
            Phase::Move => {
                let mut out = Vec::new();
                if self.per_mille(self.style.resign) {
                    out.push(Action::Resign(self.level()));
                }
                let dice = state.dice.expect("dice in the move phase");
                let plays = state.position.legal_plays(dice);
                let plays: Vec<_> = plays.iter().collect();
                let first = (self.next() % (plays.len() as u64).max(1)) as usize;
                for play in plays[first..].iter().chain(&plays[..first]) {
                    let text: MoveText = play.to_string().parse().expect("our own notation");
                    out.push(Action::Move(text));
                }
                out
            }
            Phase::AnswerResignation => {
                if self.per_mille(self.style.accept) {
                    vec![Action::Accept, Action::Reject]
                } else {
                    vec![Action::Reject, Action::Accept]
                }
            }
            Phase::GameOver => vec![Action::NextGame],
            Phase::MatchOver => Vec::new(),
        }
    }

    fn level(&mut self) -> GameResult {
        GameResult::ALL[(self.next() % 3) as usize]
    }

    /// Plays from `start` until the match is over or `max_games` games have
    /// ended; returns every step `act` returned.
    pub fn play(
        &mut self,
        start: &BackgammonGame,
        roller: &Roller,
        max_games: u32,
    ) -> Vec<(BackgammonGame, Event)> {
        let mut steps: Vec<(BackgammonGame, Event)> = Vec::new();
        let mut state = start.clone();
        let mut games_ended = 0;
        while state.phase != Phase::MatchOver {
            if state.phase == Phase::GameOver {
                games_ended += 1;
                if games_ended >= max_games {
                    break;
                }
            }
            assert!(steps.len() < 100_000, "the match does not end");
            let player = state.to_act().unwrap_or(Player::X);
            let step = self
                .candidates(&state)
                .into_iter()
                .find_map(|action| state.act(player, &action, roller).ok())
                .expect("some action is allowed");
            state = step.0.clone();
            steps.push(step);
        }
        steps
    }
}

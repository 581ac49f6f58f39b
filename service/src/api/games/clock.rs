//! The referee clock (docs/referee.md, "The clock"): each player's reserve
//! and a simple delay per turn, in the token, timed by the replica's own
//! clock.
//!
//! A player's time runs while the player alone must act ([`GameState::to_act`]
//! names it): from the action that made it so until the action that makes
//! it the opponent's (or nobody's). That span is one *period*: the first
//! `delay_ms` of it are free, the rest comes off the reserve. A roll and
//! the move after it are one period, as one turn between two presses of a
//! clock; a double, its answer and the doubler's roll are three. Nobody's
//! time runs while either player may act (the opening roll, the next game)
//! or the match is over.
//!
//! [`GameState::to_act`]: super::GameState::to_act

use bgref_core::{ByPlayer, Player};

use super::{Reader, bad_token, player_byte};
use crate::error::ApiError;

/// Largest reserve, in milliseconds (a week).
pub const MAX_RESERVE_MS: u32 = 7 * 24 * 60 * 60 * 1000;
/// Largest delay, and largest overtime, in milliseconds (ten minutes).
pub const MAX_DELAY_MS: u32 = 10 * 60 * 1000;

/// A clock's rules as published, reserve from the match length and score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockPreset {
    /// U.S. Backgammon Clock Rules and Procedures, March 2013, 2.1: two
    /// minutes per match point less one minute per point already scored by
    /// either player; 12 seconds' delay per move.
    Us2013,
    /// Unified Backgammon Tournament Clock Rules, February 2001, 2.1 (its
    /// timetable; the Atlanta 2003 edition's "standard clock"): six
    /// minutes per match point less three per point already scored by
    /// either player, no delay.
    Unified2001,
}

impl ClockPreset {
    /// Every preset, in the order the docs list them.
    pub const ALL: [ClockPreset; 2] = [ClockPreset::Us2013, ClockPreset::Unified2001];

    /// The name both protocols use.
    pub const fn as_str(self) -> &'static str {
        match self {
            ClockPreset::Us2013 => "us-2013",
            ClockPreset::Unified2001 => "unified-2001",
        }
    }

    /// The preset of `name`.
    pub fn parse(name: &str) -> Option<ClockPreset> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// Milliseconds per match point, per point already scored, and the
    /// delay.
    const fn rates(self) -> (u64, u64, u32) {
        match self {
            ClockPreset::Us2013 => (120_000, 60_000, 12_000),
            ClockPreset::Unified2001 => (360_000, 180_000, 0),
        }
    }

    /// Each player's reserve and the delay for a match of `length` points
    /// at `score` (the preset's section 2.1).
    pub fn settings(self, length: u32, score: ByPlayer<u32>) -> (u64, u32) {
        let (per_point, per_scored, delay) = self.rates();
        let scored = u64::from(score.x) + u64::from(score.o);
        let reserve = (per_point * u64::from(length)).saturating_sub(per_scored * scored);
        (reserve, delay)
    }
}

/// A clock's reserve and delay as `POST /games` asks for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockTime {
    /// A published clock rule.
    Preset(ClockPreset),
    /// Each player's reserve and the delay, in milliseconds.
    Given {
        /// Each player's reserve.
        reserve_ms: u64,
        /// The delay of each period.
        delay_ms: u64,
    },
}

/// A clock as `POST /games` asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockInput {
    /// The reserve and the delay.
    pub time: ClockTime,
    /// The USBGF's optional overtime: once in the match, a player whose
    /// reserve runs out gets this much more instead of losing (0: none).
    pub overtime_ms: u64,
}

impl From<ClockTime> for ClockInput {
    fn from(time: ClockTime) -> Self {
        ClockInput {
            time,
            overtime_ms: 0,
        }
    }
}

impl From<ClockPreset> for ClockInput {
    fn from(p: ClockPreset) -> Self {
        ClockTime::Preset(p).into()
    }
}

impl ClockInput {
    /// The clock a request describes: a preset by name, or a reserve and
    /// an optional delay (0 by default), in milliseconds; with either, an
    /// optional overtime (0 by default).
    ///
    /// # Errors
    /// `invalid-clock` (400): an unknown preset, a preset beside a reserve
    /// or delay, neither.
    pub fn read(
        preset: Option<&str>,
        reserve_ms: Option<u64>,
        delay_ms: Option<u64>,
        overtime_ms: Option<u64>,
    ) -> Result<ClockInput, ApiError> {
        let time = Self::read_time(preset, reserve_ms, delay_ms)?;
        Ok(ClockInput {
            time,
            overtime_ms: overtime_ms.unwrap_or(0),
        })
    }

    fn read_time(
        preset: Option<&str>,
        reserve_ms: Option<u64>,
        delay_ms: Option<u64>,
    ) -> Result<ClockTime, ApiError> {
        let names = || {
            ClockPreset::ALL
                .map(|p| format!("{:?}", p.as_str()))
                .join(" or ")
        };
        if preset.is_some() && (reserve_ms.is_some() || delay_ms.is_some()) {
            return Err(ApiError::invalid(
                "invalid-clock",
                "clock.preset",
                "give a preset, or reserve_ms (and delay_ms): not both",
            ));
        }
        match (preset, reserve_ms) {
            (Some(name), _) => ClockPreset::parse(name)
                .map(ClockTime::Preset)
                .ok_or_else(|| {
                    ApiError::invalid(
                        "invalid-clock",
                        "clock.preset",
                        format!("unknown clock preset {name:?}: {}", names()),
                    )
                }),
            (None, Some(reserve_ms)) => Ok(ClockTime::Given {
                reserve_ms,
                delay_ms: delay_ms.unwrap_or(0),
            }),
            (None, None) => Err(ApiError::invalid(
                "invalid-clock",
                "clock.reserve_ms",
                format!(
                    "a clock needs reserve_ms (each player's reserve, in milliseconds; delay_ms \
                     optional) or a preset: {}",
                    names()
                ),
            )),
        }
    }
}

/// A clock's state, as the token carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// The free time at the start of each period.
    pub delay_ms: u32,
    /// Each player's reserve left; the running player's as its period
    /// began (its period's use comes off when the period ends).
    pub reserve_ms: ByPlayer<u32>,
    /// Each player's overtime still to come: the match's overtime until
    /// the player's reserve first runs out, then 0.
    pub overtime_ms: ByPlayer<u32>,
    /// Whose time runs (none: either player may act, or the match is over).
    pub running: Option<Player>,
    /// When the running player's period began (Unix milliseconds; 0 when
    /// nobody's time runs).
    pub since_ms: u64,
    /// The referee's time of the action (or the start) that made this
    /// state, Unix milliseconds.
    pub at_ms: u64,
    /// Whose reserve ran out: the match is over, the opponent won it.
    pub expired: Option<Player>,
}

impl Clock {
    /// A new match's clock at `at_ms`: `to_act`'s time runs from then.
    ///
    /// # Errors
    /// `invalid-clock` (400) for a reserve or delay out of range, or a
    /// clock without a match.
    pub fn start(
        input: ClockInput,
        length: u32,
        score: ByPlayer<u32>,
        at_ms: u64,
        to_act: Option<Player>,
    ) -> Result<Clock, ApiError> {
        if length == 0 {
            return Err(ApiError::invalid(
                "invalid-clock",
                "clock",
                "a clock needs a match (match.length): when a reserve runs out, the player \
                 loses the match",
            ));
        }
        let (reserve, delay, field) = match input.time {
            ClockTime::Preset(p) => {
                let (reserve, delay) = p.settings(length, score);
                (reserve, u64::from(delay), "clock.preset")
            }
            ClockTime::Given {
                reserve_ms,
                delay_ms,
            } => (reserve_ms, delay_ms, "clock.reserve_ms"),
        };
        if !(1..=u64::from(MAX_RESERVE_MS)).contains(&reserve) {
            return Err(ApiError::invalid(
                "invalid-clock",
                field,
                format!("a reserve is 1 to {MAX_RESERVE_MS} ms (a week), got {reserve} ms"),
            ));
        }
        if delay > u64::from(MAX_DELAY_MS) {
            return Err(ApiError::invalid(
                "invalid-clock",
                "clock.delay_ms",
                format!("a delay is 0 to {MAX_DELAY_MS} ms (ten minutes), got {delay} ms"),
            ));
        }
        if input.overtime_ms > u64::from(MAX_DELAY_MS) {
            return Err(ApiError::invalid(
                "invalid-clock",
                "clock.overtime_ms",
                format!(
                    "an overtime is 0 to {MAX_DELAY_MS} ms (ten minutes; the USBGF's options \
                     are 60000 and 120000), got {} ms",
                    input.overtime_ms
                ),
            ));
        }
        let (reserve, delay, overtime) = (reserve as u32, delay as u32, input.overtime_ms as u32);
        Ok(Clock {
            delay_ms: delay,
            reserve_ms: ByPlayer {
                x: reserve,
                o: reserve,
            },
            overtime_ms: ByPlayer {
                x: overtime,
                o: overtime,
            },
            running: to_act,
            since_ms: to_act.map_or(0, |_| at_ms),
            at_ms,
            expired: None,
        })
    }

    /// The time of an action the replica's clock reads as `now_ms`: never
    /// before the last action's (a replica whose clock is behind delays
    /// nobody's deadline by its skew; it cannot turn time back).
    pub fn time_of(&self, now_ms: u64) -> u64 {
        now_ms.max(self.at_ms)
    }

    /// When the running player's time runs out: the end of its delay plus
    /// its reserve, plus its overtime if it has one still (Unix
    /// milliseconds).
    pub fn deadline_ms(&self) -> Option<u64> {
        self.running.map(|p| {
            self.since_ms
                .saturating_add(u64::from(self.delay_ms))
                .saturating_add(u64::from(self.reserve_ms[p]))
                .saturating_add(u64::from(self.overtime_ms[p]))
        })
    }

    /// The running player, if its deadline passed before `at_ms`.
    pub fn overdue(&self, at_ms: u64) -> Option<Player> {
        self.running
            .filter(|_| self.deadline_ms().is_some_and(|d| at_ms > d))
    }

    /// The clock after an action in time at `at_ms` after which `to_act`
    /// must act: the running player's period goes on while it still acts
    /// (a roll, then its move), else ends with its use off its reserve and
    /// `to_act`'s begins. A period that used more than the reserve used
    /// the overtime: what is left of both is the new reserve, and the
    /// overtime is spent.
    #[must_use]
    pub fn after(self, at_ms: u64, to_act: Option<Player>) -> Clock {
        if self.running.is_some() && self.running == to_act {
            return Clock { at_ms, ..self };
        }
        let (mut reserve_ms, mut overtime_ms) = (self.reserve_ms, self.overtime_ms);
        if let Some(p) = self.running {
            let used = at_ms
                .saturating_sub(self.since_ms)
                .saturating_sub(u64::from(self.delay_ms));
            if used > u64::from(reserve_ms[p]) {
                reserve_ms[p] += overtime_ms[p];
                overtime_ms[p] = 0;
            }
            reserve_ms[p] = u64::from(reserve_ms[p]).saturating_sub(used) as u32;
        }
        Clock {
            reserve_ms,
            overtime_ms,
            running: to_act,
            since_ms: to_act.map_or(0, |_| at_ms),
            at_ms,
            ..self
        }
    }

    /// The clock once `late`'s reserve ran out, at `at_ms`.
    #[must_use]
    pub fn expire(self, late: Player, at_ms: u64) -> Clock {
        let (mut reserve_ms, mut overtime_ms) = (self.reserve_ms, self.overtime_ms);
        reserve_ms[late] = 0;
        overtime_ms[late] = 0;
        Clock {
            reserve_ms,
            overtime_ms,
            running: None,
            since_ms: 0,
            at_ms,
            expired: Some(late),
            ..self
        }
    }

    /// The token's clock fields: delay, reserves of x and o, overtimes of
    /// x and o, the running player (0 none), its period's start, the time
    /// of the state, whose reserve ran out (0 none).
    pub(super) fn encode(&self, b: &mut Vec<u8>) {
        b.extend_from_slice(&self.delay_ms.to_be_bytes());
        b.extend_from_slice(&self.reserve_ms.x.to_be_bytes());
        b.extend_from_slice(&self.reserve_ms.o.to_be_bytes());
        b.extend_from_slice(&self.overtime_ms.x.to_be_bytes());
        b.extend_from_slice(&self.overtime_ms.o.to_be_bytes());
        b.push(self.running.map_or(0, player_byte));
        b.extend_from_slice(&self.since_ms.to_be_bytes());
        b.extend_from_slice(&self.at_ms.to_be_bytes());
        b.push(self.expired.map_or(0, player_byte));
    }

    /// Reads [`Clock::encode`]'s fields back, checked.
    pub(super) fn decode(r: &mut Reader<'_>) -> Result<Clock, ApiError> {
        let clock = Clock {
            delay_ms: r.u32()?,
            reserve_ms: ByPlayer {
                x: r.u32()?,
                o: r.u32()?,
            },
            overtime_ms: ByPlayer {
                x: r.u32()?,
                o: r.u32()?,
            },
            running: r.player_or_none()?,
            since_ms: r.u64()?,
            at_ms: r.u64()?,
            expired: r.player_or_none()?,
        };
        let consistent = clock.delay_ms <= MAX_DELAY_MS
            && clock.reserve_ms.x <= MAX_RESERVE_MS
            && clock.reserve_ms.o <= MAX_RESERVE_MS
            && clock.overtime_ms.x <= MAX_DELAY_MS
            && clock.overtime_ms.o <= MAX_DELAY_MS
            && (clock.running.is_some() || clock.since_ms == 0)
            && clock.since_ms <= clock.at_ms
            && (clock.expired.is_none() || clock.running.is_none());
        if !consistent {
            return Err(bad_token("the state token's clock is inconsistent"));
        }
        Ok(clock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: u64 = 1_800_000_000_000;

    fn us(length: u32, x: u32, o: u32) -> u64 {
        ClockPreset::Us2013.settings(length, ByPlayer { x, o }).0
    }

    #[test]
    fn the_presets_reserve_follows_the_match_length_and_score() {
        // U.S. 2013, 2.1: 2 minutes per match point, less 1 per point
        // scored by either player.
        assert_eq!(us(7, 0, 0), 14 * 60_000);
        assert_eq!(us(7, 3, 2), (14 - 5) * 60_000);
        assert_eq!(us(11, 10, 10), 2 * 60_000);
        assert_eq!(us(1, 0, 0), 2 * 60_000);
        assert_eq!(
            ClockPreset::Us2013.settings(5, ByPlayer { x: 0, o: 0 }).1,
            12_000
        );
        // Unified 2001's timetable: 54 minutes at the start of a 9-point
        // match, 30 when the players need 4 and 6.
        let unified = |l, x, o| ClockPreset::Unified2001.settings(l, ByPlayer { x, o });
        assert_eq!(unified(9, 0, 0), (54 * 60_000, 0));
        assert_eq!(unified(9, 5, 3), (30 * 60_000, 0));
    }

    #[test]
    fn a_period_spends_the_delay_first_and_lasts_while_its_player_acts() {
        let clock = Clock::start(
            ClockTime::Given {
                reserve_ms: 60_000,
                delay_ms: 12_000,
            }
            .into(),
            5,
            ByPlayer { x: 0, o: 0 },
            START,
            Some(Player::X),
        )
        .unwrap();
        assert_eq!(clock.deadline_ms(), Some(START + 72_000));
        // x rolls after 5 s: still x's period, nothing spent.
        let rolled = clock.after(START + 5_000, Some(Player::X));
        assert_eq!(rolled.reserve_ms.x, 60_000);
        assert_eq!(rolled.since_ms, START);
        // x moves after 20 s in all: 8 s off the reserve; o's time runs.
        let moved = rolled.after(START + 20_000, Some(Player::O));
        assert_eq!(
            moved.reserve_ms,
            ByPlayer {
                x: 52_000,
                o: 60_000
            }
        );
        assert_eq!(
            (moved.running, moved.since_ms),
            (Some(Player::O), START + 20_000)
        );
        // o answers within its delay: nothing spent; nobody's time runs.
        let done = moved.after(START + 30_000, None);
        assert_eq!(
            done.reserve_ms,
            ByPlayer {
                x: 52_000,
                o: 60_000
            }
        );
        assert_eq!(
            (done.running, done.since_ms, done.deadline_ms()),
            (None, 0, None)
        );
        // The deadline itself is in time; a millisecond later is not.
        assert_eq!(moved.overdue(START + 20_000 + 72_000), None);
        assert_eq!(moved.overdue(START + 20_000 + 72_001), Some(Player::O));
        assert_eq!(moved.overdue(START + 1_000_000), Some(Player::O));
        let expired = moved.expire(Player::O, START + 1_000_000);
        assert_eq!(expired.reserve_ms.o, 0);
        assert_eq!((expired.running, expired.expired), (None, Some(Player::O)));
        // A replica whose clock is behind cannot turn time back.
        assert_eq!(moved.time_of(START), START + 20_000);
    }

    #[test]
    fn a_clock_needs_a_match_and_a_reserve_in_range() {
        let given = |reserve_ms, delay_ms| {
            ClockInput::from(ClockTime::Given {
                reserve_ms,
                delay_ms,
            })
        };
        let score = ByPlayer { x: 0, o: 0 };
        let refused = |input, length| {
            Clock::start(input, length, score, START, None)
                .unwrap_err()
                .field
        };
        assert_eq!(refused(given(60_000, 0), 0).as_deref(), Some("clock"));
        assert_eq!(refused(given(0, 0), 5).as_deref(), Some("clock.reserve_ms"));
        assert_eq!(
            refused(given(u64::from(MAX_RESERVE_MS) + 1, 0), 5).as_deref(),
            Some("clock.reserve_ms")
        );
        assert_eq!(
            refused(given(60_000, u64::from(MAX_DELAY_MS) + 1), 5).as_deref(),
            Some("clock.delay_ms")
        );
        // A preset's reserve of a very long match is out of range too.
        assert_eq!(
            refused(ClockPreset::Us2013.into(), 60_000).as_deref(),
            Some("clock.preset")
        );
    }

    /// The USBGF's optional overtime: the first time a player's reserve
    /// runs out it gets the overtime instead of losing; the second time it
    /// loses. The other player keeps its own.
    #[test]
    fn an_overtime_saves_a_player_once() {
        let input = ClockInput {
            time: ClockTime::Given {
                reserve_ms: 10_000,
                delay_ms: 0,
            },
            overtime_ms: 60_000,
        };
        let score = ByPlayer { x: 0, o: 0 };
        let clock = Clock::start(input, 5, score, START, Some(Player::X)).unwrap();
        // x's time: its reserve, then the overtime.
        assert_eq!(clock.deadline_ms(), Some(START + 70_000));
        assert_eq!(clock.overdue(START + 70_000), None);
        // x ends its period 30 s in: 20 s into its overtime, 40 s left.
        let next = clock.after(START + 30_000, Some(Player::O));
        assert_eq!(
            next.reserve_ms,
            ByPlayer {
                x: 40_000,
                o: 10_000
            }
        );
        assert_eq!(next.overtime_ms, ByPlayer { x: 0, o: 60_000 });
        // x's next period: its reserve only.
        let again = next.after(START + 31_000, Some(Player::X));
        assert_eq!(again.deadline_ms(), Some(START + 31_000 + 40_000));
        assert_eq!(again.overdue(START + 71_001), Some(Player::X));
        // A period within the reserve leaves the overtime.
        let quick = again.after(START + 32_000, Some(Player::O));
        assert_eq!(quick.overtime_ms.o, 60_000);
        // Out of range.
        let long = ClockInput {
            overtime_ms: u64::from(MAX_DELAY_MS) + 1,
            ..input
        };
        let err = Clock::start(long, 5, score, START, None).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("clock.overtime_ms"));
    }

    #[test]
    fn the_clock_fields_round_trip_and_inconsistent_ones_are_refused() {
        let clock = Clock {
            delay_ms: 12_000,
            reserve_ms: ByPlayer { x: 1, o: 2 },
            overtime_ms: ByPlayer { x: 60_000, o: 0 },
            running: Some(Player::O),
            since_ms: START,
            at_ms: START + 9,
            expired: None,
        };
        let mut b = Vec::new();
        clock.encode(&mut b);
        assert_eq!(b.len(), 38);
        assert_eq!(Clock::decode(&mut Reader { bytes: &b }).unwrap(), clock);
        let bad = Clock {
            running: None,
            ..clock
        };
        let mut b = Vec::new();
        bad.encode(&mut b);
        assert!(Clock::decode(&mut Reader { bytes: &b }).is_err());
    }
}

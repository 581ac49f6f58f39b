//! A [`GameState`] as bytes: the game fields that bgref's state tokens
//! carry after their header (version, key id, chain, match id, client
//! seed), written by [`GameState::write_fields`] and read back, checked,
//! by [`GameState::read_fields`].
//!
//! Each ruleset has the layout it has always had, so that every state
//! written before is read and replays of old matches hash the same bytes.
//! Numbers are big-endian; a player is 1 (x) or 2 (o), 0 where none; a
//! result is 1 (single), 2 (gammon) or 3 (backgammon). The first byte of
//! both layouts keeps two bits for flags: [`SET_UP_BIT`] (0x80, a match
//! from a set position) and [`FREE_BIT`] (0x40), which the writer leaves 0
//! and the reader ignores, for the caller (bgref marks a clocked match
//! with it).
//!
//! # Layout 1: the backgammon variants
//!
//! | bytes | field |
//! |---|---|
//! | 1 | variant (its index in [`BackgammonVariant::ALL`]) and the flags |
//! | 4 | rules: Jacoby, beavers, automatic doubles, log2 of the maximum cube |
//! | 2 + 4 + 4 + 1 | match length, score of x, score of o, Crawford game |
//! | 4 + 4 | game number, turn number |
//! | 14 + 1 | Position ID, player on roll |
//! | 4 | cube: log2 value, owner, pending double by, beavers |
//! | 1 + 1 + 2 | pending resignation (`by * 4 + level`), phase, dice of the turn (0 0: none) |
//! | 1 (+ 8) | last game's score: present, then how it ended (bear-off, pass, resignation), winner, result, Jacoby, points |
//!
//! # Layout 2: the tables games
//!
//! Portes, Tavla, Plakoto, Fevga and Long Nardy, alone or as a Tavli
//! match.
//!
//! | bytes | field |
//! |---|---|
//! | 1 | series: the game (its index in [`Game::ALL`]: 0 portes, 1 tavla, 2 plakoto, 3 fevga, 4 long-nardy), or 5 for a Tavli match; and the flags |
//! | 4 | tables rules: mother rule and (high nibble) Long Nardy's opening, Fevga start, primes, head doubles and (high nibble) Tavla's hit-and-run, each the index of its option |
//! | 2 + 4 + 4 | match length (0: a session), score of x, score of o (before this game) |
//! | 4 + 1 | games played before this one (the Tavli rotation), next starter |
//! | 4 + 4 | game number, turn number |
//! | 1 | player on roll |
//! | 14 or 58 | Portes, Tavla: the Position ID; Plakoto, Fevga, Long Nardy: for x then o, 25 counts from its own view (borne off, then points 1 to 24) and a 4-byte mask of its pinned checkers (bit p: its point p) |
//! | 1 + 1 + 2 | pending resignation, phase, dice of the turn |
//! | 1 (+ 9) | last game's score: present, then winner (0: a draw), outcome (single, double, mother, draw), result (0 none), resigned, points |
//!
//! The game being played is not stored: it follows from the series and
//! the games played.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::notation::position_id::PositionId;
use crate::tables::{
    FevgaStart, Game, HeadDoubles, HitAndRun, MotherRule, NardyOpening, OutcomeKind, PrimeRule,
    TablesGameState, TablesMatch, TablesPosition, TablesRules, TablesScore, TablesSeries,
    TablesSetup,
};
use crate::{
    BackgammonGame, BackgammonVariant, ByPlayer, CubeOwner, CubeRules, CubeState, CubeValue, Dice,
    Die, GameEnd, GameResult, GameScore, GameState, MatchState, Phase, Player, Position,
    Resignation, VariantPosition,
};

/// The bit of the first field byte that marks a match from a set
/// position.
pub const SET_UP_BIT: u8 = 0x80;

/// The bit of the first field byte left to the caller: written 0,
/// ignored when read.
pub const FREE_BIT: u8 = 0x40;

/// The layout of the backgammon variants' fields.
pub const BACKGAMMON_LAYOUT: u8 = 1;

/// The layout of the tables games' fields.
pub const TABLES_LAYOUT: u8 = 2;

/// Why bytes are not a game state's fields: the sentence says which field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateBytesError(String);

impl StateBytesError {
    fn new(detail: impl Into<String>) -> StateBytesError {
        StateBytesError(detail.into())
    }
}

impl fmt::Display for StateBytesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl core::error::Error for StateBytesError {}

impl GameState {
    /// The layout [`GameState::write_fields`] writes: [`BACKGAMMON_LAYOUT`]
    /// or [`TABLES_LAYOUT`].
    #[must_use]
    pub const fn layout(&self) -> u8 {
        match self {
            GameState::Backgammon(_) => BACKGAMMON_LAYOUT,
            GameState::Tables(_) => TABLES_LAYOUT,
        }
    }

    /// Appends the game's fields to `b`, in its [`GameState::layout`],
    /// without the resignation count (the caller writes it where its
    /// format has it). The narrowing casts are bounded where a referee
    /// makes the state: a match of at most 65535 points.
    pub fn write_fields(&self, b: &mut Vec<u8>) {
        match self {
            GameState::Backgammon(state) => write_backgammon(b, state),
            GameState::Tables(state) => write_tables(b, state),
        }
    }

    /// Reads the fields of `layout` written by [`GameState::write_fields`]
    /// from the start of `bytes`, for a match bound to `client_seed`: the
    /// state (its resignation count 0) and the bytes after its fields.
    ///
    /// # Errors
    /// [`StateBytesError`] for an unknown layout, bytes that end early,
    /// or fields that are out of range or describe no valid state.
    pub fn read_fields(
        layout: u8,
        bytes: &[u8],
        client_seed: String,
    ) -> Result<(GameState, &[u8]), StateBytesError> {
        let mut r = Reader { bytes };
        let state = match layout {
            BACKGAMMON_LAYOUT => GameState::Backgammon(read_backgammon(&mut r, client_seed)?),
            TABLES_LAYOUT => GameState::Tables(read_tables(&mut r, client_seed)?),
            _ => return Err(StateBytesError::new("the state's layout is unknown")),
        };
        Ok((state, r.bytes))
    }

    /// Sets the resignations offered in this game, which the fields do not
    /// carry.
    pub fn set_resignations(&mut self, resignations: u8) {
        match self {
            GameState::Backgammon(state) => state.resignations = resignations,
            GameState::Tables(state) => state.resignations = resignations,
        }
    }
}

fn bad(detail: &str) -> StateBytesError {
    StateBytesError::new(detail)
}

fn flag(set: bool, bit: u8) -> u8 {
    if set { bit } else { 0 }
}

fn player_byte(p: Player) -> u8 {
    match p {
        Player::X => 1,
        Player::O => 2,
    }
}

fn result_byte(r: GameResult) -> u8 {
    match r {
        GameResult::Single => 1,
        GameResult::Gammon => 2,
        GameResult::Backgammon => 3,
    }
}

fn index_byte<T: PartialEq>(all: &[T], item: &T) -> u8 {
    all.iter().position(|x| x == item).map_or(0, |i| i as u8)
}

/// The fields both layouts end their turn with: a pending resignation
/// (`by * 4 + level`, 0: none), the phase, the dice (`[0, 0]`: none).
fn write_turn(b: &mut Vec<u8>, resignation: Option<Resignation>, phase: Phase, dice: Option<Dice>) {
    b.push(resignation.map_or(0, |r| player_byte(r.by) * 4 + result_byte(r.level)));
    b.push(phase as u8);
    b.extend_from_slice(&dice.map_or([0, 0], |d| d.values()));
}

/// The backgammon variants' fields (layout 1).
fn write_backgammon(b: &mut Vec<u8>, state: &BackgammonGame) {
    b.push(index_byte(&BackgammonVariant::ALL, &state.variant) | flag(state.set_up, SET_UP_BIT));
    let r = &state.rules;
    b.extend_from_slice(&[
        u8::from(r.jacoby),
        r.beavers,
        r.automatic_doubles,
        r.max_cube.log2(),
    ]);
    let m = &state.match_state;
    b.extend_from_slice(&(m.length as u16).to_be_bytes());
    b.extend_from_slice(&m.score.x.to_be_bytes());
    b.extend_from_slice(&m.score.o.to_be_bytes());
    b.push(u8::from(m.crawford));
    b.extend_from_slice(&state.game.to_be_bytes());
    b.extend_from_slice(&state.turn.to_be_bytes());
    b.extend_from_slice(&PositionId::from_position(&state.position).encode());
    b.push(player_byte(state.position.turn()));
    let c = &state.cube;
    b.push(c.value.log2());
    b.push(match c.owner {
        CubeOwner::Centre => 0,
        CubeOwner::Player(p) => player_byte(p),
    });
    b.push(c.offered_by.map_or(0, player_byte));
    b.push(c.beavers);
    write_turn(b, c.resignation, state.phase, state.dice);
    match &state.result {
        None => b.push(0),
        Some(s) => {
            b.push(1);
            let (kind, level) = match s.end {
                GameEnd::BearOff { result, .. } => (0, result),
                GameEnd::Pass { .. } => (1, GameResult::Single),
                GameEnd::Resign { level, .. } => (2, level),
            };
            b.extend_from_slice(&[
                kind,
                player_byte(s.winner),
                result_byte(level),
                u8::from(s.jacoby),
            ]);
            b.extend_from_slice(&s.points.to_be_bytes());
        }
    }
}

fn read_backgammon(
    r: &mut Reader<'_>,
    client_seed: String,
) -> Result<BackgammonGame, StateBytesError> {
    let (index, set_up) = r.first_byte()?;
    let variant = *BackgammonVariant::ALL
        .get(index)
        .ok_or_else(|| bad("the state names no variant"))?;
    let rules = CubeRules {
        jacoby: r.u8()? != 0,
        beavers: r.u8()?,
        automatic_doubles: r.u8()?,
        max_cube: cube_value(r.u8()?)?,
    };
    let match_state = MatchState {
        length: u32::from(r.u16()?),
        score: ByPlayer {
            x: r.u32()?,
            o: r.u32()?,
        },
        crawford: r.u8()? != 0,
    };
    let game = r.u32()?;
    let turn = r.u32()?;
    let id = r.position_id()?;
    let on_roll = r.player()?;
    let position = Position::from_setup(&id.to_setup(on_roll), variant)
        .map_err(|e| StateBytesError::new(format!("the state's position is invalid: {e}")))?;
    let value = cube_value(r.u8()?)?;
    let owner = match r.player_or_none()? {
        None => CubeOwner::Centre,
        Some(p) => CubeOwner::Player(p),
    };
    let offered_by = r.player_or_none()?;
    let beavers = r.u8()?;
    let resignation = r.resignation()?;
    let cube = CubeState {
        value,
        owner,
        offered_by,
        beavers,
        resignation,
    };
    let phase = r.phase()?;
    let dice = r.dice()?;
    let result = match r.u8()? {
        0 => None,
        _ => {
            let kind = r.u8()?;
            let winner = r.player()?;
            let level = r.result()?;
            let jacoby = r.u8()? != 0;
            let points = r.u32()?;
            let end = match kind {
                0 => GameEnd::BearOff {
                    winner,
                    result: level,
                },
                // A pass is a single game, as written.
                1 if level == GameResult::Single => GameEnd::Pass { winner },
                2 => GameEnd::Resign { winner, level },
                _ => return Err(bad("the state names no game end")),
            };
            Some(GameScore {
                end,
                winner,
                result: level,
                jacoby,
                points,
                match_outcome: match_state.after_game(winner, points),
            })
        }
    };
    cube.validate(&match_state, &rules)
        .map_err(|e| StateBytesError::new(format!("the state's cube is invalid: {e}")))?;
    Ok(BackgammonGame {
        variant,
        rules,
        match_state,
        client_seed: client_seed.into(),
        game,
        turn,
        position,
        cube,
        phase,
        dice,
        result,
        resignations: 0,
        set_up,
    })
}

fn cube_value(log2: u8) -> Result<CubeValue, StateBytesError> {
    CubeValue::from_log2(log2).ok_or_else(|| bad("the state's cube value is out of range"))
}

/// The series byte: the index of the game in `Game::ALL`, or 5 for Tavli.
fn series_byte(series: TablesSeries) -> u8 {
    match series {
        TablesSeries::Single(game) => index_byte(&Game::ALL, &game),
        TablesSeries::Tavli => 5,
    }
}

fn rules_bytes(r: &TablesRules) -> [u8; 4] {
    [
        // Long Nardy's opening dice in the high nibble (0 in states
        // written before the option: the re-roll they were played with).
        match r.mother {
            MotherRule::Standard => 0,
            MotherRule::Immediate => 1,
            MotherRule::Off => 2,
        } | match r.nardy_opening {
            NardyOpening::Reroll => 0,
            NardyOpening::PlayDice => 0x10,
        },
        match r.fevga_start {
            FevgaStart::PassStartPoint => 0,
            FevgaStart::ReachStartQuarter => 1,
            FevgaStart::Off => 2,
        },
        // 3: each game's usual rule (states written before that default
        // existed carry 0, the rule they were played under; Fevga's usual
        // rule was open_when_blocked until open_when_stuck came, which
        // allows every play it allowed).
        match r.primes {
            Some(PrimeRule::NeedsCheckerAhead) => 0,
            Some(PrimeRule::Free) => 1,
            Some(PrimeRule::OpenWhenBlocked) => 2,
            None => 3,
            Some(PrimeRule::OpenWhenStuck) => 4,
        },
        // Tavla's hit-and-run rule in the high nibble (0 in states written
        // before the option).
        match r.head_doubles {
            HeadDoubles::SixFourThree => 0,
            HeadDoubles::SixFour => 1,
        } | match r.hit_and_run {
            HitAndRun::Allowed => 0,
            HitAndRun::ForbiddenInHome => 0x10,
        },
    ]
}

fn rules_of(b: &[u8]) -> Result<TablesRules, StateBytesError> {
    let out = || bad("the state's tables rules are out of range");
    Ok(TablesRules {
        mother: match b[0] & 0x0F {
            0 => MotherRule::Standard,
            1 => MotherRule::Immediate,
            2 => MotherRule::Off,
            _ => return Err(out()),
        },
        fevga_start: match b[1] {
            0 => FevgaStart::PassStartPoint,
            1 => FevgaStart::ReachStartQuarter,
            2 => FevgaStart::Off,
            _ => return Err(out()),
        },
        primes: match b[2] {
            0 => Some(PrimeRule::NeedsCheckerAhead),
            1 => Some(PrimeRule::Free),
            2 => Some(PrimeRule::OpenWhenBlocked),
            3 => None,
            4 => Some(PrimeRule::OpenWhenStuck),
            _ => return Err(out()),
        },
        head_doubles: match b[3] & 0x0F {
            0 => HeadDoubles::SixFourThree,
            1 => HeadDoubles::SixFour,
            _ => return Err(out()),
        },
        hit_and_run: match b[3] >> 4 {
            0 => HitAndRun::Allowed,
            1 => HitAndRun::ForbiddenInHome,
            _ => return Err(out()),
        },
        nardy_opening: match b[0] >> 4 {
            0 => NardyOpening::Reroll,
            1 => NardyOpening::PlayDice,
            _ => return Err(out()),
        },
    })
}

const OUTCOME_KINDS: [OutcomeKind; 4] = [
    OutcomeKind::Single,
    OutcomeKind::Double,
    OutcomeKind::Mother,
    OutcomeKind::Draw,
];

/// The tables games' fields (layout 2).
fn write_tables(b: &mut Vec<u8>, state: &TablesGameState) {
    let m = &state.tables_match;
    b.push(series_byte(m.series) | flag(state.set_up, SET_UP_BIT));
    b.extend_from_slice(&rules_bytes(&state.rules));
    b.extend_from_slice(&(m.length as u16).to_be_bytes());
    b.extend_from_slice(&m.score.x.to_be_bytes());
    b.extend_from_slice(&m.score.o.to_be_bytes());
    b.extend_from_slice(&m.games_played.to_be_bytes());
    b.push(m.starter.map_or(0, player_byte));
    b.extend_from_slice(&state.game.to_be_bytes());
    b.extend_from_slice(&state.turn.to_be_bytes());
    b.push(player_byte(state.on_roll()));
    // Portes and Tavla on the backgammon board: the Position ID; the
    // others: for x then o, the side and the mask of its pinned checkers.
    if let Some(p) = state.board.board() {
        b.extend_from_slice(&PositionId::from_position(p).encode());
    } else if let Some(p) = state.board.tables() {
        for player in Player::ALL {
            b.extend_from_slice(p.side(player));
            b.extend_from_slice(&p.pin_mask(player).to_be_bytes());
        }
    }
    write_turn(b, state.resignation, state.phase, state.dice);
    match &state.result {
        None => b.push(0),
        Some(s) => {
            b.extend_from_slice(&[
                1,
                s.winner.map_or(0, player_byte),
                index_byte(&OUTCOME_KINDS, &s.kind),
                s.result.map_or(0, result_byte),
                u8::from(s.resigned),
            ]);
            b.extend_from_slice(&s.points.to_be_bytes());
        }
    }
}

fn read_tables(
    r: &mut Reader<'_>,
    client_seed: String,
) -> Result<TablesGameState, StateBytesError> {
    let (index, set_up) = r.first_byte()?;
    let series = match index {
        5 => TablesSeries::Tavli,
        b => TablesSeries::Single(
            *Game::ALL
                .get(b)
                .ok_or_else(|| bad("the state names no tables game"))?,
        ),
    };
    let rules = rules_of(r.take(4)?)?;
    let length = u32::from(r.u16()?);
    let score = ByPlayer {
        x: r.u32()?,
        o: r.u32()?,
    };
    let games_played = r.u32()?;
    let starter = r.player_or_none()?;
    let tables_match = TablesMatch {
        series,
        length,
        score,
        games_played,
        starter,
    };
    let game_number = r.u32()?;
    let turn = r.u32()?;
    let on_roll = r.player()?;
    let game = tables_match.game();
    let invalid = |e: &dyn fmt::Display| {
        StateBytesError::new(format!("the state's position is invalid: {e}"))
    };
    let board = if game.is_tables_engine() {
        let mut setup = TablesSetup::empty(game, on_roll);
        setup.rules = rules;
        for player in Player::ALL {
            let side = r.take(25)?;
            setup.off[player] = side[0];
            setup.points[player].copy_from_slice(&side[1..]);
            let mask = r.u32()?;
            for (i, pin) in setup.pinned[player].iter_mut().enumerate() {
                *pin = mask & (1 << (i + 1)) != 0;
            }
        }
        VariantPosition::from(TablesPosition::from_setup(&setup).map_err(|e| invalid(&e))?)
    } else {
        let id = r.position_id()?;
        let position = Position::from_setup(&id.to_setup(on_roll), BackgammonVariant::Standard)
            .map_err(|e| invalid(&e))?;
        VariantPosition::on_board(game.into(), rules, position).map_err(|e| invalid(&e))?
    };
    let resignation = r.resignation()?;
    let phase = r.phase()?;
    if phase == Phase::AnswerDouble {
        return Err(bad("a tables game has no double to answer"));
    }
    let dice = r.dice()?;
    let result = match r.u8()? {
        0 => None,
        _ => {
            let winner = r.player_or_none()?;
            let kind = *OUTCOME_KINDS
                .get(usize::from(r.u8()?))
                .ok_or_else(|| bad("the state names no game end"))?;
            let level = match r.u8()? {
                0 => None,
                b => Some(result_of(b)?),
            };
            let resigned = r.u8()? != 0;
            let points = r.u32()?;
            Some(TablesScore {
                game,
                winner,
                kind,
                result: level,
                resigned,
                points,
                match_after: tables_match.after_game(winner, points),
            })
        }
    };
    Ok(TablesGameState {
        rules,
        tables_match,
        client_seed: client_seed.into(),
        game: game_number,
        turn,
        board,
        phase,
        dice,
        resignation,
        result,
        resignations: 0,
        set_up,
    })
}

fn player_of(b: u8) -> Result<Player, StateBytesError> {
    match b {
        1 => Ok(Player::X),
        2 => Ok(Player::O),
        _ => Err(bad("the state names no player")),
    }
}

fn result_of(b: u8) -> Result<GameResult, StateBytesError> {
    match b {
        1 => Ok(GameResult::Single),
        2 => Ok(GameResult::Gammon),
        3 => Ok(GameResult::Backgammon),
        _ => Err(bad("the state names no result")),
    }
}

/// A cursor over the fields; every read checks the length.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], StateBytesError> {
        if self.bytes.len() < n {
            return Err(bad("the state's fields are truncated"));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, StateBytesError> {
        Ok(self.take(1)?[0])
    }

    /// The first field byte: the index it holds (the variant, or the
    /// series) and whether the match began from a set position.
    fn first_byte(&mut self) -> Result<(usize, bool), StateBytesError> {
        let b = self.u8()?;
        Ok((
            usize::from(b & !(SET_UP_BIT | FREE_BIT)),
            b & SET_UP_BIT != 0,
        ))
    }

    fn u16(&mut self) -> Result<u16, StateBytesError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, StateBytesError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn player(&mut self) -> Result<Player, StateBytesError> {
        player_of(self.u8()?)
    }

    /// A player (1 x, 2 o), or none (0).
    fn player_or_none(&mut self) -> Result<Option<Player>, StateBytesError> {
        match self.u8()? {
            0 => Ok(None),
            b => player_of(b).map(Some),
        }
    }

    fn result(&mut self) -> Result<GameResult, StateBytesError> {
        result_of(self.u8()?)
    }

    fn position_id(&mut self) -> Result<PositionId, StateBytesError> {
        let not_id = || bad("the state's position is not a Position ID");
        core::str::from_utf8(self.take(14)?)
            .map_err(|_| not_id())?
            .parse()
            .map_err(|_| not_id())
    }

    /// A pending resignation (see [`write_turn`]).
    fn resignation(&mut self) -> Result<Option<Resignation>, StateBytesError> {
        Ok(match self.u8()? {
            0 => None,
            b => Some(Resignation {
                by: player_of(b / 4)?,
                level: result_of(b % 4)?,
            }),
        })
    }

    fn phase(&mut self) -> Result<Phase, StateBytesError> {
        Phase::ALL
            .get(usize::from(self.u8()?))
            .copied()
            .ok_or_else(|| bad("the state names no phase"))
    }

    /// This turn's dice, if rolled.
    fn dice(&mut self) -> Result<Option<Dice>, StateBytesError> {
        let die = |b: u8| Die::try_from(b).map_err(|_| bad("the state's dice are out of range"));
        let b = self.take(2)?;
        Ok(match (b[0], b[1]) {
            (0, 0) => None,
            (a, b) => Some(Dice::new(die(a)?, die(b)?)),
        })
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;
    use alloc::vec;
    use alloc::vec::Vec;

    use super::*;
    use crate::tables::TablesMatch;
    use crate::verify::Roller;
    use crate::{Action, Variant};

    /// The states of a whole match from `start`: each player rolls, takes
    /// the first legal play, never doubles, and starts the next game.
    fn a_match(start: GameState) -> Vec<GameState> {
        let roller = Roller::new(&[3u8; 32]);
        let mut states = vec![start];
        while let Some(state) = states.last().filter(|s| s.phase() != Phase::MatchOver) {
            let player = state.to_act().unwrap_or(Player::X);
            let action = match state.phase() {
                Phase::Move => Action::Move(
                    state
                        .legal_plays()
                        .get(0)
                        .unwrap()
                        .to_string()
                        .parse()
                        .unwrap(),
                ),
                Phase::GameOver => Action::NextGame,
                _ => Action::Roll,
            };
            let next = state.act(player, &action, &roller).unwrap().0;
            states.push(next);
            assert!(states.len() < 20_000);
        }
        states
    }

    fn starts() -> Vec<GameState> {
        let mut starts = Vec::new();
        for variant in BackgammonVariant::ALL {
            let rules = CubeRules {
                jacoby: variant == BackgammonVariant::Nackgammon,
                ..CubeRules::default()
            };
            let match_state = MatchState {
                length: 3,
                ..MatchState::MONEY
            };
            let game = BackgammonGame::new(variant, rules, match_state, "seed".into());
            starts.push(game.into());
        }
        let series = Game::ALL
            .into_iter()
            .map(TablesSeries::Single)
            .chain([TablesSeries::Tavli]);
        for series in series {
            let tables_match = TablesMatch::new(series, 3);
            let rules = TablesRules::DEFAULT;
            starts.push(TablesGameState::new(rules, tables_match, "seed".into()).into());
        }
        starts
    }

    #[test]
    fn every_state_of_a_match_reads_back_as_written() {
        let (mut variants, mut states) = (Vec::new(), 0);
        for start in starts() {
            variants.push(start.variant());
            for state in a_match(start) {
                states += 1;
                let mut bytes = Vec::new();
                state.write_fields(&mut bytes);
                assert_eq!(bytes[0] & FREE_BIT, 0);
                bytes.extend_from_slice(b"after");
                let (read, rest) =
                    GameState::read_fields(state.layout(), &bytes, "seed".into()).unwrap();
                assert_eq!((&read, rest), (&state, &b"after"[..]));
                // The caller's bit is ignored.
                bytes[0] |= FREE_BIT;
                let (read, _) =
                    GameState::read_fields(state.layout(), &bytes, "seed".into()).unwrap();
                assert_eq!(read, state);
            }
        }
        assert!(variants.contains(&Variant::Plakoto) && variants.contains(&Variant::Standard));
        assert!(states > 2_000, "{states} states");
    }

    #[test]
    fn truncated_or_foreign_bytes_are_refused_with_a_reason() {
        for start in starts() {
            let mut bytes = Vec::new();
            start.write_fields(&mut bytes);
            for end in 0..bytes.len() {
                let err =
                    GameState::read_fields(start.layout(), &bytes[..end], "s".into()).unwrap_err();
                assert_eq!(err.to_string(), "the state's fields are truncated");
            }
            let err = GameState::read_fields(3, &bytes, "s".into()).unwrap_err();
            assert_eq!(err.to_string(), "the state's layout is unknown");
            // The other layout reads these bytes as nothing valid, or as
            // another state, never with a panic.
            let other = BACKGAMMON_LAYOUT + TABLES_LAYOUT - start.layout();
            if let Ok((read, _)) = GameState::read_fields(other, &bytes, "s".into()) {
                assert_ne!(read, start);
            }
        }
    }

    /// Found by the `state_bytes` fuzz target: a pass read with a gammon
    /// level wrote back as a single (a pass is written single, so bytes
    /// that say otherwise are no state).
    #[test]
    fn a_pass_of_another_level_is_refused() {
        let mut state = BackgammonGame::new(
            BackgammonVariant::Standard,
            CubeRules::default(),
            MatchState::MONEY,
            "seed".into(),
        );
        state.phase = Phase::GameOver;
        state.result = Some(GameScore {
            end: GameEnd::Pass { winner: Player::O },
            winner: Player::O,
            result: GameResult::Single,
            jacoby: false,
            points: 1,
            match_outcome: MatchState::MONEY.after_game(Player::O, 1),
        });
        let state = GameState::from(state);
        let mut bytes = Vec::new();
        state.write_fields(&mut bytes);
        let read = GameState::read_fields(BACKGAMMON_LAYOUT, &bytes, "seed".into());
        assert_eq!(read.unwrap().0, state);
        // [present, kind, winner, level, Jacoby, points (4)]: the level.
        let level = bytes.len() - 6;
        assert_eq!(bytes[level], 1);
        bytes[level] = 2;
        let err = GameState::read_fields(BACKGAMMON_LAYOUT, &bytes, "seed".into()).unwrap_err();
        assert_eq!(err.to_string(), "the state names no game end");
    }

    /// Found by the `state_bytes` fuzz target: a roll at the last turn
    /// number overflowed the backgammon referee's counter (the tables
    /// referee's saturated already).
    #[test]
    fn a_roll_at_the_last_turn_number_does_not_overflow() {
        let roller = Roller::new(&[3u8; 32]);
        for start in starts() {
            let mut state = a_match(start)
                .into_iter()
                .find(|s| s.phase() == Phase::RollOrDouble)
                .unwrap();
            match &mut state {
                GameState::Backgammon(s) => s.turn = u32::MAX,
                GameState::Tables(s) => s.turn = u32::MAX,
            }
            let player = state.to_act().unwrap();
            let (next, _) = state.act(player, &Action::Roll, &roller).unwrap();
            assert_eq!(next.turn(), u32::MAX);
        }
    }
}

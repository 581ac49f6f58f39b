//! gnubg Match ID: the cube, match score and turn state in 12 characters.
//!
//! # Format
//! A Match ID is the standard base64 encoding (alphabet `A-Z a-z 0-9 + /`,
//! no padding) of a 9-byte key. The key is a string of bits packed
//! little-endian: bit *i* is bit *i* % 8 of byte *i* / 8, and each field is
//! stored least significant bit first, in this order (bit offsets from 0):
//!
//! | bits  | field | values |
//! |-------|-------|--------|
//! | 0-3   | cube value | base-2 logarithm, 0 (1) to 15 (32768) |
//! | 4-5   | cube owner | 0 = player 0, 1 = player 1, 3 = centred |
//! | 6     | dice owner | the player on roll, or who rolled |
//! | 7     | Crawford | this game is the Crawford game |
//! | 8-10  | game state | 0 none, 1 playing, 2 over, 3 resigned, 4 dropped |
//! | 11    | turn | the player who must act now |
//! | 12    | doubled | a double is offered |
//! | 13-14 | resignation | 0 none, 1 single, 2 gammon, 3 backgammon |
//! | 15-17 | die 1 | 0 (not rolled) or 1-6 |
//! | 18-20 | die 2 | 0 (not rolled) or 1-6 |
//! | 21-35 | match length | 0 = money play |
//! | 36-50 | score of player 0 | |
//! | 51-65 | score of player 1 | |
//! | 66    | no Jacoby | 1 when the Jacoby rule is off |
//! | 67-71 | unused | 0 |
//!
//! Bit 66 is not in gnubg's manual but gnubg writes and reads it
//! (`matchid.c`: `SetBits(auchKey, 66, 1, !fJacoby)`); IDs from older gnubg
//! versions leave it 0 (Jacoby on). A pending resignation is offered by the
//! player who is *not* [`MatchId::turn`]; a pending double likewise. When
//! [`MatchId::turn`] equals [`MatchId::on_roll`] during a double, the
//! original doubler is answering a beaver (gnubg turns the cube up on each
//! beaver and hands the decision back).
//!
//! # Players
//! **gnubg's player 0 is `x` and player 1 is `o`.** Evidence: in
//! `selfplay_results.jsonl` (1000 money games played by gnubg 1.07, see
//! `core/tests/data/README.md`), every game won by `"X"` adds its points to
//! the player-0 score field of the next game's Match ID and every game won
//! by `"O"` to player 1's (996 of 996 consecutive pairs); every dropped
//! double on an owned cube has the cube owner field equal to the winner
//! under this mapping (134 of 134); resignations have the turn field on the
//! winner. Note that gnubg's own text board labels player 0 `O` and player 1
//! `X`, so bgref's names are not gnubg's display letters: the Match ID is
//! read by player index only.
//!
//! # Reader
//! [`MatchId::from_str`] is strict and never panics: exactly 12 characters
//! from the base64 alphabet (no padding, no whitespace, no `MatchID:`
//! prefix, case-sensitive), the 5 unused bits 0, cube owner 0, 1 or 3, game
//! state 0 to 4, dice both 0 or both 1-6 (in either order, kept as given),
//! no Crawford flag in money play, and in match play no score above the
//! match length (a score equal to it is a finished match and is accepted,
//! as gnubg does). It is more lenient than gnubg in one way: gnubg also
//! refuses match lengths above 64, this reader accepts up to 32767. The
//! reader does not check that the fields agree with each other (for
//! example a cube owned at 1, or dice with no game playing): that is the
//! business of [`crate::CubeState::validate`] and the position.
//!
//! # Writer
//! `Display` writes the 12 characters exactly as gnubg does: the larger die
//! first, Jacoby as bit 66 inverted, unused bits 0. The length and scores
//! are `u16` fields of which only the low 15 bits are written, so values
//! above 32767 (which the reader and [`MatchId::new`] never produce) are
//! written modulo 32768. Every string the reader accepts with the larger
//! die first is written back unchanged.
//!
//! ```
//! use bgref_core::notation::match_id::{GameStatus, MatchId};
//! use bgref_core::{CubeOwner, Player};
//!
//! // The gnubg manual's example: 9-point match, score 2-4, player 0 (x)
//! // owns a 2-cube, player 1 (o) has rolled 52.
//! let id: MatchId = "QYkqASAAIAAA".parse()?;
//! assert_eq!(id.cube_value.get(), 2);
//! assert_eq!(id.cube_owner, CubeOwner::Player(Player::X));
//! assert_eq!(id.on_roll, Player::O);
//! assert_eq!(id.game_state, GameStatus::Playing);
//! assert_eq!(id.dice.map(|d| d.values()), Some([5, 2]));
//! assert_eq!((id.match_length, id.score.x, id.score.o), (9, 2, 4));
//! assert_eq!(id.to_string(), "QYkqASAAIAAA");
//! # Ok::<_, bgref_core::notation::match_id::ParseMatchIdError>(())
//! ```

use core::fmt;
use core::str::FromStr;

use crate::cube::{
    CubeOwner, CubeRules, CubeState, CubeValue, GameEnd, GameResult, GameScore, MatchState,
    Resignation,
};
use crate::dice::{Dice, Die};
use crate::player::{ByPlayer, Player};

/// gnubg's game state field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[repr(u8)]
pub enum GameStatus {
    /// No game started.
    NoGame = 0,
    /// A game is being played.
    Playing = 1,
    /// The game is over (borne off).
    Over = 2,
    /// The game ended by an accepted resignation.
    Resigned = 3,
    /// The game ended by a dropped double.
    Dropped = 4,
}

impl GameStatus {
    /// The state stored as `bits`, 0 to 4.
    #[must_use]
    pub const fn from_bits(bits: u8) -> Option<GameStatus> {
        match bits {
            0 => Some(GameStatus::NoGame),
            1 => Some(GameStatus::Playing),
            2 => Some(GameStatus::Over),
            3 => Some(GameStatus::Resigned),
            4 => Some(GameStatus::Dropped),
            _ => None,
        }
    }
}

/// The fields of a gnubg Match ID. Plain data: see the
/// [module documentation](self) for the encoding and the player mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatchId {
    /// The cube value.
    pub cube_value: CubeValue,
    /// The cube owner.
    pub cube_owner: CubeOwner,
    /// The player on roll, or who has rolled (gnubg's "dice owner").
    pub on_roll: Player,
    /// This game is the Crawford game.
    pub crawford: bool,
    /// Whether a game is on, and how it ended.
    pub game_state: GameStatus,
    /// The player who must act now (answer a double or resignation, or
    /// roll and move).
    pub turn: Player,
    /// A double is offered (by the player who is not `turn`).
    pub doubled: bool,
    /// A resignation offered by the player who is not `turn`.
    pub resignation: Option<GameResult>,
    /// The dice rolled, if any.
    pub dice: Option<Dice>,
    /// The match length; 0 for money play.
    pub match_length: u16,
    /// The score (a session total in money play).
    pub score: ByPlayer<u16>,
    /// The Jacoby rule is on (stored inverted in bit 66).
    pub jacoby: bool,
}

/// Why a string is not a Match ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParseMatchIdError {
    /// Not exactly 12 characters.
    Length,
    /// A character outside the base64 alphabet.
    Character,
    /// The 5 unused bits at the end are not 0.
    UnusedBits,
    /// The cube owner field is 2, which gnubg never writes.
    CubeOwner,
    /// The game state field is above 4.
    GameState,
    /// A die is 7, or only one die is 0.
    Dice,
    /// The Crawford flag is set in money play.
    CrawfordInMoneyPlay,
    /// A score is above the match length.
    Score,
}

impl fmt::Display for ParseMatchIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseMatchIdError::Length => "a match id has exactly 12 characters",
            ParseMatchIdError::Character => {
                "a match id uses only the characters A-Z, a-z, 0-9, + and /"
            }
            ParseMatchIdError::UnusedBits => "the unused last bits of a match id must be 0",
            ParseMatchIdError::CubeOwner => "match id cube owner must be 0, 1 or 3",
            ParseMatchIdError::GameState => "match id game state must be 0 to 4",
            ParseMatchIdError::Dice => "match id dice must both be 1 to 6, or both 0",
            ParseMatchIdError::CrawfordInMoneyPlay => "match id has a crawford game in money play",
            ParseMatchIdError::Score => "match id score is above the match length",
        })
    }
}

impl core::error::Error for ParseMatchIdError {}

/// Error for a match state whose length or score is above 32767, which a
/// Match ID cannot hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InvalidMatchId;

impl fmt::Display for InvalidMatchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("match length and scores above 32767 do not fit a match id")
    }
}

impl core::error::Error for InvalidMatchId {}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Reads `len` bits at `pos` from the little-endian key.
const fn bits(key: u128, pos: u32, len: u32) -> u32 {
    ((key >> pos) & ((1 << len) - 1)) as u32
}

fn player_from_bit(bit: u32) -> Player {
    if bit == 0 { Player::X } else { Player::O }
}

const fn player_bit(player: Player) -> u128 {
    match player {
        Player::X => 0,
        Player::O => 1,
    }
}

impl FromStr for MatchId {
    type Err = ParseMatchIdError;

    /// Reads a Match ID; see the [module documentation](self) for exactly
    /// what is accepted.
    fn from_str(s: &str) -> Result<MatchId, ParseMatchIdError> {
        let chars = s.as_bytes();
        if chars.len() != 12 {
            return Err(ParseMatchIdError::Length);
        }
        let mut key: u128 = 0;
        let mut bytes = [0u8; 16];
        for (group, out) in chars.chunks_exact(4).zip(bytes.chunks_exact_mut(3)) {
            let mut word: u32 = 0;
            for &c in group {
                word = (word << 6) | u32::from(sextet(c).ok_or(ParseMatchIdError::Character)?);
            }
            out.copy_from_slice(&word.to_be_bytes()[1..]);
        }
        key |= u128::from_le_bytes(bytes);
        if bits(key, 67, 5) != 0 {
            return Err(ParseMatchIdError::UnusedBits);
        }
        // Four bits always hold 0 to 15, a valid cube.
        let cube_value = CubeValue::from_log2(bits(key, 0, 4) as u8).unwrap_or(CubeValue::MAX);
        let cube_owner = match bits(key, 4, 2) {
            0 => CubeOwner::Player(Player::X),
            1 => CubeOwner::Player(Player::O),
            3 => CubeOwner::Centre,
            _ => return Err(ParseMatchIdError::CubeOwner),
        };
        let game_state =
            GameStatus::from_bits(bits(key, 8, 3) as u8).ok_or(ParseMatchIdError::GameState)?;
        let resignation = GameResult::from_multiplier(bits(key, 13, 2));
        let dice = match (bits(key, 15, 3) as u8, bits(key, 18, 3) as u8) {
            (0, 0) => None,
            (a, b) => match (Die::try_from(a), Die::try_from(b)) {
                (Ok(a), Ok(b)) => Some(Dice::new(a, b)),
                _ => return Err(ParseMatchIdError::Dice),
            },
        };
        let match_length = bits(key, 21, 15) as u16;
        let score = ByPlayer {
            x: bits(key, 36, 15) as u16,
            o: bits(key, 51, 15) as u16,
        };
        let crawford = bits(key, 7, 1) == 1;
        if match_length == 0 && crawford {
            return Err(ParseMatchIdError::CrawfordInMoneyPlay);
        }
        if match_length > 0 && (score.x > match_length || score.o > match_length) {
            return Err(ParseMatchIdError::Score);
        }
        Ok(MatchId {
            cube_value,
            cube_owner,
            on_roll: player_from_bit(bits(key, 6, 1)),
            crawford,
            game_state,
            turn: player_from_bit(bits(key, 11, 1)),
            doubled: bits(key, 12, 1) == 1,
            resignation,
            dice,
            match_length,
            score,
            jacoby: bits(key, 66, 1) == 0,
        })
    }
}

impl fmt::Display for MatchId {
    /// Writes the 12 characters as gnubg does; see the
    /// [module documentation](self).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (die1, die2) = match self.dice {
            Some(dice) => (dice.high().get(), dice.low().get()),
            None => (0, 0),
        };
        let owner: u128 = match self.cube_owner {
            CubeOwner::Player(player) => player_bit(player),
            CubeOwner::Centre => 3,
        };
        let fifteen = |n: u16| u128::from(n & 0x7FFF);
        let key: u128 = u128::from(self.cube_value.log2())
            | owner << 4
            | player_bit(self.on_roll) << 6
            | u128::from(self.crawford) << 7
            | (self.game_state as u128) << 8
            | player_bit(self.turn) << 11
            | u128::from(self.doubled) << 12
            | u128::from(self.resignation.map_or(0, |r| r as u8)) << 13
            | u128::from(die1 & 7) << 15
            | u128::from(die2 & 7) << 18
            | fifteen(self.match_length) << 21
            | fifteen(self.score.x) << 36
            | fifteen(self.score.o) << 51
            | u128::from(!self.jacoby) << 66;
        let bytes = key.to_le_bytes();
        let mut out = [0u8; 12];
        for (group, chars) in bytes[..9].chunks_exact(3).zip(out.chunks_exact_mut(4)) {
            let word = u32::from_be_bytes([0, group[0], group[1], group[2]]);
            for (i, c) in chars.iter_mut().enumerate() {
                *c = ALPHABET[((word >> (18 - 6 * i)) & 0x3F) as usize];
            }
        }
        // The alphabet is ASCII, so this never fails.
        f.write_str(core::str::from_utf8(&out).map_err(|_| fmt::Error)?)
    }
}

impl MatchId {
    /// The Match ID of a game being played: `cube` and `match_state` as
    /// given, `on_roll` the player whose turn it is (the doubler while a
    /// double is pending), no dice rolled. [`MatchId::turn`] is the player
    /// who must answer a pending double or resignation, else `on_roll`.
    /// Jacoby is written from `rules` in money play and as gnubg's default
    /// (on) in match play, where it does not apply.
    ///
    /// # Errors
    /// [`InvalidMatchId`] when the match length or a score is above
    /// 32767.
    pub fn new(
        cube: &CubeState,
        match_state: &MatchState,
        rules: &CubeRules,
        on_roll: Player,
    ) -> Result<MatchId, InvalidMatchId> {
        let fit = |n: u32| {
            u16::try_from(n)
                .ok()
                .filter(|&n| n <= 0x7FFF)
                .ok_or(InvalidMatchId)
        };
        Ok(MatchId {
            cube_value: cube.value,
            cube_owner: cube.owner,
            on_roll,
            crawford: match_state.crawford,
            game_state: GameStatus::Playing,
            turn: cube.to_act().unwrap_or(on_roll),
            doubled: cube.offered_by.is_some(),
            resignation: cube.resignation.map(|r| r.level),
            dice: None,
            match_length: fit(match_state.length)?,
            score: ByPlayer {
                x: fit(match_state.score.x)?,
                o: fit(match_state.score.o)?,
            },
            jacoby: if match_state.is_money() {
                rules.jacoby
            } else {
                true
            },
        })
    }

    /// The Match ID gnubg writes once a game has ended, for the game scored
    /// as `score` (from [`crate::score_game`] or a pass or accepted
    /// resignation in [`CubeState::apply`]) with `cube` under `match_state`
    /// and `rules`:
    ///
    /// - the cube as it stood (for a pass, the value before the refused
    ///   double, which is what the doubler wins), no double or dice pending;
    /// - the score *after* the game, and the Crawford flag of the game just
    ///   played; in match play a score beyond the match length is written as
    ///   the length (the reader, like gnubg's, refuses more);
    /// - the game state [`GameStatus::Over`] (borne off),
    ///   [`GameStatus::Dropped`] or [`GameStatus::Resigned`], with the
    ///   resigned level;
    /// - the player fields as gnubg leaves them: after a bear-off the loser
    ///   is on roll and to act; after a pass the doubler (the winner) is on
    ///   roll and the loser to act; after a resignation the resigner (the
    ///   loser) is on roll and the winner, who accepted, to act;
    /// - Jacoby as [`MatchId::new`] writes it.
    ///
    /// These rules reproduce every final Match ID of the 1000 gnubg
    /// self-play games in `core/tests/data/selfplay_results.jsonl`.
    ///
    /// # Errors
    /// [`InvalidMatchId`] when the match length or a score is above
    /// 32767.
    pub fn game_over(
        score: &GameScore,
        cube: &CubeState,
        match_state: &MatchState,
        rules: &CubeRules,
    ) -> Result<MatchId, InvalidMatchId> {
        let winner = score.winner;
        let mut after = MatchState {
            score: score.match_outcome.score,
            ..*match_state
        };
        if !after.is_money() {
            after.score = after.score.map(|s| s.min(after.length));
        }
        let (game_state, on_roll, turn, resignation) = match score.end {
            GameEnd::BearOff { .. } => (GameStatus::Over, !winner, !winner, None),
            GameEnd::Pass { .. } => (GameStatus::Dropped, winner, !winner, None),
            GameEnd::Resign { level, .. } => (GameStatus::Resigned, !winner, winner, Some(level)),
        };
        let settled = CubeState {
            offered_by: None,
            beavers: 0,
            resignation: None,
            ..*cube
        };
        Ok(MatchId {
            game_state,
            turn,
            resignation,
            ..MatchId::new(&settled, &after, rules, on_roll)?
        })
    }

    /// The cube: value and owner; a pending double offered by the player
    /// who is not [`MatchId::turn`], counted as one beaver when the player
    /// to answer is the one on roll (the Match ID keeps only that parity);
    /// a pending resignation likewise.
    #[must_use]
    pub fn cube_state(&self) -> CubeState {
        CubeState {
            value: self.cube_value,
            owner: self.cube_owner,
            offered_by: self.doubled.then_some(!self.turn),
            beavers: u8::from(self.doubled && self.turn == self.on_roll),
            resignation: self.resignation.map(|level| Resignation {
                by: !self.turn,
                level,
            }),
        }
    }

    /// The match: length, score and Crawford flag.
    #[must_use]
    pub fn match_state(&self) -> MatchState {
        MatchState {
            length: u32::from(self.match_length),
            score: ByPlayer {
                x: u32::from(self.score.x),
                o: u32::from(self.score.o),
            },
            crawford: self.crawford,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn gnubg_manual_example() {
        // "assume the score is 2-4 in a 9 point match with player 0 holding
        // a 2-cube, and player 1 has just rolled 52" (gnubg manual 11.7).
        let id: MatchId = "QYkqASAAIAAA".parse().unwrap();
        assert_eq!(
            id,
            MatchId {
                cube_value: CubeValue::new(2),
                cube_owner: CubeOwner::Player(Player::X),
                on_roll: Player::O,
                crawford: false,
                game_state: GameStatus::Playing,
                turn: Player::O,
                doubled: false,
                resignation: None,
                dice: Some(Dice::new(Die::new(5), Die::new(2))),
                match_length: 9,
                score: ByPlayer { x: 2, o: 4 },
                jacoby: true,
            }
        );
        assert_eq!(id.to_string(), "QYkqASAAIAAA");
    }

    #[test]
    fn gnubg_new_money_session() {
        // gnubg's start of a money session: centred cube, player 1 to roll.
        let id: MatchId = "cAkAAAAAAAAA".parse().unwrap();
        assert_eq!(id.cube_value, CubeValue::ONE);
        assert_eq!(id.cube_owner, CubeOwner::Centre);
        assert_eq!((id.on_roll, id.turn), (Player::O, Player::O));
        assert_eq!(id.game_state, GameStatus::Playing);
        assert_eq!((id.dice, id.match_length, id.crawford), (None, 0, false));
        assert_eq!(id.match_state(), MatchState::MONEY);
        assert_eq!(id.cube_state(), CubeState::START);
        assert_eq!(id.to_string(), "cAkAAAAAAAAA");
    }

    #[test]
    fn corpus_examples() {
        // From selfplay_results.jsonl: X won a 2-cube by bearing off.
        let id: MatchId = "UQoAACAAAAAE".parse().unwrap();
        assert_eq!(id.cube_value.get(), 2);
        assert_eq!(id.game_state, GameStatus::Over);
        assert_eq!(id.score, ByPlayer { x: 2, o: 0 });
        assert!(!id.jacoby);
        // O won a single resignation on a 2-cube owned by x.
        let id: MatchId = "ASsAACAAEAAE".parse().unwrap();
        assert_eq!(id.game_state, GameStatus::Resigned);
        assert_eq!(id.resignation, Some(GameResult::Single));
        assert_eq!(id.cube_state().resignation.map(|r| r.by), Some(Player::X));
        assert_eq!(id.cube_owner, CubeOwner::Player(Player::X));
        // O dropped x's redouble to 8: x owned the 4-cube and wins 4.
        let id: MatchId = "AgwAAIAAMAAE".parse().unwrap();
        assert_eq!(id.game_state, GameStatus::Dropped);
        assert_eq!(
            (id.cube_value.get(), id.cube_owner),
            (4, CubeOwner::Player(Player::X))
        );
    }

    #[test]
    fn round_trips() {
        let cube = CubeState {
            value: CubeValue::new(8),
            owner: CubeOwner::Player(Player::O),
            offered_by: Some(Player::O),
            ..CubeState::START
        };
        let state = MatchState {
            length: 11,
            score: ByPlayer { x: 7, o: 10 },
            crawford: false,
        };
        let id = MatchId::new(&cube, &state, &CubeRules::DEFAULT, Player::O).unwrap();
        assert_eq!(id.turn, Player::X);
        let text = id.to_string();
        let back: MatchId = text.parse().unwrap();
        assert_eq!(back, id);
        assert_eq!(back.cube_state(), cube);
        assert_eq!(back.match_state(), state);

        // Every field at its extremes.
        for (log2, owner, bit) in [
            (0, CubeOwner::Centre, false),
            (15, CubeOwner::Player(Player::X), true),
        ] {
            for game_state in [GameStatus::NoGame, GameStatus::Dropped] {
                for resignation in [None, Some(GameResult::Backgammon)] {
                    let id = MatchId {
                        cube_value: CubeValue::from_log2(log2).unwrap(),
                        cube_owner: owner,
                        on_roll: player_from_bit(u32::from(bit)),
                        crawford: bit,
                        game_state,
                        turn: player_from_bit(u32::from(!bit)),
                        doubled: bit,
                        resignation,
                        dice: bit.then(|| Dice::new(Die::new(6), Die::new(6))),
                        match_length: 32767,
                        score: ByPlayer { x: 32767, o: 0 },
                        jacoby: bit,
                    };
                    let text = id.to_string();
                    assert_eq!(text.len(), 12);
                    assert_eq!(text.parse::<MatchId>(), Ok(id), "{text}");
                }
            }
        }
    }

    #[test]
    fn smaller_die_first_is_read_and_rewritten_larger_first() {
        let mut id: MatchId = "QYkqASAAIAAA".parse().unwrap();
        id.dice = Some(Dice::new(Die::new(2), Die::new(5)));
        assert_eq!(id.to_string(), "QYkqASAAIAAA");
    }

    #[test]
    fn rejects() {
        let cases = [
            ("", ParseMatchIdError::Length),
            ("QYkqASAAIAA", ParseMatchIdError::Length),
            ("QYkqASAAIAAAA", ParseMatchIdError::Length),
            ("QYkqASAAIAA=", ParseMatchIdError::Character),
            ("QYkqASAAIAA ", ParseMatchIdError::Character),
            ("QYkqASAAIAAé", ParseMatchIdError::Length),
            ("QYkqASAAIAAI", ParseMatchIdError::UnusedBits),
            // Cube owner 2.
            ("YAkAAAAAAAAA", ParseMatchIdError::CubeOwner),
            // Game state 5.
            ("cA0AAAAAAAAA", ParseMatchIdError::GameState),
            // Die 1 is 7.
            ("cIkLAAAAAAAA", ParseMatchIdError::Dice),
            // Crawford flag in money play.
            ("8AkAAAAAAAAA", ParseMatchIdError::CrawfordInMoneyPlay),
        ];
        for (text, error) in cases {
            assert_eq!(text.parse::<MatchId>(), Err(error), "{text:?}");
        }
        let mut over: MatchId = "QYkqASAAIAAA".parse().unwrap();
        over.score.o = 10;
        assert_eq!(
            over.to_string().parse::<MatchId>(),
            Err(ParseMatchIdError::Score)
        );
        over.score.o = 9;
        assert!(over.to_string().parse::<MatchId>().is_ok());
        let huge = MatchState::new_match(40_000);
        assert_eq!(
            MatchId::new(&CubeState::START, &huge, &CubeRules::DEFAULT, Player::X),
            Err(InvalidMatchId)
        );
    }

    #[test]
    fn never_panics_on_any_short_input() {
        // Every 12-character string over a small alphabet that covers all
        // byte classes, two positions varied at a time.
        let probe = b"A/+9az\xc3\x80 =\0~";
        for i in 0..12 {
            for j in 0..12 {
                for &a in probe {
                    for &b in probe {
                        let mut s = *b"cAkAAAAAAAAA";
                        s[i] = a;
                        s[j] = b;
                        if let Ok(text) = core::str::from_utf8(&s)
                            && let Ok(id) = text.parse::<MatchId>()
                        {
                            // Dice come back larger first; all else as read.
                            let written = id.to_string();
                            let again = written.parse::<MatchId>().map(|id| id.to_string());
                            assert_eq!(again, Ok(written));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn game_over_as_gnubg_writes_it() {
        use crate::cube::score_game;
        let rules = CubeRules::DEFAULT;
        let money = MatchState::MONEY;
        let cube = |value: u32, owner: CubeOwner| CubeState {
            value: CubeValue::new(value),
            owner,
            ..CubeState::START
        };
        // Lines 1, 2 and 5 of selfplay_results.jsonl (money, Jacoby off, from
        // 0-0, 2-0 and 4-6).
        let cases = [
            (
                GameEnd::BearOff {
                    winner: Player::X,
                    result: GameResult::Single,
                },
                cube(2, CubeOwner::Player(Player::O)),
                ByPlayer { x: 0, o: 0 },
                "UQoAACAAAAAE",
            ),
            (
                GameEnd::Resign {
                    winner: Player::O,
                    level: GameResult::Single,
                },
                cube(2, CubeOwner::Player(Player::X)),
                ByPlayer { x: 2, o: 0 },
                "ASsAACAAEAAE",
            ),
            (
                GameEnd::Pass { winner: Player::X },
                cube(4, CubeOwner::Player(Player::X)),
                ByPlayer { x: 4, o: 6 },
                "AgwAAIAAMAAE",
            ),
        ];
        for (end, cube, before, expected) in cases {
            let state = MatchState {
                score: before,
                ..money
            };
            let mut pending = cube;
            if let GameEnd::Pass { winner } = end {
                pending.offered_by = Some(winner);
            }
            let score = score_game(end, &pending, &state, &rules).unwrap();
            let id = MatchId::game_over(&score, &pending, &state, &rules).unwrap();
            assert_eq!(id.to_string(), expected, "{end:?}");
            assert_eq!(expected.parse::<MatchId>(), Ok(id));
        }
        // A match won with points to spare: the score is written capped.
        let state = MatchState {
            length: 5,
            score: ByPlayer { x: 4, o: 3 },
            crawford: false,
        };
        let end = GameEnd::BearOff {
            winner: Player::X,
            result: GameResult::Gammon,
        };
        let score = score_game(end, &CubeState::START, &state, &rules).unwrap();
        assert_eq!(score.match_outcome.score.x, 6);
        let id = MatchId::game_over(&score, &CubeState::START, &state, &rules).unwrap();
        assert_eq!(id.score, ByPlayer { x: 5, o: 3 });
        assert_eq!(id.game_state, GameStatus::Over);
        assert_eq!(id.to_string().parse::<MatchId>(), Ok(id));
    }

    #[test]
    fn game_over_reproduces_every_gnubg_selfplay_game() {
        use crate::cube::score_game;
        let rules = CubeRules {
            max_cube: CubeValue::MAX,
            ..CubeRules::DEFAULT
        };
        let text = include_str!("../../tests/data/selfplay_results.jsonl");
        let mut series = alloc::string::String::new();
        let mut session = MatchState::MONEY;
        for (n, line) in text.lines().enumerate() {
            let line: serde_json::Value = serde_json::from_str(line).unwrap();
            if line["series"].as_str() != Some(series.as_str()) {
                series = line["series"].as_str().unwrap().into();
                session = MatchState::MONEY;
            }
            let expected = line["final_match_id"].as_str().unwrap();
            let id: MatchId = expected.parse().unwrap();
            let winner: Player = line["winner"].as_str().unwrap().parse().unwrap();
            let result = GameResult::from_multiplier(line["result"].as_u64().unwrap() as u32);
            let mut cube = id.cube_state();
            cube.resignation = None;
            let end = match line["ended_by"].as_str().unwrap() {
                "bearoff" => GameEnd::BearOff {
                    winner,
                    result: result.unwrap(),
                },
                "drop" => {
                    cube.offered_by = Some(winner);
                    GameEnd::Pass { winner }
                }
                _ => GameEnd::Resign {
                    winner,
                    level: result.unwrap(),
                },
            };
            let score = score_game(end, &cube, &session, &rules).unwrap();
            let written = MatchId::game_over(&score, &cube, &session, &rules).unwrap();
            assert_eq!(written.to_string(), expected, "line {}", n + 1);
            session = score.match_outcome.next_state().unwrap();
        }
    }

    #[test]
    fn beaver_parity() {
        // x on roll doubled, o beavered: the decision is back with x.
        let id = MatchId {
            doubled: true,
            turn: Player::X,
            on_roll: Player::X,
            cube_value: CubeValue::new(2),
            ..("cAkAAAAAAAAA".parse::<MatchId>().unwrap())
        };
        let cube = id.cube_state();
        assert_eq!((cube.offered_by, cube.beavers), (Some(Player::O), 1));
        assert_eq!(cube.original_doubler(), Some(Player::X));
    }
}

//! The body of a version 2 state token: a tables game (Portes, Tavla,
//! Plakoto, Fevga, Long Nardy) or a Tavli match. The layout is in the
//! module doc of [`super`].

use bgref_core::notation::position_id::PositionId;
use bgref_core::tables::{
    FevgaStart, Game, HeadDoubles, HitAndRun, MotherRule, NardyOpening, OutcomeKind, PrimeRule,
    TablesGameState, TablesMatch, TablesPosition, TablesRules, TablesScore, TablesSeries,
    TablesSetup,
};
use bgref_core::{
    BackgammonVariant, ByPlayer, GameResult, Phase, Player, Position, VariantPosition,
};

use super::{Reader, bad_token, encode_turn, player_byte, player_of, result_byte, result_of};
use crate::error::ApiError;

/// The series byte: the index of the game in `Game::ALL`, or 5 for Tavli.
fn series_byte(series: TablesSeries) -> u8 {
    match series {
        TablesSeries::Single(game) => game_byte(game),
        TablesSeries::Tavli => 5,
    }
}

fn game_byte(game: Game) -> u8 {
    Game::ALL
        .iter()
        .position(|&g| g == game)
        .map_or(0, |i| i as u8)
}

fn rules_bytes(r: &TablesRules) -> [u8; 4] {
    [
        // Long Nardy's opening dice in the high nibble (0 in tokens
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
        // 3: each game's usual rule (tokens written before that default
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
        // Tavla's hit-and-run rule in the high nibble (0 in tokens written
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

fn rules_of(b: &[u8]) -> Result<TablesRules, ApiError> {
    let bad = || bad_token("the state token's tables rules are out of range");
    Ok(TablesRules {
        mother: match b[0] & 0x0F {
            0 => MotherRule::Standard,
            1 => MotherRule::Immediate,
            2 => MotherRule::Off,
            _ => return Err(bad()),
        },
        fevga_start: match b[1] {
            0 => FevgaStart::PassStartPoint,
            1 => FevgaStart::ReachStartQuarter,
            2 => FevgaStart::Off,
            _ => return Err(bad()),
        },
        primes: match b[2] {
            0 => Some(PrimeRule::NeedsCheckerAhead),
            1 => Some(PrimeRule::Free),
            2 => Some(PrimeRule::OpenWhenBlocked),
            3 => None,
            4 => Some(PrimeRule::OpenWhenStuck),
            _ => return Err(bad()),
        },
        head_doubles: match b[3] & 0x0F {
            0 => HeadDoubles::SixFourThree,
            1 => HeadDoubles::SixFour,
            _ => return Err(bad()),
        },
        hit_and_run: match b[3] >> 4 {
            0 => HitAndRun::Allowed,
            1 => HitAndRun::ForbiddenInHome,
            _ => return Err(bad()),
        },
        nardy_opening: match b[0] >> 4 {
            0 => NardyOpening::Reroll,
            1 => NardyOpening::PlayDice,
            _ => return Err(bad()),
        },
    })
}

fn kind_byte(kind: OutcomeKind) -> u8 {
    match kind {
        OutcomeKind::Single => 0,
        OutcomeKind::Double => 1,
        OutcomeKind::Mother => 2,
        OutcomeKind::Draw => 3,
    }
}

/// Appends the tables fields (everything after the client seed) of `state`.
/// The narrowing casts are bounded where the state is made: a match of at
/// most 65535 points.
pub(super) fn encode_fields(b: &mut Vec<u8>, state: &TablesGameState) {
    let m = &state.tables_match;
    b.push(series_byte(m.series) | if state.set_up { super::SET_UP_BIT } else { 0 });
    b.extend_from_slice(&rules_bytes(&state.rules));
    b.extend_from_slice(&(m.length as u16).to_be_bytes());
    b.extend_from_slice(&m.score.x.to_be_bytes());
    b.extend_from_slice(&m.score.o.to_be_bytes());
    b.extend_from_slice(&m.games_played.to_be_bytes());
    b.push(m.starter.map_or(0, player_byte));
    b.extend_from_slice(&state.game.to_be_bytes());
    b.extend_from_slice(&state.turn.to_be_bytes());
    b.push(player_byte(state.on_roll()));
    match (state.board.board(), state.board.tables()) {
        (Some(p), _) => {
            b.extend_from_slice(PositionId::from_position(p).to_string().as_bytes());
        }
        (None, None) => unreachable!("a position is on one of the two boards"),
        (None, Some(p)) => {
            for player in Player::ALL {
                b.extend_from_slice(p.side(player));
                let mut mask = 0u32;
                for point in 1..=24u8 {
                    if p.is_pinned(player, bgref_core::Point::new(point)) {
                        mask |= 1 << point;
                    }
                }
                b.extend_from_slice(&mask.to_be_bytes());
            }
        }
    }
    encode_turn(b, state.resignation, state.phase, state.dice);
    match &state.result {
        None => b.push(0),
        Some(s) => {
            b.extend_from_slice(&[
                1,
                s.winner.map_or(0, player_byte),
                kind_byte(s.kind),
                s.result.map_or(0, result_byte),
                u8::from(s.resigned),
            ]);
            b.extend_from_slice(&s.points.to_be_bytes());
        }
    }
}

/// Reads the tables fields written by [`encode_fields`].
pub(super) fn decode_fields(
    r: &mut Reader<'_>,
    client_seed: String,
) -> Result<TablesGameState, ApiError> {
    let series_byte = r.u8()?;
    let set_up = series_byte & super::SET_UP_BIT != 0;
    let series = match series_byte & !(super::SET_UP_BIT | super::CLOCK_BIT) {
        5 => TablesSeries::Tavli,
        b => TablesSeries::Single(
            *Game::ALL
                .get(usize::from(b))
                .ok_or_else(|| bad_token("the state token names no tables game"))?,
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
    let on_roll = player_of(r.u8()?)?;
    let game = tables_match.game();
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
        VariantPosition::from(
            TablesPosition::from_setup(&setup)
                .map_err(|e| bad_token(format!("the state token's position is invalid: {e}")))?,
        )
    } else {
        let id: PositionId = r
            .text(14)?
            .parse()
            .map_err(|_| bad_token("the state token's position is not a Position ID"))?;
        let position = Position::from_setup(&id.to_setup(on_roll), BackgammonVariant::Standard)
            .map_err(|e| bad_token(format!("the state token's position is invalid: {e}")))?;
        VariantPosition::on_board(game.into(), rules, position)
            .map_err(|e| bad_token(format!("the state token's position is invalid: {e}")))?
    };
    let resignation = r.resignation()?;
    let phase = r.phase()?;
    if phase == Phase::AnswerDouble {
        return Err(bad_token("a tables game has no double to answer"));
    }
    let dice = r.dice()?;
    let result = match r.u8()? {
        0 => None,
        _ => {
            let winner = r.player_or_none()?;
            let kind = match r.u8()? {
                0 => OutcomeKind::Single,
                1 => OutcomeKind::Double,
                2 => OutcomeKind::Mother,
                3 => OutcomeKind::Draw,
                _ => return Err(bad_token("the state token names no game end")),
            };
            let level: Option<GameResult> = match r.u8()? {
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
        // The optional last byte, read by `decode` for both versions.
        resignations: 0,
        set_up,
    })
}

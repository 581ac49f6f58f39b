//! Legal moves and applying a play.

use bgref_core::notation::move_text::{MoveText, Segment};
use bgref_core::{Dice, Move, Play, Point};

use super::common::{ReadPosition, read_dice, read_position, read_variant};
use crate::error::ApiError;
use crate::wire::common::PositionInput;
use crate::wire::moves::{
    ApplyMoveRequest, ApplyMoveResponse, GameOverOutput, LegalMovesRequest, LegalMovesResponse,
    MoveOutput, PartialOutput, PlayInput, PlayOutput, PlayedOutput,
};

fn moves_output(moves: &[Move]) -> Vec<MoveOutput> {
    moves
        .iter()
        .map(|m| MoveOutput {
            from: m.from().get(),
            to: m.to().get(),
            hit: m.is_hit(),
        })
        .collect()
}

/// The position and roll of a request, for a game still going on.
fn read_turn(
    variant: Option<&str>,
    position: &PositionInput,
    dice: Option<&[i64]>,
) -> Result<(ReadPosition, Dice), ApiError> {
    let variant = read_variant(variant)?;
    let read = read_position(position, variant, "position")?;
    let dice = read_dice(dice, read.xgid_dice())?;
    if let Some(outcome) = read.position.outcome() {
        return Err(ApiError::illegal(
            "game-over",
            Some("position"),
            format!(
                "the game is over: {} has borne off every checker",
                outcome.winner
            ),
        ));
    }
    Ok((read, dice))
}

/// Every legal play of the position for the roll.
pub fn legal_moves(req: &LegalMovesRequest) -> Result<LegalMovesResponse, ApiError> {
    let (read, dice) = read_turn(req.variant.as_deref(), &req.position, req.dice.as_deref())?;
    let position = &read.position;
    let plays = position.legal_plays(dice);
    let plays: Vec<PlayOutput> = plays
        .iter()
        .map(|play| PlayOutput {
            notation: MoveText::format(play),
            moves: moves_output(play.moves()),
            position: read.output(&position.after(play)),
        })
        .collect();
    Ok(LegalMovesResponse {
        forced: plays.len() == 1,
        plays,
        dice: dice.values(),
    })
}

/// The play of a request as move text.
fn play_text(play: &PlayInput) -> Result<MoveText, ApiError> {
    match play {
        PlayInput::Notation(text) => Ok(text.parse()?),
        PlayInput::Moves(list) => {
            if list.len() > 4 {
                return Err(ApiError::invalid(
                    "invalid-play",
                    "play",
                    "a play has at most four moves",
                ));
            }
            let mut segments = Vec::with_capacity(list.len());
            for (i, m) in list.iter().enumerate() {
                let point = |v: i64, name: &str| {
                    Point::try_from(v).map_err(|_| {
                        ApiError::invalid(
                            "invalid-play",
                            format!("play[{i}].{name}"),
                            format!("a point is 0 (off) to 25 (bar), got {v}"),
                        )
                    })
                };
                segments.push(Segment {
                    path: vec![(point(m.from, "from")?, false), (point(m.to, "to")?, false)],
                    count: 1,
                });
            }
            Ok(MoveText { segments })
        }
    }
}

/// Single-die hops of a move text, for partial plays.
fn hops(text: &MoveText) -> Vec<Move> {
    let mut out = Vec::new();
    for segment in &text.segments {
        for _ in 0..segment.count {
            for pair in segment.path.windows(2) {
                out.push(Move::new(pair[0].0, pair[1].0));
            }
        }
    }
    out
}

/// Checks and applies a play (or the start of one, with `partial`).
pub fn apply_move(req: &ApplyMoveRequest) -> Result<ApplyMoveResponse, ApiError> {
    let (read, dice) = read_turn(req.variant.as_deref(), &req.position, req.dice.as_deref())?;
    let position = &read.position;
    let text = play_text(&req.play)?;
    let (play, partial) = if req.partial {
        let hops = hops(&text);
        let partial = position.partial_play(&hops, dice)?;
        let play = Play::new(&partial.moves).ok_or_else(|| {
            ApiError::invalid("invalid-play", "play", "a play has at most four moves")
        })?;
        (play, Some(partial))
    } else {
        (text.to_play(position, dice)?, None)
    };
    let finished = partial.as_ref().is_none_or(|p| p.complete);
    let after = if finished {
        position.after(&play)
    } else {
        // The mover is still moving.
        position.after(&play).swap_turn()
    };
    let hits: Vec<u8> = play
        .moves()
        .iter()
        .filter(|m| m.is_hit())
        .map(|m| m.to().get())
        .collect();
    Ok(ApplyMoveResponse {
        play: PlayedOutput {
            notation: MoveText::format(&play),
            moves: moves_output(play.moves()),
        },
        position: read.output(&after),
        hits,
        game_over: after.outcome().map(|o| GameOverOutput {
            winner: o.winner.into(),
            result: o.result.as_str().to_owned(),
        }),
        partial: partial.map(|p| PartialOutput {
            complete: p.complete,
            remaining_dice: p.remaining.iter().map(|d| d.get()).collect(),
            completions: p.completions,
        }),
        turn: after.turn().into(),
    })
}

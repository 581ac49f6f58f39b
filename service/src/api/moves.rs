//! Legal moves and applying a play.

use bgref_core::notation::move_text::{MoveText, Segment};
use bgref_core::{Move, Play, Point};

use super::common::{read_dice, read_position, read_variant};
use crate::error::ApiError;
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

/// Every legal play of the position for the roll.
pub fn legal_moves(req: &LegalMovesRequest) -> Result<LegalMovesResponse, ApiError> {
    let variant = read_variant(req.variant.as_deref())?;
    let read = read_position(&req.position, variant, "position")?;
    let dice = read_dice(req.dice.as_deref(), read.xgid_dice())?;
    let position = &read.position;
    if let Some(outcome) = position.outcome() {
        return Err(ApiError::illegal(
            "game-over",
            Some("position"),
            format!(
                "the game is over: {} has borne off every checker",
                outcome.winner
            ),
        ));
    }
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
    let variant = read_variant(req.variant.as_deref())?;
    let read = read_position(&req.position, variant, "position")?;
    let dice = read_dice(req.dice.as_deref(), read.xgid_dice())?;
    let position = &read.position;
    if let Some(outcome) = position.outcome() {
        return Err(ApiError::illegal(
            "game-over",
            Some("position"),
            format!(
                "the game is over: {} has borne off every checker",
                outcome.winner
            ),
        ));
    }
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

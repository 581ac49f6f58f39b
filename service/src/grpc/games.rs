//! `NewGame`, `Act` and `VerifyGame`.

use bgref_core::tables::TablesScore;
use bgref_core::{ByPlayer, GameKind, Phase, Score};

use super::common::{
    per_player_out, player_in, player_out, result_in, result_out, variant_in, variant_out,
};
use super::cube::{cube_in, cube_out, match_in, rules_in};
use super::tables::{any_position_out, tables_outcome_out, tables_position_out};
use crate::api::games::{
    ActInput, Acted, ActionInput, ActionKind, Clock, ClockInput, ClockPreset, EventKind, Exported,
    GameView, Happened, MatchLabels, NewGameInput, Started, StepInput, TranscriptInput, Verdict,
};
use crate::api::input;
use crate::api::moves::PlayInput;
use crate::api::tables::TablesView;
use crate::error::ApiError;
use crate::proto;
use prost::Message as _;

fn phase_out(phase: Phase) -> i32 {
    match phase {
        Phase::OpeningRoll => proto::Phase::OpeningRoll,
        Phase::RollOrDouble => proto::Phase::RollOrDouble,
        Phase::AnswerDouble => proto::Phase::AnswerDouble,
        Phase::Move => proto::Phase::Move,
        Phase::AnswerResignation => proto::Phase::AnswerResignation,
        Phase::GameOver => proto::Phase::GameOver,
        Phase::MatchOver => proto::Phase::MatchOver,
    }
    .into()
}

fn kind_out(kind: GameKind) -> i32 {
    match kind {
        GameKind::Normal => proto::GameKind::Normal,
        GameKind::Crawford => proto::GameKind::Crawford,
        GameKind::PostCrawford => proto::GameKind::PostCrawford,
    }
    .into()
}

impl TryFrom<proto::NewGameRequest> for NewGameInput {
    type Error = ApiError;

    fn try_from(req: proto::NewGameRequest) -> Result<Self, ApiError> {
        Ok(NewGameInput {
            match_id: req.match_id,
            client_seed: req.client_seed,
            variant: variant_in(req.variant)?,
            tavli: req.tavli,
            tables_rules: super::tables::tables_rules_in(req.tables_rules)?,
            match_state: req.r#match.map(match_in),
            rules: req.rules.map(rules_in),
            labels: MatchLabels {
                players: req.players.map(|p| ByPlayer { x: p.x, o: p.o }),
                event: (!req.event.is_empty()).then_some(req.event),
                date: (!req.date.is_empty()).then_some(req.date),
                round: (!req.round.is_empty()).then_some(req.round),
            },
            position: super::common::position_in(req.position, "position")?,
            cube: req.cube.map(cube_in).transpose()?,
            clock: req.clock.map(clock_in).transpose()?,
        })
    }
}

/// A clock request: an UNSPECIFIED preset and 0 are left out.
fn clock_in(c: proto::ClockRequest) -> Result<ClockInput, ApiError> {
    let preset = match proto::ClockPreset::try_from(c.preset) {
        Ok(proto::ClockPreset::Unspecified) => None,
        Ok(proto::ClockPreset::Us2013) => Some(ClockPreset::Us2013.as_str()),
        Ok(proto::ClockPreset::Unified2001) => Some(ClockPreset::Unified2001.as_str()),
        Err(_) => return Err(input::unknown_value("clock.preset", c.preset)),
    };
    ClockInput::read(
        preset,
        (c.reserve_ms != 0).then_some(c.reserve_ms),
        (c.delay_ms != 0).then_some(c.delay_ms),
        (c.overtime_ms != 0).then_some(c.overtime_ms),
    )
}

fn clock_out(c: &Clock) -> proto::ClockState {
    proto::ClockState {
        reserve_ms: Some(proto::PerPlayer {
            x: c.reserve_ms.x,
            o: c.reserve_ms.o,
        }),
        delay_ms: c.delay_ms,
        overtime_ms: Some(proto::PerPlayer {
            x: c.overtime_ms.x,
            o: c.overtime_ms.o,
        }),
        running: c.running.map_or(0, player_out),
        since_ms: c.since_ms,
        deadline_ms: c.deadline_ms().unwrap_or(0),
        at_ms: c.at_ms,
        expired: c.expired.map_or(0, player_out),
    }
}

fn play_in(notation: Option<String>, moves: Option<proto::MoveList>) -> Option<PlayInput> {
    notation.map(PlayInput::Notation).or_else(|| {
        moves.map(|list| {
            PlayInput::Moves(
                list.moves
                    .iter()
                    .map(|m| (i64::from(m.from_point), i64::from(m.to_point)))
                    .collect(),
            )
        })
    })
}

fn action_in(
    value: i32,
    play: Option<PlayInput>,
    level: i32,
    field: &str,
) -> Result<Option<ActionInput>, ApiError> {
    let level = result_in(level, &format!("{field}.level"))?;
    let action = match proto::GameAction::try_from(value) {
        Ok(proto::GameAction::Unspecified) => return Ok(None),
        Ok(proto::GameAction::Roll) => ActionInput::Roll,
        Ok(proto::GameAction::Double) => ActionInput::Double,
        Ok(proto::GameAction::Take) => ActionInput::Take,
        Ok(proto::GameAction::Pass) => ActionInput::Pass,
        Ok(proto::GameAction::Beaver) => ActionInput::Beaver,
        Ok(proto::GameAction::Raccoon) => ActionInput::Raccoon,
        Ok(proto::GameAction::Move) => ActionInput::Move(None),
        Ok(proto::GameAction::Resign) => ActionInput::Resign(None),
        Ok(proto::GameAction::Accept) => ActionInput::Accept,
        Ok(proto::GameAction::Reject) => ActionInput::Reject,
        Ok(proto::GameAction::NextGame) => ActionInput::NextGame,
        Ok(proto::GameAction::ClaimTime) => ActionInput::ClaimTime,
        Err(_) => return Err(input::unknown_value(field, value)),
    };
    Ok(Some(action.with_fields(play, level)))
}

impl TryFrom<proto::ActRequest> for ActInput {
    type Error = ApiError;

    fn try_from(req: proto::ActRequest) -> Result<Self, ApiError> {
        let (notation, moves) = match req.play {
            Some(proto::act_request::Play::Notation(t)) => (Some(t), None),
            Some(proto::act_request::Play::Moves(m)) => (None, Some(m)),
            None => (None, None),
        };
        Ok(ActInput {
            state: req.state,
            player: player_in(req.player, "player")?,
            action: action_in(req.action, play_in(notation, moves), req.level, "action")?,
            match_id: (!req.match_id.is_empty()).then_some(req.match_id),
            seat: (!req.seat.is_empty()).then_some(req.seat),
            fields: (!req.fields.is_empty()).then_some(req.fields),
            sign_roll: req.sign_roll,
        })
    }
}

fn transcript_in(
    start: Option<proto::NewGameRequest>,
    steps: Vec<proto::TranscriptStep>,
    state: String,
    started_at_ms: Option<u64>,
) -> Result<TranscriptInput, ApiError> {
    {
        let start = input::required(start, "start", "start is required: the new game")?;
        let actions = steps
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                let (notation, moves) = match s.play {
                    Some(proto::transcript_step::Play::Notation(t)) => (Some(t), None),
                    Some(proto::transcript_step::Play::Moves(m)) => (None, Some(m)),
                    None => (None, None),
                };
                Ok(StepInput {
                    player: player_in(s.player, &format!("actions[{i}].player"))?,
                    action: action_in(
                        s.action,
                        play_in(notation, moves),
                        s.level,
                        &format!("actions[{i}].action"),
                    )?,
                    at_ms: s.at_ms,
                })
            })
            .collect::<Result<_, ApiError>>()?;
        Ok(TranscriptInput {
            start: start.try_into().map_err(|e: ApiError| e.within("start"))?,
            actions,
            state: (!state.is_empty()).then_some(state),
            started_at_ms,
        })
    }
}

impl TryFrom<proto::VerifyGameRequest> for TranscriptInput {
    type Error = ApiError;

    fn try_from(req: proto::VerifyGameRequest) -> Result<Self, ApiError> {
        transcript_in(req.start, req.actions, req.state, req.started_at_ms)
    }
}

impl TryFrom<proto::ExportGameRequest> for TranscriptInput {
    type Error = ApiError;

    fn try_from(req: proto::ExportGameRequest) -> Result<Self, ApiError> {
        transcript_in(req.start, req.actions, String::new(), req.started_at_ms)
    }
}

impl From<&Exported> for proto::ExportGameResponse {
    fn from(e: &Exported) -> Self {
        proto::ExportGameResponse {
            mat: e.mat.clone(),
            actions: u32::try_from(e.actions).unwrap_or(u32::MAX),
            format: proto::ExportFormat::Mat.into(),
        }
    }
}

fn tables_score_out(score: &TablesScore) -> proto::TablesGameScore {
    proto::TablesGameScore {
        game: variant_out(score.game),
        winner: score.winner.map_or(0, player_out),
        outcome: tables_outcome_out(score.kind),
        result: score.result.map_or(0, result_out),
        resigned: score.resigned,
        points: score.points,
        match_score: Some(per_player_out(score.match_after.score)),
        match_winner: score.match_after.winner().map_or(0, player_out),
    }
}

/// An action kind as its proto value.
fn action_out(kind: ActionKind) -> i32 {
    let action = match kind {
        ActionKind::Roll => proto::GameAction::Roll,
        ActionKind::Double => proto::GameAction::Double,
        ActionKind::Take => proto::GameAction::Take,
        ActionKind::Pass => proto::GameAction::Pass,
        ActionKind::Beaver => proto::GameAction::Beaver,
        ActionKind::Raccoon => proto::GameAction::Raccoon,
        ActionKind::Move => proto::GameAction::Move,
        ActionKind::Resign => proto::GameAction::Resign,
        ActionKind::Accept => proto::GameAction::Accept,
        ActionKind::Reject => proto::GameAction::Reject,
        ActionKind::NextGame => proto::GameAction::NextGame,
    };
    action.into()
}

fn view_out(view: &GameView) -> proto::GameView {
    view_message(view, true)
}

/// `view_out`'s message; with `plays` false, a backgammon board's plays
/// are left out (for [`encode_act`] to write).
fn view_message(view: &GameView, plays: bool) -> proto::GameView {
    let s = &view.state;
    let (length, score) = s.match_score();
    let board = &view.board;
    let position = any_position_out(board.board_view(), TablesView::of(&board.position));
    let plays = if board.on_board().is_some() {
        if plays {
            board
                .board_plays()
                .map(|p| super::moves::play_fields_out(&p, view.fields))
                .collect()
        } else {
            Vec::new()
        }
    } else {
        TablesView::after_plays(&board.position, &board.plays)
            .map(|(play, position)| proto::Play {
                notation: play.to_string(),
                moves: super::common::moves_out(play),
                position: Some(tables_position_out(&position)),
            })
            .collect()
    };
    let (result, tables_result) = match s.result() {
        Some(Score::Backgammon(score)) => (Some(super::cube::score_out(&score)), None),
        Some(Score::Tables(score)) => (None, Some(tables_score_out(&score))),
        None => (None, None),
    };
    proto::GameView {
        match_id: view.match_id.clone(),
        variant: variant_out(s.variant()),
        game: s.game(),
        turn: s.turn(),
        phase: phase_out(s.phase()),
        on_roll: player_out(s.on_roll()),
        to_act: s.to_act().map_or(0, player_out),
        actions: view.actions.iter().map(|&k| action_out(k)).collect(),
        position: Some(position),
        dice: s
            .dice()
            .map_or_else(Vec::new, |d| d.values().map(u32::from).to_vec()),
        cube: Some(cube_out(&s.cube())),
        may_double: s.may_double(),
        r#match: Some(proto::GameMatch {
            length,
            score: Some(per_player_out(score)),
            crawford: matches!(s.game_kind(), GameKind::Crawford),
            game_kind: kind_out(view.game_kind()),
        }),
        plays,
        result,
        tables: s.tables_match().map(|m| proto::TablesMatch {
            tavli: m.series == bgref_core::tables::TablesSeries::Tavli,
            games_played: m.games_played,
            next_starter: m.starter.map_or(0, player_out),
        }),
        tables_result,
        set_up: s.set_up(),
        clock: view.clock.as_ref().map(clock_out),
        match_winner: view.match_winner().map_or(0, player_out),
    }
}

impl From<&Started> for proto::NewGameResponse {
    fn from(started: &Started) -> Self {
        proto::NewGameResponse {
            state: started.game.token.clone(),
            view: Some(view_out(&started.game)),
            seats: Some(proto::Seats {
                x: started.seats.x.clone(),
                o: started.seats.o.clone(),
            }),
        }
    }
}

fn event_kind_out(kind: EventKind) -> i32 {
    use proto::GameEventKind as K;
    match kind {
        EventKind::OpeningRoll => K::OpeningRoll,
        EventKind::StarterChosen => K::StarterChosen,
        EventKind::Rolled => K::Rolled,
        EventKind::Doubled => K::Doubled,
        EventKind::Beavered => K::Beavered,
        EventKind::Raccooned => K::Raccooned,
        EventKind::Taken => K::Taken,
        EventKind::Dropped => K::Dropped,
        EventKind::Moved => K::Moved,
        EventKind::Resigned => K::Resigned,
        EventKind::Rejected => K::Rejected,
        EventKind::GameEnded => K::GameEnded,
        EventKind::NewGame => K::NewGame,
        EventKind::TimeExpired => K::TimeExpired,
    }
    .into()
}

fn event_out(event: &Happened) -> proto::GameEvent {
    let f = event.fields();
    proto::GameEvent {
        kind: event_kind_out(f.kind),
        player: f.player.map_or(0, player_out),
        dice: f.dice.map_or_else(Vec::new, |d| d.map(u32::from).to_vec()),
        passed: f.passed,
        play: f.play.map(|p| p.to_string()).unwrap_or_default(),
        level: f.level.map_or(0, result_out),
        ties: f.ties.unwrap_or(0),
        game: f.game.unwrap_or(0),
    }
}

impl From<&Acted> for proto::ActResponse {
    fn from(acted: &Acted) -> Self {
        act_message(acted, true)
    }
}

/// The protobuf bytes of `proto::ActResponse::from(acted)` (the tests
/// compare them), a backgammon view's plays written by the LegalMoves
/// writer ([`super::moves_wire::write_game_plays`]) instead of a message
/// tree with a `String` per encoding: a roll's answer lists every play in
/// every encoding (bench/README.md, "The game view's plays").
pub fn encode_act(acted: &Acted) -> Vec<u8> {
    let board = match acted.game.board.on_board() {
        Some(board @ (_, plays, _)) if !plays.is_empty() => board,
        _ => return act_message(acted, true).encode_to_vec(),
    };
    let mut answer = act_message(acted, false);
    let mut head = answer.view.take().unwrap_or_default();
    // The view's fields after `plays` (13), which prost writes after them.
    let tail = proto::GameView {
        result: head.result.take(),
        tables: head.tables.take(),
        tables_result: head.tables_result.take(),
        actions: std::mem::take(&mut head.actions),
        set_up: std::mem::take(&mut head.set_up),
        clock: head.clock.take(),
        match_winner: std::mem::take(&mut head.match_winner),
        ..proto::GameView::default()
    };
    let mut view = head.encode_to_vec();
    super::moves_wire::write_game_plays(&mut view, board, acted.game.fields);
    view.extend_from_slice(&tail.encode_to_vec());
    // Field by field in number order: the state (1), the view (2), the
    // rest (3 to 6).
    let state = std::mem::take(&mut answer.state);
    let rest = answer.encode_to_vec();
    let mut out = Vec::with_capacity(state.len() + view.len() + rest.len() + 16);
    super::wire::bytes(&mut out, 1, state.as_bytes());
    out.push(super::wire::key(2, super::wire::LEN));
    prost::encoding::encode_varint(view.len() as u64, &mut out);
    out.extend_from_slice(&view);
    out.extend_from_slice(&rest);
    out
}

/// The answer to `acted`; with `plays` false, its view's backgammon plays
/// are left out.
fn act_message(acted: &Acted, plays: bool) -> proto::ActResponse {
    let (game_over, tables_game_over) = match &acted.scored {
        Some(Score::Backgammon(score)) => (Some(super::cube::score_out(score)), None),
        Some(Score::Tables(score)) => (None, Some(tables_score_out(score))),
        None => (None, None),
    };
    proto::ActResponse {
        state: acted.game.token.clone(),
        view: Some(view_message(&acted.game, plays)),
        event: Some(event_out(&acted.event)),
        roll: acted.roll.as_ref().map(Into::into),
        game_over,
        tables_game_over,
    }
}

impl From<&Verdict> for proto::VerifyGameResponse {
    fn from(v: &Verdict) -> Self {
        proto::VerifyGameResponse {
            valid: v.valid,
            actions: u32::try_from(v.actions).unwrap_or(u32::MAX),
            refused: v.refused.as_ref().map(|(i, err)| proto::RefusedAction {
                index: u32::try_from(*i).unwrap_or(u32::MAX),
                reason_slug: err.slug.to_owned(),
                reason: err.detail.clone(),
            }),
            state_matches: v.state_matches,
            state: v.game.token.clone(),
            view: Some(view_out(&v.game)),
        }
    }
}

#[cfg(test)]
mod tests {
    use prost::Message as _;

    use crate::proto;

    /// Act's answer written with the plays directly is prost's bytes of the
    /// whole message, for every answer of the sample matches
    /// (`api::games::sample_acts`: views with plays on both boards, every
    /// play field set).
    #[test]
    fn act_bytes_are_prosts() {
        crate::api::games::sample_acts(|variant, acted| {
            let prost = proto::ActResponse::from(acted).encode_to_vec();
            assert_eq!(super::encode_act(acted), prost, "{variant}");
        });
    }
}

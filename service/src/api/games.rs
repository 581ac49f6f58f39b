//! Referee games: an authenticated, self-contained game state token that carries a
//! whole match, server-rolled dice, and transcripts that replay.
//!
//! The referee keeps nothing: each answer is a new token, and an action on
//! an old token gives the same answer again (the dice of a turn are the
//! commit-reveal roll of `(match id, game, turn)`). See `docs/referee.md`
//! for the trust model.
//!
//! # The token
//! base64url (no padding) of:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | version: the layout of the game fields ([`GameState::layout`]), 1 for the backgammon variants, 2 for the tables games (Portes, Tavla, Plakoto, Fevga, Long Nardy, alone or as a Tavli match) |
//! | 8 | key id of the signing key (its 16 hex digits as bytes) |
//! | 32 | chain: SHA-256 of the previous token and the action that led here; for a new match SHA-256 of `bgref-game-v1`, the match id and the client seed |
//! | 1 + n | match id (length, UTF-8) |
//! | 2 + n | client seed (big-endian length, UTF-8) |
//! | 48 to 101 | the game fields, by [`GameState::write_fields`] (their layouts, byte by byte: [`bgref_core::state_bytes`]); the 0x40 bit of their first byte marks a clocked match |
//! | (38) | a clocked match: the clock ([`Clock`]: delay, reserves of x and o, overtimes of x and o, running player, its period's start, the state's time, whose reserve ran out) |
//! | (1) | resignations offered in this game, when there were any (below) |
//! | (64) + 1 + 16 | the seal (below) |
//!
//! Each version is the one its ruleset's tokens have always had, so every
//! token written before is read, and a replay hashes the bytes the match
//! was played with. A token of another version is refused with
//! `invalid-state-token`, naming the versions this service reads.
//!
//! # The seal (both versions)
//! The bytes before the seal are the token's body, which the next chain
//! hash covers. Then: when the game is over (phase game over or match
//! over), the 64-byte Ed25519 signature of the body (for others to
//! verify); one byte, 1 when the signature is there and 0 when not; and
//! the first [`TOKEN_MAC_BYTES`] bytes of `HMAC-SHA256(token key, every
//! byte before)` ([`DiceKeys::token_mac`]), which is what the referee
//! checks. A token written before the seal existed is the body and its
//! signature: still read, by its signature.
//!
//! # The resignation count (both versions)
//! A game allows [`bgref_core::MAX_RESIGNATIONS`] resignation offers. The
//! count of this game's offers is one byte after the last field, written
//! only when it is not 0: a token of a game without offers is byte for
//! byte what it was before the count existed, so tokens signed before
//! (which have no such byte) read as a count of 0, and the chain hashes
//! of transcripts without offers are unchanged. A count byte of 0, or
//! more than one byte after the fields, is refused.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bgref_core::Play;
use bgref_core::Variant;
use bgref_core::notation::mat::{MatHeader, write_mat_with};
use bgref_core::notation::match_id::{GameStatus, MatchId};
use bgref_core::notation::xgid::{Xgid, XgidDice};
use bgref_core::state_bytes;
use bgref_core::tables::{TablesGameState, TablesMatch, TablesSeries};
use bgref_core::verify::Roller;
use bgref_core::{
    Action, BackgammonGame, BackgammonVariant, ByPlayer, CubeState, Dice, Event, GameEnd, GameKind,
    GameResult, GameScore, GameState, MatchState, Phase, PlayList, Player, Position, Score,
    SetUpError, VariantPlayList, VariantPosition,
};
use sha2::{Digest, Sha256};

use super::cube::{CubeInput, MatchInput, RulesInput};
use super::dice::{SignedRoll, check_client_seed, check_match_id, roll_receipt};
use super::input::{PositionInput, required};
use super::moves::PlayInput;
use super::view::{Fields, InGame, PositionView};
use crate::error::{ApiError, ErrorKind};
use crate::keys::{DiceKeys, Signature, TOKEN_MAC_BYTES, TokenAccess, VerifyingKey};

mod clock;

pub use clock::{Clock, ClockInput, ClockPreset, ClockTime, MAX_DELAY_MS, MAX_RESERVE_MS};

/// The token format version of the backgammon variants (the core's
/// layout of their game fields).
const TOKEN_VERSION: u8 = state_bytes::BACKGAMMON_LAYOUT;
/// The token format version of the tables games.
const TABLES_TOKEN_VERSION: u8 = state_bytes::TABLES_LAYOUT;
/// Most actions one verify or export request replays.
pub const MAX_TRANSCRIPT_ACTIONS: usize = 20_000;
/// Longest token accepted, in characters.
pub const MAX_TOKEN_CHARS: usize = 2048;

/// Input of a new game (or match).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGameInput {
    /// The match id the dice are bound to.
    pub match_id: String,
    /// The client seed, fixed for the whole match.
    pub client_seed: String,
    /// The variant (a Tavli match: the standard default or `portes`).
    pub variant: Variant,
    /// A Tavli match: Portes, Plakoto and Fevga in rotation.
    pub tavli: bool,
    /// Rule options of the tables games (`None`: the defaults).
    pub tables_rules: Option<super::tables::TablesRulesInput>,
    /// The match (`None`: money play).
    pub match_state: Option<MatchInput>,
    /// Rule options.
    pub rules: Option<RulesInput>,
    /// The players' names and the event, for `/games/export`.
    pub labels: MatchLabels,
    /// A set position the first game begins from (`None`: the variant's
    /// start, after an opening roll).
    pub position: Option<PositionInput>,
    /// The cube of the set position (`None`: centred, or the XGID's).
    pub cube: Option<CubeInput>,
    /// The referee clock (`None`: untimed).
    pub clock: Option<ClockInput>,
}

/// What a match's `.mat` export says about it besides the games: the
/// players' names, the event, its date and round. Labels only: they are
/// not in the token nor in the chain hash, so a transcript's start may
/// give others (docs/referee.md).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatchLabels {
    /// The players' names.
    pub players: Option<ByPlayer<String>>,
    /// The event.
    pub event: Option<String>,
    /// The date, `YYYY-MM-DD`.
    pub date: Option<String>,
    /// The round.
    pub round: Option<String>,
}

/// Longest player name, in bytes (GNU Backgammon keeps 31).
pub const MAX_PLAYER_NAME_BYTES: usize = 31;
/// Longest event or round, in bytes.
pub const MAX_LABEL_BYTES: usize = 64;

impl MatchLabels {
    /// Checks every label; the date as year, month and day.
    ///
    /// # Errors
    /// `invalid-label` naming the field: a name of 1 to 31 bytes without
    /// `:`, `"`, control characters or white space at either end; an event
    /// or round of 1 to 64 bytes without `"` or control characters; a date
    /// `YYYY-MM-DD` that exists.
    fn check(&self) -> Result<MatHeader<'_>, ApiError> {
        let text = check_label;
        if let Some(p) = &self.players {
            check_player_name(&p.x, "players.x")?;
            check_player_name(&p.o, "players.o")?;
        }
        if let Some(e) = &self.event {
            text(e, "event", MAX_LABEL_BYTES, "\"")?;
        }
        if let Some(r) = &self.round {
            text(r, "round", MAX_LABEL_BYTES, "\"")?;
        }
        let date = self.date.as_deref().map(read_date).transpose()?;
        Ok(MatHeader {
            players: self.players.as_ref().map(|p| ByPlayer {
                x: p.x.as_str(),
                o: p.o.as_str(),
            }),
            event: self.event.as_deref(),
            round: self.round.as_deref(),
            date,
        })
    }
}

/// A label of 1 to `max` bytes without control characters, white space at
/// either end or any of `forbidden`; else `invalid-label` naming `field`.
fn check_label(value: &str, field: &str, max: usize, forbidden: &str) -> Result<(), ApiError> {
    let bad = value.is_empty()
        || value.len() > max
        || value.trim() != value
        || value
            .chars()
            .any(|c| c.is_control() || forbidden.contains(c));
    if bad {
        return Err(ApiError::invalid(
            "invalid-label",
            field,
            format!(
                "{field} is 1 to {max} bytes of text without control characters, white space \
                 at either end or any of {forbidden}"
            ),
        ));
    }
    Ok(())
}

/// A player's name as GNU Backgammon keeps it: 1 to 31 bytes without `:`,
/// `"`, control characters or white space at either end.
///
/// # Errors
/// `invalid-label` naming `field`.
pub(crate) fn check_player_name(value: &str, field: &str) -> Result<(), ApiError> {
    check_label(value, field, MAX_PLAYER_NAME_BYTES, ":\"")
}

/// A date `YYYY-MM-DD` (years 1 to 9999) that exists.
fn read_date(text: &str) -> Result<(u16, u8, u8), ApiError> {
    let bad = || {
        ApiError::invalid(
            "invalid-label",
            "date",
            format!(
                "date is a calendar date YYYY-MM-DD, e.g. 2026-12-06; got {:?}",
                crate::error::log_safe(text)
            ),
        )
    };
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(bad());
    }
    let number = |s: &str| {
        (s.bytes().all(|c| c.is_ascii_digit()))
            .then(|| s.parse::<u16>().ok())
            .flatten()
    };
    let (Some(y), Some(m), Some(d)) = (number(&text[..4]), number(&text[5..7]), number(&text[8..]))
    else {
        return Err(bad());
    };
    // Two digits each: the casts keep them whole.
    time::Month::try_from(m as u8)
        .and_then(|month| time::Date::from_calendar_date(i32::from(y), month, d as u8))
        .ok()
        .filter(|_| y > 0)
        .map(|_| (y, m as u8, d as u8))
        .ok_or_else(bad)
}

/// An action as a request names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionInput {
    /// Roll (also the opening roll).
    Roll,
    /// Offer a double.
    Double,
    /// Take.
    Take,
    /// Pass (drop).
    Pass,
    /// Beaver.
    Beaver,
    /// Raccoon.
    Raccoon,
    /// Move (`None`: the play left out).
    Move(Option<PlayInput>),
    /// Resign (`None`: the level left out).
    Resign(Option<GameResult>),
    /// Accept a resignation.
    Accept,
    /// Reject a resignation.
    Reject,
    /// Start the next game.
    NextGame,
    /// Claim the match: the opponent's reserve ran out.
    ClaimTime,
    /// An action given a field it does not take (a play beside anything
    /// but `move`, a level beside anything but `resign`): validation
    /// refuses it by name rather than ignoring the field.
    Stray {
        /// The action's name.
        action: &'static str,
        /// The field it does not take: `play` or `level`.
        field: &'static str,
    },
}

impl ActionInput {
    /// `self` with the play and level a request gave beside the action's
    /// name: `move` takes the play, `resign` the level, and either given
    /// to any other action makes a [`ActionInput::Stray`].
    #[must_use]
    pub fn with_fields(self, play: Option<PlayInput>, level: Option<GameResult>) -> Self {
        let stray = if play.is_some() && !matches!(self, ActionInput::Move(_)) {
            Some("play")
        } else if level.is_some() && !matches!(self, ActionInput::Resign(_)) {
            Some("level")
        } else {
            None
        };
        match (stray, self) {
            (Some(field), action) => ActionInput::Stray {
                action: action.name(),
                field,
            },
            (None, ActionInput::Move(_)) => ActionInput::Move(play),
            (None, ActionInput::Resign(_)) => ActionInput::Resign(level),
            (None, action) => action,
        }
    }

    /// The action's name as both protocols spell it.
    fn name(&self) -> &'static str {
        match self {
            ActionInput::Roll => "roll",
            ActionInput::Double => "double",
            ActionInput::Take => "take",
            ActionInput::Pass => "pass",
            ActionInput::Beaver => "beaver",
            ActionInput::Raccoon => "raccoon",
            ActionInput::Move(_) => "move",
            ActionInput::Resign(_) => "resign",
            ActionInput::Accept => "accept",
            ActionInput::Reject => "reject",
            ActionInput::NextGame => "next_game",
            ActionInput::ClaimTime => "claim_time",
            ActionInput::Stray { action, .. } => action,
        }
    }
}

/// An action's kind, as a game view lists the actions open now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionKind {
    /// Roll (also the opening roll).
    Roll,
    /// Offer a double.
    Double,
    /// Take.
    Take,
    /// Pass (drop).
    Pass,
    /// Beaver.
    Beaver,
    /// Raccoon.
    Raccoon,
    /// Move.
    Move,
    /// Resign.
    Resign,
    /// Accept a resignation.
    Accept,
    /// Reject a resignation.
    Reject,
    /// Start the next game.
    NextGame,
}

/// Input of an action on a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActInput {
    /// The state token.
    pub state: String,
    /// The player acting.
    pub player: Option<Player>,
    /// The action.
    pub action: Option<ActionInput>,
    /// If given, the match the token must belong to.
    pub match_id: Option<String>,
    /// The acting player's seat (required; never logged).
    pub seat: Option<String>,
    /// What each legal play of the answer's view carries besides its
    /// notation, by name as in legal-moves (`None`: everything).
    pub fields: Option<Vec<String>>,
    /// Sign the receipt of the roll this action makes (Ed25519; without
    /// it the receipt comes unsigned: docs/referee.md, "The dice").
    pub sign_roll: bool,
}

/// One step of a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepInput {
    /// The player acting.
    pub player: Option<Player>,
    /// The action.
    pub action: Option<ActionInput>,
    /// A clocked match: the referee's time of the action (the `at_ms` of
    /// its answer's clock), Unix milliseconds.
    pub at_ms: Option<u64>,
}

/// Input of verify and export: the new game, then every action in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptInput {
    /// How the match began.
    pub start: NewGameInput,
    /// Every action since, in order.
    pub actions: Vec<StepInput>,
    /// The last state token, to compare with the replay's (optional).
    pub state: Option<String>,
    /// A clocked match: the referee's time of its start (the `at_ms` of
    /// the `POST /games` answer's clock), Unix milliseconds.
    pub started_at_ms: Option<u64>,
}

/// The board of a game view and its legal plays, in any variant.
#[derive(Debug, Clone)]
pub struct GameBoard {
    /// The position.
    pub position: VariantPosition,
    /// The legal plays, when a move is due (else none).
    pub plays: VariantPlayList,
    /// On the backgammon board, the game's fields (cube, score, dice,
    /// Match ID) of the position and of the positions the plays lead to.
    game: Option<(InGame, InGame)>,
}

impl GameBoard {
    /// The position in the backgammon board's encodings, with the game's
    /// fields (`None` in Plakoto, Fevga and Long Nardy).
    pub fn board_view(&self) -> Option<PositionView> {
        let (position, (now, _)) = (self.position.board()?, self.game.as_ref()?);
        Some(PositionView::in_game(*position, now.clone()))
    }

    /// On the backgammon board, what the writers of the plays take: the
    /// position, its plays, and the game's fields of the positions they
    /// lead to (a play's position is [`Position::after_legal`]).
    pub fn on_board(&self) -> Option<(&Position, &PlayList, &InGame)> {
        let (_, next) = self.game.as_ref()?;
        Some((self.position.board()?, self.plays.board()?, next))
    }

    /// On the backgammon board, each play with its resulting position as a
    /// [`PositionView`] with the game's fields: what the message-tree
    /// renderers take, the references the direct writers are tested
    /// against. Empty in Plakoto, Fevga and Long Nardy.
    pub fn board_plays(&self) -> impl Iterator<Item = super::moves::PlayView> + '_ {
        self.on_board()
            .into_iter()
            .flat_map(|(position, plays, next)| {
                plays.iter().map(move |play| super::moves::PlayView {
                    play: *play,
                    position: PositionView::in_game(position.after(play), next.clone()),
                })
            })
    }
}

/// A game as an app shows it.
#[derive(Debug, Clone)]
pub struct GameView {
    /// The token (sealed: docs/referee.md) to send with the next action.
    pub token: String,
    /// The state.
    pub state: GameState,
    /// The match id.
    pub match_id: String,
    /// The position and the legal plays.
    pub board: GameBoard,
    /// The actions the player to act may take now (either player, when
    /// `to_act` is none), in the order of [`ActionKind`].
    pub actions: Vec<ActionKind>,
    /// The token's chain hash (what the ledger records as the head).
    pub chain: [u8; 32],
    /// The referee clock of a clocked match.
    pub clock: Option<Clock>,
    /// What each legal play of the backgammon board carries besides its
    /// notation (the request's `fields` of `/games/act`; else everything).
    pub fields: Fields,
}

/// The players' seats of a match: one secret capability each
/// (docs/referee.md, "Seats"). Never logged.
#[derive(Clone, PartialEq, Eq)]
pub struct Seats {
    /// x's seat.
    pub x: String,
    /// o's seat.
    pub o: String,
}

impl std::fmt::Debug for Seats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Seats { <redacted> }")
    }
}

/// A new match: its first state and the players' seats.
#[derive(Debug, Clone)]
pub struct Started {
    /// The first state.
    pub game: GameView,
    /// The seats, one per player.
    pub seats: Seats,
}

impl GameView {
    /// The kind of this game: normal, Crawford or post-Crawford.
    pub fn game_kind(&self) -> GameKind {
        self.state.game_kind()
    }

    /// The match's winner once it is over: by the points, or on time (the
    /// opponent of the player whose reserve ran out).
    pub fn match_winner(&self) -> Option<Player> {
        if self.state.phase() != Phase::MatchOver {
            return None;
        }
        if let Some(late) = self.clock.and_then(|c| c.expired) {
            return Some(!late);
        }
        self.state.result()?.match_winner()
    }

    /// How many legal plays the view shows (none unless a move is due).
    pub fn plays_shown(&self) -> usize {
        self.board.plays.len()
    }
}

/// What an action did: what the rules say it did, or a loss on time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Happened {
    /// The game's event.
    Rules(Event),
    /// The player's reserve ran out: the match is over, the opponent won
    /// it (docs/referee.md, "The clock").
    TimeExpired(Player),
}

/// The kind of an event (HTTP `GameEvent.kind`, gRPC `GameEventKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// The opening roll: `player` starts with `dice`, after `ties`.
    OpeningRoll,
    /// The tables games: the opening dice (`[x, o]`) pick the starter
    /// (`player`), who then rolls.
    StarterChosen,
    /// A roll (`passed` when no play was legal).
    Rolled,
    /// A double offered.
    Doubled,
    /// A double taken and redoubled at once (beaver).
    Beavered,
    /// A beaver taken and redoubled at once (raccoon).
    Raccooned,
    /// The double (beaver, raccoon) taken.
    Taken,
    /// The double (beaver, raccoon) passed: `player` dropped, the game is
    /// over.
    Dropped,
    /// A play.
    Moved,
    /// A resignation offered, at `level`.
    Resigned,
    /// The resignation rejected.
    Rejected,
    /// The resignation accepted: the game is over (`player` won).
    GameEnded,
    /// A new game began.
    NewGame,
    /// `player`'s reserve ran out: the opponent won the match.
    TimeExpired,
}

/// An event of either kind of game as the wire shows it (HTTP `GameEvent`,
/// gRPC `GameEvent`): its kind and the fields that kind carries; one
/// mapping serves both protocols and both event enums.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventFields {
    /// What happened.
    pub kind: EventKind,
    /// Who acted (the starter, the player who dropped, the winner of an
    /// accepted resignation, a tables game's next starter).
    pub player: Option<Player>,
    /// The roll (the tables games' opening throw: `[x, o]`).
    pub dice: Option<[u8; 2]>,
    /// A roll with no legal play.
    pub passed: bool,
    /// The play.
    pub play: Option<Play>,
    /// The level resigned.
    pub level: Option<GameResult>,
    /// Tied opening throws.
    pub ties: Option<u32>,
    /// The new game's number.
    pub game: Option<u32>,
}

impl EventFields {
    const fn of(kind: EventKind, player: Option<Player>) -> EventFields {
        EventFields {
            kind,
            player,
            dice: None,
            passed: false,
            play: None,
            level: None,
            ties: None,
            game: None,
        }
    }
}

impl Happened {
    /// The wire fields of the event.
    pub fn fields(&self) -> EventFields {
        use EventFields as F;
        let event = match self {
            Happened::Rules(event) => event,
            Happened::TimeExpired(late) => return F::of(EventKind::TimeExpired, Some(*late)),
        };
        match event {
            Event::OpeningRoll {
                starts, dice, ties, ..
            } => F {
                dice: Some(dice.values()),
                ties: Some(*ties),
                ..F::of(EventKind::OpeningRoll, Some(*starts))
            },
            Event::StarterChosen {
                x_die,
                o_die,
                starts,
                ties,
            } => F {
                dice: Some([x_die.get(), o_die.get()]),
                ties: Some(*ties),
                ..F::of(EventKind::StarterChosen, Some(*starts))
            },
            Event::Rolled {
                player,
                dice,
                passed,
            } => F {
                dice: Some(dice.values()),
                passed: *passed,
                ..F::of(EventKind::Rolled, Some(*player))
            },
            Event::Doubled { by } => F::of(EventKind::Doubled, Some(*by)),
            Event::Beavered { by } => F::of(EventKind::Beavered, Some(*by)),
            Event::Raccooned { by } => F::of(EventKind::Raccooned, Some(*by)),
            Event::Taken { by } => F::of(EventKind::Taken, Some(*by)),
            Event::Moved { player, play } => F {
                play: Some(*play),
                ..F::of(EventKind::Moved, Some(*player))
            },
            Event::Resigned { by, level } => F {
                level: Some(*level),
                ..F::of(EventKind::Resigned, Some(*by))
            },
            Event::Rejected { by } => F::of(EventKind::Rejected, Some(*by)),
            Event::GameEnded(Score::Backgammon(GameScore {
                end: GameEnd::Pass { winner },
                ..
            })) => F::of(EventKind::Dropped, Some(!*winner)),
            Event::GameEnded(score) => F::of(EventKind::GameEnded, score.winner()),
            Event::NewGame { game, starter } => F {
                game: Some(*game),
                ..F::of(EventKind::NewGame, *starter)
            },
        }
    }
}

/// The answer to an action.
#[derive(Debug, Clone)]
pub struct Acted {
    /// The game after it.
    pub game: GameView,
    /// What happened.
    pub event: Happened,
    /// For a roll, its receipt (signed when the action asked).
    pub roll: Option<SignedRoll>,
    /// The score, when the action ended the game.
    pub scored: Option<Score>,
    /// The chain hash of the token acted on.
    pub from: [u8; 32],
}

/// The verdict of a replayed transcript.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// Every action was legal and, if a final state was given, the replay
    /// reaches exactly it.
    pub valid: bool,
    /// Actions replayed.
    pub actions: usize,
    /// The index of the first refused action, with why.
    pub refused: Option<(usize, ApiError)>,
    /// The final state token given matches the replay's (`None`: none given).
    pub state_matches: Option<bool>,
    /// The game where the replay stopped.
    pub game: GameView,
}

// --- the token ---

pub(crate) fn player_byte(p: Player) -> u8 {
    match p {
        Player::X => 1,
        Player::O => 2,
    }
}

/// The bit of the first game field (version 1's variant byte, version 2's
/// series byte) that marks a clocked match: its clock's fields ([`Clock`])
/// follow the game's, before the resignation count. The core leaves that
/// bit to us ([`state_bytes::FREE_BIT`]).
const CLOCK_BIT: u8 = state_bytes::FREE_BIT;

/// The token's bytes before the signature. The narrowing casts below are
/// bounded where the state is made ([`start`]): a match id of at most 128
/// bytes, a client seed of at most 256, a match of at most 65535 points, and
/// the variant and phase indices of their short lists.
fn encode_body(
    state: &GameState,
    clock: Option<&Clock>,
    match_id: &str,
    chain: &[u8; 32],
    key_id: &[u8; 8],
) -> Vec<u8> {
    let mut b = Vec::with_capacity(160 + match_id.len() + state.client_seed().len());
    encode_body_into(&mut b, state, clock, match_id, chain, key_id);
    b
}

/// [`encode_body`] into `b` (cleared first): a replay writes every step's
/// body into one buffer.
fn encode_body_into(
    b: &mut Vec<u8>,
    state: &GameState,
    clock: Option<&Clock>,
    match_id: &str,
    chain: &[u8; 32],
    key_id: &[u8; 8],
) {
    let seed = state.client_seed();
    b.clear();
    b.push(state.layout());
    b.extend_from_slice(key_id);
    b.extend_from_slice(chain);
    b.push(match_id.len() as u8);
    b.extend_from_slice(match_id.as_bytes());
    b.extend_from_slice(&(seed.len() as u16).to_be_bytes());
    b.extend_from_slice(seed.as_bytes());
    let flags_at = b.len();
    state.write_fields(b);
    if let Some(clock) = clock {
        b[flags_at] |= CLOCK_BIT;
        clock.encode(b);
    }
    // The optional resignation count (see the module doc).
    match state.resignations() {
        0 => {}
        n => b.push(n),
    }
}

/// The optional last byte of both versions: the resignations offered in
/// this game (none: 0).
fn decode_resignations(r: &mut Reader<'_>) -> Result<u8, ApiError> {
    match r.bytes {
        [] => Ok(0),
        &[n] if (1..=bgref_core::MAX_RESIGNATIONS).contains(&n) => {
            r.bytes = &[];
            Ok(n)
        }
        [_] => Err(bad_token(
            "the state token's resignation count is out of range",
        )),
        _ => Err(bad_token("the state token has bytes after its fields")),
    }
}

/// Why a token is refused.
pub(crate) fn bad_token(detail: impl std::fmt::Display) -> ApiError {
    ApiError::invalid("invalid-state-token", "state", detail)
}

/// A cursor over the token bytes; every read checks the length.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], ApiError> {
        if self.bytes.len() < n {
            return Err(bad_token("the state token is truncated"));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, ApiError> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16, ApiError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, ApiError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, ApiError> {
        let mut b = [0; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_be_bytes(b))
    }

    pub(crate) fn text(&mut self, n: usize) -> Result<String, ApiError> {
        String::from_utf8(self.take(n)?.to_vec())
            .map_err(|_| bad_token("the state token holds text that is not UTF-8"))
    }

    /// A player, or none (0): the written `player_byte` or 0.
    pub(crate) fn player_or_none(&mut self) -> Result<Option<Player>, ApiError> {
        match self.u8()? {
            0 => Ok(None),
            b => player_of(b).map(Some),
        }
    }
}

pub(crate) fn player_of(b: u8) -> Result<Player, ApiError> {
    match b {
        1 => Ok(Player::X),
        2 => Ok(Player::O),
        _ => Err(bad_token("the state token names no player")),
    }
}

/// A decoded, signature-checked token.
#[derive(Debug, Clone)]
pub struct Token {
    /// The state.
    pub state: GameState,
    /// The match id.
    pub match_id: String,
    /// The chain hash.
    pub chain: [u8; 32],
    /// The referee clock of a clocked match.
    pub clock: Option<Clock>,
    /// The token's bytes (what the next chain hash covers).
    pub bytes: Vec<u8>,
}

/// The key id as the 8 bytes of its 16 hex digits.
fn key_id_bytes(key_id: &str) -> [u8; 8] {
    let mut out = [0u8; 8];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(key_id.get(2 * i..2 * i + 2).unwrap_or("00"), 16).unwrap_or(0);
    }
    out
}

/// Seals `state` as a token of `match_id` after `chain` (signed when its
/// game is over, MAC'd always): the token, and its body (which the next
/// chain hash covers).
pub fn encode(
    keys: &DiceKeys,
    state: &GameState,
    clock: Option<&Clock>,
    match_id: &str,
    chain: &[u8; 32],
) -> (String, Vec<u8>) {
    let body = encode_body(state, clock, match_id, chain, &key_id_bytes(keys.key_id()));
    let signed = matches!(state.phase(), Phase::GameOver | Phase::MatchOver);
    let mut bytes = Vec::with_capacity(body.len() + 64 + 1 + TOKEN_MAC_BYTES);
    bytes.extend_from_slice(&body);
    if signed {
        bytes.extend_from_slice(&keys.sign(&body).to_bytes());
    }
    bytes.push(u8::from(signed));
    let mac = keys.token_mac(&bytes);
    bytes.extend_from_slice(&mac);
    // The body without the signature, the flag and the MAC, as `decode`
    // gives it: the next chain hash covers the same bytes live and in a
    // replay.
    (URL_SAFE_NO_PAD.encode(&bytes), body)
}

/// Reads and checks a token: its encoding, its MAC (or, for a token
/// written before the MAC, its signature by any published key, the
/// retired ones included) and that it describes a valid state.
///
/// # Errors
/// `invalid-state-token` (malformed or tampered: the detail says which
/// check failed), `unknown-key` (signed by a key this service does not
/// publish).
pub fn decode(keys: &DiceKeys, token: &str) -> Result<Token, ApiError> {
    if token.len() > MAX_TOKEN_CHARS {
        return Err(bad_token(format!(
            "a state token is at most {MAX_TOKEN_CHARS} characters, got {}",
            token.len()
        )));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(token)
        .map_err(|_| bad_token("the state token is not base64url without padding"))?;
    if bytes.len() < 1 + 8 + 64 {
        return Err(bad_token("the state token is truncated"));
    }
    if bytes[0] != TOKEN_VERSION && bytes[0] != TABLES_TOKEN_VERSION {
        return Err(bad_token(format!(
            "state token version {} is not supported (this service reads versions \
             {TOKEN_VERSION}, the backgammon variants, and {TABLES_TOKEN_VERSION}, the tables games)",
            bytes[0]
        )));
    }
    // A token this referee (or a replica with its master secret) wrote
    // ends with the signed flag and the MAC of all bytes before it,
    // checked in a few thousand instructions; the signature, when there
    // is one, is for others to verify. A token without the MAC (written
    // before it existed) is the body and its signature, verified.
    let (maced, mac) = bytes.split_at(bytes.len().saturating_sub(TOKEN_MAC_BYTES));
    let legacy = !(maced.len() > 1 + 8 && keys.token_mac_matches(maced, mac));
    let (body, signature) = if legacy {
        bytes.split_at(bytes.len() - 64)
    } else {
        match maced.split_last() {
            Some((0, body)) => (body, &[][..]),
            Some((1, signed)) if signed.len() >= 1 + 8 + 64 => signed.split_at(signed.len() - 64),
            _ => return Err(bad_token("the state token's signature flag is invalid")),
        }
    };
    let key_id: String = body[1..9].iter().map(|b| format!("{b:02x}")).collect();
    let key = keys
        .published()
        .iter()
        .find(|k| k.key_id == key_id)
        .ok_or_else(|| {
            ApiError::invalid(
                "unknown-key",
                "state",
                format!("the state token was signed by key {key_id}, which this referee does not publish (GET /dice/keys)"),
            )
        })?;
    if legacy {
        let signature = Signature::from_slice(signature)
            .map_err(|_| bad_token("the state token's signature is malformed"))?;
        VerifyingKey::verify_strict(&key.public_key, body, &signature)
            .map_err(|_| bad_token("the state token's signature does not verify: it was changed or not signed by this referee"))?;
    }
    let mut r = Reader { bytes: &body[9..] };
    let mut chain = [0u8; 32];
    chain.copy_from_slice(r.take(32)?);
    let n = usize::from(r.u8()?);
    let match_id = r.text(n)?;
    let n = usize::from(r.u16()?);
    let client_seed = r.text(n)?;
    let clocked = r.bytes.first().is_some_and(|b| b & CLOCK_BIT != 0);
    let (mut state, rest) =
        GameState::read_fields(bytes[0], r.bytes, client_seed).map_err(bad_token)?;
    r.bytes = rest;
    let clock = clocked.then(|| Clock::decode(&mut r)).transpose()?;
    if clock.as_ref().is_some_and(|c| c.expired.is_some()) && state.phase() != Phase::MatchOver {
        return Err(bad_token(
            "the state token's clock ran out in a match that is not over",
        ));
    }
    state.set_resignations(decode_resignations(&mut r)?);
    Ok(Token {
        state,
        match_id,
        chain,
        clock,
        bytes: body.to_vec(),
    })
}

// --- operations ---

fn start_chain(match_id: &str, client_seed: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"bgref-game-v1\n");
    h.update(match_id.as_bytes());
    h.update(b"\n");
    h.update(client_seed.as_bytes());
    h.finalize().into()
}

fn next_chain(previous: &[u8], player: Player, act: &Act, event: &Happened) -> [u8; 32] {
    // `\n{player}:{action}`, then `:{play}` or `:{level}`, written
    // without the formatting machinery (a replay hashes one per action).
    let mut h = Sha256::new();
    h.update(previous);
    h.update(b"\n");
    h.update(player.as_str().as_bytes());
    h.update(b":");
    let action = match act {
        Act::Rules(action) => action,
        Act::ClaimTime => {
            h.update(b"claim_time");
            return h.finalize().into();
        }
    };
    h.update(action.name().as_bytes());
    let moved: Option<&Play> = match event {
        Happened::Rules(Event::Moved { play, .. }) => Some(play),
        _ => None,
    };
    match (action, moved) {
        (Action::Move(_), Some(play)) => {
            let mut room = [0u8; bgref_core::notation::move_text::NOTATION_ROOM];
            let len = play.notation_into(&mut room);
            h.update(b":");
            h.update(&room[..len]);
        }
        (Action::Resign(level), _) => {
            h.update(b":");
            h.update(level.as_str().as_bytes());
        }
        _ => {}
    }
    h.finalize().into()
}

/// The game fields of `state`'s position strings (backgammon board
/// only): its cube, the dice of the move due (or `D`, `B`, `R` while a
/// double, beaver or raccoon waits), the score before this game, the
/// Crawford flag, the money rules (Jacoby, beavers), the match length and
/// the maximum cube (a tables game: a centred 1-cube that cannot be
/// turned, maximum 1); and its gnubg Match ID (once a game is over, the
/// one gnubg writes then: the score after it).
fn in_game(state: &GameState, position: &Position) -> InGame {
    let match_state = state.match_state();
    let MatchState {
        length,
        score,
        crawford,
    } = match_state;
    let cube = state.cube();
    let rules = state.cube_rules();
    let rolled = match state.phase() {
        Phase::Move => state.dice(),
        _ => None,
    };
    let dice = match (state.phase(), rolled) {
        (_, Some(dice)) => XgidDice::Rolled(dice),
        (Phase::AnswerDouble, None) => match cube.beavers {
            0 => XgidDice::DoubleOffered,
            n if n % 2 == 1 => XgidDice::Beavered,
            _ => XgidDice::Raccooned,
        },
        _ => XgidDice::NotRolled,
    };
    let xgid = Xgid {
        setup: position.to_setup(),
        cube_value: cube.value,
        cube_owner: cube.owner,
        dice,
        score,
        crawford,
        jacoby: rules.jacoby,
        beavers: rules.beavers > 0,
        match_length: length,
        max_cube: rules.max_cube,
    };
    let match_id = match state.result() {
        Some(Score::Backgammon(score)) => {
            MatchId::game_over(&score, &cube, &match_state, &rules).ok()
        }
        Some(Score::Tables(score)) => {
            let capped = |n: u32| {
                let n = if length > 0 { n.min(length) } else { n };
                u16::try_from(n).ok().filter(|&n| n <= 0x7FFF)
            };
            let after = score.match_after.score;
            MatchId::new(&cube, &match_state, &rules, state.on_roll())
                .ok()
                .and_then(|id| {
                    Some(MatchId {
                        game_state: if score.resigned {
                            GameStatus::Resigned
                        } else {
                            GameStatus::Over
                        },
                        score: ByPlayer {
                            x: capped(after.x)?,
                            o: capped(after.o)?,
                        },
                        ..id
                    })
                })
        }
        None => MatchId::new(&cube, &match_state, &rules, state.on_roll())
            .ok()
            .map(|id| MatchId { dice: rolled, ..id }),
    };
    InGame { xgid, match_id }
}

/// The game fields after a play of the turn `game` describes: the same
/// cube, score and match, no dice, the opponent on roll.
fn after_play(game: &InGame) -> InGame {
    InGame {
        xgid: Xgid {
            dice: XgidDice::NotRolled,
            ..game.xgid.clone()
        },
        match_id: game.match_id.map(|id| MatchId {
            on_roll: !id.on_roll,
            turn: !id.on_roll,
            dice: None,
            ..id
        }),
    }
}

/// The actions `state` accepts now from the player to act (from either
/// player when nobody in particular must act), found by asking the rules:
/// each action the phase may take is tried on a copy of the state (a
/// move is listed whenever one is due, a resignation when a single one
/// would be accepted).
fn actions(state: &GameState) -> Vec<ActionKind> {
    use ActionKind as K;
    let candidates: &[ActionKind] = match state.phase() {
        Phase::OpeningRoll => &[K::Roll],
        Phase::RollOrDouble => &[K::Roll, K::Double, K::Resign],
        Phase::Move => &[K::Move, K::Resign],
        Phase::AnswerDouble => &[K::Take, K::Pass, K::Beaver, K::Raccoon],
        Phase::AnswerResignation => &[K::Accept, K::Reject],
        Phase::GameOver => &[K::NextGame],
        Phase::MatchOver => &[],
    };
    let player = state.to_act().unwrap_or_else(|| state.on_roll());
    candidates
        .iter()
        .copied()
        .filter(|kind| {
            let action = match kind {
                // Always accepted in their phases; trying a roll would
                // roll.
                K::Roll | K::Move => return true,
                K::Double => Action::Double,
                K::Take => Action::Take,
                K::Pass => Action::Pass,
                K::Beaver => Action::Beaver,
                K::Raccoon => Action::Raccoon,
                K::Resign => Action::Resign(GameResult::Single),
                K::Accept => Action::Accept,
                K::Reject => Action::Reject,
                K::NextGame => Action::NextGame,
            };
            state.act(player, &action, probe_roller()).is_ok()
        })
        .collect()
}

/// A roller for [`actions`]' tries, none of which rolls.
fn probe_roller() -> &'static Roller {
    static ROLLER: std::sync::OnceLock<Roller> = std::sync::OnceLock::new();
    ROLLER.get_or_init(|| Roller::new(&[0; 32]))
}

fn view(
    keys: &DiceKeys,
    state: GameState,
    clock: Option<Clock>,
    match_id: &str,
    chain: &[u8; 32],
) -> GameView {
    let (token, _) = encode(keys, &state, clock.as_ref(), match_id, chain);
    let actions = actions(&state);
    let position = state.position();
    let plays = match state.phase() {
        Phase::Move => state.legal_plays(),
        _ => VariantPlayList::default(),
    };
    let game = position.board().map(|board| {
        let now = in_game(&state, board);
        let next = after_play(&now);
        (now, next)
    });
    let board = GameBoard {
        position,
        plays,
        game,
    };
    GameView {
        token,
        match_id: match_id.to_owned(),
        board,
        actions,
        state,
        chain: *chain,
        clock,
        fields: Fields::ALL,
    }
}

/// Lets a caller into the game flow (`authorization` is the
/// `Authorization` header or metadata): anyone when no game token is
/// configured, else only its holder. The adapters call it before they read
/// the request.
///
/// # Errors
/// `unauthorized` (401) for a missing or wrong game token.
pub fn check_game_access(keys: &DiceKeys, authorization: Option<&str>) -> Result<(), ApiError> {
    match keys.game_access(authorization) {
        TokenAccess::Granted | TokenAccess::Disabled => Ok(()),
        TokenAccess::Denied => Err(ApiError::new(
            ErrorKind::Unauthenticated,
            "unauthorized",
            "the refereed game flow of this service needs the operator's game token: \
             `Authorization: Bearer <token>`; none or a wrong one was given (players play \
             through the game server, which holds it)",
        )),
    }
}

/// Starts a game or a match.
///
/// `now_ms` is the replica's time (Unix milliseconds): a clocked match's
/// start.
///
/// # Errors
/// Field errors of the match id, client seed, match, rules and clock.
pub fn new_game(keys: &DiceKeys, input: &NewGameInput, now_ms: u64) -> Result<Started, ApiError> {
    let (state, clock, chain) = start(input, now_ms)?;
    Ok(Started {
        game: view(keys, state, clock, &input.match_id, &chain),
        seats: seats(keys, &input.match_id, &input.client_seed),
    })
}

/// The seats of the match `match_id` with `client_seed`, as `POST /games`
/// answers them (an embedding game server may recompute them).
pub fn seats(keys: &DiceKeys, match_id: &str, client_seed: &str) -> Seats {
    let start = start_chain(match_id, client_seed);
    Seats {
        x: keys.seat(&start, Player::X),
        o: keys.seat(&start, Player::O),
    }
}

/// The player whose seat the request gives, checked against `player`
/// when the request names one too.
///
/// # Errors
/// `invalid-seat` (401) for a missing seat or one of no player of this
/// match; `not-your-seat` (403) for a seat of the other player than
/// `player`. The errors never quote the seat.
fn seated(
    keys: &DiceKeys,
    token: &Token,
    seat: Option<&str>,
    player: Option<Player>,
) -> Result<Player, ApiError> {
    let at_seat = |err: ApiError| ApiError {
        field: Some("seat".to_owned()),
        ..err
    };
    let seat = seat.filter(|s| !s.is_empty()).ok_or_else(|| {
        at_seat(ApiError::new(
            ErrorKind::Unauthenticated,
            "invalid-seat",
            "seat is required: the acting player's seat, from the `seats` of the POST /games \
             answer that started this match",
        ))
    })?;
    let start = start_chain(&token.match_id, token.state.client_seed());
    let likely = player.or(token.state.to_act()).unwrap_or(Player::X);
    let holder = keys.seat_player(&start, seat, likely).ok_or_else(|| {
        at_seat(ApiError::new(
            ErrorKind::Unauthenticated,
            "invalid-seat",
            format!(
                "the seat is not a seat of match {:?}: send the acting player's seat from the \
                 `seats` of the POST /games answer that started it",
                token.match_id
            ),
        ))
    })?;
    match player {
        Some(named) if named != holder => Err(at_seat(ApiError::new(
            ErrorKind::Forbidden,
            "not-your-seat",
            format!(
                "the seat is {holder}'s, and the request acts for {named}: each player acts \
                 with its own seat only"
            ),
        ))),
        _ => Ok(holder),
    }
}

/// A new match at `at_ms`: its first state, its clock (its first player's
/// time runs from `at_ms`), its first chain hash.
fn start(
    input: &NewGameInput,
    at_ms: u64,
) -> Result<(GameState, Option<Clock>, [u8; 32]), ApiError> {
    let state = start_state(input)?;
    let (length, score) = state.match_score();
    let clock = input
        .clock
        .map(|c| Clock::start(c, length, score, at_ms, state.to_act()))
        .transpose()?;
    Ok((
        state,
        clock,
        start_chain(&input.match_id, &input.client_seed),
    ))
}

fn start_state(input: &NewGameInput) -> Result<GameState, ApiError> {
    check_match_id(&input.match_id, "match_id")?;
    check_client_seed(&input.client_seed, "client_seed")?;
    input.labels.check()?;
    let tables_rules = super::tables::read_rules(
        input.tables_rules.as_ref(),
        if input.tavli {
            Variant::Portes
        } else {
            input.variant
        },
    )?;
    let series = match (input.tavli, input.variant) {
        (true, Variant::Standard | Variant::Portes) => TablesSeries::Tavli,
        (true, other) => {
            return Err(ApiError::invalid(
                "invalid-request",
                "variant",
                format!(
                    "a Tavli match plays portes, plakoto and fevga in rotation: leave variant out \
                     (got {})",
                    other
                ),
            ));
        }
        (false, variant) => match (variant.game(), variant.backgammon()) {
            (Some(game), _) => TablesSeries::Single(game),
            (None, Some(variant)) => {
                return Ok(GameState::Backgammon(start_backgammon(input, variant)?));
            }
            (None, None) => unreachable!("a variant is a backgammon variant or a tables game"),
        },
    };
    Ok(GameState::Tables(start_tables(
        input,
        series,
        tables_rules,
    )?))
}

/// A new game of a backgammon variant: from the start, or from a set
/// position (`position`, with `cube`; docs/referee.md, "A match from a set
/// position").
fn start_backgammon(
    input: &NewGameInput,
    variant: BackgammonVariant,
) -> Result<BackgammonGame, ApiError> {
    let set = input
        .position
        .as_ref()
        .map(|p| super::input::position(p, variant, "position"))
        .transpose()?;
    let xgid = set.as_ref().and_then(|s| s.xgid.as_ref());
    if xgid.is_some_and(|x| x.rolled_dice().is_some()) {
        return Err(ApiError::invalid(
            "invalid-position",
            "position.xgid",
            "the referee rolls every die: give the XGID without dice (its dice field 00)",
        ));
    }
    // A set position's match and cube: as given, else its XGID's; an
    // XGID that says otherwise is refused rather than half read.
    let disagree = |what: &str| {
        ApiError::invalid(
            "invalid-position",
            "position.xgid",
            format!("the XGID's {what} disagrees with {what}: give one or make them agree"),
        )
    };
    let given = input
        .match_state
        .as_ref()
        .map(super::cube::read_match)
        .transpose()?;
    let match_state = match (given, xgid.map(Xgid::match_state)) {
        (Some(given), Some(x)) if given != x => return Err(disagree("match")),
        (given, x) => given.or(x).unwrap_or(MatchState::MONEY),
    };
    if match_state.length > u32::from(u16::MAX) {
        return Err(ApiError::invalid(
            "invalid-match",
            "match.length",
            "a referee match is at most 65535 points",
        ));
    }
    match_state
        .validate()
        .map_err(|e| ApiError::invalid("invalid-match", "match", e))?;
    let rules = super::cube::read_rules_only(input.rules.as_ref())?;
    let seed = input.client_seed.clone();
    let xgid_cube = xgid.map(|x| CubeState {
        value: x.cube_value,
        owner: x.cube_owner,
        ..CubeState::START
    });
    let Some(position) = set.map(|s| s.position) else {
        if input.cube.is_some() {
            return Err(ApiError::invalid(
                "invalid-request",
                "cube",
                "cube goes with position: a match from the start begins with the cube centred",
            ));
        }
        return Ok(BackgammonGame::new(variant, rules, match_state, seed));
    };
    let given = input
        .cube
        .as_ref()
        .map(super::cube::read_cube)
        .transpose()?;
    let cube = match (given, xgid_cube) {
        (Some(given), Some(x)) if (given.value, given.owner) != (x.value, x.owner) => {
            return Err(disagree("cube"));
        }
        (given, x) => given.or(x).unwrap_or(CubeState::START),
    };
    BackgammonGame::from_position(variant, rules, match_state, seed, position, cube).map_err(
        |err| match err {
            SetUpError::WrongVariant | SetUpError::GameOver => {
                ApiError::invalid("invalid-position", "position", err)
            }
            SetUpError::PendingAnswer => ApiError::invalid("invalid-cube", "cube", err),
            SetUpError::Cube(e) => ApiError::invalid("invalid-cube", "cube", e),
        },
    )
}

/// A new tables game or Tavli match: no cube rules, no Crawford game; a
/// Tavli match needs a length.
fn start_tables(
    input: &NewGameInput,
    series: TablesSeries,
    rules: bgref_core::tables::TablesRules,
) -> Result<TablesGameState, ApiError> {
    let name = match series {
        TablesSeries::Single(game) => game.as_str(),
        TablesSeries::Tavli => "a Tavli match",
    };
    if input.cube.is_some() {
        return Err(ApiError::invalid(
            "no-cube-in-variant",
            "cube",
            format!("{name} is played without the doubling cube: leave cube out"),
        ));
    }
    if input.rules.is_some() {
        return Err(ApiError::invalid(
            "no-cube-in-variant",
            "rules",
            format!("{name} is played without the doubling cube: leave rules out"),
        ));
    }
    let m = input
        .match_state
        .as_ref()
        .map(super::cube::read_match)
        .transpose()?
        .unwrap_or(MatchState::MONEY);
    if m.crawford {
        return Err(ApiError::invalid(
            "invalid-match",
            "match.crawford",
            format!("{name} has no Crawford rule"),
        ));
    }
    if m.length > u32::from(u16::MAX) {
        return Err(ApiError::invalid(
            "invalid-match",
            "match.length",
            "a referee match is at most 65535 points",
        ));
    }
    if series == TablesSeries::Tavli && m.length == 0 {
        return Err(ApiError::invalid(
            "invalid-match",
            "match.length",
            "a Tavli match is played to a length (3, 5 or 7 are usual): give match.length",
        ));
    }
    if m.length > 0 && (m.score.x >= m.length || m.score.o >= m.length) {
        return Err(ApiError::invalid(
            "invalid-match",
            "match.score",
            format!("a score of the {}-point match is already won", m.length),
        ));
    }
    let tables_match = TablesMatch {
        score: m.score,
        ..TablesMatch::new(series, m.length)
    };
    let seed = input.client_seed.clone();
    let Some(given) = &input.position else {
        return Ok(TablesGameState::new(rules, tables_match, seed));
    };
    // A set position of the match's first game (docs/referee.md, "A match
    // from a set position"): Plakoto, Fevga and Long Nardy as their
    // operations read them, Portes and Tavla as backgammon positions.
    let game = tables_match.game();
    let board = if game.is_tables_engine() {
        bgref_core::VariantPosition::from(
            super::tables::read_position(given, game, "position")?.with_rules(rules),
        )
    } else {
        if given.xgid.is_some() {
            return Err(ApiError::invalid(
                "invalid-position",
                "position.xgid",
                format!("{game} has no cube: give the position as position_id, board or fibs"),
            ));
        }
        let read = super::input::position(given, BackgammonVariant::Standard, "position")?;
        bgref_core::VariantPosition::on_board(game.into(), rules, read.position)
            .map_err(|e| ApiError::invalid("invalid-position", "position", e))?
    };
    TablesGameState::from_position(rules, tables_match, seed, board)
        .map_err(|e| ApiError::invalid("invalid-position", "position", e))
}

/// An action as the referee takes it: one the rules decide, or a claim
/// on the clock.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Act {
    /// A game action.
    Rules(Action),
    /// `claim_time`: the opponent's reserve ran out.
    ClaimTime,
}

fn action_of(input: Option<&ActionInput>, field: &str) -> Result<Act, ApiError> {
    Ok(Act::Rules(
        match required(
            input,
            field,
            "action is required: roll, double, take, pass, beaver, raccoon, move, resign, \
             accept, reject, next_game or claim_time",
        )? {
            ActionInput::Roll => Action::Roll,
            ActionInput::Double => Action::Double,
            ActionInput::Take => Action::Take,
            ActionInput::Pass => Action::Pass,
            ActionInput::Beaver => Action::Beaver,
            ActionInput::Raccoon => Action::Raccoon,
            ActionInput::Move(play) => Action::Move(
                super::moves::play_text(play.as_ref(), "play").map_err(|e| e.within(field))?,
            ),
            ActionInput::Resign(level) => Action::Resign(
                required(
                    *level,
                    "level",
                    "resign needs its level: single, gammon or backgammon",
                )
                .map_err(|e| e.within(field))?,
            ),
            ActionInput::Accept => Action::Accept,
            ActionInput::Reject => Action::Reject,
            ActionInput::NextGame => Action::NextGame,
            ActionInput::ClaimTime => return Ok(Act::ClaimTime),
            ActionInput::Stray {
                action,
                field: stray,
            } => {
                let only = if *stray == "play" { "move" } else { "resign" };
                return Err(ApiError::invalid(
                    "invalid-request",
                    format!("{field}.{stray}"),
                    format_args!("{action} takes no {stray}: {stray} goes with {only} only"),
                ));
            }
        },
    ))
}

/// A refused action: 422 with the game's own slug.
fn refused(err: &bgref_core::GameError) -> ApiError {
    let field = match err {
        bgref_core::GameError::Illegal(_) | bgref_core::GameError::TablesIllegal(_) => {
            Some("action.play")
        }
        bgref_core::GameError::NotYourTurn { .. } => Some("player"),
        _ => Some("action"),
    };
    ApiError::illegal(err.slug(), field, err)
}

/// The state `action` leads to from `state` and what happened, as the
/// rules decide.
fn by_the_rules(
    state: &GameState,
    player: Player,
    action: &Action,
    roller: &Roller,
) -> Result<(GameState, Happened), ApiError> {
    state
        .act(player, action, roller)
        .map(|(next, event)| (next, Happened::Rules(event)))
        .map_err(|e| refused(&e))
}

/// The state and clock `act` of `player` leads to from `state` and
/// `clock` at the replica's time `now_ms`, and what happened: the rules'
/// part of a step, without its answer (no view, no signature). On a
/// clocked match an action of a player whose reserve ran out, whatever it
/// is, loses the match on time, as `claim_time` of the opponent does once
/// the deadline passed (docs/referee.md, "The clock").
fn advance(
    state: &GameState,
    clock: Option<&Clock>,
    player: Player,
    act: &Act,
    roller: &Roller,
    now_ms: u64,
) -> Result<(GameState, Option<Clock>, Happened), ApiError> {
    let Some(clock) = clock else {
        return match act {
            Act::Rules(action) => {
                by_the_rules(state, player, action, roller).map(|(next, e)| (next, None, e))
            }
            Act::ClaimTime => Err(ApiError::illegal(
                "no-clock",
                Some("action"),
                "this match has no clock: claim_time is for matches started with a clock",
            )),
        };
    };
    let at = clock.time_of(now_ms);
    let late = clock.overdue(at).filter(|&late| match act {
        Act::Rules(_) => late == player,
        Act::ClaimTime => late != player,
    });
    if let Some(late) = late {
        let mut over = state.clone();
        over.end_match();
        return Ok((
            over,
            Some(clock.expire(late, at)),
            Happened::TimeExpired(late),
        ));
    }
    match act {
        Act::Rules(action) => {
            let (next, event) = by_the_rules(state, player, action, roller)?;
            let clock = clock.after(at, next.to_act());
            Ok((next, Some(clock), event))
        }
        Act::ClaimTime => Err(claim_refused(clock, player, at)),
    }
}

/// Why `player`'s `claim_time` at `at_ms` is refused.
fn claim_refused(clock: &Clock, player: Player, at_ms: u64) -> ApiError {
    let nothing = |why: String| ApiError::illegal("nothing-to-claim", Some("action"), why);
    match (clock.running, clock.deadline_ms()) {
        (Some(runs), Some(deadline)) if runs != player => ApiError::illegal(
            "too-early",
            Some("action"),
            format!(
                "{runs}'s reserve runs out at {deadline} (Unix ms), {} ms from now: claim_time \
                 after that (the view's clock.deadline_ms)",
                deadline - at_ms
            ),
        ),
        (Some(_), _) => nothing(format!(
            "{player}'s own time runs: claim_time is the waiting player's"
        )),
        _ if clock.expired.is_some() => nothing("the match is over".to_owned()),
        _ => nothing(
            "nobody's time runs now (either player may act, or the match is over)".to_owned(),
        ),
    }
}

/// An action read and checked against its token and seat, before the
/// rules apply it ([`prepare_act`], then [`Prepared::run`]): the cheap
/// half of [`act`], which tells whether the answer may be large
/// ([`Prepared::may_be_heavy`]) before the work is done.
#[derive(Clone)]
pub struct Prepared {
    token: Token,
    player: Player,
    act: Act,
    /// The match's dice and the commitment to its seed, for a roll only
    /// (`None`: the action rolls nothing).
    roller: Option<(Roller, [u8; 32])>,
    /// Whether a roll's receipt is signed.
    sign_roll: bool,
    fields: Fields,
    /// The replica's time of the action, Unix milliseconds.
    now_ms: u64,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("match_id", &self.token.match_id)
            .field("player", &self.player)
            .field("action", &self.act)
            .finish_non_exhaustive()
    }
}

impl Prepared {
    /// Whether the answer's view may be large: the plays of a doubles
    /// roll it shows in every encoding ([`crate::offload::game_view_may_be_heavy`]).
    pub fn may_be_heavy(&self) -> bool {
        match &self.act {
            Act::Rules(action) => {
                crate::offload::game_view_may_be_heavy(&self.token.state, action, self.roller())
            }
            Act::ClaimTime => false,
        }
    }

    /// The match's dice for a roll; for any other action, which rolls
    /// nothing in either engine (both roll on `Action::Roll` alone), the
    /// roller [`actions`] tries actions with.
    fn roller(&self) -> &Roller {
        match &self.roller {
            Some((roller, _)) => roller,
            None => probe_roller(),
        }
    }

    /// Applies the action: the new state, sealed, and its view.
    ///
    /// # Errors
    /// A 422 with the game's slug when the rules refuse the action.
    pub fn run(&self, keys: &DiceKeys) -> Result<Acted, ApiError> {
        let token = &self.token;
        let (next, clock, event) = advance(
            &token.state,
            token.clock.as_ref(),
            self.player,
            &self.act,
            self.roller(),
            self.now_ms,
        )?;
        let chain = next_chain(&token.bytes, self.player, &self.act, &event);
        let receipt = |turn: u32, dice: Dice| {
            let commitment = self.roller.as_ref().map_or_else(
                || bgref_core::verify::commitment(&keys.server_seed(&token.match_id)),
                |(_, commitment)| *commitment,
            );
            roll_receipt(
                keys,
                &token.match_id,
                next.client_seed(),
                next.game(),
                turn,
                dice,
                &commitment,
                self.sign_roll,
            )
        };
        let roll = match &event {
            Happened::Rules(Event::OpeningRoll { x_die, o_die, .. })
            | Happened::Rules(Event::StarterChosen { x_die, o_die, .. }) => {
                Some(receipt(0, Dice::new(*x_die, *o_die)))
            }
            Happened::Rules(Event::Rolled { dice, .. }) => Some(receipt(next.turn(), *dice)),
            _ => None,
        };
        let ended = matches!(token.state.phase(), Phase::GameOver | Phase::MatchOver)
            || matches!(event, Happened::TimeExpired(_));
        let scored = match next.phase() {
            Phase::GameOver | Phase::MatchOver if !ended => next.result(),
            _ => None,
        };
        let mut game = view(keys, next, clock, &token.match_id, &chain);
        game.fields = self.fields;
        Ok(Acted {
            game,
            event,
            roll,
            scored,
            from: token.chain,
        })
    }
}

/// The cheap half of [`act`]: the token read and checked, the seat, the
/// action's shape. `now_ms` is the replica's time (Unix milliseconds),
/// which times a clocked match's action.
///
/// # Errors
/// The token's errors, `wrong-match`, the seat's errors, field errors.
pub fn prepare_act(keys: &DiceKeys, input: &ActInput, now_ms: u64) -> Result<Prepared, ApiError> {
    let token = decode(keys, &input.state)?;
    if let Some(expected) = &input.match_id
        && *expected != token.match_id
    {
        return Err(ApiError::invalid(
            "wrong-match",
            "match_id",
            format!(
                "the state token belongs to match {:?}, not {expected:?}",
                token.match_id
            ),
        ));
    }
    tracing::Span::current().record("match_id", token.match_id.as_str());
    let player = seated(keys, &token, input.seat.as_deref(), input.player)?;
    let act = action_of(input.action.as_ref(), "action")?;
    let fields =
        Fields::parse(input.fields.as_deref(), "fields")?.for_variant(token.state.variant())?;
    // The server seed (an HMAC of the master secret) only where dice are
    // rolled, and its commitment for the roll's receipt.
    let roller = matches!(act, Act::Rules(Action::Roll)).then(|| {
        let seed = keys.server_seed(&token.match_id);
        (Roller::new(&seed), bgref_core::verify::commitment(&seed))
    });
    Ok(Prepared {
        token,
        player,
        act,
        roller,
        sign_roll: input.sign_roll,
        fields,
        now_ms,
    })
}

/// Takes one action on a game.
///
/// # Errors
/// The token's errors, field errors, and a 422 with the game's slug when
/// the rules refuse the action (`not-your-turn`, `wrong-phase`, a cube
/// refusal, `illegal-play`, `too-many-offers`, ...).
pub fn act(keys: &DiceKeys, input: &ActInput, now_ms: u64) -> Result<Acted, ApiError> {
    prepare_act(keys, input, now_ms)?.run(keys)
}

/// Replays a transcript from its start.
///
/// # Errors
/// Field errors of the start and the actions' shapes; a refused action is
/// a verdict (`valid: false`), not an error.
pub fn verify(
    keys: &DiceKeys,
    input: &TranscriptInput,
    cancelled: &dyn Fn() -> bool,
) -> Result<Verdict, ApiError> {
    let replay = replay(keys, input, false, cancelled)?;
    let state_matches = input
        .state
        .as_ref()
        .map(|given| same_state(keys, given, &replay.last.token));
    Ok(Verdict {
        valid: replay.refused.is_none() && state_matches != Some(false),
        actions: replay.actions,
        refused: replay.refused,
        state_matches,
        game: replay.last,
    })
}

/// Whether `given` is a token of the state `replayed` is (the same body:
/// match, chain and state), whichever way it was written: a token from
/// before tokens carried a MAC is the same state with a signature instead.
fn same_state(keys: &DiceKeys, given: &str, replayed: &str) -> bool {
    given == replayed
        || matches!(
            (decode(keys, given), decode(keys, replayed)),
            (Ok(a), Ok(b)) if a.bytes == b.bytes
        )
}

/// A transcript written as a match file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The Jellyfish `.mat` text that GNU Backgammon's `import mat` reads.
    pub mat: String,
    /// Actions replayed.
    pub actions: usize,
    /// The chain hash of the state the replay reached (the ledger's check).
    pub chain: [u8; 32],
}

/// Replays a transcript and writes it as a Jellyfish `.mat` match file.
///
/// # Errors
/// Field errors; `illegal-transcript` (422) when an action is refused,
/// naming it; `not-exportable` (422) for what the format cannot say (a
/// starting cube doubled by automatic doubles).
pub fn export(
    keys: &DiceKeys,
    input: &TranscriptInput,
    cancelled: &dyn Fn() -> bool,
) -> Result<Exported, ApiError> {
    let tables = || {
        ApiError::illegal(
            "not-exportable",
            Some("start.variant"),
            "a .mat match file holds backgammon only: the tables games (portes, tavla, plakoto, \
             fevga, long-nardy, a Tavli match) cannot be exported; /games/verify replays their \
             transcripts",
        )
    };
    if input.start.tavli || input.start.variant.game().is_some() {
        return Err(tables());
    }
    if input.start.position.is_some() {
        return Err(ApiError::illegal(
            "not-exportable",
            Some("start.position"),
            "the match began from a set position, and a .mat file starts every game from the \
             starting position: /games/verify replays its transcript",
        ));
    }
    let replay = replay(keys, input, true, cancelled)?;
    if let Some((i, err)) = &replay.refused {
        return Err(ApiError::illegal(
            "illegal-transcript",
            Some(&format!("actions[{i}]")),
            format!("action {i} is refused ({}): {}", err.slug, err.detail),
        ));
    }
    let steps: Vec<(BackgammonGame, Event)> = replay
        .steps
        .iter()
        .filter_map(|(state, event)| match (state, event) {
            (GameState::Backgammon(state), Happened::Rules(event)) => {
                Some((state.clone(), event.clone()))
            }
            _ => None,
        })
        .collect();
    let GameState::Backgammon(start) = &replay.start else {
        return Err(tables());
    };
    let header = input.start.labels.check().map_err(|e| e.within("start"))?;
    let mat = write_mat_with(start, &steps, &header)
        .map_err(|e| ApiError::illegal("not-exportable", None, e))?;
    Ok(Exported {
        mat,
        actions: steps.len(),
        chain: replay.last.chain,
    })
}

/// A replayed transcript.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The first state.
    pub start: GameState,
    /// Each action's state and event, in order, when asked for (export).
    pub steps: Vec<(GameState, Happened)>,
    /// Actions replayed (before the refused one, if any).
    pub actions: usize,
    /// The first refused action, if any: the replay stops there.
    pub refused: Option<(usize, ApiError)>,
    /// The last state reached.
    pub last: GameView,
}

/// Actions replayed between two looks at `cancelled`.
const CANCEL_CHECK_EVERY: usize = 64;

/// Replays a transcript, stopping at the first refused action. Its work
/// and memory do not grow with what each state shows: a step computes
/// the next state and chain hash only (no legal plays, no signature, no
/// receipt), and only the last state gets a view and a token. The states
/// and events of the steps are kept when `keep_steps` (export needs
/// them). `cancelled` is asked every 64 actions: the
/// request's time limit or its client's departure stops the replay.
///
/// # Errors
/// Field errors of the start and of the actions' shapes; `timeout` (503)
/// when cancelled.
pub fn replay(
    keys: &DiceKeys,
    input: &TranscriptInput,
    keep_steps: bool,
    cancelled: &dyn Fn() -> bool,
) -> Result<Replay, ApiError> {
    if input.actions.len() > MAX_TRANSCRIPT_ACTIONS {
        return Err(ApiError::invalid(
            "too-many-actions",
            "actions",
            format!(
                "a transcript has at most {MAX_TRANSCRIPT_ACTIONS} actions, got {}",
                input.actions.len()
            ),
        ));
    }
    let clocked = input.start.clock.is_some();
    let started_at = times(clocked, input.started_at_ms, "started_at_ms", 0)?;
    let (start_state, start_clock, start_chain) =
        start(&input.start, started_at).map_err(|e| e.within("start"))?;
    // Every action's shape first: a malformed one is a 400 wherever it is.
    let mut last_at = started_at;
    let actions = input
        .actions
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // Field names are made only for an error: a replay reads
            // thousands of steps.
            let mut step = || -> Result<_, ApiError> {
                let player = required(s.player, "player", "player is required: x or o")?;
                let act = action_of(s.action.as_ref(), "action")?;
                last_at = times(clocked, s.at_ms, "at_ms", last_at)?;
                Ok((player, act, last_at))
            };
            step().map_err(|e| e.within(&format!("actions[{i}]")))
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let match_id = &input.start.match_id;
    let roller = Roller::new(&keys.server_seed(match_id));
    let key_id = key_id_bytes(keys.key_id());
    let mut state = start_state.clone();
    let mut clock = start_clock;
    let mut chain = start_chain;
    // The token's signed bytes, which the next chain hash covers.
    let mut body = encode_body(&state, clock.as_ref(), match_id, &chain, &key_id);
    let mut steps = Vec::new();
    let mut replayed = 0;
    let mut refused = None;
    for (i, (player, act, at)) in actions.into_iter().enumerate() {
        if i % CANCEL_CHECK_EVERY == 0 && cancelled() {
            return Err(ApiError::new(
                ErrorKind::Unavailable,
                "timeout",
                "the replay was stopped: the request's time limit passed or its client left",
            ));
        }
        match advance(&state, clock.as_ref(), player, &act, &roller, at) {
            Ok((next, next_clock, event)) => {
                chain = next_chain(&body, player, &act, &event);
                encode_body_into(
                    &mut body,
                    &next,
                    next_clock.as_ref(),
                    match_id,
                    &chain,
                    &key_id,
                );
                if keep_steps {
                    steps.push((next.clone(), event));
                }
                state = next;
                clock = next_clock;
                replayed += 1;
            }
            Err(err) => {
                refused = Some((i, err));
                break;
            }
        }
    }
    Ok(Replay {
        start: start_state,
        steps,
        actions: replayed,
        refused,
        last: view(keys, state, clock, match_id, &chain),
    })
}

/// A transcript's time at `field`: required in a clocked match (and never
/// before `previous`, the last time before it), refused in others.
fn times(clocked: bool, at_ms: Option<u64>, field: &str, previous: u64) -> Result<u64, ApiError> {
    let bad = |detail: String| ApiError::invalid("invalid-request", field, detail);
    match (clocked, at_ms) {
        (true, Some(at)) if at < previous => Err(bad(format!(
            "{at} is before the time before it ({previous}): the referee's times never go back"
        ))),
        (true, Some(at)) => Ok(at),
        (true, None) => Err(bad(format!(
            "{field} is required in a clocked match: the at_ms of the answer's clock (Unix \
             milliseconds, as the referee stamped it)"
        ))),
        (false, Some(_)) => Err(bad(format!("the match has no clock: leave {field} out"))),
        (false, None) => Ok(0),
    }
}

/// Every answer of 3-point matches played to their end through [`act`]
/// (standard, Nackgammon, Hypergammon, Portes, Plakoto): doubles now and
/// then (cube values in the encodings), every double taken, the first or
/// last play listed, each play field set in turn on the backgammon
/// board. For the tests of the answers' direct writers: `visit` gets the
/// variant and each action's answer (more than 100 of them list plays).
#[cfg(test)]
pub(crate) fn sample_acts(mut visit: impl FnMut(Variant, &Acted)) {
    let mut with_plays = 0;
    let keys = DiceKeys::from_parts(&[5u8; 32], &[9u8; 32], None).unwrap();
    let field_sets: [Option<&[&str]>; 5] = [
        None,
        Some(&["position_id"]),
        Some(&["moves", "xgid"]),
        Some(&["fibs", "pips", "board"]),
        Some(&["moves"]),
    ];
    let variants = [
        Variant::Standard,
        Variant::Nackgammon,
        Variant::Hypergammon3,
        Variant::Portes,
        Variant::Plakoto,
    ];
    for variant in variants {
        let input = NewGameInput {
            match_id: format!("sample-{variant}"),
            client_seed: "alice:bob".into(),
            variant,
            tavli: false,
            tables_rules: None,
            match_state: Some(MatchInput {
                length: 3,
                ..MatchInput::default()
            }),
            rules: None,
            labels: MatchLabels::default(),
            position: None,
            cube: None,
            clock: None,
        };
        let started = new_game(&keys, &input, 0).unwrap();
        let seats = started.seats;
        let mut game = started.game;
        let mut step = 0;
        while game.state.phase() != Phase::MatchOver {
            step += 1;
            assert!(step < 5_000, "{variant}: the match does not end");
            let player = game.state.to_act().unwrap_or(Player::X);
            let kind = game
                .actions
                .iter()
                .copied()
                .find(|&k| match k {
                    ActionKind::Double => step % 7 == 0,
                    ActionKind::Resign | ActionKind::Pass => false,
                    ActionKind::Beaver | ActionKind::Raccoon => false,
                    _ => true,
                })
                .unwrap();
            let action = match kind {
                ActionKind::Move => {
                    let plays: Vec<Play> = game.board.plays.iter().copied().collect();
                    let play = if step % 2 == 0 {
                        plays.first()
                    } else {
                        plays.last()
                    };
                    ActionInput::Move(play.map(|p| PlayInput::Notation(p.to_string())))
                }
                ActionKind::Roll => ActionInput::Roll,
                ActionKind::Double => ActionInput::Double,
                ActionKind::Take => ActionInput::Take,
                ActionKind::Accept => ActionInput::Accept,
                ActionKind::Reject => ActionInput::Reject,
                ActionKind::NextGame => ActionInput::NextGame,
                other => unreachable!("{other:?} is not chosen"),
            };
            let fields = field_sets[step % field_sets.len()]
                .filter(|_| variant.tables_engine().is_none())
                .map(|f| f.iter().map(|&s| s.to_owned()).collect());
            let seat = match player {
                Player::X => &seats.x,
                Player::O => &seats.o,
            };
            let input = ActInput {
                state: game.token.clone(),
                player: Some(player),
                action: Some(action),
                match_id: None,
                seat: Some(seat.clone()),
                fields,
                sign_roll: step % 3 == 0,
            };
            let acted =
                act(&keys, &input, 0).unwrap_or_else(|e| panic!("{variant}, step {step}: {e:?}"));
            visit(variant, &acted);
            with_plays += usize::from(acted.game.plays_shown() > 0);
            game = acted.game;
        }
    }
    assert!(with_plays > 100, "{with_plays} answers with plays");
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgref_core::{CubeOwner, Die};

    fn keys() -> DiceKeys {
        DiceKeys::from_parts(&[5u8; 32], &[9u8; 32], None).unwrap()
    }

    /// `action` by `player` on `game`, with that player's seat.
    fn act_seated(
        keys: &DiceKeys,
        seats: &Seats,
        game: &GameView,
        player: Player,
        action: ActionInput,
    ) -> Result<Acted, ApiError> {
        act_at(keys, seats, game, player, action, 0)
    }

    /// [`act_seated`] at the replica's time `now_ms`.
    fn act_at(
        keys: &DiceKeys,
        seats: &Seats,
        game: &GameView,
        player: Player,
        action: ActionInput,
        now_ms: u64,
    ) -> Result<Acted, ApiError> {
        let seat = match player {
            Player::X => &seats.x,
            Player::O => &seats.o,
        };
        act(
            keys,
            &ActInput {
                state: game.token.clone(),
                player: Some(player),
                action: Some(action),
                match_id: None,
                seat: Some(seat.clone()),
                fields: None,
                sign_roll: false,
            },
            now_ms,
        )
    }

    #[test]
    fn the_game_token_closes_the_game_flow() {
        const TOKEN: &str = "game-token-0123456789";
        // Open without a token: any caller, with or without a header.
        for auth in [None, Some("Bearer anything-at-all-here")] {
            assert!(check_game_access(&keys(), auth).is_ok(), "{auth:?}");
        }
        let closed = keys().with_game_token(TOKEN);
        let bearer = format!("Bearer {TOKEN}");
        assert!(check_game_access(&closed, Some(&bearer)).is_ok());
        for auth in [None, Some("Bearer nope"), Some(TOKEN), Some("Basic x")] {
            let err = check_game_access(&closed, auth).unwrap_err();
            assert_eq!(
                (err.kind, err.slug),
                (ErrorKind::Unauthenticated, "unauthorized"),
                "{auth:?}"
            );
            assert!(!err.detail.contains(TOKEN), "{}", err.detail);
        }
        // The token changes nothing else: the same game starts either way.
        let open = new_game(&keys(), &start(Variant::Standard, false), 0);
        let gated = new_game(&closed, &start(Variant::Standard, false), 0);
        assert_eq!(open.unwrap().game.token, gated.unwrap().game.token);
    }

    fn start(variant: Variant, tavli: bool) -> NewGameInput {
        NewGameInput {
            match_id: "unit".into(),
            client_seed: "s".into(),
            variant,
            tavli,
            match_state: Some(MatchInput {
                length: 3,
                ..MatchInput::default()
            }),
            rules: None,
            tables_rules: None,
            labels: MatchLabels::default(),
            position: None,
            cube: None,
            clock: None,
        }
    }

    /// Plays the first legal play each turn through `act` (tokens decoded
    /// each time) and checks that the transcript replays to the same token
    /// at every step.
    fn play_and_replay(input: &NewGameInput, max: usize) {
        let keys = keys();
        let started = new_game(&keys, input, 0).unwrap();
        let seats = started.seats;
        let mut game = started.game;
        let mut steps = Vec::new();
        let mut tokens = Vec::new();
        for _ in 0..max {
            let Some(action) = bot_action(&game) else {
                break;
            };
            let player = game.state.to_act().unwrap_or(Player::X);
            let acted = act_seated(&keys, &seats, &game, player, action.clone()).unwrap();
            steps.push(StepInput {
                player: Some(player),
                action: Some(action),
                at_ms: None,
            });
            game = acted.game;
            tokens.push(game.token.clone());
        }
        // Every prefix of the transcript replays to the token played live
        // after it (a step keeps no token: the last state signs one).
        for n in (1..=steps.len()).filter(|n| n % 7 == 0 || *n == steps.len()) {
            let replayed = replay(
                &keys,
                &TranscriptInput {
                    start: input.clone(),
                    actions: steps[..n].to_vec(),
                    state: None,
                    started_at_ms: None,
                },
                true,
                &|| false,
            )
            .unwrap();
            assert!(replayed.refused.is_none());
            assert_eq!((replayed.actions, replayed.steps.len()), (n, n));
            assert_eq!(replayed.last.token, tokens[n - 1], "after {n} actions");
        }
        // A cancelled replay stops with `timeout`.
        let err = replay(
            &keys,
            &TranscriptInput {
                start: input.clone(),
                actions: steps,
                state: None,
                started_at_ms: None,
            },
            false,
            &|| true,
        )
        .unwrap_err();
        assert_eq!(err.slug, "timeout");
    }

    /// A 3-point match from a set position (`NewGameInput::position`):
    /// an XGID's cube and match are read, the token marks the match set
    /// up (and a match from the start does not), its transcript replays,
    /// and the export refuses it; Portes and Plakoto from set positions
    /// too.
    #[test]
    fn a_match_from_a_set_position_replays_and_is_marked_set_up() {
        // x (on roll) has two checkers on its 1 and 2 points, o three on
        // its 6 point; o owns the cube at 2; the score is 0-1 of 3.
        let xgid = "XGID=-AA----------------c------:1:-1:1:00:0:1:0:3:10";
        let set = NewGameInput {
            position: Some(PositionInput {
                xgid: Some(xgid.into()),
                ..PositionInput::default()
            }),
            match_state: None,
            ..start(Variant::Standard, false)
        };
        let keys = keys();
        let game = new_game(&keys, &set, 0).unwrap().game;
        let GameState::Backgammon(state) = &game.state else {
            panic!("a backgammon game")
        };
        assert!(state.set_up);
        assert_eq!(state.phase, Phase::RollOrDouble);
        assert_eq!(state.position.turn(), Player::X);
        assert_eq!(
            (state.cube.value.get(), state.cube.owner),
            (2, CubeOwner::Player(Player::O))
        );
        assert_eq!(state.match_state.length, 3);
        assert_eq!(state.match_state.score, ByPlayer { x: 0, o: 1 });
        let token = decode(&keys, &game.token).unwrap();
        assert_eq!(token.state, game.state, "the set-up mark reads back");
        let plain = new_game(&keys, &start(Variant::Standard, false), 0)
            .unwrap()
            .game;
        assert!(!plain.state.set_up());
        assert_eq!(plain.token.as_bytes()[..60], game.token.as_bytes()[..60]);
        play_and_replay(&set, 200);

        let transcript = TranscriptInput {
            start: set.clone(),
            actions: Vec::new(),
            state: None,
            started_at_ms: None,
        };
        let err = export(&keys, &transcript, &|| false).unwrap_err();
        assert_eq!(
            (err.slug, err.field.as_deref()),
            ("not-exportable", Some("start.position"))
        );
        // Refused: an XGID with dice, or whose match or cube disagree with
        // those given; a cube without a position; a tables game.
        let refused = |input: NewGameInput| {
            let err = new_game(&keys, &input, 0).unwrap_err();
            (err.slug, err.field.unwrap_or_default())
        };
        let with = |xgid: &str| NewGameInput {
            position: Some(PositionInput {
                xgid: Some(xgid.into()),
                ..PositionInput::default()
            }),
            ..set.clone()
        };
        assert_eq!(
            refused(with("XGID=-AA----------------c------:1:-1:1:31:0:1:0:3:10")),
            ("invalid-position", "position.xgid".into())
        );
        let five = NewGameInput {
            match_state: Some(MatchInput {
                length: 5,
                ..MatchInput::default()
            }),
            ..set.clone()
        };
        assert_eq!(refused(five), ("invalid-position", "position.xgid".into()));
        let cube = NewGameInput {
            cube: Some(CubeInput::default()),
            ..set.clone()
        };
        assert_eq!(refused(cube), ("invalid-position", "position.xgid".into()));
        let cube_alone = NewGameInput {
            cube: Some(CubeInput::default()),
            ..start(Variant::Standard, false)
        };
        assert_eq!(refused(cube_alone), ("invalid-request", "cube".into()));
        let tables = NewGameInput {
            position: set.position.clone(),
            ..start(Variant::Portes, false)
        };
        assert_eq!(
            refused(tables),
            ("invalid-position", "position.xgid".into())
        );

        // The tables games: Portes by its Position ID, Plakoto by its board
        // (x, on roll, two checkers left; o fourteen on its 10 point).
        for (variant, position) in [
            (
                Variant::Portes,
                PositionInput {
                    position_id: Some("xGfwATDgc/ABMA".into()),
                    ..PositionInput::default()
                },
            ),
            (
                Variant::Plakoto,
                PositionInput {
                    board: Some(super::super::input::BoardInput {
                        points: (1..=24)
                            .map(|p| match p {
                                1 | 2 => 1,
                                15 => -14,
                                _ => 0,
                            })
                            .collect(),
                        bar: ByPlayer { x: 0, o: 0 },
                        off: Some(ByPlayer { x: 13, o: 1 }),
                        turn: Some(Player::X),
                        pins: None,
                    }),
                    ..PositionInput::default()
                },
            ),
        ] {
            let input = NewGameInput {
                position: Some(position),
                ..start(variant, false)
            };
            let game = new_game(&keys, &input, 0).unwrap().game;
            assert!(game.state.set_up(), "{variant}");
            assert_eq!(game.state.phase(), Phase::RollOrDouble, "{variant}");
            assert_eq!(decode(&keys, &game.token).unwrap().state, game.state);
            play_and_replay(&input, 200);
        }
    }

    #[test]
    fn a_field_the_action_does_not_take_is_refused_by_name() {
        let play = || Some(PlayInput::Moves(vec![(26, 2)]));
        let cases = [
            (
                ActionInput::Roll.with_fields(play(), None),
                "actions[0].action.play",
            ),
            (
                ActionInput::Roll.with_fields(None, Some(GameResult::Single)),
                "actions[0].action.level",
            ),
            (
                ActionInput::Move(None).with_fields(play(), Some(GameResult::Gammon)),
                "actions[0].action.level",
            ),
            (
                ActionInput::Resign(None).with_fields(play(), Some(GameResult::Gammon)),
                "actions[0].action.play",
            ),
        ];
        for (action, field) in cases {
            let transcript = TranscriptInput {
                start: start(Variant::Standard, false),
                actions: vec![StepInput {
                    player: Some(Player::O),
                    action: Some(action.clone()),
                    at_ms: None,
                }],
                state: None,
                started_at_ms: None,
            };
            let err = export(&keys(), &transcript, &|| false).unwrap_err();
            assert_eq!(err.slug, "invalid-request", "{action:?}");
            assert_eq!(err.field.as_deref(), Some(field), "{action:?}");
        }
        // The fields an action does take pass through.
        assert_eq!(
            ActionInput::Move(None).with_fields(play(), None),
            ActionInput::Move(play())
        );
        assert_eq!(
            ActionInput::Resign(None).with_fields(None, Some(GameResult::Gammon)),
            ActionInput::Resign(Some(GameResult::Gammon))
        );
    }

    #[test]
    fn transcripts_replay_to_the_same_tokens() {
        play_and_replay(&start(Variant::Standard, false), 40);
        play_and_replay(&start(Variant::Portes, false), 40);
        play_and_replay(&start(Variant::Plakoto, false), 40);
        play_and_replay(&start(Variant::Standard, true), 200);
    }

    /// Tokens end with a flag and a MAC, checked instead of a signature;
    /// only a finished game's token is signed (for others to verify). A
    /// token written before the MAC existed (the body and its signature)
    /// still reads and compares equal in a verification; a changed byte
    /// anywhere is refused.
    #[test]
    fn tokens_end_with_a_mac_and_tokens_without_one_still_read() {
        let keys = keys();
        let split = |token: &str| {
            let bytes = URL_SAFE_NO_PAD.decode(token).unwrap();
            let (maced, mac) = bytes.split_at(bytes.len() - TOKEN_MAC_BYTES);
            assert_eq!(mac, keys.token_mac(maced));
            let (&flag, rest) = maced.split_last().unwrap();
            (bytes.clone(), flag, rest.to_vec())
        };
        for variant in [Variant::Standard, Variant::Plakoto] {
            let input = start(variant, false);
            let started = new_game(&keys, &input, 0).unwrap();
            let seats = started.seats;
            let token = started.game.token.clone();
            let (bytes, flag, body) = split(&token);
            assert_eq!(flag, 0, "a game under way: no signature");
            // The token as written before the MAC: read, and acted on.
            let mut old = body.clone();
            old.extend_from_slice(&keys.sign(&body).to_bytes());
            let legacy = URL_SAFE_NO_PAD.encode(&old);
            let decoded = decode(&keys, &legacy).unwrap();
            assert_eq!(decoded.bytes, body);
            assert_eq!(decoded.state, decode(&keys, &token).unwrap().state);
            let rolled = act_seated(
                &keys,
                &seats,
                &decoded_view(&legacy),
                Player::X,
                ActionInput::Roll,
            )
            .unwrap()
            .game;
            assert_eq!(split(&rolled.token).1, 0);
            // A verification of no actions matches either form.
            for given in [&token, &legacy] {
                let verdict = verify(
                    &keys,
                    &TranscriptInput {
                        start: input.clone(),
                        actions: Vec::new(),
                        state: Some(given.clone()),
                        started_at_ms: None,
                    },
                    &|| false,
                )
                .unwrap();
                assert_eq!(verdict.state_matches, Some(true));
            }
            // A finished game's token is signed, by the key of /dice/keys.
            let p = rolled.state.to_act().unwrap();
            let offered = act_seated(
                &keys,
                &seats,
                &rolled,
                p,
                ActionInput::Resign(Some(GameResult::Single)),
            );
            let over = act_seated(
                &keys,
                &seats,
                &offered.unwrap().game,
                !p,
                ActionInput::Accept,
            )
            .unwrap()
            .game;
            assert!(matches!(
                over.state.phase(),
                Phase::GameOver | Phase::MatchOver
            ));
            let (over_bytes, flag, signed) = split(&over.token);
            assert_eq!(flag, 1);
            let (over_body, signature) = signed.split_at(signed.len() - 64);
            keys.published()[0]
                .public_key
                .verify_strict(over_body, &Signature::from_slice(signature).unwrap())
                .unwrap();
            assert_eq!(decode(&keys, &over.token).unwrap().bytes, over_body);
            // Any changed byte is refused: the body's, the signature's,
            // the flag's, the MAC's.
            for (bytes, at) in [
                (
                    &bytes,
                    vec![0, 20, body.len() - 1, body.len(), bytes.len() - 1],
                ),
                (
                    &over_bytes,
                    vec![12, over_body.len() + 5, signed.len(), over_bytes.len() - 2],
                ),
            ] {
                for i in at {
                    let mut changed = bytes.clone();
                    changed[i] ^= 0x01;
                    let err = decode(&keys, &URL_SAFE_NO_PAD.encode(&changed)).unwrap_err();
                    assert_eq!(err.slug, "invalid-state-token", "byte {i}: {}", err.detail);
                }
            }
            // A referee with another master secret (whose dice differ)
            // refuses it, though the signing key is the same.
            let other = DiceKeys::from_parts(&[6u8; 32], &[9u8; 32], None).unwrap();
            for token in [&token, &over.token] {
                assert_eq!(
                    decode(&other, token).unwrap_err().slug,
                    "invalid-state-token"
                );
            }
        }
    }

    /// The view of a token, as an app holding it would act on it.
    fn decoded_view(token: &str) -> GameView {
        let keys = keys();
        let t = decode(&keys, token).unwrap();
        let mut game = view(&keys, t.state, t.clock, &t.match_id, &t.chain);
        game.token = token.to_owned();
        game
    }

    /// The chain hash is SHA-256 of the previous body and the action's
    /// text (docs/referee.md), `\n{player}:{action}` then `:{play}` or
    /// `:{level}`: written here with `format!` as the oracle.
    #[test]
    fn the_chain_hash_covers_the_body_and_the_actions_text() {
        let start = Position::start(BackgammonVariant::Standard, Player::O);
        let play = start.legal_plays(Dice::new(Die::new(6), Die::new(4)))[3];
        let text: bgref_core::notation::move_text::MoveText = play.to_string().parse().unwrap();
        let moved = Happened::Rules(Event::Moved {
            player: Player::O,
            play,
        });
        let cases = [
            (
                Player::O,
                Action::Move(text),
                moved.clone(),
                format!("\no:move:{play}"),
            ),
            (
                Player::X,
                Action::Roll,
                moved.clone(),
                "\nx:roll".to_owned(),
            ),
            (
                Player::X,
                Action::Resign(GameResult::Gammon),
                moved,
                "\nx:resign:gammon".to_owned(),
            ),
        ];
        for (player, action, event, suffix) in cases {
            let mut oracle = Sha256::new();
            oracle.update(b"body bytes");
            oracle.update(suffix.as_bytes());
            let expected: [u8; 32] = oracle.finalize().into();
            assert_eq!(
                next_chain(b"body bytes", player, &Act::Rules(action.clone()), &event),
                expected,
                "{suffix}"
            );
        }
    }

    /// A game allows `MAX_RESIGNATIONS` offers, live and in a replay; the
    /// count rides in the token as one optional last byte, so tokens of
    /// games without offers are what they were.
    #[test]
    fn resignation_offers_are_bounded_live_and_in_replays() {
        let keys = keys();
        for variant in [Variant::Standard, Variant::Plakoto] {
            let input = start(variant, false);
            let started = new_game(&keys, &input, 0).unwrap();
            let seats = started.seats;
            let act_as = |game: &GameView, player: Player, action: ActionInput| {
                act_seated(&keys, &seats, game, player, action)
            };
            let mut steps = vec![StepInput {
                player: Some(Player::X),
                action: Some(ActionInput::Roll),
                at_ms: None,
            }];
            let mut game = act_as(&started.game, Player::X, ActionInput::Roll)
                .unwrap()
                .game;
            let before = game.token.clone();
            let p = game.state.to_act().unwrap();
            let resign = ActionInput::Resign(Some(GameResult::Single));
            for _ in 0..bgref_core::MAX_RESIGNATIONS {
                assert!(game.actions.contains(&ActionKind::Resign));
                game = act_as(&game, p, resign.clone()).unwrap().game;
                game = act_as(&game, !p, ActionInput::Reject).unwrap().game;
                steps.push(StepInput {
                    player: Some(p),
                    action: Some(resign.clone()),
                    at_ms: None,
                });
                steps.push(StepInput {
                    player: Some(!p),
                    action: Some(ActionInput::Reject),
                    at_ms: None,
                });
            }
            // The count is the token's one extra byte, and reads back.
            let (short, long) = (
                URL_SAFE_NO_PAD.decode(&before).unwrap(),
                URL_SAFE_NO_PAD.decode(&game.token).unwrap(),
            );
            assert_eq!(long.len(), short.len() + 1);
            assert_eq!(
                decode(&keys, &game.token).unwrap().state.resignations(),
                bgref_core::MAX_RESIGNATIONS
            );
            // The next offer is refused live, and resign is no longer
            // listed.
            assert!(!game.actions.contains(&ActionKind::Resign));
            let err = act_as(&game, p, resign.clone()).unwrap_err();
            assert_eq!(
                (err.kind, err.slug, err.field.as_deref()),
                (ErrorKind::IllegalMove, "too-many-offers", Some("action"))
            );
            // A replay stops there, naming the action.
            steps.push(StepInput {
                player: Some(p),
                action: Some(resign.clone()),
                at_ms: None,
            });
            let transcript = TranscriptInput {
                start: input.clone(),
                actions: steps.clone(),
                state: None,
                started_at_ms: None,
            };
            let verdict = verify(&keys, &transcript, &|| false).unwrap();
            assert!(!verdict.valid);
            let (index, refusal) = verdict.refused.unwrap();
            assert_eq!((index, refusal.slug), (steps.len() - 1, "too-many-offers"));
            assert_eq!(verdict.game.token, game.token);
            if variant.backgammon().is_some() {
                let err = export(&keys, &transcript, &|| false).unwrap_err();
                assert_eq!(err.slug, "illegal-transcript");
                assert!(err.detail.contains("too-many-offers"), "{}", err.detail);
            }
        }
    }

    /// A token whose count byte is 0 or past the limit, or that has two
    /// bytes after its fields, is refused even when signed.
    #[test]
    fn a_resignation_count_out_of_range_is_refused() {
        let keys = keys();
        let started = new_game(&keys, &start(Variant::Standard, false), 0).unwrap();
        let token = decode(&keys, &started.game.token).unwrap();
        let sign = |extra: &[u8]| {
            let mut body = token.bytes.clone();
            body.extend_from_slice(extra);
            let signature = keys.sign(&body);
            body.extend_from_slice(&signature.to_bytes());
            URL_SAFE_NO_PAD.encode(&body)
        };
        assert_eq!(decode(&keys, &sign(&[3])).unwrap().state.resignations(), 3);
        for extra in [&[0][..], &[bgref_core::MAX_RESIGNATIONS + 1], &[1, 1]] {
            let err = decode(&keys, &sign(extra)).unwrap_err();
            assert_eq!(err.slug, "invalid-state-token", "{extra:?}");
        }
    }

    /// A double, a beaver, a raccoon and a drop are four kinds of event,
    /// each naming who acted.
    #[test]
    fn beaver_raccoon_and_drop_are_events_of_their_own() {
        let keys = keys();
        let mut input = start(Variant::Standard, false);
        input.match_state = None;
        input.rules = Some(RulesInput {
            beavers: Some(2),
            ..RulesInput::default()
        });
        let started = new_game(&keys, &input, 0).unwrap();
        let seats = started.seats;
        let mut game = started.game;
        let act_as = |game: &GameView, player: Player, action: ActionInput| {
            act_seated(&keys, &seats, game, player, action).unwrap()
        };
        let opening = act_as(&game, Player::X, ActionInput::Roll);
        assert_eq!(opening.event.fields().kind, EventKind::OpeningRoll);
        game = opening.game;
        // The starter moves; the other player is then on roll and doubles.
        let mover = game.state.to_act().unwrap();
        assert!(game.board.on_board().is_some(), "a backgammon board");
        let play = ActionInput::Move(Some(super::super::moves::PlayInput::Notation(
            game.board.plays.get(0).unwrap().to_string(),
        )));
        game = act_as(&game, mover, play).game;
        let doubler = !mover;
        let expect = |game: &mut GameView, player, action, kind| {
            let acted = act_as(game, player, action);
            let fields = acted.event.fields();
            assert_eq!((fields.kind, fields.player), (kind, Some(player)));
            *game = acted.game.clone();
            acted
        };
        expect(&mut game, doubler, ActionInput::Double, EventKind::Doubled);
        expect(&mut game, mover, ActionInput::Beaver, EventKind::Beavered);
        expect(
            &mut game,
            doubler,
            ActionInput::Raccoon,
            EventKind::Raccooned,
        );
        let dropped = expect(&mut game, mover, ActionInput::Pass, EventKind::Dropped);
        let Some(Score::Backgammon(score)) = dropped.scored else {
            panic!("the drop scores the game")
        };
        // The raccoon passed: the cube it was offered on (4) is lost.
        assert_eq!((score.winner, score.points), (doubler, 4));
    }

    /// The first legal action of a bot on `game`: roll, the first play,
    /// the next game (`None`: the match is over or an answer is due).
    fn bot_action(game: &GameView) -> Option<ActionInput> {
        Some(match game.state.phase() {
            Phase::OpeningRoll | Phase::RollOrDouble => ActionInput::Roll,
            Phase::GameOver => ActionInput::NextGame,
            Phase::Move => {
                let play = *game.board.plays.get(0)?;
                ActionInput::Move(Some(super::super::moves::PlayInput::Notation(
                    play.to_string(),
                )))
            }
            _ => return None,
        })
    }

    /// A clocked match: reserves spent past the delay, the same period
    /// across a roll and its move, the transcript's times replaying to the
    /// same tokens; an action past the deadline loses the match on time,
    /// `claim_time` is refused before the deadline and to the player whose
    /// time runs, and wins after it; transcripts' times are checked.
    #[test]
    fn a_clocked_match_is_timed_and_lost_on_time() {
        const T0: u64 = 1_800_000_000_000;
        let keys = keys();
        let input = NewGameInput {
            clock: Some(
                ClockTime::Given {
                    reserve_ms: 60_000,
                    delay_ms: 10_000,
                }
                .into(),
            ),
            ..start(Variant::Standard, false)
        };
        let started = new_game(&keys, &input, T0).unwrap();
        let seats = started.seats;
        let mut game = started.game;
        let clock = game.clock.unwrap();
        // The opening roll: nobody's time runs yet.
        assert_eq!(
            (clock.running, clock.at_ms, clock.deadline_ms()),
            (None, T0, None)
        );
        let mut steps = Vec::new();
        let mut now = T0;
        // Twenty actions, each 4 s after the last: within every delay.
        for _ in 0..20 {
            let action = bot_action(&game).unwrap();
            let player = game.state.to_act().unwrap_or(Player::X);
            now += 4_000;
            let before = game.clock.unwrap();
            game = act_at(&keys, &seats, &game, player, action.clone(), now)
                .unwrap()
                .game;
            let after = game.clock.unwrap();
            assert_eq!(after.at_ms, now);
            assert_eq!(after.reserve_ms, before.reserve_ms, "within the delay");
            if after.running.is_some() && after.running == before.running {
                assert_eq!(after.since_ms, before.since_ms, "one period");
            }
            steps.push(StepInput {
                player: Some(player),
                action: Some(action),
                at_ms: Some(now),
            });
        }
        let transcript = |steps: &[StepInput], started_at_ms| TranscriptInput {
            start: input.clone(),
            actions: steps.to_vec(),
            state: None,
            started_at_ms,
        };
        let replayed = replay(&keys, &transcript(&steps, Some(T0)), false, &|| false).unwrap();
        assert_eq!(replayed.last.token, game.token);
        // A period past its delay: 25 s spent, 15 off the reserve.
        let runs = game.clock.unwrap().running.unwrap();
        let action = bot_action(&game).unwrap();
        let mut slow = game.clone();
        let mut t = now;
        while slow.clock.unwrap().running == Some(runs) {
            t += 25_000;
            slow = act_at(&keys, &seats, &slow, runs, bot_action(&slow).unwrap(), t)
                .unwrap()
                .game;
        }
        assert!(slow.clock.unwrap().reserve_ms[runs] < 60_000);
        // claim_time: too early, and never by the player whose time runs.
        let deadline = game.clock.unwrap().deadline_ms().unwrap();
        let claim = |player, at| act_at(&keys, &seats, &game, player, ActionInput::ClaimTime, at);
        assert_eq!(claim(!runs, deadline).unwrap_err().slug, "too-early");
        assert_eq!(
            claim(runs, deadline + 1).unwrap_err().slug,
            "nothing-to-claim"
        );
        // After the deadline: the waiting player's claim wins the match,
        // as does the late player's own action, whatever it is.
        for (player, action) in [(!runs, ActionInput::ClaimTime), (runs, action)] {
            let acted = act_at(&keys, &seats, &game, player, action.clone(), deadline + 1).unwrap();
            assert_eq!(acted.event, Happened::TimeExpired(runs));
            assert_eq!(acted.game.state.phase(), Phase::MatchOver);
            assert!(acted.game.actions.is_empty());
            let c = acted.game.clock.unwrap();
            assert_eq!(
                (c.expired, c.running, c.reserve_ms[runs]),
                (Some(runs), None, 0)
            );
            // The token reads back, and nothing more is taken.
            let over = &acted.game;
            assert_eq!(decode(&keys, &over.token).unwrap().clock, Some(c));
            let err = act_at(
                &keys,
                &seats,
                over,
                !runs,
                ActionInput::ClaimTime,
                deadline + 2,
            )
            .unwrap_err();
            assert_eq!(err.slug, "nothing-to-claim");
            // The transcript with the late step replays to the same token.
            let mut late = steps.clone();
            late.push(StepInput {
                player: Some(player),
                action: Some(action),
                at_ms: Some(deadline + 1),
            });
            let replayed = replay(&keys, &transcript(&late, Some(T0)), false, &|| false).unwrap();
            assert_eq!(replayed.last.token, over.token);
        }
        // A transcript's times: required, never going back, refused
        // without a clock.
        let err = replay(&keys, &transcript(&steps, None), false, &|| false).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("started_at_ms"));
        let mut back = steps.clone();
        back[3].at_ms = Some(T0 + 1);
        let err = replay(&keys, &transcript(&back, Some(T0)), false, &|| false).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("actions[3].at_ms"));
        back[3].at_ms = None;
        let err = replay(&keys, &transcript(&back, Some(T0)), false, &|| false).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("actions[3].at_ms"));
        let untimed = TranscriptInput {
            start: start(Variant::Standard, false),
            ..transcript(&steps, None)
        };
        let err = replay(&keys, &untimed, false, &|| false).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("actions[0].at_ms"));
        // claim_time in a match without a clock.
        let plain = new_game(&keys, &start(Variant::Standard, false), T0).unwrap();
        let err = act_at(
            &keys,
            &plain.seats,
            &plain.game,
            Player::X,
            ActionInput::ClaimTime,
            T0,
        )
        .unwrap_err();
        assert_eq!(err.slug, "no-clock");
    }

    /// A clocked tables match: the clock rides in token version 2, and a
    /// set position's player on roll is timed from the start.
    #[test]
    fn a_clocked_tables_match_from_a_set_position_runs_from_the_start() {
        const T0: u64 = 1_800_000_000_000;
        let keys = keys();
        let input = NewGameInput {
            clock: Some(ClockPreset::Us2013.into()),
            ..start(Variant::Plakoto, false)
        };
        let started = new_game(&keys, &input, T0).unwrap();
        let clock = started.game.clock.unwrap();
        // 3 points: 6 minutes each, 12 s delay; nobody's time at the
        // opening roll.
        assert_eq!(
            (clock.reserve_ms.x, clock.delay_ms, clock.running),
            (360_000, 12_000, None)
        );
        assert_eq!(
            decode(&keys, &started.game.token).unwrap().clock,
            Some(clock)
        );
        let set = NewGameInput {
            position: Some(PositionInput {
                position_id: Some("4HPwATDgc/ABMA".into()),
                ..PositionInput::default()
            }),
            ..start(Variant::Portes, false)
        };
        let set = NewGameInput {
            clock: input.clock,
            ..set
        };
        let game = new_game(&keys, &set, T0).unwrap().game;
        let clock = game.clock.unwrap();
        assert_eq!(
            (clock.running, clock.since_ms),
            (Some(game.state.on_roll()), T0)
        );
        assert_eq!(clock.deadline_ms(), Some(T0 + 12_000 + 360_000));
    }
}

//! The tamper-and-cheat suite (docs/referee.md, "Who can cheat, per
//! deployment"): a player who holds state tokens tries each cheat against
//! each deployment (open, game token, ledger, both), through the real
//! binary, over HTTP and over gRPC. Each test finds the outcome itself and
//! compares it with its row of the table in docs/referee.md, so the table
//! says what the binary does.
//!
//! The ledger deployments need a Redis-protocol server
//! (`scripts/ci-ledger.sh` installs Debian's `redis-server`); without one
//! they fail under CI and are skipped elsewhere.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bgref_e2e::{Redis, Server, authorized, grpc_slug, proto_act, proto_step, wire};
use bgref_service::proto;
use serde_json::{Value, json};
use tonic::transport::Channel;

type Grpc = proto::referee_client::RefereeClient<Channel>;

const GAME_TOKEN: &str = "cheats-game-token-0001";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    Http,
    Grpc,
}

/// A deployment of the table: the server, and what a player reaches.
struct Deployment {
    name: &'static str,
    server: Server,
    grpc: Grpc,
    /// The game server's bearer token (the game-token deployments).
    holder: Option<String>,
    /// The seats of every match played, which no log line may hold.
    seats: Vec<String>,
    _redis: Option<Redis>,
}

/// The four deployments; `None` when the ledger ones cannot run here.
async fn deployments() -> Option<Vec<Deployment>> {
    let mut out = Vec::new();
    for (name, token, ledger) in [
        ("open", false, false),
        ("game token", true, false),
        ("ledger", false, true),
        ("game token + ledger", true, true),
    ] {
        let redis = if ledger {
            Some(Redis::start().await?)
        } else {
            None
        };
        let mut env = Vec::new();
        let url = redis.as_ref().map(Redis::url);
        if let Some(url) = &url {
            env.push(("BGREF_LEDGER_URL", url.as_str()));
        }
        if token {
            env.push(("BGREF_GAME_TOKEN", GAME_TOKEN));
        }
        let server = Server::start(&env).await;
        let grpc = server.grpc().await;
        out.push(Deployment {
            name,
            server,
            grpc,
            holder: token.then(|| format!("Bearer {GAME_TOKEN}")),
            seats: Vec::new(),
            _redis: redis,
        });
    }
    Some(out)
}

/// An answer as both protocols give it: the token, the seats of a new
/// match, the dice rolled or shown; or the refusal's slug.
#[derive(Debug, Clone, Default, PartialEq)]
struct Answer {
    state: String,
    seats: Option<(String, String)>,
    dice: Vec<u64>,
    view: Value,
}

type Outcome = Result<Answer, String>;

impl Deployment {
    async fn new_game(&mut self, wire: Wire, body: &Value, bearer: Option<&str>) -> Outcome {
        match wire {
            Wire::Http => {
                let (status, _, answer) = self.server.post_auth("/games", body, bearer).await;
                if status != 200 {
                    return Err(answer["type"].as_str().unwrap_or("?").to_owned());
                }
                Ok(Answer {
                    state: answer["state"].as_str().unwrap().to_owned(),
                    seats: Some((
                        answer["seats"]["x"].as_str().unwrap().to_owned(),
                        answer["seats"]["o"].as_str().unwrap().to_owned(),
                    )),
                    dice: Vec::new(),
                    view: answer["view"].clone(),
                })
            }
            Wire::Grpc => {
                let request = wire::to_message("NewGameRequest", body);
                let answer = self
                    .grpc
                    .new_game(authorized(request, bearer))
                    .await
                    .map_err(|s| grpc_slug(&s))?
                    .into_inner();
                let seats = answer.seats.unwrap();
                Ok(Answer {
                    state: answer.state,
                    seats: Some((seats.x, seats.o)),
                    ..Answer::default()
                })
            }
        }
    }

    /// `body` is a `/games/act` body with its `seat` (a string or null).
    async fn act(&mut self, wire: Wire, body: &Value, bearer: Option<&str>) -> Outcome {
        assert!(body.get("seat").is_some(), "the suite gives every seat");
        match wire {
            Wire::Http => {
                let (status, _, answer) = self.server.post_auth("/games/act", body, bearer).await;
                if status != 200 {
                    return Err(answer["type"].as_str().unwrap_or("?").to_owned());
                }
                Ok(Answer {
                    state: answer["state"].as_str().unwrap().to_owned(),
                    seats: None,
                    dice: dice(&answer["roll"]["dice"]),
                    view: answer["view"].clone(),
                })
            }
            Wire::Grpc => {
                let request = proto_act(body["state"].as_str().unwrap(), body);
                let answer = self
                    .grpc
                    .act(authorized(request, bearer))
                    .await
                    .map_err(|s| grpc_slug(&s))?
                    .into_inner();
                Ok(Answer {
                    state: answer.state,
                    seats: None,
                    dice: answer
                        .roll
                        .map(|r| r.dice.iter().map(|&d| u64::from(d)).collect())
                        .unwrap_or_default(),
                    view: Value::Null,
                })
            }
        }
    }

    /// Replays `actions` from `start`; the answer's dice are those the
    /// replay's last state shows.
    async fn verify(
        &mut self,
        wire: Wire,
        start: &Value,
        actions: &[Value],
        bearer: Option<&str>,
    ) -> Outcome {
        match wire {
            Wire::Http => {
                let body = json!({"start": start, "actions": actions});
                let (status, _, answer) =
                    self.server.post_auth("/games/verify", &body, bearer).await;
                if status != 200 {
                    return Err(answer["type"].as_str().unwrap_or("?").to_owned());
                }
                Ok(Answer {
                    state: answer["state"].as_str().unwrap_or_default().to_owned(),
                    dice: dice(&answer["view"]["dice"]),
                    ..Answer::default()
                })
            }
            Wire::Grpc => {
                let request = proto::VerifyGameRequest {
                    start: Some(wire::to_message("NewGameRequest", start)),
                    actions: actions.iter().map(proto_step).collect(),
                    state: String::new(),
                    started_at_ms: None,
                };
                let answer = self
                    .grpc
                    .verify_game(authorized(request, bearer))
                    .await
                    .map_err(|s| grpc_slug(&s))?
                    .into_inner();
                Ok(Answer {
                    state: answer.state,
                    dice: answer
                        .view
                        .map(|v| v.dice.iter().map(|&d| u64::from(d)).collect())
                        .unwrap_or_default(),
                    ..Answer::default()
                })
            }
        }
    }
}

fn dice(value: &Value) -> Vec<u64> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// A money match played by its players (through the game server in the
/// game-token deployments) to a state where `mover` may roll or double.
struct Match {
    start: Value,
    seats: (String, String),
    /// Every action so far, as a transcript gives them.
    actions: Vec<Value>,
    /// The head: `mover` is to roll or double.
    state: String,
    mover: &'static str,
    other: &'static str,
}

impl Match {
    fn seat(&self, player: &str) -> String {
        if player == "x" {
            self.seats.0.clone()
        } else {
            self.seats.1.clone()
        }
    }

    fn step(&self, state: &str, player: &str, action: &str) -> Value {
        json!({"state": state, "seat": self.seat(player), "player": player, "action": action})
    }
}

/// Starts match `id` and plays the opening roll and the opening move, over
/// HTTP (the views tell what is legal); the match then waits for the
/// other player to roll or double.
async fn played(d: &mut Deployment, id: &str) -> Match {
    let holder = d.holder.clone();
    let bearer = holder.as_deref();
    let start = json!({"match_id": id, "client_seed": "alice:bob"});
    let first = d.new_game(Wire::Http, &start, bearer).await.unwrap();
    let seats = first.seats.clone().unwrap();
    d.seats.extend([seats.0.clone(), seats.1.clone()]);
    let mut game = Match {
        start,
        seats,
        actions: Vec::new(),
        state: first.state,
        mover: "x",
        other: "o",
    };
    let opening = d
        .act(Wire::Http, &game.step(&game.state, "x", "roll"), bearer)
        .await
        .unwrap();
    game.actions.push(json!({"player": "x", "action": "roll"}));
    let starter = if opening.view["to_act"] == "x" {
        "x"
    } else {
        "o"
    };
    let play = opening.view["plays"][0]["notation"].as_str().unwrap();
    let mut step = game.step(&opening.state, starter, "move");
    step["play"] = json!(play);
    let moved = d.act(Wire::Http, &step, bearer).await.unwrap();
    game.actions
        .push(json!({"player": starter, "action": "move", "play": play}));
    assert_eq!(moved.view["phase"], "roll_or_double", "{}", moved.view);
    assert_eq!(moved.view["may_double"], true, "{}", moved.view);
    game.state = moved.state;
    game.mover = if starter == "x" { "o" } else { "x" };
    game.other = starter;
    game
}

/// The table row of `threat` in docs/referee.md: the outcome per
/// deployment, in the table's column order.
fn documented(threat: &str) -> Vec<String> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/referee.md"))
        .expect("docs/referee.md");
    let row = doc
        .lines()
        .find(|l| l.starts_with(&format!("| {threat} |")))
        .unwrap_or_else(|| panic!("docs/referee.md has no table row for {threat:?}"));
    row.split('|')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .skip(1)
        .take(4)
        .map(|c| c.split_whitespace().next().unwrap_or_default().to_owned())
        .collect()
}

/// Runs `attack` in every deployment over both protocols (each on its own
/// match), checks that both protocols give the same outcome, and compares
/// the outcomes with the table.
async fn check_row<F>(threat: &str, attack: F)
where
    F: for<'a> AsyncFn(&'a mut Deployment, Wire, &'a str) -> &'static str,
{
    let Some(mut deployments) = deployments().await else {
        return;
    };
    let mut found = Vec::new();
    for d in &mut deployments {
        let mut outcomes = Vec::new();
        for wire in [Wire::Http, Wire::Grpc] {
            let id = format!("{threat} {wire:?}");
            outcomes.push(attack(d, wire, &id).await);
        }
        assert_eq!(
            outcomes[0], outcomes[1],
            "{threat} in {}: HTTP and gRPC differ",
            d.name
        );
        found.push(outcomes[0].to_owned());
        // Whatever happened, no seat is ever logged.
        let mut logs = String::new();
        while let Ok(line) = d.server.logs.try_recv() {
            logs.push_str(&line);
        }
        assert!(
            d.seats.is_empty() || logs.contains("/games/act"),
            "the request lines are logged"
        );
        for seat in &d.seats {
            assert!(
                !logs.contains(seat.as_str()),
                "a seat is in the logs of {}",
                d.name
            );
        }
    }
    assert_eq!(
        found,
        documented(threat),
        "{threat}: the outcomes in open, game token, ledger, game token + ledger"
    );
}

/// For a refusal: `prevented`, after checking it is one of `expected`.
fn prevented(outcome: &Outcome, expected: &[&str]) -> &'static str {
    match outcome {
        Err(slug) => {
            assert!(
                expected.contains(&slug.as_str()),
                "refused with {slug}, expected {expected:?}"
            );
            "prevented"
        }
        Ok(answer) => panic!("accepted: {answer:?}"),
    }
}

#[tokio::test]
async fn act_for_the_other_player() {
    check_row("act for the other player", async |d, wire, id| {
        let game = played(d, id).await;
        // The other player, with its own seat, for the mover: refused.
        let mut step = game.step(&game.state, game.other, "roll");
        step["player"] = json!(game.mover);
        let named = d.act(wire, &step, None).await;
        // Its seat and no player: the rules say it is not its turn.
        step.as_object_mut().unwrap().remove("player");
        let unnamed = d.act(wire, &step, None).await;
        // A made-up seat, or none.
        step["seat"] = json!(URL_SAFE_NO_PAD.encode([7u8; 24]));
        let made_up = d.act(wire, &step, None).await;
        step["seat"] = Value::Null;
        let none = d.act(wire, &step, None).await;
        if d.holder.is_some() {
            for outcome in [&named, &unnamed, &made_up, &none] {
                prevented(outcome, &["unauthorized"]);
            }
        } else {
            prevented(&named, &["not-your-seat"]);
            prevented(&unnamed, &["not-your-turn"]);
            prevented(&made_up, &["invalid-seat"]);
            prevented(&none, &["invalid-seat"]);
        }
        // The one way left: the seats of a second match with the same id
        // and seed, which are this match's.
        match d.new_game(wire, &game.start, None).await {
            Ok(again) => {
                assert_eq!(again.seats.as_ref(), Some(&game.seats));
                let (x, o) = again.seats.unwrap();
                let seat = if game.mover == "x" { x } else { o };
                let mut step = game.step(&game.state, game.mover, "roll");
                step["seat"] = json!(seat);
                d.act(wire, &step, None).await.expect("acted for the mover");
                "possible"
            }
            refused => prevented(&refused, &["unauthorized", "match-exists"]),
        }
    })
    .await;
}

#[tokio::test]
async fn read_future_dice() {
    check_row("read future dice", async |d, wire, id| {
        let game = played(d, id).await;
        // The mover replays the match one roll further (verify), and
        // starts it again to play it there (a parallel match).
        let mut ahead = game.actions.clone();
        ahead.push(json!({"player": game.mover, "action": "roll"}));
        let replayed = d.verify(wire, &game.start, &ahead, None).await;
        let parallel = d.new_game(wire, &game.start, None).await;
        let seen = match (&replayed, &parallel) {
            (Ok(verdict), _) => Some(verdict.dice.clone()),
            (_, Ok(again)) => {
                // Replay the real actions on the second match, then roll.
                let (x, o) = again.seats.clone().unwrap();
                let mut last = again.clone();
                for step in &ahead {
                    let mut body = step.clone();
                    body["state"] = json!(last.state);
                    body["seat"] = json!(if step["player"] == "x" { &x } else { &o });
                    last = d.act(wire, &body, None).await.unwrap();
                }
                Some(last.dice)
            }
            _ => None,
        };
        let bearer = d.holder.clone();
        let real = d
            .act(
                wire,
                &game.step(&game.state, game.mover, "roll"),
                bearer.as_deref(),
            )
            .await
            .unwrap();
        match seen {
            Some(dice) => {
                assert_eq!(
                    dice, real.dice,
                    "the dice seen ahead are the dice that came"
                );
                "possible"
            }
            None => {
                prevented(&replayed, &["unauthorized", "stale-state"]);
                prevented(&parallel, &["unauthorized", "match-exists"])
            }
        }
    })
    .await;
}

#[tokio::test]
async fn peek_then_fork() {
    check_row("peek then fork", async |d, wire, id| {
        let game = played(d, id).await;
        let bearer = d.holder.clone();
        let roll = game.step(&game.state, game.mover, "roll");
        // The mover rolls (through the game server where there is one)...
        let rolled = d.act(wire, &roll, bearer.as_deref()).await.unwrap();
        assert_eq!(rolled.dice.len(), 2);
        // ...a retry of the same action is answered again, the same way...
        let again = d.act(wire, &roll, bearer.as_deref()).await.unwrap();
        assert_eq!((&again.state, &again.dice), (&rolled.state, &rolled.dice));
        // ...then goes back to the same token and doubles instead.
        let double = game.step(&game.state, game.mover, "double");
        let forked = d.act(wire, &double, None).await;
        match forked {
            Ok(_) => "possible",
            refused => prevented(&refused, &["unauthorized", "stale-state"]),
        }
    })
    .await;
}

#[tokio::test]
async fn replay_an_old_token() {
    check_row("replay an old token", async |d, wire, id| {
        let game = played(d, id).await;
        let bearer = d.holder.clone();
        // The match moves on two tokens: the mover rolls and moves...
        let roll = game.step(&game.state, game.mover, "roll");
        let rolled = d.act(Wire::Http, &roll, bearer.as_deref()).await.unwrap();
        let mut step = game.step(&rolled.state, game.mover, "move");
        step["play"] = rolled.view["plays"][0]["notation"].clone();
        d.act(Wire::Http, &step, bearer.as_deref()).await.unwrap();
        // ...and the old request is sent again.
        match d.act(wire, &roll, None).await {
            Ok(again) => {
                assert_eq!((&again.state, &again.dice), (&rolled.state, &rolled.dice));
                "possible"
            }
            refused => prevented(&refused, &["unauthorized", "stale-state"]),
        }
    })
    .await;
}

#[tokio::test]
async fn forge_a_token() {
    check_row("forge a token", async |d, wire, id| {
        let game = played(d, id).await;
        let bytes = URL_SAFE_NO_PAD.decode(&game.state).unwrap();
        let mut outcomes = Vec::new();
        // A byte changed anywhere (the dice, the position, the turn, the
        // signature), then the token cut short.
        for i in [0, 9, 45, bytes.len() / 2, bytes.len() - 70, bytes.len() - 1] {
            let mut changed = bytes.clone();
            changed[i] ^= 0x20;
            let step = game.step(&URL_SAFE_NO_PAD.encode(&changed), game.mover, "roll");
            outcomes.push(d.act(wire, &step, None).await);
        }
        let cut = game.step(&game.state[..game.state.len() - 8], game.mover, "roll");
        outcomes.push(d.act(wire, &cut, None).await);
        let mut last = "prevented";
        for outcome in &outcomes {
            last = prevented(
                outcome,
                &["unauthorized", "invalid-state-token", "unknown-key"],
            );
        }
        last
    })
    .await;
}

#[tokio::test]
async fn start_a_parallel_match() {
    check_row("start a parallel match", async |d, wire, id| {
        let game = played(d, id).await;
        match d.new_game(wire, &game.start, None).await {
            Ok(again) => {
                assert_eq!(again.seats.as_ref(), Some(&game.seats));
                "possible"
            }
            refused => prevented(&refused, &["unauthorized", "match-exists"]),
        }
    })
    .await;
}

#[tokio::test]
async fn fork_by_the_game_server_itself() {
    check_row("fork, by the game server itself", async |d, wire, id| {
        let Some(bearer) = d.holder.clone() else {
            return "n/a";
        };
        let game = played(d, id).await;
        let roll = game.step(&game.state, game.mover, "roll");
        d.act(wire, &roll, Some(&bearer)).await.unwrap();
        let double = game.step(&game.state, game.mover, "double");
        match d.act(wire, &double, Some(&bearer)).await {
            Ok(_) => "possible",
            refused => prevented(&refused, &["stale-state"]),
        }
    })
    .await;
}

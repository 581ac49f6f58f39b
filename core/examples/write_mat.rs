//! Writes bot-played matches as Jellyfish `.mat` files, each with a JSON
//! summary of what it contains, for `scripts/ci-gnubg-import.sh` to import
//! into GNU Backgammon and compare.
//!
//! Run with `cargo run -p bgref-core --example write_mat -- OUT_DIR`.
//!
//! For each match `NAME`, `OUT_DIR/NAME.mat` and `OUT_DIR/NAME.json`. The
//! summary gives the match length, the variant and the final score, and per
//! game the score before it, its kind (normal, Crawford, post-Crawford),
//! every roll in order (the player, the dice, the play in gnubg notation,
//! empty for a roll with no legal play, and gnubg Position IDs of the
//! position before the roll, from the roller's side, and after the play,
//! from the opponent's), the cube actions and resignations, and the result.

#[path = "support/bot.rs"]
mod bot;

use std::error::Error;
use std::path::PathBuf;

use bgref_core::notation::mat::write_mat;
use bgref_core::notation::position_id::PositionId;
use bgref_core::verify::Roller;
use bgref_core::{
    BackgammonGame, BackgammonVariant, CubeRules, Event, GameEnd, GameKind, MatchState, Player,
    Position,
};
use serde_json::{Value, json};

use bot::{Bot, Style};

fn id(position: &Position) -> String {
    PositionId::from_position(position).to_string()
}

fn score(s: bgref_core::ByPlayer<u32>) -> Value {
    json!({"x": s.x, "o": s.o})
}

/// The summary of a transcript; also what it contains, for choosing seeds.
fn summary(start: &BackgammonGame, steps: &[(BackgammonGame, Event)]) -> Value {
    let mut games = Vec::new();
    let new_game = |state: &BackgammonGame| {
        json!({
            "game": state.game,
            "score": score(state.match_state.score),
            "kind": state.match_state.game_kind().as_str(),
            "rolls": [],
            "actions": [],
            "rejected": 0,
            "result": null,
        })
    };
    let mut game = new_game(start);
    let mut prev = start;
    let mut final_score = start.match_state.score;
    for (state, event) in steps {
        let mut roll = |player: Player, dice: bgref_core::Dice, play: String| {
            let [a, b] = dice.values();
            game["rolls"].as_array_mut().unwrap().push(json!({
                "player": player.as_str(),
                "dice": [a.max(b), a.min(b)],
                "play": play,
                "before": id(&prev.position),
                "after": id(&state.position),
            }));
        };
        match event {
            Event::Rolled {
                player,
                dice,
                passed: true,
            } => roll(*player, *dice, String::new()),
            Event::Moved { player, play } => roll(*player, prev.dice.unwrap(), play.to_string()),
            Event::Doubled { by } | Event::Beavered { by } | Event::Raccooned { by } => {
                let action = match event {
                    Event::Doubled { .. } => "double",
                    Event::Beavered { .. } => "beaver",
                    _ => "raccoon",
                };
                game["actions"].as_array_mut().unwrap().push(json!({
                    "player": by.as_str(),
                    "action": action,
                    "value": state.cube.value.get() * 2,
                }));
            }
            Event::Taken { by } => {
                game["actions"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"player": by.as_str(), "action": "take"}));
            }
            Event::Rejected { .. } => {
                game["rejected"] = json!(game["rejected"].as_u64().unwrap() + 1);
            }
            Event::NewGame { .. } => {
                games.push(std::mem::replace(&mut game, new_game(state)));
            }
            _ => {}
        }
        if let Event::GameEnded(bgref_core::Score::Backgammon(s)) = event {
            let action = match s.end {
                GameEnd::Pass { winner } => json!({"player": (!winner).as_str(), "action": "drop"}),
                // The file says only the points won: a resignation counted
                // single by the Jacoby rule reads as a single one.
                GameEnd::Resign { winner, level } => json!({
                    "player": (!winner).as_str(),
                    "action": "resign",
                    "level": if s.jacoby { 1 } else { level.multiplier() },
                    "offered": level.multiplier(),
                }),
                GameEnd::BearOff { .. } => Value::Null,
            };
            if !action.is_null() {
                game["actions"].as_array_mut().unwrap().push(action);
            }
        }
        if matches!(event, Event::GameEnded(_) | Event::Moved { .. })
            && let Some(s) = &state.result
        {
            game["result"] = json!({
                "winner": s.winner.as_str(),
                "points": s.points,
                "ended_by": s.end.ended_by(),
                "result": s.result.as_str(),
                "jacoby": s.jacoby,
                // A resignation accepted after the loser rolled (the roll
                // is not in the .mat file).
                "after_roll": matches!(s.end, GameEnd::Resign { .. }) && prev.dice.is_some(),
                "final": id(&state.position),
            });
            final_score = s.match_outcome.score;
        }
        prev = state;
    }
    games.push(game);
    json!({
        "length": start.match_state.length,
        "variant": start.variant.as_str(),
        "jacoby": start.rules.jacoby,
        "beavers": start.rules.beavers,
        "final_score": score(final_score),
        "games": games,
    })
}

/// Counts in a summary: games, rolls, passes (no legal play), cube actions
/// by name, resignations, and the game kinds seen.
fn has(summary: &Value, what: &str) -> usize {
    let games = summary["games"].as_array().unwrap();
    games
        .iter()
        .map(|g| match what {
            "crawford" | "post_crawford" => usize::from(g["kind"] == what),
            "pass" => g["rolls"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["play"] == "")
                .count(),
            "bearoff" | "resign" => usize::from(g["result"]["ended_by"] == what),
            "gammon" | "backgammon" => usize::from(g["result"]["result"] == what),
            "jacoby" | "after_roll" => usize::from(g["result"][what] == true),
            "rejected" => g["rejected"].as_u64().unwrap() as usize,
            action => g["actions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["action"] == action)
                .count(),
        })
        .sum()
}

struct Spec {
    name: &'static str,
    variant: BackgammonVariant,
    rules: CubeRules,
    length: u32,
    max_games: u32,
    style: Style,
    /// What the match must contain (see [`has`]).
    needs: &'static [&'static str],
}

fn main() -> Result<(), Box<dyn Error>> {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "mat-export".into()),
    );
    std::fs::create_dir_all(&out)?;
    let resigning = Style {
        double: 100,
        take: 700,
        beaver: 0,
        resign: 8,
        accept: 600,
    };
    let beavering = Style {
        double: 200,
        take: 800,
        beaver: 500,
        resign: 4,
        accept: 600,
    };
    let specs = [
        Spec {
            name: "match5-crawford",
            variant: BackgammonVariant::Standard,
            rules: CubeRules::DEFAULT,
            length: 5,
            max_games: u32::MAX,
            style: Style::CUBE,
            needs: &[
                "double",
                "take",
                "drop",
                "crawford",
                "post_crawford",
                "pass",
            ],
        },
        Spec {
            name: "match7-resign",
            variant: BackgammonVariant::Standard,
            rules: CubeRules::DEFAULT,
            length: 7,
            max_games: u32::MAX,
            style: resigning,
            needs: &[
                "double",
                "take",
                "resign",
                "after_roll",
                "rejected",
                "bearoff",
                "crawford",
            ],
        },
        Spec {
            name: "nack3",
            variant: BackgammonVariant::Nackgammon,
            rules: CubeRules::DEFAULT,
            length: 3,
            max_games: u32::MAX,
            style: Style::CUBE,
            needs: &["double", "bearoff"],
        },
        Spec {
            name: "money-jacoby",
            variant: BackgammonVariant::Standard,
            rules: CubeRules {
                jacoby: true,
                ..CubeRules::DEFAULT
            },
            length: 0,
            max_games: 6,
            style: Style {
                double: 20,
                take: 600,
                beaver: 0,
                resign: 3,
                accept: 700,
            },
            needs: &["jacoby", "double", "resign"],
        },
        Spec {
            name: "hyper3",
            variant: BackgammonVariant::Hypergammon3,
            rules: CubeRules::DEFAULT,
            length: 3,
            max_games: u32::MAX,
            style: Style::CUBE,
            needs: &["double", "bearoff"],
        },
        Spec {
            name: "money-beaver",
            variant: BackgammonVariant::Standard,
            rules: CubeRules {
                beavers: 2,
                ..CubeRules::DEFAULT
            },
            length: 0,
            max_games: 8,
            style: beavering,
            needs: &["double", "beaver", "raccoon", "take", "bearoff"],
        },
    ];
    for spec in &specs {
        // The first seed whose match has everything the spec needs.
        let (seed, start, steps, sum) = (1u8..=255)
            .find_map(|seed| {
                let start = BackgammonGame::new(
                    spec.variant,
                    spec.rules,
                    MatchState::new_match(spec.length),
                    format!("{}-{seed}", spec.name),
                );
                let roller = Roller::new(&[seed; 32]);
                let steps =
                    Bot::new(u64::from(seed), spec.style).play(&start, &roller, spec.max_games);
                let sum = summary(&start, &steps);
                spec.needs
                    .iter()
                    .all(|n| has(&sum, n) > 0)
                    .then_some((seed, start, steps, sum))
            })
            .ok_or_else(|| format!("{}: no seed up to 255 gives {:?}", spec.name, spec.needs))?;
        let text = write_mat(&start, &steps)?;
        std::fs::write(out.join(format!("{}.mat", spec.name)), &text)?;
        std::fs::write(
            out.join(format!("{}.json", spec.name)),
            serde_json::to_string_pretty(&sum)?,
        )?;
        let kinds: Vec<&str> = sum["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| match g["kind"].as_str().unwrap() {
                k if k == GameKind::Crawford.as_str() => "C",
                k if k == GameKind::PostCrawford.as_str() => "P",
                _ => "n",
            })
            .collect();
        println!(
            "{}: seed {seed}, {} games [{}], {} rolls ({} passes), doubles {}, beavers {}, raccoons {}, takes {}, drops {}, resignations {} ({} after a roll, {} rejected), gammons {}, final {}-{}",
            spec.name,
            sum["games"].as_array().unwrap().len(),
            kinds.join(""),
            sum["games"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["rolls"].as_array().unwrap().len())
                .sum::<usize>(),
            has(&sum, "pass"),
            has(&sum, "double"),
            has(&sum, "beaver"),
            has(&sum, "raccoon"),
            has(&sum, "take"),
            has(&sum, "drop"),
            has(&sum, "resign"),
            has(&sum, "after_roll"),
            has(&sum, "rejected"),
            has(&sum, "gammon") + has(&sum, "backgammon"),
            sum["final_score"]["x"],
            sum["final_score"]["o"],
        );
    }
    Ok(())
}

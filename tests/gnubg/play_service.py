#!/usr/bin/env python3
"""Plays matches through a running bgref's refereed game flow over HTTP and
exports them with POST /games/export, for GNU Backgammon to import.

For each match NAME it writes OUT_DIR/NAME.mat (the service's own export)
and OUT_DIR/NAME.json, the summary tests/gnubg/import_mat.py compares
gnubg's reconstruction with (the same shape core/examples/write_mat.rs
writes), built only from what the service answered while the game was
played: each roll's player, dice and Position IDs before and after, the
cube actions and resignations, each game's result and the scores.

The bots are random but seeded: they pick a legal play at random, double,
take, beaver and resign now and then, so the exported files hold every
kind of record. Standard library only.

Usage: play_service.py --base-url http://HOST:PORT --out DIR [--seed OFFSET]
       (BGREF_GAME_TOKEN in the environment is sent as the bearer token)
"""
import argparse
import json
import os
import random
import sys
import urllib.error
import urllib.request

MATCHES = [
    # name, match length (0: money), rules, games to play at most, the bots'
    # seed: chosen (with the dice secret of scripts/ci-gnubg-import.sh) so
    # that the match has a Crawford and post-Crawford games and a drop, and
    # the session beavers, raccoons, drops and a resignation.
    ("svc-match5", 5, {}, 20, 8),  # with the players' names and the event (LABELS)
    ("svc-money-beaver", 0, {"beavers": 2}, 4, 18),
]

# The labels of svc-match5's start: gnubg must read them back from the export.
LABELS = {
    "players": {"x": "Alice Smith", "o": "Bob O'Neill"},
    "event": "bgref CI Open",
    "date": "2026-12-06",
    "round": "Final",
}


class Referee:
    def __init__(self, base_url, token):
        self.base_url = base_url.rstrip("/")
        self.token = token

    def post(self, path, body):
        headers = {"content-type": "application/json"}
        if self.token:
            headers["authorization"] = "Bearer " + self.token
        req = urllib.request.Request(
            self.base_url + path, data=json.dumps(body).encode(), headers=headers
        )
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return json.load(resp)
        except urllib.error.HTTPError as err:
            raise SystemExit("%s %s: %s" % (path, err.code, err.read().decode()))


def play_match(referee, rng, name, length, rules, max_games):
    start = {"match_id": name, "client_seed": "gnubg-import:%s" % name, "rules": rules}
    if length:
        start["match"] = {"length": length}
    if name == "svc-match5":
        start.update(LABELS)
    answer = referee.post("/games", start)
    token, view = answer["state"], answer["view"]
    seats = answer["seats"]
    actions = []
    summary_games = []

    def new_game(v):
        return {
            "game": v["game"],
            "score": dict(v["match"]["score"]),
            "rolls": [],
            "actions": [],
            "result": None,
            "kind": v["match"]["game_kind"],
        }

    game = new_game(view)
    games_done = 0
    offered = None
    final_score = dict(view["match"]["score"])
    for _ in range(20000):
        phase, to_act = view["phase"], view["to_act"]
        if phase == "match_over":
            break
        if phase == "game_over":
            games_done += 1
            if games_done >= max_games:
                break
            step = {"player": "x", "action": "next_game"}
        elif phase == "opening_roll":
            step = {"player": "x", "action": "roll"}
        elif phase == "roll_or_double":
            r = rng.random()
            if view["may_double"] and r < 0.04:
                step = {"player": to_act, "action": "double"}
            elif r > 0.995:
                level = rng.choice(["single", "gammon"])
                step = {"player": to_act, "action": "resign", "level": level}
            else:
                step = {"player": to_act, "action": "roll"}
        elif phase == "answer_double":
            choices = ["take"] * 4 + ["pass"]
            beavers = view["cube"]["beavers"]
            if length == 0 and beavers < 2:
                # The doubled player beavers; the doubler answers a beaver
                # with a raccoon.
                choices.append("raccoon" if beavers % 2 else "beaver")
            step = {"player": to_act, "action": rng.choice(choices)}
        elif phase == "answer_resignation":
            step = {"player": to_act, "action": rng.choice(["accept", "reject"])}
        elif phase == "move":
            play = rng.choice(view["plays"])
            step = {"player": to_act, "action": "move", "play": play["notation"]}
        else:
            raise SystemExit("%s: phase %r not handled" % (name, phase))
        before = view
        answer = referee.post("/games/act", dict(step, state=token, seat=seats[step["player"]]))
        token, view, event = answer["state"], answer["view"], answer["event"]
        actions.append(step)
        if step["action"] == "resign":
            offered = step["level"]
        kind = event["kind"]
        if kind == "moved" or (kind == "rolled" and event.get("passed")):
            dice = before["dice"] if kind == "moved" else event["dice"]
            game["rolls"].append({
                "player": event["player"],
                "dice": sorted(dice, reverse=True),
                "play": event.get("play", ""),
                "before": before["position"]["position_id"],
                "after": view["position"]["position_id"],
            })
        elif kind in ("doubled", "beavered", "raccooned"):
            action = {"doubled": "double", "beavered": "beaver", "raccooned": "raccoon"}[kind]
            game["actions"].append({"player": event["player"], "action": action})
        elif kind == "taken":
            game["actions"].append({"player": event["player"], "action": "take"})
        elif kind == "new_game":
            summary_games.append(game)
            game = new_game(view)
        over = answer.get("game_over")
        if over:
            winner = over["winner"]
            loser = "o" if winner == "x" else "x"
            if over["ended_by"] == "pass":
                game["actions"].append({"player": loser, "action": "drop"})
            elif over["ended_by"] == "resign":
                level = {"single": 1, "gammon": 2, "backgammon": 3}[offered]
                game["actions"].append({"player": loser, "action": "resign", "level": level})
            game["result"] = {
                "winner": winner,
                "points": over["points"],
                "final": view["position"]["position_id"],
            }
            final_score = dict(game["score"])
            final_score[winner] += over["points"]
    else:
        raise SystemExit("%s: the match did not end" % name)
    summary_games.append(game)

    exported = referee.post("/games/export", {"start": start, "actions": actions})
    if exported.get("format") != "mat":
        raise SystemExit("%s: export answered %r" % (name, exported))
    summary = {
        "length": length,
        "variant": "standard",
        "jacoby": False,
        "beavers": rules.get("beavers", 0),
        "final_score": final_score,
        "games": summary_games,
    }
    if name == "svc-match5":
        y, mo, d = (int(p) for p in LABELS["date"].split("-"))
        summary["labels"] = {
            "x": LABELS["players"]["x"],
            "o": LABELS["players"]["o"],
            "event": LABELS["event"],
            "round": LABELS["round"],
            "date": [d, mo, y],
        }
    rolls = sum(len(g["rolls"]) for g in summary_games)
    kinds = sorted({a["action"] for g in summary_games for a in g["actions"]})
    passes = sum(1 for g in summary_games for r in g["rolls"] if not r["play"])
    print("%s: %d games [%s], %d rolls (%d passes), %d actions sent, records %s, final %s"
          % (name, len(summary_games), ",".join(g["kind"] for g in summary_games), rolls,
             passes, len(actions), ",".join(kinds), final_score))
    return exported["mat"], summary


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0, help="added to each match's seed")
    args = parser.parse_args()
    referee = Referee(args.base_url, os.environ.get("BGREF_GAME_TOKEN"))
    for name, length, rules, max_games, seed in MATCHES:
        rng = random.Random("%s:%d" % (name, seed + args.seed))
        mat, summary = play_match(referee, rng, name, length, rules, max_games)
        with open(os.path.join(args.out, name + ".mat"), "w") as f:
            f.write(mat)
        with open(os.path.join(args.out, name + ".json"), "w") as f:
            json.dump(summary, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The game-flow requests of bench/callgrind.sh and bench/run.sh (issue 28),
made through bgref's public HTTP interface only.

  game.py requests PORT       prints two lines: the body of a `POST
                              /games/act` roll (the second player's first)
                              and of a `POST /games/act` move (the first
                              play listed after the opening roll), both on
                              tokens of a fresh money game
  game.py record PORT FILE    plays a 7-point match through the service
                              with a deterministic bot and writes the
                              `POST /games/verify` body (start and
                              transcript) to FILE

The bot never doubles or resigns: it rolls, moves the first play the view
lists, takes and starts the next game. The dice come from the server's
BGREF_DICE_SECRET, so a recorded transcript replays only on a server with
the bench scripts' secret (bench/lib.sh); `bench/data/verify-7pt.json` was
recorded that way (`bench/game.py record PORT bench/data/verify-7pt.json`
against `bench/lib.sh`'s secrets).
"""

import http.client
import json
import os
import sys

MATCH_ID = "bench-verify-7pt"
CLIENT_SEED = "bench:bot"


class Client:
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port)
        self.headers = {"content-type": "application/json"}
        token = os.environ.get("BGREF_GAME_TOKEN")
        if token:
            self.headers["authorization"] = f"Bearer {token}"

    def post(self, path, body):
        self.conn.request("POST", path, json.dumps(body), self.headers)
        r = self.conn.getresponse()
        data = r.read()
        if r.status != 200:
            sys.exit(f"error: {path} answered {r.status}: {data[:300]!r}")
        return json.loads(data)


def act(client, game, seats, player, action, play=None):
    body = {"state": game["state"], "seat": seats[player], "player": player, "action": action}
    if play is not None:
        body["play"] = play
    return body, client.post("/games/act", body)


def requests(port):
    client = Client(port)
    start = {"match_id": "bench-act-0001", "client_seed": "bench:act"}
    game = client.post("/games", start)
    seats = game["seats"]
    # The opening roll: the starter moves with those dice.
    _, game = act(client, game, seats, "x", "roll")
    starter = game["view"]["to_act"]
    play = game["view"]["plays"][0]["notation"]
    move, game = act(client, game, seats, starter, "move", play)
    # The other player's first roll.
    roll, _ = act(client, game, seats, game["view"]["to_act"], "roll")
    print(json.dumps(roll, separators=(",", ":")))
    print(json.dumps(move, separators=(",", ":")))


def record(port, path):
    client = Client(port)
    start = {"match_id": MATCH_ID, "client_seed": CLIENT_SEED, "match": {"length": 7}}
    game = client.post("/games", start)
    seats = game["seats"]
    steps = []
    while True:
        view = game["view"]
        if view["phase"] == "match_over":
            break
        player = view["to_act"] or "x"
        actions = view["actions"]
        play = None
        if "move" in actions:
            action, play = "move", view["plays"][0]["notation"]
        elif "roll" in actions:
            action = "roll"
        elif "take" in actions:
            action = "take"
        elif "next_game" in actions:
            action = "next_game"
        else:
            sys.exit(f"error: the bot has no action among {actions}")
        step = {"player": player, "action": action}
        if play is not None:
            step["play"] = play
        steps.append(step)
        _, game = act(client, game, seats, player, action, play)
    with open(path, "w") as f:
        f.write('{"start":' + json.dumps(start, separators=(",", ":")) + ',"actions":[\n')
        f.write(",\n".join(json.dumps(s, separators=(",", ":")) for s in steps))
        f.write("\n]}\n")
    verdict = client.post("/games/verify", json.load(open(path)))
    if not verdict.get("valid"):
        sys.exit(f"error: the recorded transcript does not verify: {verdict}")
    print(f"{path}: {len(steps)} actions, verified", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "requests":
        requests(int(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "record":
        record(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(__doc__)

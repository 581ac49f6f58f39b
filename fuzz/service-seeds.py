#!/usr/bin/env python3
"""Writes the seeds of the service targets (committed; run again only to
change them): fuzz/corpus/api_json/seed-* (the operation's index in
ROUTES of src/service.rs as the first byte, then each request example of
the OpenAPI document, and /games/act on real tokens) and
fuzz/corpus/game_token/seed-* (the tokens of a short game).

Needs a bgref started with the fuzz keys (src/service.rs):

    BGREF_LISTEN=127.0.0.1:8080 \\
    BGREF_DICE_SECRET=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f \\
    BGREF_SIGNING_KEY=9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60 \\
    BGREF_REVEAL_TOKEN=fuzz-token-0123456789 BGREF_DICE_ROLL_TOKEN=fuzz-token-0123456789 bgref &
    python3 fuzz/service-seeds.py 127.0.0.1:8080
"""

import json
import os
import sys
import urllib.error
import urllib.request

ROUTES = ["/legal-moves", "/apply-move", "/score", "/cube", "/dice/roll", "/dice/opening",
          "/dice/reveal", "/dice/verify", "/games", "/games/act", "/games/verify",
          "/games/export"]
HERE = os.path.dirname(os.path.abspath(__file__))


def post(base: str, path: str, body: str):
    req = urllib.request.Request(base + path, data=body.encode(), method="POST", headers={
        "content-type": "application/json", "authorization": "Bearer fuzz-token-0123456789"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def main() -> None:
    base = f"http://{sys.argv[1]}"
    doc = json.load(open(os.path.join(HERE, "..", "openapi", "openapi.json")))
    api = os.path.join(HERE, "corpus", "api_json")
    tokens_dir = os.path.join(HERE, "corpus", "game_token")
    os.makedirs(api, exist_ok=True)
    os.makedirs(tokens_dir, exist_ok=True)

    def seed(path: str, body: str, name: str) -> None:
        with open(os.path.join(api, f"seed-{name}"), "wb") as f:
            f.write(bytes([ROUTES.index(path)]) + body.encode())

    for path, item in doc["paths"].items():
        op = item.get("post")
        if not op or path not in ROUTES:
            continue
        content = op.get("requestBody", {}).get("content", {}).get("application/json", {})
        examples = [content["example"]] if "example" in content else []
        examples += [e["value"] for e in content.get("examples", {}).values()]
        schema = content.get("schema", {})
        if "$ref" in schema:
            schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
        if "example" in schema:
            examples.append(schema["example"])
        examples += schema.get("examples", [])
        for i, e in enumerate(examples):
            seed(path, json.dumps(e), f"{path.strip('/').replace('/', '-')}-{i}")

    status, game = post(base, "/games", json.dumps(
        {"match_id": "fuzz-match", "client_seed": "fuzz:seed", "match": {"length": 3}}))
    assert status == 200, game
    state, view = game["state"], game["view"]
    seats = game["seats"]
    tokens = [state]
    for _ in range(6):
        phase, to_act = view["phase"], view.get("to_act") or "x"
        if phase in ("opening_roll", "roll_or_double"):
            action = {"action": "roll"}
        elif phase == "move":
            plays = view["plays"]
            action = {"action": "move", "play": plays[0]["notation"] if plays else ""}
        else:
            break
        status, acted = post(base, "/games/act",
                             json.dumps({"state": state, "seat": seats[to_act or "x"],
                                         "player": to_act, **action}))
        assert status == 200, acted
        state, view = acted["state"], acted["view"]
        tokens.append(state)
    for i, token in enumerate(tokens):
        with open(os.path.join(tokens_dir, f"seed-{i}"), "w") as f:
            f.write(token)
        seed("/games/act", json.dumps({"state": token, "seat": seats["x"], "action": "roll"}),
             f"games-act-{i}")


if __name__ == "__main__":
    main()

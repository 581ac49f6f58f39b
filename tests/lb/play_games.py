#!/usr/bin/env python3
"""Plays whole backgammon games through a load balancer in front of several
bgref replicas, then replays them against one instance alone and compares.

Started by tests/lb/run.sh (which starts the replicas, the reference
instance and nginx); Python standard library only.

Each game: POST /dice/opening, then for every turn POST /legal-moves, a
chosen play (deterministic: a peaceful racer, so games end), POST /apply-move, and POST /dice/roll for the next
turn, until apply-move reports game_over. A turn without legal play is
applied as an empty play. The script is the trusted game server that asks
for each roll only when its turn is due: it sends the operator's roll token
($BGREF_DICE_ROLL_TOKEN, set by run.sh) as a bearer token.

Checks, each reported as PASS/FAIL:
  - every request through the balancer answered 200 and every game ended;
  - requests were spread over all replicas (nginx's X-Bgref-Upstream);
  - every response carried the request id nginx generated (bgref keeps an
    incoming x-request-id and echoes it);
  - the transcripts (every request and response body, dice and signatures
    included) equal those of the same games played against one instance;
  - one replica killed (SIGKILL) in the middle of a game: the game went on
    to its end with no failed request, and the dead replica served nothing
    after the kill.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import socket
import sys
import time
import urllib.parse

START = "4HPwATDgc/ABMA"  # gnubg Position ID of the starting position
MAX_TURNS = 600  # a game that runs longer is a bug


class Client:
    """JSON over HTTP/1.1 to one base URL; records the replica that answered."""

    def __init__(self, base: str):
        url = urllib.parse.urlsplit(base)
        self.host, self.port = url.hostname, url.port
        self.requests = 0
        self.failures: list[str] = []
        self.upstreams: list[str] = []  # X-Bgref-Upstream of each response
        self.request_ids: list[str] = []
        token = os.environ.get("BGREF_DICE_ROLL_TOKEN")
        self.auth = {"authorization": f"Bearer {token}"} if token else {}

    def get(self, path: str) -> tuple[int, str]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=20)
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            return resp.status, resp.read().decode()
        finally:
            conn.close()

    def post(self, path: str, body: dict) -> dict:
        self.requests += 1
        conn = http.client.HTTPConnection(self.host, self.port, timeout=20)
        try:
            conn.request("POST", path, json.dumps(body),
                         {"content-type": "application/json", **self.auth})
            resp = conn.getresponse()
            text = resp.read().decode()
            self.upstreams.append(resp.getheader("X-Bgref-Upstream", ""))
            self.request_ids.append(resp.getheader("x-request-id", ""))
        except OSError as err:
            self.failures.append(f"{path}: {err}")
            raise
        finally:
            conn.close()
        if resp.status != 200:
            self.failures.append(f"{path} {json.dumps(body)}: {resp.status} {text}")
            raise RuntimeError(f"{path} answered {resp.status}: {text}")
        return json.loads(text)


def pips(board: dict, player: str) -> int:
    """Pip count of `player` ("x" or "o") on an API board (x's numbering)."""
    points, bar = board["points"], board["bar"][player]
    if player == "x":
        total = sum(n * (i + 1) for i, n in enumerate(points) if n > 0)
    else:
        total = sum(-n * (24 - i) for i, n in enumerate(points) if n < 0)
    return total + 25 * bar


def choose(plays: list[dict], mover: str) -> dict:
    """A peaceful racer: the play with the fewest hits, then the lowest pip
    count left (bearing off counts), first of equals. With both sides
    playing it, hits happen only when forced, so games end in a few dozen
    turns."""

    def cost(play: dict) -> tuple[int, int]:
        hits = sum(1 for m in play["moves"] if m["hit"])
        return hits, pips(play["position"]["board"], mover)

    return min(plays, key=cost)  # min() keeps the first of equals


def play_game(client: Client, match_id: str, seed: str, game: int,
              on_request=None) -> list:
    """Plays one game; returns its transcript [(path, request, response)]."""
    transcript = []

    def call(path: str, body: dict) -> dict:
        if on_request:
            on_request(len(transcript))
        reply = client.post(path, body)
        transcript.append((path, body, reply))
        return reply

    opening = call("/dice/opening",
                   {"match_id": match_id, "client_seed": seed, "game": game})
    mover, dice = opening["starts"], opening["dice"]
    position = {"position_id": START, "turn": mover}
    for turn in range(1, MAX_TURNS + 1):
        legal = call("/legal-moves", {"position": position, "dice": dice})
        plays = legal["plays"]
        chosen = choose(plays, mover) if plays else None
        play = chosen["notation"] if chosen else []
        applied = call("/apply-move",
                       {"position": position, "dice": dice, "play": play})
        if chosen and applied["position"] != chosen["position"]:
            raise RuntimeError(f"turn {turn}: apply-move and legal-moves disagree")
        if applied.get("game_over"):
            return transcript
        mover = applied["turn"]
        position = {"board": applied["position"]["board"]}
        dice = call("/dice/roll", {"match_id": match_id, "client_seed": seed,
                                   "game": game, "turn": turn})["dice"]
    raise RuntimeError(f"game {game} did not end in {MAX_TURNS} turns")


def final_upstream(header: str) -> str:
    """The replica that answered: the last of nginx's comma-separated tries."""
    return header.split(",")[-1].strip()


def wait_ready(client: Client, what: str) -> None:
    for _ in range(100):
        try:
            if client.get("/readyz")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"{what} not ready")


def refuses(addr: str) -> bool:
    host, port = addr.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=1).close()
        return False
    except OSError:
        return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lb", required=True, help="balancer base URL")
    ap.add_argument("--single", required=True, help="lone reference instance URL")
    ap.add_argument("--replicas", required=True,
                    help="comma-separated host:port of the balanced replicas")
    ap.add_argument("--kill-pid", type=int, required=True,
                    help="pid of the replica to kill mid-game")
    ap.add_argument("--kill-addr", required=True, help="its host:port")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--kill-in-game", type=int, default=2)
    ap.add_argument("--kill-after", type=int, default=40,
                    help="requests into that game")
    ap.add_argument("--match-id", default="lb-test-match")
    args = ap.parse_args()
    replicas = args.replicas.split(",")

    lb, single = Client(args.lb), Client(args.single)
    wait_ready(lb, "balancer")
    wait_ready(single, "reference instance")

    results: list[tuple[bool, str]] = []

    def check(ok: bool, what: str) -> None:
        results.append((ok, what))
        print(f"{'PASS' if ok else 'FAIL'}  {what}", flush=True)

    killed_at = None  # index into lb.upstreams of the first request after the kill

    def maybe_kill(game: int):
        def hook(done: int) -> None:
            nonlocal killed_at
            if game == args.kill_in_game and done == args.kill_after and killed_at is None:
                os.kill(args.kill_pid, signal.SIGKILL)
                for _ in range(100):
                    if refuses(args.kill_addr):
                        break
                    time.sleep(0.05)
                killed_at = lb.requests
                print(f"      killed replica {args.kill_addr} (pid {args.kill_pid}) "
                      f"in game {game} after {done} requests", flush=True)
        return hook

    lb_games, errors = [], []
    for game in range(1, args.games + 1):
        seed = f"seed-{game}"
        try:
            lb_games.append(play_game(lb, args.match_id, seed, game, maybe_kill(game)))
        except (RuntimeError, OSError, KeyError, ValueError) as err:
            errors.append(f"game {game}: {err}")
            lb_games.append(None)
    turns = sum(sum(1 for p, _, _ in t if p == "/apply-move") for t in lb_games if t)
    print(f"      played {args.games} games, {turns} turns, {lb.requests} requests "
          f"through the balancer", flush=True)
    check(not errors and not lb.failures and all(lb_games),
          "every request through the balancer answered 200 and every game ended"
          + "".join(f"\n        {e}" for e in errors + lb.failures[:5]))

    before = [final_upstream(u) for u in lb.upstreams[:killed_at]]
    counts = {r: before.count(r) for r in replicas}
    share = min(counts.values()) / max(1, len(before))
    check(share >= 0.2,
          "requests spread over the replicas before the kill: "
          + ", ".join(f"{r}={n}" for r, n in counts.items()))

    ids_ok = all(re.fullmatch(r"[0-9a-f]{32}", i) for i in lb.request_ids)
    check(ids_ok and len(lb.request_ids) == lb.requests,
          "every response echoed nginx's request id (x-request-id honoured)")

    single_games = []
    for game in range(1, args.games + 1):
        try:
            single_games.append(play_game(single, args.match_id, f"seed-{game}", game))
        except (RuntimeError, OSError, KeyError, ValueError) as err:
            single_games.append(None)
            print(f"      reference game {game} failed: {err}", flush=True)
    diffs = []
    for game, (a, b) in enumerate(zip(lb_games, single_games), start=1):
        if a is None or b is None or a == b:
            if a is None or b is None:
                diffs.append(f"game {game}: not played to the end on both")
            continue
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        diffs.append(f"game {game}: first difference at request {first}: "
                     f"{json.dumps(a[first] if first < len(a) else None)[:300]} vs "
                     f"{json.dumps(b[first] if first < len(b) else None)[:300]}")
    rolls = [r for t in lb_games if t for p, _, r in t if p.startswith("/dice/")]
    check(not diffs and rolls,
          f"same dice and answers as one instance alone ({len(rolls)} rolls, "
          f"{sum(len(t) for t in lb_games if t)} responses compared, signatures included)"
          + "".join(f"\n        {d}" for d in diffs))
    commitments = {r["commitment"] for r in rolls}
    check(len(commitments) == 1,
          f"one commitment for the match on every replica ({len(commitments)} seen)")

    if killed_at is None:
        check(False, "a replica was killed mid-game (the game ended too early)")
    else:
        after = lb.upstreams[killed_at:]
        served = [u for u in after if final_upstream(u) == args.kill_addr]
        retried = [u for u in after if "," in u]
        game = lb_games[args.kill_in_game - 1]
        check(refuses(args.kill_addr) and not served and game is not None
              and len(after) > 10,
              f"killed replica mid-game: the game went on to its end ({len(after)} more "
              f"requests, {len(retried)} retried by nginx on another replica, none lost)")

    failed = sum(1 for ok, _ in results if not ok)
    print(f"lb: {len(results) - failed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

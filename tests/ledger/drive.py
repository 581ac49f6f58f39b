#!/usr/bin/env python3
"""The ledger with two replicas behind nginx (tests/ledger/run.sh drives it).

Checks, with the Python standard library only:
1. races: 50 pairs of conflicting actions (roll and double) sent at once on
   the same token, one to each replica: exactly one of each pair wins, the
   other is 409 stale-state; a retry of the winner is answered again;
2. a whole 3-point match played through nginx (so through both replicas),
   then verified: valid, and it reaches the very token the players hold;
3. the ledger stopped mid-match: the next action is 503 ledger-unavailable
   and both replicas' /readyz say not ready; restarted (its append-only
   file kept): both ready again and the match goes on from its head.
Exit status 0 when every check passed.
"""
import argparse
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

FAILURES = []


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def post(base, path, body, timeout=10):
    data = json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data,
                                 headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as err:
        text = err.read()
        try:
            return err.code, json.loads(text)
        except ValueError:
            return err.code, {"raw": text.decode(errors="replace")}


def get_status(base, path):
    try:
        with urllib.request.urlopen(base + path, timeout=5) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:
        return 0


def act(base, state, seats, player, action, **extra):
    body = {"state": state, "seat": seats[player], "player": player, "action": action}
    body.update(extra)
    return post(base, "/games/act", body)


def to_roll_or_double(base, match_id):
    """A money match played to a state where the player on roll may double."""
    status, game = post(base, "/games", {"match_id": match_id, "client_seed": "race"})
    assert status == 200, game
    seats = game["seats"]
    status, opened = act(base, game["state"], seats, "x", "roll")
    assert status == 200, opened
    starter = opened["view"]["to_act"]
    play = opened["view"]["plays"][0]["notation"]
    status, moved = act(base, opened["state"], seats, starter, "move", play=play)
    assert status == 200, moved
    assert moved["view"]["phase"] == "roll_or_double" and moved["view"]["may_double"], moved
    return moved["state"], seats, moved["view"]["to_act"]


def races(lb, replicas, pairs):
    wins, stale, others, retried = 0, 0, [], 0
    for n in range(pairs):
        state, seats, mover = to_roll_or_double(lb, f"race-{n}")
        answers = [None, None]
        barrier = threading.Barrier(2)

        def send(i, action):
            barrier.wait()
            answers[i] = act(replicas[i], state, seats, mover, action)

        # Alternate which replica gets which action.
        actions = ("roll", "double") if n % 2 == 0 else ("double", "roll")
        threads = [threading.Thread(target=send, args=(i, a)) for i, a in enumerate(actions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses = sorted(a[0] for a in answers)
        if statuses == [200, 409]:
            wins += 1
            loser = next(a for a in answers if a[0] == 409)[1]
            stale += loser.get("type") == "stale-state"
            winner_i = next(i for i, a in enumerate(answers) if a[0] == 200)
            # The winner's retry, on the other replica: the same answer.
            again = act(replicas[1 - winner_i], state, seats, mover, actions[winner_i])
            retried += again[0] == 200 and again[1]["state"] == answers[winner_i][1]["state"]
        else:
            others.append((n, [(a[0], a[1].get("type")) for a in answers]))
    check(wins == pairs and stale == pairs and not others,
          f"races: {wins} of {pairs} pairs had exactly one winner, {stale} losers got "
          f"stale-state {others[:3]}")
    check(retried == pairs, f"races: {retried} of {pairs} winners' retries answered the same")


def bot_step(view, n):
    phase = view["phase"]
    player = view.get("to_act") or "x"
    if phase in ("opening_roll", "game_over"):
        return player, ("roll" if phase == "opening_roll" else "next_game"), {}
    if phase == "roll_or_double":
        return player, ("double" if view["may_double"] and n % 7 == 0 else "roll"), {}
    if phase == "answer_double":
        return player, "take", {}
    if phase == "move":
        plays = view["plays"]
        return player, "move", {"play": plays[(n * 5) % len(plays)]["notation"]}
    raise AssertionError(f"no bot step in {phase}")


def whole_match(lb, match_id, stop_after=None):
    start = {"match_id": match_id, "client_seed": "whole", "match": {"length": 3}}
    status, game = post(lb, "/games", start)
    assert status == 200, game
    seats, state, view = game["seats"], game["state"], game["view"]
    actions = []
    for n in range(5000):
        if view["phase"] == "match_over" or (stop_after is not None and n == stop_after):
            break
        player, action, extra = bot_step(view, n)
        status, answer = act(lb, state, seats, player, action, **extra)
        if status != 200:
            check(False, f"whole match: step {n} {action}: {status} {answer}")
            return None
        actions.append(dict({"player": player, "action": action}, **extra))
        state, view = answer["state"], answer["view"]
    return start, seats, state, view, actions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lb", required=True)
    ap.add_argument("--replicas", required=True)
    ap.add_argument("--stop-ledger", required=True, help="command that stops the store")
    ap.add_argument("--start-ledger", required=True, help="command that starts it again")
    ap.add_argument("--pairs", type=int, default=50)
    args = ap.parse_args()
    replicas = args.replicas.split(",")

    races(args.lb, replicas, args.pairs)

    played = whole_match(args.lb, "whole-match")
    if played:
        start, _, state, view, actions = played
        check(view["phase"] == "match_over",
              f"whole match: {len(actions)} actions through nginx to match_over")
        status, verdict = post(args.lb, "/games/verify",
                               {"start": start, "actions": actions, "state": state})
        check(status == 200 and verdict["valid"] and verdict["state_matches"],
              f"whole match: verified, reaches the players' token ({status})")
        status, _ = post(args.lb, "/games/verify", {"start": start, "actions": actions[:-1]})
        check(status == 409, f"whole match: a transcript short of the head is refused ({status})")

    played = whole_match(args.lb, "ledger-outage", stop_after=9)
    if played:
        start, seats, state, view, actions = played
        subprocess.run(args.stop_ledger, shell=True, check=True)
        player, action, extra = bot_step(view, len(actions))
        status, answer = act(args.lb, state, seats, player, action, **extra)
        check(status == 503 and answer.get("type") == "ledger-unavailable",
              f"outage: the action is refused with 503 ledger-unavailable ({status} {answer.get('type')})")
        deadline = time.time() + 10
        ready = None
        while time.time() < deadline:
            ready = [get_status("http://" + r if not r.startswith("http") else r, "/readyz")
                     for r in replicas]
            if all(s == 503 for s in ready):
                break
            time.sleep(0.2)
        check(all(s == 503 for s in ready), f"outage: both replicas not ready ({ready})")
        subprocess.run(args.start_ledger, shell=True, check=True)
        deadline = time.time() + 15
        while time.time() < deadline:
            ready = [get_status(r, "/readyz") for r in replicas]
            if all(s == 200 for s in ready):
                break
            time.sleep(0.2)
        check(all(s == 200 for s in ready), f"restart: both replicas ready again ({ready})")
        status, answer = act(args.lb, state, seats, player, action, **extra)
        check(status == 200, f"restart: the match goes on from its head ({status} {answer.get('type')})")
        if status == 200:
            actions.append(dict({"player": player, "action": action}, **extra))
            status, verdict = post(args.lb, "/games/verify",
                                   {"start": start, "actions": actions, "state": answer["state"]})
            check(status == 200 and verdict["valid"], f"restart: the transcript verifies ({status})")

    if FAILURES:
        print(f"ledger: {len(FAILURES)} check(s) failed", flush=True)
        sys.exit(1)
    print("ledger: every check passed", flush=True)


if __name__ == "__main__":
    main()

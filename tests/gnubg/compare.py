#!/usr/bin/env python3
"""Compares a running bgref's POST /legal-moves with GNU Backgammon's plays.

Cases are JSON lines in the corpus format (shared/corpus/README.md), as
written by gen_cases.py (which adds "turn"): position_id, dice and gnubg's
plays [{move, next_id}]. For each case this POSTs

    {"variant": ..., "position": {"position_id": ..., "turn": "o"?}, "dice": [...]}

and checks that

  * the set of plays[].position.position_id equals the set of gnubg's next_id
    (the position after the play with the opponent on roll);
  * each play's notation equals gnubg's move string for the same resulting
    position (so the set of notations agrees too).

Prints every mismatch with details and a final line `N passed, M failed`;
exits 1 on any failure (2 when the service cannot be reached at all).
Standard library only.

Usage: compare.py CASES.jsonl [--base-url http://127.0.0.1:8080] [--jobs 4]
"""

import argparse
import concurrent.futures
import json
import sys
import urllib.error
import urllib.request

VARIANTS = {
    "standard": "standard",
    "nackgammon": "nackgammon",
    "hypergammon1": "hypergammon-1",
    "hypergammon2": "hypergammon-2",
    "hypergammon3": "hypergammon",
}


def request_body(case):
    position = {"position_id": case["position_id"]}
    if case.get("turn", "x") == "o":
        position["turn"] = "o"
    return {
        "variant": VARIANTS.get(case["variant"], case["variant"]),
        "position": position,
        "dice": case["dice"],
    }


def post(base_url, body, timeout=30):
    data = json.dumps(body).encode()
    req = urllib.request.Request(
        base_url.rstrip("/") + "/legal-moves",
        data=data,
        headers={"content-type": "application/json", "accept": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def board_text(case):
    """A compact picture of the case's board, mover's view."""
    if "board" not in case:
        return ""
    opp, me = case["board"]
    pts = []
    for i in range(24):
        if me[i]:
            pts.append("%d:+%d" % (i + 1, me[i]))
        elif opp[23 - i]:
            pts.append("%d:-%d" % (i + 1, opp[23 - i]))
    off = case.get("off", [0, 0])
    return "mover's view [%s] bar +%d/-%d off +%d/-%d" % (" ".join(pts), me[24], opp[24], off[1], off[0])


def check(base_url, case):
    """Returns a list of problem lines (empty when the case agrees)."""
    body = request_body(case)
    try:
        status, text = post(base_url, body)
    except (OSError, urllib.error.URLError) as e:
        return ["request failed: %s" % e]
    if status != 200:
        return ["HTTP %d: %s" % (status, text[:500])]
    try:
        got = json.loads(text)
        ours = {}
        dup = []
        for p in got["plays"]:
            pid = p["position"]["position_id"]
            if pid in ours:
                dup.append(pid)
            ours[pid] = p["notation"]
    except (ValueError, KeyError, TypeError) as e:
        return ["unexpected response (%s): %s" % (e, text[:500])]
    theirs = {p["next_id"]: p["move"] for p in case["plays"]}
    problems = []
    if dup:
        problems.append("bgref lists a resulting position twice: %s" % ", ".join(sorted(set(dup))))
    missing = sorted(set(theirs) - set(ours), key=lambda k: theirs[k])
    extra = sorted(set(ours) - set(theirs), key=lambda k: ours[k])
    for k in missing:
        problems.append("gnubg has, bgref lacks: %-24s -> %s" % (theirs[k], k))
    for k in extra:
        problems.append("bgref has, gnubg lacks: %-24s -> %s" % (ours[k], k))
    for k in sorted(set(theirs) & set(ours), key=lambda k: theirs[k]):
        if theirs[k] != ours[k]:
            problems.append("notation differs for %s: gnubg %r, bgref %r" % (k, theirs[k], ours[k]))
    if len(got["plays"]) != len(theirs) and not problems:
        problems.append("play count %d, gnubg %d" % (len(got["plays"]), len(theirs)))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", help="JSONL file of cases (gen_cases.py output or the corpus)")
    ap.add_argument("--base-url", default="http://127.0.0.1:8080")
    ap.add_argument("--jobs", type=int, default=4, help="concurrent requests (default 4)")
    ap.add_argument("--max-report", type=int, default=50, help="mismatching cases printed in full (default 50)")
    args = ap.parse_args()

    cases = []
    with open(args.cases, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                cases.append(json.loads(line))
    if not cases:
        print("compare: no cases in %s" % args.cases, file=sys.stderr)
        print("0 passed, 1 failed")
        return 1

    # Fail fast when nothing answers at all.
    try:
        post(args.base_url, request_body(cases[0]), timeout=10)
    except (OSError, urllib.error.URLError) as e:
        print("compare: cannot reach %s: %s" % (args.base_url, e), file=sys.stderr)
        return 2

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda c: check(args.base_url, c), cases))

    failed = 0
    for case, problems in zip(cases, results):
        if not problems:
            continue
        failed += 1
        if failed > args.max_report:
            continue
        print(
            "MISMATCH %s: variant %s, position_id %s, turn %s, dice %d-%d (%s; tags %s)"
            % (
                case.get("id", "?"),
                case["variant"],
                case["position_id"],
                case.get("turn", "x"),
                case["dice"][0],
                case["dice"][1],
                case.get("source", "?"),
                ",".join(case.get("tags", [])),
            )
        )
        print("  " + board_text(case))
        print("  request: " + json.dumps(request_body(case)))
        print("  gnubg plays (%d): %s" % (len(case["plays"]), ", ".join(p["move"] for p in case["plays"]) or "none"))
        for p in problems:
            print("  " + p)
    if failed > args.max_report:
        print("(%d more mismatching cases not shown)" % (failed - args.max_report))
    passed = len(cases) - failed
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""GET /render.txt against GNU Backgammon's own text board.

For each case the script asks bgref for the text board, then drives gnubg
(a fresh `gnubg -t -q` per case, commands on stdin): a money session whose
players are named x and o (or as the query's name_x and name_o say), `set
matchid` with the Match ID bgref printed (cube, score, match length,
Crawford, turn, dice), `set board` with the
Position ID bgref printed, then `show board` and `show pipcount`. gnubg's
output from its last board to the pip counts must equal bgref's text byte
for byte; the Position ID and Match ID gnubg prints are its own, so a
wrong ID in bgref's text shows as a difference too.

Usage: render_text.py --base-url http://127.0.0.1:PORT --gnubg /usr/games/gnubg
Exit status: 0 all equal, 1 a difference, 2 a setup failure.
"""

import argparse
import difflib
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

# Query strings: both players on roll, bar, borne off, stacks over five
# (counts 6 to 15 as gnubg's letters), cube centred and owned by each side,
# money and match play (Crawford, 1-point match), rolled dice and none,
# every position encoding, nackgammon and a game over.
CASES = [
    "position_id=4HPwATDgc/ABMA",
    "position_id=4HPwATDgc/ABMA&turn=o",
    "xgid=XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10",
    "xgid=XGID=-a----F-C---eE---c-e-----A:2:1:1:00:0:0:0:0:10",
    "xgid=XGID=bB----FF-----d----c-e----A:1:-1:1:31:2:1:0:5:10",
    "xgid=XGID=------O-------------a-cdg-:0:0:-1:44:0:0:0:0:10",
    "xgid=XGID=-o------------------------:0:0:-1:00:0:0:0:0:10",
    "position_id=4HPwATDgc/ABMA&match_length=5&score_x=4&score_o=3&crawford=true&dice=52",
    "position_id=4HPwATDgc/ABMA&turn=o&match_length=7&score_x=1&score_o=6&cube_value=2&cube_owner=x",
    "position_id=4HPwATDgc/ABMA&match_length=1",
    "position_id=4HPwATDgc/ABMA&cube_value=64&cube_owner=o&dice=66",
    "fibs=board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0",
    "variant=nackgammon&position_id=4Dl4ADbgOfgBMA",
    "xgid=XGID=-BBCBBB---------------bbb-:0:0:-1:21:0:0:0:0:10",
    # The players' names (gnubg's `set player N name`), one of them owning
    # the cube, o on roll (the pip counts name the player on roll first).
    "position_id=4HPwATDgc/ABMA&turn=o&cube_value=2&cube_owner=x&name_x=Alice Smith&name_o=O'Brien",
]


def fetch(base, query):
    parts = [tuple(p.split("=", 1)) for p in query.split("&")]
    url = base + "/render.txt?" + urllib.parse.urlencode(parts)
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read().decode("utf-8")


def gnubg_board(gnubg, home, position_id, match_id, names=("x", "o")):
    commands = "\n".join([
        "new session",
        "set player 0 name " + names[0],
        "set player 1 name " + names[1],
        "set matchid " + match_id,
        "set board " + position_id,
        "show board",
        "show pipcount",
        "",
    ])
    out = subprocess.run(
        [gnubg, "-t", "-q"], input=commands, capture_output=True, text=True,
        timeout=60, env=dict(os.environ, HOME=home), check=False,
    ).stdout
    start = out.rfind(" GNU Backgammon  Position ID:")
    end = out.find("The pip counts are:", start)
    if start < 0 or end < 0:
        return None
    return out[start:out.index("\n", end) + 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--gnubg", default="/usr/games/gnubg")
    args = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as home:
        for query in CASES:
            try:
                ours = fetch(args.base_url, query)
            except urllib.error.HTTPError as e:
                failures += 1
                print("render-text: %s: HTTP %d %s" % (query, e.code, e.read().decode()),
                      file=sys.stderr)
                continue
            lines = ours.splitlines()
            try:
                position_id = lines[0].split("Position ID: ")[1]
                match_id = lines[1].split("Match ID   : ")[1]
            except IndexError:
                print("render-text: %s: no ID lines in\n%s" % (query, ours), file=sys.stderr)
                return 2
            params = dict(p.split("=", 1) for p in query.split("&"))
            names = (params.get("name_x", "x"), params.get("name_o", "o"))
            theirs = gnubg_board(args.gnubg, home, position_id, match_id, names)
            if theirs != ours:
                failures += 1
                print("render-text: DIFFERENT from gnubg: " + query, file=sys.stderr)
                if theirs is None:
                    print("  gnubg printed no board", file=sys.stderr)
                else:
                    sys.stderr.writelines(difflib.unified_diff(
                        theirs.splitlines(True), ours.splitlines(True), "gnubg", "bgref"))
    print("render-text: %d of %d text boards equal gnubg's" % (len(CASES) - failures, len(CASES)),
          file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

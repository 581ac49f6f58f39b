# Runs inside GNU Backgammon's embedded Python (gnubg -t -q -r -p THIS):
# imports each .mat file of MAT_DIR with `import mat` and compares what
# gnubg reconstructs with the JSON summary bgref wrote beside it (see
# core/examples/write_mat.rs):
#
#   - per game: the score before it, the winner, the points won;
#   - per roll, in order: the player, the dice, the position before the
#     roll (gnubg's record board, the roller's side) and after the play
#     (the board of gnubg's next record, or of the game's last position as
#     gnubg's navigation shows it);
#   - the cube actions and resignations, in order, with who made them;
#   - the final score;
#   - the players' names, and the event, round and date when given.
#
# Writes one JSON line per file to MAT_OUT: the counts compared and every
# difference found. The shell script reads it and fails on a difference.
import json
import os
import traceback

import gnubg

OUT = open(os.environ["MAT_OUT"], "w")
DIR = os.environ["MAT_DIR"]

PLAYER = {"X": "x", "O": "o"}


def final_board(game_index):
    """The position at the end of game `game_index` (0-based), from gnubg."""
    gnubg.navigate()
    if game_index:
        gnubg.navigate(game=game_index)
    gnubg.navigate(next=100000)
    return gnubg.positionid(gnubg.board())


def compare(name):
    ours = json.load(open(os.path.join(DIR, name + ".json")))
    gnubg.command("set jacoby %s" % ("on" if ours["jacoby"] else "off"))
    gnubg.command("set beavers %d" % ours["beavers"])
    gnubg.command("import mat %s" % os.path.join(DIR, name + ".mat"))
    m = gnubg.match(0, 1, 0, 0)
    diffs = []
    counts = {"games": 0, "rolls": 0, "positions": 0, "actions": 0}

    def diff(where, what, theirs, mine):
        if theirs != mine:
            diffs.append("%s: %s: gnubg %r, bgref %r" % (where, what, theirs, mine))

    info = m["match-info"]
    diff(name, "match length", info["match-length"], ours["length"])
    # The players' names (x and o unless the start named them) and, when
    # given, the event, its round and date.
    labels = ours.get("labels", {"x": "x", "o": "o"})
    diff(name, "x's name", info["X"]["name"], labels["x"])
    diff(name, "o's name", info["O"]["name"], labels["o"])
    for key in ("event", "round", "date"):
        if key in labels:
            theirs = info.get(key)
            diff(name, key, list(theirs) if key == "date" and theirs else theirs, labels[key])
    games = m["games"]
    diff(name, "games", len(games), len(ours["games"]))
    final = None
    for gi, (g, og) in enumerate(zip(games, ours["games"])):
        where = "%s game %d" % (name, gi + 1)
        counts["games"] += 1
        info = g["info"]
        diff(where, "score before", (info["score-X"], info["score-O"]),
             (og["score"]["x"], og["score"]["o"]))
        records = g["game"]
        moves = [(i, r) for i, r in enumerate(records) if r["action"] == "move"]
        others = [r for r in records if r["action"] != "move"]
        diff(where, "rolls", len(moves), len(og["rolls"]))
        end = final_board(gi)
        for k, ((i, r), roll) in enumerate(zip(moves, og["rolls"])):
            w = "%s roll %d" % (where, k + 1)
            counts["rolls"] += 1
            diff(w, "player", PLAYER[r["player"]], roll["player"])
            diff(w, "dice", sorted(r["dice"], reverse=True), roll["dice"])
            diff(w, "position before", r["board"], roll["before"])
            after = next((n["board"] for n in records[i + 1:] if "board" in n), end)
            diff(w, "position after", after, roll["after"])
            counts["positions"] += 2
        theirs = []
        for r in others:
            a = {"player": PLAYER[r["player"]], "action": r["action"]}
            if r["action"] == "resign":
                a["level"] = r["points"]
            theirs.append(a)
        mine = []
        for a in og["actions"]:
            a = dict(a)
            a.pop("value", None)
            a.pop("offered", None)
            if a["action"] in ("beaver", "raccoon"):
                a["action"] = "double"
            mine.append(a)
        diff(where, "cube actions", theirs, mine)
        counts["actions"] += len(mine)
        res = og["result"]
        if res is not None:
            diff(where, "winner", PLAYER.get(info["winner"]), res["winner"])
            diff(where, "points", info["points-won"], res["points"])
            diff(where, "final position", end, res["final"])
            counts["positions"] += 1
            final = {"x": info["score-X"], "o": info["score-O"]}
            final[PLAYER[info["winner"]]] += info["points-won"]
    diff(name, "final score", final, ours["final_score"])
    return counts, diffs


for fname in sorted(os.listdir(DIR)):
    if not fname.endswith(".mat"):
        continue
    name = fname[:-4]
    try:
        counts, diffs = compare(name)
    except Exception:
        counts, diffs = {}, ["%s: %s" % (name, traceback.format_exc())]
    OUT.write(json.dumps({"file": fname, "counts": counts, "diffs": diffs}) + "\n")
    OUT.flush()
OUT.close()

# Cross-check cases made by GNU Backgammon itself.
#
# Runs INSIDE gnubg's embedded Python (the `gnubg` module exists only there):
#
#   GEN_OUT=cases.jsonl GEN_N=2000 GEN_SEED=1 \
#   GEN_EXCLUDE=../shared/corpus/legal_moves.jsonl.gz \
#       gnubg -t -q -r -p tests/gnubg/gen_cases.py >/dev/null
#
# gnubg's -p passes no arguments to the script, so it is configured through
# the environment: GEN_OUT (output JSONL, required), GEN_N (cases, default
# 2000), GEN_SEED (default 1), GEN_EXCLUDE (optional gzipped or plain JSONL
# corpus whose position IDs are skipped, so that every case is new), GEN_LOG
# (progress and summary, default stderr), GEN_WORKER / GEN_WORKERS (this
# process makes share GEN_WORKER of GEN_N split GEN_WORKERS ways, from its own
# seed; default 0 / 1). gnubg prints a board for every command on stdout, so
# send its stdout to /dev/null. (gnubg's `hint` sleeps about 10 ms per call
# while waiting for its worker thread and uses little CPU, so several
# processes in parallel make the cases several times faster.)
#
# For every case: a position (standard, nackgammon or hypergammon 1-3;
# game walks from each variant's start, random, race, bear-off, bar and
# primed positions), a random roll, and gnubg's COMPLETE list of legal plays:
# `hint` at 0-ply lists every play that gnubg's move generator produces (one
# per distinct resulting position; no move filter applies at 0 plies). Each
# play's `next_id` (the position after the play, opponent on roll) is
# computed by applying gnubg's own parse of the move string
# (gnubg.parsemove) and encoding with gnubg.positionid; for one random play
# per case it is also checked against gnubg playing the move itself
# (`move ...`, then gnubg.positionid()), and any disagreement aborts the run.
#
# Output: one JSON object per line in the corpus format (see
# shared/corpus/README.md) plus "turn" ("x" or "o"; the side on roll, which
# a Position ID does not say: compare.py passes it to bgref).

import gzip
import json
import os
import random
import sys
import time

import gnubg

OUT = os.environ.get("GEN_OUT")
N = int(os.environ.get("GEN_N", "2000"))
SEED = int(os.environ.get("GEN_SEED", "1"))
WORKER = int(os.environ.get("GEN_WORKER", "0"))
WORKERS = int(os.environ.get("GEN_WORKERS", "1"))
if WORKERS > 1:
    N = N // WORKERS + (1 if WORKER < N % WORKERS else 0)
EXCLUDE = os.environ.get("GEN_EXCLUDE", "")
LOG = open(os.environ["GEN_LOG"], "a") if os.environ.get("GEN_LOG") else sys.stderr

CHECKERS = {"standard": 15, "nackgammon": 15, "hypergammon1": 1, "hypergammon2": 2, "hypergammon3": 3}

# Start positions, own view: index i = point i+1 (same for both sides).
START = {
    "standard": {5: 5, 7: 3, 12: 5, 23: 2},
    "nackgammon": {5: 4, 7: 3, 12: 4, 22: 2, 23: 2},
    "hypergammon1": {23: 1},
    "hypergammon2": {22: 1, 23: 1},
    "hypergammon3": {21: 1, 22: 1, 23: 1},
}


def log(*a):
    print("gen_cases:", *a, file=LOG, flush=True)


class Fail(Exception):
    pass


def cmd(c):
    gnubg.command(c)


# --- positions ----------------------------------------------------------------
# A position is (opp, me): two lists of 25 counts, each in its owner's own view
# (index 24 = bar), `me` on roll: exactly gnubg's board order (board[1] on roll).


def empty():
    return [0] * 25, [0] * 25


def free_points(opp, me):
    """Mover-view indices (0..23) that neither side occupies."""
    return [i for i in range(24) if me[i] == 0 and opp[23 - i] == 0]


def scatter(rng, n, points):
    """Distributes n >= 0 checkers over some of `points` (each used point >= 1)."""
    if n == 0 or not points:
        return {}
    k = rng.randint(1, min(n, len(points), rng.choice([2, 4, 6, 8, 12])))
    chosen = rng.sample(points, k)
    out = {p: 1 for p in chosen}
    for _ in range(n - k):
        p = rng.choice(chosen)
        out[p] += 1
    return out


def pick_off(rng, n, heavy=False):
    if n == 1:
        return 0
    if heavy:
        return rng.randint(0, n - 1)
    return 0 if rng.random() < 0.7 else rng.randint(1, n - 1)


def pick_bar(rng, n_left, p_any=0.3, most=3):
    if n_left <= 1 or rng.random() >= p_any:
        return 0
    return rng.randint(1, min(most, n_left - 1))


def gen_random(rng, n):
    opp, me = empty()
    # mover
    left = n - pick_off(rng, n)
    me[24] = pick_bar(rng, left)
    left -= me[24]
    for p, c in scatter(rng, left, list(range(24))).items():
        me[p] = c
    # opponent on the points the mover left free
    left = n - pick_off(rng, n)
    opp[24] = pick_bar(rng, left)
    left -= opp[24]
    for p, c in scatter(rng, left, free_points(opp, me)).items():
        opp[23 - p] = c
    return opp, me


def gen_bearoff(rng, n):
    opp, me = empty()
    left = n - pick_off(rng, n, heavy=True)
    if left == n and n > 1 and rng.random() < 0.5:
        left -= 1  # often some already off
    for p, c in scatter(rng, left, list(range(6))).items():
        me[p] = c
    mode = rng.random()
    left = n - pick_off(rng, n, heavy=mode < 0.5)
    if mode < 0.5:
        # pure race: the opponent in its own home board (mover's 19..24)
        pts = [i for i in range(18, 24)]
    elif mode < 0.8:
        # contact: some opponent checkers in the mover's home board / anywhere
        opp[24] = pick_bar(rng, left, p_any=0.4)
        left -= opp[24]
        pts = free_points(opp, me)
    else:
        # the opponent holds points in the mover's home board
        pts = [i for i in range(6) if me[i] == 0] + list(range(6, 24))
    for p, c in scatter(rng, left, [p for p in pts if me[p] == 0]).items():
        opp[23 - p] = c
    return opp, me


def gen_race(rng, n):
    opp, me = empty()
    s = rng.randint(1, 23)  # mover on [0, s), opponent on [s, 24): no contact
    lo = max(0, s - rng.choice([3, 6, 9, 12, 24]))
    left = n - pick_off(rng, n)
    for p, c in scatter(rng, left, list(range(lo, s))).items():
        me[p] = c
    hi = min(24, s + rng.choice([3, 6, 9, 12, 24]))
    left = n - pick_off(rng, n)
    for p, c in scatter(rng, left, list(range(s, hi))).items():
        opp[23 - p] = c
    return opp, me


def gen_bar(rng, n):
    opp, me = empty()
    left = n - pick_off(rng, n)
    me[24] = rng.randint(1, min(4, left))
    left -= me[24]
    # the opponent makes k points of the mover's entry board (mover's 19..24)
    k = rng.choice([0, 1, 2, 3, 4, 5, 5, 6])
    oleft = n - pick_off(rng, n)
    made = rng.sample(range(18, 24), k) if oleft >= 2 else []
    for p in made:
        if oleft < 2:
            break
        c = 2 if oleft < 4 else rng.choice([2, 2, 3])
        opp[23 - p] = c
        oleft -= c
    opp[24] = pick_bar(rng, oleft, p_any=0.2, most=2)
    oleft -= opp[24]
    for p, c in scatter(rng, left, free_points(opp, me)).items():
        me[p] = c
    for p, c in scatter(rng, oleft, free_points(opp, me)).items():
        opp[23 - p] = c
    return opp, me


def gen_prime(rng, n):
    """An opponent block of 3-6 points with mover checkers behind it:
    partial plays, forced larger / smaller die."""
    opp, me = empty()
    length = rng.randint(3, 6)
    start = rng.randint(0, 24 - length)  # block on mover's [start, start+length)
    oleft = n - pick_off(rng, n)
    for p in range(start, start + length):
        if oleft < 2:
            break
        opp[23 - p] = 2
        oleft -= 2
    left = n - pick_off(rng, n)
    me[24] = pick_bar(rng, left, p_any=0.2, most=2)
    left -= me[24]
    behind = [p for p in range(start + length, min(24, start + length + 6)) if opp[23 - p] == 0]
    nb = rng.randint(1, left) if behind and left else 0
    for p, c in scatter(rng, nb, behind).items():
        me[p] = c
    for p, c in scatter(rng, left - nb, free_points(opp, me)).items():
        me[p] += c
    for p, c in scatter(rng, oleft, free_points(opp, me)).items():
        opp[23 - p] = c
    return opp, me


BUILDERS = {
    "random": gen_random,
    "bearoff": gen_bearoff,
    "race": gen_race,
    "bar": gen_bar,
    "prime": gen_prime,
}


def check_position(opp, me, n):
    for side in (opp, me):
        assert all(c >= 0 for c in side)
        assert 1 <= sum(side) <= n, (opp, me)
    for i in range(24):
        assert not (me[i] and opp[23 - i]), (opp, me)


# --- gnubg --------------------------------------------------------------------


def setup():
    for c in [
        "set player 0 human",
        "set player 1 human",
        "set player 0 name o",
        "set player 1 name x",
        "set automatic roll off",
        "set automatic move off",
        "set automatic bearoff off",
        "set automatic game off",
        "set display off",
        "set evaluation chequerplay evaluation plies 0",
        "set evaluation chequerplay evaluation prune off",
        "new game",
    ]:
        cmd(c)


def load(pid, turn, dice):
    cmd("set turn " + turn)
    cmd("set board " + pid)
    got = gnubg.positionid()
    if got != pid:
        raise Fail("set board %s gave %s" % (pid, got))
    cmd("set dice %d %d" % dice)


def apply_play(opp, me, move):
    """The position after `move` (a gnubg move string), opponent on roll."""
    opp, me = list(opp), list(me)
    for f, t in gnubg.parsemove(move):
        src = 24 if f == 25 else f - 1
        if me[src] <= 0:
            raise Fail("%s: no checker on %d" % (move, f))
        me[src] -= 1
        if t > 0:
            dst = t - 1
            if opp[23 - dst] >= 2:
                raise Fail("%s: point %d blocked" % (move, t))
            if opp[23 - dst] == 1:
                opp[23 - dst] = 0
                opp[24] += 1
            me[dst] += 1
    return me, opp  # gnubg order with the opponent (old `opp`) on roll


def legal_plays(rng, opp, me, turn, dice):
    pid = gnubg.positionid((opp, me))
    load(pid, turn, dice)
    hint = gnubg.hint(100000)
    plays = []
    for h in hint["hint"]:
        nxt = apply_play(opp, me, h["move"])
        plays.append(
            {
                "move": h["move"],
                "after_id": gnubg.positionid((nxt[1], nxt[0])),
                "next_id": gnubg.positionid(nxt),
                "_next": nxt,
            }
        )
    if len({p["next_id"] for p in plays}) != len(plays):
        raise Fail("%s %s: duplicate resulting positions in gnubg's list" % (pid, dice))
    # gnubg plays one of them itself: same resulting position?
    if plays:
        p = rng.choice(plays)
        if sum(p["_next"][0]) > 0:  # not the last checker off (game over)
            cmd("move " + p["move"])
            got = gnubg.positionid()
            if got != p["next_id"]:
                raise Fail("%s %s %s: gnubg moved to %s, applied %s" % (pid, dice, p["move"], got, p["next_id"]))
    return pid, plays


def tags(opp, me, dice, plays):
    t = []
    if not plays:
        t.append("no_play")
    elif len(plays) == 1:
        t.append("single_play")
    if dice[0] == dice[1]:
        t.append("doubles")
    if me[24]:
        t.append("on_bar")
    if all(me[i] == 0 for i in range(6, 25)):
        t.append("bearoff")
    # contact: some mover checker still has an opponent checker ahead of it
    mine = [i for i in range(25) if me[i]]
    theirs = [23 - i for i in range(24) if opp[i]] + ([-1] if opp[24] else [])  # mover view, bar -1
    # opponent checkers move from low mover-index to high; contact when the
    # mover's rearmost checker is above the opponent's rearmost one
    t.append("contact" if mine and theirs and max(mine) > min(theirs) else "race")
    return t


def main():
    if not OUT:
        raise SystemExit("GEN_OUT is not set")
    rng = random.Random(SEED if WORKERS == 1 else "%d/%d/%d" % (SEED, WORKER, WORKERS))
    excluded = set()
    if EXCLUDE:
        op = gzip.open if EXCLUDE.endswith(".gz") else open
        with op(EXCLUDE, "rt") as f:
            for line in f:
                excluded.add(json.loads(line)["position_id"])
        log("excluding %d position IDs of %s" % (len(excluded), EXCLUDE))
    setup()
    t0 = time.time()
    seen = set()
    cases = []
    skipped = 0
    counts = {}

    def record(variant, source, opp, me, turn, dice):
        nonlocal skipped
        pid = gnubg.positionid((opp, me))
        key = (pid, tuple(sorted(dice)))
        if pid in excluded or key in seen:
            skipped += 1
            return None
        pid, plays = legal_plays(rng, opp, me, turn, dice)
        seen.add(key)
        cases.append(
            {
                "id": "gnubg-%d-%s%05d" % (SEED, "%d-" % WORKER if WORKERS > 1 else "", len(cases)),
                "variant": variant,
                "source": source,
                "position_id": pid,
                "turn": turn,
                "board": [list(opp), list(me)],
                "off": [CHECKERS[variant] - sum(opp), CHECKERS[variant] - sum(me)],
                "dice": list(dice),
                "plays": [{k: v for k, v in p.items() if not k.startswith("_")} for p in plays],
                "tags": tags(opp, me, dice, plays),
            }
        )
        counts[(variant, source)] = counts.get((variant, source), 0) + 1
        return plays

    def roll():
        return rng.randint(1, 6), rng.randint(1, 6)

    def pick_variant():
        r = rng.random()
        if r < 0.55:
            return "standard"
        if r < 0.80:
            return "nackgammon"
        return rng.choice(["hypergammon1", "hypergammon2", "hypergammon3", "hypergammon3"])

    game_quota = int(N * 0.4)

    def walk():
        """A game from the variant's start, with random and best (0-ply)
        plays; records some of its positions (not the start: that is in the
        corpus) until the game ends or the quota of game cases is reached."""
        variant = pick_variant()
        opp, me = empty()
        for p, c in START[variant].items():
            opp[p] = me[p] = c
        turn = rng.choice("xo")
        greedy = rng.random()
        for _ in range(rng.randint(20, 150)):
            if len(cases) >= N or n_source("game") >= game_quota:
                return
            dice = roll()
            plays = None
            if rng.random() < 0.25:
                plays = record(variant, "game", opp, me, turn, dice)
            if plays is None:
                _, plays = legal_plays(rng, opp, me, turn, dice)
            if plays:
                p = plays[0] if rng.random() < greedy else rng.choice(plays)
                if sum(p["_next"][0]) == 0:
                    return  # the mover bore off its last checker
                opp, me = p["_next"]  # the opponent is on roll
            else:
                opp, me = me, opp
            turn = "o" if turn == "x" else "x"

    def n_source(source):
        return sum(c for (_, s), c in counts.items() if s == source)

    kinds = ["random", "bearoff", "race", "bar", "prime"]
    weights = [0.30, 0.25, 0.15, 0.18, 0.12]
    last_new_game = 0
    while len(cases) < N:
        if len(cases) - last_new_game >= 200:
            cmd("new game")  # keeps gnubg's game record short
            last_new_game = len(cases)
        if n_source("game") < min(game_quota, 0.4 * len(cases) + 1):
            walk()
            continue
        variant = pick_variant()
        n = CHECKERS[variant]
        kind = rng.choices(kinds, weights)[0]
        opp, me = BUILDERS[kind](rng, n)
        check_position(opp, me, n)
        record(variant, kind, opp, me, rng.choice("xo"), roll())

    with open(OUT, "w") as f:
        for c in cases:
            f.write(json.dumps(c, separators=(",", ":")) + "\n")
    tagc = {}
    for c in cases:
        for t in c["tags"]:
            tagc[t] = tagc.get(t, 0) + 1
    nplays = sum(len(c["plays"]) for c in cases)
    log(
        "%d cases (%d plays) in %.1f s, seed %d, worker %d/%d, %d skipped (in the corpus or repeated)"
        % (len(cases), nplays, time.time() - t0, SEED, WORKER, WORKERS, skipped)
    )
    log("by variant/source: " + ", ".join("%s/%s %d" % (v, s, c) for (v, s), c in sorted(counts.items())))
    log("tags: " + ", ".join("%s %d" % kv for kv in sorted(tagc.items())))


try:
    main()
except Exception as e:  # gnubg -p would otherwise go on to its prompt
    import traceback

    traceback.print_exc(file=LOG)
    LOG.flush()
    os._exit(3)
LOG.flush()
os._exit(0)

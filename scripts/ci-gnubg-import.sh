#!/usr/bin/env bash
# GNU Backgammon imports bgref's .mat match transcripts and must find in
# them exactly the matches bgref played:
#
#   1. installs gnubg from Debian (apt-get) when it is missing, as
#      scripts/gnubg-crosscheck.sh does;
#   2. runs core/examples/write_mat.rs: bot-played matches with fixed seeds
#      (a 5-point match with doubles, takes, a drop, passes, a Crawford and
#      a post-Crawford game; a 7-point match with resignations rejected and
#      accepted, one after a roll; a nackgammon and a 3-checker hypergammon
#      match; a money session under the Jacoby rule and one with beavers
#      and raccoons), each written as NAME.mat with a JSON summary NAME.json;
#   3. starts the bgref binary (target/debug/bgref, built with `cargo
#      build -p bgref-service` when needed, or $BGREF_BIN) and plays a
#      5-point match and a money session with beavers through its refereed
#      game flow (tests/gnubg/play_service.py: seeded random bots over
#      HTTP, the game token configured); the files are the service's own
#      POST /games/export, the summaries what it answered while playing;
#   4. runs tests/gnubg/import_mat.py inside gnubg's embedded Python:
#      `import mat` of each file, then per game the score before it, per
#      roll the player, the dice and the positions before and after (gnubg
#      Position IDs), the cube actions and resignations, the winner and the
#      points, the final score and the players' names (svc-match5 is
#      started with names, an event, a date and a round), all compared
#      with the summary;
#   5. prints what was compared and exits non-zero on any difference, or
#      when gnubg warns about a line it could not read.
#
# Environment (all optional):
#   MAT_KEEP=dir   keep the .mat and .json files and gnubg's results there
#
# Usage: scripts/ci-gnubg-import.sh      (as root on Debian for the install)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)

say() { printf 'gnubg-import: %s\n' "$*" >&2; }

command -v python3 >/dev/null || { say "python3 is required"; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bgref-mat.XXXXXX")
PID=
cleanup() {
    [[ -n $PID ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
OUT=${MAT_KEEP:-$WORK/mat}
mkdir -p "$OUT"
rm -f "$OUT"/*.mat "$OUT"/*.json "$OUT"/results.jsonl

START=$SECONDS

# --- 1. gnubg ------------------------------------------------------------------
# shellcheck source=scripts/lib/gnubg.sh
source "$ROOT/scripts/lib/gnubg.sh"
ensure_gnubg "$WORK"

# --- 2. the transcripts ------------------------------------------------------------
say "writing bot-played matches (cargo run -p bgref-core --example write_mat)"
timeout 600 cargo run -q -p bgref-core --example write_mat --locked -- "$OUT" >"$WORK/write.log" || {
    cat "$WORK/write.log" >&2
    say "the example failed"
    exit 2
}
sed 's/^/  /' "$WORK/write.log" >&2

# --- 3. the service's own exports ---------------------------------------------------
BIN=${BGREF_BIN:-}
if [[ -z $BIN ]]; then
    cargo build -q -p bgref-service --locked
    BIN=${CARGO_TARGET_DIR:-$ROOT/target}/debug/bgref
fi
# shellcheck source=scripts/lib/bgref.sh
source "$ROOT/scripts/lib/bgref.sh"
GAME_TOKEN=$(python3 -c 'import secrets; print(secrets.token_urlsafe(32))')
# A fixed, throwaway dice secret (only for this test): with the seeded
# bots, every run plays the same matches, so a difference reproduces.
bgref_start "$WORK" "$BIN" \
    BGREF_GAME_TOKEN="$GAME_TOKEN" BGREF_DICE_SECRET="$(printf '%064x' 2026)"
say "playing through the service's game flow at $ADDR (tests/gnubg/play_service.py)"
BGREF_GAME_TOKEN="$GAME_TOKEN" python3 "$ROOT/tests/gnubg/play_service.py" \
    --base-url "http://$ADDR" --out "$OUT" >"$WORK/play.log" || {
    cat "$WORK/play.log" >&2
    say "playing through the service failed"
    exit 2
}
sed 's/^/  /' "$WORK/play.log" >&2
kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
PID=

# --- 4. gnubg imports them ------------------------------------------------------------
# gnubg keeps its preferences under $HOME: give it a scratch one. Its
# stdout (a board per command, and its warnings) is kept and searched.
mkdir -p "$WORK/home"
status=0
HOME=$WORK/home MAT_DIR="$OUT" MAT_OUT="$OUT/results.jsonl" \
    timeout 300 "$GNUBG" -t -q -r -p "$ROOT/tests/gnubg/import_mat.py" \
    </dev/null >"$WORK/gnubg.out" 2>"$WORK/gnubg.err" || status=$?
if [[ $status -ne 0 ]]; then
    tail -n 20 "$WORK/gnubg.err" >&2
    say "gnubg failed (exit $status)"
    exit 2
fi

# --- 5. the verdict ---------------------------------------------------------------------
warnings=$(grep -E -i 'warning|unrecognised|not a valid|had errors|record found|expand move failed|invalid' \
    "$WORK/gnubg.out" "$WORK/gnubg.err" || true)
if [[ -n $warnings ]]; then
    printf '%s\n' "$warnings" | head -n 20 >&2
    say "gnubg could not read every line"
    status=1
fi
python3 - "$OUT" <<'PYEOF' || status=1
import glob, json, os, sys
out = sys.argv[1]
files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "*.mat")))
results = {}
path = os.path.join(out, "results.jsonl")
if os.path.exists(path):
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        results[r["file"]] = r
total = {"games": 0, "rolls": 0, "positions": 0, "actions": 0}
bad = 0
for f in files:
    r = results.get(f)
    if r is None:
        print("  %s: not imported" % f, file=sys.stderr)
        bad += 1
        continue
    c = r["counts"]
    for k in total:
        total[k] += c.get(k, 0)
    print("  %s: %d games, %d rolls, %d positions, %d cube actions and resignations: %s" % (
        f, c.get("games", 0), c.get("rolls", 0), c.get("positions", 0), c.get("actions", 0),
        "same" if not r["diffs"] else "%d differences" % len(r["diffs"])), file=sys.stderr)
    for d in r["diffs"][:20]:
        print("    " + d, file=sys.stderr)
    bad += len(r["diffs"])
print("  compared %d matches: %d games, %d rolls, %d positions, %d cube actions and resignations, "
      "the scores before every game, the final scores and the players' names (and svc-match5's event, round and date); %d differences" % (
          len(files), total["games"], total["rolls"], total["positions"], total["actions"], bad),
      file=sys.stderr)
sys.exit(1 if bad or not files else 0)
PYEOF
say "done in $((SECONDS - START)) s"
exit $status

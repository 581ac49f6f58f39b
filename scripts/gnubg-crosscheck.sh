#!/usr/bin/env bash
# Independent cross-check of POST /legal-moves against GNU Backgammon itself,
# on NEW random positions (none of the corpus's position IDs):
#
#   1. installs gnubg from Debian (apt-get) when it is missing;
#   2. runs tests/gnubg/gen_cases.py inside gnubg's embedded Python: random
#      positions (standard, nackgammon, hypergammon; game walks, random,
#      race, bear-off, bar and primed positions; x or o on roll), a random
#      roll each, and gnubg's complete list of legal plays (`hint` at 0-ply);
#   3. starts `bgref` on a free loopback port;
#   4. runs tests/gnubg/compare.py: per case, the set of resulting Position
#      IDs and the notation of each play must equal gnubg's;
#   5. compares GET /render.txt with gnubg's own text board
#      (tests/gnubg/render_text.py);
#   6. stops the server; exits non-zero on any mismatch.
#
# Environment (all optional):
#   GNUBG_CASES=2000       how many cases to generate
#   GNUBG_SEED=1           generator seed ("random" for a fresh one, printed)
#   GNUBG_JOBS=4           gnubg processes generating in parallel (the cases
#                          depend on the seed AND this number)
#   GNUBG_CASES_FILE=path  compare this existing case file instead of generating
#   GNUBG_KEEP=path        keep the generated cases there
#   BGREF_BIN=path         the bgref binary (default target/debug/bgref, built
#                          with `cargo build -p bgref-service` when missing)
#
# Usage: scripts/gnubg-crosscheck.sh      (as root on Debian for the install)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
BIN=${BGREF_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/bgref}
CASES=${GNUBG_CASES:-2000}
SEED=${GNUBG_SEED:-1}
# The copy of the shared gnubg corpus kept in the repository.
CORPUS=$ROOT/core/tests/data/legal_moves.jsonl.gz

# shellcheck source=scripts/lib/bgref.sh
source "$ROOT/scripts/lib/bgref.sh"

say() { printf 'gnubg-crosscheck: %s\n' "$*" >&2; }

command -v python3 >/dev/null || { say "python3 is required"; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bgref-gnubg.XXXXXX")
PID=
cleanup() {
    if [[ -n $PID ]]; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

START=$SECONDS

# --- 1. gnubg ------------------------------------------------------------------
# shellcheck source=scripts/lib/gnubg.sh
source "$ROOT/scripts/lib/gnubg.sh"

if [[ -n ${GNUBG_CASES_FILE:-} ]]; then
    CASE_FILE=$GNUBG_CASES_FILE
    say "using the cases in $CASE_FILE"
else
    ensure_gnubg "$WORK"

    # --- 2. cases made by gnubg ------------------------------------------------
    if [[ $SEED == random ]]; then
        SEED=$(python3 -c 'import secrets; print(secrets.randbelow(2**31))')
    fi
    CASE_FILE=${GNUBG_KEEP:-$WORK/cases.jsonl}
    EXCLUDE=
    if [[ -r $CORPUS ]]; then
        EXCLUDE=$CORPUS
    else
        say "no corpus at $CORPUS: corpus positions are not excluded"
    fi
    JOBS=${GNUBG_JOBS:-4}
    say "generating $CASES cases with seed $SEED ($JOBS gnubg processes)"
    # gnubg prints a board for each command on stdout: discard it. It keeps
    # its preferences under $HOME, so give each process a scratch one (they
    # would race to create the same ~/.gnubg). Its `hint`
    # mostly sleeps (about 10 ms a call), so JOBS processes share the work.
    GEN_PIDS=()
    for ((j = 0; j < JOBS; j++)); do
        mkdir -p "$WORK/home.$j"
        HOME=$WORK/home.$j GEN_OUT="$WORK/cases.$j.jsonl" GEN_N="$CASES" GEN_SEED="$SEED" \
            GEN_WORKER=$j GEN_WORKERS=$JOBS GEN_EXCLUDE="$EXCLUDE" GEN_LOG="$WORK/gen.$j.log" \
            timeout 600 "$GNUBG" -t -q -r -p "$ROOT/tests/gnubg/gen_cases.py" \
            </dev/null >/dev/null 2>"$WORK/gnubg.$j.err" &
        GEN_PIDS+=("$!")
    done
    gen_status=0
    for ((j = 0; j < JOBS; j++)); do
        if ! wait "${GEN_PIDS[$j]}"; then
            gen_status=1
            cat "$WORK/gen.$j.log" >&2 2>/dev/null || true
            tail -n 20 "$WORK/gnubg.$j.err" >&2
        fi
    done
    [[ $gen_status -eq 0 ]] || { say "gnubg failed to generate the cases"; exit 2; }
    grep -h -m 1 'excluding' "$WORK/gen.0.log" | sed 's/^gen_cases: /  /' >&2 || true
    grep -h ' cases (' "$WORK"/gen.*.log | sed 's/^gen_cases: /  /' >&2
    # One file, without a position and roll that two processes both made.
    python3 - "$CASE_FILE" "$WORK"/cases.*.jsonl <<'EOF'
import collections, json, sys
seen, out = set(), []
for path in sys.argv[2:]:
    for line in open(path, encoding="utf-8"):
        case = json.loads(line)
        key = (case["position_id"], tuple(sorted(case["dice"])))
        if key not in seen:
            seen.add(key)
            out.append(line)
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.writelines(out)
cases = [json.loads(line) for line in out]
by = collections.Counter("%s/%s" % (c["variant"], c["source"]) for c in cases)
tags = collections.Counter(t for c in cases for t in c["tags"])
turns = collections.Counter(c["turn"] for c in cases)
print("  %d distinct cases, %d plays; x on roll %d, o on roll %d" % (
    len(cases), sum(len(c["plays"]) for c in cases), turns["x"], turns["o"]), file=sys.stderr)
print("  by variant/source: " + ", ".join("%s %d" % kv for kv in sorted(by.items())), file=sys.stderr)
print("  tags: " + ", ".join("%s %d" % kv for kv in sorted(tags.items())), file=sys.stderr)
EOF
    [[ -s $CASE_FILE ]] || { say "gnubg wrote no cases"; exit 2; }
fi

# --- 3. bgref --------------------------------------------------------------------
if [[ ! -x $BIN ]]; then
    if [[ -n ${BGREF_BIN:-} ]]; then
        say "$BIN not found"
        exit 2
    fi
    say "building bgref (cargo build -p bgref-service)"
    cargo build -q -p bgref-service
fi

bgref_start "$WORK" "$BIN"
say "bgref at http://$ADDR"

# --- 4. compare ------------------------------------------------------------------
status=0
python3 "$ROOT/tests/gnubg/compare.py" "$CASE_FILE" --base-url "http://$ADDR" || status=$?
# GET /render.txt against gnubg's own `show board` and `show pipcount`.
if find_gnubg; then
    python3 "$ROOT/tests/gnubg/render_text.py" --base-url "http://$ADDR" --gnubg "$GNUBG" || status=1
fi
if [[ -n ${GNUBG_CASES_FILE:-} ]]; then
    say "done in $((SECONDS - START)) s (cases from $GNUBG_CASES_FILE)"
else
    say "done in $((SECONDS - START)) s (seed $SEED, $CASES cases)"
fi
exit $status

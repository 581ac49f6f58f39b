#!/usr/bin/env bash
# Property-based fuzzing of the HTTP API with Schemathesis, against the real
# binary and the OpenAPI document it serves:
#
#   1. makes a Python environment (.venv-fuzz, or $BGREF_FUZZ_VENV) with a
#      pinned Schemathesis from PyPI;
#   2. starts `bgref` ($BGREF_BIN, or target/debug/bgref after `cargo build
#      -p bgref-service --locked`, a no-op when it is up to date) on a free
#      loopback port with fixed test secrets, and one token configured as
#      both the reveal token and the roll token (Schemathesis sends one
#      Authorization header to every operation);
#   3. runs `schemathesis run http://ADDR/openapi.json` over every
#      operation: the schema's examples, the coverage phase (boundary and
#      schema-violating values) and a bounded number of generated cases per
#      operation, valid and invalid, with a fixed seed and one worker (so a
#      run is reproducible), checking every response:
#        - not_a_server_error: no 5xx, whatever the input;
#        - status_code_conformance: every status is documented;
#        - content_type_conformance: the documented media type
#          (application/problem+json for every error);
#        - response_schema_conformance: bodies match the documented schemas;
#        - negative_data_rejection: schema-violating requests are refused
#          (400, 401, 403, 413 or 422);
#        - response_headers_conformance, missing_required_header,
#          unsupported_method and allow_header_conformance (a 405 with
#          `Allow`), ignored_auth (POST /dice/reveal, /dice/roll and
#          /dice/opening refuse a missing or wrong token; the real token is
#          sent to every request with -H, the other operations ignore it);
#   4. stops the server; fails if any check failed, the run did not
#      complete, the server died or it logged a panic.
#
# Not run: positive_data_acceptance. A schema cannot state every rule (a
# schema-valid board may hold 16 checkers, `ended_by: pass` needs a
# `winner`, a play must be legal), so schema-valid requests are rightly
# refused with 400/422; those answers are still checked for status, media
# type and schema. The stateful checks have nothing to do (no links).
#
# Works on a fresh Debian machine with python3 and pip (falls back to
# `pip install --target` without the venv module). Reports (JUnit, JSON)
# and the server log go to target/api-fuzz/.
#
# Usage: scripts/ci-api-fuzz.sh
#   BGREF_FUZZ_EXAMPLES  generated cases per operation (default 1000)
#   BGREF_FUZZ_SEED      the seed (default 20260101)
#   BGREF_FUZZ_WORKERS   concurrent workers (default 1: more is not faster on
#                        2 cores, and makes the order, so the cases, vary)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
BIN=${BGREF_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/bgref}
VENV=${BGREF_FUZZ_VENV:-$ROOT/.venv-fuzz}
SCHEMATHESIS_VERSION=4.32.5
EXAMPLES=${BGREF_FUZZ_EXAMPLES:-1000}
SEED=${BGREF_FUZZ_SEED:-20260101}
WORKERS=${BGREF_FUZZ_WORKERS:-1}
OUT=${CARGO_TARGET_DIR:-$ROOT/target}/api-fuzz

# Test secrets only: fixed so that a failure reproduces.
DICE_SECRET=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
SIGNING_KEY=9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60
REVEAL_TOKEN=test-reveal-token-0001

# shellcheck source=scripts/lib/bgref.sh
source "$ROOT/scripts/lib/bgref.sh"

say() { printf 'ci-api-fuzz: %s\n' "$*" >&2; }
START_TIME=$SECONDS

command -v python3 >/dev/null || { say "python3 is required"; exit 2; }

# --- 1. Schemathesis -----------------------------------------------------------
PYTHON=
if [[ -x $VENV/bin/python ]] || python3 -m venv "$VENV" >/dev/null 2>&1; then
    PYTHON=$VENV/bin/python
    if ! "$PYTHON" -m pip show schemathesis 2>/dev/null | grep -qx "Version: $SCHEMATHESIS_VERSION"; then
        "$PYTHON" -m pip install --quiet --disable-pip-version-check \
            "schemathesis==$SCHEMATHESIS_VERSION"
    fi
else
    # No venv module (Debian without python3-venv): install into a folder.
    say "python3 -m venv is unavailable; installing schemathesis with pip --target"
    rm -rf "$VENV"
    python3 -m pip install --quiet --disable-pip-version-check \
        --target "$VENV/site-packages" "schemathesis==$SCHEMATHESIS_VERSION"
    export PYTHONPATH=$VENV/site-packages${PYTHONPATH:+:$PYTHONPATH}
    PYTHON=python3
fi
"$PYTHON" -m schemathesis.cli --version

# --- 2. The server -------------------------------------------------------------
if [[ -z ${BGREF_BIN:-} ]]; then
    # Nothing to do when target/debug/bgref is up to date; never a stale one.
    cargo build -p bgref-service --locked
elif [[ ! -x $BIN ]]; then
    say "BGREF_BIN=$BIN is not an executable"
    exit 2
fi

mkdir -p "$OUT"
rm -rf "$OUT/report"
LOG=$OUT/server.log
PID=
cleanup() {
    if [[ -n $PID ]]; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT

env -i PATH="$PATH" HOME="${HOME:-/tmp}" \
    BGREF_LISTEN=127.0.0.1:0 BGREF_LOG_FORMAT=json RUST_LOG=info \
    BGREF_DICE_SECRET="$DICE_SECRET" BGREF_SIGNING_KEY="$SIGNING_KEY" \
    BGREF_REVEAL_TOKEN="$REVEAL_TOKEN" BGREF_DICE_ROLL_TOKEN="$REVEAL_TOKEN" \
    "$BIN" >"$OUT/server.out" 2>"$LOG" &
PID=$!

if ! ADDR=$(bgref_address "$LOG" "$PID"); then
    say "bgref did not start (or report its address in 30 s):"
    cat "$LOG" >&2
    exit 1
fi
say "bgref at http://$ADDR; $EXAMPLES cases per operation, seed $SEED, workers $WORKERS"

# --- 3. Schemathesis against the served document ------------------------------
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance
CHECKS+=,response_schema_conformance,negative_data_rejection
CHECKS+=,response_headers_conformance,missing_required_header
CHECKS+=,unsupported_method,allow_header_conformance,ignored_auth

# No crash cache (.schemathesis/ in the working directory, for `st
# replay`): each run stands alone. The statuses that count as refusing
# schema-violating data: the service's own. (Schemathesis' default list
# lacks 413, the answer to an over-long list such as 1001 rolls, and has
# 5xx, which must never happen.)
cat >"$OUT/schemathesis.toml" <<'EOF'
[cache]
enabled = false

[checks.negative_data_rejection]
expected-statuses = [400, 401, 403, 413, 422]
EOF

status=0
timeout --kill-after=10 900 \
    "$PYTHON" -m schemathesis.cli --config-file "$OUT/schemathesis.toml" \
    run "http://$ADDR/openapi.json" \
    --checks "$CHECKS" \
    --max-examples "$EXAMPLES" \
    --seed "$SEED" \
    --generation-database none \
    --workers "$WORKERS" \
    --header "Authorization: Bearer $REVEAL_TOKEN" \
    --request-timeout 30 \
    --no-color \
    --report junit,json --report-dir "$OUT/report" \
    || status=$?

# --- 4. Stop the server; did it survive, did it panic? ------------------------
if kill -0 "$PID" 2>/dev/null; then
    kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
else
    server_status=0
    wait "$PID" 2>/dev/null || server_status=$?
    say "the server died during the run (exit status $server_status); the end of its log:"
    tail -n 20 "$LOG" | cut -c 1-300 >&2
    status=1
fi
PID=
# The panic layer's error, or Rust's own panic message (the log may hold
# the fuzzer's binary junk, hence -a).
PANIC='"message":"the handler panicked"|panicked at '
if grep -aqE "$PANIC" "$LOG"; then
    say "the server logged a panic:"
    grep -aE "$PANIC" "$LOG" | head -n 20 | cut -c 1-2000 >&2
    status=1
fi

# One summary line from the JSON report.
REPORT=$(ls "$OUT"/report/json-*.json 2>/dev/null | head -n 1 || true)
if [[ -n $REPORT ]]; then
    "$PYTHON" - "$REPORT" <<'EOF' || status=1
import json, sys
r = json.load(open(sys.argv[1]))
ops, cases = r["operations"], r["test_cases"]
failures = sum(f["count"] for f in r["failures"])
errors = len(r["errors"])
print(f"ci-api-fuzz: {ops['tested']}/{ops['selected']} operations, "
      f"{cases['generated']} test cases, {failures} failures, {errors} errors, "
      f"stop reason {r['stop_reason']}", file=sys.stderr)
for f in r["failures"]:
    print(f"ci-api-fuzz:   {f['code']} {f['title']}: {', '.join(f['operations'])}",
          file=sys.stderr)
for e in r["errors"]:
    print(f"ci-api-fuzz:   error: {json.dumps(e)[:300]}", file=sys.stderr)
sys.exit(0 if r["complete"] and not failures and not errors
         and ops["tested"] == ops["selected"] > 0 else 1)
EOF
else
    say "no JSON report was written"
    status=1
fi

ELAPSED=$((SECONDS - START_TIME))
if [[ $status -ne 0 ]]; then
    say "FAILED in ${ELAPSED} s (reports and server log in ${OUT#"$ROOT"/}/)"
    exit 1
fi
say "ok in ${ELAPSED} s"

#!/usr/bin/env bash
# Independent check of the dice from outside the Rust code:
#
#   1. makes a Python environment (.venv-dice, or $BGREF_DICE_VENV) with
#      `cryptography` from PyPI, for an Ed25519 implementation that is not
#      ours;
#   2. starts TWO `bgref` instances on free loopback ports with the same
#      configuration: the master secret of core/tests/data/dice-vectors.json,
#      a fresh random signing key, reveal token and roll token;
#   3. runs tests/python/verify_dice.py against both (vectors, signatures,
#      key ids, statelessness, rolls and the reveal refused without their
#      tokens, the reveal, recomputed rolls, /dice/verify),
#      for two matches, with --require-signatures;
#   4. stops both instances and exits non-zero if anything failed.
#
# It builds nothing: it expects target/debug/bgref (`cargo build -p
# bgref-service`) or the binary named by $BGREF_BIN. Needs python3 with pip
# (and the venv module, or it falls back to `pip install --target`).
#
# Usage: scripts/ci-dice.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
BIN=${BGREF_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/bgref}
VENV=${BGREF_DICE_VENV:-$ROOT/.venv-dice}
VECTORS=$ROOT/core/tests/data/dice-vectors.json
VERIFIER=$ROOT/tests/python/verify_dice.py

# shellcheck source=scripts/lib/bgref.sh
source "$ROOT/scripts/lib/bgref.sh"

say() { printf 'ci-dice: %s\n' "$*" >&2; }

if [[ ! -x $BIN ]]; then
    say "$BIN not found: run 'cargo build -p bgref-service' first, or set BGREF_BIN"
    exit 2
fi
command -v python3 >/dev/null || { say "python3 is required"; exit 2; }

# --- 1. Python with an independent Ed25519 -----------------------------------
PYTHON=
if [[ -x $VENV/bin/python ]] || python3 -m venv "$VENV" >/dev/null 2>&1; then
    PYTHON=$VENV/bin/python
    "$PYTHON" -m pip install --quiet --disable-pip-version-check cryptography
else
    # No venv module (Debian without python3-venv): install into a folder.
    say "python3 -m venv is unavailable; installing cryptography with pip --target"
    rm -rf "$VENV"
    python3 -m pip install --quiet --disable-pip-version-check \
        --target "$VENV/site-packages" cryptography
    export PYTHONPATH=$VENV/site-packages${PYTHONPATH:+:$PYTHONPATH}
    PYTHON=python3
fi
"$PYTHON" -c 'import cryptography.hazmat.primitives.asymmetric.ed25519' \
    || { say "cryptography is not importable"; exit 2; }

# --- 2. Two instances, one configuration -------------------------------------
SECRET=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["master_secret_hex"])' "$VECTORS")
SIGNING_KEY=$("$PYTHON" -c 'import secrets; print(secrets.token_hex(32))')
# Tokens may begin with "-" (token_urlsafe's alphabet has it), so the
# verifier gets them as --name=value: argparse reads a separate "-..." word
# as an option and stops (two tokens: about 1 run in 32; CI failed so once).
TOKEN=$("$PYTHON" -c 'import secrets; print(secrets.token_urlsafe(32))')
ROLL_TOKEN=$("$PYTHON" -c 'import secrets; print(secrets.token_urlsafe(32))')

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bgref-ci-dice.XXXXXX")
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

# Starts one instance on 127.0.0.1:0 and sets ADDR to its address once it
# serves (not in a subshell, so that PIDS keeps its process id).
ADDR=
start() {
    local name=$1 log=$WORK/$1.log
    env -i PATH="$PATH" HOME="${HOME:-/tmp}" \
        BGREF_LISTEN=127.0.0.1:0 BGREF_LOG_FORMAT=json RUST_LOG=info \
        BGREF_DICE_SECRET="$SECRET" BGREF_SIGNING_KEY="$SIGNING_KEY" \
        BGREF_REVEAL_TOKEN="$TOKEN" BGREF_DICE_ROLL_TOKEN="$ROLL_TOKEN" \
        "$BIN" >"$WORK/$name.out" 2>"$log" &
    PIDS+=("$!")
    local pid=$! addr=
    if ! addr=$(bgref_address "$log" "$pid"); then
        say "instance $name did not start (or report its address in 30 s):"
        cat "$log" >&2
        return 1
    fi
    ADDR=$addr
}

start a
A=$ADDR
start b
B=$ADDR
say "instances at http://$A and http://$B"

# --- 3. The independent verifier against both --------------------------------
status=0
run() {
    "$PYTHON" "$VERIFIER" \
        --base-url "http://$A" --base-url "http://$B" \
        --reveal-token="$TOKEN" --roll-token="$ROLL_TOKEN" --master-secret-hex="$SECRET" \
        --require-signatures "$@" || status=1
}
run --match-id "ci-dice-match" --client-seed "alice:bob" --games 3 --turns 20
run --match-id "ci/東京 #2" --client-seed "" --games 2 --turns 10

# --- 4. Done -----------------------------------------------------------------
if [[ $status -ne 0 ]]; then
    say "FAILED; instance logs follow"
    for name in a b; do
        say "--- $name"
        tail -n 50 "$WORK/$name.log" >&2
    done
    exit 1
fi
say "ok"

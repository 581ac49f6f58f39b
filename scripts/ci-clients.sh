#!/usr/bin/env bash
# Clients proven against the real binary (examples/README.md):
#
#   1. Python: makes .venv-clients (or $BGREF_CLIENTS_VENV) with the pinned
#      examples/python/requirements.txt from PyPI, generates the stubs from
#      proto/ with grpcio-tools (no protoc needed), and runs
#      examples/python/play.py: the stateless RPCs of bgref.v1.Referee and
#      bgref.v1.Render once, then a whole refereed game over gRPC (NewGame,
#      Act), its transcript verified and exported, scored, and every roll
#      checked against the revealed seed;
#   2. TypeScript: `npm install` of examples/typescript's pinned lock file,
#      generates the types from openapi/openapi.json (openapi-typescript),
#      type-checks under `strict` (tsc --noEmit), builds, and runs the
#      client under Node: a whole refereed game over HTTP (/games,
#      /games/act), verified, scored and drawn (/render.txt);
#   3. curl and jq: examples/curl/game.sh plays a whole refereed game over
#      HTTP and verifies its transcript (jq and curl are installed as Debian
#      packages when missing); its output must reach game over and a valid
#      replay;
#
# all three against one `bgref` ($BGREF_BIN, or target/debug/bgref after `cargo
# build -p bgref-service --locked`) on a free loopback port with test
# secrets and a reveal token. Needs python3 (with venv), node and npm (and
# root on Debian when jq or curl must be installed).
# Idempotent; every step is bounded by `timeout`.
#
# Usage: scripts/ci-clients.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
BIN=${BGREF_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/bgref}
VENV=${BGREF_CLIENTS_VENV:-$ROOT/.venv-clients}
OUT=${CARGO_TARGET_DIR:-$ROOT/target}/clients
mkdir -p "$OUT"
# shellcheck source=lib/bgref.sh
source scripts/lib/bgref.sh
# shellcheck source=lib/debian.sh
source scripts/lib/debian.sh

say() { printf 'ci-clients: %s\n' "$*" >&2; }

if [[ -z ${BGREF_BIN:-} ]]; then
    timeout 1200 cargo build -p bgref-service --locked --quiet
fi

echo "--- Python environment ($VENV)"
if [[ ! -x $VENV/bin/python ]]; then
    timeout 120 python3 -m venv "$VENV"
fi
timeout 600 "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    -r examples/python/requirements.txt
rm -rf examples/python/gen && mkdir -p examples/python/gen
timeout 120 "$VENV/bin/python" -m grpc_tools.protoc -I proto \
    --python_out=examples/python/gen --grpc_python_out=examples/python/gen proto/bgref/v1/*.proto
echo "generated $(find examples/python/gen -name '*_pb2*.py' | wc -l) Python modules from proto/"

echo "--- TypeScript environment (examples/typescript)"
timeout 600 npm install --prefix examples/typescript --no-audit --no-fund --loglevel=error
(
    cd examples/typescript
    timeout 120 npm run -s gen
    timeout 300 npm run -s check
    echo "tsc --strict: the client type-checks against the generated types"
    timeout 300 npm run -s build
)

echo "--- curl and jq"
for tool in curl jq; do
    command -v "$tool" >/dev/null || debian_install "$tool" "$OUT"
done
echo "$(curl --version | head -n 1 | cut -d' ' -f1-2), $(jq --version)"

echo "--- start bgref"
LOG=$OUT/bgref.log
# /dice/roll and /dice/opening need a roll token; it is also exported so
# that a client calling them (as a trusted game server) can send it.
export BGREF_DICE_ROLL_TOKEN=test-roll-token-0001
BGREF_LISTEN=127.0.0.1:0 BGREF_LOG_FORMAT=json RUST_LOG=warn,bgref=info \
    BGREF_DICE_SECRET=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f \
    BGREF_SIGNING_KEY=9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60 \
    BGREF_REVEAL_TOKEN=test-reveal-token-0001 \
    "$BIN" >"$LOG" 2>&1 &
PID=$!
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true' EXIT
ADDR=$(bgref_address "$LOG" "$PID") || { cat "$LOG"; echo "bgref did not start"; exit 1; }
echo "bgref on $ADDR"

echo "--- Python client over gRPC"
timeout 300 "$VENV/bin/python" examples/python/play.py "$ADDR" test-reveal-token-0001

echo "--- TypeScript client over HTTP"
timeout 300 node examples/typescript/dist/play.js "http://$ADDR"

echo "--- curl and jq over HTTP (examples/curl/game.sh)"
# bgref runs without a game token (the game flow open, as the other clients
# expect); a BGREF_GAME_TOKEN in the environment reaches both bgref and
# game.sh, which sends it.
GAME=$OUT/curl-game.txt
timeout 300 examples/curl/game.sh "http://$ADDR" >"$GAME" || { cat "$GAME"; exit 1; }
head -n 3 "$GAME" && echo ... && tail -n 3 "$GAME"
turns=$(grep -c $'^[0-9]\\+\t[xo]\t[1-6]-[1-6]\t.' "$GAME" || true)
if ((turns < 10)) \
    || ! grep -qx 'game over: [xo] wins a \(single\|gammon\|backgammon\) game for [1-9][0-9]* point(s)' "$GAME" \
    || ! grep -qx 'verified: [1-9][0-9]* actions replayed, valid, state_matches' "$GAME"; then
    echo "examples/curl/game.sh did not print $turns turns, a game over and a valid replay"
    exit 1
fi

if grep -q '"panicked"\|panicked at' "$LOG"; then
    echo "bgref logged a panic"; exit 1
fi
echo "clients: Python (grpcio, the RPCs and a whole refereed game), TypeScript (strict, a whole refereed game) and curl (a whole refereed game, $turns turns) pass"

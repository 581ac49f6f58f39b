#!/usr/bin/env bash
# Load test, drain under load, and the secrets check, against the real
# binary on loopback:
#
#   1. builds bgref and the gRPC load client (bench/: bench-grpc-load), in
#      the debug profile by default (BGREF_LOAD_PROFILE=release for figures
#      worth comparing); installs wrk from Debian if missing (as root);
#   2. starts bgref with fresh random secrets: dice secret, signing key,
#      reveal, roll and game tokens; JSON logs at info, stdout and stderr
#      captured;
#   3. HTTP: wrk with a Lua mix of every operation of the served OpenAPI
#      document (each request example, the GET endpoints, /games/act on a
#      fresh token, the reveal, roll and game tokens where the operation
#      needs them), generated and checked by scripts/load/mix.py: each request
#      answered 2xx once before the load. gRPC: bench-grpc-load's `mix`
#      target (every Referee method, RollDice/OpeningRoll with the roll
#      token, the game methods with the game token). Each prints requests, throughput, p50 and p99. Fails on any
#      non-2xx answer, socket error or failed call;
#   4. resident memory (VmRSS) after a warm-up and after the load: fails
#      when it grew by more than 25 % + 16 MiB;
#   5. error bodies (bad JSON, wrong tokens, unknown paths, bad gRPC
#      messages), /metrics, /docs/ and /openapi.json are saved;
#   6. SIGTERM under load: wrk and the gRPC mix run, SIGTERM comes in the
#      middle; bgref must exit 0 after logging `bgref stopped` (not the
#      shutdown timeout), wrk must have had no non-2xx answer (connections
#      closed by the drain are socket errors and allowed), and the gRPC
#      client no failed call other than those the server never took
#      (UNAVAILABLE: a stream refused by the GOAWAY, a connection closed or
#      refused; CANCELLED "operation was canceled": still queued in the
#      client when its connection closed);
#   7. secrets: every log line bgref printed, every saved body and page is
#      searched for the five secret values (and the dice secret and signing
#      key in upper case); any hit fails. (OTLP traces: exported only when
#      OTEL_EXPORTER_OTLP_ENDPOINT is set, which this script does not do;
#      tests/tests/ops.rs checks spans sent to its own OTLP receiver.)
#
# Usage: scripts/ci-load.sh
# Environment (defaults in brackets):
#   BGREF_BIN, BGREF_LOAD_CLIENT  binaries to use (skips the build)
#   BGREF_LOAD_PROFILE [debug]    cargo profile of the build
#   LOAD_SECONDS [8]              seconds of HTTP load, and of gRPC load
#   LOAD_CONNECTIONS [32]         wrk connections, and gRPC calls in flight
# Takes about 2 x LOAD_SECONDS + 20 s after the build.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
PROFILE=${BGREF_LOAD_PROFILE:-debug}
SECS=${LOAD_SECONDS:-8}
CONNS=${LOAD_CONNECTIONS:-32}
OUT=$TARGET/load
rm -rf "$OUT" && mkdir -p "$OUT/exposed"
# shellcheck source=lib/bgref.sh
source scripts/lib/bgref.sh
say() { printf 'ci-load: %s\n' "$*"; }
fail() { say "FAIL: $*"; exit 1; }

# --- 1. Build and tools --------------------------------------------------------
if [[ -z ${BGREF_BIN:-} || -z ${BGREF_LOAD_CLIENT:-} ]]; then
    flag=()
    [[ $PROFILE == release ]] && flag=(--release)
    timeout 1800 cargo build --locked "${flag[@]}" -p bgref-service --bin bgref \
        -p bgref-bench --bin bench-grpc-load
fi
BIN=${BGREF_BIN:-$TARGET/$PROFILE/bgref}
CLIENT=${BGREF_LOAD_CLIENT:-$TARGET/$PROFILE/bench-grpc-load}
if ! command -v wrk >/dev/null; then
    if [[ $EUID -ne 0 ]] || ! command -v apt-get >/dev/null; then
        fail "wrk is not installed; as root on Debian: apt-get install wrk"
    fi
    say "installing wrk from Debian's packages"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null \
        || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
             apt-get install -y -qq --no-install-recommends wrk >/dev/null; }
fi

# --- 2. Start bgref with fresh secrets -----------------------------------------
rand() { python3 -c "import secrets, sys; print(secrets.token_hex(int(sys.argv[1])))" "$1"; }
DICE_SECRET=$(rand 32)
SIGNING_KEY=$(rand 32)
REVEAL_TOKEN=reveal-$(rand 16)
ROLL_TOKEN=roll-$(rand 16)
GAME_TOKEN=game-$(rand 16)
export BGREF_REVEAL_TOKEN=$REVEAL_TOKEN BGREF_DICE_ROLL_TOKEN=$ROLL_TOKEN BGREF_GAME_TOKEN=$GAME_TOKEN

LOG=$OUT/bgref.log
PID=
LOADERS=()
cleanup() {
    local p
    for p in "${LOADERS[@]}" $PID; do kill "$p" 2>/dev/null || true; done
    for p in "${LOADERS[@]}" $PID; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
env -i PATH="$PATH" HOME="${HOME:-/tmp}" \
    BGREF_LISTEN=127.0.0.1:0 BGREF_LOG_FORMAT=json RUST_LOG=info \
    BGREF_DICE_SECRET="$DICE_SECRET" BGREF_SIGNING_KEY="$SIGNING_KEY" \
    BGREF_REVEAL_TOKEN="$REVEAL_TOKEN" BGREF_DICE_ROLL_TOKEN="$ROLL_TOKEN" \
    BGREF_GAME_TOKEN="$GAME_TOKEN" "$BIN" >"$LOG" 2>&1 &
PID=$!
ADDR=$(bgref_address "$LOG" "$PID") || { cat "$LOG"; fail "bgref did not start"; }
URL=http://$ADDR
say "bgref ($PROFILE) at $URL, pid $PID"
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$PID/status"; }

# --- 3. The mixes, a warm-up, then the load ------------------------------------
python3 scripts/load/mix.py "$URL" "$OUT/mix.lua"
value() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<" $2"; }
run_wrk() { # seconds
    wrk -t2 -c"$CONNS" -d"$1"s --timeout 10s -s "$OUT/mix.lua" "$URL" | grep '^wrk:'
}
run_grpc() { # seconds [drain]
    "$CLIENT" "$URL" mix --duration "$1" --warmup 0 --concurrency "$CONNS" \
        --connections 4 --drain "${2:-0}" 2>>"$OUT/grpc-client.err"
}
run_wrk 3 >/dev/null
run_grpc 2 >/dev/null
RSS_BEFORE=$(rss_kib)

status=0
T0=$SECONDS
HTTP=$(run_wrk "$SECS") || fail "wrk failed: $HTTP"
GRPC=$(run_grpc "$SECS") || { status=1; cat "$OUT/grpc-client.err"; }
RSS_AFTER=$(rss_kib)
say "HTTP  $HTTP"
say "gRPC  $GRPC"
say "load: $((SECONDS - T0)) s; VmRSS $((RSS_BEFORE / 1024)) MiB after the warm-up, $((RSS_AFTER / 1024)) MiB after the load"
[[ $(value non2xx "$HTTP") == 0 ]] || { status=1; say "FAIL: HTTP answers other than 2xx"; }
[[ $(value socket_errors "$HTTP") == 0 ]] || { status=1; say "FAIL: HTTP socket errors"; }
[[ $(value requests "$HTTP") -gt 0 && $(value requests "$GRPC") -gt 0 ]] \
    || { status=1; say "FAIL: no requests measured"; }
[[ $(value errors "$GRPC") == 0 ]] || { status=1; say "FAIL: gRPC calls failed"; }
LIMIT=$((RSS_BEFORE * 5 / 4 + 16 * 1024))
[[ $RSS_AFTER -le $LIMIT ]] \
    || { status=1; say "FAIL: VmRSS grew from $RSS_BEFORE to $RSS_AFTER KiB (limit $LIMIT)"; }

# --- 5. What a client can see: error bodies, metrics, docs ---------------------
n=0
save() { # curl arguments...: the body and the headers of one answer
    n=$((n + 1))
    curl -s -o "$OUT/exposed/body-$n" -D "$OUT/exposed/head-$n" "$@" || true
}
J=(-H 'content-type: application/json')
save "${J[@]}" -d '{"match_id": "m"' "$URL/dice/roll"
save "${J[@]}" -H "authorization: Bearer $REVEAL_TOKEN" -d '{"match_id": "m", "client_seed": "", "game": 1, "turn": 1}' "$URL/dice/roll"
save "${J[@]}" -H "authorization: Bearer $ROLL_TOKEN" -d '{"match_id": "m"}' "$URL/dice/reveal"
save "${J[@]}" -H "authorization: Bearer $DICE_SECRET" -d '{"match_id": "m"}' "$URL/dice/reveal"
save "${J[@]}" -H "authorization: Bearer $ROLL_TOKEN" -d '{"match_id": "", "client_seed": "x", "game": 0}' "$URL/dice/opening"
save "${J[@]}" -d '{"state": "AAAA", "player": "x", "action": "roll"}' "$URL/games/act"
save "${J[@]}" -H "authorization: Bearer $GAME_TOKEN" -d '{"state": "AAAA", "player": "x", "action": "roll"}' "$URL/games/act"
save "${J[@]}" -H "authorization: Bearer $ROLL_TOKEN" -d '{"match_id": "m", "client_seed": "c"}' "$URL/games"
save "${J[@]}" -d '{"position": {"position_id": "nope"}, "dice": [3, 1]}' "$URL/legal-moves"
save "$URL/no-such-path?token=$ROLL_TOKEN"
save -X DELETE "$URL/dice/keys"
save -H 'content-type: application/grpc' --http2-prior-knowledge \
    --data-binary 'garbage' "$URL/bgref.v1.Referee/RollDice"
save "$URL/metrics"
save "$URL/openapi.json"
save -L "$URL/docs/"
for asset in $(grep -o 'src="[^"]*"' "$OUT/exposed/body-$n" | cut -d'"' -f2 | head -5); do
    save "$URL/docs/${asset#./}"
done

# --- 6. SIGTERM under load -----------------------------------------------------
DRAIN_SECS=6
run_wrk "$DRAIN_SECS" >"$OUT/drain-http" 2>&1 &
LOADERS+=($!)
run_grpc "$DRAIN_SECS" 1 >"$OUT/drain-grpc" &
LOADERS+=($!)
sleep 2
kill -TERM "$PID"
T0=$SECONDS
code=0
wait "$PID" || code=$?
PID=
say "SIGTERM under load: exit $code after $((SECONDS - T0)) s"
for p in "${LOADERS[@]}"; do wait "$p" || true; done
LOADERS=()
DHTTP=$(grep '^wrk:' "$OUT/drain-http" || true)
DGRPC=$(cat "$OUT/drain-grpc")
say "drain HTTP  $DHTTP"
say "drain gRPC  $DGRPC"
[[ $code == 0 ]] || { status=1; say "FAIL: exit status $code after SIGTERM"; }
grep -q '"bgref stopped"' "$LOG" || { status=1; say "FAIL: no 'bgref stopped' log line"; }
if grep -q 'did not finish in time' "$LOG"; then
    status=1; say "FAIL: in-flight requests outlived the shutdown timeout"
fi
[[ $(value non2xx "$DHTTP") == 0 ]] || { status=1; say "FAIL: non-2xx answers during the drain"; }
[[ -n $DGRPC && $(value errors "$DGRPC") == 0 ]] \
    || { status=1; say "FAIL: gRPC calls failed during the drain"; tail -3 "$OUT/grpc-client.err"; }
if grep -q 'panicked' "$LOG"; then status=1; say "FAIL: bgref logged a panic"; fi

# --- 7. Secrets ----------------------------------------------------------------
LINES=$(wc -l <"$LOG")
FILES=$(find "$OUT/exposed" -type f | wc -l)
BYTES=$(cat "$LOG" "$OUT"/exposed/* | wc -c)
# The search must find what it looks for: a planted copy of each value.
for name in DICE_SECRET SIGNING_KEY REVEAL_TOKEN ROLL_TOKEN GAME_TOKEN; do
    printf 'x%sx\n' "${!name}" >"$OUT/canary"
    grep -qF -- "${!name}" "$OUT/canary" || fail "the search misses a planted $name"
done
rm -f "$OUT/canary"
hits=0
for name in DICE_SECRET SIGNING_KEY REVEAL_TOKEN ROLL_TOKEN GAME_TOKEN; do
    secret=${!name}
    for form in "$secret" "${secret^^}"; do
        if grep -rlF -- "$form" "$LOG" "$OUT/exposed" >"$OUT/hits"; then
            hits=$((hits + 1))
            say "FAIL: the $name value appears in: $(tr '\n' ' ' <"$OUT/hits")"
        fi
    done
done
[[ $hits == 0 ]] || status=1
say "secrets: 5 values (and upper case) searched in $LINES log lines and $FILES saved answers ($BYTES bytes): $hits hits"

if [[ $status -ne 0 ]]; then
    say "FAILED; the last log lines:"
    tail -n 20 "$LOG"
    exit 1
fi
say "ok"

#!/usr/bin/env bash
# The server's user-space instructions per request, under valgrind's
# callgrind (issue 11): a figure that, unlike requests per second, does not
# move with the load of a shared machine.
#
# Starts the release `bgref` (default configuration: info logging to a
# file, metrics, every layer) under `valgrind --tool=callgrind` with
# collection off, warms it up, turns instrumentation on, sends the load, dumps
# the counters and divides the instructions (all threads) by the requests.
#
#   http         300 sequential `POST /legal-moves` (the opening position,
#                3-1: 16 plays) on one HTTP/1.1 connection
#   http-fields  the same with `"fields": ["position_id"]`
#   grpc         `LegalMoves`, 8 calls in flight on one HTTP/2 connection
#                for 4 s (bench-grpc-load)
#   grpc-fields  the same with `--fields position_id`
#   http-act-roll / grpc-act-roll  `POST /games/act` (gRPC `Act`): a roll,
#                the second player's first (a money game; `bench/game.py
#                requests` and `bench-grpc-load act-roll` make the token
#                through the public API), 300 sequential requests over HTTP,
#                8 calls in flight for 4 s over gRPC, every one on the same
#                token (no ledger: the server keeps nothing)
#   http-act-roll-fields  the HTTP roll with `"fields": ["position_id"]`
#   http-act-roll-signed / grpc-act-roll-signed  the roll with
#                `"sign_roll": true` (its receipt signed, as every roll was
#                before that option)
#   http-act-move / grpc-act-move  the same with the opening roll's move
#                (the first play its view lists)
#   http-verify  `POST /games/verify` of the recorded 7-point match
#                `bench/data/verify-7pt.json` (recorded with the dice
#                secret below), 3 sequential requests after one of warm-up;
#                also prints the instructions per replayed action
#   http-echo / grpc-echo  the bare axum / tonic echo of 300 bytes
#   http-answer / grpc-answer  the echo servers' answer method: a fixed
#                answer as large as bgref's (BENCH_ANSWER_BYTES: 7 705 over
#                HTTP, 4 171 over gRPC by default), no work to make it
#
# Usage: bench/callgrind.sh [CASE...]   (default: http http-fields grpc grpc-fields;
#        `games`: http-act-roll http-act-roll-fields http-act-roll-signed grpc-act-roll grpc-act-roll-signed http-act-move grpc-act-move http-verify)
# BENCH_LOG_FORMAT=json (or text) starts bgref with that BGREF_LOG_FORMAT
# (the default: the server's own default, text). Needs valgrind (Debian package `valgrind`) and python3; BENCH_BUILD=0
# uses the binaries already built; BENCH_BGREF names another bgref binary
# (e.g. one built from main); BENCH_KEEP=1 keeps the callgrind
# output (for callgrind_annotate).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$TARGET/release"
CASES=("$@")
[[ ${#CASES[@]} -gt 0 ]] || CASES=(http http-fields grpc grpc-fields)
[[ "${CASES[*]}" != games ]] || CASES=(http-act-roll http-act-roll-fields http-act-roll-signed grpc-act-roll grpc-act-roll-signed http-act-move grpc-act-move http-verify)

command -v valgrind >/dev/null || { echo "error: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
if [[ "${BENCH_BUILD:-1}" == 1 ]]; then
  (cd "$ROOT" && cargo build --release -p bgref-service -p bgref-bench --bins)
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/bgref-callgrind.XXXXXX")"
SERVER=""
cleanup() {
  local rc=$?
  [[ -n "$SERVER" ]] && { kill -TERM "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
  if [[ "${BENCH_KEEP:-0}" == 1 || $rc -ne 0 ]]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT

if [[ -n "${BENCH_LOG_FORMAT:-}" ]]; then
  export BGREF_LOG_FORMAT="$BENCH_LOG_FORMAT"
fi

# N sequential POSTs of BODY to URL on one connection; fails on a non-200.
http_load() {
  python3 - "$@" <<'EOF'
import http.client, sys
port, path, body, n = int(sys.argv[1]), sys.argv[2], sys.argv[3].encode(), int(sys.argv[4])
c = http.client.HTTPConnection("127.0.0.1", port)
for _ in range(n):
    c.request("POST", path, body, {"content-type": "application/json"})
    r = c.getresponse(); r.read()
    if r.status != 200: sys.exit(f"status {r.status}")
EOF
}

ECHO="$(head -c 300 /dev/zero | tr '\0' x)"

for case in "${CASES[@]}"; do
  port=$(free_port)
  out="$WORK/callgrind.$case"
  case $case in
    http-echo | grpc-echo) server=("$BIN/bench-echo-${case%-echo}" "127.0.0.1:$port") ;;
    http-answer | grpc-answer) server=("$BIN/bench-echo-${case%-answer}" "127.0.0.1:$port") ;;
    *) server=("${BENCH_BGREF:-$BIN/bgref}" --listen "127.0.0.1:$port") ;;
  esac
  answer_bytes=${BENCH_ANSWER_BYTES:-$([[ $case == grpc-answer ]] && echo 4171 || echo 7705)}
  BENCH_ANSWER_BYTES=$answer_bytes \
  # A replay runs 10 to 100 times slower under callgrind: longer limits.
  BGREF_REQUEST_TIMEOUT=300s BGREF_IDLE_TIMEOUT=600s \
  BGREF_DICE_SECRET=6c622d746573742d6c622d746573742d6c622d746573742d6c622d746573742d \
  BGREF_SIGNING_KEY=4c8e2bb0a54b6ce1d3a79e9d1e1e2f5f0b2a8f1c7d6e5a4b3c2d1e0f9a8b7c6d \
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
    "${server[@]}" >/dev/null 2>"$WORK/server.$case.log" &
  SERVER=$!
  for _ in $(seq 300); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  grpc() { "$BIN/bench-grpc-load" "http://127.0.0.1:$port" "$@" --concurrency 8 --connections 1 --warmup 0 2>/dev/null; }
  # Warm-up, not counted.
  # The game flow's requests, made through the public API before counting.
  case $case in
    http-act-*) mapfile -t act < <(python3 "$HERE/game.py" requests "$port")
      act+=("$(python3 -c 'import json,sys; b=json.loads(sys.argv[1]); b["fields"]=["position_id"]; print(json.dumps(b))' "${act[0]}")")
      act+=("$(python3 -c 'import json,sys; b=json.loads(sys.argv[1]); b["sign_roll"]=True; print(json.dumps(b))' "${act[0]}")") ;;
    http-verify) VERIFY="$(cat "$HERE/data/verify-7pt.json")"
      steps=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["actions"]))' "$HERE/data/verify-7pt.json") ;;
  esac
  case $case in
    http | http-fields) http_load "$port" /legal-moves "$LEGAL_MOVES" 50 ;;
    http-act-roll) http_load "$port" /games/act "${act[0]}" 50 ;;
    http-act-move) http_load "$port" /games/act "${act[1]}" 50 ;;
    http-act-roll-fields) http_load "$port" /games/act "${act[2]}" 50 ;;
    http-act-roll-signed) http_load "$port" /games/act "${act[3]}" 50 ;;
    http-verify) http_load "$port" /games/verify "$VERIFY" 1 ;;
    grpc-act-roll | grpc-act-roll-signed | grpc-act-move) grpc "${case#grpc-}" --duration 2 >/dev/null ;;
    http-echo) http_load "$port" /echo "$ECHO" 50 ;;
    http-answer) http_load "$port" /answer "$ECHO" 50 ;;
    grpc) grpc legal-moves --duration 2 >/dev/null ;;
    grpc-fields) grpc legal-moves --fields position_id --duration 2 >/dev/null ;;
    grpc-echo) grpc echo --duration 2 >/dev/null ;;
    grpc-answer) grpc answer --duration 2 >/dev/null ;;
    *) echo "error: unknown case $case" >&2; exit 2 ;;
  esac
  callgrind_control -i on "$SERVER" >/dev/null
  case $case in
    http) http_load "$port" /legal-moves "$LEGAL_MOVES" 300; n=300 ;;
    http-fields) http_load "$port" /legal-moves "$LEGAL_MOVES_FIELDS" 300; n=300 ;;
    http-act-roll) http_load "$port" /games/act "${act[0]}" 300; n=300 ;;
    http-act-move) http_load "$port" /games/act "${act[1]}" 300; n=300 ;;
    http-act-roll-fields) http_load "$port" /games/act "${act[2]}" 300; n=300 ;;
    http-act-roll-signed) http_load "$port" /games/act "${act[3]}" 300; n=300 ;;
    http-verify) http_load "$port" /games/verify "$VERIFY" 3; n=3 ;;
    grpc-act-roll | grpc-act-roll-signed | grpc-act-move) n=$(grpc "${case#grpc-}" --duration 4 | sed -n 's/.*requests=\([0-9]*\).*/\1/p') ;;
    http-echo) http_load "$port" /echo "$ECHO" 300; n=300 ;;
    http-answer) http_load "$port" /answer "$ECHO" 300; n=300 ;;
    grpc) n=$(grpc legal-moves --duration 4 | sed -n 's/.*requests=\([0-9]*\).*/\1/p') ;;
    grpc-fields) n=$(grpc legal-moves --fields position_id --duration 4 | sed -n 's/.*requests=\([0-9]*\).*/\1/p') ;;
    grpc-echo) n=$(grpc echo --duration 4 | sed -n 's/.*requests=\([0-9]*\).*/\1/p') ;;
    grpc-answer) n=$(grpc answer --duration 4 | sed -n 's/.*requests=\([0-9]*\).*/\1/p') ;;
  esac
  callgrind_control -i off "$SERVER" >/dev/null
  kill -TERM "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
  ir=$(awk '/^totals:/ {print $2}' "$out")
  awk -v c="$case" -v n="$n" -v ir="$ir" 'BEGIN { printf "%-13s %6d requests  %10.0f instructions per request\n", c, n, ir / n }'
  if [[ $case == http-verify ]]; then
    awk -v s="$steps" -v n="$n" -v ir="$ir" 'BEGIN { printf "%-13s %6d actions   %10.0f instructions per replayed action\n", "", s, ir / n / s }'
  fi
done

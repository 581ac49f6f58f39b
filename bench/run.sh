#!/usr/bin/env bash
# bgref's service throughput as ratios to bare framework servers (issue 11).
#
# Builds the release `bgref` and the harness binaries (bench/), starts bgref
# (default configuration: info logging, metrics, every layer), a bare axum
# echo and a bare tonic echo on loopback, and drives them with the same load
# tools, interleaved: each round runs every case once (the order reversed on
# every other round), so slow drift on a shared machine hits all cases alike.
#
#   HTTP  wrk, 64 connections: POST /legal-moves (the opening position
#         4HPwATDgc/ABMA, dice 3-1: 16 plays) vs the axum echo of a
#         300-byte body.
#   gRPC  bench-grpc-load, 64 calls in flight over 4 connections:
#         bgref.v1.Referee/LegalMoves (the same request) vs the tonic echo
#         of 300 bytes.
#   *-answer  the echo servers' `answer` method: the same 300-byte request,
#         answered with a fixed body as large as bgref's answer (measured
#         on bgref at start: 7.7 kB over HTTP). Not the issue's baseline:
#         it shows what the framework and the kernel cost for an answer of
#         that size with no work, so bgref / answer is bgref's own work.
#   grpc-*-conn  the tonic echo's two methods served the way bgref serves
#         its connections (BENCH_BGREF_CONN=1: bgref's socket wrapper, which
#         gathers HTTP/2 writes into fewer system calls, and its HTTP/2
#         settings) instead of by tonic's server. Not the issue's baseline
#         either: bgref / grpc-answer-conn is bgref's own work on the same
#         transport.
#   *-fields  the same requests asking for the Position ID only
#         (`"fields": ["position_id"]`): each play's notation and resulting
#         Position ID, 1.1 kB instead of 7.7 kB over HTTP.
#   *-act-roll, *-act-move  the game flow (issue 28), not in the default
#         set: `POST /games/act` (gRPC `Act`) with a roll, and with the
#         opening roll's move, each always on the same token of a fresh
#         money game (made through the public API by `bench/game.py
#         requests` and `bench-grpc-load`; no ledger, so the server keeps
#         nothing and the same action can be sent again).
#   http-verify  `POST /games/verify` of the recorded 7-point match
#         bench/data/verify-7pt.json (its dice need this script's secret).
#
# Prints, per case, the medians over the rounds of the requests per second,
# p50 and p99; the ratios to the echo (medians of the per-round ratios);
# and bgref's resident memory (VmRSS) idle and the peak sampled under load.
# Absolute figures depend on the machine and what else runs on it: compare
# the ratios.
#
# Usage: bench/run.sh                 (from anywhere; needs wrk, cargo)
#        bench/run.sh movegen [CLASS] (the move generator's criterion bench
#                                      per position class: contact, race,
#                                      bearoff, bar, mix)
# Environment (defaults in brackets):
#   BENCH_ROUNDS [5]       rounds; every case runs once per round
#   BENCH_DURATION [5]     seconds measured per run
#   BENCH_WARMUP [1]       gRPC: seconds run before measuring; wrk: a
#                          separate warm-up run per server at start
#   BENCH_CONNECTIONS [64] wrk connections, and gRPC calls in flight
#   BENCH_GRPC_CONNECTIONS [4] HTTP/2 connections of the gRPC client
#   BENCH_VERIFY_CONNECTIONS [2] wrk connections of http-verify (a replay
#                          takes tens of ms: more would only queue, and
#                          past --queue-timeout be refused)
#   BENCH_PIN [1]          with 2+ CPUs: servers on CPU 0, load on CPU 1
#   BENCH_BUILD [1]        0: use the binaries already built
#   BENCH_CASES            a subset, e.g. "http-echo http-bgref"; `games`:
#                          the game flow beside legal-moves (http-bgref
#                          http-act-roll http-act-move http-verify
#                          grpc-bgref grpc-act-roll grpc-act-move)
#   BENCH_KEEP [0]         1: keep the work directory (logs, raw results)
#   BENCH_BGREF            another bgref binary to measure (e.g. one built
#                          from main, for before/after with the same harness)
# Takes at most ROUNDS x 10 x (DURATION + WARMUP + 1) seconds after the
# build (under 6 minutes with the defaults).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

if [[ "${1:-}" == movegen ]]; then
  cd "$ROOT"
  exec cargo bench -p bgref-core --bench movegen -- "movegen_class${2:+/$2}"
fi

ROUNDS="${BENCH_ROUNDS:-5}"
DURATION="${BENCH_DURATION:-5}"
WARMUP="${BENCH_WARMUP:-1}"
CONNS="${BENCH_CONNECTIONS:-64}"
GRPC_CONNS="${BENCH_GRPC_CONNECTIONS:-4}"
VERIFY_CONNS="${BENCH_VERIFY_CONNECTIONS:-2}"
ALL_CASES="http-echo http-answer http-bgref http-bgref-fields grpc-echo grpc-answer grpc-echo-conn grpc-answer-conn grpc-bgref grpc-bgref-fields"
GAME_CASES="http-bgref http-act-roll http-act-move http-verify grpc-bgref grpc-act-roll grpc-act-move"
ALL_CASES+=" http-act-roll http-act-move http-verify grpc-act-roll grpc-act-move"
CASES="${BENCH_CASES:-http-echo http-answer http-bgref http-bgref-fields grpc-echo grpc-answer grpc-echo-conn grpc-answer-conn grpc-bgref grpc-bgref-fields}"
[[ "$CASES" != games ]] || CASES=$GAME_CASES

command -v wrk >/dev/null || { echo "error: wrk not found (apt-get install wrk)" >&2; exit 2; }

if [[ "${BENCH_BUILD:-1}" == 1 ]]; then
  # `--bins`: every binary of both packages (`--bin bgref` would leave the
  # harness binaries of bgref-bench out, and stale).
  (cd "$ROOT" && cargo build --release -p bgref-service -p bgref-bench --bins)
fi
BIN="$TARGET/release"

SERVER_CPU=() LOAD_CPU=()
if [[ "${BENCH_PIN:-1}" == 1 && "$(nproc)" -ge 2 ]] && command -v taskset >/dev/null; then
  SERVER_CPU=(taskset -c 0) LOAD_CPU=(taskset -c 1)
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/bgref-bench.XXXXXX")"
PIDS=()
cleanup() {
  local rc=$?
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ "${BENCH_KEEP:-0}" == 1 || $rc -ne 0 ]]; then
    echo "work directory kept: $WORK"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free loopback port (the kernel's choice, released again at once).
BGREF_PORT=$(free_port) HTTP_ECHO_PORT=$(free_port) GRPC_ECHO_PORT=$(free_port) GRPC_CONN_PORT=$(free_port)
# Test secrets (never used elsewhere): no warning about ephemeral keys.
BGREF_DICE_SECRET=6c622d746573742d6c622d746573742d6c622d746573742d6c622d746573742d \
BGREF_SIGNING_KEY=4c8e2bb0a54b6ce1d3a79e9d1e1e2f5f0b2a8f1c7d6e5a4b3c2d1e0f9a8b7c6d \
  "${SERVER_CPU[@]}" "${BENCH_BGREF:-$BIN/bgref}" --listen "127.0.0.1:$BGREF_PORT" 2>"$WORK/bgref.log" &
BGREF_PID=$!
PIDS+=("$BGREF_PID")
wait_port "$BGREF_PORT"

# Each answer checked once, so the harness never times error responses.
check() {
  local url=$1 body=$2 size
  size=$(curl -sS -f -X POST -H 'content-type: application/json' --data "$body" -o /dev/null -w '%{size_download}' "$url") ||
    { echo "error: $url refused the request" >&2; exit 1; }
  echo "$size"
}
# The sizes of bgref's answers, which the echo servers' `answer` methods
# then send (the framework's cost for an answer as large, with no work).
HTTP_ANSWER_BYTES=$(check "http://127.0.0.1:$BGREF_PORT/legal-moves" "$LEGAL_MOVES")
GRPC_ANSWER_BYTES=$("$BIN/bench-grpc-load" "http://127.0.0.1:$BGREF_PORT" legal-moves --duration 0 --warmup 0 2>&1 >/dev/null |
  sed -n 's/.* \([0-9]*\) bytes per response.*/\1/p')
[[ -n "$GRPC_ANSWER_BYTES" ]] || { echo "error: no gRPC LegalMoves answer from bgref" >&2; exit 1; }

BENCH_ANSWER_BYTES=$HTTP_ANSWER_BYTES "${SERVER_CPU[@]}" "$BIN/bench-echo-http" "127.0.0.1:$HTTP_ECHO_PORT" >/dev/null &
PIDS+=($!)
BENCH_ANSWER_BYTES=$GRPC_ANSWER_BYTES "${SERVER_CPU[@]}" "$BIN/bench-echo-grpc" "127.0.0.1:$GRPC_ECHO_PORT" >/dev/null &
PIDS+=($!)
BENCH_BGREF_CONN=1 BENCH_ANSWER_BYTES=$GRPC_ANSWER_BYTES "${SERVER_CPU[@]}" "$BIN/bench-echo-grpc" "127.0.0.1:$GRPC_CONN_PORT" >/dev/null &
PIDS+=($!)
wait_port "$HTTP_ECHO_PORT"; wait_port "$GRPC_ECHO_PORT"; wait_port "$GRPC_CONN_PORT"
sleep 1

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
IDLE_RSS=$(rss_kib "$BGREF_PID")

wrk_script "'$LEGAL_MOVES'" "$WORK/legal-moves.lua"
wrk_script "'$LEGAL_MOVES_FIELDS'" "$WORK/legal-moves-fields.lua"
wrk_script 'string.rep("x", 300)' "$WORK/echo.lua"
if [[ " $CASES " == *" http-act-"* ]]; then
  mapfile -t ACT < <(python3 "$HERE/game.py" requests "$BGREF_PORT")
  [[ ${#ACT[@]} == 2 ]] || { echo "error: no game-flow requests from bgref" >&2; exit 1; }
  wrk_script "'${ACT[0]}'" "$WORK/act-roll.lua"
  wrk_script "'${ACT[1]}'" "$WORK/act-move.lua"
fi
wrk_script "io.open('$HERE/data/verify-7pt.json'):read('*a')" "$WORK/verify.lua"

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)${SERVER_CPU:+; servers on CPU 0, load on CPU 1}"
sizes="echo $(check "http://127.0.0.1:$HTTP_ECHO_PORT/echo" "$(head -c 300 /dev/zero | tr '\0' x)")"
sizes+=", legal-moves $HTTP_ANSWER_BYTES (the echo's answer method: $(check "http://127.0.0.1:$HTTP_ECHO_PORT/answer" "$(head -c 300 /dev/zero | tr '\0' x)"))"
if [[ " $CASES " == *" http-bgref-fields "* ]]; then
  sizes+=", legal-moves with fields $(check "http://127.0.0.1:$BGREF_PORT/legal-moves" "$LEGAL_MOVES_FIELDS")"
fi
echo "HTTP response bytes: $sizes"
echo "gRPC LegalMoves message bytes: $GRPC_ANSWER_BYTES (the echo's Answer method sends as many)"

# Samples a process's VmRSS every 100 ms into a file until killed.
sample_rss() {
  while kill -0 "$1" 2>/dev/null; do rss_kib "$1" >>"$2" 2>/dev/null || true; sleep 0.1; done
}

# "rps p50_us p99_us" from wrk's output.
parse_wrk() {
  awk '
    function us(v) {
      if (v ~ /us$/) return v + 0
      if (v ~ /ms$/) return v * 1000
      if (v ~ /s$/) return v * 1000000
      return v + 0
    }
    /^ +50%/ { p50 = us($2) } /^ +99%/ { p99 = us($2) }
    /^Requests\/sec:/ { rps = $2 }
    /Non-2xx|Socket errors/ { bad = 1 }
    END { if (bad || rps == "") print "ERROR"; else printf "%.0f %.0f %.0f\n", rps, p50, p99 }'
}

# "rps p50_us p99_us" from bench-grpc-load's output line.
parse_grpc() {
  sed -n 's/.*rps=\([0-9.]*\) p50_us=\([0-9]*\) p99_us=\([0-9]*\).*/\1 \2 \3/p'
}

run_case() {
  local case=$1 out
  case $case in
    http-echo) out=$("${LOAD_CPU[@]}" wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -s "$WORK/echo.lua" \
        "http://127.0.0.1:$HTTP_ECHO_PORT/echo" | parse_wrk) ;;
    http-answer) out=$("${LOAD_CPU[@]}" wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -s "$WORK/echo.lua" \
        "http://127.0.0.1:$HTTP_ECHO_PORT/answer" | parse_wrk) ;;
    http-bgref) out=$("${LOAD_CPU[@]}" wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -s "$WORK/legal-moves.lua" \
        "http://127.0.0.1:$BGREF_PORT/legal-moves" | parse_wrk) ;;
    http-bgref-fields) out=$("${LOAD_CPU[@]}" wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -s "$WORK/legal-moves-fields.lua" \
        "http://127.0.0.1:$BGREF_PORT/legal-moves" | parse_wrk) ;;
    http-act-roll | http-act-move) out=$("${LOAD_CPU[@]}" wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -s "$WORK/${case#http-}.lua" \
        "http://127.0.0.1:$BGREF_PORT/games/act" | parse_wrk) ;;
    http-verify) out=$("${LOAD_CPU[@]}" wrk -t1 -c"$VERIFY_CONNS" -d"${DURATION}s" --latency -s "$WORK/verify.lua" \
        "http://127.0.0.1:$BGREF_PORT/games/verify" | parse_wrk) ;;
    grpc-act-roll | grpc-act-move) out=$("${LOAD_CPU[@]}" "$BIN/bench-grpc-load" "http://127.0.0.1:$BGREF_PORT" "${case#grpc-}" \
        --concurrency "$CONNS" --connections "$GRPC_CONNS" --duration "$DURATION" --warmup "$WARMUP" 2>/dev/null | parse_grpc) ;;
    grpc-echo) out=$("${LOAD_CPU[@]}" "$BIN/bench-grpc-load" "http://127.0.0.1:$GRPC_ECHO_PORT" echo \
        --concurrency "$CONNS" --connections "$GRPC_CONNS" --duration "$DURATION" --warmup "$WARMUP" 2>/dev/null | parse_grpc) ;;
    grpc-answer) out=$("${LOAD_CPU[@]}" "$BIN/bench-grpc-load" "http://127.0.0.1:$GRPC_ECHO_PORT" answer \
        --concurrency "$CONNS" --connections "$GRPC_CONNS" --duration "$DURATION" --warmup "$WARMUP" 2>/dev/null | parse_grpc) ;;
    grpc-echo-conn) out=$("${LOAD_CPU[@]}" "$BIN/bench-grpc-load" "http://127.0.0.1:$GRPC_CONN_PORT" echo \
        --concurrency "$CONNS" --connections "$GRPC_CONNS" --duration "$DURATION" --warmup "$WARMUP" 2>/dev/null | parse_grpc) ;;
    grpc-answer-conn) out=$("${LOAD_CPU[@]}" "$BIN/bench-grpc-load" "http://127.0.0.1:$GRPC_CONN_PORT" answer \
        --concurrency "$CONNS" --connections "$GRPC_CONNS" --duration "$DURATION" --warmup "$WARMUP" 2>/dev/null | parse_grpc) ;;
    grpc-bgref) out=$("${LOAD_CPU[@]}" "$BIN/bench-grpc-load" "http://127.0.0.1:$BGREF_PORT" legal-moves \
        --concurrency "$CONNS" --connections "$GRPC_CONNS" --duration "$DURATION" --warmup "$WARMUP" 2>/dev/null | parse_grpc) ;;
    grpc-bgref-fields) out=$("${LOAD_CPU[@]}" "$BIN/bench-grpc-load" "http://127.0.0.1:$BGREF_PORT" legal-moves \
        --fields position_id --concurrency "$CONNS" --connections "$GRPC_CONNS" --duration "$DURATION" \
        --warmup "$WARMUP" 2>/dev/null | parse_grpc) ;;
    *) echo "error: unknown case $case" >&2; exit 2 ;;
  esac
  if [[ -z "$out" || "$out" == ERROR ]]; then
    echo "error: $case failed (errors or no result)" >&2
    exit 1
  fi
  echo "$out"
}

# Warm-up of the HTTP servers, not recorded (the gRPC client warms up in
# every run).
"${LOAD_CPU[@]}" wrk -t1 -c"$CONNS" -d"${WARMUP}s" -s "$WORK/echo.lua" "http://127.0.0.1:$HTTP_ECHO_PORT/echo" >/dev/null
"${LOAD_CPU[@]}" wrk -t1 -c"$CONNS" -d"${WARMUP}s" -s "$WORK/legal-moves.lua" "http://127.0.0.1:$BGREF_PORT/legal-moves" >/dev/null

read -r -a case_list <<<"$CASES"
for round in $(seq "$ROUNDS"); do
  order=("${case_list[@]}")
  if ((round % 2 == 0)); then
    order=(); for ((i = ${#case_list[@]} - 1; i >= 0; i--)); do order+=("${case_list[i]}"); done
  fi
  for c in "${order[@]}"; do
    sampler=""
    if [[ $c == *bgref* ]]; then
      sample_rss "$BGREF_PID" "$WORK/rss-load" & sampler=$!
    fi
    result=$(run_case "$c")
    [[ -n "$sampler" ]] && { kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true; }
    echo "$round $c $result" >>"$WORK/results"
    printf 'round %d  %-18s %8s rps  p50 %6s us  p99 %6s us\n' "$round" "$c" $result
  done
done

LOAD_RSS=$(sort -n "$WORK/rss-load" 2>/dev/null | tail -1)
HWM=$(awk '/^VmHWM:/ {print $2}' "/proc/$BGREF_PID/status")
echo
awk -v rounds="$ROUNDS" -v names="$ALL_CASES" -v idle="$IDLE_RSS" -v load="${LOAD_RSS:-0}" -v hwm="$HWM" '
  function median(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
    if (n == 0) return 0
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { rps[$1, $2] = $3; p50[$1, $2] = $4; p99[$1, $2] = $5; seen[$2] = 1
    all_rps[$2] = all_rps[$2] " " $3; all_p50[$2] = all_p50[$2] " " $4; all_p99[$2] = all_p99[$2] " " $5 }
  END {
    printf "medians of %d interleaved rounds\n", rounds
    printf "%-18s %10s %10s %10s\n", "case", "rps", "p50 us", "p99 us"
    n = split(names, name, " ")
    for (k = 1; k <= n; k++) if (name[k] in seen)
      printf "%-18s %10.0f %10.0f %10.0f\n", name[k], median(all_rps[name[k]]), median(all_p50[name[k]]), median(all_p99[name[k]])
    print ""
    print "ratios (median of the per-round ratios; to the echo, target: rps 0.65 or more, p99 2x or less;"
    print "the game flow to legal-moves, the share of its requests per second that each case reaches)"
    # subject/base pairs: the ratios of the issue (to the stock echoes) first.
    pairs = "http-bgref/http-echo http-bgref-fields/http-echo http-answer/http-echo" \
      " http-bgref/http-answer http-bgref-fields/http-answer" \
      " grpc-bgref/grpc-echo grpc-bgref-fields/grpc-echo grpc-answer/grpc-echo" \
      " grpc-bgref/grpc-answer grpc-bgref-fields/grpc-answer" \
      " grpc-echo-conn/grpc-echo grpc-answer-conn/grpc-echo-conn" \
      " grpc-bgref/grpc-echo-conn grpc-bgref/grpc-answer-conn grpc-bgref-fields/grpc-answer-conn" \
      " http-act-roll/http-bgref http-act-move/http-bgref http-verify/http-bgref" \
      " grpc-act-roll/grpc-bgref grpc-act-move/grpc-bgref"
    np = split(pairs, pair, " ")
    for (k = 1; k <= np; k++) {
      split(pair[k], sb, "/"); subject = sb[1]; base = sb[2]
      r = ""; q = ""
      for (i = 1; i <= rounds; i++) if (((i, subject) in rps) && ((i, base) in rps) && rps[i, base] > 0) {
        r = r " " rps[i, subject] / rps[i, base]
        if (p99[i, base] > 0) q = q " " p99[i, subject] / p99[i, base]
      }
      if (r != "") printf "%-18s / %-16s rps %.2f   p99 %.2fx   (rps ratios:%s)\n", subject, base, median(r), median(q), r
    }
    print ""
    printf "bgref memory: idle VmRSS %.1f MiB; under load peak sampled VmRSS %.1f MiB (VmHWM %.1f MiB)\n", idle / 1024, load / 1024, hwm / 1024
  }' "$WORK/results"
echo "machine load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

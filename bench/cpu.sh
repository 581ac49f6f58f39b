#!/usr/bin/env bash
# Server CPU time per request (issue 11): user + system time of the server
# process, from /proc/PID/stat, divided by the requests it answered.
#
# Wall-clock ratios stop meaning much once a bare echo runs at the load
# client's ceiling (in bench/run.sh the tonic echo does: served stock or by
# bgref's conn::serve, it reaches the same requests per second). CPU per
# request is the server's own cost whatever limits the load; the ratio of
# two servers' CPU per request is the throughput ratio they would have if
# the server's core were the limit.
#
# Each case starts its server pinned to CPU 0, warms it for 1 s, then loads
# it for BENCH_DURATION seconds from CPU 1 and reads the server's CPU time
# before and after. Cases run in turn, BENCH_ROUNDS times (the order
# reversed every other round); the medians are printed, then the ratios.
#
#   grpc-echo / grpc-answer          stock tonic echo: Echo (300 bytes), Answer (4 171 bytes)
#   grpc-echo-conn / grpc-answer-conn  the same served by bgref's conn::serve
#   grpc-bgref                       bgref LegalMoves (opening position, 3-1)
#   (gRPC: bench-grpc-load, 64 calls in flight over 4 connections)
#   http-echo / http-answer          axum echo: 300 bytes, 7 705 bytes
#   http-bgref                       bgref POST /legal-moves
#   (HTTP: wrk, 64 connections)
#
# Usage: bench/cpu.sh [CASE...]   (default: every case)
# Environment: BENCH_ROUNDS [3], BENCH_DURATION [4], BENCH_BUILD [1] (0: use
# the binaries already built), BENCH_BGREF (another bgref binary).
# Needs 2+ CPUs, taskset (util-linux), wrk and python3.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$TARGET/release"
ROUNDS="${BENCH_ROUNDS:-3}"
DURATION="${BENCH_DURATION:-4}"
ALL="grpc-echo grpc-echo-conn grpc-answer grpc-answer-conn grpc-bgref http-echo http-answer http-bgref"
CASES=("$@")
[[ ${#CASES[@]} -gt 0 ]] || read -r -a CASES <<<"$ALL"

(($(nproc) >= 2)) || { echo "error: needs 2 or more CPUs (server and load on separate ones)" >&2; exit 2; }
for tool in taskset wrk python3; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found" >&2; exit 2; }
done
if [[ "${BENCH_BUILD:-1}" == 1 ]]; then
  (cd "$ROOT" && cargo build --release -p bgref-service -p bgref-bench --bins)
fi
BGREF="${BENCH_BGREF:-$BIN/bgref}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/bgref-cpu.XXXXXX")"
SERVER=""
cleanup() {
  [[ -n "$SERVER" ]] && { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
  rm -rf "$WORK"
}
trap cleanup EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

wrk_script "'$LEGAL_MOVES'" "$WORK/legal-moves.lua"
wrk_script 'string.rep("x", 300)' "$WORK/echo.lua"

# Runs one case; prints "requests ticks".
run_case() {
  local case=$1 port server load target
  port=$(free_port)
  case $case in
    grpc-echo | grpc-answer) server=(env BENCH_ANSWER_BYTES=4171 "$BIN/bench-echo-grpc" "127.0.0.1:$port") ;;
    grpc-echo-conn | grpc-answer-conn)
      server=(env BENCH_BGREF_CONN=1 BENCH_ANSWER_BYTES=4171 "$BIN/bench-echo-grpc" "127.0.0.1:$port") ;;
    http-echo | http-answer) server=(env BENCH_ANSWER_BYTES=7705 "$BIN/bench-echo-http" "127.0.0.1:$port") ;;
    grpc-bgref | http-bgref) server=("$BGREF" --listen "127.0.0.1:$port") ;;
    *) echo "error: unknown case $case" >&2; exit 2 ;;
  esac
  case $case in
    grpc-*)
      target=${case#grpc-}; target=${target%-conn}; [[ $target == bgref ]] && target=legal-moves
      load=("$BIN/bench-grpc-load" "http://127.0.0.1:$port" "$target" --concurrency 64 --connections 4 --warmup 0) ;;
    http-*)
      target=${case#http-}
      if [[ $target == bgref ]]; then
        load=(wrk -t1 -c64 -s "$WORK/legal-moves.lua" "http://127.0.0.1:$port/legal-moves")
      else
        load=(wrk -t1 -c64 -s "$WORK/echo.lua" "http://127.0.0.1:$port/$target")
      fi ;;
  esac
  taskset -c 0 "${server[@]}" >/dev/null 2>"$WORK/server.log" &
  SERVER=$!
  wait_port "$port"
  local before after out requests
  if [[ $case == grpc-* ]]; then
    taskset -c 1 "${load[@]}" --duration 1 >/dev/null 2>&1
    before=$(cpu_ticks "$SERVER")
    out=$(taskset -c 1 "${load[@]}" --duration "$DURATION" 2>&1 | tail -1)
    after=$(cpu_ticks "$SERVER")
    requests=$(sed -n 's/.*requests=\([0-9]*\) errors=0 .*/\1/p' <<<"$out")
  else
    taskset -c 1 "${load[@]}" -d1s >/dev/null
    before=$(cpu_ticks "$SERVER")
    out=$(taskset -c 1 "${load[@]}" -d"${DURATION}s")
    after=$(cpu_ticks "$SERVER")
    requests=$(awk '/requests in/ {print $1}' <<<"$out")
    grep -q "Non-2xx" <<<"$out" && requests=""
  fi
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
  [[ -n "$requests" && "$requests" -gt 0 ]] || { echo "error: $case failed: $out" >&2; exit 1; }
  echo "$requests $((after - before))"
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); servers on CPU 0, load on CPU 1"
for round in $(seq "$ROUNDS"); do
  order=("${CASES[@]}")
  if ((round % 2 == 0)); then
    order=(); for ((i = ${#CASES[@]} - 1; i >= 0; i--)); do order+=("${CASES[i]}"); done
  fi
  for c in "${order[@]}"; do
    read -r requests ticks < <(run_case "$c")
    echo "$c $requests $ticks" >>"$WORK/results"
    python3 -c "import os; t=os.sysconf('SC_CLK_TCK'); print(f'round $round  {\"$c\":<18} {$requests/$DURATION:>9.0f} rps  {$ticks/t*1e6/$requests:6.2f} us CPU per request')"
  done
done

python3 - "$WORK/results" <<'EOF'
import os, statistics, sys
tck = os.sysconf("SC_CLK_TCK")
per = {}
for line in open(sys.argv[1]):
    case, requests, ticks = line.split()
    per.setdefault(case, []).append(int(ticks) / tck * 1e6 / int(requests))
med = {case: statistics.median(v) for case, v in per.items()}
print("\nmedian server CPU per request (user + system)")
for case, v in med.items():
    print(f"  {case:<18} {v:6.2f} us   (runs: {' '.join(f'{x:.2f}' for x in per[case])})")
print("\nCPU ratios: base's CPU per request / bgref's (the throughput ratio if the server's core were the limit)")
for base in ("grpc-echo", "grpc-echo-conn", "grpc-answer", "grpc-answer-conn"):
    if base in med and "grpc-bgref" in med:
        print(f"  grpc-bgref vs {base:<18} {med[base] / med['grpc-bgref']:.2f}")
for base in ("http-echo", "http-answer"):
    if base in med and "http-bgref" in med:
        print(f"  http-bgref vs {base:<18} {med[base] / med['http-bgref']:.2f}")
EOF

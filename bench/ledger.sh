#!/usr/bin/env bash
# What the ledger adds to POST /games/act (docs/referee.md, "The ledger"):
# two release bgref instances with the same secrets, one on a local
# redis-server (append-only file, fsync every second, as the deploy guide
# recommends), one without a ledger; wrk with 64 connections posts the same
# action (x's opening roll with x's seat) on a fresh token to each, in
# alternating rounds. With the ledger the first call advances the head and
# every later one is a retry, which costs the same round trip (the
# compare-and-advance script runs either way), so each request pays exactly
# one ledger call. Prints per case the medians over the rounds of the
# requests per second, p50 and p99, and the differences.
#
# Usage: bench/ledger.sh   (needs wrk and redis-server; ROUNDS=5 DURATION=10s CONNECTIONS=64)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"
ROUNDS="${ROUNDS:-5}"
DURATION="${DURATION:-10s}"
CONNECTIONS="${CONNECTIONS:-64}"
REDIS_BIN="$(command -v redis-server || command -v valkey-server)"
(cd "$ROOT" && cargo build --release --locked -p bgref-service --bin bgref)
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/bgref"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/bgref-bench-ledger.XXXXXX")"
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT

REDIS_PORT="$(free_port)"
"$REDIS_BIN" --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK" --save '' \
  --appendonly yes --appendfsync everysec >"$WORK/redis.log" 2>&1 &
PIDS+=("$!")
wait_port "$REDIS_PORT"

export BGREF_DICE_SECRET=62656e63682d6c65646765722d62656e63682d6c65646765722d62656e636821
export BGREF_SIGNING_KEY=6a8e2bb0a54b6ce1d3a79e9d1e1e2f5f0b2a8f1c7d6e5a4b3c2d1e0f9a8b7c6e
export RUST_LOG=warn
start() {
  local port
  port="$(free_port)"
  env BGREF_LISTEN="127.0.0.1:$port" "$@" "$BIN" >"$WORK/bgref-$port.log" 2>&1 &
  PIDS+=("$!")
  wait_port "$port"
  echo "$port"
}
PLAIN="$(start)"
LEDGER="$(start BGREF_LEDGER_URL="redis://127.0.0.1:$REDIS_PORT/0")"

# The wrk script of case NAME on PORT: x's opening roll on a fresh match.
script() {
  local name=$1 port=$2 game body
  game=$(curl -sS --fail-with-body "http://127.0.0.1:$port/games" -H 'content-type: application/json' \
    -d "{\"match_id\": \"bench-$name-$RANDOM$RANDOM\", \"client_seed\": \"bench\"}")
  body=$(python3 -c 'import json,sys; g=json.load(sys.stdin); print(json.dumps(json.dumps({"state": g["state"], "seat": g["seats"]["x"], "action": "roll"})))' <<<"$game")
  wrk_script "$body" "$WORK/$name.lua"
  curl -sS --fail-with-body -o /dev/null "http://127.0.0.1:$port/games/act" -H 'content-type: application/json' \
    -d "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1]))' "$body")"
}
script plain "$PLAIN"
script ledger "$LEDGER"

# us_of "1.23ms" -> microseconds
us_of() { python3 -c 'import sys,re; v,u=re.match(r"([\d.]+)(\w+)",sys.argv[1]).groups(); print(round(float(v)*{"us":1,"ms":1e3,"s":1e6}[u]))' "$1"; }
run() {
  local name=$1 port=$2 out
  out=$(wrk -t"$(( CONNECTIONS < 2 ? 1 : 2 ))" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$WORK/$name.lua" "http://127.0.0.1:$port/games/act")
  if grep -q "Non-2xx" <<<"$out"; then echo "error: $name answered non-2xx" >&2; echo "$out" >&2; exit 1; fi
  printf '%s %s %s %s\n' "$name" "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" \
    "$(us_of "$(awk '$1 == "50%" {print $2}' <<<"$out")")" "$(us_of "$(awk '$1 == "99%" {print $2}' <<<"$out")")" >>"$WORK/results"
}
for r in $(seq "$ROUNDS"); do
  if ((r % 2)); then run plain "$PLAIN"; run ledger "$LEDGER"; else run ledger "$LEDGER"; run plain "$PLAIN"; fi
  echo "round $r done"
done
python3 - "$WORK/results" "$CONNECTIONS" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for name in ("plain", "ledger"):
    rs = [r for r in rows if r[0] == name]
    med[name] = [statistics.median(float(r[i]) for r in rs) for i in (1, 2, 3)]
print(f"{'case':8} {'req/s':>9} {'p50 us':>8} {'p99 us':>8}   (medians of {len(rows)//2} rounds, {sys.argv[2]} connections)")
for name, (rps, p50, p99) in med.items():
    print(f"{name:8} {rps:9.0f} {p50:8.0f} {p99:8.0f}")
(a, b) = med["plain"], med["ledger"]
print(f"ledger adds: p50 +{b[1]-a[1]:.0f} us ({b[1]/a[1]:.2f}x), p99 +{b[2]-a[2]:.0f} us ({b[2]/a[2]:.2f}x); "
      f"throughput {b[0]/a[0]:.2f}x")
PY

#!/usr/bin/env bash
# The ledger behind a real load balancer: one Redis-protocol store (with
# its append-only file), two bgref replicas sharing it behind nginx on
# loopback; tests/ledger/drive.py races conflicting actions on the two
# replicas, plays a whole match through nginx, and stops and restarts the
# store mid-match.
#
# Usage: tests/ledger/run.sh   (needs redis-server or valkey-server, nginx, python3)
#   BGREF_BIN    the binary (default: target/debug/bgref; built if missing)
#   NGINX_BIN    nginx (default: on PATH, else /usr/sbin/nginx)
#   REDIS_BIN    the store (default: redis-server, else valkey-server)
#   LEDGER_KEEP=1  keep the work directory
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="${BGREF_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/bgref}"
NGINX_BIN="${NGINX_BIN:-$(command -v nginx || echo /usr/sbin/nginx)}"
REDIS_BIN="${REDIS_BIN:-$(command -v redis-server || command -v valkey-server || echo /usr/bin/redis-server)}"
for b in "$NGINX_BIN" "$REDIS_BIN"; do
  [[ -x "$b" ]] || { echo "error: $b not found (scripts/ci-ledger.sh installs it)" >&2; exit 2; }
done
if [[ ! -x "$BIN" ]]; then (cd "$ROOT" && cargo build -p bgref-service --bin bgref); fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/bgref-ledger.XXXXXX")"
PIDS=()
cleanup() {
  local rc=$?
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  [[ -f "$WORK/redis.pid" ]] && kill -TERM "$(cat "$WORK/redis.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  if [[ "${LEDGER_KEEP:-0}" == 1 || $rc -ne 0 ]]; then echo "logs kept in $WORK"; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

REDIS_PORT="$(free_port)"
# The store as operators should run it (docs/referee.md): the append-only
# file, fsync'd on every write, no eviction.
cat >"$WORK/start-ledger.sh" <<SH
#!/bin/sh
"$REDIS_BIN" --port $REDIS_PORT --bind 127.0.0.1 --dir "$WORK" --save '' \
  --appendonly yes --appendfsync always --maxmemory-policy noeviction \
  --daemonize yes --pidfile "$WORK/redis.pid" --logfile "$WORK/redis.log"
for i in \$(seq 1 100); do
  python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", $REDIS_PORT), 1)' 2>/dev/null && exit 0
  sleep 0.05
done
echo "the store did not start" >&2; exit 1
SH
cat >"$WORK/stop-ledger.sh" <<SH
#!/bin/sh
pid=\$(cat "$WORK/redis.pid"); kill -TERM "\$pid"
while kill -0 "\$pid" 2>/dev/null; do sleep 0.05; done
SH
chmod +x "$WORK/start-ledger.sh" "$WORK/stop-ledger.sh"
"$WORK/start-ledger.sh"
echo "store $("$REDIS_BIN" --version | head -c 60)  127.0.0.1:$REDIS_PORT (appendonly)"

export BGREF_DICE_SECRET=6c656467657220746573742d6c656467657220746573742d6c65646765722031
export BGREF_SIGNING_KEY=5d8e2bb0a54b6ce1d3a79e9d1e1e2f5f0b2a8f1c7d6e5a4b3c2d1e0f9a8b7c6e
export BGREF_LEDGER_URL="redis://127.0.0.1:$REDIS_PORT/0"
export BGREF_LEDGER_TIMEOUT=500ms
export BGREF_LOG_FORMAT=json RUST_LOG=info

REPLICAS=()
for n in 1 2; do
  log="$WORK/replica-$n.log"
  BGREF_LISTEN=127.0.0.1:0 "$BIN" >"$log" 2>&1 &
  PIDS+=("$!")
  addr=""
  for i in $(seq 1 300); do
    addr="$(sed -n 's/.*"message":"bgref serving HTTP and gRPC".*"listen":"\([0-9.:]*\)".*/\1/p' "$log" | head -n1 || true)"
    [[ -n "$addr" ]] && break
    sleep 0.1
  done
  [[ -n "$addr" ]] || { echo "error: replica $n did not start" >&2; cat "$log" >&2; exit 1; }
  echo "bgref replica-$n  $addr"
  REPLICAS+=("http://$addr")
done

PREFIX="$WORK/nginx"
mkdir -p "$PREFIX"
LB_PORT="$(free_port)"
SERVERS=""
for a in "${REPLICAS[@]}"; do SERVERS+="        server ${a#http://};"$'\n'; done
USER_DIRECTIVE=""
if [[ $EUID -eq 0 ]]; then USER_DIRECTIVE="user $(id -un) $(id -gn);"; fi
PREFIX="$PREFIX" LISTEN="127.0.0.1:$LB_PORT" SERVERS="$SERVERS" USER_DIRECTIVE="$USER_DIRECTIVE" \
  python3 "$ROOT/tests/lb/render_nginx.py" "$ROOT/tests/lb/nginx.conf.template" "$PREFIX/nginx.conf" --no-retry-posts
unset NGINX
"$NGINX_BIN" -t -q -p "$PREFIX" -c "$PREFIX/nginx.conf" -e "$PREFIX/error.log"
"$NGINX_BIN" -p "$PREFIX" -c "$PREFIX/nginx.conf" -e "$PREFIX/error.log" &
PIDS+=("$!")
echo "nginx 127.0.0.1:$LB_PORT -> ${REPLICAS[*]}"

python3 "$HERE/drive.py" --lb "http://127.0.0.1:$LB_PORT" \
  --replicas "$(IFS=,; echo "${REPLICAS[*]}")" \
  --stop-ledger "$WORK/stop-ledger.sh" --start-ledger "$WORK/start-ledger.sh"

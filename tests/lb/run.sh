#!/usr/bin/env bash
# Statelessness, shown with a real load balancer: three bgref replicas with
# the same secrets behind nginx (round robin) on loopback, plus one lone
# reference instance; tests/lb/play_games.py plays whole games through
# nginx, kills one replica mid-game, and replays the games against the
# reference instance to compare every answer.
#
# Usage: tests/lb/run.sh        (from anywhere; needs nginx and python3)
#   BGREF_BIN   the binary (default: target/debug/bgref; built if missing)
#   NGINX_BIN   the nginx binary (default: nginx on PATH, else /usr/sbin/nginx)
#   LB_KEEP=1   keep the work directory (logs, rendered nginx.conf)
# Exit status: 0 when every check passed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="${BGREF_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/bgref}"
NGINX_BIN="${NGINX_BIN:-$(command -v nginx || echo /usr/sbin/nginx)}"

if [[ ! -x "$NGINX_BIN" ]]; then
  echo "error: nginx not found (apt-get install nginx, or set NGINX_BIN)" >&2
  exit 2
fi
if [[ ! -x "$BIN" ]]; then
  echo "building $BIN"
  (cd "$ROOT" && cargo build -p bgref-service --bin bgref)
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/bgref-lb.XXXXXX")"
PIDS=()
NGINX_PID=""
cleanup() {
  local rc=$?
  if [[ -n "$NGINX_PID" ]]; then kill -TERM "$NGINX_PID" 2>/dev/null || true; fi
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ "${LB_KEEP:-0}" == 1 || $rc -ne 0 ]]; then
    echo "logs kept in $WORK"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The same secrets on every instance (test values, never used elsewhere).
export BGREF_DICE_SECRET=6c622d746573742d6c622d746573742d6c622d746573742d6c622d746573742d
export BGREF_SIGNING_KEY=4c8e2bb0a54b6ce1d3a79e9d1e1e2f5f0b2a8f1c7d6e5a4b3c2d1e0f9a8b7c6d
# play_games.py plays the trusted game server that rolls each turn when due:
# it sends this token to /dice/roll and /dice/opening.
export BGREF_DICE_ROLL_TOKEN=lb-test-roll-token-0001
export BGREF_LOG_FORMAT=json RUST_LOG=info

# start_bgref NAME: starts one instance on a free loopback port; sets ADDR and PID.
start_bgref() {
  local name="$1" log="$WORK/$1.log" i
  : >"$log"
  BGREF_LISTEN=127.0.0.1:0 "$BIN" >"$log" 2>&1 &
  PID=$!
  PIDS+=("$PID")
  ADDR=""
  for i in $(seq 1 300); do
    ADDR="$(sed -n 's/.*"message":"bgref serving HTTP and gRPC".*"listen":"\([0-9.:]*\)".*/\1/p' "$log" | head -n1 || true)"
    [[ -n "$ADDR" ]] && break
    if ! kill -0 "$PID" 2>/dev/null; then
      echo "error: bgref $name exited:" >&2
      cat "$log" >&2
      exit 1
    fi
    sleep 0.1
  done
  if [[ -z "$ADDR" ]]; then
    echo "error: bgref $name did not start" >&2
    exit 1
  fi
  echo "bgref $name  pid $PID  $ADDR"
}

echo "== starting three replicas and a reference instance ($BIN)"
REPLICAS=()
REPLICA_PIDS=()
for n in 1 2 3; do
  start_bgref "replica-$n"
  REPLICAS+=("$ADDR")
  REPLICA_PIDS+=("$PID")
done
start_bgref reference
REFERENCE="$ADDR"

echo "== starting nginx ($("$NGINX_BIN" -v 2>&1))"
PREFIX="$WORK/nginx"
mkdir -p "$PREFIX"
LB_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
SERVERS=""
for a in "${REPLICAS[@]}"; do
  SERVERS+="        server $a max_fails=1 fail_timeout=60s;"$'\n'
done
# As root, nginx would switch its worker to "nobody", which cannot enter
# the private work directory: keep it on the current user.
USER_DIRECTIVE=""
if [[ $EUID -eq 0 ]]; then USER_DIRECTIVE="user $(id -un) $(id -gn);"; fi
PREFIX="$PREFIX" LISTEN="127.0.0.1:$LB_PORT" SERVERS="$SERVERS" USER_DIRECTIVE="$USER_DIRECTIVE" \
  python3 "$ROOT/tests/lb/render_nginx.py" "$HERE/nginx.conf.template" "$PREFIX/nginx.conf"
# nginx reads inherited listening sockets from $NGINX: never pass one on.
unset NGINX
"$NGINX_BIN" -t -q -p "$PREFIX" -c "$PREFIX/nginx.conf" -e "$PREFIX/error.log"
"$NGINX_BIN" -p "$PREFIX" -c "$PREFIX/nginx.conf" -e "$PREFIX/error.log" &
NGINX_PID=$!
echo "nginx pid $NGINX_PID  127.0.0.1:$LB_PORT -> ${REPLICAS[*]}"

echo "== playing games"
# The driver SIGKILLs one replica; bash's "Killed" notice for it is noise,
# so the shell's own stderr is muted meanwhile (the driver's is not).
exec 3>&2 2>/dev/null
set +e
python3 "$HERE/play_games.py" \
  --lb "http://127.0.0.1:$LB_PORT" \
  --single "http://$REFERENCE" \
  --replicas "$(IFS=,; echo "${REPLICAS[*]}")" \
  --kill-pid "${REPLICA_PIDS[1]}" --kill-addr "${REPLICAS[1]}" 2>&3
rc=$?
wait "${REPLICA_PIDS[1]}"
set -e
exec 2>&3 3>&-
if [[ $rc -ne 0 ]]; then
  echo "== nginx error log"
  tail -n 20 "$PREFIX/error.log" || true
fi
exit "$rc"

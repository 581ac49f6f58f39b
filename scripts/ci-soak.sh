#!/usr/bin/env bash
# Soak (issue 24): the realistic HTTP mix (scripts/load/mix.py, driven by
# wrk from 127.0.0.1) for SOAK_SECONDS against the release binary, with the
# attack clients of scripts/ci-attack.sh (bench-attack: replayed
# transcripts, pinging connections, silent sockets, stalled bodies, 20
# connections of unread answers) running alongside, each from its own
# address (127.0.0.4 to 127.0.0.8), so that each gets its share of
# BGREF_MAX_CONNECTIONS_PER_PEER whichever connects first.
# The warm-up is the same mix with the same attackers for SOAK_WARMUP
# seconds, so that the pre-soak VmRSS is the working set of that load
# (answers held for slow readers, stalled bodies, the connections' buffers,
# and what mimalloc keeps of them in idle workers' heaps: bench/README.md,
# "The soak") and the soak measures whether memory keeps growing with
# time. Fails unless, at the end, bgref is alive, its metrics count no 5xx
# answer other than 503 (the deliberate load shedding: `overloaded`,
# `timeout`), and its VmRSS after the soak (after the attackers stop and
# SOAK_SETTLE seconds of settling, the median of five readings) is within
# 20 % of its value after the warm-up (read the same way) or, failing
# that, no higher than the highest VmRSS sampled under load during the
# warm-up (every 5 s): what the allocator keeps after the load follows the
# highest load a run happened to reach, and a 600 s soak reaches a higher
# one than a 90 s warm-up in some runs without any growth with time
# (bench/README.md, "The soak"); memory that grows with the requests
# served passes both bounds. VmRSS at start is printed too, and the
# samples under load of both phases are kept in target/soak/rss-*.
#
# Usage: scripts/ci-soak.sh   (needs wrk: scripts/ci-load.sh installs it)
# Environment (defaults in brackets):
#   BGREF_BIN, BGREF_ATTACK_CLIENT  binaries to use (skips the build)
#   SOAK_SECONDS [600]              length of the soak
#   SOAK_WARMUP [90]                length of the warm-up (mix and attackers)
#   SOAK_SETTLE [10]                seconds between the end and the RSS reading
#   SOAK_ATTACKS [replay pings silent bodies readers20]
#                                   the bench-attack cases alongside the mix
#   SOAK_ENV                        more VAR=value for bgref (e.g. MIMALLOC_*)
# Takes SOAK_WARMUP + SOAK_SECONDS + about 35 s after the build.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
SECS=${SOAK_SECONDS:-600}
OUT=$TARGET/soak
rm -rf "$OUT" && mkdir -p "$OUT"
# shellcheck source=lib/bgref.sh
source scripts/lib/bgref.sh
say() { printf 'ci-soak: %s\n' "$*"; }
fail() { say "FAIL: $*"; exit 1; }

if [[ -z ${BGREF_BIN:-} || -z ${BGREF_ATTACK_CLIENT:-} ]]; then
    timeout 1800 cargo build --locked --release -p bgref-service --bin bgref \
        -p bgref-bench --bin bench-attack
fi
BIN=${BGREF_BIN:-$TARGET/release/bgref}
CLIENT=${BGREF_ATTACK_CLIENT:-$TARGET/release/bench-attack}
command -v wrk >/dev/null || fail "wrk is not installed (scripts/ci-load.sh installs it)"

rand() { python3 -c "import secrets, sys; print(secrets.token_hex(int(sys.argv[1])))" "$1"; }
export BGREF_REVEAL_TOKEN=reveal-$(rand 16) BGREF_DICE_ROLL_TOKEN=roll-$(rand 16) \
    BGREF_GAME_TOKEN=game-$(rand 16)
ATTACKERS=()
cleanup() {
    local p
    for p in "${ATTACKERS[@]}" ${PID:-}; do kill "$p" 2>/dev/null || true; done
    for p in "${ATTACKERS[@]}" ${PID:-}; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
# shellcheck disable=SC2086 # SOAK_ENV: one word per VAR=value
bgref_start "$OUT" "$BIN" BGREF_DICE_SECRET="$(rand 32)" \
    BGREF_SIGNING_KEY="$(rand 32)" BGREF_REVEAL_TOKEN="$BGREF_REVEAL_TOKEN" \
    BGREF_DICE_ROLL_TOKEN="$BGREF_DICE_ROLL_TOKEN" BGREF_GAME_TOKEN="$BGREF_GAME_TOKEN" \
    ${SOAK_ENV:-}
URL=http://$ADDR
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$PID/status"; }
# VmRSS once the load has stopped: after SOAK_SETTLE seconds of quiet,
# the median of five readings a second apart.
settled_rss_kib() {
    local i
    sleep "${SOAK_SETTLE:-10}"
    for i in 1 2 3 4 5; do rss_kib; sleep 1; done | sort -n | sed -n 3p
}
value() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<" $2"; }

say "VmRSS $(($(rss_kib) / 1024)) MiB at start, $(ls /proc/$PID/task | wc -l) threads"
python3 scripts/load/mix.py "$URL" "$OUT/mix.lua"
WARMUP=${SOAK_WARMUP:-90}
# The mix and the attackers of issue 24's items 1-4 (SOAK_ATTACKS), for $1
# seconds; the mix's summary line in $HTTP.
under_attack() {
    local case from=4
    for case in ${SOAK_ATTACKS-replay pings silent bodies readers20}; do
        ATTACK_FROM=127.0.0.$from "$CLIENT" "$ADDR" "$case" "$1" >"$OUT/attack-$case" 2>&1 &
        ATTACKERS+=($!)
        from=$((from + 1))
    done
    # VmRSS under load every 5 s, into $OUT/rss-$2.
    while sleep 5; do rss_kib || break; done >"$OUT/rss-$2" 2>/dev/null &
    ATTACKERS+=($!)
    HTTP=$(wrk -t2 -c16 -d"$1"s --timeout 10s -s "$OUT/mix.lua" "$URL" | grep '^wrk:') \
        || fail "wrk failed"
    for p in "${ATTACKERS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    ATTACKERS=()
}
# min/median/max of the samples under load of phase $1, in MiB.
under_load() { sort -n "$OUT/rss-$1" | awk '{v[NR] = $1} END {if (NR) printf "%d/%d/%d", v[1] / 1024, v[int((NR + 1) / 2)] / 1024, v[NR] / 1024}'; }
under_attack "$WARMUP" warmup
PEAK=$(sort -n "$OUT/rss-warmup" | tail -n 1)
RSS_BEFORE=$(settled_rss_kib)
say "bgref at $URL, pid $PID; VmRSS $((RSS_BEFORE / 1024)) MiB after a $WARMUP s warm-up; soaking for $SECS s"
under_attack "$SECS" soak
kill -0 "$PID" 2>/dev/null || fail "bgref died (see $OUT/bgref.log)"
RSS_AFTER=$(settled_rss_kib)
say "$(ls /proc/$PID/task | wc -l) threads after the soak"
curl -s "$URL/metrics" >"$OUT/metrics"
FIVE=$(awk '/^bgref_requests_total\{/ && /status="5[0-9][0-9]"/ && !/status="503"/ {n += $NF} END {print n + 0}' "$OUT/metrics")
SHED=$(awk '/^bgref_requests_total\{/ && /status="503"/ {n += $NF} END {print n + 0}' "$OUT/metrics")
say "HTTP mix: $HTTP"
say "VmRSS under load (min/median/max MiB): warm-up $(under_load warmup), soak $(under_load soak)"
say "VmRSS $((RSS_BEFORE / 1024)) MiB after the warm-up, $((RSS_AFTER / 1024)) MiB after the soak; 5xx other than 503: $FIVE; 503: $SHED"
status=0
LIMIT=$((RSS_BEFORE * 6 / 5))
if [[ $RSS_AFTER -gt $LIMIT ]]; then
    say "VmRSS after the soak $RSS_AFTER KiB is over 120 % of its value after the warm-up ($LIMIT KiB)"
    [[ -n $PEAK && $RSS_AFTER -le $PEAK ]] \
        || { status=1; say "FAIL: VmRSS $RSS_AFTER KiB over the warm-up's peak under load too (${PEAK:-none} KiB)"; }
fi
[[ $FIVE == 0 ]] || { status=1; say "FAIL: 5xx answers other than 503"; }
[[ $(value requests "$HTTP") -gt 0 ]] || { status=1; say "FAIL: no request of the mix measured"; }
exit "$status"

#!/usr/bin/env bash
# The attack suite of issue 24 against the release binary on loopback, at
# default settings: each attack of the issue's list is its own case, run by
# bench-attack (bench/src/bin/attack.rs) against a fresh bgref for
# ATTACK_SECONDS, with probes from 127.0.0.3 and ordinary requests from
# 127.0.0.2 alongside. bgref runs under a 512 MiB address-space cap from
# its start (prlimit --as, as `ulimit -v` would set it), with
# MALLOC_ARENA_MAX=2 as docs/configuration.md asks for under such a cap
# (glibc reserves 64 MiB of address space per malloc arena, about one per
# thread: without it bgref, main's and this one's, aborts on an
# allocation in `replay` and `readers20`).
#
#   none       no attack: the baseline
#   replay     4 clients x gRPC VerifyGame transcripts of 64 KiB
#   pings      512 HTTP/2 connections pinging every second (reopened)
#   silent     512 silent TCP sockets (reopened as they close)
#   bodies     20 HTTP/2 connections x 64 stalled request bodies
#   readers4   4 HTTP/2 connections x 64 unread 1 MB answers (window 0)
#   readers20  20 connections of the same
#
# For each case it prints: peak RSS (VmHWM), server CPU seconds, /healthz
# and /readyz latency p50/max on fresh connections (and how many did not
# answer 200), and the ordinary requests answered 200. Fails unless, for
# every case: peak RSS < 128 MiB, /healthz and /readyz max < 500 ms, every
# /healthz answered 200, the process is alive at the end (no abort under
# the cap); and, except for `none` and `replay`, at least 90 % of the
# ordinary requests answered 200.
#
# Usage: scripts/ci-attack.sh
# Environment (defaults in brackets):
#   BGREF_BIN, BGREF_ATTACK_CLIENT  binaries to use (skips the build)
#   ATTACK_SECONDS [15]             measured seconds per case (after 2 s
#                                   of attack to settle in)
#   ATTACK_CASES [all of the above] the cases to run
#   ATTACK_ENFORCE [1]              0: print the figures, do not fail
#   ATTACK_MALLOC_ARENA_MAX [2]     bgref's MALLOC_ARENA_MAX (empty: unset)
# Takes about 7 x (ATTACK_SECONDS + 4) s after the build.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
SECS=${ATTACK_SECONDS:-15}
CASES=${ATTACK_CASES:-none replay pings silent bodies readers4 readers20}
ENFORCE=${ATTACK_ENFORCE:-1}
ARENAS=${ATTACK_MALLOC_ARENA_MAX-2}
OUT=$TARGET/attack
rm -rf "$OUT" && mkdir -p "$OUT"
# shellcheck source=lib/bgref.sh
source scripts/lib/bgref.sh
say() { printf 'ci-attack: %s\n' "$*"; }

if [[ -z ${BGREF_BIN:-} || -z ${BGREF_ATTACK_CLIENT:-} ]]; then
    timeout 1800 cargo build --locked --release -p bgref-service --bin bgref \
        -p bgref-bench --bin bench-attack
fi
BIN=${BGREF_BIN:-$TARGET/release/bgref}
CLIENT=${BGREF_ATTACK_CLIENT:-$TARGET/release/bench-attack}
AS_CAP=$((512 * 1024 * 1024))
# bgref under the cap: prlimit execs it, so bgref_start's PID is bgref's.
CAPPED=$OUT/bgref-capped
printf '#!/bin/sh\nexec prlimit --as=%d -- %q "$@"\n' "$AS_CAP" "$(realpath "$BIN")" >"$CAPPED"
chmod +x "$CAPPED"
RSS_CAP_KIB=$((128 * 1024))
TICK=$(getconf CLK_TCK)
rand() { python3 -c "import secrets, sys; print(secrets.token_hex(int(sys.argv[1])))" "$1"; }

PID=
cleanup() { [[ -n $PID ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true; }
trap cleanup EXIT
cpu_secs() { awk -v t="$TICK" '{printf "%.1f", ($14 + $15) / t}' "/proc/$1/stat"; }
value() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

failed=()
printf '%-10s %9s %7s %17s %17s %8s %8s %12s\n' case rss_mib cpu_s \
    healthz_p50/max readyz_p50/max h_fail r_fail ordinary_ok
for case in $CASES; do
    work=$OUT/$case
    mkdir -p "$work"
    bgref_start "$work" "$CAPPED" BGREF_DICE_SECRET="$(rand 32)" BGREF_SIGNING_KEY="$(rand 32)" \
        ${ARENAS:+MALLOC_ARENA_MAX=$ARENAS}
    line=$("$CLIENT" "$ADDR" "$case" "$SECS")
    echo "$line" >"$work/figures"
    alive=1
    kill -0 "$PID" 2>/dev/null || alive=0
    hwm=0 cpu=nan
    if ((alive)); then
        hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$PID/status")
        cpu=$(cpu_secs "$PID")
    fi
    cleanup
    PID=
    h50=$(value healthz_p50_ms "$line") hmax=$(value healthz_max_ms "$line")
    r50=$(value readyz_p50_ms "$line") rmax=$(value readyz_max_ms "$line")
    hfail=$(value healthz_failed "$line") rfail=$(value readyz_failed "$line")
    ord=$(value ordinary_ok "$line")
    printf '%-10s %9.1f %7s %17s %17s %8s %8s %12s\n' "$case" "$(bc -l <<<"$hwm / 1024")" \
        "$cpu" "$h50/$hmax" "$r50/$rmax" "$hfail" "$rfail" "$ord"
    ((alive)) || failed+=("$case: bgref died (see $work/bgref.log)")
    ! grep -q '"the handler panicked"' "$work/bgref.log" \
        || failed+=("$case: a handler panicked (see $work/bgref.log)")
    ((hwm < RSS_CAP_KIB)) || failed+=("$case: peak RSS $((hwm / 1024)) MiB")
    awk -v m="$hmax" -v r="$rmax" 'BEGIN {exit !(m < 500 && r < 500)}' \
        || failed+=("$case: probe max $hmax / $rmax ms")
    [[ ${hfail%%/*} == 0 ]] || failed+=("$case: /healthz failed $hfail")
    if [[ $case != none && $case != replay ]]; then
        awk -v o="$ord" 'BEGIN {split(o, a, "/"); exit !(a[2] > 0 && a[1] >= 0.9 * a[2])}' \
            || failed+=("$case: ordinary requests $ord")
    fi
done

if ((${#failed[@]})); then
    printf 'ci-attack: target missed: %s\n' "${failed[@]}"
    ((ENFORCE)) && exit 1
fi
say "done"

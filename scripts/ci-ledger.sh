#!/usr/bin/env bash
# The ledger (docs/referee.md): installs a Redis-protocol server and nginx
# from Debian's packages if missing (without starting their system
# services), then runs the ledger and cheat suites through the real binary
# (tests/tests/ledger.rs, tests/tests/cheats.rs) and the two replicas behind
# nginx sharing one ledger (tests/ledger/run.sh: 50 conflicting pairs, a
# whole match, the store stopped and restarted mid-match).
#
# Usage: scripts/ci-ledger.sh   (as root on Debian, or with both installed)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '%s\n' "$*"; }
# shellcheck source=scripts/lib/debian.sh
source scripts/lib/debian.sh
WORK="$(mktemp -d "${TMPDIR:-/tmp}/bgref-ci-ledger.XXXXXX")"
POLICY=/usr/sbin/policy-rc.d
cleanup() { rm -rf "$WORK"; [[ -n "${MADE_POLICY:-}" ]] && rm -f "$POLICY"; return 0; }
trap cleanup EXIT

need() {
  local binary=$1 package=$2
  if command -v "$binary" >/dev/null || [[ -x "/usr/bin/$binary" || -x "/usr/sbin/$binary" ]]; then
    return
  fi
  if [[ $EUID -ne 0 ]] || ! command -v apt-get >/dev/null; then
    say "error: $binary is not installed; as root on Debian: apt-get install $package" >&2
    exit 2
  fi
  # Keep the packages' postinst from starting system services: only our
  # own loopback instances may run.
  if [[ ! -e "$POLICY" ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$POLICY"
    chmod 0755 "$POLICY"
    MADE_POLICY=1
  fi
  debian_install "$package" "$WORK"
}
need redis-server redis-server
need nginx nginx
say "$(redis-server --version | head -c 40)"

cargo build --locked -p bgref-service --bin bgref
# The suites fail rather than skip when the server is missing.
export CI="${CI:-true}"
cargo test --locked -p bgref-e2e --test ledger --test cheats
bash tests/ledger/run.sh
say "ci-ledger: PASS  the ledger refuses forks, replays and second starts over both protocols; two replicas behind nginx let exactly one of each conflicting pair through and survive a store restart"

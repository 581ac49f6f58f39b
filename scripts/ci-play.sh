#!/usr/bin/env bash
# GET /play/ as people use it: playwright-core (npm, the pinned lock file of
# tests/play) drives Debian's chromium through a whole 3-point match by
# clicking the page's buttons (tests/play/play.mjs): rolls, doubles, takes
# and passes, listed plays, the next game, then the .mat download and the
# verification; then a 1-point Plakoto match (its own board), verified. Screenshots (the start, a double waiting, the end) and the
# downloaded .mat are kept in $BGREF_ARTIFACTS/play (default
# target/ci-artifacts/play): CI artefacts, not committed.
#
#   1. installs chromium, nodejs and npm with apt-get when missing;
#   2. npm install in tests/play (from the lock file);
#   3. starts bgref ($BGREF_BIN, or target/debug/bgref built with cargo) on
#      a free loopback port, plays, stops it; exits non-zero on a failure.
#
# Usage: scripts/ci-play.sh      (as root on Debian for the installs)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
BIN=${BGREF_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/bgref}
SHOTS=${BGREF_ARTIFACTS:-${CARGO_TARGET_DIR:-$ROOT/target}/ci-artifacts}/play
# shellcheck source=scripts/lib/bgref.sh
source "$ROOT/scripts/lib/bgref.sh"
# shellcheck source=scripts/lib/debian.sh
source "$ROOT/scripts/lib/debian.sh"

say() { printf 'ci-play: %s\n' "$*" >&2; }
START=$SECONDS
bgref_workdir play
debian_chromium "$WORK"
command -v node >/dev/null || debian_install nodejs "$WORK"
command -v npm >/dev/null || debian_install npm "$WORK"
say "$("$CHROMIUM" --version 2>/dev/null | head -n 1), node $(node --version)"
timeout 600 npm ci --prefix tests/play --no-audit --no-fund --loglevel=error

if [[ -z ${BGREF_BIN:-} ]]; then
    timeout 1200 cargo build -q -p bgref-service --locked
fi
bgref_start "$WORK" "$BIN" RUST_LOG=warn,bgref=info
say "bgref at http://$ADDR"

rm -rf "$SHOTS"
status=0
timeout 600 node tests/play/play.mjs --base-url "http://$ADDR" --chromium "$CHROMIUM" \
    --shots "$SHOTS" || status=$?
say "screenshots and the .mat file in $SHOTS: $(ls "$SHOTS" 2>/dev/null | tr '\n' ' ')"
say "done in $((SECONDS - START)) s"
exit $status

#!/usr/bin/env bash
# GET /render.svg as a browser paints it: headless Chromium (Debian package)
# screenshots several pictures (both players on roll, a fixed perspective,
# the Crawford game without a cube, checkers on the bar,
# borne off, stacks of 6, 7 and 15, the cube centred and owned by either
# side, dice) and tests/render/pixels.py counts the checker-colour blobs per
# point, on the bar and in the tray, finds the cube and counts the pips of
# the dice, all against expectations worked out from the XGIDs alone. The
# same pixels are then checked against a deliberately wrong expectation,
# which must be caught. Then GET /render.png, bgref's own rasterisation
# (resvg) of every case, fetched one by one: the same checks on its pixels.
#
#   1. installs chromium with apt-get when it is missing;
#   2. starts bgref ($BGREF_BIN, or target/debug/bgref built with cargo) on
#      a free loopback port;
#   3. runs the pixel check; stops the server; exits non-zero on a mismatch.
#
# Usage: scripts/ci-render.sh      (as root on Debian for the install)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
BIN=${BGREF_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/bgref}
# shellcheck source=scripts/lib/bgref.sh
source "$ROOT/scripts/lib/bgref.sh"
# shellcheck source=scripts/lib/debian.sh
source "$ROOT/scripts/lib/debian.sh"

say() { printf 'ci-render: %s\n' "$*" >&2; }
START=$SECONDS
bgref_workdir render
debian_chromium "$WORK"
say "$("$CHROMIUM" --version 2>/dev/null | head -n 1)"

if [[ -z ${BGREF_BIN:-} ]]; then
    timeout 1200 cargo build -q -p bgref-service --locked
fi
bgref_start "$WORK" "$BIN" RUST_LOG=warn,bgref=info
say "bgref at http://$ADDR"

status=0
timeout 600 python3 "$ROOT/tests/render/pixels.py" --base-url "http://$ADDR" \
    --chromium "$CHROMIUM" --work "$WORK" || status=$?
say "GET /render.png: the same pictures as bgref rasterises them"
mkdir -p "$WORK/png"
timeout 600 python3 "$ROOT/tests/render/pixels.py" --base-url "http://$ADDR" \
    --png --work "$WORK/png" || status=$?
say "done in $((SECONDS - START)) s"
exit $status

#!/usr/bin/env bash
# Lints the published contracts with pinned tools from npm:
#
#   1. installs scripts/contract/package.json's pinned devDependencies
#      (Redocly CLI, @bufbuild/buf) with `npm install` from the committed
#      package-lock.json, once (skipped when node_modules matches the lock);
#   2. `redocly lint` of openapi/openapi.json with Redocly's `recommended`
#      ruleset (scripts/contract/redocly.yaml says which rule is off and why):
#      any error or warning fails;
#   3. `buf lint` (STANDARD rules, proto/buf.yaml) and `buf format -d`
#      (no diff allowed) on proto/;
#   4. `buf breaking` of proto/ against proto/previous.binpb, the image of
#      the last published proto set (refresh it on a release with
#      `scripts/contract/node_modules/.bin/buf build proto -o proto/previous.binpb`).
#
# Needs node and npm (Debian: `apt-get install nodejs npm`); no network
# after the first install. Idempotent; bounded by `timeout`.
#
# Usage: scripts/ci-contract.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
TOOLS=scripts/contract
BIN=$TOOLS/node_modules/.bin

STAMP=$TOOLS/node_modules/.bgref-lock.sha256
if ! sha256sum --status -c "$STAMP" 2>/dev/null || [[ ! -x $BIN/redocly || ! -x $BIN/buf ]]; then
    echo "installing the pinned linters (npm install, from the lock file, in $TOOLS)"
    timeout 600 npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error
    sha256sum "$TOOLS/package-lock.json" >"$STAMP"
fi
echo "redocly $("$BIN"/redocly --version), buf $("$BIN"/buf --version)"

echo "--- redocly lint openapi/openapi.json (recommended ruleset, warnings fail)"
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
timeout 120 "$BIN"/redocly lint --config "$TOOLS/redocly.yaml" --max-problems 50 \
    --format=stylish openapi/openapi.json 2>&1 | tee "$LOG"
if grep -qE '^ +[0-9]+:[0-9]+ +warning ' "$LOG"; then
    echo "redocly: warnings are failures"
    exit 1
fi

echo "--- buf lint proto (STANDARD)"
timeout 120 "$BIN"/buf lint proto
echo "ok: $(find proto/bgref -name '*.proto' | wc -l) files lint clean"

echo "--- buf format -d proto"
timeout 120 "$BIN"/buf format -d --exit-code proto
echo "ok: formatted"

echo "--- buf breaking proto against proto/previous.binpb"
timeout 120 "$BIN"/buf breaking proto --against proto/previous.binpb
echo "ok: no breaking change against the previous proto set"

echo "contract: OpenAPI lint clean; proto lint, format and breaking clean"

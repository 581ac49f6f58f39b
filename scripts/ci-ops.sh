#!/usr/bin/env bash
# Operations checks that need more than `cargo test`: statelessness behind a
# real load balancer (tests/lb/run.sh: three bgref replicas with the same
# secrets behind nginx on loopback, whole games played through it, one
# replica killed mid-game, every answer compared with a lone instance).
#
# Works on a fresh Debian machine as root: installs nginx from Debian's
# packages if it is missing (without starting the system service). Needs
# cargo and python3. Exit status: 0 when every check passed.
#
# Usage: scripts/ci-ops.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

section() { printf '\n== %s\n' "$*"; }

section "nginx"
NGINX_BIN="$(command -v nginx || true)"
if [[ -z "$NGINX_BIN" && -x /usr/sbin/nginx ]]; then NGINX_BIN=/usr/sbin/nginx; fi
if [[ -z "$NGINX_BIN" ]]; then
  if [[ $EUID -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "error: nginx is not installed; as root on Debian: apt-get install nginx" >&2
    exit 2
  fi
  # Keep the package's postinst from starting nginx on port 80: only our
  # own loopback instance may run.
  POLICY=/usr/sbin/policy-rc.d
  if [[ ! -e "$POLICY" ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$POLICY"
    chmod 0755 "$POLICY"
    trap 'rm -f "$POLICY"' EXIT
  fi
  echo "installing nginx from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends nginx >/dev/null
  NGINX_BIN=/usr/sbin/nginx
fi
"$NGINX_BIN" -v 2>&1
command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 2; }

section "build"
cargo build --locked -p bgref-service --bin bgref
export BGREF_BIN="${BGREF_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/bgref}"

section "statelessness behind nginx (tests/lb/run.sh)"
rc=0
NGINX_BIN="$NGINX_BIN" bash tests/lb/run.sh || rc=$?

section "summary"
if [[ $rc -eq 0 ]]; then
  echo "ci-ops: PASS  three replicas behind nginx gave the same dice and answers as one instance, and lost nothing when one was killed"
else
  echo "ci-ops: FAIL  (exit $rc; see the checks above)"
fi
exit "$rc"

#!/usr/bin/env bash
# Coverage-guided fuzzing of bgref-core (issue 14): every target listed in
# fuzz/Cargo.toml runs for FUZZ_SECONDS (default 15) under libFuzzer,
# FUZZ_JOBS (default 2) at a time,
# starting from its seed corpus in fuzz/corpus/<target>/. Any crash, panic,
# broken invariant or hang (an input over 10 s) fails the step; the input
# is saved in fuzz/artifacts/<target>/ and printed with the command that
# replays it. See fuzz/README.md.
#
# Stable toolchain, no nightly: `--sanitizer none` needs no -Z flag (the
# SanitizerCoverage instrumentation cargo-fuzz adds is stable codegen).
#
# Time on the 2-core machine: warm (cargo-fuzz installed, targets built)
# 13 targets x 15 s, two at a time = about 98 s of fuzzing (9 targets x 20 s
# measured at 116 s in all). The service targets (api_json, game_token)
# make the cold build heavier: bgref-service and its dependencies,
# instrumented, took 7.5 minutes of CPU (18 minutes of wall time at load 8
# to 9). Cold
# adds the cargo-fuzz install (75 s of CPU) and the build of the targets
# (57 s of CPU): about 3.5 minutes on an idle machine. (Measured while
# other builds shared the two cores, load 5 to 9: warm 116 s, cold build
# 153 s, install 120 to 160 s.)
#
# Env: FUZZ_SECONDS (per target), FUZZ_JOBS (targets run at once),
# FUZZ_TARGETS (space-separated subset),
# CARGO_TARGET_DIR (default fuzz/target).
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_FUZZ_VERSION=0.13.2
FUZZ_SECONDS="${FUZZ_SECONDS:-15}"
FUZZ_JOBS="${FUZZ_JOBS:-2}"

if ! cargo fuzz --version 2>/dev/null | grep -qF "$CARGO_FUZZ_VERSION"; then
    echo "ci-fuzz: installing cargo-fuzz $CARGO_FUZZ_VERSION from crates.io"
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

# The fuzz crate is its own workspace (the root's `cargo fmt --all` does not
# see it) with its own lock file: check its format, and refuse to build if
# the lock file would change.
cargo fmt --manifest-path fuzz/Cargo.toml -- --check
cargo fetch --locked --manifest-path fuzz/Cargo.toml

targets="${FUZZ_TARGETS:-$(cargo fuzz list)}"
echo "ci-fuzz: building $(echo $targets | wc -w) targets"
cargo fuzz build --sanitizer none

# New inputs go to a scratch directory (the first corpus directory); the
# seeds in the repo are only read.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run_target() {
    local target="$1" status=0
    cargo fuzz run --sanitizer none "$target" "$work/$target" "fuzz/corpus/$target" -- \
        -max_total_time="$FUZZ_SECONDS" -timeout=10 -print_final_stats=1 \
        >"$work/$target.log" 2>&1 || status=$?
    echo "$status" >"$work/$target.rc"
}

# FUZZ_JOBS targets at a time (one core each).
running=0
for target in $targets; do
    mkdir -p "$work/$target" "fuzz/corpus/$target"
    if [ "$running" -ge "$FUZZ_JOBS" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    echo "ci-fuzz: $target for ${FUZZ_SECONDS}s"
    run_target "$target" &
    running=$((running + 1))
done
wait

failed=()
summary=()
for target in $targets; do
    log="$work/$target.log"
    status="$(cat "$work/$target.rc" 2>/dev/null || echo 1)"
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    cov="$(grep -o 'DONE *cov: [0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1 || true)"
    if [ "$status" -ne 0 ]; then
        failed+=("$target")
        summary+=("$(printf '%-14s FAILED after %s runs' "$target" "${runs:-?}")")
        # The panic and cargo-fuzz's reproduction hints.
        echo "ci-fuzz: $target failed:"
        grep -v '^#[0-9]' "$log" | tail -n 60
    else
        summary+=("$(printf '%-14s %10s runs  cov %s' "$target" "${runs:-?}" "${cov:-?}")")
    fi
done

echo
echo "ci-fuzz: executions per target in ${FUZZ_SECONDS}s"
printf '  %s\n' "${summary[@]}"
if [ "${#failed[@]}" -ne 0 ]; then
    echo "ci-fuzz: crashes in: ${failed[*]} (inputs in fuzz/artifacts/)"
    exit 1
fi
echo "ci-fuzz: $(echo $targets | wc -w) targets, no crash"

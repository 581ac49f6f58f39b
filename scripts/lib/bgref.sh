# Shared by the CI scripts (source it): waiting for a bgref started with
# BGREF_LISTEN=127.0.0.1:0 and BGREF_LOG_FORMAT=json to say where it listens.

# bgref_address LOG PID: prints the address from the start-up line of the
# JSON log LOG once it appears (up to 30 s). Returns 1 if process PID exits
# first or nothing appears in time.
bgref_address() {
    local log=$1 pid=$2 addr=
    for _ in $(seq 1 300); do
        addr=$(python3 - "$log" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try:
        fields = json.loads(line)
    except ValueError:
        continue
    if fields.get("message") == "bgref serving HTTP and gRPC":
        print(fields["listen"])
        break
PY
)
        if [[ -n $addr ]]; then
            printf '%s\n' "$addr"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# bgref_start WORK BIN [VAR=value ...]: starts BIN in a clean environment
# (PATH, HOME, a JSON log at level info, listening on 127.0.0.1:0, plus the
# given variables, which may override those) with its log in
# WORK/bgref.log; sets PID and ADDR once it serves. Exits 2 (after printing
# the log) when it does not start. Call it directly, not in a subshell.
bgref_start() {
    local work=$1 bin=$2
    shift 2
    env -i PATH="$PATH" HOME="${HOME:-/tmp}" \
        BGREF_LISTEN=127.0.0.1:0 BGREF_LOG_FORMAT=json RUST_LOG=info "$@" \
        "$bin" >"$work/bgref.out" 2>"$work/bgref.log" &
    PID=$!
    if ! ADDR=$(bgref_address "$work/bgref.log" "$PID"); then
        cat "$work/bgref.log" >&2
        say "bgref did not start (or report its address in 30 s)"
        exit 2
    fi
}

# bgref_workdir NAME: a fresh WORK directory for this run, removed on exit
# together with the bgref process PID (set by bgref_start) when there is one.
bgref_workdir() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/bgref-$1.XXXXXX")
    PID=
    trap bgref_cleanup EXIT
}

bgref_cleanup() {
    if [[ -n ${PID:-} ]]; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}

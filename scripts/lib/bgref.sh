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
        fields = json.loads(line).get("fields", {})
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

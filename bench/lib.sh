# Shared by bench/run.sh, bench/callgrind.sh and bench/cpu.sh (sourced).

# The benchmark's request: the opening position, 3-1 (16 plays).
LEGAL_MOVES='{"position":{"position_id":"4HPwATDgc/ABMA"},"dice":[3,1]}'
# The same, asking for each play's Position ID only.
LEGAL_MOVES_FIELDS='{"position":{"position_id":"4HPwATDgc/ABMA"},"dice":[3,1],"fields":["position_id"]}'

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}

# Waits (up to 10 s) until something listens on PORT; exits if nothing does.
wait_port() {
  local port=$1
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "error: nothing listens on port $port" >&2
  exit 1
}

# A wrk script POSTing BODY (a Lua expression) as JSON, written to FILE.
wrk_script() {
  printf 'wrk.method = "POST"\nwrk.body = %s\nwrk.headers["Content-Type"] = "application/json"\n' "$1" >"$2"
}

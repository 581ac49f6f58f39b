# Shared by the gnubg CI scripts (source it after defining `say`):
# GNU Backgammon from Debian.

# ensure_gnubg WORKDIR: sets GNUBG to the gnubg binary, installing the
# Debian package (apt-get, as root) when it is missing; the apt log goes to
# WORKDIR/apt.log. Exits 2 if it cannot be installed or found.
ensure_gnubg() {
    local work=$1
    if ! find_gnubg; then
        say "installing gnubg (Debian package)"
        export DEBIAN_FRONTEND=noninteractive
        if ! apt-get install -y -qq --no-install-recommends gnubg >"$work/apt.log" 2>&1; then
            apt-get update -qq >>"$work/apt.log" 2>&1 || true
            apt-get install -y -qq --no-install-recommends gnubg >>"$work/apt.log" 2>&1 || {
                cat "$work/apt.log" >&2
                say "could not install gnubg"
                exit 2
            }
        fi
        find_gnubg || { say "gnubg is installed but not found"; exit 2; }
    fi
    say "$("$GNUBG" --version 2>/dev/null | head -n 1)"
}

# find_gnubg: sets GNUBG to gnubg on the PATH or in /usr/games; fails when
# there is none.
find_gnubg() {
    GNUBG=$(command -v gnubg 2>/dev/null || true)
    [[ -z $GNUBG && -x /usr/games/gnubg ]] && GNUBG=/usr/games/gnubg
    [[ -n $GNUBG ]]
}

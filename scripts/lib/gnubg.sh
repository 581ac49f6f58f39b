# Shared by the gnubg CI scripts (source it after defining `say`):
# GNU Backgammon from Debian.

# shellcheck source=scripts/lib/debian.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

# ensure_gnubg WORKDIR: sets GNUBG to the gnubg binary, installing the
# Debian package when it is missing. Exits 2 if it cannot be installed or
# found.
ensure_gnubg() {
    if ! find_gnubg; then
        debian_install gnubg "$1"
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

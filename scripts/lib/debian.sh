# Shared by the CI scripts (source it after defining `say`): Debian packages.

# debian_install PACKAGE WORKDIR: apt-get install PACKAGE (as root; an
# `apt-get update` first only when the plain install fails), its log in
# WORKDIR/apt.log. Exits 2 when it cannot be installed.
debian_install() {
    local package=$1 work=$2
    say "installing $package (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq --no-install-recommends "$package" >"$work/apt.log" 2>&1; then
        apt-get update -qq >>"$work/apt.log" 2>&1 || true
        apt-get install -y -qq --no-install-recommends "$package" >>"$work/apt.log" 2>&1 || {
            cat "$work/apt.log" >&2
            say "could not install $package"
            exit 2
        }
    fi
}

# debian_chromium WORKDIR: sets CHROMIUM to Debian's chromium, installing
# it first when it is missing (exits 2 when it cannot be found after).
debian_chromium() {
    CHROMIUM=$(command -v chromium 2>/dev/null || true)
    if [[ -z $CHROMIUM ]]; then
        debian_install chromium "$1"
        CHROMIUM=$(command -v chromium) || { say "chromium is installed but not found"; exit 2; }
    fi
}

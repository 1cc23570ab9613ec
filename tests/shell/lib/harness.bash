# tests/shell/lib/harness.bash - how a daemon suite of tests/shell starts, sourced (never run:
# `make test-shell` runs tests/shell/*.sh only): the repository root as the working folder, the
# build's daemon in $D, a temporary folder $TMP removed on exit after the daemon in $PID (if
# any) is stopped, and the pass/fail counters with `same`.
# Usage, first line after the header comment:  . "$(dirname "$0")/lib/harness.bash" NAME
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
D=${PT2SCOPE_DAEMON:-$B/pt2scoped}
TMP=$(mktemp -d "/tmp/pt2scope-$1-XXXXXX")
PID=
cleanup() {
    if [ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null; then wait "$PID" 2>/dev/null; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
pass=0 fail=0
same() { # same WHAT ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); printf 'FAIL %s: got\n  %s\nwant\n  %s\n' "$1" "$2" "$3"; fi
}

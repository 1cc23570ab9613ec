#!/usr/bin/env bash
# Runs, exactly as printed, every curl example `make run` shows (they come from
# `make run-examples`), against a daemon started like `make run` does but on a
# free loopback port: each must exit 0 and get a 2xx status.
set -u
cd "$(dirname "$0")/../.." || exit 1
# tests/contract/run.sh sets PT2SCOPE_DAEMON to pt2scoped-test, which records responses.
D=${PT2SCOPE_DAEMON:-${PT2SCOPE_BUILD:-build}/pt2scoped}
[ -x "$D" ] || { echo "FAIL: $D not built"; exit 1; }
TMP=$(mktemp -d /tmp/pt2d-run-XXXXXX)
PID=
cleanup() {
    if [ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null; then wait "$PID" 2>/dev/null; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
"$D" --listen 127.0.0.1:0 --port-file "$TMP/port" --model-root tests/fixtures 2>"$TMP/log" &
PID=$!
for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
PORT=$(cat "$TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { echo "FAIL: daemon did not start"; cat "$TMP/log"; exit 1; }

# Join "\" continuations; keep the lines that are curl commands.
make -s --no-print-directory run-examples | sed 's/^ *//' |
    awk '{ line = line $0; if (line ~ /\\$/) { sub(/\\$/, "", line); next }
           if (line ~ /^curl /) print line; line = "" }' >"$TMP/examples"
n=$(wc -l <"$TMP/examples")
[ "$n" -ge 4 ] || { echo "FAIL: only $n curl examples printed by make run"; exit 1; }
pass=0 fail=0
while IFS= read -r cmd; do
    run=${cmd//127.0.0.1:8080/127.0.0.1:$PORT}
    out=$(eval "$run --max-time 30 -w '\n__STATUS__:%{http_code}'" 2>&1)
    rc=$? status=${out##*__STATUS__:}
    if [ "$rc" = 0 ] && [ "${status:0:1}" = 2 ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL (exit $rc, HTTP $status): $cmd"; fi
done <"$TMP/examples"
echo "make_run_examples: $pass passed, $fail failed"
[ "$fail" = 0 ]

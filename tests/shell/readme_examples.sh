#!/usr/bin/env bash
# Runs every curl example of README.md's "HTTP API" section against a live
# pt2scoped on a free loopback port: each must exit 0 and get a 2xx status.
# The examples are extracted from the README so docs and test cannot drift.
set -u
cd "$(dirname "$0")/../.." || exit 1
# tests/contract/run.sh sets PT2SCOPE_DAEMON to pt2scoped-test, which records responses.
D=${PT2SCOPE_DAEMON:-${PT2SCOPE_BUILD:-build}/pt2scoped}
if [ ! -x "$D" ]; then echo "FAIL: $D not built"; exit 1; fi
if [ ! -f tests/fixtures/cuda_sm90a_v8.pt2 ]; then
    echo "FAIL: tests/fixtures not generated"; exit 1
fi

TMP=$(mktemp -d /tmp/pt2d-readme-XXXXXX)
PID=
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill -KILL "$PID" 2>/dev/null; fi
    rm -rf "$TMP"
}
trap cleanup EXIT

"$D" --listen 127.0.0.1:0 --port-file "$TMP/port" --model-root tests/fixtures \
     --cors-origin https://ui.example 2>"$TMP/log" &
PID=$!
for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
PORT=$(cat "$TMP/port" 2>/dev/null)
if [ -z "$PORT" ]; then echo "FAIL: daemon did not start"; cat "$TMP/log"; exit 1; fi

# The section runs from "## HTTP API" to the next "## " heading; examples are
# the lines of ```sh blocks that start with "curl" (a trailing "\" continues).
awk '
    /^## / { insec = ($0 == "## HTTP API") ; next }
    insec && /^```sh/ { inblk = 1; next }
    inblk && /^```/ { inblk = 0; next }
    inblk {
        line = line $0
        if (line ~ /\\$/) { sub(/\\$/, "", line); next }
        if (line ~ /^curl /) print line
        line = ""
    }
' README.md >"$TMP/examples"

n=$(wc -l <"$TMP/examples")
if [ "$n" -lt 10 ]; then echo "FAIL: only $n curl examples found in README.md"; exit 1; fi

pass=0 fail=0
while IFS= read -r cmd; do
    run=${cmd//127.0.0.1:8080/127.0.0.1:$PORT}
    out=$(eval "$run --max-time 30 -w '\n__STATUS__:%{http_code}'" 2>&1)
    rc=$?
    status=${out##*__STATUS__:}
    if [ "$rc" = 0 ] && [ "${status:0:1}" = 2 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL (exit $rc, HTTP $status): $cmd"
        printf '%s\n' "${out%__STATUS__:*}" | head -5
    fi
done <"$TMP/examples"

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
if [ "$rc" != 0 ]; then echo "FAIL: daemon exited $rc after SIGTERM"; fail=$((fail + 1)); fi
echo "readme_examples: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# Runs every curl example of README.md's "HTTP API" section against a live
# pt2scoped on a free loopback port: each must exit 0 and get a 2xx status
# (and a preflight from the README's origin its CORS headers, as under
# `make run CORS_ORIGIN=https://ui.example`). Then every command line of the
# "Command line" section's sh blocks, as printed, on a node the stand-in CUDA
# driver gives two GPUs: each must exit 0 (or 1, "incompatible"; 3 for a scan
# over the broken fixtures, "unreadable"), print
# something and nothing on stderr. The examples are extracted from the README
# so docs and test cannot drift.
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
    if [ "$rc" = 0 ] && [ "${status:0:1}" = 2 ] && { [[ "$cmd" != *"-H 'Origin: "* ]] ||
        grep -q '^Access-Control-Allow-Origin: https://ui.example' <<<"${out//$'\r'/}"; }; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL (exit $rc, HTTP $status): $cmd"
        printf '%s\n' "${out%__STATUS__:*}" | head -5
    fi
done <"$TMP/examples"

# The CLI's examples, as printed (build/ is $PT2SCOPE_BUILD when that is another folder).
B=${PT2SCOPE_BUILD:-build}
awk '
    /^## / { insec = ($0 == "## Command line: `pt2scope`") ; next }
    insec && /^```sh/ { inblk = 1; next }
    inblk && /^```/ { inblk = 0; next }
    inblk && /^build\/pt2scope / { sub(/[ \t]+#.*$/, ""); print }
' README.md >"$TMP/cli"
n=$(wc -l <"$TMP/cli")
if [ "$n" -lt 12 ]; then echo "FAIL: only $n pt2scope examples found in README.md"; fail=$((fail + 1)); fi
while IFS= read -r cmd; do
    run="$B/pt2scope ${cmd#build/pt2scope }"
    PT2SCOPE_LIBCUDA="$B/fakecuda/libcuda.so.1" PT2SCOPE_FAKECUDA_DRIVER=13000 \
        PT2SCOPE_FAKECUDA_DEVICES='NVIDIA H100 80GB HBM3,9.0,132,85899345920;NVIDIA A100-SXM4-40GB,8.0,108,42949672960' \
        bash -c "$run" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    # 3 (a package that cannot be read) only for a scan: tests/fixtures holds broken ones on purpose.
    if { [ "$rc" = 0 ] || [ "$rc" = 1 ] || { [ "$rc" = 3 ] && [[ "$cmd" == *" scan "* ]]; }; } &&
        [ -s "$TMP/out" ] && [ ! -s "$TMP/err" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL (exit $rc): $cmd"
        head -3 "$TMP/err"
    fi
done <"$TMP/cli"

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
if [ "$rc" != 0 ]; then echo "FAIL: daemon exited $rc after SIGTERM"; fail=$((fail + 1)); fi
echo "readme_examples: $pass passed, $fail failed"
[ "$fail" = 0 ]

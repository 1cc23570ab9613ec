#!/usr/bin/env bash
# Test hooks stay out of the product: $B/pt2scoped (built without
# -DPT2SCOPE_TEST_HOOKS) refuses --test-gate and the old --debug-job-delay-ms
# as unknown options, carries no recorder or gate symbol or string, and writes
# nothing when PT2SCOPE_RECORD_DIR is set; $B/pt2scoped-test (the test build
# the contract stage and the gated tests start) has both hooks, and they work:
# it records each response, and --test-gate FILE holds a job until FILE exists.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
PROD=$B/pt2scoped TEST=$B/pt2scoped-test
# run.sh records every daemon through these; this test sets its own.
unset PT2SCOPE_RECORD_DIR PT2SCOPE_TEST_GATE PT2SCOPE_DAEMON
for f in "$PROD" "$TEST"; do [ -x "$f" ] || { echo "FAIL: $f not built"; exit 1; }; done
command -v nm >/dev/null || { echo "FAIL: nm missing (binutils)"; exit 1; }
TMP=$(mktemp -d /tmp/pt2scope-hooks-XXXXXX)
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
pass=0 fail=0
same() { # same WHAT ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); printf 'FAIL %s: got\n  %s\nwant\n  %s\n' "$1" "$2" "$3"; fi
}

# start NAME BINARY ARGS...: a daemon on a free port, its base URL in $URL
start() {
    local name=$1 bin=$2
    shift 2
    "$bin" --listen 127.0.0.1:0 --port-file "$TMP/$name.port" --model-root tests/fixtures \
        --libcuda /nonexistent/pt2scope/libcuda.so.1 "$@" 2>"$TMP/$name.log" &
    PIDS+=($!)
    for _ in $(seq 1 1000); do [ -s "$TMP/$name.port" ] && break; sleep 0.01; done
    [ -s "$TMP/$name.port" ] || { echo "FAIL: $name did not start"; cat "$TMP/$name.log"; exit 1; }
    URL=http://127.0.0.1:$(cat "$TMP/$name.port")
}

# --- the production daemon: no hooks --------------------------------------
# (Bounded and on a free port: a daemon that took the option would start serving.)
refuse() { timeout 10 "$PROD" --listen 127.0.0.1:0 "$@" 2>&1 >/dev/null; }
err=$(refuse --debug-job-delay-ms 5)
same "--debug-job-delay-ms exit status" "$?" 2
same "--debug-job-delay-ms message" "$err" "pt2scoped: unknown option '--debug-job-delay-ms' (see --help)"
err=$(refuse --test-gate "$TMP/gate")
same "--test-gate exit status" "$?" 2
same "--test-gate message" "$err" "pt2scoped: unknown option '--test-gate' (see --help)"
same "--help names no hook" "$("$PROD" --help | grep -cE 'test-gate|TEST_GATE|debug-job')" 0

# nm must see the daemon's own symbols, or "no hook symbol" would prove nothing.
same "nm reads pt2scoped" "$(nm "$PROD" | grep -cw pt2d_server_start)" 1
same "no hook symbols in pt2scoped" \
    "$(nm "$PROD" | grep -E 'pt2d_record|pt2d_recorder|pt2d_gate|_test_' | head -3)" ""
same "no hook strings in pt2scoped" \
    "$(strings "$PROD" | grep -E 'PT2SCOPE_RECORD_DIR|PT2SCOPE_TEST_GATE|test-gate|debug-job' | head -3)" ""

mkdir "$TMP/rec-prod" "$TMP/rec-test" || exit 1
PT2SCOPE_RECORD_DIR=$TMP/rec-prod start prod "$PROD"
same "production /livez" "$(curl -s -o /dev/null -w '%{http_code}' "$URL/livez")" 200
same "production /v1/arch" \
    "$(curl -s -o /dev/null -w '%{http_code}' "$URL/v1/arch?path=cpu_x86_64.pt2")" 200
kill -TERM "${PIDS[-1]}" && wait "${PIDS[-1]}"
same "production exits 0" "$?" 0
same "PT2SCOPE_RECORD_DIR: production records nothing" "$(ls -A "$TMP/rec-prod")" ""

# --- the test build: both hooks --------------------------------------------
same "hook symbols in pt2scoped-test" \
    "$(nm "$TEST" | grep -oE ' T (pt2d_record_response|pt2d_gate_wait)$' | sort | tr -d '\n')" \
    " T pt2d_gate_wait T pt2d_record_response"
same "--help of pt2scoped-test names --test-gate" "$("$TEST" --help | grep -c '^  --test-gate FILE$')" 1

PT2SCOPE_RECORD_DIR=$TMP/rec-test start test "$TEST" --workers 1 --test-gate "$TMP/gate"
curl -s -o "$TMP/held.body" -w '%{http_code}' --max-time 60 \
    "$URL/v1/arch?path=cpu_x86_64.pt2" >"$TMP/held.status" &
held=$!
busy=
for _ in $(seq 1 1000); do
    busy=$(curl -s "$URL/metrics" | sed -n 's/^pt2scope_workers_busy //p')
    [ "$busy" = 1 ] && break
    sleep 0.01
done
same "the gated job holds the worker" "$busy" 1
kill -0 "$held" 2>/dev/null
same "the gated request is still waiting" "$?" 0
: >"$TMP/gate"
wait "$held"
same "the request finishes once the gate file exists" "$(cat "$TMP/held.status")" 200
same "and gets the report" "$(grep -c '"device_key":"cpu"' "$TMP/held.body")" 1
kill -TERM "${PIDS[-1]}" && wait "${PIDS[-1]}"
same "pt2scoped-test exits 0" "$?" 0
# One record per response: each /metrics poll and the held /v1/arch.
n_metrics=$(grep -l '"path":"/metrics"' "$TMP"/rec-test/*.json 2>/dev/null | wc -l)
n_arch=$(grep -l '"path":"/v1/arch","query":{"path":\["cpu_x86_64.pt2"\]},"status":200' \
    "$TMP"/rec-test/*.json 2>/dev/null | wc -l)
same "PT2SCOPE_RECORD_DIR: pt2scoped-test records /v1/arch" "$n_arch" 1
same "PT2SCOPE_RECORD_DIR: one record per response" "$(ls -A "$TMP/rec-test" | wc -l)" \
    "$((n_metrics + n_arch))"
[ "$n_metrics" -ge 1 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: no /metrics record"; }

echo "hooks: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# One answer to "does it run here?": for every fixture package, on a node
# without GPU, with a stand-in NVIDIA driver and with a stand-in AMD topology,
# `pt2scope check FILE --json` prints exactly the {"compatibility", "overall"}
# that pt2scoped's /v1/inspect answers on the same node (the daemon with --runtime local:
# the CLI judges this machine's runtime too), and the CLI's exit
# status follows that overall (1 for incompatible, else 0). A package that
# cannot be read is an error for both (exit 3, HTTP 422).
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
# tests/contract/run.sh sets PT2SCOPE_DAEMON to pt2scoped-test, which records responses.
CLI=$B/pt2scope D=${PT2SCOPE_DAEMON:-$B/pt2scoped} FAKE=$B/fakecuda/libcuda.so.1
TMP=$(mktemp -d /tmp/pt2scope-overall-XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
pass=0 fail=0
[ -f "$FAKE" ] || { echo "FAIL: $FAKE not built"; exit 1; }

export PT2SCOPE_FAKECUDA_DEVICES="NVIDIA H100 80GB HBM3,9.0,132,85899345920;NVIDIA A100-SXM4-40GB,8.0,108,42949672960"
export PT2SCOPE_FAKECUDA_DRIVER=13000
# name, --libcuda, --sysfs-root
NODES=("nogpu /nonexistent/pt2scope/libcuda.so.1 /nonexistent/pt2scope"
       "nvidia $FAKE /nonexistent/pt2scope"
       "amd /nonexistent/pt2scope/libcuda.so.1 tests/fixtures/sysfs/mi250x2")

for n in "${NODES[@]}"; do
    read -r name lib sys <<<"$n"
    "$D" --listen 127.0.0.1:0 --port-file "$TMP/$name.port" --model-root tests/fixtures \
        --libcuda "$lib" --sysfs-root "$sys" --runtime local 2>"$TMP/$name.log" &
    PIDS+=($!)
done
for n in "${NODES[@]}"; do
    read -r name lib sys <<<"$n"
    for _ in $(seq 1 500); do [ -s "$TMP/$name.port" ] && break; sleep 0.01; done
    [ -s "$TMP/$name.port" ] || { echo "FAIL: daemon for $name did not start"; cat "$TMP/$name.log"; exit 1; }
done

compare() { # compare CLI_JSON HTTP_JSON -> "same" or a difference
    python3 - "$1" "$2" <<'PY'
import json, sys
cli = json.load(open(sys.argv[1]))
http = json.load(open(sys.argv[2]))
want = {k: http.get(k) for k in ("compatibility", "overall")}
print("same" if cli == want else "CLI %s\nHTTP %s" % (json.dumps(cli)[:600], json.dumps(want)[:600]))
PY
}

# the fixtures, and torch 2.14.1's own packages (a path below the model root)
for f in tests/fixtures/*.pt2 tests/fixtures/torch/*.pt2; do
    base=${f#tests/fixtures/}
    for n in "${NODES[@]}"; do
        read -r name lib sys <<<"$n"
        port=$(cat "$TMP/$name.port")
        "$CLI" check "$f" --json --libcuda "$lib" --sysfs-root "$sys" >"$TMP/cli.json" 2>"$TMP/cli.err"
        rc=$?
        status=$(curl -s -o "$TMP/http.json" -w '%{http_code}' \
            "http://127.0.0.1:$port/v1/inspect?path=$base")
        if [ "$rc" = 3 ] || [ "$status" != 200 ]; then
            if [ "$rc" = 3 ] && [ "$status" = 422 ]; then pass=$((pass + 1)); else
                fail=$((fail + 1)); echo "FAIL $base on $name: CLI exit $rc, HTTP $status"; fi
            continue
        fi
        got=$(compare "$TMP/cli.json" "$TMP/http.json")
        if [ "$got" = same ]; then pass=$((pass + 1)); else
            fail=$((fail + 1)); echo "FAIL $base on $name:"; echo "$got"; fi
        verdict=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["overall"]["verdict"])' "$TMP/cli.json")
        want_rc=0; [ "$verdict" = incompatible ] && want_rc=1
        if [ "$rc" = "$want_rc" ]; then pass=$((pass + 1)); else
            fail=$((fail + 1)); echo "FAIL $base on $name: exit $rc for $verdict"; fi
    done
done
echo "overall: $pass passed, $fail failed"
[ "$fail" = 0 ]

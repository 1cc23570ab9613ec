#!/usr/bin/env bash
# A build without npm (NPM= stands for a machine without it): the library,
# the CLI and the daemon still build; the daemon serves /openapi.yaml and
# answers /docs, its assets and /openapi.json with a docs-not-built problem
# that says how to get them; the operator page at / is there all the same. Reuses the objects of $PT2SCOPE_BUILD (none of
# them depends on npm), so only the docs object and the links are new.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
N=$B/nodocs
MAKE_BIN=$(command -v make)
TMP=$(mktemp -d /tmp/pt2scope-nodocs-XXXXXX)
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

rm -rf "$N" && mkdir -p "$N" && cp -a "$B/obj" "$B/libpt2scope.a" "$N/" || exit 1
out=$("$MAKE_BIN" -s --no-print-directory NPM= BUILD="$N" "$N/pt2scoped" "$N/pt2scope" 2>&1)
same "build without npm" "$?" 0
same "build says what is left out" "$(echo "$out" | grep '^pt2scope:')" \
    "pt2scope: no npm: pt2scoped is built without /docs and /openapi.json (make deps installs npm)"
same "cli without npm" "$("$N/pt2scope" version | cut -d' ' -f1)" "pt2scope"

"$N/pt2scoped" --listen 127.0.0.1:0 --port-file "$TMP/port" --model-root tests/fixtures \
    2>"$TMP/log" &
PID=$!
for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
PORT=$(cat "$TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { echo "FAIL: daemon did not start"; cat "$TMP/log"; exit 1; }
U=http://127.0.0.1:$PORT
for p in /docs /openapi.json /docs/swagger-ui.css /docs/swagger-ui-bundle.js; do
    body=$(curl -s -w '\n%{http_code} %{content_type}' "$U$p")
    same "$p status" "${body##*$'\n'}" "404 application/problem+json"
    same "$p type" "$(echo "$body" | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["type"])')" \
        "https://pt2scope.dev/problems/docs-not-built"
done
same "/docs detail" "$(curl -s "$U/docs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["detail"])')" \
    "this pt2scoped was built without npm, so it has no /docs or /openapi.json (/openapi.yaml is served): install Node.js and npm (make deps) and rebuild with make"
same "/openapi.yaml" "$(curl -s -o /dev/null -w '%{http_code}' "$U/openapi.yaml")" 200
same "/openapi.yaml body" "$(cmp -s <(curl -s "$U/openapi.yaml") openapi/openapi.yaml && echo same)" same
same "/v1/inspect" "$(curl -s -o /dev/null -w '%{http_code}' "$U/v1/inspect?path=cpu_x86_64.pt2")" 200
# The operator page is plain files: every build has it.
same "/ without npm" "$(curl -s -o /dev/null -w '%{http_code} %{content_type}' "$U/")" \
    "200 text/html; charset=utf-8"
same "/page/app.js without npm" "$(curl -s -o /dev/null -w '%{http_code}' "$U/page/app.js")" 200
rm -rf "$N"
echo "nodocs: $pass passed, $fail failed"
[ "$fail" = 0 ]

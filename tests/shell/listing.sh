#!/usr/bin/env bash
# One listing: `pt2scope scan DIR --json` prints the very items pt2scoped's
# GET /v1/packages lists for the same folder as its model root (names as
# given on the command line vs relative to the root; `etag` is the daemon's
# alone), with and without targets, problem items included; and scan's exit
# status follows the items (3 when any is a problem, else 1 when any is incompatible).
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
# tests/contract/run.sh sets PT2SCOPE_DAEMON to pt2scoped-test, which records responses.
CLI=$B/pt2scope D=${PT2SCOPE_DAEMON:-$B/pt2scoped}
TMP=$(mktemp -d /tmp/pt2scope-listing-XXXXXX)
PID=
cleanup() {
    [ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
pass=0 fail=0
same() { # same WHAT ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); printf 'FAIL %s: got\n  %s\nwant\n  %s\n' "$1" "$2" "$3"; fi
}

"$D" --listen 127.0.0.1:0 --port-file "$TMP/port" --model-root tests/fixtures \
    --libcuda /nonexistent/pt2scope/libcuda.so.1 2>"$TMP/log" &
PID=$!
for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
[ -s "$TMP/port" ] || { echo "FAIL: the daemon did not start"; cat "$TMP/log"; exit 1; }
U="http://127.0.0.1:$(cat "$TMP/port")"

compare() { # compare CLI_JSON HTTP_JSON -> "same N" or the first difference
    python3 - "$1" "$2" <<'PY'
import json, sys
cli = json.load(open(sys.argv[1]))
http = json.load(open(sys.argv[2]))
assert http["next"] is None, "the listing did not fit one page"
for it in cli:
    it["name"] = it["name"].removeprefix("tests/fixtures/")
for it in http["items"]:
    it.pop("etag", None)
if cli == http["items"]:
    print("same", len(cli))
else:
    for a, b in zip(cli, http["items"]):
        if a != b:
            print("CLI  %s\nHTTP %s" % (json.dumps(a)[:400], json.dumps(b)[:400]))
            break
    else:
        print("CLI %d items, HTTP %d" % (len(cli), len(http["items"])))
PY
}

n=$(ls tests/fixtures/*.pt2 tests/fixtures/torch/*.pt2 | wc -l)
for q in "" "target=B200&target=8.0" "target=gfx90a&target=H100&driver=12.4"; do
    args=()
    IFS='&' read -r -a kv <<<"$q"
    for a in "${kv[@]}"; do
        case $a in target=*) args+=(--target "${a#target=}") ;; driver=*) args+=(--driver "${a#driver=}") ;; esac
    done
    "$CLI" scan tests/fixtures --json "${args[@]}" >"$TMP/cli.json" 2>/dev/null
    rc=$?
    curl -s "$U/v1/packages?limit=1000&$q" >"$TMP/http.json"
    same "scan vs /v1/packages ($q)" "$(compare "$TMP/cli.json" "$TMP/http.json")" "same $n"
    # Broken fixtures are problem items: exit 3 (unreadable) whatever the targets.
    same "scan exit ($q)" "$rc" 3
done

echo "listing: $pass passed, $fail failed"
[ "$fail" = 0 ]

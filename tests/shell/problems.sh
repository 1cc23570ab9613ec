#!/usr/bin/env bash
# One problem per failure: for every way a named package can fail, `pt2scope
# inspect FILE --json` and `GET /v1/inspect?path=FILE` answer the same problem
# type and status (a missing file is not-found 404 in both), and the CLI's
# one stderr line names the file.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
CLI=$B/pt2scope D=${PT2SCOPE_DAEMON:-$B/pt2scoped}
TMP=$(mktemp -d /tmp/pt2scope-problems-XXXXXX)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
pass=0 fail=0
mkdir -p "$TMP/root"
for f in broken_not_zip broken_truncated broken_cd_corrupt broken_no_archive_format torch_save_checkpoint \
         broken_bad_elf cuda_sm90a_v8; do
    cp "tests/fixtures/$f.pt2" "$TMP/root/"
done
: >"$TMP/root/empty.pt2"
"$D" --listen 127.0.0.1:0 --port-file "$TMP/port" --model-root "$TMP/root" 2>"$TMP/log" &
PID=$!
for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
PORT=$(cat "$TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { echo "FAIL: daemon did not start"; cat "$TMP/log"; exit 1; }
typestatus() { python3 -c 'import json,sys
d = json.load(sys.stdin)
print(d.get("type", "-").rsplit("/", 1)[-1], d.get("status", "-") if "type" in d else "ok")'; }
for name in broken_not_zip.pt2 broken_truncated.pt2 broken_cd_corrupt.pt2 broken_no_archive_format.pt2 \
            torch_save_checkpoint.pt2 broken_bad_elf.pt2 empty.pt2 no_such_file.pt2 cuda_sm90a_v8.pt2; do
    cli=$("$CLI" inspect "$TMP/root/$name" --json 2>"$TMP/err" | typestatus)
    http=$(curl -s "http://127.0.0.1:$PORT/v1/inspect?path=$name" | typestatus)
    if [ "$cli" = "$http" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL $name: CLI '$cli', HTTP '$http'"; fi
    if [ "$cli" != "- ok" ]; then
        case "$(head -1 "$TMP/err")" in
        "pt2scope: $TMP/root/$name: "*) pass=$((pass + 1)) ;;
        *) fail=$((fail + 1)); echo "FAIL $name: stderr does not name the file: $(head -1 "$TMP/err")" ;;
        esac
    fi
done
# the missing file, exactly
got=$("$CLI" inspect "$TMP/root/no_such_file.pt2" --json 2>/dev/null | typestatus)
[ "$got" = "not-found 404" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL missing file: $got"; }
echo "problems: $pass passed, $fail failed"
[ "$fail" = 0 ]

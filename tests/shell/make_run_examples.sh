#!/usr/bin/env bash
# `make run` as a newcomer meets it:
#   1. every curl example it prints (they come from `make run-examples`) runs
#      exactly as printed for the port asked for, against a daemon started like
#      `make run` does: each must exit 0 and get a 2xx status;
#   2. a port already taken is one line (then make's "Error 2") naming the next free port (two taken
#      ports in a row: the suggestion skips both);
#   3. `make run CORS_ORIGIN=…` starts a daemon that answers a preflight from
#      that origin with its CORS headers (the README's Quick start line).
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
# tests/contract/run.sh sets PT2SCOPE_DAEMON to pt2scoped-test, which records responses.
D=${PT2SCOPE_DAEMON:-$B/pt2scoped}
[ -x "$D" ] || { echo "FAIL: $D not built"; exit 1; }
TMP=$(mktemp -d /tmp/pt2d-run-XXXXXX)
PID= HOLD= RUNPG=
cleanup() {
    if [ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null; then wait "$PID" 2>/dev/null; fi
    if [ -n "$HOLD" ]; then kill -TERM "$HOLD" 2>/dev/null; wait "$HOLD" 2>/dev/null; fi
    if [ -n "$RUNPG" ]; then kill -TERM -- "-$RUNPG" 2>/dev/null; wait "$RUNPG" 2>/dev/null; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$D" --listen 127.0.0.1:0 --port-file "$TMP/port" --model-root tests/fixtures 2>"$TMP/log" &
PID=$!
for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
PORT=$(cat "$TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { echo "FAIL: daemon did not start"; cat "$TMP/log"; exit 1; }

# 1. Join "\" continuations; keep the lines that are curl commands. No
# rewriting: they must name the port they were printed for.
make -s --no-print-directory run-examples PORT="$PORT" | sed 's/^ *//' |
    awk '{ line = line $0; if (line ~ /\\$/) { sub(/\\$/, "", line); next }
           if (line ~ /^curl /) print line; line = "" }' >"$TMP/examples"
n=$(wc -l <"$TMP/examples")
[ "$n" -ge 4 ] || { echo "FAIL: only $n curl examples printed by make run"; exit 1; }
[ "$(grep -c "http://127.0.0.1:$PORT/" "$TMP/examples")" = "$n" ] || bad "an example does not name port $PORT"
while IFS= read -r cmd; do
    out=$(eval "$cmd --max-time 30 -w '\n__STATUS__:%{http_code}'" 2>&1)
    rc=$? status=${out##*__STATUS__:}
    if [ "$rc" = 0 ] && [ "${status:0:1}" = 2 ]; then ok; else
        bad "(exit $rc, HTTP $status): $cmd"; fi
done <"$TMP/examples"
wild=$(make -s --no-print-directory run-examples LISTEN=0.0.0.0 PORT=18080)
grep -q "http://127.0.0.1:18080/v1/node" <<<"$wild" && ok || bad "LISTEN=0.0.0.0: the examples do not reach it on loopback"

# 2. Hold two ports in a row; make run on the first must name the third.
python3 - "$TMP/held" <<'PY' &
import socket, sys, time
for _ in range(200):
    a = socket.socket(); a.bind(("127.0.0.1", 0)); p = a.getsockname()[1]
    b, c = socket.socket(), socket.socket()
    try:
        b.bind(("127.0.0.1", p + 1)); c.bind(("127.0.0.1", p + 2))
    except OSError:
        a.close(); b.close(); c.close(); continue
    c.close()  # the third stays free
    a.listen(); b.listen()
    open(sys.argv[1] + ".tmp", "w").write(str(p))
    import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    time.sleep(120)
    break
PY
HOLD=$!
for _ in $(seq 1 500); do [ -s "$TMP/held" ] && break; sleep 0.01; done
P=$(cat "$TMP/held" 2>/dev/null)
if [ -z "$P" ]; then bad "could not hold two ports"; else
    make -s --no-print-directory run PORT="$P" BUILD="$B" >"$TMP/taken.out" 2>"$TMP/taken.err"
    rc=$?
    want="pt2scope: 127.0.0.1:$P is already in use; pick another port: make run PORT=$((P + 2))"
    # The one line, then make's own "Error 2" line.
    got=$(head -1 "$TMP/taken.err")
    if [ "$rc" = 2 ] && [ "$got" = "$want" ] && [ ! -s "$TMP/taken.out" ]; then ok; else
        bad "port taken: exit $rc, stderr '$got', want '$want'"; fi
fi
kill -TERM "$HOLD" 2>/dev/null; wait "$HOLD" 2>/dev/null; HOLD=

# 3. make run itself, with CORS_ORIGIN, on a free port.
FREE=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
setsid make -s --no-print-directory run PORT="$FREE" BUILD="$B" CORS_ORIGIN=https://ui.example \
    >"$TMP/run.out" 2>"$TMP/run.err" &
RUNPG=$!
up=
for _ in $(seq 1 1000); do
    curl -s -o /dev/null "http://127.0.0.1:$FREE/livez" && { up=1; break; }; sleep 0.02
done
if [ -z "$up" ]; then bad "make run CORS_ORIGIN=… did not start"; cat "$TMP/run.err"; else
    first=$(head -1 "$TMP/run.out")
    [ "$first" = "pt2scoped on http://127.0.0.1:$FREE (model root tests/fixtures; CORS for https://ui.example). Try:" ] &&
        ok || bad "make run's first line: '$first'"
    hdr=$(curl -s -i -X OPTIONS -H 'Origin: https://ui.example' -H 'Access-Control-Request-Method: POST' \
        "http://127.0.0.1:$FREE/v1/inspect" | tr -d '\r')
    grep -qx 'Access-Control-Allow-Origin: https://ui.example' <<<"$hdr" &&
        grep -q '^Access-Control-Allow-Methods: ' <<<"$hdr" && ok ||
        bad "make run CORS_ORIGIN=https://ui.example: no CORS headers on a preflight: $hdr"
fi

echo "make_run_examples: $pass passed, $fail failed"
[ "$fail" = 0 ]

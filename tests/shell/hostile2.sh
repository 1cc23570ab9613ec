#!/usr/bin/env bash
# Hostile clients, round two (issue 24): what a second attack run found, each
# now answered without harm. Framing the daemon's libmicrohttpd would read
# differently from a proxy (whitespace before a colon, obs-folded lines) is
# one 400 per connection; %00 in a URL path is a 400; every log line stays
# valid UTF-8 JSON under a hostile run (a strict decoder reads them all).
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
D=${PT2SCOPE_DAEMON:-$B/pt2scoped}
TMP=$(mktemp -d /tmp/pt2scope-hostile2-XXXXXX)
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
start() { # start LOG ARGS...: the daemon on an ephemeral port; sets PID, PORT, U
    local log=$1
    shift
    rm -f "$TMP/port"
    "$D" --listen 127.0.0.1:0 --port-file "$TMP/port" "$@" 2>"$log" &
    PID=$!
    for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
    PORT=$(cat "$TMP/port" 2>/dev/null)
    [ -n "$PORT" ] || { echo "FAIL: daemon did not start"; cat "$log"; exit 1; }
    U=http://127.0.0.1:$PORT
}
stop() {
    kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    PID=
}

start "$TMP/log" --model-root tests/fixtures

# raw REQUEST: every status line the connection answered, then the first problem's detail.
raw() {
    python3 - "$PORT" "$1" <<'PY'
import json, re, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(5)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
d = b""
try:
    while True:
        x = s.recv(65536)
        if not x:
            break
        d += x
except socket.timeout:
    d += b"<timeout>"
lines = re.findall(rb"HTTP/1\.1 \d{3}[^\r]*", d)
m = re.search(rb'"detail":"((?:[^"\\]|\\.)*)"', d)
print(" + ".join(x.decode() for x in lines) or "<no answer>", "|",
      json.loads(b'"' + m.group(1) + b'"') if m else "-")
PY
}
H='Host: 127.0.0.1\r\nContent-Type: application/json'
BODY='{"path":"cuda_sm90a_v8.pt2"}'
NEXT='GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'
WS='HTTP/1.1 400 Bad Request | whitespace between a header field name and its colon (RFC 9112 section 5.1)'
FOLD='HTTP/1.1 400 Bad Request | an obs-folded header line (RFC 9112 section 5.2)'
# Each carries a valid body and then a second request: one answer only, the 400.
same "Transfer-Encoding : chunked" \
    "$(raw "POST /v1/arch HTTP/1.1\r\n$H\r\nTransfer-Encoding : chunked\r\n\r\n1c\r\n$BODY\r\n0\r\n\r\n$NEXT")" "$WS"
same "Transfer-Encoding:<fold> chunked" \
    "$(raw "POST /v1/arch HTTP/1.1\r\n$H\r\nTransfer-Encoding:\r\n chunked\r\n\r\n1c\r\n$BODY\r\n0\r\n\r\n$NEXT")" "$FOLD"
same "Content-Length : 28" \
    "$(raw "POST /v1/arch HTTP/1.1\r\n$H\r\nContent-Length : 28\r\n\r\n$BODY$NEXT")" "$WS"
same "Content-Length<TAB>: 28" \
    "$(raw "POST /v1/arch HTTP/1.1\r\n$H\r\nContent-Length\t: 28\r\n\r\n$BODY$NEXT")" "$WS"
same "Content-Length:<fold> 28" \
    "$(raw "POST /v1/arch HTTP/1.1\r\n$H\r\nContent-Length:\r\n 28\r\n\r\n$BODY$NEXT")" "$FOLD"
same "a folded X- header" \
    "$(raw "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r\n\tfold\r\n\r\n$NEXT")" "$FOLD"
# The same on the second request of a kept-alive connection: the first is answered, then the 400.
same "kept alive, then Content-Length : 28" \
    "$(raw "$NEXT""POST /v1/arch HTTP/1.1\r\n$H\r\nContent-Length : 28\r\n\r\n$BODY$NEXT")" \
    "HTTP/1.1 200 OK + $WS"
# The sound forms still work, and keep the connection alive.
same "Content-Length: 28 (control)" \
    "$(raw "POST /v1/arch HTTP/1.1\r\n$H\r\nContent-Length: 28\r\n\r\n$BODY$NEXT" | cut -d'|' -f1)" \
    "HTTP/1.1 200 OK + HTTP/1.1 200 OK "

# %00 in the path would end the route early: "/v1/version%00/x" is not /v1/version.
same "%00 in the URL path" "$(raw 'GET /v1/version%00/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')" \
    "HTTP/1.1 400 Bad Request | the URL path contains %00 (a NUL byte)"

echo "hostile2: $pass passed, $fail failed"
[ "$fail" = 0 ]

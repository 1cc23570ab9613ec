#!/usr/bin/env bash
# Hostile clients, round two (issue 24): what a second attack run found, each
# now answered without harm. Framing the daemon's libmicrohttpd would read
# differently from a proxy (whitespace before a colon, obs-folded lines) is
# one 400 per connection; %00 in a URL path is a 400; every log line stays
# valid UTF-8 JSON under a hostile run (a strict decoder reads them all); nothing
# outside a model root changes an answer, sockets and FIFOs are 404s; a FIFO as the
# token file does not hold SIGTERM up; 1,000 slow clients from 8 addresses leave the
# probes and inspections answered.
. "$(dirname "$0")/lib/harness.bash" hostile2
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
    "$(raw "POST /v1/arch HTTP/1.1\r\n$H\r\nContent-Length: 28\r\n\r\n$BODY${NEXT%\\r\\n}Connection: close\r\n\r\n" | cut -d'|' -f1)" \
    "HTTP/1.1 200 OK + HTTP/1.1 200 OK "

# %00 in the path would end the route early: "/v1/version%00/x" is not /v1/version.
same "%00 in the URL path" "$(raw 'GET /v1/version%00/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')" \
    "HTTP/1.1 400 Bad Request | the URL path contains %00 (a NUL byte)"

# 8. Bytes that are not UTF-8 in a path, a header and a query: the log lines stay JSON.
C='Connection: close\r\n'
raw "GET /v1/x%FF%FE%C0%AF HTTP/1.1\r\nHost: 127.0.0.1\r\n$C\r\n" >/dev/null
raw "GET /v1/inspect?path=%FF%ED%A0%80.pt2 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: \xff\xfe\r\n$C\r\n" >/dev/null
raw "GET /\xc0\xaf\xff HTTP/1.1\r\nHost: 127.0.0.1\r\n$C\r\n" >/dev/null
stop # its access lines are all written once it has stopped
same "a raw 0xFF path is logged as \\xFF text" \
    "$(grep -c '"path":"/v1/x\\\\xFF\\\\xFE\\\\xC0\\\\xAF"' "$TMP/log")" 1

# 6, 7. A root with links out of it, a unix socket, a FIFO: nothing outside is told apart,
# and nothing in it is a 500 or names the server's errors.
mkdir -p "$TMP/root/d"
cp tests/fixtures/cuda_sm90a_v8.pt2 "$TMP/root/ok.pt2"
ln -s / "$TMP/root/link"
ln -s ../.. "$TMP/root/d/up"
mkfifo "$TMP/root/fifo.pt2"
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/root/sock.pt2"
ln -s sock.pt2 "$TMP/root/to-sock.pt2" # the listing walks *.pt2 files and links
ln -s fifo.pt2 "$TMP/root/to-fifo.pt2"
start "$TMP/log2" --model-root "$TMP/root"
inspect() { # inspect PATH: status and the problem's detail
    curl -s -m 10 -o "$TMP/resp" -w '%{http_code}' "$U/v1/arch?path=$1" >"$TMP/code"
    printf '%s %s' "$(cat "$TMP/code")" \
        "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("detail","-"))' "$TMP/resp")"
}
for p in link/etc/shadow link/etc/nonexistent link/nonexistent/x d/up/etc/passwd d/up/nope; do
    same "outside: $p" "$(inspect "$p")" "403 path '$p' resolves outside its model root"
done
same "unix socket" "$(inspect sock.pt2)" "404 'sock.pt2' is not a regular file"
same "FIFO" "$(inspect fifo.pt2)" "404 'fifo.pt2' is not a regular file"
same "a regular file still works" "$(inspect ok.pt2 | cut -c1-3)" "200"
# The listing: links to the socket and the FIFO are the same 404 problem, no strerror text.
curl -s -m 20 -o "$TMP/list" "$U/v1/packages"
same "listing: the items" "$(python3 - "$TMP/list" <<'PY'
import json, sys
for it in json.load(open(sys.argv[1]))["items"]:
    print(it["name"], it.get("status", 200), it.get("detail", "-"))
PY
)" "ok.pt2 200 -
to-fifo.pt2 404 'to-fifo.pt2' is not a regular file
to-sock.pt2 404 'to-sock.pt2' is not a regular file"
# 1. A failed listing item is remembered by file identity like a good one: the second
# listing parses neither again (no cache miss), and touching the bad file (a new identity)
# makes it read once more.
head -c 30000 tests/fixtures/cuda_sm90a_v8.pt2 >"$TMP/root/bad.pt2"
misses() { curl -s -m 5 "$U/metrics" | awk '$1 == "pt2scope_cache_misses_total" { print $2 }'; }
curl -s -m 20 -o "$TMP/list1" "$U/v1/packages"
m1=$(misses)
curl -s -m 20 -o "$TMP/list2" "$U/v1/packages"
same "listing twice: the same document" "$(cmp -s "$TMP/list1" "$TMP/list2" && echo same)" same
same "listing twice: nothing opened again" "$(misses)" "$m1"
same "listing: the bad item" "$(python3 -c 'import json,sys; print([(i["status"], i["title"]) for i in json.load(open(sys.argv[1]))["items"] if i["name"] == "bad.pt2"])' "$TMP/list2")" \
    "[(422, 'The archive is truncated or corrupt')]"
touch -d '2020-01-01' "$TMP/root/bad.pt2"
curl -s -m 20 -o /dev/null "$U/v1/packages"
same "listing after the file changed: read again" "$(misses)" "$((m1 + 1))"
stop

# 9. A FIFO swapped in as the token file: SIGHUP keeps the old tokens and says why, and
# SIGTERM still ends the daemon at once.
echo s3cret >"$TMP/tokens"
start "$TMP/log3" --model-root tests/fixtures --token-file "$TMP/tokens"
rm "$TMP/tokens" && mkfifo "$TMP/tokens"
kill -HUP "$PID"
for _ in $(seq 1 500); do grep -q SIGHUP "$TMP/log3" && break; sleep 0.01; done
same "token FIFO: SIGHUP's line" "$(grep -o '"msg":"SIGHUP[^"]*"' "$TMP/log3")" \
    "\"msg\":\"SIGHUP: token file '$TMP/tokens' is not a regular file; keeping the 1 token loaded before\""
same "token FIFO: the old token still works" \
    "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer s3cret' "$U/v1/version")" 200
kill -TERM "$PID"
for _ in $(seq 1 1000); do kill -0 "$PID" 2>/dev/null || break; sleep 0.01; done
same "token FIFO: SIGTERM ends the daemon" "$(kill -0 "$PID" 2>/dev/null && echo running || echo exited)" exited
wait "$PID"
same "token FIFO: exit status" "$?" 0
PID=
# A FIFO as the token file at start: refused at once (it used to wait for a writer).
out=$(timeout 10 "$D" --listen 127.0.0.1:0 --token-file "$TMP/tokens" 2>&1)
same "token FIFO at start: exit status" "$?" 2
same "token FIFO at start: message" "$out" \
    "pt2scoped: --token-file: token file '$TMP/tokens' is not a regular file"

# 5. 1,000 connections from 8 addresses (127.0.0.2..9, 125 each: under the per-address
# limit), each dripping a header byte at a time, with 1,024 descriptors: /livez, /readyz
# and an inspection from a ninth address are still answered (the header-phase budget cuts
# the oldest slow connection for each newcomer; the descriptor reserve keeps accept() alive).
rm -f "$TMP/port"
(ulimit -n 1024 && exec "$D" --listen 127.0.0.1:0 --port-file "$TMP/port" \
    --model-root tests/fixtures 2>"$TMP/log4") &
PID=$!
for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
PORT=$(cat "$TMP/port")
U=http://127.0.0.1:$PORT
python3 - "$PORT" >"$TMP/slow.out" 2>&1 <<'PY' &
import resource, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
port = int(sys.argv[1])
held = []
for i in range(1000):
    s = socket.socket()
    s.bind(("127.0.0.%d" % (2 + i % 8), 0))
    try:
        s.connect(("127.0.0.1", port))
        s.send(b"GET /livez HTTP/1.1\r\nHo")
    except OSError:
        pass
    held.append(s)
print("open", flush=True)
for _ in range(60):  # drip, as an attacker would, until killed
    for s in held:
        try:
            s.send(b"s")
        except OSError:
            pass
    time.sleep(0.5)
PY
SLOW=$!
for _ in $(seq 1 3000); do grep -q open "$TMP/slow.out" 2>/dev/null && break; sleep 0.01; done
same "1,000 slow connections from 8 addresses: opened" "$(head -1 "$TMP/slow.out")" open
for probe in livez readyz; do
    same "slow flood: /$probe" \
        "$(curl -s -m 5 --interface 127.0.0.10 -o /dev/null -w '%{http_code}' "$U/$probe")" 200
done
same "slow flood: an inspection" \
    "$(curl -s -m 10 --interface 127.0.0.10 -o /dev/null -w '%{http_code}' "$U/v1/arch?path=cuda_sm90a_v8.pt2")" 200
same "slow flood: /livez from a flooding address" \
    "$(curl -s -m 5 --interface 127.0.0.3 -o /dev/null -w '%{http_code}' "$U/livez")" 200
kill "$SLOW" 2>/dev/null
wait "$SLOW" 2>/dev/null
stop

# 4. Remote reads have their own workers: with --workers 2, six ?url= inspections held by
# a slow allowed server (more than every worker) leave a local inspection answered, and
# the remote pool's queue shows the ones still waiting.
python3 - "$TMP" >"$TMP/slowsrv.out" 2>&1 <<'PY' &
import http.server, os, sys, threading, time
tmp = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def hold(self):
        with open(os.path.join(tmp, "held"), "a") as f:
            f.write("x")
        while not os.path.exists(os.path.join(tmp, "release")):
            time.sleep(0.02)
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()
    do_GET = do_HEAD = hold
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(os.path.join(tmp, "slowsrv.port.tmp"), "w") as f:
    f.write(str(s.server_address[1]))
os.rename(os.path.join(tmp, "slowsrv.port.tmp"), os.path.join(tmp, "slowsrv.port"))
s.serve_forever()
PY
SRV=$!
for _ in $(seq 1 500); do [ -s "$TMP/slowsrv.port" ] && break; sleep 0.01; done
R=http://127.0.0.1:$(cat "$TMP/slowsrv.port")
start "$TMP/log5" --model-root tests/fixtures --workers 2 --remote-allow "$R/" --remote-timeout 60
metric() { curl -s -m 5 "$U/metrics" | awk -v n="$1" '$1 == n { print $2 }'; }
same "remote pool: workers" "$(metric pt2scope_remote_workers)" 2
for i in 1 2 3 4 5 6; do
    curl -s -m 70 -o /dev/null -w '%{http_code}\n' "$U/v1/arch?url=$R/m$i.pt2" >>"$TMP/remote.codes" &
done
for _ in $(seq 1 1000); do
    [ "$(metric pt2scope_remote_queue_depth)" = 4 ] && [ "$(wc -c <"$TMP/held" 2>/dev/null)" -ge 2 ] && break
    sleep 0.01
done
same "remote pool: busy while held" "$(metric pt2scope_remote_workers_busy)" 2
same "remote pool: the rest queued" "$(metric pt2scope_remote_queue_depth)" 4
same "local pool: nothing queued" "$(metric pt2scope_queue_depth)" 0
same "a local inspection while every remote worker waits" \
    "$(curl -s -m 10 -o /dev/null -w '%{http_code}' "$U/v1/arch?path=cuda_sm90a_v8.pt2&refresh=1")" 200
touch "$TMP/release"
wait $(jobs -p | grep -vx "$SRV" | grep -vx "$PID") 2>/dev/null
same "the remote ones end too (upstream 404)" "$(sort "$TMP/remote.codes" | uniq -c | awk '{print $1, $2}')" "6 404"
kill "$SRV" 2>/dev/null
wait "$SRV" 2>/dev/null
stop

# 8. Every line every daemon here wrote, read by a strict UTF-8 decoder and a JSON parser.
same "every log line is UTF-8 JSON" "$(python3 - "$TMP"/log* <<'PY'
import json, sys
n = bad = 0
for path in sys.argv[1:]:
    for raw in open(path, "rb"):
        n += 1
        try:
            json.loads(raw.decode("utf-8", "strict"))
        except Exception as e:
            bad += 1
            print(path, repr(raw[:120]), e, file=sys.stderr)
print("ok" if n > 20 and bad == 0 else "%d of %d lines bad" % (bad, n))
PY
)" ok

echo "hostile2: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# Reproductions of what an attack run found (hostile clients), each one now
# answered without harm. So far: a 16 MiB JSON body of tiny values is
# refused (413) before any parse tree exists, and the daemon's peak RSS
# stays under 64 MiB; an upload of 60,000 tiny kernels stays under 96 MiB; a NUL byte in a JSON string or a query value is a 400,
# never a silently truncated path; ambiguous framing is a 400; 1,100 slow
# connections from one address do not lock another address out.
. "$(dirname "$0")/lib/harness.bash" hostile

# The descriptor limit of a typical container (1024): what 1,100 connections exhaust.
(ulimit -n 1024 && exec "$D" --listen 127.0.0.1:0 --port-file "$TMP/port" \
    --model-root tests/fixtures 2>"$TMP/log") &
PID=$!
for _ in $(seq 1 500); do [ -s "$TMP/port" ] && break; sleep 0.01; done
PORT=$(cat "$TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { echo "FAIL: daemon did not start"; cat "$TMP/log"; exit 1; }
U=http://127.0.0.1:$PORT
hwm() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$PID/status"; } # peak RSS, KiB

# 1. {"path": ..., "nodes": [0,0,0,...]} of 16 MiB (and 4 MiB): 8 M values for cJSON.
for mib in 4 16; do
    python3 - "$TMP/body" "$mib" <<'PY'
import sys
size = int(sys.argv[2]) << 20
head = b'{"path": "cuda_sm90a_v8.pt2", "nodes": ['
body = head + b"0," * ((size - len(head) - 2) // 2)
open(sys.argv[1], "wb").write(body[:-1] + b"]}")
PY
    out=$(curl -s -o "$TMP/resp" -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary @"$TMP/body" "$U/v1/compatibility")
    same "$mib MiB nodes body: status" "$out" 413
    same "$mib MiB nodes body: problem" \
        "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["type"].rsplit("/",1)[1], d["detail"])' "$TMP/resp")" \
        "too-large request body: more than 500000 JSON values at byte 1000030"
done
peak=$(hwm)
if [ "$peak" -lt $((64 * 1024)) ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: peak RSS ${peak} KiB after the nodes bodies (want < 64 MiB)"; fi

# 5 (edges). A NUL byte never truncates: in a JSON string and in a query value.
out=$(curl -s -o "$TMP/resp" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d '{"path": "cuda_sm90a_v8.pt2\u0000.txt"}' "$U/v1/inspect")
same "NUL in a JSON path: status" "$out" 400
out=$(curl -s -o "$TMP/resp" -w '%{http_code}' "$U/v1/inspect?path=cuda_sm90a_v8.pt2%00.txt")
same "NUL in ?path=: status" "$out" 400
out=$(curl -s -o "$TMP/resp" -w '%{http_code}' "$U/v1/inspect?path=cuda_sm90a_v8.pt2&target=H100%00x")
same "NUL in ?target=: status" "$out" 400

# 5 (edges). Framing a proxy could read differently is refused (request smuggling), and
# HTTP/1.1 needs Host; each with a problem document, never silence.
raw() { # raw REQUEST: the status line and the problem's detail, from a raw socket
    python3 - "$PORT" "$1" <<'PY'
import json, socket, sys
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
    pass
head, _, body = d.partition(b"\r\n\r\n")
line = head.split(b"\r\n")[0].decode() if head else "<no answer>"
try:
    detail = json.loads(body)["detail"]
except Exception:
    detail = "-"
print(line + " | " + detail)
PY
}
same "HTTP/1.1 without Host" "$(raw 'GET /livez HTTP/1.1\r\n\r\n')" \
    "HTTP/1.1 400 Bad Request | an HTTP/1.1 request needs a Host header"
same "two Host headers" "$(raw 'GET /livez HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n')" \
    "HTTP/1.1 400 Bad Request | more than one Host header"
same "HTTP/1.0 without Host" "$(raw 'GET /livez HTTP/1.0\r\n\r\n' | cut -d' ' -f1-3)" "HTTP/1.1 200 OK"
same "duplicate Content-Length" \
    "$(raw 'POST /v1/inspect HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nContent-Length: 7\r\n\r\n{"a":1}')" \
    "HTTP/1.1 400 Bad Request | more than one Content-Length header"
same "Transfer-Encoding: gzip, chunked" \
    "$(raw 'POST /v1/inspect HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n')" \
    "HTTP/1.1 400 Bad Request | unsupported Transfer-Encoding (only chunked is accepted)"

# Oversized requests get an answer, never a dropped connection: a header past libmicrohttpd's
# per-connection memory is its own 431 (0.9.75 lets no handler answer there), and too many query
# arguments the daemon's 400 problem (cut before MHD splits them; test_http_api has the counts).
same "a 200 KB header" "$(python3 - "$PORT" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(5)
s.sendall(b"GET /v1/version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"x" * 200000 + b"\r\n\r\n")
print(s.recv(4096).split(b"\r\n")[0].decode())
PY
)" "HTTP/1.1 431 Request Header Fields Too Large"
args=$(python3 -c "print('&'.join('a%d=1' % i for i in range(3000)))")
same "3,000 query arguments" "$(raw "GET /v1/inspect?$args HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")" \
    "HTTP/1.1 400 Bad Request | more than 256 query arguments"

# 3. An upload of 4.3 MB holding 60,000 tiny kernels (15 .fatbin entries of 4,000 records):
# its inspection once took the daemon to 183 MB. Now one kernel record costs ~300 bytes and
# the answer lists 4,096 of them; the peak stays under 96 MiB (about 50 MiB here).
python3 - "$TMP/k60.pt2" <<'PY'
import struct, sys, zipfile
def fatbin(n):
    ents = b""
    for _ in range(n):
        h = bytearray(64)
        struct.pack_into("<HxxIQ", h, 0, 2, 64, 8)   # an ELF (SASS) record, 8 payload bytes
        struct.pack_into("<HHI", h, 0x18, 8, 0, 90)  # ABI 8, sm_90
        ents += bytes(h) + bytes(8)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(ents)) + ents
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
    z.writestr("k/archive_format", "pt2")
    for f in range(15):
        z.writestr("k/data/aotinductor/model/k%02d.fatbin" % f, fatbin(4000))
PY
echo 5 >"/proc/$PID/clear_refs" # the peak so far no longer counts
curl -s -o "$TMP/k60.json" -X POST -H 'Content-Type: application/octet-stream' \
    --data-binary @"$TMP/k60.pt2" "$U/v1/arch"
same "60,000 kernels: the answer" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["kernels_total"], len(d["kernels"]), d["cuda_targets"])' "$TMP/k60.json")" \
    "60000 4096 ['sm_90']"
same "60,000 kernels: peak RSS under 96 MiB" "$(($(hwm) < 96 * 1024))" 1

# 2. 1,100 connections from one address, each dripping a header byte at a time:
# another address's /livez and inspections are still answered (the
# per-address limit, 128 by default, closes the rest on arrival).
python3 - "$PORT" >"$TMP/slow.out" 2>&1 <<'PY' &
import resource, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
port = int(sys.argv[1])
held, refused = [], 0
for i in range(1100):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.connect(("127.0.0.1", port))
    s.send(b"GET /livez HTTP/1.1\r\nHo")
    held.append(s)
print("open", flush=True)
for _ in range(30):  # drip, as an attacker would; the test reads "open" and then probes
    for s in held:
        try:
            s.send(b"s")
        except OSError:
            pass
    time.sleep(0.2)
PY
SLOW=$!
for _ in $(seq 1 1000); do grep -q open "$TMP/slow.out" 2>/dev/null && break; sleep 0.01; done
same "1,100 slow connections: opened" "$(head -1 "$TMP/slow.out")" open
same "1,100 slow connections: another address's /livez" \
    "$(curl -s -m 5 --interface 127.0.0.2 -o /dev/null -w '%{http_code}' "$U/livez")" 200
same "1,100 slow connections: another address's inspection" \
    "$(curl -s -m 10 --interface 127.0.0.2 -o /dev/null -w '%{http_code}' "$U/v1/arch?path=cuda_sm90a_v8.pt2")" 200
kill "$SLOW" 2>/dev/null
wait "$SLOW" 2>/dev/null

echo "hostile: $pass passed, $fail failed"
[ "$fail" = 0 ]

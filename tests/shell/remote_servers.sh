#!/usr/bin/env bash
# The remote tests' loopback servers (tests/remote/servers.sh), checked with curl:
#   - nginx: a byte range (206, Content-Range, the bytes, an ETag), a suffix range,
#     the relative redirect, a chain of 5 and of 6 hops, the redirects to the
#     metadata address and to localhost by name, /norange/ answering 200 to a
#     Range request, /slow/ outlasting a 1 s timeout, and the access log's count
#     of requests and bytes, exact;
#   - the changing server: the object replaced after the first request, so a
#     stale If-Match is 412, If-Range gets the whole new object, 416; and the mode
#     that ignores If-Match (only the ETag changes);
#   - the slow server: a timeout before the headers, and one after the first byte;
#   - the S3 proxy: a signed range request is 206; a wrong secret, no signature, an
#     unknown key, another region, no x-amz-content-sha256 are refused with S3's
#     error codes, and never reach s3rver, which would have taken them; s3rver's
#     suffix range from offset 0; the log's auth column; --allow-unsigned;
#   - remote_stop_all leaves no process and no temp dir.
# nginx and tests/remote/s3/node_modules are installed by `make test` (make deps,
# npm ci): missing, this test fails, naming the command.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/remote/servers.sh
TMP=$(mktemp -d /tmp/pt2scope-remote-test-XXXXXX)
cleanup() {
    remote_stop_all
    rm -rf "$TMP"
}
trap cleanup EXIT
pass=0 fail=0
same() { # same WHAT ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); printf 'FAIL %s: got\n  %s\nwant\n  %s\n' "$1" "$2" "$3"; fi
}
fatal() {
    echo "FAIL $*"
    echo "remote_servers: $pass passed, $((fail + 1)) failed"
    exit 1
}

# req CURL-ARGS...: one request; CODE (HTTP status), the headers in $TMP/h,
# the body in $TMP/b. hdr NAME: one response header.
req() {
    CODE=$(curl -s -m 10 -D "$TMP/h" -o "$TMP/b" -w '%{http_code}' "$@")
}
hdr() { tr -d '\r' <"$TMP/h" | awk -v n="$1" '
    tolower(substr($0, 1, length(n) + 1)) == tolower(n) ":" { sub(/^[^:]*: */, ""); v = $0 } END { print v }'; }
# slice FILE START LEN: those bytes, as hex
slice() { tail -c +$(($2 + 1)) "$1" | head -c "$3" | od -An -tx1 | tr -d ' \n'; }
body() { od -An -tx1 "$TMP/b" | tr -d ' \n'; }

docs=$TMP/docs
mkdir -p "$docs" "$TMP/versions" "$TMP/s3data"
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 20)' >"$docs/f"
F=$docs/f # 5120 bytes

# --- nginx -------------------------------------------------------------------
remote_start_nginx "$docs" || fatal "remote_start_nginx"
U=$REMOTE_NGINX_URL
same "nginx URL" "$U" "http://127.0.0.1:$REMOTE_NGINX_PORT"

req -r 100-199 "$U/f"
same "nginx range: status" "$CODE" 206
same "nginx range: Content-Range" "$(hdr Content-Range)" "bytes 100-199/5120"
same "nginx range: bytes" "$(body)" "$(slice "$F" 100 100)"
etag=$(hdr ETag)
same "nginx range: strong ETag" "$(echo "$etag" | grep -cE '^"[0-9a-f]+-[0-9a-f]+"$')" 1

req -r -22 "$U/f"
same "nginx suffix range: Content-Range" "$CODE $(hdr Content-Range)" "206 bytes 5098-5119/5120"
same "nginx suffix range: bytes" "$(body)" "$(slice "$F" 5098 22)"

req "$U/redirect/f"
same "redirect: 302 to a relative /f" "$CODE $(hdr Location)" "302 /f"
n=$(curl -s -L -o "$TMP/b" -w '%{num_redirects} %{http_code}' "$U/redirect/f")
same "redirect followed" "$n $(cmp -s "$TMP/b" "$F" && echo same)" "1 200 same"

n=$(curl -s -L --max-redirs 5 -o /dev/null -w '%{num_redirects} %{http_code} %{url_effective}' "$U/chain/5/f")
same "chain of 5" "$n" "5 200 $U/f"
req "$U/chain/5/f"
same "chain: first hop" "$CODE $(hdr Location)" "302 /chain/4/f"
curl -s -L --max-redirs 5 -o /dev/null "$U/chain/6/f"
same "chain of 6 exceeds 5 redirects (curl: too many redirects)" "$?" 47
n=$(curl -s -L -o /dev/null -w '%{num_redirects} %{http_code}' "$U/chain/6/f")
same "chain of 6" "$n" "6 200"

req "$U/to-metadata/x"
same "to the metadata address" "$CODE $(hdr Location)" "302 http://169.254.169.254/latest/meta-data/"
req "$U/to-localhost/f"
same "to localhost by name" "$CODE $(hdr Location)" "302 http://localhost:$REMOTE_NGINX_PORT/f"

req "$U/to-userinfo/f"
same "to a Location with credentials" "$CODE $(hdr Location)" "302 http://user:pass@127.0.0.1:$REMOTE_NGINX_PORT/f"
remote_nginx_log_reset
curl -s -o /dev/null -u user:pass "$U/f"
curl -s -o /dev/null "$U/f"
same "log: the Authorization header (the oracle for credentials sent)" \
    "$(remote_nginx_sync && cut -f 10 "$REMOTE_NGINX_LOG" | tr '\n' ' ')" "Basic dXNlcjpwYXNz - "

req -r 100-199 "$U/norange/f"
same "norange: 200 to a Range request" "$CODE" 200
same "norange: no Content-Range" "$(hdr Content-Range)" ""
same "norange: the whole file" "$(cmp -s "$TMP/b" "$F" && echo same)" same

curl -s -m 1 -o /dev/null "$U/slow/f"
same "slow: 5120 bytes at 1k/s outlast a 1 s timeout" "$?" 28

remote_nginx_log_reset
same "log reset" "$(remote_nginx_requests)" 0
curl -s -o /dev/null -r 0-9 "$U/f"
curl -s -o /dev/null -r 100-199 "$U/f"
curl -s -o /dev/null "$U/f"
curl -s -o /dev/null -r 0-9 "$U/norange/f"
same "log: requests" "$(remote_nginx_requests)" 4
same "log: requests for /f" "$(remote_nginx_requests '^/f$')" 3
same "log: bytes for /f" "$(remote_nginx_bytes '^/f$')" $((10 + 100 + 5120))
same "log: bytes for /norange/" "$(remote_nginx_bytes '^/norange/')" 5120
same "log: ranges" "$(remote_nginx_ranges | tr '\n' ' ')" "bytes=0-9 bytes=100-199 - bytes=0-9 "
same "log: status, ETag" "$(awk -F'\t' 'NR == 1 { print $1, $3, $9 }' "$REMOTE_NGINX_LOG")" "GET 206 $etag"

# --- the changing object --------------------------------------------------------
head -c 1000 /dev/zero | tr '\0' A >"$TMP/versions/1"
head -c 1200 /dev/zero | tr '\0' B >"$TMP/versions/2"
remote_start_changing "$TMP/versions" || fatal "remote_start_changing"
C=$REMOTE_CHANGING_URL/model.pt2
req -r 0-99 "$C"
e1=$(hdr ETag)
same "changing: first" "$CODE $(hdr Content-Range) $(head -c 3 "$TMP/b")" "206 bytes 0-99/1000 AAA"
req -r 100-199 -H "If-Match: $e1" "$C"
e2=$(hdr ETag)
same "changing: stale If-Match" "$CODE $(wc -c <"$TMP/b")" "412 0"
same "changing: a new ETag" "$([ -n "$e2" ] && [ "$e2" != "$e1" ] && echo new)" new
req -r 100-199 -H "If-Match: $e2" "$C"
same "changing: current If-Match" "$CODE $(hdr Content-Range) $(head -c 3 "$TMP/b")" "206 bytes 100-199/1200 BBB"
req -r 0-9 -H "If-Range: $e1" "$C"
same "changing: stale If-Range gets it all" "$CODE $(wc -c <"$TMP/b")" "200 1200"
req -r 2000- "$C"
same "changing: unsatisfiable" "$CODE $(hdr Content-Range)" "416 bytes */1200"
same "changing: log" "$(cut -f 1,3,4,6,7 "$REMOTE_CHANGING_LOG" | tr '\t\n' ' ;')" \
    "GET bytes=0-99 - 206 100;GET bytes=100-199 $e1 412 0;GET bytes=100-199 $e2 206 100;GET bytes=0-9 - 200 1200;GET bytes=2000- - 416 0;"

remote_start_changing "$TMP/versions" ignore || fatal "remote_start_changing ignore"
C=$REMOTE_CHANGING_URL/model.pt2
req -r 0-99 "$C"
e1=$(hdr ETag)
req -r 100-199 -H "If-Match: $e1" "$C"
same "changing, ignore: If-Match ignored, new bytes" "$CODE $(hdr Content-Range) $(head -c 3 "$TMP/b")" \
    "206 bytes 100-199/1200 BBB"
same "changing, ignore: only the ETag tells" "$([ "$(hdr ETag)" != "$e1" ] && echo changed)" changed

# --- slow ----------------------------------------------------------------------
remote_start_slow "$docs" 2 || fatal "remote_start_slow"
n=$(curl -s -m 0.4 -o /dev/null -w '%{http_code}' "$REMOTE_SLOW_URL/f")
same "slow headers: timeout before the status line" "$? $n" "28 000"
remote_start_slow "$docs" 2 body || fatal "remote_start_slow body"
n=$(curl -s -m 0.4 -r 0-99 -o /dev/null -w '%{http_code} %{size_download}' "$REMOTE_SLOW_URL/f")
same "slow body: timeout after the first byte" "$? $n" "28 206 1"

# --- S3 ---------------------------------------------------------------------------
remote_start_s3 "$TMP/s3data" models "$F" "dir/m.pt2=$F" || fatal "remote_start_s3"
S=$REMOTE_S3_URL/models
same "s3 env" "$(remote_s3_env)" \
    "AWS_ENDPOINT_URL=$REMOTE_S3_URL AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1"
# curl 7.88's --aws-sigv4 does not add x-amz-content-sha256, which S3 requires: -H.
sig() { # sig REGION KEY:SECRET CURL-ARGS...
    local region=$1 user=$2
    shift 2
    req --aws-sigv4 "aws:amz:$region:s3" --user "$user" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}
code() { sed -n 's:.*<Code>\(.*\)</Code>.*:\1:p' "$TMP/b"; }
sig us-east-1 S3RVER:S3RVER -r 100-199 "$S/f"
same "s3 signed range" "$CODE $(hdr Content-Range)" "206 bytes 100-199/5120"
same "s3 signed range: bytes" "$(body)" "$(slice "$F" 100 100)"
sig us-east-1 S3RVER:S3RVER -r 10-19 "$S/dir/m.pt2"
same "s3 nested key" "$CODE $(body)" "206 $(slice "$F" 10 10)"
sig us-east-1 S3RVER:S3RVER -I "$S/f"
same "s3 signed HEAD" "$CODE $(hdr Content-Length)" "200 5120"
sig us-east-1 S3RVER:S3RVER -r -22 "$S/f"
same "s3rver: a suffix range is answered from offset 0" "$CODE $(hdr Content-Range)" "206 bytes 0-22/5120"
same "s3rver: suffix range bytes" "$(body)" "$(slice "$F" 0 23)"
sig us-east-1 S3RVER:wrong -r 100-199 "$S/f"
same "s3 wrong secret" "$CODE $(code)" "403 SignatureDoesNotMatch"
sig us-east-1 NOBODY:S3RVER -r 100-199 "$S/f"
same "s3 unknown key" "$CODE $(code)" "403 InvalidAccessKeyId"
sig eu-west-1 S3RVER:S3RVER -r 100-199 "$S/f"
same "s3 another region" "$CODE $(code)" "400 AuthorizationHeaderMalformed"
req --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER -r 100-199 "$S/f"
same "s3 without x-amz-content-sha256" "$CODE $(code)" "400 InvalidRequest"
req -r 100-199 "$S/f"
same "s3 unsigned" "$CODE $(code)" "403 AccessDenied"
same "s3 log: signed and verified" "$(remote_s3_requests ok)" 4
same "s3 log: refused signatures" "$(remote_s3_requests bad)" 4
same "s3 log: unsigned" "$(remote_s3_requests none)" 1
same "s3 log: first line" "$(head -1 "$REMOTE_S3_LOG" | tr '\t' ' ')" "GET /models/f bytes=100-199 ok 206 -"
same "s3 log: wrong secret line" "$(sed -n 5p "$REMOTE_S3_LOG" | tr '\t' ' ')" \
    "GET /models/f bytes=100-199 bad 403 SignatureDoesNotMatch"
# s3rver alone takes the wrong secret: the proxy is what checks.
req --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:wrong -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    -r 0-9 "$REMOTE_S3RVER_URL/models/f"
same "s3rver itself does not verify V4 signatures" "$CODE" 206

remote_start_s3 --allow-unsigned "$TMP/s3data2" models "$F" || fatal "remote_start_s3 --allow-unsigned"
req -r 0-9 "$REMOTE_S3_URL/models/f"
same "s3 --allow-unsigned: unsigned" "$CODE $(remote_s3_requests none)" "206 1"
sig us-east-1 S3RVER:wrong -r 0-9 "$REMOTE_S3_URL/models/f"
same "s3 --allow-unsigned: a bad signature still refused" "$CODE $(code)" "403 SignatureDoesNotMatch"

# --- cleanup -----------------------------------------------------------------------
pids=("${REMOTE_PIDS[@]}")
state=$REMOTE_TMP
same "servers started" "${#pids[@]}" 7
remote_stop_all
alive=0
for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
same "remote_stop_all: no server left" "$alive" 0
same "remote_stop_all: temp dir removed" "$([ -e "$state" ] && echo left)" ""

echo "remote_servers: $pass passed, $fail failed"
[ "$fail" = 0 ]

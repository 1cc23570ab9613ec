#!/usr/bin/env bash
# remote.sh - packages by URL (pt2_remote over the library's byte source),
# against real servers on loopback (tests/remote/servers.sh): Debian's nginx
# (Range, redirects, an access log that counts requests and bytes), a server
# without Range, a slow one, an object replaced between requests, and S3
# (s3rver behind a proxy that verifies every request's SigV4 signature).
#
# The CLI (no allow list) and the daemon (--remote-allow, address rules) give
# the same answer as for the local file; every request the answer claims
# (package.source) is in the server's log, and nothing else is; refusals,
# timeouts and changes are the problems the API documents.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
# tests/contract/run.sh sets PT2SCOPE_DAEMON to pt2scoped-test, which records responses.
CLI=$B/pt2scope D=${PT2SCOPE_DAEMON:-$B/pt2scoped}
. tests/remote/servers.sh
TMP=$(mktemp -d /tmp/pt2scope-remote-test-XXXXXX)
DPIDS=()
cleanup() {
    local p
    for p in "${DPIDS[@]}"; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    remote_stop_all
    rm -rf "$TMP"
}
trap cleanup EXIT
pass=0 fail=0
same() { # same WHAT ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); printf 'FAIL %s: got\n  %s\nwant\n  %s\n' "$1" "$2" "$3"; fi
}
# j FILE EXPR: a Python expression over the JSON document d (None when it is not JSON)
j() {
    python3 - "$1" "$2" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    d = None
print(eval(sys.argv[2]))
PY
}

# ---- the objects -------------------------------------------------------------
DOC=$TMP/doc
mkdir -p "$DOC/sub" "$TMP/spool"
cp tests/fixtures/cuda_embedded.pt2 tests/fixtures/cuda_sm90a_v8.pt2 tests/fixtures/cpu_x86_64.pt2 "$DOC/"
cp tests/fixtures/cuda_sm90a_v8.pt2 "$DOC/sub/model.pt2"
remote_start_nginx "$DOC" || exit 1
N=$REMOTE_NGINX_URL

# The local answer every remote one must match (package.source and name aside).
local_doc() { # local_doc FILE OUT
    "$CLI" inspect --json "tests/fixtures/$1" >"$2"
}
strip() { # the document without what differs by where it came from
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["package"].pop("source", None)
d["package"].pop("name", None)
# bytes_read differs by transport; the daemon adds this node's verdicts
for k in ("bytes_read", "compatibility", "overall"):
    d.pop(k, None)
print(json.dumps(d, sort_keys=True))
PY
}

# ---- CLI over nginx ----------------------------------------------------------
local_doc cuda_embedded.pt2 "$TMP/local.json"
remote_nginx_log_reset
"$CLI" inspect --json "$N/cuda_embedded.pt2" >"$TMP/cli.json" 2>"$TMP/cli.err"
same "cli inspect by URL: exit" "$?" 0
same "cli: the same answer as the local file" "$(strip "$TMP/cli.json")" "$(strip "$TMP/local.json")"
same "cli: package.source.url" "$(j "$TMP/cli.json" 'd["package"]["source"]["url"]')" "$N/cuda_embedded.pt2"
same "cli: package.name" "$(j "$TMP/cli.json" 'd["package"]["name"]')" "cuda_embedded.pt2"
same "cli: every request it claims is in the server's log" \
    "$(j "$TMP/cli.json" 'd["package"]["source"]["requests"]')" "$(remote_nginx_requests)"
same "cli: every byte it claims, too" \
    "$(j "$TMP/cli.json" 'd["package"]["source"]["bytes_transferred"]')" "$(remote_nginx_bytes)"
same "cli: range requests" "$(j "$TMP/cli.json" 'd["package"]["source"]["range_requests"]')" True
# 1 MB package: the suffix (256 KiB, whole directory), then the planned heads and tails,
# then the .so's sections (some already in the suffix): at most 4 requests, ~0.3 MB.
same "cli: at most 4 requests" "$(($(remote_nginx_requests) <= 4))" 1
# in 3 round trips: the suffix, the planned heads and tails, the .so's sections
same "cli: round trips" "$(j "$TMP/cli.json" 'd["package"]["source"]["round_trips"]')" 3
same "cli: well under the whole file" "$(($(remote_nginx_bytes) < 512 * 1024))" 1
same "cli: the first request is the suffix Range" "$(remote_nginx_ranges | head -1)" "bytes=-262144"
# every later one names the validator (If-Match: the ETag nginx sent)
etag=$(awk -F'\t' 'NR==1 {print $9}' "$REMOTE_NGINX_LOG")
same "cli: later requests carry If-Match" \
    "$(awk -F'\t' -v e="$etag" 'NR>1 && $7 != e {bad++} END {print bad+0}' "$REMOTE_NGINX_LOG")" 0
same "cli: validator" "$(j "$TMP/cli.json" 'd["package"]["source"]["validator"]')" "$etag"

# check and validate take URLs too
"$CLI" check "$N/cuda_sm90a_v8.pt2" --target H100 >/dev/null 2>&1
same "cli check by URL (compatible)" "$?" 0
"$CLI" check "$N/cuda_sm90a_v8.pt2" --target A100 >/dev/null 2>&1
same "cli check by URL (incompatible)" "$?" 1
# scan lists URLs beside files: the same item as for the local copy, named by the URL shown
"$CLI" scan --json tests/fixtures/cuda_sm90a_v8.pt2 "$N/cuda_sm90a_v8.pt2?sig=x" --target H100 \
    >"$TMP/scan.json" 2>/dev/null
same "cli scan: a URL" "$?" 0
same "cli scan: the URL's item" "$(j "$TMP/scan.json" 'd[1]["name"] + " " + d[1]["overall"]["verdict"] + " " + str(d[1]["size"])')" \
    "$N/cuda_sm90a_v8.pt2 compatible None"
same "cli scan: as the file's" "$(j "$TMP/scan.json" 'd[0]["targets"] == d[1]["targets"] and d[0]["kind"] == d[1]["kind"]')" True
# redirects: one hop, five hops; six are too many
"$CLI" inspect --json "$N/redirect/cpu_x86_64.pt2" >"$TMP/r.json" 2>/dev/null
# the URL shown is the one asked for (the cache key), not where it was redirected
same "cli: a redirect is followed" "$(j "$TMP/r.json" 'd["package"]["source"]["url"]')" \
    "$N/redirect/cpu_x86_64.pt2"
"$CLI" inspect --json "$N/chain/5/cpu_x86_64.pt2" >/dev/null 2>&1
same "cli: 5 redirects" "$?" 0
"$CLI" inspect "$N/chain/6/cpu_x86_64.pt2" >/dev/null 2>"$TMP/e"
same "cli: 6 redirects fail (exit: unreadable)" "$?" 3
same "cli: 6 redirects fail (message)" "$(grep -c 'redirect' "$TMP/e")" 1
# a missing object, a server without Range (downloaded whole), credentials never shown
"$CLI" inspect --json "$N/nope.pt2" >"$TMP/e.json" 2>/dev/null
same "cli: missing object" "$(j "$TMP/e.json" 'd["type"]')" "https://pt2scope.dev/problems/not-found"
"$CLI" check "$N/nope.pt2" --target H100 >/dev/null 2>&1
same "cli: a missing object is no package (exit)" "$?" 2
# a report names the package by the URL shown: no query, no credentials
"$CLI" check "$N/cuda_sm90a_v8.pt2?sig=secret" --target A100 --format sarif >"$TMP/s.sarif" 2>/dev/null
same "cli: sarif of a URL (exit)" "$?" 1
same "cli: sarif names the URL shown" \
    "$(j "$TMP/s.sarif" 'd["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]')" \
    "$N/cuda_sm90a_v8.pt2"
"$CLI" inspect --json "$N/norange/cpu_x86_64.pt2" >"$TMP/nr.json" 2>/dev/null
same "cli: no Range: downloaded whole" "$(j "$TMP/nr.json" 'd["package"]["source"]["range_requests"]')" False
same "cli: no Range: same answer" "$(strip "$TMP/nr.json")" \
    "$(local_doc cpu_x86_64.pt2 "$TMP/l2.json" && strip "$TMP/l2.json")"
"$CLI" inspect --json "http://user:secret@127.0.0.1:$REMOTE_NGINX_PORT/cpu_x86_64.pt2?sig=abc" \
    >"$TMP/cred.json" 2>/dev/null
same "cli: credentials and query stripped from the URL shown" \
    "$(j "$TMP/cred.json" 'd["package"]["source"]["url"]')" "$N/cpu_x86_64.pt2"

# a Location's user:pass@ is dropped: never sent as Basic credentials to the host it names
remote_nginx_log_reset
"$CLI" inspect --json "$N/to-userinfo/cpu_x86_64.pt2" >"$TMP/ui.json" 2>"$TMP/ui.err"
same "cli: redirect with credentials: followed" "$?" 0
same "cli: redirect with credentials: no Authorization sent" \
    "$(remote_nginx_sync && awk -F'\t' '$2 == "/cpu_x86_64.pt2" { print $10 }' "$REMOTE_NGINX_LOG" | sort -u)" "-"

# ---- the daemon --------------------------------------------------------------
start_daemon() { # start_daemon NAME ARGS...: $U_<NAME> is its base URL
    local name=$1
    shift
    "$D" --listen 127.0.0.1:0 --port-file "$TMP/$name.port" --model-root tests/fixtures \
        --spool-dir "$TMP/spool" --libcuda /nonexistent/pt2scope/libcuda.so.1 "$@" \
        2>"$TMP/$name.log" &
    DPIDS+=($!)
    for _ in $(seq 1 500); do [ -s "$TMP/$name.port" ] && break; sleep 0.01; done
    [ -s "$TMP/$name.port" ] || { echo "FAIL: daemon $name did not start"; cat "$TMP/$name.log"; exit 1; }
    eval "U_$name=http://127.0.0.1:$(cat "$TMP/$name.port")"
}
get() { # get URL OUT [curl args]: prints the status
    local u=$1 o=$2
    shift 2
    curl -s -o "$o" -w '%{http_code}' "$@" "$u"
}
problem() { # problem FILE -> "<status> <slug>"
    j "$1" 'str(d["status"]) + " " + d["type"].rsplit("/", 1)[1]'
}

start_daemon off
same "daemon: URLs are off by default" \
    "$(get "$U_off/v1/inspect?url=$N/cpu_x86_64.pt2" "$TMP/o.json")" 403
same "daemon: off -> remote-refused" "$(problem "$TMP/o.json")" "403 remote-refused"

start_daemon on --remote-allow "$N/" --remote-max-download 30000 --remote-timeout 2
remote_nginx_log_reset
same "daemon: ?url= allowed" "$(get "$U_on/v1/inspect?url=$N/cuda_embedded.pt2&affinity=1" "$TMP/d.json" -D "$TMP/h")" 200
same "daemon: the same answer as the local file" "$(strip "$TMP/d.json")" "$(strip "$TMP/local.json")"
same "daemon: requests it claims = the log" \
    "$(j "$TMP/d.json" 'd["package"]["source"]["requests"]')" "$(remote_nginx_requests)"
etag=$(tr -d '\r' <"$TMP/h" | awk -F': ' 'tolower($1)=="etag" {print $2}')
same "daemon: 304 for the same ETag" \
    "$(get "$U_on/v1/inspect?url=$N/cuda_embedded.pt2&affinity=1" "$TMP/x" -H "If-None-Match: $etag")" 304
# a cached answer costs the first request only: the validator still matches
same "daemon: a cached answer made one more request" "$(remote_nginx_requests)" \
    "$(($(j "$TMP/d.json" 'd["package"]["source"]["requests"]') + 1))"
same "daemon: arch by url" "$(get "$U_on/v1/arch?url=$N/cuda_sm90a_v8.pt2" "$TMP/a.json")" 200
same "daemon: JSON body url" "$(get "$U_on/v1/inspect" "$TMP/b.json" -H 'Content-Type: application/json' \
    --data "{\"url\": \"$N/sub/model.pt2\", \"target\": \"H100\"}")" 200
same "daemon: JSON body url answer" "$(j "$TMP/b.json" 'd["overall"]["verdict"]')" compatible
same "daemon: path and url" "$(get "$U_on/v1/inspect?url=$N/x.pt2&path=cpu_x86_64.pt2" "$TMP/e.json")" 400
same "daemon: path and url (detail)" "$(j "$TMP/e.json" 'd["detail"]')" "send either a path or a url, not both"
same "daemon: not a URL" "$(get "$U_on/v1/inspect?url=file:///etc/passwd" "$TMP/e.json")" 400
same "daemon: not a URL (detail)" "$(j "$TMP/e.json" 'd["detail"]')" "url must start with http://, https:// or s3://"
same "daemon: outside the prefixes" \
    "$(get "$U_on/v1/inspect?url=http://localhost:$REMOTE_NGINX_PORT/cpu_x86_64.pt2" "$TMP/e.json")" 403
same "daemon: outside the prefixes (type)" "$(problem "$TMP/e.json")" "403 remote-refused"
# redirects inside the prefix are checked hop by hop: to cloud metadata, to a loopback NAME
same "daemon: redirect to metadata" "$(get "$U_on/v1/inspect?url=$N/to-metadata/x" "$TMP/e.json")" 403
same "daemon: redirect to metadata (type)" "$(problem "$TMP/e.json")" "403 remote-refused"
same "daemon: redirect to localhost by name" \
    "$(get "$U_on/v1/inspect?url=$N/to-localhost/cpu_x86_64.pt2" "$TMP/e.json")" 403
# a scheme-only entry names no host: the address rules refuse every loopback hop
start_daemon any --remote-allow http://
same "daemon: any http host, but not loopback" \
    "$(get "$U_any/v1/inspect?url=$N/cpu_x86_64.pt2" "$TMP/e.json")" 403
same "daemon: any http host, but not loopback (detail)" "$(j "$TMP/e.json" 'd["detail"]')" \
    "$N/cpu_x86_64.pt2: 127.0.0.1 is a loopback address (refused)"
same "daemon: a plain redirect inside the prefix" \
    "$(get "$U_on/v1/inspect?url=$N/redirect/cpu_x86_64.pt2" "$TMP/e.json")" 200
same "daemon: missing object" "$(get "$U_on/v1/inspect?url=$N/nope.pt2" "$TMP/e.json")" 404
same "daemon: missing object (type)" "$(problem "$TMP/e.json")" "404 not-found"
# no Range: under --remote-max-download it is downloaded to the spool, over it refused
same "daemon: no Range, small" "$(get "$U_on/v1/inspect?url=$N/norange/cpu_x86_64.pt2" "$TMP/e.json")" 200
same "daemon: no Range, over the cap" \
    "$(get "$U_on/v1/inspect?url=$N/norange/cuda_embedded.pt2" "$TMP/e.json")" 502
same "daemon: no Range, over the cap (type)" "$(problem "$TMP/e.json")" "502 remote-no-range"
same "daemon: nothing left in the spool" "$(ls -A "$TMP/spool" | wc -l)" 0
# a cap on what one inspection may transfer: the 1 MB package needs ~300 KB
start_daemon cap --remote-allow "$N/" --remote-max-bytes 100000
same "daemon: over --remote-max-bytes" "$(get "$U_cap/v1/inspect?url=$N/cuda_embedded.pt2" "$TMP/e.json")" 413
same "daemon: over --remote-max-bytes (type)" "$(problem "$TMP/e.json")" "413 too-large"
# a slow server: --remote-timeout 2
mkdir -p "$TMP/slowdoc" && cp tests/fixtures/cpu_x86_64.pt2 "$TMP/slowdoc/"
remote_start_slow "$TMP/slowdoc" 5 || exit 1
start_daemon slow --remote-allow "$REMOTE_SLOW_URL/" --remote-timeout 1
same "daemon: slow server" "$(get "$U_slow/v1/inspect?url=$REMOTE_SLOW_URL/cpu_x86_64.pt2" "$TMP/e.json")" 504
same "daemon: slow server (type)" "$(problem "$TMP/e.json")" "504 remote-timeout"
# an object replaced between requests: 409, whether the server honours If-Match or not
mkdir -p "$TMP/versions"
cp tests/fixtures/cuda_embedded.pt2 "$TMP/versions/1.pt2"
cp tests/fixtures/cuda_embedded.pt2 "$TMP/versions/2.pt2"
printf 'x' | dd of="$TMP/versions/2.pt2" bs=1 seek=500000 conv=notrunc 2>/dev/null
for mode in strict ignore; do
    remote_start_changing "$TMP/versions" "$mode" || exit 1
    start_daemon "ch_$mode" --remote-allow "$REMOTE_CHANGING_URL/"
    u=U_ch_$mode
    same "daemon: replaced mid-read ($mode)" \
        "$(get "${!u}/v1/inspect?url=$REMOTE_CHANGING_URL/m.pt2&nocache=1" "$TMP/e.json")" 409
    same "daemon: replaced mid-read ($mode, type)" "$(problem "$TMP/e.json")" "409 remote-changed"
done
# POST /v1/compatibility names its package by url too
printf '{"url": "%s/cuda_sm90a_v8.pt2", "nodes": [{"metadata": {"name": "h100", "labels": {"nvidia.com/gpu.count": "1", "nvidia.com/gpu.compute.major": "9", "nvidia.com/gpu.compute.minor": "0", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"}}}]}' "$N" >"$TMP/nodes.json"
same "daemon: POST /v1/compatibility with a url" "$(get "$U_on/v1/compatibility" "$TMP/c.json" \
    -H 'Content-Type: application/json' --data @"$TMP/nodes.json")" 200
same "daemon: POST /v1/compatibility verdict" "$(j "$TMP/c.json" 'd["nodes"][0]["verdict"]')" compatible
# the cluster asks each peer about the url; each peer reads it itself
start_daemon agg --peer "$U_on"
same "cluster: by url" "$(get "$U_agg/v1/cluster/compatibility?url=$N/cuda_sm90a_v8.pt2" "$TMP/cl.json")" 200
same "cluster: the url named" "$(j "$TMP/cl.json" 'd["url"]')" "$N/cuda_sm90a_v8.pt2"
same "cluster: the peer read it" "$(j "$TMP/cl.json" 'd["summary"]["ok"]')" 1
# the metrics count what was read
curl -s "$U_on/metrics" >"$TMP/m"
same "daemon: remote requests counted" "$(grep -c '^pt2scope_remote_requests_total [1-9]' "$TMP/m")" 1
same "daemon: remote bytes counted" "$(grep -c '^pt2scope_remote_bytes_total [1-9]' "$TMP/m")" 1

# ---- S3 ----------------------------------------------------------------------
remote_start_s3 "$TMP/s3data" models "cuda_sm90a_v8.pt2=tests/fixtures/cuda_sm90a_v8.pt2" \
    "deep/dir/cpu.pt2=tests/fixtures/cpu_x86_64.pt2" || exit 1
env $(remote_s3_env) "$CLI" inspect --json s3://models/cuda_sm90a_v8.pt2 >"$TMP/s3.json" 2>"$TMP/s3.err"
same "s3: cli inspect" "$?" 0
same "s3: same answer" "$(strip "$TMP/s3.json")" \
    "$(local_doc cuda_sm90a_v8.pt2 "$TMP/l3.json" && strip "$TMP/l3.json")"
same "s3: source url" "$(j "$TMP/s3.json" 'd["package"]["source"]["url"]')" "s3://models/cuda_sm90a_v8.pt2"
same "s3: every request signed and verified" "$(remote_s3_requests bad)$(remote_s3_requests none)" "00"
same "s3: requests it claims = the proxy's log" "$(remote_s3_requests ok)" \
    "$(j "$TMP/s3.json" 'd["package"]["source"]["requests"]')"
env $(remote_s3_env) AWS_SECRET_ACCESS_KEY=wrong "$CLI" inspect --json s3://models/cuda_sm90a_v8.pt2 \
    >"$TMP/e.json" 2>/dev/null
same "s3: a wrong secret" "$(problem "$TMP/e.json")" "502 remote-unreachable"
env $(remote_s3_env) "$CLI" inspect --json s3://models/missing.pt2 >"$TMP/e.json" 2>/dev/null
same "s3: NoSuchKey" "$(problem "$TMP/e.json")" "404 not-found"
# the daemon: an s3:// prefix; the operator's endpoint is trusted though it is loopback
eval "export $(remote_s3_env)"
start_daemon s3 --remote-allow s3://models/deep/
same "daemon: s3 inside the prefix" "$(get "$U_s3/v1/metadata?url=s3://models/deep/dir/cpu.pt2" "$TMP/m.json")" 200
same "daemon: s3 outside the prefix" "$(get "$U_s3/v1/metadata?url=s3://models/cuda_sm90a_v8.pt2" "$TMP/e.json")" 403

echo "remote: $pass passed, $fail failed"
[ "$fail" = 0 ]

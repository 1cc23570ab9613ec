#!/usr/bin/env bash
# bucket.sh - a whole registry in a bucket: `pt2scope scan s3://BUCKET/PREFIX/`
# (ListObjectsV2 pages, concurrency, --state, --format jsonl, --shard, --output)
# and GET /v1/packages?url=s3://..., against the S3 test server the remote
# tests use (s3rver behind a proxy verifying every SigV4 signature). Every
# request count is read from the proxy's log, never from what pt2scope says.
#
# The bucket: 2,000 packages under reg/ (one small fixture copied under 1,999
# keys, one GPU package), a non-package key, and other/. Listing pages hold
# 1,000 keys, so reg/ takes 3 listing requests.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
CLI=$B/pt2scope D=${PT2SCOPE_DAEMON:-$B/pt2scoped}
. tests/remote/servers.sh
TMP=$(mktemp -d /tmp/pt2scope-bucket-test-XXXXXX)
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
# j FILE EXPR: a Python expression over the JSON document d
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
names() { # names JSONL-FILE: the items' names, sorted
    python3 -c 'import json,sys; print("\n".join(sorted(json.loads(l)["name"] for l in open(sys.argv[1]) if l.strip())))' "$1"
}
log_reset() { : >"$REMOTE_S3_LOG"; }
lists() { awk -F'\t' '$2 ~ /[?&]list-type=2/ { n++ } END { print n + 0 }' "$REMOTE_S3_LOG"; }
gets() { awk -F'\t' -v re="${1:-.}" '$1 == "GET" && $2 !~ /list-type=/ && $2 ~ re { n++ } END { print n + 0 }' "$REMOTE_S3_LOG"; }
# the most requests any one object took
most() { awk -F'\t' '$1 == "GET" && $2 !~ /list-type=/ { c[$2]++ } END { m = 0; for (k in c) if (c[k] > m) m = c[k]; print m }' "$REMOTE_S3_LOG"; }
unverified() { awk -F'\t' '$4 != "ok" { n++ } END { print n + 0 }' "$REMOTE_S3_LOG"; }

# ---- the bucket -------------------------------------------------------------------
SMALL=tests/fixtures/export_program.pt2 GPU=tests/fixtures/cuda_sm90a_v8.pt2
specs=()
for i in $(seq -f '%04g' 0 1998); do specs+=("reg/p$i.pt2=$SMALL"); done
specs+=("reg/zz/gpu.pt2=$GPU" "reg/notes.txt=tests/fixtures/README.md" "other/x.pt2=$SMALL")
REMOTE_START_TIMEOUT=120 remote_start_s3 "$TMP/s3data" models "${specs[@]}" || exit 1
eval "export $(remote_s3_env)"
S=$TMP/state

# ---- a first scan: everything read, 3 listing pages --------------------------------------
log_reset
"$CLI" scan --format jsonl --state "$S" s3://models/reg/ >"$TMP/all.jsonl" 2>"$TMP/all.err"
same "scan: exit status" "$?" 0
same "scan: 2,000 items, one a line" "$(wc -l <"$TMP/all.jsonl")" 2000
same "scan: 2,000 different packages" "$(names "$TMP/all.jsonl" | uniq | wc -l)" 2000
same "scan: the non-package key is not an item" "$(grep -c notes.txt "$TMP/all.jsonl")" 0
same "scan: pagination at 1,000 keys: 3 listing requests" "$(lists)" 3
same "scan: every request signed and verified" "$(unverified)" 0
same "scan: at most 3 requests for any package" "$([ "$(most)" -le 3 ] && echo yes)" yes
same "scan: every package read" "$(awk -F'\t' '$1 == "GET" && $2 !~ /list-type=/ { print $2 }' "$REMOTE_S3_LOG" | sort -u | wc -l)" 2000
same "scan: the state says so" "$(cat "$TMP/all.err")" \
    "pt2scope: scan: 0 of 2000 listed objects unchanged since $S (not read)"
same "scan: the GPU package's item" \
    "$(grep '"s3://models/reg/zz/gpu.pt2"' "$TMP/all.jsonl" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["kind"], d["targets"])')" \
    "aoti sm_90a"
same "state: a header and 2,000 objects" "$(wc -l <"$S")" 2001
# size and mtime as the store lists them: its own ListObjectsV2 answer (s3rver, unsigned)
# is the oracle, LastModified to the second
listed_stat() { # listed_stat KEY: its listed Size and LastModified, as an item says them
    curl -s -o "$TMP/listed.xml" "$REMOTE_S3RVER_URL/models?list-type=2&prefix=$1"
    python3 - "$TMP/listed.xml" "$1" <<'PY'
import re, sys
x = open(sys.argv[1]).read()
c = re.search(r"<Contents>(?:(?!</Contents>).)*<Key>" + re.escape(sys.argv[2]) + r"</Key>.*?</Contents>", x, re.S).group(0)
size = re.search(r"<Size>(\d+)</Size>", c).group(1)
when = re.search(r"<LastModified>(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z</LastModified>", c).group(1)
print(size, when + "Z")
PY
}
LISTED=$(listed_stat reg/zz/gpu.pt2)
same "scan: a listed object's size is the file's" "${LISTED%% *}" "$(stat -c %s "$GPU")"
same "scan: a listed object's size and mtime, as listed" \
    "$(grep '"s3://models/reg/zz/gpu.pt2"' "$TMP/all.jsonl" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["size"], d["mtime"])')" \
    "$LISTED"
"$CLI" scan --json s3://models/reg/zz/gpu.pt2 >"$TMP/one.json" 2>/dev/null
same "scan: one object URL, not listed: size and mtime unknown" \
    "$(j "$TMP/one.json" '(d[0]["name"], d[0]["size"], d[0]["mtime"])')" \
    "('s3://models/reg/zz/gpu.pt2', None, None)"

# ---- the same scan again: nothing but the listing --------------------------------------------
log_reset
"$CLI" scan --json --state "$S" s3://models/reg/ >"$TMP/again.json" 2>"$TMP/again.err"
same "rescan: exit status" "$?" 0
same "rescan: all skipped" "$(cat "$TMP/again.err")" \
    "pt2scope: scan: 2000 of 2000 listed objects unchanged since $S (not read)"
same "rescan: only the 3 listing requests" "$(lists) $(gets)" "3 0"
same "rescan: --json, in listing (key) order" \
    "$(j "$TMP/again.json" '"\n".join(i["name"] for i in d)')" "$(names "$TMP/all.jsonl")"
same "rescan: the same answers" \
    "$(j "$TMP/again.json" 'sorted(json.dumps(i, sort_keys=True) for i in d) == sorted(json.dumps(json.loads(l), sort_keys=True) for l in open("'"$TMP/all.jsonl"'"))')" True

# ---- one object changed, one deleted -------------------------------------------------------------
curl -s -o /dev/null -X PUT --data-binary "@$GPU" "$REMOTE_S3RVER_URL/models/reg/p0007.pt2"
curl -s -o /dev/null -X DELETE "$REMOTE_S3RVER_URL/models/reg/p0011.pt2"
# the same bytes again, a second later: the same ETag, a new LastModified
OLD3=$(listed_stat reg/p0003.pt2)
sleep 1.1
curl -s -o /dev/null -X PUT --data-binary "@$SMALL" "$REMOTE_S3RVER_URL/models/reg/p0003.pt2"
NEW3=$(listed_stat reg/p0003.pt2)
log_reset
"$CLI" scan --format jsonl --state "$S" s3://models/reg/ >"$TMP/changed.jsonl" 2>"$TMP/changed.err"
same "changed: exit status" "$?" 0
same "changed: one read again" "$(cat "$TMP/changed.err")" \
    "pt2scope: scan: 1998 of 1999 listed objects unchanged since $S (not read)"
same "changed: only the changed object was requested" \
    "$(awk -F'\t' '$1 == "GET" && $2 !~ /list-type=/ { print $2 }' "$REMOTE_S3_LOG" | sort -u)" "/models/reg/p0007.pt2"
same "changed: its new answer" \
    "$(grep '"s3://models/reg/p0007.pt2"' "$TMP/changed.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["targets"])')" sm_90a
same "deleted: no item" "$(grep -c p0011 "$TMP/changed.jsonl")" 0
same "same bytes put again: a new LastModified" "$([ "$OLD3" != "$NEW3" ] && echo moved)" moved
same "same bytes put again: not read, shown with the listing's size and mtime" \
    "$(grep '"s3://models/reg/p0003.pt2"' "$TMP/changed.jsonl" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["size"], d["mtime"])')" \
    "$NEW3"
same "deleted: gone from the state" "$(wc -l <"$S") $(grep -c p0011 "$S")" "2000 0"

# ---- shards: a partition whose union is the unsharded scan --------------------------------------
names "$TMP/changed.jsonl" >"$TMP/unsharded"
for i in 0 1 2; do
    "$CLI" scan --format jsonl --shard "$i/3" s3://models/reg/ >"$TMP/shard$i.jsonl" 2>/dev/null
    same "shard $i/3: exit status" "$?" 0
done
cat "$TMP"/shard?.jsonl >"$TMP/union.jsonl"
same "shards: the union is the unsharded scan" "$(names "$TMP/union.jsonl")" "$(cat "$TMP/unsharded")"
same "shards: disjoint" "$(wc -l <"$TMP/union.jsonl")" 1999
# the documented hash: FNV-1a 64 of the key, modulo N
same "shards: FNV-1a 64 of the key" "$(python3 - "$TMP" <<'PY'
import json, sys
def fnv(b):
    h = 14695981039346656037
    for c in b:
        h = ((h ^ c) * 1099511628211) % (1 << 64)
    return h
ok = True
for i in range(3):
    for l in open(f"{sys.argv[1]}/shard{i}.jsonl"):
        key = json.loads(l)["name"].split("/", 3)[3]
        ok = ok and fnv(key.encode()) % 3 == i
print(ok)
PY
)" True
same "shards: each has a share" "$(for i in 0 1 2; do [ -s "$TMP/shard$i.jsonl" ] && echo y; done | wc -l)" 3

# ---- --output: the shard's JSON Lines uploaded with one PUT ----------------------------------------
log_reset
"$CLI" scan --shard 1/3 --output s3://models/out/ s3://models/reg/ >"$TMP/out.txt" 2>"$TMP/out.err"
same "output: exit status" "$?" 0
same "output: one signed PUT" "$(awk -F'\t' '$1 == "PUT" && $4 == "ok" && $5 == 200 { print $2 }' "$REMOTE_S3_LOG")" \
    "/models/out/scan-1-of-3.jsonl"
curl -s -o "$TMP/uploaded.jsonl" "$REMOTE_S3RVER_URL/models/out/scan-1-of-3.jsonl"
same "output: the object is the shard's items" "$(names "$TMP/uploaded.jsonl")" "$(names "$TMP/shard1.jsonl")"
same "output: stdout keeps its text summary" "$(tail -1 "$TMP/out.txt")" \
    "$(wc -l <"$TMP/shard1.jsonl" | tr -d ' ') packages: $(wc -l <"$TMP/shard1.jsonl" | tr -d ' ') readable, 0 unreadable"

# ---- failures ------------------------------------------------------------------------------------
log_reset
AWS_SECRET_ACCESS_KEY=wrong "$CLI" scan s3://models/reg/ >"$TMP/bad.out" 2>"$TMP/bad.err"
same "wrong secret: exit status" "$?" 2
same "wrong secret: one line naming S3's code" "$(cat "$TMP/bad.err")" \
    "pt2scope: scan: s3://models/reg/: the server answered HTTP 403, SignatureDoesNotMatch"
same "wrong secret: nothing printed, nothing read" "$(wc -c <"$TMP/bad.out") $(gets)" "0 0"
"$CLI" scan s3://nosuchbucket/x/ >/dev/null 2>"$TMP/nb.err"
same "no such bucket: exit status and line" "$? $(cat "$TMP/nb.err")" \
    "2 pt2scope: scan: s3://nosuchbucket/x/: not found (HTTP 404, NoSuchBucket)"
"$CLI" scan --shard 3/3 s3://models/reg/ >/dev/null 2>"$TMP/u.err"
same "usage: --shard 3/3" "$? $(cat "$TMP/u.err")" \
    "2 pt2scope: --shard: takes I/N: shard I (0 to N-1) of N (1 to 65536)"
"$CLI" scan --remote-concurrency 0 s3://models/reg/ >/dev/null 2>"$TMP/u.err"
same "usage: --remote-concurrency 0" "$? $(cat "$TMP/u.err")" \
    "2 pt2scope: --remote-concurrency: takes a number from 1 to 256"
"$CLI" scan --output https://example.com/x s3://models/other/ >/dev/null 2>"$TMP/u.err"
same "usage: --output not s3" "$? $(cat "$TMP/u.err")" \
    "2 pt2scope: --output: not an s3://BUCKET/KEY or s3://BUCKET/PREFIX/ URL"

# ---- the daemon: GET /v1/packages?url=s3://BUCKET/PREFIX/ -----------------------------------------
start_daemon() { # start_daemon NAME ARGS...: $U_<NAME> is its base URL
    local name=$1
    shift
    "$D" --listen 127.0.0.1:0 --port-file "$TMP/$name.port" --libcuda /nonexistent/pt2scope/libcuda.so.1 \
        --spool-dir "$TMP" "$@" 2>"$TMP/$name.log" &
    DPIDS+=($!)
    for _ in $(seq 1 500); do [ -s "$TMP/$name.port" ] && break; sleep 0.01; done
    [ -s "$TMP/$name.port" ] || { echo "FAIL: daemon $name did not start"; cat "$TMP/$name.log"; exit 1; }
    eval "U_$name=http://127.0.0.1:$(cat "$TMP/$name.port")"
}
get() { # get URL OUT: prints the status
    curl -s -o "$2" -w '%{http_code}' "$1"
}
problem() { j "$1" 'str(d["status"]) + " " + d["type"].rsplit("/", 1)[1]'; }
# pages PREFIX-URL OUT: every page of a listing (limit 1000), the items' names into OUT
pages() {
    local next="" n=0 u
    : >"$2"
    while :; do
        u="$U_d/v1/packages?url=$1&limit=1000${next:+&cursor=$next}"
        [ "$(get "$u" "$TMP/page.json")" = 200 ] || { echo "page $n: $(cat "$TMP/page.json")"; return 1; }
        j "$TMP/page.json" '"\n".join(i["name"] for i in d["items"])' >>"$2"
        n=$((n + 1))
        next=$(j "$TMP/page.json" 'd["next"] or ""')
        [ -n "$next" ] || break
    done
    echo "$n"
}
start_daemon d --remote-allow s3://models/reg/ --cache-entries 4000 --cache-bytes 4G
log_reset
same "daemon: a refused prefix" "$(get "$U_d/v1/packages?url=s3://models/" "$TMP/e.json") $(problem "$TMP/e.json")" \
    "403 403 remote-refused"
same "daemon: nothing sent for it" "$(lists)" 0
same "daemon: an object URL is no prefix" \
    "$(get "$U_d/v1/packages?url=s3://models/reg/p0001.pt2" "$TMP/e.json") $(problem "$TMP/e.json")" "400 400 bad-request"
same "daemon: first listing: 2 pages of 1,000 keys" "$(pages s3://models/reg/ "$TMP/d1")" 2
same "daemon: the same packages as the CLI" "$(sort "$TMP/d1")" "$(cat "$TMP/unsharded")"
same "daemon: first listing: each object read once, <= 3 requests" \
    "$(awk -F'\t' '$1 == "GET" && $2 !~ /list-type=/ { print $2 }' "$REMOTE_S3_LOG" | sort -u | wc -l) $([ "$(most)" -le 3 ] && echo ok)" \
    "1999 ok"
log_reset
same "daemon: again: 2 pages" "$(pages s3://models/reg/ "$TMP/d2")" 2
same "daemon: again: answered from the cache by listing ETag: no Range request" "$(lists) $(gets)" "2 0"
same "daemon: again: the same items" "$(cat "$TMP/d2")" "$(cat "$TMP/d1")"
get "$U_d/v1/packages?url=s3://models/reg/zz/&limit=5" "$TMP/zz.json" >/dev/null
same "daemon: a page: name, targets, next, total" \
    "$(j "$TMP/zz.json" '[(i["name"], i["targets"]) for i in d["items"]], d["next"], d["total"]')" \
    "([('s3://models/reg/zz/gpu.pt2', 'sm_90a')], None, None)"
same "daemon: an item's size and mtime, as listed" \
    "$(j "$TMP/zz.json" '"%s %s" % (d["items"][0]["size"], d["items"][0]["mtime"])')" "$LISTED"
curl -s -D "$TMP/h" -o /dev/null "$U_d/v1/inspect?url=s3://models/reg/zz/gpu.pt2"
same "daemon: an item's etag is the one /v1/inspect?url= answers" \
    "$(tr -d '\r' <"$TMP/h" | awk 'tolower($1) == "etag:" { print $2 }')" "$(j "$TMP/zz.json" 'd["items"][0]["etag"]')"
same "daemon: a cursor not given out" \
    "$(get "$U_d/v1/packages?url=s3://models/reg/&cursor=@@" "$TMP/e.json") $(problem "$TMP/e.json")" "400 400 bad-request"
start_daemon off
same "daemon: url= without --remote-allow" \
    "$(get "$U_off/v1/packages?url=s3://models/reg/" "$TMP/e.json") $(problem "$TMP/e.json")" "403 403 remote-refused"
AWS_SECRET_ACCESS_KEY=wrong start_daemon badkey --remote-allow s3://models/
same "daemon: credentials that fail" \
    "$(get "$U_badkey/v1/packages?url=s3://models/reg/" "$TMP/e.json") $(problem "$TMP/e.json")" "502 502 remote-unreachable"
same "daemon: ... S3's code in the detail" "$(j "$TMP/e.json" 'd["detail"]')" \
    "s3://models/reg/: the server answered HTTP 403, SignatureDoesNotMatch"

echo "bucket: $pass passed, $fail failed"
[ "$fail" = 0 ]

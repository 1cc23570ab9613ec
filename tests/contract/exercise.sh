#!/usr/bin/env bash
# Drive one request per declared (operation, status) pair the suites do not
# reach on their own, against real daemon processes, checking each status.
# Run by run.sh with PT2SCOPE_RECORD_DIR set, so every response is recorded
# and then validated against openapi/openapi.yaml. The daemons are the test
# build, pt2scoped-test: only it records, and its job gate (--test-gate FILE)
# keeps the 503 case's workers busy until this script creates FILE. (500s are
# left out: only an allocation failure produces them.)
# Usage: tests/contract/exercise.sh BUILD_DIR   (from the repository root)
set -u
BUILD=${1:-build}
D=$BUILD/pt2scoped-test
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pt2scope-exercise.XXXXXX") || exit 1
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
pass=0 fail=0

# start NAME ARGS...: a daemon on a free port; its base URL in $URL_<NAME>
start() {
    local name=$1 i
    shift
    "$D" --listen 127.0.0.1:0 --port-file "$tmp/$name.port" --model-root tests/fixtures \
        "$@" 2>"$tmp/$name.log" &
    pids+=($!)
    for i in $(seq 100); do [ -s "$tmp/$name.port" ] && break; sleep 0.05; done
    [ -s "$tmp/$name.port" ] || { echo "exercise: $name did not start"; cat "$tmp/$name.log"; exit 1; }
    printf -v "URL_$name" 'http://127.0.0.1:%s' "$(cat "$tmp/$name.port")"
}

# expect STATUS CURL_ARGS...: one request, compare the status
expect() {
    local want=$1 got
    shift
    got=$(curl -s -o /dev/null -w '%{http_code}' "$@")
    if [ "$got" = "$want" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: got $got, want $want: curl $*"; fi
}

etag_of() {
    curl -s -o /dev/null -D - "$@" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p'
}

# The stand-in CUDA driver gives this node two GPUs, so /v1/inspect carries
# `gpu` entries and /v1/node a device list.
export PT2SCOPE_FAKECUDA_DRIVER=13000
export PT2SCOPE_FAKECUDA_DEVICES='NVIDIA H100 80GB HBM3,9.0,132,85899345920;NVIDIA A100-SXM4-40GB,8.0,108,42949672960'
start main --max-upload 16K --libcuda "$BUILD/fakecuda/libcuda.so.1" --node-name gpu-node-7
U=$URL_main
PKG=cuda_sm90a_v8.pt2
IN='input=image=8,3,512,512&input=scale=8'
JSON='application/json'
for ep in inspect arch metadata validate; do
    q=""; jin=""
    [ $ep = validate ] && q="&$IN" && jin=',"inputs":{"image":[8,3,512,512],"scale":[8]}'
    # GET
    expect 200 "$U/v1/$ep?path=$PKG$q"
    tag=$(etag_of "$U/v1/$ep?path=$PKG$q")
    expect 304 -H "If-None-Match: $tag" "$U/v1/$ep?path=$PKG$q"
    expect 400 "$U/v1/$ep?path=$PKG&view=raw$q"
    expect 403 "$U/v1/$ep?path=../$PKG$q"
    expect 404 "$U/v1/$ep?path=missing.pt2$q"
    expect 422 "$U/v1/$ep?path=broken_not_zip.pt2$q"
    # POST: JSON naming a package, and uploads
    expect 200 -H "Content-Type: $JSON" -d "{\"path\":\"$PKG\"$jin}" "$U/v1/$ep"
    tag=$(etag_of -H "Content-Type: $JSON" -d "{\"path\":\"$PKG\"$jin}" "$U/v1/$ep")
    expect 304 -H "If-None-Match: $tag" -H "Content-Type: $JSON" -d "{\"path\":\"$PKG\"$jin}" \
        "$U/v1/$ep"
    expect 200 -H "Content-Type: $JSON" -d "{\"path\":\"$PKG\",\"view\":\"oip\"$jin}" "$U/v1/$ep"
    expect 400 -H "Content-Type: $JSON" -d '{"path": 7}' "$U/v1/$ep"
    expect 403 -H "Content-Type: $JSON" -d "{\"path\":\"/etc/$PKG\"$jin}" "$U/v1/$ep"
    expect 404 -H "Content-Type: $JSON" -d "{\"path\":\"missing.pt2\"$jin}" "$U/v1/$ep"
    expect 413 -H 'Content-Type: application/octet-stream' \
        --data-binary "@tests/fixtures/$PKG" "$U/v1/$ep?$q"
    expect 415 -H 'Content-Type: text/plain' -d x "$U/v1/$ep"
    expect 422 -H 'Content-Type: application/octet-stream' \
        --data-binary @tests/fixtures/broken_not_zip.pt2 "$U/v1/$ep?view=oip$q"
    expect 200 -F "file=@tests/fixtures/export_program.pt2;type=application/octet-stream" \
        "$U/v1/$ep?view=oip$q"
done
expect 200 "$U/v1/inspect?path=export_program.pt2&view=oip&target=H100&target=gfx90a&driver=12.4"
# A Windows library with a delay-load directory (Makefile: win_delay.pt2, when lld-link is
# there): its runtime's pe object against the schema.
if [ -f "$BUILD/fixtures/win/win_delay.pt2" ]; then
    start win --model-root "$BUILD/fixtures/win"
    expect 200 "$URL_win/v1/inspect?path=win_delay.pt2"
    expect 200 "$URL_win/v1/inspect?path=win_model.pt2"
fi
expect 200 "$U/v1/metadata?path=export_program.pt2&view=oip"
expect 200 "$U/v1/metadata?path=export_program.pt2"
expect 200 "$U/v1/metadata?path=multi_model.pt2"
expect 200 "$U/v1/validate?path=$PKG&input=image=8,3,511,512&input=scale=8"
expect 200 "$U/v1/validate?path=$PKG&inputs=%7B%22image%22%3A%5B8%2C3%2C512%2C512%5D%7D"
# Every fixture once (any status): the report shapes of all package kinds.
for f in tests/fixtures/*.pt2; do
    curl -s -o /dev/null "$U/v1/inspect?path=${f##*/}&target=H100&target=sm_80&target=gfx90a"
done
for p in /v1/version /livez /readyz /metrics /openapi.yaml /openapi.json /docs \
    /docs/swagger-ui.css; do
    expect 200 "$U$p"
    expect 200 -I "$U$p"
    expect 204 -X OPTIONS "$U$p"
    expect 405 -X DELETE "$U$p"
done
expect 404 "$U/docs/missing.js"
expect 404 "$U/v2/inspect"

# The listing and the operator page. (413, more than 1,000,000 entries under the
# roots, is left out with the 500s: it would take a million files.)
expect 200 "$U/v1/packages"
expect 200 "$U/v1/packages?limit=3&prefix=cuda&target=H100&target=B200&driver=13.0"
cursor=$(curl -s "$U/v1/packages?limit=2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["next"])')
expect 200 "$U/v1/packages?limit=2&cursor=$cursor"
expect 200 -I "$U/v1/packages"
expect 204 -X OPTIONS "$U/v1/packages"
expect 405 -X POST "$U/v1/packages"
expect 400 "$U/v1/packages?limit=0"
expect 400 "$U/v1/packages?cursor=%21"
expect 400 "$U/v1/packages?target=H999"
for p in / /page/app.js /page/style.css; do
    expect 200 "$U$p"
    expect 200 -I "$U$p"
    expect 204 -X OPTIONS "$U$p"
    expect 405 -X DELETE "$U$p"
done
expect 200 "$U/?path=$PKG&target=H100"
expect 404 "$U/page/missing.js"

# Node, Kubernetes nodes and cluster.
NODES='{"kind":"List","items":[
 {"metadata":{"name":"gpu-h100-0","labels":{"nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3",
  "nvidia.com/gpu.count":"8","nvidia.com/gpu.compute.major":"9","nvidia.com/gpu.compute.minor":"0",
  "nvidia.com/cuda.runtime-version.full":"13.0","kubernetes.io/arch":"amd64","kubernetes.io/os":"linux"}}},
 {"metadata":{"name":"cpu-arm-0","labels":{"kubernetes.io/arch":"arm64"}},
  "status":{"nodeInfo":{"architecture":"arm64","operatingSystem":"linux"}}}]}'
for p in /v1/node /v1/cluster/compatibility; do
    expect 204 -X OPTIONS "$U$p"
    expect 405 -X DELETE "$U$p"
done
expect 200 "$U/v1/node"
expect 200 -I "$U/v1/node"
expect 200 "$U/v1/node?refresh=1"
expect 200 "$U/v1/inspect?path=$PKG&device=cuda:1"
expect 400 "$U/v1/inspect?path=$PKG&device=gpu0"
expect 204 -X OPTIONS "$U/v1/compatibility"
expect 405 "$U/v1/compatibility"
expect 200 -H "Content-Type: $JSON" -d "{\"path\":\"$PKG\",\"nodes\":$NODES}" "$U/v1/compatibility"
expect 200 -H "Content-Type: $JSON" -d "{\"nodes\":$NODES}" "$U/v1/compatibility?path=$PKG"
expect 200 -F "file=@tests/fixtures/export_program.pt2;type=application/octet-stream" \
    -F "nodes=$NODES;type=application/json" "$U/v1/compatibility"
expect 400 -H "Content-Type: $JSON" -d "{\"path\":\"$PKG\"}" "$U/v1/compatibility"
expect 403 -H "Content-Type: $JSON" -d "{\"path\":\"../$PKG\",\"nodes\":$NODES}" "$U/v1/compatibility"
expect 404 -H "Content-Type: $JSON" -d "{\"path\":\"missing.pt2\",\"nodes\":$NODES}" \
    "$U/v1/compatibility"
expect 415 -H 'Content-Type: application/octet-stream' -d x "$U/v1/compatibility"
expect 422 -H "Content-Type: $JSON" -d "{\"path\":\"broken_not_zip.pt2\",\"nodes\":$NODES}" \
    "$U/v1/compatibility"
expect 200 "$U/v1/cluster/compatibility?path=$PKG"
expect 400 "$U/v1/cluster/compatibility"
# A cluster view: this daemon as a peer, plus one that is down.
start cluster --peer "$U" --peer http://127.0.0.1:9 --peer-timeout 2 --libcuda /nonexistent
expect 200 "$URL_cluster/v1/cluster/compatibility?path=$PKG&target=H100&driver=13.0"
expect 200 "$URL_cluster/v1/cluster/compatibility?path=$PKG&device=cuda:7"

# Access control (README "Security"): a token file; the Host check of a loopback listener.
printf '# exercise\n\nexercise-token\n' >"$tmp/tokens"
start auth --token-file "$tmp/tokens"
A=$URL_auth
expect 401 "$A/v1/version"
expect 401 -H 'Authorization: Bearer wrong' "$A/v1/inspect?path=$PKG"
expect 401 -H "Content-Type: $JSON" -d "{\"path\":\"$PKG\"}" "$A/v1/arch"
expect 401 "$A/metrics"
expect 401 "$A/v2/inspect"
expect 200 -H 'Authorization: Bearer exercise-token' "$A/v1/version"
expect 200 -H 'Authorization: Bearer exercise-token' "$A/v1/arch?path=$PKG"
expect 200 "$A/livez"
expect 200 "$A/"
expect 204 -X OPTIONS "$A/v1/inspect"
expect 403 -H 'Host: evil.example' "$A/v1/version"
expect 403 -H 'Host: evil.example' "$U/"
expect 403 -H 'Host: evil.example:8080' "$U/v1/inspect?path=$PKG"
expect 200 -H 'Host: evil.example' "$U/livez"

# 503: one worker, one queue slot, and jobs held at the gate until
# $tmp/slow.gate exists; two requests fill both (seen in /metrics), the rest
# are refused at once.
start slow --workers 1 --queue 1 --test-gate "$tmp/slow.gate"
S=$URL_slow
metric() { curl -s "$S/metrics" | sed -n "s/^$1 //p"; }
# wait_metric NAME VALUE: poll /metrics (bounded, 30 s); the run fails if it never gets there
wait_metric() {
    local i
    for i in $(seq 600); do [ "$(metric "$1")" = "$2" ] && return 0; sleep 0.05; done
    echo "exercise: $1 never reached $2"; exit 1
}
curl -s -o /dev/null -w '%{http_code}' --max-time 60 "$S/v1/arch?path=$PKG&nocache=1" \
    >"$tmp/busy1" &
busy=($!)
wait_metric pt2scope_workers_busy 1
curl -s -o /dev/null -w '%{http_code}' --max-time 60 \
    "$S/v1/arch?path=cpu_x86_64.pt2&nocache=1" >"$tmp/busy2" &
busy+=($!)
wait_metric pt2scope_queue_depth 1
for ep in inspect arch metadata validate; do
    q=""; [ $ep = validate ] && q="&$IN"
    expect 503 "$S/v1/$ep?path=$PKG$q"
    expect 503 -H "Content-Type: $JSON" -d "{\"path\":\"$PKG\"}" "$S/v1/$ep?$q"
done
expect 503 "$S/v1/node"
expect 503 "$S/v1/packages"
expect 503 -H "Content-Type: $JSON" -d "{\"path\":\"$PKG\",\"nodes\":[]}" "$S/v1/compatibility"
# The cluster fan-out has a pool of its own (a peer may be this daemon), so it
# still answers while the job pool is full.
expect 200 "$S/v1/cluster/compatibility?path=$PKG"
[ "$(metric pt2scope_queue_depth)" = 1 ] || { echo "exercise: the gate let go too early"; exit 1; }
: >"$tmp/slow.gate"
wait "${busy[@]}"
for b in busy1 busy2; do
    if [ "$(cat "$tmp/$b")" = 200 ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: the held request $b got $(cat "$tmp/$b"), want 200"; fi
done

echo "exercise: $pass passed, $fail failed"
[ "$fail" = 0 ]

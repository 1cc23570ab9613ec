#!/usr/bin/env bash
# run.sh - `make bench`: pt2scope's benchmarks (never part of `make test`).
#
#   1. inspection cost vs package size (library): bench_genpkg + bench_inspect;
#      the wrapper .cpp scan on a stand-in, a real and an over-cap wrapper; the
#      hostile JSON packages of tests/fuzz/seeds/differential (JSON budget)
#   2. start-up time to /readyz and idle RSS: bench_startup
#   3. the service under wrk at 1/16/256 connections: ceiling (bench_server),
#      cached and uncached GET /v1/inspect, /livez
#   4. a 2 GiB upload with curl: daemon vs a discarding sink (bench_server),
#      the daemon's peak RSS, spool space afterwards
#   5. a soak (soak.sh): 256 connections for 60 s of mixed cached, uncached,
#      upload and error requests; errors, p99, RSS and descriptors before/after
#   6. a 5 GiB package by URL (remote.sh): loopback nginx with 0 and 50 ms added
#      per request, beside the local file: requests, round trips, bytes, time
#   7. a bucket of 200 and 2,000 packages (bucket.sh): `scan s3://...` through the S3
#      test server with 50 ms added per request, at concurrency 1 and the default:
#      packages/s, requests per package, peak RSS
#
# Results go to tests/bench/results/*.json (one file per part, plus
# machine.json) and summary.md, the table tests/bench/README.md shows.
# Everything it creates lives in one temporary folder (sparse files, a few
# hundred MB at most) that is deleted on exit. Loopback only.
#
# Environment: BUILD (build folder, default build), BENCH_SECONDS (per wrk
# run, default 3), BENCH_REPS (wrk rounds, default 3; the median is kept),
# BENCH_UPLOAD_RUNS (2 GiB uploads to the sink and to the daemon, default 5),
# BENCH_RESULTS (output folder), BENCH_TMPDIR.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
SECS=${BENCH_SECONDS:-3}
REPS=${BENCH_REPS:-3}
# Uploads of 2 GiB against the sink, interleaved; the median is kept (the VM is noisy).
UPLOAD_RUNS=${BENCH_UPLOAD_RUNS:-5}
RESULTS=${BENCH_RESULTS:-tests/bench/results}
BIN=$BUILD/bench
NPROC=$(nproc)
SO=tests/fixtures/bins/host_so_cuda/libhost_fatbin.so
CUBIN=tests/fixtures/bins/cubin_cuda13/sm_90a.cubin
PIDS=()

say() { printf '\n== %s\n' "$*"; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

need() {
    command -v "$1" >/dev/null 2>&1 ||
        die "$1 not found; install it with: apt-get install -y $2 (or run 'make deps' as root)"
}
need wrk wrk
need curl curl
need python3 python3
need pkg-config pkg-config
[ -x "$BUILD/pt2scoped" ] || die "$BUILD/pt2scoped missing: run 'make all' first"

WORK=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/pt2bench.XXXXXX")
cleanup() {
    local p
    for p in "${PIDS[@]}"; do
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$RESULTS" "$WORK/models" "$WORK/spool" "$WORK/pkgs"

# ---- tools -----------------------------------------------------------------
# Objects come from the Makefile's own pattern rule, so the tools get exactly
# the project's flags (-Werror included); only the link is spelled out here.
say "building the bench tools in $BIN"
LIBS="$(pkg-config --libs libzip libcjson libmicrohttpd libcurl nettle zlib) -lpthread -ldl -lm"
mkdir -p "$BIN"
make -s --no-print-directory BUILD="$BUILD" "$BUILD/libpt2scope.a" \
    "$BUILD/obj/tests/support/bigzip.o" \
    $(for t in bench_genpkg bench_inspect bench_needs bench_server bench_startup; do
          echo "$BUILD/obj/tests/bench/$t.o"; done)
cc -o "$BIN/bench_genpkg" "$BUILD/obj/tests/bench/bench_genpkg.o" "$BUILD/obj/tests/support/bigzip.o"
for t in bench_inspect bench_needs bench_server bench_startup; do
    cc -o "$BIN/$t" "$BUILD/obj/tests/bench/$t.o" "$BUILD/libpt2scope.a" $LIBS
done

# ---- helpers ---------------------------------------------------------------
# wait_port FILE: the port a server wrote to FILE (waits up to 10 s).
wait_port() {
    local i
    for i in $(seq 1 1000); do
        if [ -s "$1" ]; then cat "$1"; return 0; fi
        sleep 0.01
    done
    die "no port in $1 after 10 s"
}

# start NAME CMD...: run CMD in the background, log in $WORK/NAME.log.
start() {
    local name=$1
    shift
    "$@" >"$WORK/$name.log" 2>&1 &
    PIDS+=($!)
    LAST_PID=$!
}

stop() {
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

vm() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; } # vm PID VmHWM -> KiB

# ---- 1. inspection cost ----------------------------------------------------
say "1. inspection cost vs package size (library, median of >= 500 ms of samples)"
args=()
for w in 1M 1G 8G; do
    case $w in 1M) wb=$((1 << 20)) ;; 1G) wb=$((1 << 30)) ;; 8G) wb=$((8 << 30)) ;; esac
    for e in 10 1000 20000; do
        f=$WORK/pkgs/w${w}_e$e.pt2
        "$BIN/bench_genpkg" "$f" "$w" "$e" "$SO" "$CUBIN"
        args+=("w${w}_e$e" "$wb" "$f")
    done
done
"$BIN/bench_inspect" "$RESULTS/inspect.json" 500 "${args[@]}"
# The typical package again as asked with affinity=1 (scheduling.node_affinity computed);
# the rows above are the default document, without it.
BENCH_AFFINITY=1 "$BIN/bench_inspect" "$RESULTS/inspect_affinity.json" 500 \
    typical-affinity1 $((8 << 30)) "$WORK/pkgs/w8G_e10.pt2"
# The AOTI wrapper scan (inputs and outputs from the wrapper .cpp): a small
# stand-in wrapper (the smallest package), a real 552 KB one where the shared
# corpus is there, and the worst case, a wrapper over the 64 MiB scan cap.
wargs=("stand-in" 0 tests/fixtures/cpu_inline_checks_v8.pt2)
real=../shared/corpus/pt2/executorch__preprocess_2025-05-23.pt2
[ -f "$real" ] && wargs+=("real-552KB" 0 "$real")
wargs+=("over-cap-64MiB" 0 tests/fixtures/wrapper_over_cap.pt2)
"$BIN/bench_inspect" "$RESULTS/wrapper.json" 500 "${wargs[@]}"
# The attack run's hostile JSON (a few KB deflated each): an 8 MiB exported program, sixteen
# of them, 1 MiB of user metadata; what one inspection costs under the JSON budget.
"$BIN/bench_inspect" "$RESULTS/hostile_json.json" 500 \
    "big-program" 0 tests/fuzz/seeds/differential/big_program.pt2 \
    "16-programs" 0 tests/fuzz/seeds/differential/sixteen_programs.pt2 \
    "user-meta-1MiB" 0 tests/fuzz/seeds/differential/user_metadata_1mib.pt2
# What the runtime needs add (part of every inspection above): the dynamic sections of
# the model library and the time to read them, beside the whole inspection, for the
# typical package's library and the corpus's real CPU package.
nargs=()
mkdir -p "$WORK/needs"
python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
n = [i for i in z.namelist() if i.endswith(".so")][-1]
open(sys.argv[2], "wb").write(z.read(n))' "$WORK/pkgs/w8G_e10.pt2" "$WORK/needs/typical.so"
nargs+=("typical-8GiB" "$WORK/pkgs/w8G_e10.pt2" "$WORK/needs/typical.so")
real=../shared/corpus/pt2/mlcolvar__descriptor_based_inputs_model.pt2
if [ -f "$real" ]; then
    python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
n = [i for i in z.namelist() if i.endswith(".so")][-1]
open(sys.argv[2], "wb").write(z.read(n))' "$real" "$WORK/needs/mlcolvar.so"
    nargs+=("mlcolvar-real" "$real" "$WORK/needs/mlcolvar.so")
fi
"$BIN/bench_needs" "$RESULTS/needs.json" 300 "${nargs[@]}"
# The typical package for the service runs: 8 GiB of weights, 10 entries, a 1 MB
# CUDA wrapper .so with five fatbin images, one cubin.
mv "$WORK/pkgs/w8G_e10.pt2" "$WORK/models/typical.pt2"
rm -rf "$WORK/pkgs"

# ---- 2. start-up -----------------------------------------------------------
say "2. start-up to /readyz and idle RSS (10 runs)"
"$BIN/bench_startup" "$RESULTS/startup.json" 10 "$WORK" "$BUILD/pt2scoped" \
    --model-root "$WORK/models" --spool-dir "$WORK/spool"

# ---- 3. service under load ---------------------------------------------------
say "3. service on loopback: wrk, ${SECS} s per run, ${REPS} interleaved rounds (median kept)"
# `ceiling`/`cached`/`uncached`: the document with affinity=1 (scheduling); `-lean`: the
# default document (no scheduling), against a ceiling of its own bytes.
BENCH_AFFINITY=1 start ceiling "$BIN/bench_server" ceiling "$WORK/ceiling.port" "$NPROC" \
    "$WORK/models/typical.pt2"
CEIL_PID=$LAST_PID
BENCH_AFFINITY=0 start ceiling-lean "$BIN/bench_server" ceiling "$WORK/ceiling-lean.port" "$NPROC" \
    "$WORK/models/typical.pt2"
CEIL2_PID=$LAST_PID
# wrk's 256 connections all come from 127.0.0.1: without --max-connections-per-ip 0 the
# daemon's default of 128 per address closes half of them on arrival (as the soak does).
start daemon "$BUILD/pt2scoped" --listen 127.0.0.1:0 --port-file "$WORK/daemon.port" \
    --model-root "$WORK/models" --spool-dir "$WORK/spool" --max-connections-per-ip 0
DMN_PID=$LAST_PID
CP=$(wait_port "$WORK/ceiling.port")
CP2=$(wait_port "$WORK/ceiling-lean.port")
DP=$(wait_port "$WORK/daemon.port")
declare -A URL=(
    [ceiling]="http://127.0.0.1:$CP/v1/inspect?path=typical.pt2"
    [cached]="http://127.0.0.1:$DP/v1/inspect?path=typical.pt2&affinity=1"
    [uncached]="http://127.0.0.1:$DP/v1/inspect?path=typical.pt2&nocache=1&affinity=1"
    [ceiling-lean]="http://127.0.0.1:$CP2/v1/inspect?path=typical.pt2"
    [cached-lean]="http://127.0.0.1:$DP/v1/inspect?path=typical.pt2"
    [uncached-lean]="http://127.0.0.1:$DP/v1/inspect?path=typical.pt2&nocache=1"
    [livez]="http://127.0.0.1:$DP/livez"
)
# Same document on both sides (the daemon adds only headers), and a warm cache.
cbytes=$(curl -sS "${URL[ceiling]}" | wc -c)
dbytes=$(curl -sS -o /dev/null -w '%{size_download}' "${URL[cached]}")
printf 'body: ceiling %s bytes, daemon %s bytes\n' "$cbytes" "$dbytes"
# Rounds interleave the four targets, so that load from elsewhere on the
# machine hits them alike; summarize.py keeps each one's median round.
JSONL=$WORK/http.jsonl
for c in 1 16 256; do
    t=$((c < NPROC ? c : NPROC))
    for round in $(seq 1 "$REPS"); do
        for what in ceiling cached uncached livez ceiling-lean cached-lean uncached-lean; do
            BENCH_OUT="$JSONL" BENCH_LABEL=$what BENCH_CONNS=$c BENCH_ROUND=$round \
                wrk -t"$t" -c"$c" -d"${SECS}s" --latency -s tests/bench/report.lua \
                "${URL[$what]}" >"$WORK/wrk.txt"
            tail -n 1 "$JSONL" |
                python3 -c 'import json,sys; r=json.load(sys.stdin); print("%-9s c=%-3d round %d %9.0f req/s  p50 %6.2f ms  p99 %7.2f ms  non-2xx %d" % (r["label"], r["connections"], r["round"], r["rps"], r["p50_us"]/1e3, r["p99_us"]/1e3, r["errors_status"]))'
        done
    done
done
HTTP_HWM=$(vm "$DMN_PID" VmHWM)
stop "$CEIL_PID"
stop "$CEIL2_PID"
stop "$DMN_PID"
python3 tests/bench/summarize.py http "$JSONL" "$cbytes" "$dbytes" "$HTTP_HWM" >"$RESULTS/http.json"

# ---- 4. upload ---------------------------------------------------------------
say "4. upload: a 2 GiB package POSTed with curl ($UPLOAD_RUNS runs each, interleaved)"
UP=$WORK/upload.pt2
"$BIN/bench_genpkg" "$UP" 2G 1000 "$SO" "$CUBIN"
cat "$UP" >/dev/null # page cache: time the transfer, not the first read of the file
# What the spool may hold at most (issue 25): the data of the entries that are not weights.
NONWEIGHT=$(python3 -c 'import sys, zipfile
print(sum(i.compress_size for i in zipfile.ZipFile(sys.argv[1]).infolist()
          if "/data/weights/" not in "/" + i.filename))' "$UP")
start sink "$BIN/bench_server" sink "$WORK/sink.port" "$NPROC"
SINK_PID=$LAST_PID
start upload-daemon "$BUILD/pt2scoped" --listen 127.0.0.1:0 --port-file "$WORK/up.port" \
    --model-root "$WORK/models" --spool-dir "$WORK/spool"
UPD_PID=$LAST_PID
SP=$(wait_port "$WORK/sink.port")
UDP=$(wait_port "$WORK/up.port")
rm -f "$WORK/upload.jsonl"
for run in $(seq 1 "$UPLOAD_RUNS"); do
    for what in sink daemon; do
        port=$SP
        [ "$what" = daemon ] && port=$UDP
        m=$(curl -sS -o "$WORK/up.out" -X POST -T "$UP" -H 'Content-Type: application/octet-stream' \
            -w '%{http_code} %{speed_upload} %{time_total} %{size_upload}' \
            "http://127.0.0.1:$port/v1/inspect")
        read -r code speed secs sent <<<"$m"
        spool_files=$(find "$WORK/spool" -type f | wc -l)
        spool_bytes=$(du -sb "$WORK/spool" | cut -f1)
        deleted_open=0
        src='{}'
        if [ "$what" = daemon ]; then
            deleted_open=$(find "/proc/$UPD_PID/fd" -lname '*(deleted)' 2>/dev/null | wc -l)
            src=$(python3 -c 'import json, sys
print(json.dumps(json.load(open(sys.argv[1])).get("package", {}).get("source", {})))' "$WORK/up.out" 2>/dev/null || echo '{}')
        fi
        printf '{"label":"%s","run":%d,"status":%s,"bytes_per_s":%s,"seconds":%s,"bytes":%s,' \
            "$what" "$run" "$code" "$speed" "$secs" "$sent" >>"$WORK/upload.jsonl"
        printf '"spool_files_after":%s,"spool_dir_bytes_after":%s,"deleted_open_after":%s,' \
            "$spool_files" "$spool_bytes" "$deleted_open" >>"$WORK/upload.jsonl"
        printf '"nonweight_bytes":%s,"source":%s}\n' "$NONWEIGHT" "$src" >>"$WORK/upload.jsonl"
        printf '%-6s run %d: HTTP %s, %7.1f MB/s, spool after: %s files\n' "$what" "$run" "$code" \
            "$(python3 -c "print($speed / 1e6)")" "$spool_files"
    done
done
UP_HWM=$(vm "$UPD_PID" VmHWM)
stop "$SINK_PID"
stop "$UPD_PID"
python3 tests/bench/summarize.py upload "$WORK/upload.jsonl" "$UP_HWM" >"$RESULTS/upload.json"
rm -f "$UP"

# ---- 5. soak -----------------------------------------------------------------
say "5. soak: ${SOAK_CONNECTIONS:-256} connections for ${SOAK_SECONDS:-60} s, mixed requests"
BUILD=$BUILD BENCH_RESULTS=$RESULTS BENCH_TMPDIR=$WORK bash tests/bench/soak.sh

# ---- 6. remote -----------------------------------------------------------------
say "6. a 5 GiB package by URL: loopback nginx, +0 and +50 ms per request, vs the local file"
BUILD=$BUILD BENCH_RESULTS=$RESULTS BENCH_TMPDIR=$WORK bash tests/bench/remote.sh

# ---- 7. a bucket ---------------------------------------------------------------
say "7. a bucket of 200 and 2,000 packages: scan s3://, +50 ms per request, concurrency 1 and default"
BUILD=$BUILD BENCH_RESULTS=$RESULTS BENCH_TMPDIR=$WORK bash tests/bench/bucket.sh

# ---- report ------------------------------------------------------------------
python3 tests/bench/summarize.py machine "$BUILD" >"$RESULTS/machine.json"
say "summary (also in $RESULTS/summary.md)"
python3 tests/bench/summarize.py report "$RESULTS" | tee "$RESULTS/summary.md"

#!/usr/bin/env bash
# soak.sh - the soak of `make bench` (run.sh calls it; it also runs alone):
# 256 connections for SOAK_SECONDS (60) against one pt2scoped, each cycling
# through cached, uncached, upload and error requests (soak.lua). Before and
# after: the daemon's RSS and open descriptors; during: errors and p99.
# Writes $BENCH_RESULTS/soak.json (summarize.py report shows it).
#
#   BUILD=build SOAK_SECONDS=60 SOAK_CONNECTIONS=256 bash tests/bench/soak.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
SECS=${SOAK_SECONDS:-60}
CONNS=${SOAK_CONNECTIONS:-256}
RESULTS=${BENCH_RESULTS:-tests/bench/results}
command -v wrk >/dev/null || { echo "soak: wrk is missing (apt-get install wrk)" >&2; exit 1; }
[ -x "$BUILD/pt2scoped" ] || { echo "soak: no $BUILD/pt2scoped (make)" >&2; exit 1; }
WORK=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/pt2scope-soak-XXXXXX")
PID=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/models" "$WORK/spool" "$RESULTS"
cp tests/fixtures/cuda_fatbin_v7_lz4.pt2 "$WORK/models/m.pt2"
# Every client is 127.0.0.1 here, so the per-address limit (128 by default, tested in
# tests/http/test_http_limits.c) is lifted: the soak measures 256 concurrent clients.
"$BUILD/pt2scoped" --listen 127.0.0.1:0 --port-file "$WORK/port" --model-root "$WORK/models" \
    --spool-dir "$WORK/spool" --max-connections-per-ip 0 >"$WORK/daemon.log" 2>&1 &
PID=$!
for _ in $(seq 1 1000); do [ -s "$WORK/port" ] && break; sleep 0.01; done
[ -s "$WORK/port" ] || { echo "soak: the daemon did not start" >&2; cat "$WORK/daemon.log" >&2; exit 1; }
BASE=http://127.0.0.1:$(cat "$WORK/port")

status() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$PID/status"; } # KiB
fds() { find "/proc/$PID/fd" -mindepth 1 -maxdepth 1 | wc -l; }

# Warm: every kind of request once, so "before" is a steady state, not an empty process.
curl -sS -o /dev/null "$BASE/v1/inspect?path=m.pt2"
curl -sS -o /dev/null -X POST -H 'Content-Type: application/octet-stream' \
    --data-binary @tests/fixtures/cpu_x86_64.pt2 "$BASE/v1/inspect"
rss0=$(status VmRSS) fd0=$(fds)
echo "soak: $CONNS connections for $SECS s on $BASE (RSS $rss0 KiB, $fd0 descriptors)"
SOAK_OUT=$WORK/soak.jsonl SOAK_UPLOAD=tests/fixtures/cpu_x86_64.pt2 SOAK_PACKAGE=m.pt2 \
    wrk -t"$(nproc)" -c"$CONNS" -d"${SECS}s" --timeout 10s --latency -s tests/bench/soak.lua \
    "$BASE/" >"$WORK/wrk.txt"
# Connections wrk left are closed by now or within --request-timeout; give the
# daemon a moment to let go of them, then count.
for _ in $(seq 1 50); do [ "$(fds)" -le "$fd0" ] && break; sleep 0.1; done
rss1=$(status VmRSS) fd1=$(fds) hwm=$(status VmHWM)
live=$(curl -sS -o /dev/null -w '%{http_code}' "$BASE/livez")
python3 - "$WORK/soak.jsonl" "$RESULTS/soak.json" "$SECS" "$CONNS" "$rss0" "$rss1" "$hwm" \
    "$fd0" "$fd1" "$live" <<'PY'
import json, sys
line, out = sys.argv[1], sys.argv[2]
r = json.loads(open(line).read().strip().splitlines()[-1])
secs, conns, rss0, rss1, hwm, fd0, fd1, live = map(int, sys.argv[3:])
r.update(seconds=secs, connections=conns, rss_before_kib=rss0, rss_after_kib=rss1,
         peak_rss_kib=hwm, fds_before=fd0, fds_after=fd1, livez_after=live)
json.dump(r, open(out, "w"), indent=1)
print("soak: %d requests, %.0f req/s, p99 %.1f ms; ok %d, 4xx %d, 503 %d, 5xx %d, socket errors %d; "
      "RSS %d -> %d KiB (peak %d), descriptors %d -> %d, /livez %d" % (
          r["requests"], r["rps"], r["p99_us"] / 1e3, r["ok"], r["client_errors"], r["overloaded"],
          r["server_errors"], r["errors_connect"] + r["errors_read"] + r["errors_write"] +
          r["errors_timeout"], rss0, rss1, hwm, fd0, fd1, live))
PY

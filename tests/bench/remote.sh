#!/usr/bin/env bash
# remote.sh - part 6 of `make bench`: a 5 GiB package read over loopback nginx
# (tests/remote/servers.sh) by `pt2scope inspect URL`, with no added latency
# and with 50 ms added to every request (delayproxy.py), beside the same
# package read from the local file. Per run: wall time of the whole command;
# requests, round trips and bytes transferred from the answer's
# package.source (nginx's access log agrees: tests/shell/remote.sh checks
# that). Goal: at most 3 round trips and under 2 MiB; with 50 ms of latency,
# the answer in under 250 ms.
#
# Environment: BUILD, BENCH_RESULTS, BENCH_TMPDIR (from run.sh), REMOTE_RUNS
# (default 7; the median is kept).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
RESULTS=${BENCH_RESULTS:-tests/bench/results}
RUNS=${REMOTE_RUNS:-7}
BIN=$BUILD/bench
. tests/remote/servers.sh
WORK=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/pt2remote.XXXXXX")
PROXY=
cleanup() {
    # errexit holds in a trap too: a killed proxy's status must not cut the cleanup short
    if [ -n "$PROXY" ]; then
        kill "$PROXY" 2>/dev/null || true
        wait "$PROXY" 2>/dev/null || true
    fi
    remote_stop_all
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/doc" "$RESULTS"
[ -x "$BIN/bench_genpkg" ] || { echo "remote: $BIN/bench_genpkg missing (run.sh builds it)" >&2; exit 1; }
"$BIN/bench_genpkg" "$WORK/doc/typical5g.pt2" 5G 10 \
    tests/fixtures/bins/host_so_cuda/libhost_fatbin.so tests/fixtures/bins/cubin_cuda13/sm_90a.cubin
remote_start_nginx "$WORK/doc"
python3 tests/bench/delayproxy.py "$REMOTE_NGINX_PORT" 50 "$WORK/proxy.port" &
PROXY=$!
for _ in $(seq 1 500); do [ -s "$WORK/proxy.port" ] && break; sleep 0.01; done
[ -s "$WORK/proxy.port" ] || { echo "remote: the delaying proxy did not start" >&2; exit 1; }

python3 - "$BUILD/pt2scope" "$RUNS" "$RESULTS/remote.json" \
    "local" "$WORK/doc/typical5g.pt2" \
    "nginx" "$REMOTE_NGINX_URL/typical5g.pt2" \
    "nginx+50ms" "http://127.0.0.1:$(cat "$WORK/proxy.port")/typical5g.pt2" <<'PY'
import json, os, statistics, subprocess, sys, time
cli, runs, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = []
args = sys.argv[4:]
size = os.path.getsize(args[1])
for label, where in zip(args[0::2], args[1::2]):
    times, doc = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run([cli, "inspect", "--json", where], capture_output=True, text=True)
        times.append((time.perf_counter() - t0) * 1000.0)
        if p.returncode != 0:
            sys.exit("remote: %s: %s" % (label, p.stderr.strip()))
        doc = json.loads(p.stdout)
    src = doc["package"].get("source") or {}
    row = {"label": label, "file_size": size, "runs": runs,
           "median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times),
           "requests": src.get("requests"), "round_trips": src.get("round_trips"),
           "bytes_transferred": src.get("bytes_transferred"), "bytes_read": doc.get("bytes_read")}
    rows.append(row)
    print("%-11s median %7.1f ms  requests %s  round trips %s  bytes %s" % (
        label, row["median_ms"], row["requests"], row["round_trips"],
        row["bytes_transferred"] if src else row["bytes_read"]))
json.dump({"package": "5 GiB of weights, 10 entries, a 1 MB CUDA wrapper .so, one cubin",
           "delay_ms": 50, "rows": rows}, open(out, "w"), indent=1)
PY

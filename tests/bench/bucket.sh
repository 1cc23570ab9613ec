#!/usr/bin/env bash
# bucket.sh - part 7 of `make bench`: a registry in a bucket scanned by
# `pt2scope scan s3://BUCKET/PREFIX/` through the S3 test server
# (tests/remote/servers.sh: s3rver behind the SigV4-verifying proxy) with
# 50 ms added to every request (delayproxy.py in front of it), at
# --remote-concurrency 1 and at the default. Per run: packages per second
# (wall time of the whole command, listing included), requests per package
# (object requests in the proxy's log, divided by the packages) and the
# scan's peak RSS (wait4), at 200 and at 2,000 packages.
# Goals (issue 22): >= 100 packages/s and <= 3 requests per package at the
# default concurrency; peak RSS flat from 200 to 2,000 packages (within 25 %).
#
# Environment: BUILD, BENCH_RESULTS, BENCH_TMPDIR (from run.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
RESULTS=${BENCH_RESULTS:-tests/bench/results}
. tests/remote/servers.sh
WORK=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/pt2bucket.XXXXXX")
PROXY=
cleanup() {
    if [ -n "$PROXY" ]; then
        kill "$PROXY" 2>/dev/null || true
        wait "$PROXY" 2>/dev/null || true
    fi
    remote_stop_all
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$RESULTS"
[ -f tests/remote/s3/node_modules/s3rver/package.json ] ||
    (cd tests/remote/s3 && npm ci --no-audit --no-fund >/dev/null)
specs=()
for i in $(seq -f '%04g' 0 199); do specs+=("b200/p$i.pt2=tests/fixtures/export_program.pt2"); done
for i in $(seq -f '%04g' 0 1999); do specs+=("b2000/p$i.pt2=tests/fixtures/export_program.pt2"); done
REMOTE_START_TIMEOUT=300 remote_start_s3 "$WORK/s3" registry "${specs[@]}"
python3 tests/bench/delayproxy.py "${REMOTE_S3_URL##*:}" 50 "$WORK/proxy.port" &
PROXY=$!
for _ in $(seq 1 500); do [ -s "$WORK/proxy.port" ] && break; sleep 0.01; done
[ -s "$WORK/proxy.port" ] || { echo "bucket: the delaying proxy did not start" >&2; exit 1; }
eval "export $(remote_s3_env)"
export AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$WORK/proxy.port")

python3 - "$BUILD/pt2scope" "$REMOTE_S3_LOG" "$RESULTS/bucket.json" <<'PY'
import json, os, subprocess, sys, time
cli, log, out = sys.argv[1:4]
DEFAULT = 16  # PT2_REMOTE_CONCURRENCY_DEFAULT

def object_requests():
    with open(log) as f:
        return sum(1 for l in f if l.split("\t")[0] == "GET" and "list-type=" not in l.split("\t")[1])

def run(prefix, n, conc):
    open(log, "w").close()
    args = [cli, "scan", "--format", "jsonl"]
    if conc is not None:
        args += ["--remote-concurrency", str(conc)]
    t0 = time.perf_counter()
    p = subprocess.Popen(args + ["s3://registry/%s/" % prefix], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    body, err = p.communicate()
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("bucket: scan %s: exit %d: %s" % (prefix, p.returncode, err.decode().strip()))
    items = body.count(b"\n")
    if items != n:
        sys.exit("bucket: scan %s: %d items, %d expected" % (prefix, items, n))
    return {"prefix": prefix, "packages": n, "concurrency": conc or DEFAULT, "seconds": round(secs, 3),
            "packages_per_s": round(n / secs, 1),
            "requests_per_package": round(object_requests() / n, 3)}

# Popen reaps its child without the rusage: the peak RSS comes from a run of its own, wait4'd.
def peak_rss_kib(prefix):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(cli, [cli, "scan", "--format", "jsonl", "s3://registry/%s/" % prefix])
    _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("bucket: scan %s failed" % prefix)
    return ru.ru_maxrss

rows = [run("b200", 200, 1), run("b200", 200, None), run("b2000", 2000, None)]
rss = {"200": peak_rss_kib("b200"), "2000": peak_rss_kib("b2000")}
for r in rows:
    print("%5d packages, concurrency %2d: %7.1f packages/s, %.2f requests per package" % (
        r["packages"], r["concurrency"], r["packages_per_s"], r["requests_per_package"]))
print("peak RSS: %d KiB at 200 packages, %d KiB at 2000" % (rss["200"], rss["2000"]))
d = rows[2]
goals = [("packages/s at the default concurrency >= 100", d["packages_per_s"] >= 100),
         ("requests per package <= 3", d["requests_per_package"] <= 3),
         ("peak RSS flat from 200 to 2,000 packages (within 25 %)", rss["2000"] <= rss["200"] * 1.25)]
for name, ok in goals:
    print("%s: %s" % (name, "goal met" if ok else "goal not met"))
json.dump({"delay_ms": 50, "default_concurrency": DEFAULT, "rows": rows, "peak_rss_kib": rss,
           "goals": [{"goal": g, "met": ok} for g, ok in goals]}, open(out, "w"), indent=1)
PY

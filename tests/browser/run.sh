#!/usr/bin/env bash
# Browser stage of `make test` (make test-browser): start the product daemon,
# build/pt2scoped, over tests/fixtures twice: with the stand-in CUDA driver
# (two GPUs, so the page shows this node's GPUs) for the operator page at /,
# driven in Debian's chromium through playwright-core (page.test.mjs); and
# without any driver, a laptop's view, for the /docs examples, which must
# work as shipped (docs.test.mjs). Screenshots of
# every state go to $BUILD/browser/. Prints "browser: N passed, N failed".
# Usage: BUILD=build bash tests/browser/run.sh   (from the repository root)
set -u
BUILD=${BUILD:-build}
CHROMIUM=${PT2SCOPE_CHROMIUM:-$(command -v chromium 2>/dev/null)}
if [ -z "$CHROMIUM" ]; then
    echo "browser: chromium is not installed (make deps installs it)"
    echo "browser: 0 passed, 1 failed"
    exit 1
fi
# Debian's /usr/bin/chromium is a wrapper script; the browser itself is behind it.
[ -x /usr/lib/chromium/chromium ] && [ -z "${PT2SCOPE_CHROMIUM:-}" ] && CHROMIUM=/usr/lib/chromium/chromium
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pt2scope-browser.XXXXXX") || exit 1
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$BUILD/browser"
rm -f "$BUILD"/browser/*.png

# start NAME ARGS...: a daemon on a free port; its base URL in $URL_<NAME>
start() {
    local name=$1
    shift
    "$@" --listen 127.0.0.1:0 --port-file "$tmp/$name.port" --model-root tests/fixtures \
        2>"$tmp/$name.log" &
    pids+=($!)
    for _ in $(seq 200); do [ -s "$tmp/$name.port" ] && break; sleep 0.05; done
    if [ ! -s "$tmp/$name.port" ]; then
        echo "browser: pt2scoped ($name) did not start"; cat "$tmp/$name.log"
        echo "browser: 0 passed, 1 failed"
        exit 1
    fi
    printf -v "URL_$name" 'http://127.0.0.1:%s/' "$(cat "$tmp/$name.port")"
}
# The page's daemon: a node with two GPUs (the stand-in driver).
start page env PT2SCOPE_FAKECUDA_DRIVER=13000 \
    PT2SCOPE_FAKECUDA_DEVICES='NVIDIA H100 80GB HBM3,9.0,132,85899345920;NVIDIA A100-SXM4-40GB,8.0,108,42949672960' \
    "$BUILD/pt2scoped" --libcuda "$BUILD/fakecuda/libcuda.so.1" --node-name browser-test
# The reference's daemon: a laptop without a GPU driver, where "Try it out" must work too.
start docs "$BUILD/pt2scoped" --libcuda /nonexistent/pt2scope/libcuda.so.1
BASE_URL=$URL_page DOCS_URL=$URL_docs CHROMIUM="$CHROMIUM" SHOTS="$BUILD/browser" \
    node tests/browser/main.mjs

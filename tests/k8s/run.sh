#!/usr/bin/env bash
# The test-k8s stage: docker/k8s checked against the Kubernetes API schemas,
# the Pod Security "restricted" profile and pt2scope's own deployment rules
# (check.mjs), then tests/k8s/bad, where every check listed in expect.txt
# must fail (a check that cannot fail proves nothing). Offline: the schemas
# are the npm package kubernetes-models in tests/k8s/node_modules, installed
# by `make test-k8s` (npm ci of the committed package-lock.json).
# Prints "k8s: N passed, N failed" (tests/run.sh counts it); exit 1 on a failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
if [ ! -f tests/k8s/node_modules/kubernetes-models/package.json ]; then
    echo "FAIL tests/k8s/node_modules missing: run 'make test-k8s' (npm ci) first"
    echo "k8s: 0 passed, 1 failed"
    exit 1
fi
pass=0 fail=0
run() { # run CHECK.MJS-ARGS...: add its "= N ok, N failing" to the totals
    local out p f
    out=$(node tests/k8s/check.mjs "$@" 2>&1)
    printf '%s\n' "$out" | grep -v '^= '
    read -r p f < <(printf '%s\n' "$out" | awk '/^= [0-9]+ ok, [0-9]+ failing$/ {
        gsub(/,/, ""); print $2, $4 }')
    if [ -z "${p:-}" ]; then p=0 f=1; echo "FAIL check.mjs $*: no result line"; fi
    pass=$((pass + p)) fail=$((fail + f))
}
run docker/k8s
run --expect-fail tests/k8s/bad
echo "k8s: $pass passed, $fail failed"
[ "$fail" = 0 ]

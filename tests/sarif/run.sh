#!/usr/bin/env bash
# The test-sarif stage: what `pt2scope check|validate|scan --format sarif`
# writes, in every shape (results with advice, none, an unreadable package as
# a notification, validate's violations, a scan with all of them, names that
# need %-encoding, --nodes), is a SARIF 2.1.0 log by the OASIS JSON schema
# (validate.mjs, which also proves the validator rejects broken logs), with
# the exit status the run records. Offline: the schema and Ajv are npm
# packages in tests/sarif/node_modules, installed by `make test-sarif` (npm ci
# of the committed package-lock.json).
# Prints "sarif: N passed, N failed" (tests/run.sh counts it); exit 1 on a failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${BUILD:-build}/pt2scope
F=tests/fixtures
if [ ! -f tests/sarif/node_modules/@microsoft/jest-sarif/package.json ]; then
    echo "FAIL tests/sarif/node_modules missing: run 'make test-sarif' (npm ci) first"
    echo "sarif: 0 passed, 1 failed"
    exit 1
fi
mkdir -p "${BUILD:-build}"
# Under the build folder, so that "$T" is a relative path and "$PWD/$T" an absolute one.
T=$(mktemp -d "${BUILD:-build}/sarif-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 n=0

# log RC ARGS...: `pt2scope ARGS... --format sarif` into $T/N.sarif, exiting RC,
# its invocation saying the same
log() {
    local want=$1 rc got
    shift
    n=$((n + 1))
    "$B" "$@" --format sarif >"$T/$n.sarif" 2>/dev/null
    rc=$?
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["invocations"][0]["exitCode"])' \
        "$T/$n.sarif" 2>&1)
    if [ "$rc" = "$want" ] && [ "$got" = "$want" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL exit $rc, invocation $got (want $want): $*"; fi
}

mkdir -p "$T/models/odd dir"
cp $F/cuda_sm90a_v8.pt2 "$T/models/odd dir/a #1:%é.pt2"
cp $F/broken_not_zip.pt2 "$T/models/broken.pt2"
log 1 check $F/cuda_sm90a_v8.pt2 --target 8.0 --target H100
log 0 check $F/cuda_sm90a_v8.pt2 --target H100
log 3 check $F/broken_not_zip.pt2 --target H100
log 1 check $F/cuda_sm90a_v8.pt2 --nodes $F/k8s/nodes.json
log 1 validate $F/cuda_check_functions_v8.pt2 --input arg0_1=1,10 --input arg1_1=3,99 --input arg2_1=4 --input arg3_1=8,6 --input arg4_1=8
log 0 validate $F/cuda_sm90a_v8.pt2 --input image=8,3,512,512 --input scale=8
log 3 scan $F --target B200 --target 8.0
log 0 scan $F/cpu_x86_64.pt2
log 3 scan "$T/models" --target H100
log 3 scan "$PWD/$T/models" "$T/models/odd dir/a #1:%é.pt2" --target B200

out=$(node tests/sarif/validate.mjs "$T"/*.sarif 2>&1)
printf '%s\n' "$out" | grep '^FAIL'
read -r p f < <(printf '%s\n' "$out" | awk '/^= [0-9]+ ok, [0-9]+ failing$/ { gsub(/,/, ""); print $2, $4 }')
if [ -z "${p:-}" ]; then p=0 f=1; echo "FAIL validate.mjs: no result line"; printf '%s\n' "$out" | tail -5; fi
pass=$((pass + p)) fail=$((fail + f))
echo "sarif: $pass passed, $fail failed"
[ "$fail" = 0 ]

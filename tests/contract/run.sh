#!/usr/bin/env bash
# Contract stage of `make test` (make test-contract):
#   1. lint openapi/openapi.yaml with the pinned Redocly CLI (openapi/redocly.yaml);
#   2. self-test the validator: known-good recorded responses pass, deliberately
#      wrong ones fail with the expected message;
#   3. run the HTTP suites, the shell tests and exercise.sh (one request per
#      declared status the suites leave out) with PT2SCOPE_RECORD_DIR set, so
#      every daemon they start records each response it sends. Only the test
#      build records (the HTTP suites link it; the shell tests are pointed at
#      $BUILD/pt2scoped-test through PT2SCOPE_DAEMON, and exercise.sh starts
#      it): the production pt2scoped has no recorder;
#   4. validate every recorded response against the spec and print coverage.
# Usage: tests/contract/run.sh [BUILD_DIR]   (from the repository root)
set -uo pipefail
BUILD=${1:-build}
TEST_DAEMON=$BUILD/pt2scoped-test
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
[ -x "$TEST_DAEMON" ] || {
    echo "contract: $TEST_DAEMON is not built (make test-contract builds it)" >&2
    exit 1
}

echo "== redocly lint openapi/openapi.yaml"
# (The filter drops Redocly's boxed Node.js-version banner; pipefail keeps its status.)
(cd openapi && npx --no-install redocly lint --format=stylish openapi.yaml 2>&1 |
    grep -v '[║╔╚]') || exit 1

echo "== contract validator self-test"
node --test --test-reporter=spec tests/contract/validator.test.mjs || exit 1

# PT2SCOPE_CONTRACT_DIR keeps the records for inspection (it must not exist yet).
if [ -n "${PT2SCOPE_CONTRACT_DIR:-}" ]; then
    rec=$PT2SCOPE_CONTRACT_DIR
    mkdir "$rec" || exit 1
else
    rec=$(mktemp -d "${TMPDIR:-/tmp}/pt2scope-contract.XXXXXX") || exit 1
    trap 'rm -rf "$rec"' EXIT
fi
fail=0
for t in "$BUILD"/tests/test_http_*; do
    [ -x "$t" ] || continue
    echo "== $t (recording)"
    PT2SCOPE_RECORD_DIR=$rec PT2SCOPE_BUILD=$BUILD "$t" || fail=1
done
for s in tests/shell/*.sh; do
    [ -f "$s" ] || continue
    echo "== $s (recording)"
    PT2SCOPE_RECORD_DIR=$rec PT2SCOPE_DAEMON=$TEST_DAEMON PT2SCOPE_BUILD=$BUILD bash "$s" || fail=1
done
echo "== tests/contract/exercise.sh (recording)"
PT2SCOPE_RECORD_DIR=$rec bash tests/contract/exercise.sh "$BUILD" || fail=1
echo "== validate recorded responses"
node openapi/scripts/contract.mjs "$rec" || fail=1
if [ "$fail" != 0 ]; then
    echo "contract: FAILED (a suite failed while recording, or a response broke the contract)" >&2
    exit 1
fi

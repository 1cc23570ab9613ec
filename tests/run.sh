#!/usr/bin/env bash
# The stages of `make test`, each run to the end, then one line over all of
# them: "N passed, N failed, N skipped".
#
# Counts come from what each stage prints: Check's "Checks: N, Failures: F,
# Errors: E" lines, "SKIP what: why" lines (tu_skip), the shell tests'
# "name: N passed, N failed[, N skipped]" lines, node's test runner
# ("ℹ pass N") and the contract validator ("contract: X/Y responses
# conform"). A stage that prints no count (format, lint) is one test; a stage
# that fails without a failing test (a build error) counts one failure.
# Usage: tests/run.sh STAGE...   (make targets; from the repository root)
set -u
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
mkdir -p "$BUILD"
log=$BUILD/test-stage.log
total_p=0 total_f=0 total_s=0 bad=0

count() { # count LOG -> "passed failed skipped counted"
    awk '
    /^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
        gsub(/,/, ""); n = $3; f = $5 + $7; p += n - f; fl += f; c = 1 }
    /^SKIP / { s++; p--; c = 1 }
    /^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$/ {
        gsub(/,/, ""); p += $2; fl += $4; if (NF >= 7) s += $6; c = 1 }
    /^ℹ pass [0-9]+$/ { p += $3; c = 1 }
    /^ℹ fail [0-9]+$/ { fl += $3; c = 1 }
    /^ℹ skipped [0-9]+$/ { s += $3; c = 1 }
    /^contract: [0-9]+\/[0-9]+ responses conform/ {
        split($2, a, "/"); p += a[1]; fl += a[2] - a[1]; c = 1 }
    END { if (p < 0) p = 0; printf "%d %d %d %d\n", p, fl, s, c }' "$1"
}

for stage in "$@"; do
    "$MAKE" --no-print-directory "$stage" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    read -r p f s counted < <(count "$log")
    if [ "$counted" = 0 ]; then
        if [ "$rc" = 0 ]; then p=1; else f=1; fi
    elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
        f=1 # built nothing to count, or died between suites
    fi
    [ "$rc" = 0 ] || { bad=1; echo "pt2scope: stage $stage FAILED (exit $rc)"; }
    total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
done
rm -f "$log"
echo "$total_p passed, $total_f failed, $total_s skipped"
exit "$bad"

#!/bin/sh
# Generate the library's torch shim table from service/lib/data/shim-versions.tsv
# (a copy of ../shared/data/shim-versions.tsv; sources and notation in its README).
# Usage: gen_shims.sh TSV OUT.inc
# Releases become major*100+minor ("2.14" -> 214); "A-B" keeps both ends; "2.3?"
# (nightly-only names) sets the nightly flag. The rows must be sorted by name in
# byte order (the library looks names up with bsearch): unsorted input fails.
set -eu
tsv=$1
out=$2
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
LC_ALL=C awk -F'\t' '
function rel(s, which,   a, n) {
    gsub(/\?/, "", s)
    n = split(s, a, "-")
    if (s == "") return 0
    if (which == 2 && n == 2) s = a[2]; else s = a[1]
    split(s, a, ".")
    if (a[1] !~ /^[0-9]+$/ || a[2] !~ /^[0-9]+$/) { print "bad release " s > "/dev/stderr"; exit 2 }
    return a[1] * 100 + a[2]
}
NR == 1 {
    if ($1 != "name" || $2 != "first_release" || $3 != "last_release") {
        print "unexpected header" > "/dev/stderr"; exit 2
    }
    next
}
NF < 3 || $1 !~ /^[A-Za-z_][A-Za-z0-9_]*$/ { print "bad row " NR > "/dev/stderr"; exit 2 }
{
    if (prev != "" && !($1 > prev)) { print "not sorted at row " NR ": " $1 > "/dev/stderr"; exit 2 }
    prev = $1
    printf "    {\"%s\", %d, %d, %d, %d, %d},\n", $1, rel($2, 1), rel($2, 2), rel($3, 1), rel($3, 2), ($2 ~ /\?/) ? 1 : 0
    n++
}
END { if (n == 0) { print "no rows" > "/dev/stderr"; exit 2 } }
' "$tsv" >"$tmp"
mv "$tmp" "$out"
trap - EXIT

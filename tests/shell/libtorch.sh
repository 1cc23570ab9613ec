#!/usr/bin/env bash
# Real torch builds are the oracle for the shim table and --libtorch: Debian's
# libtorch2.6 (trixie) and libtorch2.14 (unstable), fetched by
# service/tools/oracle.sh (`make test` runs it) and read with nm, never loaded.
#  - no name such a build exports is dated after its release by the table
#    (service/lib/data/shim-versions.tsv, the copy the library is built from);
#  - every CPU shim (c/shim.h, c/shim_cpu.h, generated/c_shim_cpu.h) the table
#    dates at or before the release (and not removed before it) is exported
#    (Debian builds without MKL: aoti_torch_cpu__mkl_linear is the one
#    exception in 2.6);
#  - `check --libtorch` on each build gives, for every Linux library of the
#    corpus, the verdict its exports imply (every non-weak torch import
#    exported <=> compatible), naming the first missing one.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PT2SCOPE_BUILD:-build}
CLI=$PWD/$B/pt2scope
ORACLE=$(bash service/tools/oracle.sh dir)
SHARED=$(cd "${PT2SCOPE_SHARED:-../shared}" 2>/dev/null && pwd)
T=$(mktemp -d /tmp/pt2scope-libtorch-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0

for rel in 2.6 2.14; do
    lib=$(ls "$ORACLE/$rel"/usr/lib/*/libtorch_cpu.so.*.* 2>/dev/null | head -1)
    if [ -z "$lib" ]; then
        if [ "${PT2SCOPE_REQUIRE_CORPUS:-}" = 1 ]; then
            fail=$((fail + 1)); echo "FAIL: libtorch $rel: not in $ORACLE (service/tools/oracle.sh fetch)"
        else
            skip=$((skip + 1)); echo "SKIP libtorch $rel: not fetched (service/tools/oracle.sh fetch)"
        fi
        continue
    fi
    nm -D --defined-only "$lib" | awk '$2 ~ /^[TWi]$/ {sub(/@.*/, "", $3); print $3}' | sort -u \
        >"$T/exports.$rel"
    out=$(python3 - "$rel" "$T/exports.$rel" service/lib/data/shim-versions.tsv <<'EOF'
import sys
rel, exports_file, tsv = sys.argv[1:4]
def num(r):
    a, b = r.split(".")
    return int(a) * 100 + int(b)
R = num(rel)
exports = set(open(exports_file).read().split())
rows = {}
for line in open(tsv).read().splitlines()[1:]:
    name, first, last, header = line.split("\t")[:4]
    rows[name] = (first, last, header)
cpu_headers = {"torch/csrc/inductor/aoti_torch/c/shim.h", "torch/csrc/inductor/aoti_torch/c/shim_cpu.h",
               "torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h"}
# Debian builds without MKL (shim_cpu.h declares it under AT_MKL_ENABLED()): 2.6 as the issue
# says, and 2.14.1 as its exports show.
exceptions = {"aoti_torch_cpu__mkl_linear"}
bad = []
# no exported name is dated after the release
for name in sorted(exports):
    if name not in rows:
        continue
    first = rows[name][0]
    lo = num(first.rstrip("?").split("-")[0])
    if first.endswith("?") or lo > R:
        bad.append("exported but dated %s: %s" % (first, name))
# every CPU name dated at or before it is exported
checked = 0
for name, (first, last, header) in sorted(rows.items()):
    # c/shim.h declares the CUDA guards, streams and allocator under USE_CUDA: not CPU names
    if header not in cpu_headers or first.endswith("?") or "cuda" in name:
        continue
    hi = num(first.split("-")[-1])
    if hi > R:
        continue
    if last and num(last.rstrip("?").split("-")[0]) < R:
        continue
    checked += 1
    if name not in exports and name not in exceptions:
        bad.append("dated %s (%s) but not exported: %s" % (first, header, name))
for name in exceptions:
    if name in exports:
        bad.append("expected exception is exported after all: %s" % name)
print("checked %d" % checked)
for b in bad[:20]:
    print("BAD " + b)
EOF
)
    n=$(grep -c '^BAD ' <<<"$out")
    checked=$(sed -n 's/^checked //p' <<<"$out")
    if [ "$n" = 0 ] && [ "${checked:-0}" -gt 100 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL: libtorch $rel table ($checked CPU names checked):"; grep '^BAD ' <<<"$out"
    fi

    # --libtorch on every corpus library: the verdict its exports imply
    ncorp=0
    for p in "$SHARED"/corpus/pt2/*.pt2; do
        [ -f "$p" ] || continue
        x=$T/c/$(basename "$p" .pt2)
        mkdir -p "$x" && (cd "$x" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall()' "$p")
        so=$(find "$x" -name '*.so' -type f | while read -r f; do
            readelf -h "$f" 2>/dev/null | grep -q 'Advanced Micro Devices X86-64' && echo "$f"; done | tail -1)
        [ -n "$so" ] || continue
        ncorp=$((ncorp + 1))
        # the torch imports: C shims and libtorch C++ symbols, non-weak
        missing=$(nm -D --undefined-only "$so" | awk '$1 == "U" {sub(/@.*/, "", $2); print $2}' |
                  grep -E '^(aoti_torch_|torch_)|N5torch|N3c10|N2at' | sort -u | comm -23 - "$T/exports.$rel" | head -1)
        want=compatible; [ -n "$missing" ] && want=incompatible
        got=$("$CLI" check "$p" --target H100 --libtorch "$(dirname "$lib")" --json | python3 -c '
import json, sys
e = [x for x in json.load(sys.stdin)["compatibility"] if x["kind"] == "runtime"][0]
m = (e.get("missing") or {}).get("symbols") or [""]
print(e["verdict"], m[0])')
        if [ "$got" = "$want${missing:+ }$missing" ] || [ "$got" = "$want " ]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1)); echo "FAIL: --libtorch $rel on $(basename "$p"): got '$got', exports imply '$want $missing'"
        fi
    done
    if [ "$ncorp" = 0 ]; then
        if [ "${PT2SCOPE_REQUIRE_CORPUS:-}" = 1 ]; then fail=$((fail + 1)); echo "FAIL: no corpus library"; else
            skip=$((skip + 1)); echo "SKIP libtorch $rel corpus: shared corpus absent"; fi
    fi
done
# mlcolvar, as runtime-needs.md §1 says: not on 2.6 (aoti_torch_new_tensor_handle), fine on 2.14
ml=$SHARED/corpus/pt2/mlcolvar__descriptor_based_inputs_model.pt2
l26=$(ls "$ORACLE"/2.6/usr/lib/*/libtorch_cpu.so.*.* 2>/dev/null | head -1)
if [ -f "$ml" ] && [ -n "$l26" ]; then
    got=$("$CLI" check "$ml" --target H100 --libtorch "$l26" 2>&1 | grep '^libtorch:' | sed 's/ (1 missing.*//; s/^[^ ]* //')
    want="incompatible: undefined symbol: aoti_torch_new_tensor_handle"
    [ "$got" = "$want" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: mlcolvar on 2.6: '$got'"; }
fi
echo "libtorch: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]

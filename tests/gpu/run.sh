#!/usr/bin/env bash
# tests/gpu/run.sh - compare pt2scope's verdicts with what the real CUDA driver loads.
#
# For a machine with an NVIDIA GPU and driver (not part of CI; see README.md).
# Builds pt2scope, tests/gpu/probe.c and tests/gpu/loadcheck.c, then
#  1. checks that pt2_cuda_probe() lists the same GPUs as nvidia-smi
#     (matched by UUID: PCI bus id, name, CC);
#  2. asks the driver to cuModuleLoadData every reference cubin/fatbin/PTX file
#     on one device, asks `pt2scope check-kernel FILE --device cuda:N` for its
#     verdict on the same file, and compares.
# Prints Markdown tables; fails on any disagreement.
#
# Usage: tests/gpu/run.sh [--device N] [--bins DIR] [--no-build] [FILE...]
#   FILE...      files to check (default: *.cubin, *.fatbin, *.ptx under the bins dir)
#   --bins DIR   reference binaries (default $PT2SCOPE_SHARED/corpus/bins, where
#                PT2SCOPE_SHARED defaults to ../shared, else tests/fixtures/bins)
#   --device N   CUDA ordinal, as the driver numbers it after CUDA_VISIBLE_DEVICES (0)
#   --no-build   use the existing $BUILD/pt2scope
# Environment:
#   BUILD                   build directory (build)
#   PT2SCOPE_CHECK_CMD      verdict command (default "$BUILD/pt2scope check-kernel");
#                           called as: CMD FILE --device cuda:N; exit 0 = compatible
#                           (also via PTX JIT), 1 = incompatible, anything else = error
#   PT2SCOPE_LOADCHECK_LIB  libcuda for loadcheck, probe and pt2scope (exported as
#                           PT2SCOPE_LIBCUDA; default libcuda.so.1); a dry run
#                           without a GPU can use $BUILD/fakecuda/libcuda.so.1
#   PT2SCOPE_GPU_OUT        where node.md, report.md, *.tsv and logs go ($BUILD/gpu-check)
#   TIMEOUT_BUILD / TIMEOUT_LOAD / TIMEOUT_CHECK   seconds (600 / 300 / 30)
# Exit: 0 all agree, 1 a disagreement or a pt2scope error, 2 setup problem.
set -u -o pipefail

cd "$(dirname "$0")/../.." || exit 2

BUILD=${BUILD:-build}
OUT=${PT2SCOPE_GPU_OUT:-$BUILD/gpu-check}
TIMEOUT_BUILD=${TIMEOUT_BUILD:-600}
TIMEOUT_LOAD=${TIMEOUT_LOAD:-300}
TIMEOUT_CHECK=${TIMEOUT_CHECK:-30}
DEVICE=0
BINS=""
DO_BUILD=1
FILES=()

die() {
    echo "run.sh: $*" >&2
    exit 2
}

while (($#)); do
    case $1 in
    --device)
        [[ ${2:-} =~ ^[0-9]+$ ]] || die "--device needs a CUDA ordinal"
        DEVICE=$2
        shift 2
        ;;
    --bins)
        [[ -n ${2:-} ]] || die "--bins needs a directory"
        BINS=$2
        shift 2
        ;;
    --no-build)
        DO_BUILD=0
        shift
        ;;
    -h | --help)
        sed -n '2,29p' "$0"
        exit 0
        ;;
    --)
        shift
        FILES+=("$@")
        break
        ;;
    -*) die "unknown option $1 (try --help)" ;;
    *)
        FILES+=("$1")
        shift
        ;;
    esac
done

command -v timeout >/dev/null || die "needs timeout(1) from coreutils"
command -v "${CC:-cc}" >/dev/null || die "needs a C compiler (${CC:-cc})"

# --- the files ---------------------------------------------------------------
if ((${#FILES[@]} == 0)); then
    if [[ -z $BINS ]]; then
        BINS=${PT2SCOPE_SHARED:-../shared}/corpus/bins
        [[ -d $BINS ]] || BINS=tests/fixtures/bins
    fi
    [[ -d $BINS ]] || die "no reference binaries: '$BINS' is not a directory" \
        "(pass --bins DIR or FILE..., or set PT2SCOPE_SHARED)"
    mapfile -d '' FILES < <(find "$BINS" -type f \( -name '*.cubin' -o -name '*.fatbin' \
        -o -name '*.ptx' \) -print0 | sort -z)
    ((${#FILES[@]})) || die "no *.cubin, *.fatbin or *.ptx files under '$BINS'"
fi
for f in "${FILES[@]}"; do
    [[ $f == *$'\t'* || $f == *$'\n'* ]] &&
        die "file names with tabs or newlines are not supported: $f"
done

mkdir -p "$OUT" || die "cannot create $OUT"

# --- build -------------------------------------------------------------------
if ((DO_BUILD)); then
    echo "run.sh: building $BUILD/pt2scope" >&2
    timeout "$TIMEOUT_BUILD" make -s BUILD="$BUILD" "$BUILD/pt2scope" >"$OUT/build.log" 2>&1 ||
        die "make $BUILD/pt2scope failed; see $OUT/build.log"
fi
read -r -a CHECK <<<"${PT2SCOPE_CHECK_CMD:-$BUILD/pt2scope check-kernel}"
((${#CHECK[@]})) || die "PT2SCOPE_CHECK_CMD is empty"
[[ -x ${CHECK[0]} ]] || command -v "${CHECK[0]}" >/dev/null ||
    die "verdict command '${CHECK[0]}' not found (build it or set PT2SCOPE_CHECK_CMD)"

LOADCHECK=$OUT/loadcheck
timeout "$TIMEOUT_BUILD" "${CC:-cc}" -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror \
    -o "$LOADCHECK" tests/gpu/loadcheck.c -ldl >"$OUT/loadcheck-build.log" 2>&1 ||
    die "building loadcheck failed; see $OUT/loadcheck-build.log"

# probe, loadcheck and pt2scope must all talk to the same driver.
if [[ -n ${PT2SCOPE_LOADCHECK_LIB:-} ]]; then
    export PT2SCOPE_LIBCUDA=$PT2SCOPE_LOADCHECK_LIB
fi

read -r -a PKG_CFLAGS <<<"$(pkg-config --cflags libcjson 2>/dev/null)"
read -r -a PKG_LIBS <<<"$(pkg-config --libs libzip libcjson libmicrohttpd libcurl 2>/dev/null)"
PROBE=$OUT/probe
timeout "$TIMEOUT_BUILD" "${CC:-cc}" -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror \
    -Iservice/include -Iservice/lib "${PKG_CFLAGS[@]}" -o "$PROBE" tests/gpu/probe.c \
    "$BUILD/libpt2scope.a" "${PKG_LIBS[@]}" -ldl -lpthread -lm \
    >"$OUT/probe-build.log" 2>&1 || die "building probe failed; see $OUT/probe-build.log"

# --- the node: pt2_cuda_probe against nvidia-smi --------------------------------
# Matched by UUID, because CUDA ordinals follow CUDA_DEVICE_ORDER and
# CUDA_VISIBLE_DEVICES while nvidia-smi lists every GPU in PCI order.
node_bad=0
{
    echo "## pt2_cuda_probe vs nvidia-smi"
    echo
    timeout 60 "$PROBE" >"$OUT/probe.tsv" 2>"$OUT/probe.err"
    prc=$?
    smi=""
    if command -v nvidia-smi >/dev/null; then
        smi=$(timeout 30 nvidia-smi --query-gpu=uuid,pci.bus_id,name,compute_cap \
            --format=csv,noheader 2>/dev/null ||
            timeout 30 nvidia-smi --query-gpu=uuid,pci.bus_id,name --format=csv,noheader)
    fi
    reason=$(awk -F'\t' '$1 == "# driver" {print $3}' "$OUT/probe.tsv")
    if ((prc != 0)); then
        echo "pt2_cuda_probe found no GPU (exit $prc): ${reason:-see $OUT/probe.err}"
        [[ -n $smi ]] && node_bad=1
    elif [[ -z $smi ]]; then
        echo "nvidia-smi not available: nothing to compare with."
    else
        echo "| cuda | name | uuid | pci | CC | SMs | memory MiB | nvidia-smi | match |"
        echo "|---|---|---|---|---|---|---|---|---|"
        while IFS=$'\t' read -r idx uuid pci cc sms mem name; do
            [[ $idx == \#* ]] && continue
            row=$(grep -F -- "$uuid" <<<"$smi" | head -n 1)
            s_pci=$(awk -F', ' '{print tolower(substr($2, length($2) - 11))}' <<<"$row")
            s_name=$(awk -F', ' '{print $3}' <<<"$row")
            s_cc=$(awk -F', ' '{print $4}' <<<"$row")
            ok="yes"
            if [[ -z $row || $s_pci != "$pci" || $s_name != "$name" ||
                (-n $s_cc && $s_cc != "$cc") ]]; then
                ok="**NO**"
                node_bad=1
            fi
            printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$idx" "$name" "$uuid" \
                "$pci" "$cc" "$sms" "$((mem / 1048576))" "${row:-not listed}" "$ok"
        done <"$OUT/probe.tsv"
    fi
    echo
} >"$OUT/node.md"

# --- ask the driver ----------------------------------------------------------
# One loadcheck process for all files; if it crashes or hangs on a file, that
# file is recorded as CRASH/TIMEOUT and a new process continues after it.
LC_ARGS=(--device "$DEVICE")
[[ -n ${PT2SCOPE_LOADCHECK_LIB:-} ]] && LC_ARGS+=(--lib "$PT2SCOPE_LOADCHECK_LIB")
TSV=$OUT/loadcheck.tsv
HEADER=$OUT/loadcheck.header
: >"$TSV"
: >"$HEADER"
remaining=("${FILES[@]}")
while ((${#remaining[@]})); do
    timeout -k 5 "$TIMEOUT_LOAD" "$LOADCHECK" "${LC_ARGS[@]}" -- "${remaining[@]}" \
        >"$OUT/part.tsv" 2>"$OUT/loadcheck.err"
    rc=$?
    [[ -s $HEADER ]] || grep '^#' "$OUT/part.tsv" >"$HEADER"
    grep -v '^#' "$OUT/part.tsv" >>"$TSV"
    ((rc == 0)) && break
    done_n=$(grep -vc '^#' "$OUT/part.tsv")
    if ((rc == 2 || rc == 64)) && ! [[ -s $HEADER ]]; then
        cat "$OUT/loadcheck.err" >&2
        die "loadcheck could not set up the driver or device $DEVICE (exit $rc)"
    fi
    if ((done_n >= ${#remaining[@]})); then
        break
    fi
    case $rc in
    124 | 137) why="TIMEOUT" ;;
    *) why="CRASH(exit $rc)" ;;
    esac
    printf '%s\t-\t%s\n' "${remaining[$done_n]}" "$why" >>"$TSV"
    remaining=("${remaining[@]:done_n+1}")
done

driver=$(awk -F'\t' '$1 == "# driver" {print $2}' "$HEADER")
devline=$(awk -F'\t' '$1 == "# device" {print $3 " (CC " $4 ")"}' "$HEADER")
drv_text="unknown"
[[ $driver =~ ^[0-9]+$ ]] && drv_text="$((driver / 1000)).$(((driver % 1000) / 10))"

# --- ask pt2scope and compare --------------------------------------------------
md_escape() {
    local s=${1//|/\\|}
    s=${s//$'\n'/ }
    printf '%s' "${s:0:160}"
}

agree=0
disagree=0
skipped=0
crashed=0
errors=0
{
    echo "## pt2scope vs the CUDA driver on cuda:$DEVICE:" \
        "${devline:-unknown device}, driver CUDA $drv_text"
    echo
    echo "| file | driver | CUresult | pt2scope | exit | agree |"
    echo "|---|---|---|---|---|---|"
} >"$OUT/report.md"

while IFS=$'\t' read -r file cu name; do
    shown=$file
    [[ -n $BINS ]] && shown=${file#"$BINS"/}
    if [[ $cu == "-" ]]; then
        if [[ $name == CRASH* || $name == TIMEOUT ]]; then
            crashed=$((crashed + 1))
        else
            skipped=$((skipped + 1))
        fi
        printf '| %s | %s | - | - | - | skipped |\n' "$(md_escape "$shown")" \
            "$(md_escape "$name")" >>"$OUT/report.md"
        continue
    fi
    verdict=$(timeout "$TIMEOUT_CHECK" "${CHECK[@]}" "$file" --device "cuda:$DEVICE" \
        2>>"$OUT/check.err" </dev/null | head -n 1)
    prc=${PIPESTATUS[0]}
    verdict=${verdict#"$file: "}
    if ((cu == 0)); then loads="loads"; else loads="fails"; fi
    if ((prc != 0 && prc != 1)); then
        result="ERROR"
        errors=$((errors + 1))
        [[ $prc == 124 ]] && verdict="timeout after ${TIMEOUT_CHECK}s"
    elif { ((cu == 0)) && ((prc == 0)); } || { ((cu != 0)) && ((prc == 1)); }; then
        result="yes"
        agree=$((agree + 1))
    else
        result="**NO**"
        disagree=$((disagree + 1))
    fi
    printf '| %s | %s | %s %s | %s | %s | %s |\n' "$(md_escape "$shown")" "$loads" "$cu" \
        "$(md_escape "$name")" "$(md_escape "$verdict")" "$prc" "$result" >>"$OUT/report.md"
done <"$TSV"

total=$((agree + disagree + skipped + crashed + errors))
{
    echo
    echo "**$total files: $agree agree, $disagree disagree, $errors pt2scope errors," \
        "$crashed driver crashes/timeouts (not compared), $skipped skipped**"
} >>"$OUT/report.md"
cat "$OUT/node.md" "$OUT/report.md"
echo "run.sh: report in $OUT/report.md, driver results in $TSV" >&2

if ((agree == 0 && errors > 0 && disagree == 0)); then
    echo "run.sh: every pt2scope call failed; does '${CHECK[*]}' exist yet? see $OUT/check.err" >&2
fi
((node_bad)) && echo "run.sh: pt2_cuda_probe disagrees with nvidia-smi; see $OUT/node.md" >&2
((disagree == 0 && errors == 0 && node_bad == 0)) || exit 1
exit 0

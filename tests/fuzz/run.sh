#!/usr/bin/env bash
# run.sh SECONDS NAME... - run each libFuzzer harness build/fuzz/fuzz_NAME
# for SECONDS: first every saved crasher of tests/fuzz/regressions/NAME/
# (each must now pass), then fuzzing from a corpus seeded with the
# fixtures. A crash fails the run and leaves its input under
# $FUZZ_DIR/artifacts/: copy it into tests/fuzz/regressions/NAME/ with the fix.
# Prints "fuzz: N passed, N failed" (one per harness). From the repository root.
set -u
SECS=$1
shift
FUZZ_DIR=${FUZZ_DIR:-build/fuzz}
pass=0 fail=0

torch_seeds() { # torch's own small packages (tests/fixtures/torch/, under 100 KB), and
    # tests/fuzz/seeds/torch/: t214_program_and_aoti without its library (an exported program
    # and the wrapper that narrows its specs, in 69 KB)
    find tests/fixtures/torch -name '*.pt2' -size -100k -exec cp {} "$1/" \;
    cp tests/fuzz/seeds/torch/* "$1/"
}

seed() { # seed NAME DIR: the harness's starting corpus in DIR
    local name=$1 dir=$2 f i
    case $name in
    package)
        # the fixtures, and the Windows packages the build makes (mingw-w64, lld-link)
        for f in tests/fixtures/*.pt2 "$(dirname "$FUZZ_DIR")"/fixtures/win/*.pt2; do
            case $f in *wrapper_over_cap*) continue ;; esac
            [ -f "$f" ] && cp "$f" "$dir/"
        done
        torch_seeds "$dir" ;;
    differential)
        # the fixtures, and one package per hostile input of the attack run (issue 24)
        for f in tests/fixtures/*.pt2 tests/fuzz/seeds/differential/*; do
            case $f in *wrapper_over_cap*) continue ;; esac
            cp "$f" "$dir/"
        done
        torch_seeds "$dir" ;;
    zip)
        # whole packages (stored, deflated, zip64) and the hostile ones of the attack run
        for f in tests/fixtures/*.pt2 tests/fuzz/seeds/differential/*; do
            case $f in *wrapper_over_cap*) continue ;; esac
            cp "$f" "$dir/"
        done
        torch_seeds "$dir" ;;
    upload)
        # the first byte is the slice size (fuzz_upload.c): the fixtures at two of them
        for f in tests/fixtures/*.pt2; do
            case $f in *wrapper_over_cap*) continue ;; esac
            { printf '\x3f'; cat "$f"; } >"$dir/$(basename "$f").64"
            { printf '\x07'; cat "$f"; } >"$dir/$(basename "$f").all"
        done
        cp tests/fuzz/seeds/upload/* "$dir/" ;;
    binary)
        find tests/fixtures/bins -type f -size -300k \( -name '*.cubin' -o -name '*.fatbin' \
            -o -name '*.hsaco' -o -name '*.so' -o -name '*.ptx' -o -name '*.dylib' \) \
            -exec cp {} "$dir/" \;
        cp tests/fuzz/seeds/pe/* "$dir/" ;;
    json)
        # The first byte picks the reader (fuzz_json.c): one seed per reader and document.
        i=0
        for f in tests/fixtures/json/*.json tests/fixtures/k8s/nodes.json; do
            for sel in 0 1 2 3 4 5 6 7; do
                { printf "\\x3$sel"; cat "$f"; } >"$dir/seed$i.$sel"
            done
            i=$((i + 1))
        done ;;
    text)
        cp tests/fuzz/seeds/text/* tests/fixtures/wrapper/* "$dir/"
        # the wrappers torch 2.14.1 and 2.6.0 wrote (tests/fixtures/torch/)
        python3 - "$dir" tests/fixtures/torch/*.pt2 <<'PY'
import os, sys, zipfile
for p in sys.argv[2:]:
    with zipfile.ZipFile(p) as z:
        for n in z.namelist():
            if n.endswith(".cpp") and not n.endswith(".kernel.cpp"):
                open(os.path.join(sys.argv[1], os.path.basename(p) + "." + os.path.basename(n)), "wb").write(z.read(n))
PY
        ;;
    request)
        cp tests/fuzz/seeds/request/* "$dir/" ;;
    pe)
        # hand-made images, and the mingw-w64 DLL the build makes when it has the cross compiler
        cp tests/fuzz/seeds/pe/* "$dir/"
        # and its lld-link build with a delay-load directory (win_delay.pyd)
        for f in win_model.pyd win_delay.pyd; do
            f=$(dirname "$FUZZ_DIR")/fixtures/win/$f
            [ -f "$f" ] && cp "$f" "$dir/"
        done ;;
    esac
}

for name in "$@"; do
    bin=$FUZZ_DIR/fuzz_$name
    corpus=$FUZZ_DIR/corpus/$name
    mkdir -p "$corpus" "$FUZZ_DIR/artifacts"
    seed "$name" "$corpus"
    ok=1
    reg=(tests/fuzz/regressions/"$name"/*)
    if [ -e "${reg[0]}" ]; then
        "$bin" -rss_limit_mb=1024 "${reg[@]}" >"$FUZZ_DIR/$name.regressions.log" 2>&1 || {
            ok=0; echo "FAIL fuzz_$name: a saved crasher crashes again"
            tail -20 "$FUZZ_DIR/$name.regressions.log"; }
    fi
    if [ "$ok" = 1 ]; then
        "$bin" -max_total_time="$SECS" -max_len=1048576 -rss_limit_mb=1024 -timeout=10 \
            -artifact_prefix="$FUZZ_DIR/artifacts/$name-" -print_final_stats=1 \
            "$corpus" >"$FUZZ_DIR/$name.log" 2>&1 || {
            ok=0; echo "FAIL fuzz_$name (log: $FUZZ_DIR/$name.log)"; tail -30 "$FUZZ_DIR/$name.log"; }
    fi
    if [ "$ok" = 1 ]; then
        pass=$((pass + 1))
        echo "fuzz_$name: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$FUZZ_DIR/$name.log" |
            grep -o '[0-9]*$') executions in ${SECS} s, no crash"
    else
        fail=$((fail + 1))
    fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" = 0 ]

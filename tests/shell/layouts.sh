#!/usr/bin/env bash
# The 2025-2026 layouts (../shared/docs/pt2-layouts-2026.md) through the CLI: one line per
# host library and the one torch loads, weights outside the library, C++-only packages,
# MPS and XPU, ExecuTorch programs and pickles, schema 8.20 dtypes, and --model, which
# judges one model of a package with several (as torch's loader given a model_name).
set -u
B=${PT2SCOPE_BUILD:-build}/pt2scope
F=tests/fixtures
pass=0 fail=0
ERRF=$(mktemp)
trap 'rm -f "$ERRF"' EXIT

expect() { # expect RC CMD...: stdout in $OUT, stderr in $ERR
    local want=$1; shift
    OUT=$("$@" 2>"$ERRF"); local rc=$?
    ERR=$(cat "$ERRF")
    if [ "$rc" = "$want" ]; then pass=$((pass+1)); else
        fail=$((fail+1)); echo "FAIL: exit $rc (want $want): $*"; echo "$OUT$ERR" | head -5; fi
}
same() {
    if [ "$1" = "$2" ]; then pass=$((pass+1)); else
        fail=$((fail+1)); printf 'FAIL: got\n  %s\nwant\n  %s\n' "$1" "$2"; fi
}
# jq-less: a python expression over the JSON in $OUT
pj() { echo "$OUT" | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

H=c4pyf6qjjvtmwgywr7t4sytqlxbodzvg3omrtyzac7l5nozg5nqr
expect 0 "$B" inspect $F/two_libraries.pt2
same "$(echo "$OUT" | grep -c '^Library ')" "2"
same "$(echo "$OUT" | grep '^Library ')" "Library     data/aotinductor/model/$H.wrapper.so (elf x86_64)
Library     data/aotinductor/model/${H}_abicompat.so (elf aarch64, the one torch loads)"
same "$(echo "$OUT" | grep -c '^CPU  .* + ')" "0"
same "$(echo "$OUT" | grep -c "the last library in zip order; data/aotinductor/model/$H.wrapper.so is x86_64 and is not what runs")" "1"
expect 0 "$B" inspect --json $F/two_libraries.pt2
same "$(pj '[(l["machine"], l["loaded"]) for l in d["models"][0]["libraries"]]')" "[('x86_64', False), ('aarch64', True)]"
# the verdict is the loaded library's: arm64 nodes load it, amd64 ones do not
expect 0 "$B" check --target H100 --platform linux/arm64 $F/two_libraries.pt2
expect 1 "$B" check --target H100 --platform linux/amd64 --json $F/two_libraries.pt2
same "$(pj 'd["compatibility"][0]["code"]')" "host-platform"
same "$(pj 'd["compatibility"][0]["reason"].split(";")[0]')" "the model library data/aotinductor/model/${H}_abicompat.so is a Linux aarch64 library"

expect 0 "$B" inspect $F/weights_pickle.pt2
same "$(echo "$OUT" | grep '^  weights')" "  weights   pickle-files, 2 entries, 1840 bytes stored, 1 missing"
same "$(echo "$OUT" | grep -c 'weights_config.json names data/weights/weight_1, which the package does not contain')" "1"
expect 0 "$B" inspect $F/weights_blob_empty.pt2
same "$(echo "$OUT" | grep '^  weights')" "  weights   binary-blob, 1 entry, 0 bytes stored"
same "$(echo "$OUT" | grep -c 'wrapper_weights.blob is empty')" "1"
expect 0 "$B" inspect $F/export_program.pt2
same "$(echo "$OUT" | grep '^  weights')" "  weights   payload-files, 1 entry, 120 bytes stored (declares 120)"

expect 0 "$B" inspect $F/cpp_only.pt2
same "$(echo "$OUT" | grep '^  build')" "  build     C++ sources only (CMake target aoti_model): compile it before it can load"
expect 1 "$B" check --target H100 --json $F/cpp_only.pt2
same "$(pj 'd["compatibility"][0]["code"]')" "needs-compile"
same "$(pj '"--target aoti_model" in d["compatibility"][0]["advice"]')" "True"
expect 1 "$B" check --target H100 --platform windows/amd64 $F/cpu_x86_64.pt2

expect 0 "$B" inspect $F/mps_macos.pt2
same "$(echo "$OUT" | grep '^Model dir')" "Model dir   model (Apple MPS, device key mps)"
same "$(echo "$OUT" | grep '^  shaders')" "  shaders   2 Metal shader libraries, compiled from source at load"
same "$(echo "$OUT" | grep '^  needs')" "  needs     macOS 14.0"
expect 1 "$B" check --target H100 $F/mps_macos.pt2
same "$(echo "$OUT" | head -1)" "H100: incompatible: package is for an Apple GPU on macOS (Metal, MPS) (AOTI_DEVICE_KEY mps); NVIDIA H100 is a CUDA device"

expect 0 "$B" inspect $F/xpu_zebin.pt2
same "$(echo "$OUT" | grep '^Model dir')" "Model dir   model (Intel XPU, device key xpu, targets zebin:pvc)"
expect 1 "$B" check --target MI300X $F/xpu_zebin.pt2
same "$(echo "$OUT" | head -1)" "MI300X: incompatible: package is for an Intel GPU (XPU), zebin kernels for Intel Data Center GPU Max (Ponte Vecchio) (AOTI_DEVICE_KEY xpu); AMD MI300X (gfx942) is a ROCm device"

expect 0 "$B" inspect $F/executorch_pickles.pt2
same "$(echo "$OUT" | grep '^ExecuTorch\|^Pickle\|^  custom')" "  custom    3 proxy-executor nodes: preprocess::tile_crop, mylib::fused_op
ExecuTorch  model.pte (64 bytes)
Pickle      data/constants/custom_obj_0 (custom_obj, 21 bytes; loading it executes code)"

expect 0 "$B" inspect --json $F/export_program_v820.pt2
same "$(pj '[(t["dtype"], t.get("dtype_code")) for t in d["metadata"]["exported_programs"][0]["inputs"] + d["metadata"]["exported_programs"][0]["outputs"]]')" "[('float8_e8m0fnu', None), ('uint64', None), (None, 36)]"

# --model: one model of several, or a one-line error naming the models there are
expect 1 "$B" check --target H100 $F/multi_model.pt2
expect 0 "$B" check --target H100 --model model $F/multi_model.pt2
same "$(echo "$OUT" | cut -d';' -f1)" "H100: compatible: sm_90a cubin runs on NVIDIA H100"
expect 0 "$B" check --target A100 --model model2 $F/multi_model.pt2
expect 1 "$B" check --target H100 --json $F/multi_model.pt2
same "$(pj '[(m["model"], m["verdict"], m["code"]) for m in d["compatibility"][0]["models"]]')" "[('model', 'compatible', 'compatible'), ('model2', 'incompatible', 'arch-mismatch')]"
expect 0 "$B" inspect --json --model model2 $F/multi_model.pt2
same "$(pj '(d["package"]["model"], [m["name"] for m in d["models"]], d["arch"]["cuda_targets"])')" "('model2', ['model2'], ['sm_80'])"
expect 2 "$B" check --target H100 --model nope $F/multi_model.pt2
same "$ERR" "pt2scope: $F/multi_model.pt2: no model 'nope' in the package; available models: model, model2"
expect 2 "$B" inspect --model '' $F/multi_model.pt2
expect 2 "$B" scan --model model $F

# Windows: the mingw-w64 DLL the Makefile builds at test time, packaged by build.py --pyd
WIN=${PT2SCOPE_BUILD:-build}/fixtures/win/win_model.pt2
if [ -f "$WIN" ]; then
    expect 0 "$B" inspect --json "$WIN"
    same "$(pj '[(l["format"], l["os"], l["machine"], l["loaded"], l["pe"]["subsystem"], l["pe"]["dll"]) for l in d["models"][0]["libraries"]]')" "[('pe', 'windows', 'x86_64', True, 'windows-gui', True)]"
    same "$(pj 'd["models"][0]["libraries"][0]["needs"]["libraries"]')" "['KERNEL32.dll', 'torch_cpu.dll']"
    same "$(pj 'd["models"][0]["aoti_metadata"]["AOTI_PLATFORM"]')" "win32"
    expect 0 "$B" inspect "$WIN"
    same "$(echo "$OUT" | grep '^CPU  ')" "CPU         Windows x86-64 DLL, AVX2 (avx2, fma, f16c, pni, ssse3, sse4_1, sse4_2, popcnt, cx16, avx, bmi1, bmi2, movbe, abm)"
    same "$(echo "$OUT" | grep -c '^Library .*wrapper.pyd (pe x86_64, the one torch loads)')" "1"
    # a Windows library does not load on a Linux node, and loads on a Windows one
    expect 1 "$B" check --target H100 --json "$WIN"
    same "$(pj '(d["compatibility"][0]["code"], d["compatibility"][0]["reason"].split(";")[0].split(" is a ")[1])')" "('host-platform', 'Windows x86_64 DLL')"
    same "$(pj 'd["compatibility"][0]["advice"].startswith("Re-export the package on Linux")')" "True"
    expect 0 "$B" check --target H100 --platform windows/amd64 "$WIN"
    # and a Linux library on a Windows node is the same refusal the other way
    expect 1 "$B" check --target H100 --platform windows/amd64 --json $F/cpu_x86_64.pt2
    same "$(pj 'd["compatibility"][0]["code"]')" "host-platform"
elif command -v x86_64-w64-mingw32-gcc >/dev/null; then
    fail=$((fail+1)); echo "FAIL: $WIN was not built (make builds it when mingw-w64 is there)"
else
    echo "SKIP: no mingw-w64 cross compiler, so no Windows package (make deps installs it)"
fi

echo "layouts: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# CLI contract: exit codes (0 ok, 1 negative, 2 usage error or no package, 3 a package
# that cannot be read), one-line errors on stderr, and the exact verdict lines pipelines
# grep for. tests/shell/formats.sh has --format junit/sarif and one test per exit code.
set -u
B=${PT2SCOPE_BUILD:-build}/pt2scope
F=tests/fixtures
pass=0 fail=0
ERRF=$(mktemp)
trap 'rm -f "$ERRF"' EXIT

# expect RC CMD... : run, compare exit code; stdout+stderr kept in $OUT/$ERR
expect() {
    local want=$1; shift
    OUT=$("$@" 2>"$ERRF"); local rc=$?
    ERR=$(cat "$ERRF")
    if [ "$rc" = "$want" ]; then pass=$((pass+1)); else
        fail=$((fail+1)); echo "FAIL: exit $rc (want $want): $*"; echo "$OUT$ERR" | head -5; fi
}
same() { # same ACTUAL EXPECTED
    if [ "$1" = "$2" ]; then pass=$((pass+1)); else
        fail=$((fail+1)); printf 'FAIL: got\n  %s\nwant\n  %s\n' "$1" "$2"; fi
}

expect 0 "$B" inspect $F/cuda_sm90a_v8.pt2
same "$(echo "$OUT" | grep '^CUDA')" "CUDA        sm_90a"
expect 0 "$B" inspect $F/cuda_sm90a_v8.pt2 --json
same "$(echo "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["arch"]["cuda_compute_capability"])')" "9.0"
expect 0 "$B" check $F/cuda_sm90a_v8.pt2 --target H100
same "$OUT" "H100: compatible: sm_90a cubin runs on NVIDIA H100; compatible if the driver supports CUDA 13.0 (branch 580 or newer): the cubin is CUDA 13 (ELF ABI v8) and the driver version is unknown; compatible if the node's CPU has avx512f, avx512dq, avx512vl, avx512bw, fma (a target names no CPU)"
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target A100
same "$(echo "$OUT" | head -1)" "A100: incompatible: kernels are sm_90a only; NVIDIA A100 is 8.0"
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target 9.0 --target 8.0
expect 0 "$B" check $F/cuda_fatbin_multi.pt2 --target 11.0
same "${OUT%%:*}" "11.0"
expect 1 "$B" check $F/cuda_fatbin_multi.pt2 --target H100 --driver 12.4
expect 0 "$B" check $F/cuda_sm90a_v8.pt2 --target sm_90a --json
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["compatibility"][0]["verdict"], d["overall"]["verdict"], d["overall"]["reason"][:18])')" "compatible compatible sm_90a: sm_90a cub"
# getopt_long: --opt=value, options before the file, help for a command.
expect 1 "$B" check --target=A100 $F/cuda_sm90a_v8.pt2
same "$(echo "$OUT" | head -1)" "A100: incompatible: kernels are sm_90a only; NVIDIA A100 is 8.0"
expect 0 "$B" inspect --help
same "$(echo "$OUT" | head -1)" "usage: pt2scope inspect FILE [--json] [--oip] [--model NAME]"
# One help per command, naming every option the parser lets that command take
# (asked of the parser itself: an option it refuses says "does not take").
for cmd in inspect check check-kernel validate gpus affinity scan version; do
    expect 0 "$B" "$cmd" --help
    help=$OUT
    same "$(echo "$help" | head -1 | cut -d' ' -f1-3)" "usage: pt2scope $cmd"
    expect 0 "$B" help "$cmd"
    same "$OUT" "$help"
    for opt in json oip yaml target input driver device libcuda sysfs-root nodes model; do
        "$B" "$cmd" "--$opt" x >/dev/null 2>"$ERRF"
        if ! grep -q "does not take --$opt" "$ERRF"; then
            case "$help" in *"--$opt"*) pass=$((pass+1)) ;;
                *) fail=$((fail+1)); echo "FAIL: $cmd --help does not mention --$opt" ;; esac
        fi
    done
done
expect 0 "$B" check --help
same "$(echo "$OUT" | grep -c -- '--nodes FILE')" "1"
expect 0 "$B" --help
same "$(echo "$OUT" | grep -c 'scan PATH... \[--target T\]... \[--driver X.Y\] \[--json\]')" "1"
expect 2 "$B" inspect $F/cuda_sm90a_v8.pt2 --target H100
same "$ERR" "pt2scope: usage: inspect does not take --target"
expect 2 "$B" check $F/cuda_sm90a_v8.pt2 --nodes $F/k8s/nodes.json --target H100
expect 2 "$B" check $F/cuda_sm90a_v8.pt2 --frobnicate
same "$ERR" "pt2scope: usage: unknown option '--frobnicate'"
expect 2 "$B" check $F/cuda_sm90a_v8.pt2 $F/cpu_x86_64.pt2
same "$ERR" "pt2scope: usage: unexpected argument '$F/cpu_x86_64.pt2'"
expect 2 "$B" check $F/cuda_sm90a_v8.pt2 --target H999
same "$(echo "$ERR" | wc -l)" "1"
expect 2 "$B" check $F/cuda_sm90a_v8.pt2 --target
same "$ERR" "pt2scope: usage: option '--target' needs a value"
expect 0 "$B" validate $F/cuda_sm90a_v8.pt2 --input image=8,3,512,512 --input scale=8
same "$OUT" "valid"
expect 1 "$B" validate $F/cuda_sm90a_v8.pt2 --input image=8,4,512,512 --input scale=8
same "$OUT" "input 'image' axis 1: expected 3, got 4"
expect 2 "$B" validate $F/cuda_sm90a_v8.pt2 --input image=8,x
expect 3 "$B" inspect $F/broken_not_zip.pt2
same "$ERR" "pt2scope: $F/broken_not_zip.pt2: not a zip archive (no end-of-central-directory record)"
expect 3 "$B" inspect $F/broken_truncated.pt2
expect 2 "$B" inspect $F/no_such_file.pt2
expect 2 "$B" inspect
expect 2 "$B" frobnicate
expect 0 "$B" --help
expect 0 "$B" version
# No driver here: a CUDA package cannot run; the CPU verdict still comes, then this machine's
# runtime (its library loads here), and the overall says why.
expect 1 env PT2SCOPE_LIBCUDA=/nonexistent/libcuda.so.1 "$B" check $F/cuda_sm90a_v8.pt2 --sysfs-root /nonexistent
same "$(echo "$OUT" | grep -v '^  advice: ' | cut -d: -f1)" "$(printf 'cpu\nlocal\noverall')"
same "$(echo "$OUT" | sed -n 2p)" "local: compatible: this machine can load data/aotinductor/model/czqbiwbc5ruvbr4zkawxjx7advwcp5f3dw36ortm6fg3dzsvbmy3.wrapper.so"
same "$(echo "$OUT" | sed -n 3p)" "overall: incompatible: the package needs an NVIDIA GPU (sm_90a); this node has none: no NVIDIA driver installed (/nonexistent/libcuda.so.1 not found)"
expect 1 env PT2SCOPE_LIBCUDA=/nonexistent/libcuda.so.1 "$B" check $F/cuda_sm90a_v8.pt2 --json
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted(d), len(d["compatibility"]), d["overall"]["verdict"])')" "['compatibility', 'overall'] 2 incompatible"
# This node's AMD GPUs from a stand-in KFD topology.
AMD=tests/fixtures/sysfs/mi250x2
expect 0 env PT2SCOPE_LIBCUDA=/nonexistent "$B" check $F/rocm_gfx90a.pt2 --sysfs-root $AMD
same "$(echo "$OUT" | cut -d: -f1-3 | sed -n '1,2p;5p')" "$(printf 'rocm:0: compatible\nrocm:1: compatible\noverall: compatible: rocm')"
same "$(echo "$OUT" | cut -d: -f1-2 | sed -n 4p)" "local: compatible"
expect 1 env PT2SCOPE_LIBCUDA=/nonexistent PT2SCOPE_SYSFS_ROOT=$AMD "$B" check $F/cuda_sm90a_v8.pt2
same "$(echo "$OUT" | grep -v '^  advice: ' | tail -1)" "overall: incompatible: the package needs an NVIDIA GPU (sm_90a); this node has none (its GPUs: AMD rocm:0, rocm:1)"
expect 0 env PT2SCOPE_LIBCUDA=/nonexistent "$B" check $F/rocm_gfx90a.pt2 --sysfs-root $AMD --device cuda:1
same "$(echo "$OUT" | head -1 | cut -d: -f1-3)" "rocm:1: compatible"
expect 0 env PT2SCOPE_LIBCUDA=/nonexistent "$B" gpus --sysfs-root=$AMD
same "$(echo "$OUT" | grep '^rocm')" "$(printf 'rocm:0      AMD Instinct MI210/MI250/MI250X (CDNA2), gfx90a, 110 compute units, 0000:c1:00.0\nrocm:1      AMD Instinct MI210/MI250/MI250X (CDNA2), gfx90a, 110 compute units, 0000:c6:00.0')"
expect 0 env PT2SCOPE_LIBCUDA=/nonexistent "$B" gpus --sysfs-root $AMD --json
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([g["gfx"] for g in d["amd_gpus"]], d["amd_reason"], d["count"])')" "['gfx90a', 'gfx90a'] None 0"
expect 0 env PT2SCOPE_LIBCUDA=/nonexistent "$B" check-kernel tests/fixtures/bins/amdgpu/gfx1100.hsaco --target gfx1100
expect 2 env PT2SCOPE_LIBCUDA=/nonexistent "$B" check-kernel tests/fixtures/bins/amdgpu/gfx1100.hsaco --sysfs-root /nonexistent
expect 0 "$B" check-kernel tests/fixtures/bins/cubin_cuda13/sm_90a.cubin --target H100
expect 1 "$B" check-kernel tests/fixtures/bins/cubin_cuda13/sm_90a.cubin --target 10.0
expect 0 env PT2SCOPE_LIBCUDA=/nonexistent "$B" gpus --json

# This node through the stand-in CUDA driver (same C ABI as libcuda.so.1).
FAKE=${PT2SCOPE_BUILD:-build}/fakecuda/libcuda.so.1
if [ -f "$FAKE" ]; then
    export PT2SCOPE_FAKECUDA_DEVICES="NVIDIA H100 80GB HBM3,9.0,132,85899345920;NVIDIA A100-SXM4-40GB,8.0,108,42949672960"
    export PT2SCOPE_FAKECUDA_DRIVER=13000
    expect 0 "$B" gpus --json --libcuda "$FAKE"
    same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["driver_cuda"], [g["name"] + " " + g["compute_capability"] for g in d["gpus"]])')" \
         "13.0 ['NVIDIA H100 80GB HBM3 9.0', 'NVIDIA A100-SXM4-40GB 8.0']"
    expect 0 env PT2SCOPE_LIBCUDA="$FAKE" "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --libcuda "$FAKE"
    expect 1 env PT2SCOPE_LIBCUDA="$FAKE" "$B" check $F/cuda_sm90a_v8.pt2 --device cuda:1
    same "$(echo "$OUT" | head -1)" "cuda:1: incompatible: kernels are sm_90a only; NVIDIA A100-SXM4-40GB (cuda:1) is 8.0"
    expect 2 env PT2SCOPE_LIBCUDA="$FAKE" "$B" check $F/cuda_sm90a_v8.pt2 --device cuda:7
    expect 0 env PT2SCOPE_LIBCUDA="$FAKE" "$B" check-kernel tests/fixtures/bins/cubin_cuda13/sm_90a.cubin --device cuda:0
    unset PT2SCOPE_FAKECUDA_DEVICES PT2SCOPE_FAKECUDA_DRIVER
else
    echo "cli: $FAKE not built; run 'make test-shell'"; fail=$((fail+1))
fi

# One verdict per Kubernetes node (GPU Feature Discovery labels).
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --nodes $F/k8s/nodes.json
same "$(echo "$OUT" | grep -v '^  advice: ' | cut -d: -f1-2)" "$(printf 'gpu-h100-a: compatible\ngpu-a100-b: incompatible\ncpu-arm-c: incompatible')"
same "$(echo "$OUT" | sed -n 2p)" "gpu-a100-b: incompatible: kernels are sm_90a only; A100-SXM4-40GB is 8.0"
expect 1 "$B" check $F/cpu_x86_64.pt2 --nodes $F/k8s/nodes.json --json
same "$(echo "$OUT" | python3 -c 'import json,sys; print(" ".join(n["verdict"] for n in json.load(sys.stdin)["nodes"]))')" "compatible compatible incompatible"
# Node Feature Discovery's CPU labels: the AVX-512 -march=native package dies with SIGILL on the
# AVX2-only node, runs on the AVX-512 one; a node without NFD labels keeps unknown CPU features.
expect 1 "$B" check $F/cpu_x86_64.pt2 --nodes $F/k8s/nodes_nfd.json
same "$(echo "$OUT" | grep -v '^  advice: ' | cut -d: -f1-2)" "$(printf 'cpu-epyc-avx2: incompatible\ngpu-h100-avx512: compatible\ncpu-no-nfd: compatible\ncpu-arm-sve2: incompatible')"
same "$(echo "$OUT" | head -1)" "cpu-epyc-avx2: incompatible: cpu: package needs AVX-512 (avx512f, avx512dq, avx512vl, avx512bw missing); this CPU has avx2"
same "$(echo "$OUT" | grep '^cpu-no-nfd' | grep -c "CPU features are unknown")" "1"
expect 1 "$B" check $F/cpu_avx2_cmd.pt2 --nodes $F/k8s/nodes_nfd.json --json
same "$(echo "$OUT" | python3 -c 'import json,sys; print(" ".join(n["verdict"] + ":" + ",".join(n["cpu_features"] or ["-"]) for n in json.load(sys.stdin)["nodes"]))')" \
    "compatible:avx,avx2,fma,aes,sha_ni,movbe,adx,sse4a compatible:avx,avx2,fma,avx512f,avx512cd,avx512dq,avx512bw,avx512vl,avx512_vnni,amx_tile,movbe compatible:- incompatible:fp,asimd,asimddp,sve,sve2,i8mm,bf16"
expect 2 "$B" check $F/cpu_x86_64.pt2 --nodes $F/no_such_nodes.json
expect 2 "$B" check $F/cpu_x86_64.pt2 --nodes $F/cuda_sm90a_v8.pt2

# Package text with terminal escapes is rendered harmless.
T=$(mktemp -d)
python3 - "$T/esc.pt2" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("archive_format", "pt2")
    z.writestr("data/aotinductor/model/x_metadata.json",
               '{"AOTI_DEVICE_KEY": "cpu", "k": "\u001b]0;pwned\u0007\u001b[2J"}')
PY
expect 0 "$B" inspect "$T/esc.pt2"
same "$(printf '%s' "$OUT" | grep -c "$(printf '\033')")" "0"
same "$(echo "$OUT" | grep '^  k = ')" "  k = ?]0;pwned??[2J"
# A metadata value with newlines prints line by line, indented under the value;
# a newline elsewhere (a name) cannot fake a line of the report.
python3 - "$T/nl.pt2" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("archive_format", "pt2")
    z.writestr("data/aotinductor/model\nWarning     fake/x_metadata.json",
               '{"AOTI_DEVICE_KEY": "cpu", "notes": "line one\\nline two"}')
PY
expect 0 "$B" inspect "$T/nl.pt2"
same "$(echo "$OUT" | grep -A1 '^  notes = ')" "$(printf '  notes = line one\n          line two')"
same "$(echo "$OUT" | grep -c '^Warning     fake')" "0"
rm -rf "$T"

# Identical kernels are one line with a count; .hsaco kernels say ROCm whatever the device key.
expect 0 "$B" inspect $F/cuda_sm90a_v8.pt2
same "$(echo "$OUT" | sed -n '/^Kernels/{n;p}')" "  sm_90a         sass   file       ELF ABI v8, CUDA 13.0  (2 kernels)"
expect 0 "$B" inspect $F/rocm_gfx90a.pt2
same "$(echo "$OUT" | grep '^Model dir')" "Model dir   model (ROCm, device key cuda, targets gfx90a:xnack-)"

# I/O that only the AOTI wrapper records (../shared/docs/aoti-wrapper-io.md): every violation, one line each.
expect 1 "$B" validate $F/cuda_check_functions_v8.pt2 --input arg0_1=1,10 --input arg1_1=3,99 --input arg2_1=4 --input arg3_1=8,6 --input arg4_1=8
same "$OUT" "$(printf '%s\n' "input 'arg0_1' axis 0: dynamic dim 's0' must be in [2, 1024], got 1" "input 'arg3_1' axis 1: expected 7, got 6")"
expect 0 "$B" validate $F/cuda_check_functions_v8.pt2 --input arg0_1=2,10 --input arg1_1=3,99 --input arg2_1=4 --input arg3_1=8,7 --input arg4_1=8
same "$OUT" "valid"
# A torch 2.4 wrapper records names only: valid, and a note says only names were checked.
expect 0 "$B" validate $F/cpu_names_only_v7.pt2 --input arg3_1=8,32 --input arg4_1=1
same "$OUT" "$(printf '%s\n' "valid" "note: the package records input names but not their shapes: only the names were checked")"
expect 1 "$B" validate $F/cpu_names_only_v7.pt2 --input arg3_1=8,32
same "$OUT" "$(printf '%s\n' "missing input 'arg4_1'" "note: the package records input names but not their shapes: only the names were checked")"
# A torch.save checkpoint named .pt2 is said to be one, with its own problem type.
expect 3 "$B" inspect $F/torch_save_checkpoint.pt2
same "$ERR" "pt2scope: $F/torch_save_checkpoint.pt2: a torch.save checkpoint (archive/data.pkl), not a .pt2 package; load it with torch.load"
expect 3 "$B" inspect $F/torch_save_checkpoint.pt2 --json
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["type"], d["status"])')" "https://pt2scope.dev/problems/torch-save-checkpoint 422"
same "$(echo "$ERR" | wc -l)" "1"

# scan: every package under files and folders, one line each, then a summary line; 1 when
# any is incompatible with a --target, 3 when any is a problem (3 wins), 2 for a path that
# is not there (nothing printed then) and when no package is found.
expect 0 "$B" scan $F/cuda_sm100f_v8.pt2 $F/cuda_fatbin_multi.pt2 $F/rocm_gfx90a.pt2 $F/cpu_x86_64.pt2
same "$OUT" "$(printf '%s\n' "$F/cuda_sm100f_v8.pt2  aoti  sm_100f" \
    "$F/cuda_fatbin_multi.pt2  aoti  sm_75, sm_80, sm_90a, sm_100f, sm_120+PTX, compute_90" \
    "$F/rocm_gfx90a.pt2  aoti  gfx90a:xnack-" "$F/cpu_x86_64.pt2  aoti  cpu x86_64 AVX-512" \
    "4 packages: 4 readable, 0 unreadable")"
expect 1 "$B" scan $F/cuda_sm90a_v8.pt2 $F/cuda_sm100f_v8.pt2 --target B200 --target H100
same "$OUT" "$(printf '%s\n' \
    "$F/cuda_sm90a_v8.pt2  aoti  sm_90a  B200: incompatible (kernels are sm_90a only; NVIDIA B200 is 10.0)  H100: compatible" \
    "$F/cuda_sm100f_v8.pt2  aoti  sm_100f  B200: compatible  H100: incompatible (kernels are sm_100f only; NVIDIA H100 is 9.0)" \
    "2 packages: 0 compatible, 2 incompatible, 0 unreadable")"
# PTX JIT is a way to run: not a failure.
expect 0 "$B" scan $F/cuda_fatbin_v7_lz4.pt2 --target=B200
same "$OUT" "$(printf '%s\n' "$F/cuda_fatbin_v7_lz4.pt2  aoti  sm_75, sm_90+PTX, sm_90a+PTX  B200: compatible-ptx-jit" \
    "1 package: 1 compatible, 0 incompatible, 0 unreadable")"
# A package that does not open is a line with its problem, and exit 3.
expect 3 "$B" scan $F/cpu_x86_64.pt2 $F/broken_not_zip.pt2
same "$(echo "$OUT" | tail -2)" "$(printf '%s\n' "$F/broken_not_zip.pt2  error  not-a-zip: not a zip archive (no end-of-central-directory record)" \
    "2 packages: 1 readable, 1 unreadable")"
# A folder: its *.pt2, recursively, sorted; hidden names and other files skipped.
T=$(mktemp -d)
mkdir -p "$T/models/team" "$T/models/.cache"
cp $F/cuda_sm90a_v8.pt2 "$T/models/team/b.pt2"
cp $F/cpu_x86_64.pt2 "$T/models/a.pt2"
cp $F/cpu_x86_64.pt2 "$T/models/.cache/c.pt2"
cp $F/cpu_x86_64.pt2 "$T/models/team/notes.txt"
ln -s "$T/models/team" "$T/models/link"
expect 0 "$B" scan "$T/models/"
same "$OUT" "$(printf '%s\n' "$T/models/a.pt2  aoti  cpu x86_64 AVX-512" "$T/models/team/b.pt2  aoti  sm_90a" \
    "2 packages: 2 readable, 0 unreadable")"
# --json: an array of the listing's items (pt2_listing_item), one per line.
expect 1 "$B" scan "$T/models" --json --target B200
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d), [(i["name"][-10:], i["kind"], i["device"], i["targets"], i["models"], i["overall"]["verdict"]) for i in d])')" \
    "2 [('dels/a.pt2', 'aoti', 'cpu', 'cpu x86_64 AVX-512', 1, 'compatible'), ('team/b.pt2', 'aoti', 'cuda', 'sm_90a', 1, 'incompatible')]"
same "$(echo "$OUT" | wc -l)" "4"
same "$ERR" ""
rm -rf "$T"
# No package at all: 2, whatever the format.
expect 2 "$B" scan $F/k8s --json
same "$OUT" "[]"
same "$ERR" "pt2scope: scan: no packages (*.pt2) found"
expect 2 "$B" scan $F/cuda_sm90a_v8.pt2 $F/missing.pt2
same "$OUT" ""
same "$ERR" "pt2scope: $F/missing.pt2: No such file or directory"
expect 2 "$B" scan
same "$ERR" "pt2scope: usage: scan needs at least one file or folder"
expect 2 "$B" scan $F --target H999
same "$(echo "$ERR" | wc -l)" "1"
expect 2 "$B" scan $F --device cuda:0
same "$ERR" "pt2scope: usage: scan does not take --device"

# advice: one indented line under every verdict that is not simply compatible, the library's
# text (the same in --json, /v1/inspect, /v1/compatibility); none under a compatible one.
A80='  advice: Rebuild with TORCH_CUDA_ARCH_LIST="8.0;9.0a" (or "8.0+PTX;9.0a", adding PTX for forward compatibility) and aot_inductor.emit_multi_arch_kernel=True, so the package carries code for 8.0.'
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target 8.0
same "$OUT" "$(printf '%s\n' "8.0: incompatible: kernels are sm_90a only; the target is compute capability 8.0" "$A80")"
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --target 8.0
same "$(echo "$OUT" | grep -c '^  advice: ')" "2"
same "$(echo "$OUT" | tail -1)" "$A80"
expect 1 "$B" check $F/cuda_fatbin_multi.pt2 --target B200 --driver 12.4
# its sm_100f cubin is CUDA 13 (ABI v8): branch 570 would support the B200 and still not load
# it; the advice names the one branch that does (with 13.0 the package is compatible)
same "$(echo "$OUT" | sed -n 2p)" "  advice: Upgrade the NVIDIA driver to branch 580 or newer (CUDA 13.0), the first that supports NVIDIA B200 and runs the package's kernels."
expect 0 "$B" check $F/cuda_fatbin_multi.pt2 --target B200 --driver 13.0
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --driver 12.4
same "$(echo "$OUT" | sed -n 2p)" "  advice: Upgrade the NVIDIA driver to branch 580 or newer (CUDA 13.0) to load these CUDA 13 cubins, or rebuild the package with a CUDA 12.x toolkit (a torch built for CUDA 12)."
expect 0 "$B" check $F/cuda_fatbin_multi.pt2 --target 11.0
same "$(echo "$OUT" | sed -n 2p | cut -c1-60)" "  advice: The driver JIT-compiles this PTX when the package "
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target 8.0 --target H100 --json
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["compatibility"][0]["advice"] == d["overall"]["advice"], d["compatibility"][1]["advice"])')" "True None"
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --nodes $F/k8s/nodes.json
same "$(echo "$OUT" | sed -n 3p)" "$A80"
expect 1 "$B" check-kernel $F/bins/cubin_cuda13/sm_90a.cubin --target 8.0
same "$(echo "$OUT" | tail -1)" "$A80"

# affinity: the nodeAffinity selecting the nodes a package runs on (JSON, or --yaml for a
# manifest); 1 when no node can run it (the selector then matches nothing), 2 for errors.
expect 0 "$B" affinity $F/cuda_sm90a_v8.pt2
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin)["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]; print(len(d), [e["key"] + " " + e["operator"] for e in d[0]["matchExpressions"]])')" \
    "4 ['nvidia.com/gpu.count NotIn', 'nvidia.com/gpu.compute.major In', 'nvidia.com/gpu.compute.minor In', 'nvidia.com/cuda.runtime-version.major Gt', 'kubernetes.io/arch In', 'feature.node.kubernetes.io/cpu-cpuid.AVX512F In', 'feature.node.kubernetes.io/cpu-cpuid.AVX512DQ In', 'feature.node.kubernetes.io/cpu-cpuid.AVX512VL In', 'feature.node.kubernetes.io/cpu-cpuid.AVX512BW In', 'feature.node.kubernetes.io/cpu-cpuid.FMA3 In', 'kubernetes.io/os In']"
same "$(echo "$OUT" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))')" \
    "$("$B" inspect $F/cuda_sm90a_v8.pt2 --json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["scheduling"]["node_affinity"], sort_keys=True))')"
expect 0 "$B" affinity $F/cpu_aarch64.pt2 --yaml
# NEON code: an arm64 node NFD labels with ASIMD, or one without NFD CPU labels (a comment says so).
same "$(echo "$OUT" | head -16)" "$(printf '%s\n' "# pt2scope affinity $F/cpu_aarch64.pt2: the nodes it runs on, by their GPU Feature Discovery labels" \
    '# CPU: a node with Node Feature Discovery labels must have feature.node.kubernetes.io/cpu-cpuid.ASIMD=true (arm64); a node without NFD CPU labels is selected too, its CPU features unknown' \
    'affinity:' '  nodeAffinity:' '    requiredDuringSchedulingIgnoredDuringExecution:' '      nodeSelectorTerms:' \
    '      - matchExpressions:' '        - key: "kubernetes.io/arch"' '          operator: "In"' '          values: ["arm64"]' \
    '        - key: "feature.node.kubernetes.io/cpu-cpuid.ASIMD"' '          operator: "In"' '          values: ["true"]' \
    '        - key: "kubernetes.io/os"' '          operator: "In"' '          values: ["linux"]')"
same "$(echo "$OUT" | grep -c '^      - matchExpressions:$') $(echo "$OUT" | grep -c 'operator: "DoesNotExist"')" "2 19"
expect 0 "$B" affinity $F/cuda_sm90a_v8.pt2 --yaml
same "$(echo "$OUT" | grep -c '^      - matchExpressions:$')" "4"
same "$(echo "$OUT" | grep -A2 'runtime-version.major"$' | head -3 | tr -d ' ')" "$(printf '%s\n' '-key:"nvidia.com/cuda.runtime-version.major"' 'operator:"Gt"' 'values:["12"]')"
# The YAML is the JSON: a YAML 1.2 reader (here: the JSON-compatible subset, by hand) gets the same tree.
same "$(echo "$OUT" | python3 -c '
import json, re, sys
lines = [l for l in sys.stdin.read().splitlines() if l and not l.startswith("#")]
def parse(i, ind):
    if lines[i].lstrip().startswith("- "):
        out = []
        while i < len(lines) and lines[i].startswith(" " * ind + "- "):
            lines[i] = lines[i].replace("- ", "  ", 1)
            v, i = parse(i, ind + 2); out.append(v)
        return out, i
    out = {}
    while i < len(lines) and len(lines[i]) - len(lines[i].lstrip()) == ind and not lines[i].lstrip().startswith("- "):
        k, _, v = lines[i].strip().partition(":")
        v = v.strip(); i += 1
        if v: out[k] = json.loads(v)
        else:
            nxt = len(lines[i]) - len(lines[i].lstrip())
            out[k], i = parse(i, nxt)
    return out, i
print(json.dumps(parse(0, 0)[0]["affinity"]["nodeAffinity"], sort_keys=True))')" \
    "$("$B" affinity $F/cuda_sm90a_v8.pt2 | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))')"
expect 1 "$B" affinity $F/rocm_gfx90a.pt2
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin)["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]; print(d)')" \
    "[{'matchExpressions': [{'key': 'pt2scope.dev/no-compatible-node', 'operator': 'Exists'}, {'key': 'pt2scope.dev/no-compatible-node', 'operator': 'DoesNotExist'}]}]"
expect 2 "$B" affinity $F/cuda_sm90a_v8.pt2 --json --yaml
same "$ERR" "pt2scope: usage: --json and --yaml exclude each other"
expect 2 "$B" affinity $F/cuda_sm90a_v8.pt2 --target H100
same "$ERR" "pt2scope: usage: affinity does not take --target"
expect 2 "$B" affinity
same "$ERR" "pt2scope: usage: no package file given"
expect 3 "$B" affinity $F/broken_bad_aoti_json.pt2 --json
same "$(echo "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["type"])')" "https://pt2scope.dev/problems/metadata-invalid"

# inspect --oip: the metadata is the Open Inference Protocol's model metadata response.
expect 0 "$B" inspect $F/export_program.pt2 --json --oip
same "$(echo "$OUT" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["metadata"]))')" \
    '{"name": "SegmentationNet", "platform": "pytorch_export", "inputs": [{"name": "image", "datatype": "FP32", "shape": [-1, 3, 512, 512]}, {"name": "scale", "datatype": "FP32", "shape": [-1]}], "outputs": [{"name": "mask", "datatype": "FP32", "shape": [-1, 1, 512, 512]}]}'
expect 0 "$B" inspect $F/export_program.pt2 --oip
same "$(echo "$OUT" | sed -n '/^Model /,/^Outputs/p' | head -3)" "$(printf '%s\n' 'Model       SegmentationNet (pytorch_export)' 'Inputs' '  image            FP32       (-1, 3, 512, 512)')"

# --platform: the OS/arch of the --target nodes judges the host library (x86_64 here).
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --driver 13.0 --platform linux/arm64
same "$OUT" "$(printf '%s\n' "H100: incompatible: the model library data/aotinductor/model/czqbiwbc5ruvbr4zkawxjx7advwcp5f3dw36ortm6fg3dzsvbmy3.wrapper.so is a Linux x86_64 library; a node with NVIDIA H100 runs Linux on arm64" "  advice: Re-export the package on Linux (arm64) with the torch you serve with: AOTInductor compiles for the platform it runs on.")"
expect 0 "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --driver 13.0 --platform linux/amd64 --json
same "$(echo "$OUT" | python3 -c 'import json,sys; e=json.load(sys.stdin)["compatibility"][0]; print(e["code"], e["device"]["platform"])')" "compatible linux/amd64"
expect 1 "$B" scan $F/cuda_sm90a_v8.pt2 --target H100 --driver 13.0 --platform windows/amd64
same "$(echo "$OUT" | tail -1)" "1 package: 0 compatible, 1 incompatible, 0 unreadable"
expect 2 "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --platform bsd/x
same "$ERR" "pt2scope: --platform: unknown platform 'bsd/x': use linux/amd64, linux/arm64 or windows/amd64"
expect 2 "$B" check $F/cuda_sm90a_v8.pt2 --platform linux/amd64
same "$ERR" "pt2scope: usage: --platform is the platform of the --target nodes; give a --target"
expect 2 "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --device cuda:0
same "$ERR" "pt2scope: usage: --device picks one of this node's GPUs; it takes no --target"
# check --json with targets is exactly /v1/inspect's compatibility and overall (tests/http: the
# daemon judges the targets only, as here).
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target H100 --target 8.0 --json
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted(d), [e["kind"] for e in d["compatibility"]])')" "['compatibility', 'overall'] ['target', 'target']"

# --nodes: every node verdict and each of its checks carry a code too.
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --nodes $F/k8s/nodes.json --json
same "$(echo "$OUT" | python3 -c 'import json,sys; print([(n["name"], n["code"], n["checks"]["gpu"]["code"], n["checks"]["cpu"]["code"]) for n in json.load(sys.stdin)["nodes"]])')" "[('gpu-h100-a', 'compatible', 'compatible', 'compatible'), ('gpu-a100-b', 'arch-mismatch', 'arch-mismatch', 'compatible'), ('cpu-arm-c', 'no-gpu', 'no-gpu', 'host-platform')]"

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]

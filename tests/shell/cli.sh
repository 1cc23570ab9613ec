#!/usr/bin/env bash
# CLI contract: exit codes (0 ok, 1 negative, 2 error), one-line errors on
# stderr, and the exact verdict lines pipelines grep for.
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
same "$OUT" "H100: compatible: sm_90a cubin runs on NVIDIA H100; it needs a CUDA 13.0+ driver (ELF ABI v8), driver version unknown"
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target A100
same "$OUT" "A100: incompatible: kernels are sm_90a only; NVIDIA A100 is 8.0"
expect 1 "$B" check $F/cuda_sm90a_v8.pt2 --target 9.0 --target 8.0
expect 0 "$B" check $F/cuda_fatbin_multi.pt2 --target 11.0
same "${OUT%%:*}" "11.0"
expect 1 "$B" check $F/cuda_fatbin_multi.pt2 --target H100 --driver 12.4
expect 0 "$B" check $F/cuda_sm90a_v8.pt2 --target sm_90a --json
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["compatibility"][0]["verdict"], d["overall"]["verdict"], d["overall"]["reason"][:18])')" "compatible compatible sm_90a: sm_90a cub"
# getopt_long: --opt=value, options before the file, help for a command.
expect 1 "$B" check --target=A100 $F/cuda_sm90a_v8.pt2
same "$OUT" "A100: incompatible: kernels are sm_90a only; NVIDIA A100 is 8.0"
expect 0 "$B" inspect --help
same "$(echo "$OUT" | head -1)" "usage: pt2scope <command> [options]"
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
expect 2 "$B" inspect $F/broken_not_zip.pt2
same "$ERR" "pt2scope: $F/broken_not_zip.pt2: not a zip archive (no end-of-central-directory record)"
expect 2 "$B" inspect $F/broken_truncated.pt2
expect 2 "$B" inspect $F/no_such_file.pt2
expect 2 "$B" inspect
expect 2 "$B" frobnicate
expect 0 "$B" --help
expect 0 "$B" version
# No driver here: a CUDA package cannot run; the CPU verdict still comes, the overall says why.
expect 1 env PT2SCOPE_LIBCUDA=/nonexistent/libcuda.so.1 "$B" check $F/cuda_sm90a_v8.pt2 --sysfs-root /nonexistent
same "$(echo "$OUT" | cut -d: -f1)" "$(printf 'cpu\noverall')"
same "$(echo "$OUT" | sed -n 2p)" "overall: incompatible: the package needs an NVIDIA GPU (sm_90a); this node has none: /nonexistent/libcuda.so.1 not found: no NVIDIA driver installed (dlopen: /nonexistent/libcuda.so.1: cannot open shared object file: No such file or directory)"
expect 1 env PT2SCOPE_LIBCUDA=/nonexistent/libcuda.so.1 "$B" check $F/cuda_sm90a_v8.pt2 --json
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted(d), len(d["compatibility"]), d["overall"]["verdict"])')" "['compatibility', 'overall'] 1 incompatible"
# This node's AMD GPUs from a stand-in KFD topology.
AMD=tests/fixtures/sysfs/mi250x2
expect 0 env PT2SCOPE_LIBCUDA=/nonexistent "$B" check $F/rocm_gfx90a.pt2 --sysfs-root $AMD
same "$(echo "$OUT" | cut -d: -f1-3 | sed -n '1,2p;4p')" "$(printf 'rocm:0: compatible\nrocm:1: compatible\noverall: compatible: rocm')"
expect 1 env PT2SCOPE_LIBCUDA=/nonexistent PT2SCOPE_SYSFS_ROOT=$AMD "$B" check $F/cuda_sm90a_v8.pt2
same "$(echo "$OUT" | tail -1)" "overall: incompatible: the package needs an NVIDIA GPU (sm_90a); this node has none (its GPUs: AMD rocm:0, rocm:1)"
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
same "$(echo "$OUT" | cut -d: -f1-2)" "$(printf 'gpu-h100-a: compatible\ngpu-a100-b: incompatible\ncpu-arm-c: incompatible')"
same "$(echo "$OUT" | sed -n 2p)" "gpu-a100-b: incompatible: kernels are sm_90a only; A100-SXM4-40GB is 8.0"
expect 1 "$B" check $F/cpu_x86_64.pt2 --nodes $F/k8s/nodes.json --json
same "$(echo "$OUT" | python3 -c 'import json,sys; print(" ".join(n["verdict"] for n in json.load(sys.stdin)["nodes"]))')" "compatible compatible incompatible"
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
rm -rf "$T"

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
expect 2 "$B" inspect $F/torch_save_checkpoint.pt2
same "$ERR" "pt2scope: $F/torch_save_checkpoint.pt2: a torch.save checkpoint (archive/data.pkl), not a .pt2 package; load it with torch.load"
expect 2 "$B" inspect $F/torch_save_checkpoint.pt2 --json
same "$(echo "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["type"], d["status"])')" "https://pt2scope.dev/problems/torch-save-checkpoint 422"
same "$(echo "$ERR" | wc -l)" "1"

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]

/*
 * pt2_compat.h - does a package run on this GPU / this CPU?
 *
 * Design: the rules of FORMATS.md §10 applied to the typed facts
 * of pt2_model.h, in one place, so the CLI, the daemon's /v1/inspect,
 * per-node checks and the tests all agree. A verdict is one of
 * PT2_COMPATIBLE (a cubin / host binary runs as is), PT2_COMPATIBLE_PTX_JIT
 * (only PTX matches: the driver will JIT-compile it at first load) and
 * PT2_INCOMPATIBLE, with one sentence that names the package's targets and
 * the device. Parsing what users name (targets, driver versions) is
 * pt2_target's.
 *
 * NVIDIA rules, device CC M.m, kernel SM s (SM 101 and CC 10.1, Thor's
 * numbering before CUDA 13, are treated as 110 / 11.0):
 *   cubin sm_s / sm_sf   runs if M == s/10 and m >= s%10
 *   cubin sm_sa          runs if M.m == s exactly
 *   PTX compute_s        JIT if M*10+m >= s, and the driver supports its ISA
 *   PTX compute_sf / _sa JIT as the cubin rules, and the driver supports its ISA
 * With a known driver version (dev->driver_cuda_version != 0): ELF ABI v8
 * cubins need CUDA 13.0+, PTX ISA x.y needs the CUDA release that introduced
 * it (8.4 -> 12.4, 9.0 -> 13.0), and the GPU itself needs a new enough driver
 * (CC 10.0/12.0 -> 12.8, 10.3/12.1 -> 12.9, 11.0 -> 13.0). An unknown driver
 * is assumed new enough and the reason says so where it matters.
 * Device-link stubs (SASS with has_code == 0) are ignored.
 *
 * AMD rules: a code object runs on a device with exactly its gfx; an xnack or
 * sramecc setting of on/off must equal the device's when the device target
 * names that feature ("gfx90a:xnack-"); "any" always matches.
 *
 * Advice: every verdict that is not PT2_COMPATIBLE also gets `advice`, one or
 * two sentences a person can act on, written where the rule that decided it
 * fires, from the same typed facts: the driver branch to install (from the
 * branch table below), the TORCH_CUDA_ARCH_LIST / PYTORCH_ROCM_ARCH to
 * rebuild with (the package's own targets plus the device's), the
 * CPU_CAPABILITY a CPU package can be rebuilt for, or where to run it.
 *
 * Ownership: all inputs are borrowed; results go to caller structs.
 */
#ifndef PT2_COMPAT_H
#define PT2_COMPAT_H

#include <stddef.h>

#include <cJSON.h>

#include "pt2_model.h"

/*
 * GPU verdict for the package's kernels on *dev.
 * device_key: AOTI_DEVICE_KEY ("cpu", "cuda", "xpu", ...) or NULL.
 * meta_cc:    AOTI_COMPUTE_CAPABILITY ("90", "gfx90a") or NULL; used only
 *             when no kernel binary was found (it then stands for a plain
 *             sm_90 cubin or a gfx90a code object).
 * Without GPU kernels: key "cpu" or no key -> CPU-only, PT2_COMPATIBLE;
 * another non-CUDA key ("xpu", "mps", "npu") -> PT2_INCOMPATIBLE on an
 * NVIDIA/AMD device; "cuda" without AOTI_COMPUTE_CAPABILITY ->
 * PT2_INCOMPATIBLE ("cannot tell").
 * A device with cc 0.0 and no gfx has no GPU. dev->name (or, if empty,
 * "compute capability X.Y" / "AMD <gfx>") is the device named in the reason;
 * a driver_cuda_version <= 0 is unknown.
 * Returns PT2_OK with *out filled, or PT2_ERR_INVALID for NULL dev/out or a
 * compute capability outside 0.0-99.9. `kernels` may be NULL (= none).
 */
int pt2_compat_gpu(const struct pt2_kernel_list *kernels, const char *device_key,
                   const char *meta_cc, const struct pt2_device *dev,
                   struct pt2_verdict_result *out, struct pt2_error *err);

/* The verdict alone (enum pt2_verdict into *verdict), decided by the same code as
 * pt2_compat_gpu but building no reason and no advice: for callers that judge
 * one package on many devices (pt2_affinity). */
int pt2_compat_gpu_verdict(const struct pt2_kernel_list *kernels, const char *device_key,
                           const char *meta_cc, const struct pt2_device *dev, int *verdict,
                           struct pt2_error *err);

/*
 * CPU verdict for the package's host binaries on a Linux node.
 * node_machine: `uname -m` of the node ("x86_64", "aarch64"; "amd64" and
 *               "arm64" are accepted as the same) or NULL if unknown.
 * node_features: the node's /proc/cpuinfo flags (any case), or NULL/0 when
 *               unknown, in which case the ISA is not checked.
 * Every host binary must be a Linux ELF for the node's machine (a Mach-O
 * dylib or a Windows DLL never loads on Linux); then every feature of
 * pt2_isa_required_features(isa) must be present. A -march=native build is
 * mentioned as a warning but is not by itself a failure. `hosts` and `isa`
 * may be NULL. Returns PT2_OK with *out filled, or PT2_ERR_INVALID for NULL
 * out or a nfeatures > 0 with NULL node_features.
 */
int pt2_compat_cpu(const struct pt2_host_list *hosts, const struct pt2_cpu_isa *isa,
                   const char *node_machine, const char *const *node_features, size_t nfeatures,
                   struct pt2_verdict_result *out, struct pt2_error *err);

/*
 * The CUDA version (12080 form) a driver must support to load NVIDIA kernel `k` on any GPU
 * it runs on: 13.0 for a CUDA 13 cubin, the PTX ISA's driver for PTX, at least the floor of
 * its architecture's GPUs (pt2_compat_device_min_driver); 0 when nothing is known (and for
 * AMD code objects). The rule the verdicts apply, per kernel, for the report.
 */
int pt2_compat_kernel_min_driver(const struct pt2_kernel *k);

/* Minimum CUDA driver version (12040 form) for PTX ISA major.minor; 0 if unknown. */
int pt2_compat_ptx_min_driver(unsigned ptx_major, unsigned ptx_minor);

/* The driver (12080 form) GPU major.minor needs at all (10.0 -> 12080, 11.0 -> 13000);
 * 0 when there is no floor worth checking. */
int pt2_compat_device_min_driver(int major, int minor);
/* The i-th GPU with such a floor: its driver, major and minor; 0 past the table. */
int pt2_compat_device_floor_at(size_t i, int *major, int *minor);

/*
 * NVIDIA's driver branches and the CUDA version each first shipped with (CUDA
 * Toolkit release notes, "CUDA Toolkit and Corresponding Driver Versions":
 * 450 -> 11.0 ... 550 -> 12.4, 570 -> 12.8, 575 -> 12.9, 580 -> 13.0), one
 * table for both directions:
 *   pt2_compat_branch_cuda: the CUDA version (12080 form) of the newest known
 *     branch not above `branch`; 0 below branch 450.
 *   pt2_compat_cuda_branch: the first branch that supports CUDA `cuda` (12080
 *     form; 13000 -> 580); 0 past the table.
 */
int pt2_compat_branch_cuda(int branch);
int pt2_compat_cuda_branch(int cuda);

#endif

/*
 * pt2_k8s.h - Kubernetes nodes as GPU Feature Discovery describes them, and
 * whether a package runs on each.
 *
 * Design: the input is what `kubectl get nodes -o json` prints (a List or
 * NodeList, {"items": [...]}), a bare array of Node objects, or one Node.
 * Only metadata.name, metadata.labels and status.nodeInfo are read; the
 * labels are NVIDIA GPU Feature Discovery's (GFD, k8s-device-plugin
 * docs/gpu-feature-discovery) and the well-known kubernetes.io/arch and
 * kubernetes.io/os:
 *
 *   nvidia.com/gpu.compute.major/.minor     compute capability (preferred)
 *   nvidia.com/gpu.product                  "A100-SXM4-40GB"; gives the CC
 *                                           through pt2_desc_gpu_lookup() when
 *                                           the compute labels are missing
 *   nvidia.com/gpu.count                    "0" marks a node without GPUs
 *   nvidia.com/cuda.runtime-version.full    CUDA version the driver supports
 *   nvidia.com/cuda.runtime-version.major/.minor, nvidia.com/cuda.runtime.major/.minor
 *                                           the same (current / deprecated names)
 *   nvidia.com/cuda.driver-version.*, nvidia.com/cuda.driver.major/.minor/.rev
 *                                           the driver itself (570.124.06); used
 *                                           for the CUDA version only when no
 *                                           runtime label exists: a major below
 *                                           100 is read as a CUDA version
 *                                           ("12"/"8" = 12.8, as hand-written
 *                                           labels do), a driver branch maps to
 *                                           the CUDA version it first shipped
 *                                           with (570 -> 12.8, a lower bound)
 *   kubernetes.io/arch (or status.nodeInfo.architecture), kubernetes.io/os
 *   feature.node.kubernetes.io/cpu-cpuid.<FLAG>
 *                                           Node Feature Discovery's CPU labels
 *                                           ("true"), named as pt2_nfd's table
 *                                           names them for the node's
 *                                           architecture
 *
 * A node is a GPU node when it has compute labels or a product label and
 * its gpu.count is not "0"; otherwise it is CPU-only (GPUs of other vendors
 * are not recognised). Malformed label values are ignored and named in the
 * node's `note`, so one bad node never fails a whole cluster check;
 * malformed structure (no items, a node without a name) is an error.
 *
 * Verdicts combine the GPU check (pt2_package_check_device with the node's
 * compute capability and driver) and the CPU check (pt2_package_check_cpu
 * with the node's architecture and CPU features). The worse of the two
 * decides. A node's CPU features are known when it carries at least one
 * cpu-cpuid label that NFD writes by default for its architecture
 * (pt2_nfd_decides); then every feature the package needs that NFD labels
 * by default must be labelled "true", and the ones NFD's default
 * configuration leaves out (f16c, sse4_2, popcnt...) cannot be told from the
 * labels: they count as present unless labelled, and the reason names them
 * as not checked. A node
 * without such labels has unknown CPU features: the ISA is reported, not
 * checked.
 *
 * Ownership: struct pt2_k8s_nodes owns its array (pt2_k8s_nodes_free
 * accepts NULL and zeroed lists); the input cJSON stays the caller's.
 * cJSON documents returned through `cJSON **` belong to the caller.
 */
#ifndef PT2_K8S_H
#define PT2_K8S_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "pt2_error.h"
#include "pt2_nfd.h"

/* PT2_K8S_NODES_MAX and PT2_K8S_TEXT_MAX are public (pt2scope.h). */
#define PT2_K8S_NAME_MAX 254 /* DNS subdomain: 253 characters */

struct pt2_k8s_node {
    char name[PT2_K8S_NAME_MAX];                /* metadata.name */
    int has_gpu;                                /* 1 for an NVIDIA GPU node (see above) */
    struct pt2_device dev;                      /* CC (0.0 when unknown), driver CUDA version
                                                   (0 unknown), name "<product> (<cc>)" */
    int count;                                  /* nvidia.com/gpu.count; -1 when absent */
    char product[128];                          /* nvidia.com/gpu.product; "" when absent */
    char driver_version[32];                    /* "570.124.06"; "" when unknown */
    char arch[32];                              /* "amd64" as labelled; "" when unknown */
    char machine[32];                           /* uname spelling ("x86_64"), else arch as is */
    char os[32];                                /* "linux"; "" when unknown */
    char note[256];                             /* labels that were ignored and why; "" if none */
    int cpu_known;                              /* 1 when NFD labels describe the CPU (see above) */
    uint64_t cpu_flags[PT2_NFD_FLAGS_MAX / 64]; /* pt2_nfd_at(i) labelled "true": bit i */
};

struct pt2_k8s_nodes {
    struct pt2_k8s_node *v;
    size_t n;
};

/*
 * Parse a node document (see above) into *out. PT2_ERR_INVALID for a
 * document of another shape, a node that is not an object, or a missing,
 * empty, over-long or non-printable metadata.name (the message names the
 * node's index); PT2_ERR_TOO_LARGE past PT2_K8S_NODES_MAX nodes;
 * PT2_ERR_NOMEM. An empty list is fine (n = 0). *out is zeroed first and
 * left empty on failure.
 */
int pt2_k8s_parse(const cJSON *doc, struct pt2_k8s_nodes *out, struct pt2_error *err);

/* The same from JSON text (`len` bytes, no NUL needed; at most PT2_K8S_TEXT_MAX). */
int pt2_k8s_parse_text(const char *text, size_t len, struct pt2_k8s_nodes *out,
                       struct pt2_error *err);

/* Release the array of a caller-owned list (NULL and zeroed lists accepted). */
void pt2_k8s_nodes_clear(struct pt2_k8s_nodes *l);

/* "amd64" -> "x86_64", "arm64" -> "aarch64", "ppc64le", "s390x", "386" -> "i686",
 * "arm" -> "arm", "riscv64"; NULL for anything else. */
const char *pt2_k8s_arch_machine(const char *arch);
/* The i-th architecture label value pt2_k8s_arch_machine knows ("amd64"...); NULL past the end. */
const char *pt2_k8s_arch_at(size_t i);

/*
 * The CUDA version (12080 form) an NVIDIA driver branch first shipped with,
 * from NVIDIA's release notes (525 -> 12000 ... 570 -> 12080, 580 -> 13000):
 * the newest known branch not above `branch`. 0 below branch 450.
 */
int pt2_k8s_driver_branch_cuda(int branch);

struct pt2_k8s_verdict {
    int verdict;                   /* enum pt2_verdict: the worse of gpu and cpu */
    char reason[512];              /* the deciding check's reason (both when tied) */
    char advice[512];              /* the deciding check's advice; "" when compatible */
    char code[24];                 /* the deciding check's code (pt2_verdict_result.code) */
    struct pt2_verdict_result gpu; /* GPU check on this node */
    struct pt2_verdict_result cpu; /* host-code check on this node */
};

/* Verdict of `pkg` on one node. PT2_ERR_INVALID for NULL arguments. */
int pt2_k8s_check(const pt2_package *pkg, const struct pt2_k8s_node *node,
                  struct pt2_k8s_verdict *out, struct pt2_error *err);

/* Its host-code half alone (the node's OS, architecture and NFD CPU features),
 * as pt2_k8s_check uses it. */
int pt2_k8s_check_cpu(const pt2_package *pkg, const struct pt2_k8s_node *node,
                      struct pt2_verdict_result *out, struct pt2_error *err);

/*
 * The CPU features (/proc/cpuinfo spelling, static strings) the package's
 * host code needs on a node whose architecture it loads on: every model's
 * pt2_isa_required_features(), once each; none when the package has no
 * compiled model or no host binary (it runs wherever its host code loads).
 * At most `max` into out[], the count in *n; PT2_ERR_TOO_LARGE past `max`.
 */
int pt2_k8s_cpu_required(const pt2_package *pkg, const char **out, size_t max, size_t *n,
                         struct pt2_error *err);

/*
 * pt2_k8s_compat_json() is public (pt2scope.h). Per node entry:
 * {"name": "gpu-a",
 *  "gpu": {"product": "NVIDIA-H100-80GB-HBM3" | null, "count": 8 | null,
 *          "compute_capability": "9.0" | null, "driver_cuda_version": 12080 | null,
 *          "driver_version": "570.124.06" | null} | null,
 *  "arch": "amd64" | null, "machine": "x86_64" | null, "os": "linux" | null,
 *  "cpu_features": ["avx2", "fma", ...] | null   (NFD-labelled, cpuinfo spelling;
 *                                                  null when unknown),
 *  "verdict": "compatible", "reason": "...", "advice": null | "...",
 *  "checks": {"gpu": {"verdict", "reason", "advice"}, "cpu": {"verdict", "reason", "advice"}},
 *  "note": null | "..."}
 * Nodes that look alike (same GPU, driver, architecture, OS and CPU labels) are checked
 * once, so a large uniform cluster costs a few checks.
 */

#endif

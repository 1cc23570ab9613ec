/*
 * pt2_verdicts.h - the node rule shared by local nodes and Kubernetes nodes.
 *
 * Design: "does it run on this node?" is decided in one place. The public
 * pt2_verdicts object (pt2scope.h) applies it to this node's probe; pt2_k8s
 * applies it to nodes described by labels. A node's verdict is the best of
 * its GPUs of a kind the package needs, or incompatible (naming what is
 * missing) when it has none of that kind; combined with the CPU verdict,
 * the worse of the two wins (enum pt2_verdict is ordered best to worst).
 * The node's advice is that of the side that decided (both, when they
 * tie): the per-device rules write it (pt2_compat.h "Advice"), the node
 * rule only for "no GPU of the kind needed".
 *
 * Ownership: everything is borrowed; results go to caller structs.
 */
#ifndef PT2_VERDICTS_H
#define PT2_VERDICTS_H

#include <stddef.h>

#include "pt2_error.h"

/* What kind of GPU a package needs (bits). */
enum pt2_need {
    PT2_NEED_NVIDIA = 1, /* cubins, PTX, or a CUDA device key with an sm_ compute capability */
    PT2_NEED_AMD = 2,    /* AMD code objects, or a gfx compute capability */
    PT2_NEED_OTHER = 4   /* Intel XPU kernels, or another device key ("xpu", "mps") */
};

/* The bits of enum pt2_need for `pkg` (0 = CPU only) and, in `what`, the words for the
 * reason: "an NVIDIA GPU (sm_90a)", "an AMD GPU (gfx90a)", "an xpu device". */
unsigned pt2_verdicts_need(const pt2_package *pkg, char *what, size_t len);

/*
 * What model `model` runs on: "cuda", "rocm" (AMD code objects, even under
 * the device key "cuda" ROCm builds of torch write), "xpu", "cpu", or the
 * device key as recorded. Borrowed from the package or static.
 */
const char *pt2_verdicts_platform(const pt2_package *pkg, size_t model);

/* One GPU of a node, already checked. */
struct pt2_gpu_check {
    int vendor;                  /* enum pt2_gpu_vendor */
    char label[64];              /* "cuda:0", "rocm:1"; "" = the node's only GPU kind (k8s) */
    struct pt2_verdict_result r; /* pt2_package_check_device on it */
};

/*
 * The node rule. `gpus` are the node's (or the selected) GPUs, `absent` says
 * why the node shows no GPU of the needed kind ("libcuda.so.1 not found",
 * "this CPU-only node"), used only when that is the case; `cpu` is the CPU
 * verdict. Fills *gpu_part (the GPU side alone; compatible "no GPU needed"
 * for a CPU-only package) and *out (the node's verdict).
 */
void pt2_verdicts_node_rule(const pt2_package *pkg, const struct pt2_gpu_check *gpus, size_t n,
                            const char *absent, const struct pt2_verdict_result *cpu,
                            struct pt2_verdict_result *gpu_part, struct pt2_verdict_result *out);

/* The "code" a JSON verdict carries: `code`, or for a verdict decided without one its
 * own name ("compatible", "ptx-jit", "incompatible"). */
const char *pt2_verdicts_code(const char *code, int verdict);

/* Add "advice" to `o`: r->advice for a verdict other than compatible, else null.
 * 1, or 0 when out of memory. Every JSON verdict carries it the same way. */
int pt2_verdicts_add_advice(cJSON *o, const struct pt2_verdict_result *r);

#endif

/*
 * pt2_affinity.h - a Kubernetes nodeAffinity that selects exactly the nodes a
 * package runs on (pt2_package_node_affinity in pt2scope.h).
 *
 * Design: the selector is not a second copy of the compatibility rules. It
 * is the rules themselves, evaluated over every node a GPU Feature Discovery
 * label set can describe, then written as nodeSelectorTerms:
 *
 *   - the node rule of pt2_verdicts, as pt2_k8s applies it: a package that
 *     needs no GPU runs where its host code runs; one that needs an NVIDIA
 *     GPU runs where the GPU check and the host check both pass; one that
 *     needs another kind of GPU runs on no node GFD describes;
 *   - the host check (pt2_k8s_check_cpu) for every kubernetes.io/arch value
 *     pt2_k8s knows, with kubernetes.io/os=linux, and the CPU features the
 *     host code needs (pt2_k8s_cpu_required) as Node Feature Discovery labels
 *     them (pt2_nfd): where some are needed that NFD labels by default, each
 *     term is written twice, once requiring every such
 *     feature.node.kubernetes.io/cpu-cpuid.<FLAG> to be "true", once
 *     requiring the node to carry none of its architecture's default NFD
 *     labels (its CPU features are unknown, so pt2_k8s does not refuse it);
 *   - the GPU check (pt2_compat_gpu per model, the worst model deciding, as
 *     pt2_package_check_device does, on each model's distinct kernels) for
 *     compute capabilities 1.0-99.9 (what the labels can say) and, where
 *     the verdict depends on the driver, the lowest CUDA version that passes
 *     (the rules are monotone in the driver: a newer one never refuses more).
 *
 * Compute capabilities are walked in classes: every minor of a major that a
 * kernel, AOTI_COMPUTE_CAPABILITY or a driver floor names, and one
 * representative for each run of majors between them (no rule tells their
 * members apart: no cubin or family PTX can match them, plain PTX matches
 * all of them or none). A typical package costs a few dozen checks of its
 * few distinct kernels.
 *
 * The labels, and where the selector is exact: nvidia.com/gpu.compute.major
 * and .minor (required: a node without them is never selected, though
 * pt2_k8s may still judge it from gpu.product), nvidia.com/gpu.count (not
 * "0"), the CUDA version the driver supports from
 * nvidia.com/cuda.runtime-version.major/.minor when a minimum is needed,
 * or no CUDA label at all (unknown driver: pt2_k8s assumes new enough),
 * kubernetes.io/arch, kubernetes.io/os and NFD's cpu-cpuid labels. On nodes
 * labelled as GFD, NFD and the kubelet label them the selection equals pt2_k8s_compat_json's
 * verdicts; on hand-written label sets (only deprecated or only .full CUDA labels, no os label) it
 * may select fewer nodes, never one the verdict refuses.
 *
 * Ownership: everything is borrowed; the JSON returned belongs to the caller.
 */
#ifndef PT2_AFFINITY_H
#define PT2_AFFINITY_H

#include <cJSON.h>

#include "pt2_error.h"

/* The key of the single term that selects nothing: it requires and forbids it. */
#define PT2_AFFINITY_NONE_KEY "pt2scope.dev/no-compatible-node"

/* Label keys the selector uses. */
#define PT2_AFFINITY_L_COUNT "nvidia.com/gpu.count"
#define PT2_AFFINITY_L_MAJOR "nvidia.com/gpu.compute.major"
#define PT2_AFFINITY_L_MINOR "nvidia.com/gpu.compute.minor"
#define PT2_AFFINITY_L_RT_MAJOR "nvidia.com/cuda.runtime-version.major"
#define PT2_AFFINITY_L_RT_MINOR "nvidia.com/cuda.runtime-version.minor"
#define PT2_AFFINITY_L_ARCH "kubernetes.io/arch"
#define PT2_AFFINITY_L_OS "kubernetes.io/os"

/* Terms in one selector at most: past it the package is refused (PT2_ERR_TOO_LARGE). */
#define PT2_AFFINITY_TERMS_MAX 512

#endif

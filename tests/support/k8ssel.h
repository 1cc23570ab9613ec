/*
 * k8ssel.h - what Kubernetes does with a nodeAffinity, for the tests that
 * check pt2_package_node_affinity against the verdicts node by node: an
 * evaluator of requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
 * and a synthetic cluster labelled as GPU Feature Discovery and the kubelet
 * label nodes.
 *
 * Evaluator semantics (Kubernetes API, core/v1 NodeSelectorRequirement):
 * terms are ORed, a term's matchExpressions ANDed, a term without
 * expressions matches nothing, an empty term list is invalid. In: the label
 * is there with one of the values; NotIn: the label is absent or has none of
 * them (both need values); Exists / DoesNotExist: the label is there / not
 * (no values allowed); Gt / Lt: exactly one value, an integer, and the label
 * is there, an integer, greater / less (both parsed as Go's
 * strconv.ParseInt(s, 10, 64) would: optional sign, decimal digits).
 */
#ifndef PT2_K8SSEL_H
#define PT2_K8SSEL_H

#include <stddef.h>

#include <cJSON.h>

/*
 * 1 when the node labels (an object of strings) satisfy `affinity` (the
 * nodeAffinity object), 0 when not, -1 when Kubernetes would refuse the
 * affinity as malformed; `why` (may be NULL) then says what is wrong.
 */
int ks_selects(const cJSON *affinity, const cJSON *labels, char *why, size_t len);

/*
 * The synthetic cluster as `kubectl get nodes -o json` text (malloc'd; the
 * caller frees it), *count nodes:
 *   - GPU nodes, every compute capability of the CC table (3.5 ... 12.1, plus
 *     10.1 and 13.0) x every driver (branches 470 ... 590 with all GFD CUDA
 *     labels, the runtime-version labels alone, no CUDA label) x amd64/arm64;
 *   - nodes whose GFD labels say gpu.count "0", CPU-only nodes of every
 *     architecture, a Windows GPU node;
 *   - nodes with Node Feature Discovery's CPU labels as nfd-worker writes them
 *     (feature.node.kubernetes.io/cpu-cpuid.<FLAG>: "true") for an AVX2-only,
 *     an AVX-512, an AVX-512F-without-BW and a NEON and an SVE2 arm64 CPU, plus
 *     one with no flag pt2scope reads, each CPU-only and as an H100 node
 *     (cpu-<arch>-nfd-<cpu>, gpu-<arch>-cc90-r580-nfd-<cpu>).
 * With `odd`, instead, label sets GFD does not write (gpu.product only, a
 * malformed compute label, no os or arch label, only .full or only
 * deprecated CUDA labels, an NFD label that is not "true", an x86 NFD
 * label on an arm64 node): the selector must not select any of those the
 * verdicts refuse, but may skip some they accept.
 */
char *ks_gfd_nodes(int odd, size_t *count);

#endif

/*
 * pt2_node.h - this node's probe result (internal layout of pt2_node).
 *
 * Design: pt2_node (public in pt2scope.h) is one immutable probe of the
 * three things a package's verdict depends on: NVIDIA GPUs (pt2_cuda), AMD
 * GPUs (pt2_amdkfd) and the CPU (pt2_cpu). pt2_verdicts reads it through
 * this header; nothing outside the library sees the layout.
 *
 * Ownership: the node owns everything in it; it is about 50 KiB and always
 * heap-allocated by pt2_node_probe().
 */
#ifndef PT2_NODE_H
#define PT2_NODE_H

#include "pt2_amdkfd.h"
#include "pt2_cpu.h"
#include "pt2_cuda.h"
#include "pt2_desc.h"

#define PT2_NODE_NAME_MAX 256

struct pt2_node {
    struct pt2_node_gpus nv;
    struct pt2_amd_gpus amd;
    struct pt2_cpu_info cpu;
    char name[PT2_NODE_NAME_MAX];
    char probed_at[32];
};

/* Vendor (enum pt2_gpu_vendor) and index of the GPU that `device` names (pt2_node_device). */
int pt2_node_select(const struct pt2_node *node, const char *device, int *vendor, size_t *index,
                    struct pt2_error *err);

/* The device of GPU `index` of `vendor`, named "<name> (cuda:N)" / "<name> (rocm:N)". */
void pt2_node_gpu_device(const struct pt2_node *node, int vendor, size_t index,
                         struct pt2_device *dev, char *label, size_t label_len);

/* The compatibility entry's "device" document of that GPU, or of the CPU; NULL when out of memory.
 */
cJSON *pt2_node_gpu_json(const struct pt2_node *node, int vendor, size_t index,
                         const struct pt2_device *dev);
cJSON *pt2_node_cpu_json(const struct pt2_node *node);

#endif

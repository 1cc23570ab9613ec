/*
 * pt2_amdkfd.h - this node's AMD GPUs, from the KFD topology in sysfs.
 *
 * Design: ROCm's own libraries are not a dependency; the amdgpu kernel
 * driver publishes every agent it manages under
 * <sysfs>/class/kfd/kfd/topology/nodes/<n>/properties as "key value" lines
 * (FORMATS.md §13). CPU agents have simd_count 0 and
 * gfx_target_version 0; a GPU's gfx_target_version is
 * major * 10000 + minor * 100 + stepping (90010 = gfx90a, 90402 = gfx942,
 * 110000 = gfx1100), minor and stepping written in hex in the gfx name.
 * GPUs are numbered 0..n-1 in topology-node order, the order HIP and
 * torch.cuda use when no *_VISIBLE_DEVICES variable filters them (those
 * variables are not applied here). The xnack/sramecc mode is a runtime
 * setting the topology does not show, so device targets carry no features
 * and feature-specific code objects are not refused on that account.
 *
 * A node without the amdgpu driver is a fact, not an error: n = 0 with a
 * one-line reason. Every file read is capped (PT2_AMDKFD_PROPS_MAX).
 *
 * Ownership: struct pt2_amd_gpus is a plain caller-owned value.
 */
#ifndef PT2_AMDKFD_H
#define PT2_AMDKFD_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"

#define PT2_AMD_GPUS_MAX 64
#define PT2_AMDKFD_NODES_MAX 1024          /* topology nodes looked at */
#define PT2_AMDKFD_PROPS_MAX (64u * 1024u) /* bytes of one properties file */
#define PT2_SYSFS_ROOT_ENV "PT2SCOPE_SYSFS_ROOT"

struct pt2_amd_gpu {
    int index;                   /* 0..n-1 among GPU agents, in topology order */
    int kfd_node;                /* topology node number */
    char gfx[16];                /* "gfx90a" */
    unsigned gfx_target_version; /* 90010 */
    char name[128];              /* product text for the gfx ("AMD Instinct MI210/...") */
    unsigned vendor_id, device_id;
    char pci_bus_id[32];    /* "0000:c1:00.0" from domain and location_id; "" if unknown */
    unsigned compute_units; /* simd_count / simd_per_cu; 0 if unknown */
    uint64_t unique_id;     /* 0 if unknown */
};

struct pt2_amd_gpus {
    size_t n;
    struct pt2_amd_gpu gpus[PT2_AMD_GPUS_MAX];
    char topology[256]; /* the directory read */
    char reason[256];   /* "" when GPUs were found, else why none */
};

/*
 * Read the topology under `sysfs_root` (NULL or "": $PT2SCOPE_SYSFS_ROOT,
 * else "/sys"). Never fails for a missing driver: PT2_OK with n = 0 and
 * `reason` set. PT2_ERR_INVALID only for a NULL `out` or an over-long root.
 */
int pt2_amdkfd_probe(const char *sysfs_root, struct pt2_amd_gpus *out, struct pt2_error *err);

/* "gfx90a" for 90010; PT2_ERR_INVALID (buf "") for 0 or an impossible version. */
int pt2_amdkfd_gfx_name(unsigned version, char *buf, size_t len, struct pt2_error *err);

#endif

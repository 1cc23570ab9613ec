/*
 * pt2d_compat.h - the `compatibility` array of an inspection response.
 *
 * Design: one entry per device: each ?target= the client asked about
 * (kind "target"), each GPU of this node (kind "gpu") and this node's CPU
 * (kind "cpu", see pt2d_node.h). Every source adds entries through
 * pt2d_compat_add(), so the entry shape is defined once.
 *
 * Entry shape:
 *   {"target": "H100" | "cuda:0" | "cpu",
 *    "kind": "target" | "gpu" | "cpu",
 *    "device": {"name": "NVIDIA H100", "compute_capability": "9.0" | null,
 *               "gfx": "gfx90a" | null, "driver_cuda_version": 12040 | null, ...},
 *    "verdict": "compatible" | "compatible-ptx-jit" | "incompatible",
 *    "reason": "..."}
 * GPU entries add index, uuid, pci_bus_id, sm_count and total_memory to the
 * device; the CPU entry's device is {"name", "machine", "vendor", "vec_isa"}.
 *
 * Ownership: documents returned through `cJSON **` belong to the caller; a
 * `device` document passed in is taken over in every case.
 */
#ifndef PT2D_COMPAT_H
#define PT2D_COMPAT_H

#include <cJSON.h>

#include "pt2_error.h"
#include "pt2d_options.h"
#include "pt2scope.h"

/* The JSON form of a device (see above); NULL when out of memory. */
cJSON *pt2d_compat_device_json(const struct pt2_device *dev);

/* Append one entry with a verdict already decided; takes `device`. */
int pt2d_compat_add(cJSON *array, const char *kind, const char *target, cJSON *device,
                    const struct pt2_verdict_result *res, struct pt2_error *err);

/*
 * Check `pkg` against `dev` and append one entry labelled `target` of
 * `kind`; `device` (taken over) is the entry's device, or NULL for
 * pt2d_compat_device_json(dev).
 */
int pt2d_compat_append(cJSON *array, const pt2_package *pkg, const char *kind, const char *target,
                       const struct pt2_device *dev, cJSON *device, struct pt2_error *err);

/* A new array with one "target" entry per target of `o` (empty when none). */
int pt2d_compat_build(const pt2_package *pkg, const struct pt2d_options *o, cJSON **out,
                      struct pt2_error *err);

#endif

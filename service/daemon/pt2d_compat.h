/*
 * pt2d_compat.h - the `compatibility` array of an inspection response.
 *
 * Design: one entry per device the client asked about. Entries are added
 * one device at a time through pt2d_compat_append(), so other sources of
 * devices (the node's own GPUs, in a later release) add verdicts through
 * the same function without touching request parsing.
 *
 * Entry shape:
 *   {"target": "H100",
 *    "device": {"name": "NVIDIA H100", "compute_capability": "9.0" | null,
 *               "gfx": "gfx90a" | null, "driver_cuda_version": 12040 | null},
 *    "verdict": "compatible" | "compatible-ptx-jit" | "incompatible",
 *    "reason": "..."}
 *
 * Ownership: documents returned through `cJSON **` belong to the caller.
 */
#ifndef PT2D_COMPAT_H
#define PT2D_COMPAT_H

#include <cJSON.h>

#include "pt2_error.h"
#include "pt2d_options.h"
#include "pt2scope.h"

/* The JSON form of a device (see above); NULL when out of memory. */
cJSON *pt2d_compat_device_json(const struct pt2_device *dev);

/* Check `pkg` against `dev` and append one entry labelled `target` to `array`. */
int pt2d_compat_append(cJSON *array, const pt2_package *pkg, const char *target,
                       const struct pt2_device *dev, struct pt2_error *err);

/* A new array with one entry per target of `o` (empty when none). */
int pt2d_compat_build(const pt2_package *pkg, const struct pt2d_options *o, cJSON **out,
                      struct pt2_error *err);

#endif

/*
 * pt2_target.h - what users name: GPU targets, driver versions, verdicts.
 *
 * Design: the public parsers of pt2scope.h (pt2_target_parse,
 * pt2_driver_version_parse, pt2_verdict_name, pt2_verdict_from_name) live
 * here, apart from the rules of pt2_compat, so the rules work on typed
 * devices only. The AMD helpers below are shared with the rules, which read
 * the same spellings from AOTI_COMPUTE_CAPABILITY.
 *
 * Ownership: inputs are borrowed; cJSON results belong to the caller.
 */
#ifndef PT2_TARGET_H
#define PT2_TARGET_H

#include <cJSON.h>

#include "pt2_error.h"

/* "gfx90a:xnack-" for "amdgcn-amd-amdhsa--gfx90a:xnack-" (the full target ID clang and the
 * ROCm tools print); any other text is returned as is. */
const char *pt2_target_amd_tail(const char *t);

/* 1 for a lower-case AMD target: "gfx90a", "gfx90a:xnack-", "gfx942:sramecc+:xnack-". */
int pt2_target_is_gfx(const char *t);

/*
 * 1 when a host library of `format` (enum pt2_host_format) for `machine` ("x86_64",
 * "aarch64") runs on dev's platform; *os gets the platform's OS ("Linux", "Windows")
 * and *arches what it runs ("amd64 or arm64") for the reason.
 */
int pt2_target_platform_runs(const struct pt2_device *dev, int format, const char *machine,
                             const char **os, const char **arches);

/*
 * The JSON form of a device in a compatibility entry:
 * {"name", "compute_capability": "9.0" | null, "gfx": "gfx90a" | null,
 *  "driver_cuda_version": 12040 | null}; NULL when out of memory.
 */
cJSON *pt2_target_device_json(const struct pt2_device *dev);
/* A target's device: pt2_target_device_json plus "platform": "linux/arm64" | null. */
cJSON *pt2_target_json(const struct pt2_device *dev);

#endif

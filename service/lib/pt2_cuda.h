/*
 * pt2_cuda.h - this node's NVIDIA GPUs, through the CUDA Driver API.
 *
 * Design: libcuda.so.1 is opened at run time with dlopen and the dozen entry
 * points we need are resolved with dlsym, so libpt2scope neither includes
 * cuda.h nor links the driver and runs unchanged on machines without one.
 * The probe only enumerates (cuInit, count, name, attributes, memory, UUID,
 * PCI bus id); it never creates a context or loads a module.
 *
 * A missing driver, a stub library, a driver/kernel mismatch or zero visible
 * devices are facts about the node, not errors: the probe returns PT2_OK
 * with n = 0 and a one-line `reason`. Only invalid arguments fail.
 *
 * CUDA_VISIBLE_DEVICES is applied by the driver, not here: the list is what
 * the driver shows this process (filtered and renumbered 0..n-1), which is
 * exactly what torch sees. The driver reads the variable once, at the first
 * cuInit of the process, so changing it later has no effect on a re-probe.
 *
 * Lifetime of the driver: the library is opened with RTLD_NODELETE and the
 * handle is closed after each probe. Nothing is kept by pt2scope, but the
 * driver stays mapped for the rest of the process, because unloading
 * libcuda after cuInit is not safe (the driver keeps thread-specific data
 * with destructors and helper threads that point into its code). cuInit is
 * idempotent and thread-safe, so repeated and concurrent probes are fine and
 * no lock or global state is needed here.
 *
 * Ownership: struct pt2_node_gpus is a plain caller-owned value (about
 * 25 KiB; allocate it rather than putting many on a thread's stack).
 */
#ifndef PT2_CUDA_H
#define PT2_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"

#define PT2_GPUS_MAX 64 /* devices beyond this are not reported */
#define PT2_CUDA_DEFAULT_LIB "libcuda.so.1"
#define PT2_CUDA_LIB_ENV "PT2SCOPE_LIBCUDA"

struct pt2_gpu {
    int index;           /* CUDA ordinal as this process sees it (after CUDA_VISIBLE_DEVICES) */
    char name[256];      /* "NVIDIA H100 80GB HBM3" */
    char uuid[64];       /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lower-case hex */
    char pci_bus_id[32]; /* "0000:1b:00.0", lower-case like sysfs; "" if unknown */
    int cc_major, cc_minor;
    int sm_count;          /* streaming multiprocessors */
    uint64_t total_memory; /* bytes; saturates at 4 GiB - 1 with the pre-v2 driver API */
};

struct pt2_node_gpus {
    int driver_cuda_version; /* cuDriverGetVersion(): 12040 = CUDA 12.4; 0 unknown */
    size_t n;
    struct pt2_gpu gpus[PT2_GPUS_MAX];
    char library[256]; /* what was (or would have been) loaded */
    int cu_error;      /* last CUresult, 0 ok */
    char reason[256];  /* "" when GPUs were found, else why none */
};

/*
 * Probe once. `libpath` NULL -> $PT2SCOPE_LIBCUDA, else "libcuda.so.1".
 * Never fails for a missing driver/GPU: returns PT2_OK with n = 0 and
 * `reason` set. Only invalid arguments (NULL out, empty or over-long
 * libpath) return PT2_ERR_INVALID. *out is always fully initialised.
 */
int pt2_cuda_probe(const char *libpath, struct pt2_node_gpus *out, struct pt2_error *err);

/*
 * The /v1/node "gpus" document:
 * {"driver_cuda_version": 12040 | null, "driver_cuda": "12.4" | null,
 *  "library": "libcuda.so.1", "count": 2, "cu_error": 0,
 *  "cu_error_name": "CUDA_SUCCESS" | null, "reason": null | "...",
 *  "gpus": [{"index": 0, "name": "...", "uuid": "GPU-...", "pci_bus_id": "0000:1b:00.0",
 *            "compute_capability": "9.0", "cc_major": 9, "cc_minor": 0, "sm": "sm_90",
 *            "sm_count": 132, "total_memory": 85899345920, "total_memory_mib": 81920}]}
 */
int pt2_cuda_to_json(const struct pt2_node_gpus *g, cJSON **out, struct pt2_error *err);

/* Fill a pt2_device from a probed GPU: "NVIDIA H100 80GB HBM3 (cuda:0)", its CC and the
 * driver version. A NULL `gpu` gives a zeroed device (no NVIDIA GPU). */
void pt2_cuda_device(const struct pt2_node_gpus *g, const struct pt2_gpu *gpu,
                     struct pt2_device *out);

/* "CUDA_ERROR_NO_DEVICE" for a CUresult we know, else NULL. */
const char *pt2_cuda_error_name(int cu);

#endif

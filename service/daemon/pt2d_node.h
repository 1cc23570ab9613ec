/*
 * pt2d_node.h - this node's GPUs and CPU, probed once and swapped on refresh.
 *
 * Design: probing loads the CUDA driver and runs cuInit, which can take
 * seconds on a large machine, so it happens once at start and again only
 * when a client asks (GET /v1/node?refresh=1), never per request. A probe
 * result is an immutable, reference-counted snapshot: readers take a
 * reference under a short lock and keep using their snapshot while a
 * refresh publishes a new one, so a refresh never changes a response half
 * way and never blocks readers for the length of a probe.
 *
 * The driver library is the --libcuda value, else $PT2SCOPE_LIBCUDA read
 * at each probe, else libcuda.so.1 (see pt2_cuda.h). A real driver fixes
 * its device list at the process's first cuInit (CUDA_VISIBLE_DEVICES
 * included), so a refresh re-reads what the driver reports; seeing a GPU
 * that was added or an upgraded driver needs a restart.
 *
 * Ownership: pt2d_node_create() returns an object freed with
 * pt2d_node_free() (NULL accepted) after every snapshot was released.
 * pt2d_node_acquire() hands out a reference the caller must give back
 * with pt2d_node_release() (NULL accepted).
 */
#ifndef PT2D_NODE_H
#define PT2D_NODE_H

#include <cJSON.h>

#include "pt2_cpu.h"
#include "pt2_cuda.h"
#include "pt2_error.h"
#include "pt2d_reply.h"
#include "pt2scope.h"

#define PT2D_NODE_NAME_MAX 256

struct pt2d_node;

/* One probe result; read-only once published. */
struct pt2d_node_snap {
    struct pt2_node_gpus gpus;
    struct pt2_cpu_info cpu;
    char node[PT2D_NODE_NAME_MAX]; /* --node-name, else the host name */
    char probed_at[32];            /* RFC 3339 UTC, "2025-06-01T12:00:00Z" */
    unsigned long generation;      /* 1 for the first probe, +1 per refresh */
};

/*
 * Probe and keep the result. `libcuda` NULL or "" = $PT2SCOPE_LIBCUDA /
 * libcuda.so.1 at each probe; `node_name` NULL or "" = gethostname().
 * A node without a driver or GPUs is not an error (see pt2_cuda.h).
 */
int pt2d_node_create(struct pt2d_node **out, const char *libcuda, const char *node_name,
                     struct pt2_error *err);
void pt2d_node_free(struct pt2d_node *n);

/* Probe again and publish the result; readers holding the old snapshot keep it. */
int pt2d_node_refresh(struct pt2d_node *n, struct pt2_error *err);

/* The current snapshot, with a reference; never NULL for a created node. */
const struct pt2d_node_snap *pt2d_node_acquire(struct pt2d_node *n);
void pt2d_node_release(const struct pt2d_node_snap *s);

/*
 * The /v1/node document: {"node", "probed_at", then pt2_cuda_to_json()'s
 * members (driver_cuda_version, driver_cuda, library, count, cu_error,
 * cu_error_name, reason, gpus), then "cpu": pt2_cpu_to_json()}.
 */
int pt2d_node_json(const struct pt2d_node_snap *s, cJSON **out, struct pt2_error *err);

/* GET /v1/node into `reply`: probe again first when `refresh`, then the document. */
void pt2d_node_serve(struct pt2d_node *n, int refresh, const char *request_id,
                     struct pt2d_reply *reply);

/*
 * Append this node's verdicts for `pkg` to the compatibility `array`: one
 * {"target": "cuda:N", "kind": "gpu"} entry per visible GPU, or only the
 * GPU that `device` selects ("cuda", "" = the first visible one, "cuda:N"
 * or "N", as torch does), then one {"target": "cpu", "kind": "cpu"} entry.
 * `device` NULL = every GPU. A device that is malformed or not visible is
 * PT2_ERR_INVALID (a bad request) with pt2_cuda_select()'s message.
 */
int pt2d_node_compat(const struct pt2d_node_snap *s, const pt2_package *pkg, const char *device,
                     cJSON *array, struct pt2_error *err);

#endif

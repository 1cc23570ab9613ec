/*
 * pt2d_node.h - this node's probe, taken once and swapped on refresh.
 *
 * Design: probing loads the CUDA driver and runs cuInit, which can take
 * seconds on a large machine, so it happens once at start and again only
 * when a client asks (GET /v1/node?refresh=1), never per request. A probe
 * (the library's immutable pt2_node) is published as a reference-counted
 * snapshot: readers take a reference under a short lock and keep using
 * their snapshot while a refresh publishes a new one, so a refresh never
 * changes a response half way and never blocks readers for a probe.
 *
 * What is probed and how (NVIDIA through libcuda, AMD through the KFD
 * topology, the CPU) is the library's: see pt2scope.h, "This node". A real
 * CUDA driver fixes its device list at the process's first cuInit
 * (CUDA_VISIBLE_DEVICES included), so seeing an added GPU or an upgraded
 * driver needs a restart.
 *
 * Ownership: pt2d_node_create() returns an object freed with
 * pt2d_node_free() (NULL accepted) after every snapshot was released.
 * pt2d_node_acquire() hands out a reference the caller must give back
 * with pt2d_node_release() (NULL accepted).
 */
#ifndef PT2D_NODE_H
#define PT2D_NODE_H

#include <cJSON.h>

#include "pt2d_reply.h"
#include "pt2scope.h"

struct pt2d_node;

/* One probe result; read-only once published. */
struct pt2d_node_snap {
    pt2_node *probe;          /* owned by the snapshot */
    unsigned long generation; /* 1 for the first probe, +1 per refresh */
    /* What the probe found (its JSON but probed_at), digested: answers that
     * depend on this node are tagged with it, so a refresh that finds the same
     * GPUs, driver and CPU keeps every ETag. */
    char fingerprint[PT2D_ETAG_MAX];
};

/* Probe and keep the result; `opts` is copied (see struct pt2_node_options). */
int pt2d_node_create(struct pt2d_node **out, const struct pt2_node_options *opts,
                     struct pt2_error *err);
void pt2d_node_free(struct pt2d_node *n);

/* Probe again and publish the result; readers holding the old snapshot keep it. */
int pt2d_node_refresh(struct pt2d_node *n, struct pt2_error *err);

/* The current snapshot, with a reference; never NULL for a created node. */
const struct pt2d_node_snap *pt2d_node_acquire(struct pt2d_node *n);
void pt2d_node_release(const struct pt2d_node_snap *s);

/* GET /v1/node into `reply`: probe again first when `refresh`, then pt2_node_to_json(). */
void pt2d_node_serve(struct pt2d_node *n, int refresh, const char *request_id,
                     struct pt2d_reply *reply);

#endif

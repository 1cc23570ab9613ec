/*
 * pt2d_metrics.h - request counters and histograms, Prometheus text 0.0.4.
 *
 * Design: fixed-size arrays indexed by route, method and a closed list of
 * status codes, so memory and label cardinality are bounded by
 * construction. One mutex guards updates; updates are a handful of adds.
 * Gauges owned by other modules (queue, workers, cache) are sampled by the
 * caller and passed to the renderer, so this module depends on none of them.
 *
 * Ownership: pt2d_metrics_create() returns an object freed with
 * pt2d_metrics_free(); rendered text is malloc'd and owned by the caller.
 */
#ifndef PT2D_METRICS_H
#define PT2D_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "pt2scope.h"
#include "pt2d_router.h"

#define PT2D_METRICS_CTYPE "text/plain; version=0.0.4; charset=utf-8"

struct pt2d_metrics;

/* Values sampled at render time from the modules that own them. */
struct pt2d_metrics_gauges {
    uint64_t queue_depth, queue_capacity;
    uint64_t workers_busy, workers_total;
    uint64_t inflight;
    uint64_t cache_hits, cache_misses, cache_entries;
    int ready;
};

int pt2d_metrics_create(struct pt2d_metrics **out, struct pt2_error *err);
void pt2d_metrics_free(struct pt2d_metrics *m);

/* One answered request (counted when the response is queued). */
void pt2d_metrics_request(struct pt2d_metrics *m, enum pt2d_route route, enum pt2d_method method,
                          unsigned status, double seconds);
/* One package actually opened (cache hits are not inspections). */
void pt2d_metrics_inspection(struct pt2d_metrics *m, double seconds, uint64_t bytes_read);
/* Request body bytes accepted into the spool. */
void pt2d_metrics_upload(struct pt2d_metrics *m, uint64_t bytes);

/* Render the exposition; returns a malloc'd string (NULL when out of memory). */
char *pt2d_metrics_render(struct pt2d_metrics *m, const struct pt2d_metrics_gauges *g,
                          size_t *len_out);

#endif

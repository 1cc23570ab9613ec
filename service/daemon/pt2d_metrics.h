/*
 * pt2d_metrics.h - request counters and histograms, Prometheus text 0.0.4.
 *
 * Design: fixed-size arrays indexed by route, method and a closed list of
 * status codes, so memory and label cardinality are bounded by
 * construction. One mutex guards updates; updates are a handful of adds.
 * Gauges owned by other modules (queue, workers, cache) are sampled by the
 * caller and passed to the renderer, so this module depends on none of them.
 * The process_* families of the Prometheus client conventions (CPU time,
 * resident memory, open and maximum descriptors, start time) are read at
 * render time from /proc/self/stat, /proc/stat, /proc/self/fd and
 * getrlimit(); a file that cannot be read leaves its series out.
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
    uint64_t cache_hits, cache_misses, cache_entries, cache_bytes;
    uint64_t body_bytes, body_budget; /* request bodies buffered in memory; its limit (0: none) */
    int ready;
    /* The pool ?url= inspections run on (pt2d_server.c), apart from local ones. */
    uint64_t remote_queue_depth, remote_queue_capacity;
    uint64_t remote_workers_busy, remote_workers_total;
};

/* What the process_* series report; `have` says which were read (PT2D_PROC_* bits). */
enum {
    PT2D_PROC_CPU = 1u << 0,   /* process_cpu_seconds_total */
    PT2D_PROC_RSS = 1u << 1,   /* process_resident_memory_bytes */
    PT2D_PROC_START = 1u << 2, /* process_start_time_seconds */
    PT2D_PROC_FDS = 1u << 3,   /* process_open_fds */
    PT2D_PROC_MAXFD = 1u << 4  /* process_max_fds */
};
struct pt2d_process_stats {
    double cpu_seconds; /* user + system */
    double start_time;  /* seconds since the Unix epoch */
    uint64_t resident_bytes;
    uint64_t open_fds;
    uint64_t max_fds; /* RLIMIT_NOFILE soft limit */
    unsigned have;
};

/* Read this process's figures from `proc_root` (normally "/proc"): self/stat, stat, self/fd. */
void pt2d_metrics_process_read(const char *proc_root, struct pt2d_process_stats *out);

int pt2d_metrics_create(struct pt2d_metrics **out, struct pt2_error *err);
void pt2d_metrics_free(struct pt2d_metrics *m);

/* One answered request (counted when the response is queued). */
void pt2d_metrics_request(struct pt2d_metrics *m, enum pt2d_route route, enum pt2d_method method,
                          unsigned status, double seconds);
/* One package actually opened (cache hits are not inspections). */
void pt2d_metrics_inspection(struct pt2d_metrics *m, double seconds, uint64_t bytes_read);
/* Requests made and body bytes received for remote packages (pt2_remote.h). */
void pt2d_metrics_remote(struct pt2d_metrics *m, uint64_t requests, uint64_t bytes);
/* Request body bytes accepted into the spool. */
void pt2d_metrics_upload(struct pt2d_metrics *m, uint64_t bytes);

/* Requests refused before routing (pt2d_auth.h): the `reason` label of
 * pt2scope_auth_refused_total. */
enum pt2d_metrics_refusal { PT2D_REFUSED_UNAUTHORIZED = 0, PT2D_REFUSED_HOST, PT2D_REFUSED_COUNT };
void pt2d_metrics_auth_refused(struct pt2d_metrics *m, enum pt2d_metrics_refusal reason);

/* Where the process_* series are read from: "/proc" unless a test points at a fake tree. */
void pt2d_metrics_set_proc_root(struct pt2d_metrics *m, const char *proc_root);

/* Render the exposition; returns a malloc'd string (NULL when out of memory). */
char *pt2d_metrics_render(struct pt2d_metrics *m, const struct pt2d_metrics_gauges *g,
                          size_t *len_out);

#endif

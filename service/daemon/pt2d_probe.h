/*
 * pt2d_probe.h - the endpoints answered on the HTTP thread: /livez,
 * /readyz, /metrics and /v1/version.
 *
 * Design: probes must answer within a kubelet's 1 s timeout even when
 * every worker is busy, so they never touch a package or the job queue;
 * they only read counters. The server samples its own state into struct
 * pt2d_probe_state so this module depends on no server internals.
 *
 * Ownership: everything is borrowed; the reply is caller-owned.
 */
#ifndef PT2D_PROBE_H
#define PT2D_PROBE_H

#include "pt2d_metrics.h"
#include "pt2d_reply.h"
#include "pt2d_router.h"

#define PT2D_PROBE_CTYPE "text/plain; charset=utf-8"

struct pt2d_probe_state {
    struct pt2d_metrics *metrics;
    struct pt2d_metrics_gauges gauges; /* sampled by the caller */
    const char *spool_dir;             /* checked by /readyz; NULL: not checked */
};

/* The version document: version, schema_version, api, libmicrohttpd, libzip, cjson. */
cJSON *pt2d_probe_version_json(void);

/* Fill `r` for a PT2D_KIND_PROBE route. */
void pt2d_probe_run(enum pt2d_route route, const struct pt2d_probe_state *st, struct pt2d_reply *r,
                    const char *request_id);

#endif

/*
 * pt2d_job.h - the archive work behind /v1/inspect, arch, metadata, validate.
 *
 * Design: a job describes one request's input (a path reference or a
 * spooled upload) and options, and produces a pt2d_reply. It runs on a
 * pool worker and never touches MHD, so it can be tested directly. It
 * resolves the input, derives the cache key and ETag, answers 304 when
 * If-None-Match matches, and otherwise opens the package (or takes it from
 * the cache) and renders the endpoint's document.
 *
 * Ownership: every pointer in struct pt2d_job is borrowed for the run; the
 * reply is caller-owned and filled in.
 */
#ifndef PT2D_JOB_H
#define PT2D_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "pt2d_cache.h"
#include "pt2d_metrics.h"
#include "pt2d_options.h"
#include "pt2d_reply.h"
#include "pt2d_router.h"
#include "pt2d_sha256.h"

/* Shared, read-only context of all jobs of a server. */
struct pt2d_job_env {
    const char *const *roots;
    size_t n_roots;
    struct pt2d_cache *cache;     /* may be NULL: no caching */
    struct pt2d_metrics *metrics; /* may be NULL */
    unsigned delay_ms;            /* test hook: sleep before working */
};

struct pt2d_job {
    const struct pt2d_job_env *env;
    enum pt2d_route route; /* INSPECT, ARCH, METADATA or VALIDATE */
    const struct pt2d_options *opts;
    int upload_fd; /* spooled upload, or -1 to use opts->path */
    uint8_t upload_digest[PT2D_SHA256_LEN];
    const char *upload_name;   /* display name of an upload (NULL: "upload.pt2") */
    const char *if_none_match; /* request header or NULL */
    int nocache;               /* skip cache lookup and insertion */
    const char *request_id;
    struct pt2d_reply *reply;
};

void pt2d_job_run(struct pt2d_job *job);

#endif

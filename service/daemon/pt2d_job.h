/*
 * pt2d_job.h - the archive work behind /v1/inspect, arch, metadata, validate
 * and POST /v1/compatibility.
 *
 * Design: a job describes one request's input (a path reference, a remote
 * URL or a spooled upload) and options, and produces a pt2d_reply. It runs on a
 * pool worker and never touches MHD, so it can be tested directly. It
 * resolves the input, derives the cache key and ETag, answers 304 when
 * If-None-Match matches, and otherwise opens the package (or takes it from
 * the cache) and renders the endpoint's document.
 *
 * /v1/inspect adds this node's verdicts (pt2d_node.h) when the env has a
 * node; the ETag then covers the probe the verdicts came from. POST
 * /v1/compatibility parses its (up to 16 MiB) body here, on the worker,
 * not on the HTTP thread, and has no ETag.
 *
 * In test builds (-DPT2SCOPE_TEST_HOOKS) a job first waits at the env's gate
 * (pt2d_gate.h), and a gated job never takes the HTTP-thread shortcut
 * (pt2d_job_run_cached), so tests can hold a worker busy exactly as long as
 * they need.
 *
 * Ownership: every pointer in struct pt2d_job is borrowed for the run; the
 * reply is caller-owned and filled in.
 */
#ifndef PT2D_JOB_H
#define PT2D_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "pt2_remote.h"
#include "pt2d_cache.h"
#ifdef PT2SCOPE_TEST_HOOKS
#include "pt2d_gate.h"
#endif
#include "pt2d_metrics.h"
#include "pt2d_node.h"
#include "pt2d_options.h"
#include "pt2d_reply.h"
#include "pt2d_router.h"

/* Shared, read-only context of all jobs of a server. */
struct pt2d_job_env {
    const char *const *roots;
    const int *root_fds; /* O_PATH descriptors of roots (pt2d_path_open_at), or NULL */
    size_t n_roots;
    struct pt2d_cache *cache;             /* may be NULL: no caching */
    struct pt2d_metrics *metrics;         /* may be NULL */
    struct pt2d_node *node;               /* this node's devices for /v1/inspect; may be NULL */
    const struct pt2_remote_opts *remote; /* ?url= rules (pt2_remote.h); NULL = URLs refused */
    /* The default runtimes of every answer (--runtime, --sysroot, --libtorch); shared,
     * immutable. runtime_labels: their labels joined, for the ETag. */
    pt2_runtime *const *runtimes;
    size_t n_runtimes;
    const char *runtime_labels;
#ifdef PT2SCOPE_TEST_HOOKS
    struct pt2d_gate *gate; /* test builds only: every job waits here first; NULL = none */
#endif
};

struct pt2d_job {
    const struct pt2d_job_env *env;
    enum pt2d_route route; /* INSPECT, ARCH, METADATA or VALIDATE */
    const struct pt2d_options *opts;
    pt2_upload *upload;        /* an upload as it streamed (borrowed), or NULL to use opts */
    const char *upload_name;   /* display name of an upload (NULL: "upload.pt2") */
    const char *if_none_match; /* request header or NULL */
    int nocache;               /* skip cache lookup and insertion */
    const char *request_id;
    /* POST /v1/compatibility only: the JSON body, or the multipart 'nodes' field. */
    const char *body;
    size_t body_len;
    const char *nodes_text;
    size_t nodes_len;
    struct pt2d_reply *reply;
};

void pt2d_job_run(struct pt2d_job *job);

/*
 * On the HTTP thread, before queueing: answer a path request from memory
 * when its package is cached and this very response (same ETag) was
 * rendered before, or with 304. Costs the path resolution (realpath, open,
 * fstat of a file under a model root) and a few hashes, and saves the pool
 * round trip, which was most of a cached request's time (tests/bench).
 * Returns 1 when job->reply holds the answer; 0 when the job must go to the
 * pool as usual (nothing to undo, errors included: the worker reports them).
 */
int pt2d_job_run_cached(struct pt2d_job *job);

/*
 * The pieces of a path job that a listing (pt2d_packages.h) must share with
 * it, so that an item's ETag is exactly the one /v1/inspect answers with
 * and its package is the one /v1/inspect would take from the cache.
 */

/* Options are bounded by PT2D_MAX_INPUTS x PT2D_MAX_DIMS; this fits their fingerprint. */
#define PT2D_JOB_FINGERPRINT_MAX (2u << 20)

/* The cache key of a remote object with a strong ETag `validator`, as /v1/inspect?url= makes
 * it: `url` as given and the validator hashed, the size, the display `name`. */
void pt2d_job_remote_key(char *key, size_t cap, const char *url, const char *validator,
                         uint64_t size, const char *name);

/* The cache key of a file (pt2d_cache.h): its identity in `st` and its display `name`. */
void pt2d_job_file_key(char *key, size_t cap, const struct stat *st, const char *name);

/*
 * The ETag `route` answers with for the package `key` under `opts` (and the
 * node snapshot `snap` its verdicts come from, for /v1/inspect; else NULL),
 * into etag (PT2D_ETAG_MAX). `scratch` is a caller's buffer capped at
 * PT2D_JOB_FINGERPRINT_MAX, reset here. PT2_ERR_TOO_LARGE when the options
 * do not fit it.
 */
int pt2d_job_etag(enum pt2d_route route, const char *key, const struct pt2d_options *opts,
                  const struct pt2d_node_snap *snap, const struct pt2d_job_env *env,
                  struct pt2d_buf *scratch, char *etag, size_t cap);

/*
 * The runtimes a request is judged on: its own runtime= specs (parsed into
 * owned[], which pt2d_job_runtimes_free releases), else the daemon's
 * defaults. *use has *n entries (at most PT2D_MAX_RUNTIMES + the defaults').
 */
/* Runtimes one answer is judged on at most: a request's, or the defaults (8 specs and a
 * sysroot). */
#define PT2D_JOB_RUNTIMES_MAX (PT2D_MAX_RUNTIMES + 10)
int pt2d_job_runtimes(const struct pt2d_job_env *env, const struct pt2d_options *o,
                      pt2_runtime **owned, const pt2_runtime **use, size_t cap, size_t *n,
                      struct pt2_error *err);
void pt2d_job_runtimes_free(pt2_runtime **owned, size_t n);

/*
 * The package for `key` from env's cache (a new reference), else opened from
 * `fd` (display name `name`), counted in the metrics and cached; `nocache`
 * skips the cache both ways. The library's status when it does not open.
 */
int pt2d_job_package(const struct pt2d_job_env *env, int nocache, int fd, const char *name,
                     const char *key, struct pt2d_pkgref **out, struct pt2_error *err);

#endif

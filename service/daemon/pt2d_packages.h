/*
 * pt2d_packages.h - GET /v1/packages: the packages under the model roots.
 *
 * Design: a listing is one page of the `*.pt2` files under every model root
 * (recursively, hidden names skipped), sorted by name (the path relative to
 * its root, bytewise), a name found in an earlier root shadowing the same
 * name in a later one, exactly as ?path= resolves it. The walk reads
 * directory entries only and keeps the `limit` + 1 smallest names after the
 * cursor in a bounded heap, so its memory is set by `limit`, never by the
 * size of the roots; then only the page's packages are opened, through the
 * job cache (pt2d_job_package), headers only. Each item is the library's
 * (pt2_listing_item) plus the ETag /v1/inspect?path=NAME answers with for
 * the same `target`/`driver` arguments (pt2d_job_etag), so a client can
 * revalidate any row. A package that does not open is an item with its
 * problem, never a failed listing. The cursor is the last name of the page,
 * base64url-encoded: opaque to clients, stable across restarts, and any
 * name is a valid place to resume from.
 *
 * The work runs on a pool worker (the route is a task). Hard caps: limit
 * 1..1000, directory depth 16, 1,000,000 entries looked at per request.
 *
 * Ownership: the query struct is caller-owned plain data; the reply is the
 * caller's and is filled in.
 */
#ifndef PT2D_PACKAGES_H
#define PT2D_PACKAGES_H

#include "pt2d_buf.h"
#include "pt2d_job.h"
#include "pt2d_options.h"
#include "pt2d_path.h"
#include "pt2d_reply.h"

#define PT2D_PACKAGES_LIMIT_DEFAULT 100u
#define PT2D_PACKAGES_LIMIT_MAX 1000u
#define PT2D_PACKAGES_DEPTH_MAX 16u
#define PT2D_PACKAGES_ENTRIES_MAX 1000000u
/* A cursor is the base64url of a name shorter than PT2D_PATH_MAX. */
#define PT2D_PACKAGES_CURSOR_MAX ((PT2D_PATH_MAX + 2) / 3 * 4 + 1)

struct pt2d_packages_query {
    unsigned limit;                   /* 1..PT2D_PACKAGES_LIMIT_MAX */
    char url[PT2_REMOTE_URL_MAX + 1]; /* url=s3://BUCKET/PREFIX/: list it (pt2d_bucket.h) */
    int has_url;
    char prefix[PT2D_PATH_MAX];   /* only names starting with it; "" = all */
    char after[PT2D_PATH_MAX];    /* the decoded cursor: names after it; "" = from the first */
    char contains[PT2D_PATH_MAX]; /* only names holding it anywhere; "" = all */
    int has_limit, has_prefix, has_cursor, has_contains;
};

void pt2d_packages_query_init(struct pt2d_packages_query *q);

/*
 * One query argument of GET /v1/packages: limit, cursor, prefix and contains here;
 * target, driver and nocache into `o` (pt2d_options_add_query); others are
 * ignored, as everywhere. PT2_ERR_INVALID for a bad or repeated value.
 */
int pt2d_packages_add_query(struct pt2d_packages_query *q, struct pt2d_options *o, const char *key,
                            const char *value, struct pt2_error *err);

/*
 * The page as {"items": [...], "next": cursor | null, "total": N, "warnings": [...]}, or a
 * problem, into `reply`. `total` counts the packages with the prefix under every root, the
 * cursor aside; `warnings` says why a listing is short (no root, roots that do not open). The
 * reply has a strong ETag of its bytes; a 304 when `if_none_match` (NULL: none) matches it.
 */
void pt2d_packages_serve(const struct pt2d_job_env *env, const struct pt2d_packages_query *q,
                         const struct pt2d_options *o, const char *if_none_match,
                         const char *request_id, struct pt2d_reply *reply);

/*
 * What every item of a page is judged on, as /v1/inspect would judge it: the
 * request's targets, its runtimes (or the daemon's defaults when asked), one
 * node snapshot for the page, a fingerprint buffer for the items' ETags.
 * begin fills jd (end releases it, also after a failed begin).
 */
struct pt2d_packages_judge {
    struct pt2_listing_target targets[PT2D_MAX_TARGETS + PT2D_JOB_RUNTIMES_MAX];
    size_t nt;
    pt2_runtime *owned[PT2D_MAX_RUNTIMES];
    const pt2_runtime *rts[PT2D_JOB_RUNTIMES_MAX];
    size_t nrts, n_owned;
    const struct pt2d_node_snap *snap;
    struct pt2d_buf scratch;
};
int pt2d_packages_judge_begin(const struct pt2d_job_env *env, const struct pt2d_options *o,
                              struct pt2d_packages_judge *jd, struct pt2_error *err);
void pt2d_packages_judge_end(struct pt2d_packages_judge *jd);

/* A strong ETag of a 200 reply's bytes, and 304 when if_none_match (NULL: none) matches. */
void pt2d_packages_etag_304(struct pt2d_reply *reply, const char *if_none_match);

/* base64url without padding of `name` into out (PT2D_PACKAGES_CURSOR_MAX): the cursor. */
void pt2d_packages_cursor(const char *name, char *out, size_t cap);

#endif

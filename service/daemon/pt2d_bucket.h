/*
 * pt2d_bucket.h - GET /v1/packages?url=s3://BUCKET/PREFIX/: a page of the
 * packages in a bucket, as the model-root listing pages its files.
 *
 * Design: one ListObjectsV2 page (pt2_remote_list.h) of at most `limit` keys
 * after the cursor, whose text is S3's continuation token (base64url, as a
 * local cursor encodes a name: opaque to clients). Each *.pt2 object with a
 * strong listing ETag is keyed in the job cache exactly as /v1/inspect?url=
 * keys it after its first request (the URL and the validator hashed, the
 * size, the name), so an object the daemon has already read is answered
 * from the cache by its listing ETag with no request at all; the others are
 * read concurrently (pt2_remote_multi.h, PT2D_BUCKET_CONCURRENCY in flight,
 * each <= 3 round trips) and cached. The prefix and every object obey the
 * daemon's --remote-allow and remote limits (env->remote); without
 * --remote-allow, url= is refused. Items are the library's, named by their
 * s3:// URL, with the ETag /v1/inspect?url= answers; "total" is null (S3
 * does not say how many keys a prefix holds).
 *
 * Runs on a pool worker (the route is a task). Ownership as pt2d_packages.h.
 */
#ifndef PT2D_BUCKET_H
#define PT2D_BUCKET_H

#include "pt2d_job.h"
#include "pt2d_options.h"
#include "pt2d_reply.h"

#define PT2D_BUCKET_CONCURRENCY 8u

struct pt2d_packages_query;

void pt2d_bucket_serve(const struct pt2d_job_env *env, const struct pt2d_packages_query *q,
                       const struct pt2d_options *o, const char *if_none_match,
                       const char *request_id, struct pt2d_reply *reply);

#endif

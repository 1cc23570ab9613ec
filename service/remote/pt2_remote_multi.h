/*
 * pt2_remote_multi.h - many remote inspections in flight at once, with
 * connections and name lookups reused.
 *
 * Design: an inspection is a sequence of blocking reads made by the library
 * (pt2_source), so overlapping packages means one thread per package in
 * flight; up to `concurrency` threads take the next index until none is
 * left. Each thread keeps one curl multi handle for the life of the pool and
 * hands it to every pt2_remote it opens (pt2_remote_opts.multi): the
 * connection a package used stays open in that handle's cache for the next
 * package on that thread, so a host sees at most `concurrency` connections,
 * each reused. One curl share handle, locked per kind of data, carries the
 * name lookups and TLS sessions between the threads (libcurl does not
 * support sharing live connections between concurrent threads, hence the
 * per-thread multi handles). Memory is bounded by the threads: each holds
 * one package at a time, and a caller's work function keeps what it needs.
 *
 * Ownership: the pool owns its handles; run() borrows base and ctx for its
 * duration. One run() at a time per pool; the work function is called on
 * the pool's threads (with concurrency 1 on the caller's) and must be safe
 * to call concurrently for different indexes.
 */
#ifndef PT2_REMOTE_MULTI_H
#define PT2_REMOTE_MULTI_H

#include <stddef.h>

#include "pt2_remote.h"

#define PT2_REMOTE_CONCURRENCY_DEFAULT 16u
#define PT2_REMOTE_CONCURRENCY_MAX 256u

typedef struct pt2_remote_multi pt2_remote_multi;

/* Work item i, with `opts` (base's, multi and share set) to open its URL with. */
typedef void (*pt2_remote_work_fn)(void *ctx, size_t i, const struct pt2_remote_opts *opts);

/* A pool of 1..PT2_REMOTE_CONCURRENCY_MAX (0 = the default). PT2_ERR_INVALID, PT2_ERR_NOMEM. */
int pt2_remote_multi_new(pt2_remote_multi **out, unsigned concurrency, struct pt2_error *err);
void pt2_remote_multi_free(pt2_remote_multi *m);
unsigned pt2_remote_multi_concurrency(const pt2_remote_multi *m);

/*
 * work(ctx, i, opts) for every i in [0, count), at most `concurrency` at a
 * time; returns when all are done. PT2_ERR_INTERNAL when no thread could be
 * started (then nothing ran); a thread that fails to start leaves its share
 * of the work to the others.
 */
int pt2_remote_multi_run(pt2_remote_multi *m, size_t count, const struct pt2_remote_opts *base,
                         pt2_remote_work_fn work, void *ctx, struct pt2_error *err);

#endif

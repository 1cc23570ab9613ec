/*
 * pt2d_pool.h - a fixed pool of worker threads fed by a bounded queue.
 *
 * Design: all archive work runs here, never on the HTTP thread. The queue
 * holds at most `capacity` waiting jobs; submitting to a full queue fails
 * at once (the caller answers 503) instead of blocking the HTTP thread.
 * A job is a function and an argument; the pool never owns the argument.
 *
 * Ownership: pt2d_pool_create() returns a pool freed with pt2d_pool_free(),
 * which refuses new jobs, runs every job already queued and joins the
 * workers, so no job is ever dropped. pt2d_pool_stop() does the same but
 * keeps the pool allocated, so that threads still holding it (the HTTP
 * threads during shutdown) can call submit (refused) and stats safely.
 */
#ifndef PT2D_POOL_H
#define PT2D_POOL_H

#include <stddef.h>

#include "pt2scope.h"

#define PT2D_POOL_MAX_WORKERS 1024
#define PT2D_POOL_MAX_QUEUE 65536

typedef void (*pt2d_job_fn)(void *arg);

struct pt2d_pool;

struct pt2d_pool_stats {
    size_t queued;   /* jobs waiting */
    size_t capacity; /* queue capacity */
    size_t busy;     /* workers running a job */
    size_t workers;  /* worker threads */
};

int pt2d_pool_create(struct pt2d_pool **out, size_t workers, size_t capacity,
                     struct pt2_error *err);

/* Queue a job. PT2_ERR_OVERLOADED when the queue is full or the pool is stopping. */
int pt2d_pool_submit(struct pt2d_pool *p, pt2d_job_fn fn, void *arg);

void pt2d_pool_stats(struct pt2d_pool *p, struct pt2d_pool_stats *out);

/*
 * Take every job that has not started off the queue and call `cancel` with
 * its argument instead of its function (shutdown: they are answered 503 at
 * once rather than run). Jobs already running are untouched. Returns how
 * many were cancelled.
 */
size_t pt2d_pool_cancel_queued(struct pt2d_pool *p, pt2d_job_fn cancel);

/* Refuse new jobs, run the queued ones, join the workers. Idempotent. */
void pt2d_pool_stop(struct pt2d_pool *p);

/* pt2d_pool_stop(), then release the pool. Accepts NULL. */
void pt2d_pool_free(struct pt2d_pool *p);

#endif

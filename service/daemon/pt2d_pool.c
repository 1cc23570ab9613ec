/*
 * pt2d_pool.c - worker pool over a ring buffer (see pt2d_pool.h).
 *
 * Worker threads block SIGTERM/SIGINT like every thread of the daemon
 * (the mask is inherited from the creating thread), so signals only reach
 * the main thread's signalfd.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_pool.h"

struct pool_job {
    pt2d_job_fn fn;
    void *arg;
};

struct pt2d_pool {
    pthread_mutex_t lock;
    pthread_cond_t nonempty;
    struct pool_job *ring;
    size_t capacity, head, count;
    size_t busy;
    int stopping;
    pthread_t *threads;
    size_t nthreads; /* threads actually started */
    size_t workers;
};

static void *pool_worker(void *arg)
{
    struct pt2d_pool *p = arg;

    pthread_mutex_lock(&p->lock);
    for (;;) {
        struct pool_job job;

        while (p->count == 0 && !p->stopping)
            pthread_cond_wait(&p->nonempty, &p->lock);
        if (p->count == 0)
            break; /* stopping and drained */
        job = p->ring[p->head];
        p->head = (p->head + 1) % p->capacity;
        p->count--;
        p->busy++;
        pthread_mutex_unlock(&p->lock);
        job.fn(job.arg);
        pthread_mutex_lock(&p->lock);
        p->busy--;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int pt2d_pool_create(struct pt2d_pool **out, size_t workers, size_t capacity, struct pt2_error *err)
{
    struct pt2d_pool *p = NULL;
    char eb[128];
    int rc = PT2_OK;

    *out = NULL;
    if (workers < 1 || workers > PT2D_POOL_MAX_WORKERS || capacity < 1 ||
        capacity > PT2D_POOL_MAX_QUEUE)
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "pool: %zu workers / queue %zu out of range (1..%d / 1..%d)", workers,
                             capacity, PT2D_POOL_MAX_WORKERS, PT2D_POOL_MAX_QUEUE);
    p = calloc(1, sizeof(*p));
    if (p == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "pool: out of memory");
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->nonempty, NULL);
    p->capacity = capacity;
    p->workers = workers;
    p->ring = calloc(capacity, sizeof(*p->ring));
    p->threads = calloc(workers, sizeof(*p->threads));
    if (p->ring == NULL || p->threads == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "pool: out of memory");
        goto cleanup;
    }
    for (p->nthreads = 0; p->nthreads < workers; p->nthreads++) {
        int e = pthread_create(&p->threads[p->nthreads], NULL, pool_worker, p);
        if (e != 0) {
            rc = pt2_error_set(err, PT2_ERR_INTERNAL, "pool: cannot start worker %zu: %s",
                               p->nthreads + 1, strerror_r(e, eb, sizeof(eb)));
            goto cleanup;
        }
    }
    *out = p;
    return PT2_OK;
cleanup:
    pt2d_pool_free(p);
    return rc;
}

int pt2d_pool_submit(struct pt2d_pool *p, pt2d_job_fn fn, void *arg)
{
    int rc = PT2_OK;

    pthread_mutex_lock(&p->lock);
    if (p->stopping || p->count == p->capacity) {
        rc = PT2_ERR_OVERLOADED;
    } else {
        p->ring[(p->head + p->count) % p->capacity] = (struct pool_job){fn, arg};
        p->count++;
        pthread_cond_signal(&p->nonempty);
    }
    pthread_mutex_unlock(&p->lock);
    return rc;
}

void pt2d_pool_stats(struct pt2d_pool *p, struct pt2d_pool_stats *out)
{
    pthread_mutex_lock(&p->lock);
    out->queued = p->count;
    out->capacity = p->capacity;
    out->busy = p->busy;
    out->workers = p->workers;
    pthread_mutex_unlock(&p->lock);
}

size_t pt2d_pool_cancel_queued(struct pt2d_pool *p, pt2d_job_fn cancel)
{
    struct pool_job *taken;
    size_t n, i;

    pthread_mutex_lock(&p->lock);
    n = p->count;
    taken = n > 0 ? malloc(n * sizeof(*taken)) : NULL;
    if (taken == NULL)
        n = 0; /* out of memory: they stay queued and run, as before shutdown */
    for (i = 0; i < n; i++)
        taken[i] = p->ring[(p->head + i) % p->capacity];
    p->head = (p->head + n) % p->capacity;
    p->count -= n;
    pthread_mutex_unlock(&p->lock);
    /* Outside the lock: a cancel answers its request, which may submit nothing more. */
    for (i = 0; i < n; i++)
        cancel(taken[i].arg);
    free(taken);
    return n;
}

void pt2d_pool_stop(struct pt2d_pool *p)
{
    size_t i;

    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    pthread_cond_broadcast(&p->nonempty);
    pthread_mutex_unlock(&p->lock);
    /* Only the thread that owns the pool stops it, so nthreads needs no lock. */
    for (i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    p->nthreads = 0;
}

void pt2d_pool_free(struct pt2d_pool *p)
{
    if (p == NULL)
        return;
    pt2d_pool_stop(p);
    pthread_cond_destroy(&p->nonempty);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p->ring);
    free(p);
}

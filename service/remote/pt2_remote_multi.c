/*
 * pt2_remote_multi.c - the pool of pt2_remote_multi.h: threads claiming
 * indexes from an atomic counter, a multi handle per thread, one locked
 * share handle.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "pt2_remote.h"
#include "pt2_remote_multi.h"
#include "pt2scope.h"

struct pt2_remote_multi {
    unsigned n;
    CURLM **multis; /* one per thread, kept between runs: their connection caches */
    CURLSH *share;
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
    int locks_ready;
};

/* One run's shared state, and what each thread is given. */
struct run {
    pt2_remote_multi *m;
    size_t count;
    atomic_size_t next;
    const struct pt2_remote_opts *base;
    pt2_remote_work_fn work;
    void *ctx;
};

struct worker {
    struct run *run;
    unsigned slot;
};

static void on_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud)
{
    pt2_remote_multi *m = ud;

    (void)h;
    (void)access;
    if (data < CURL_LOCK_DATA_LAST)
        pthread_mutex_lock(&m->locks[data]);
}

static void on_unlock(CURL *h, curl_lock_data data, void *ud)
{
    pt2_remote_multi *m = ud;

    (void)h;
    if (data < CURL_LOCK_DATA_LAST)
        pthread_mutex_unlock(&m->locks[data]);
}

static int share_setup(pt2_remote_multi *m)
{
    m->share = curl_share_init();
    if (m->share == NULL)
        return PT2_ERR_NOMEM;
    if (curl_share_setopt(m->share, CURLSHOPT_LOCKFUNC, on_lock) != CURLSHE_OK ||
        curl_share_setopt(m->share, CURLSHOPT_UNLOCKFUNC, on_unlock) != CURLSHE_OK ||
        curl_share_setopt(m->share, CURLSHOPT_USERDATA, m) != CURLSHE_OK ||
        curl_share_setopt(m->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK ||
        curl_share_setopt(m->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK)
        return PT2_ERR_INTERNAL;
    return PT2_OK;
}

int pt2_remote_multi_new(pt2_remote_multi **out, unsigned concurrency, struct pt2_error *err)
{
    pt2_remote_multi *m;
    int rc;

    *out = NULL;
    if (concurrency == 0)
        concurrency = PT2_REMOTE_CONCURRENCY_DEFAULT;
    if (concurrency > PT2_REMOTE_CONCURRENCY_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID, "the remote concurrency is 1 to %u",
                             PT2_REMOTE_CONCURRENCY_MAX);
    m = calloc(1, sizeof(*m));
    if (m == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    m->n = concurrency;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&m->locks[i], NULL);
    m->locks_ready = 1;
    m->multis = calloc(concurrency, sizeof(*m->multis));
    rc = m->multis != NULL ? share_setup(m) : PT2_ERR_NOMEM;
    for (unsigned i = 0; rc == PT2_OK && i < concurrency; i++)
        if ((m->multis[i] = curl_multi_init()) == NULL)
            rc = PT2_ERR_NOMEM;
    if (rc != PT2_OK) {
        pt2_remote_multi_free(m);
        return pt2_error_set(err, rc, "cannot set up %u concurrent transfers", concurrency);
    }
    *out = m;
    return PT2_OK;
}

void pt2_remote_multi_free(pt2_remote_multi *m)
{
    if (m == NULL)
        return;
    for (unsigned i = 0; m->multis != NULL && i < m->n; i++)
        if (m->multis[i] != NULL)
            curl_multi_cleanup(m->multis[i]);
    free(m->multis);
    if (m->share != NULL)
        curl_share_cleanup(m->share);
    if (m->locks_ready)
        for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
            pthread_mutex_destroy(&m->locks[i]);
    free(m);
}

unsigned pt2_remote_multi_concurrency(const pt2_remote_multi *m)
{
    return m->n;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct run *r = w->run;
    struct pt2_remote_opts o = *r->base;
    size_t i;

    o.multi = r->m->multis[w->slot];
    o.share = r->m->share;
    while ((i = atomic_fetch_add(&r->next, 1)) < r->count)
        r->work(r->ctx, i, &o);
    return NULL;
}

int pt2_remote_multi_run(pt2_remote_multi *m, size_t count, const struct pt2_remote_opts *base,
                         pt2_remote_work_fn work, void *ctx, struct pt2_error *err)
{
    static const struct pt2_remote_opts defaults;
    pthread_t tids[PT2_REMOTE_CONCURRENCY_MAX];
    struct worker ws[PT2_REMOTE_CONCURRENCY_MAX];
    struct run r = {
        .m = m, .count = count, .base = base != NULL ? base : &defaults, .work = work, .ctx = ctx};
    unsigned n = count < m->n ? (unsigned)count : m->n, started = 0;

    atomic_init(&r.next, 0);
    if (n <= 1) { /* on the caller's thread: nothing to overlap */
        ws[0].run = &r;
        ws[0].slot = 0;
        worker_main(&ws[0]);
        return PT2_OK;
    }
    for (unsigned t = 0; t < n; t++) {
        ws[t].run = &r;
        ws[t].slot = t;
        if (pthread_create(&tids[started], NULL, worker_main, &ws[t]) == 0)
            started++;
    }
    if (started == 0)
        return pt2_error_set(err, PT2_ERR_INTERNAL, "cannot start a thread for remote reads");
    for (unsigned t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    return PT2_OK;
}

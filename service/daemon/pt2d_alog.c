/*
 * pt2d_alog.c - per-thread access-log buffers and their flusher (see pt2d_alog.h).
 *
 * Each thread's buffer is found through a pthread key of this log (several
 * servers in one process each have their own). Buffers are on one list that
 * the flusher walks; lock order is the list's lock, then a buffer's. A
 * thread's exit (the key's destructor) takes its buffer off the list and
 * writes it, so a server with short-lived threads holds no buffer per
 * thread that ever ran.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pt2d_alog.h"
#include "pt2d_clock.h"

struct alog_buf {
    pthread_mutex_t mu;
    struct pt2d_alog *owner;
    struct alog_buf *prev, *next; /* the owner's list, under its lock */
    size_t len;
    char text[PIPE_BUF];
};

struct pt2d_alog {
    FILE *out;
    unsigned flush_ms; /* 0: no buffers, every line written at once */
    pthread_key_t key;
    pthread_mutex_t mu; /* the list, `stopping` */
    pthread_cond_t wake;
    struct alog_buf *bufs;
    int stopping;
    int flusher_started;
    pthread_t flusher;
};

/* The buffer's lines to the stream; the caller holds its mutex (or owns it alone). */
static void buf_write(struct alog_buf *b)
{
    if (b->len > 0)
        pt2d_log_write(b->owner->out, b->text, b->len);
    b->len = 0;
}

static void list_remove(struct pt2d_alog *l, struct alog_buf *b)
{
    if (b->prev != NULL)
        b->prev->next = b->next;
    else
        l->bufs = b->next;
    if (b->next != NULL)
        b->next->prev = b->prev;
}

/* The key's destructor: a thread that logged exits. */
static void buf_release(void *p)
{
    struct alog_buf *b = p;
    struct pt2d_alog *l = b->owner;

    pthread_mutex_lock(&l->mu);
    list_remove(l, b);
    pthread_mutex_unlock(&l->mu);
    buf_write(b); /* off the list: no other thread can reach it */
    pthread_mutex_destroy(&b->mu);
    free(b);
}

/* This thread's buffer, made on its first line; NULL without memory. */
static struct alog_buf *buf_of_thread(struct pt2d_alog *l)
{
    struct alog_buf *b = pthread_getspecific(l->key);

    if (b != NULL)
        return b;
    b = malloc(sizeof(*b));
    if (b == NULL)
        return NULL;
    pthread_mutex_init(&b->mu, NULL);
    b->owner = l;
    b->len = 0;
    b->prev = NULL;
    pthread_mutex_lock(&l->mu);
    b->next = l->bufs;
    if (l->bufs != NULL)
        l->bufs->prev = b;
    l->bufs = b;
    pthread_mutex_unlock(&l->mu);
    if (pthread_setspecific(l->key, b) != 0) {
        pthread_mutex_lock(&l->mu);
        list_remove(l, b);
        pthread_mutex_unlock(&l->mu);
        pthread_mutex_destroy(&b->mu);
        free(b);
        return NULL;
    }
    return b;
}

/* Every buffer to the stream; the caller holds the list's lock. */
static void flush_all_locked(struct pt2d_alog *l)
{
    struct alog_buf *b;

    for (b = l->bufs; b != NULL; b = b->next) {
        pthread_mutex_lock(&b->mu);
        buf_write(b);
        pthread_mutex_unlock(&b->mu);
    }
}

static void *flusher_main(void *arg)
{
    struct pt2d_alog *l = arg;
    struct timespec until;

    pthread_mutex_lock(&l->mu);
    while (!l->stopping) {
        pt2d_clock_after(&until, CLOCK_MONOTONIC, l->flush_ms);
        while (!l->stopping && pthread_cond_timedwait(&l->wake, &l->mu, &until) != ETIMEDOUT)
            ;
        flush_all_locked(l);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

static int out_has_fd(FILE *out)
{
    return out != NULL && fileno(out) >= 0;
}

int pt2d_alog_start(struct pt2d_alog **out_log, FILE *out, unsigned flush_ms, struct pt2_error *err)
{
    struct pt2d_alog *l;
    pthread_condattr_t ca;

    *out_log = NULL;
    if (flush_ms > PT2D_ALOG_FLUSH_MS_MAX)
        return pt2_error_set(err, PT2_ERR_INVALID, "access log: flush interval %u ms is over %u ms",
                             flush_ms, PT2D_ALOG_FLUSH_MS_MAX);
    l = calloc(1, sizeof(*l));
    if (l == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "access log: out of memory");
    l->out = out;
    l->flush_ms = out_has_fd(out) ? flush_ms : 0;
    if (l->flush_ms == 0) {
        *out_log = l;
        return PT2_OK;
    }
    if (pthread_key_create(&l->key, buf_release) != 0) {
        free(l);
        return pt2_error_set(err, PT2_ERR_NOMEM, "access log: no thread key left");
    }
    pthread_mutex_init(&l->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&l->flusher, NULL, flusher_main, l) != 0) {
        pt2d_alog_stop(l);
        return pt2_error_set(err, PT2_ERR_NOMEM, "access log: cannot start its flusher thread");
    }
    l->flusher_started = 1;
    *out_log = l;
    return PT2_OK;
}

void pt2d_alog_access(struct pt2d_alog *l, const struct pt2d_access_record *r)
{
    char text[PT2D_LOG_LINE_MAX];
    struct alog_buf *b;
    size_t len;

    if (l == NULL)
        return;
    if (l->flush_ms == 0 || (b = buf_of_thread(l)) == NULL) {
        pt2d_log_access(l->out, r);
        return;
    }
    len = pt2d_log_access_format(r, text);
    if (len == 0)
        return;
    pthread_mutex_lock(&b->mu);
    if (len > sizeof(b->text) - b->len)
        buf_write(b);
    if (len > sizeof(b->text))
        pt2d_log_write(l->out, text, len); /* a line longer than a batch goes alone */
    else {
        memcpy(b->text + b->len, text, len);
        b->len += len;
    }
    pthread_mutex_unlock(&b->mu);
}

void pt2d_alog_flush(struct pt2d_alog *l)
{
    if (l == NULL || l->flush_ms == 0)
        return;
    pthread_mutex_lock(&l->mu);
    flush_all_locked(l);
    pthread_mutex_unlock(&l->mu);
}

void pt2d_alog_stop(struct pt2d_alog *l)
{
    struct alog_buf *b;

    if (l == NULL)
        return;
    if (l->flush_ms == 0) {
        free(l);
        return;
    }
    pthread_mutex_lock(&l->mu);
    l->stopping = 1;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->mu);
    if (l->flusher_started)
        pthread_join(l->flusher, NULL);
    /* The threads that logged have stopped logging: their buffers are this log's now.
     * The key goes first, so no destructor runs on them later. */
    pthread_key_delete(l->key);
    while ((b = l->bufs) != NULL) {
        l->bufs = b->next;
        buf_write(b);
        pthread_mutex_destroy(&b->mu);
        free(b);
    }
    pthread_cond_destroy(&l->wake);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

/*
 * pt2d_deadline.c - header deadlines and their watchdog (see pt2d_deadline.h).
 *
 * A doubly linked list under one mutex: add and remove are O(1) per
 * connection, and the watchdog walks the list four times a second, which
 * for the connections one process holds (at most --max-connections) is
 * microseconds.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "pt2d_clock.h"
#include "pt2d_deadline.h"

#define TICK_MS 250

struct pt2d_deadline {
    struct pt2d_deadline *prev, *next;
    int fd;
    int in_request;
    int cut;
    int in_body;
    struct timespec due, body_start;
};

struct pt2d_deadlines {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    int has_thread;                    /* a watchdog runs (seconds > 0) */
    struct pt2d_deadline *head, *tail; /* newest first: the oldest is the tail */
    unsigned seconds;
    unsigned max_in_headers; /* 0: no header-phase budget */
    unsigned in_headers;     /* connections in their headers now (not cut) */
    int stopping;
    uint64_t cut, budget_cut;
};

/* Waiting for (or receiving) a request's headers, and not cut yet: what the budget counts. */
static int in_headers(const struct pt2d_deadline *e)
{
    return !e->in_request && !e->in_body && !e->cut;
}

/* Account for a change of e's state made between before = in_headers(e) and now. */
static void recount(struct pt2d_deadlines *d, const struct pt2d_deadline *e, int before)
{
    int after = in_headers(e);

    if (after && !before)
        d->in_headers++;
    else if (before && !after)
        d->in_headers--;
}

/* Shut e's socket down (libmicrohttpd then closes it as for a client that left). */
static void cut(struct pt2d_deadlines *d, struct pt2d_deadline *e)
{
    int before = in_headers(e);

    /* Still registered, so the descriptor is still this connection's. */
    shutdown(e->fd, SHUT_RDWR);
    e->cut = 1;
    recount(d, e, before);
}

static void due_from_now(struct pt2d_deadline *e, unsigned seconds)
{
    clock_gettime(CLOCK_MONOTONIC, &e->due);
    e->due.tv_sec += (time_t)seconds;
}

static int passed(const struct timespec *due, const struct timespec *now)
{
    return now->tv_sec > due->tv_sec ||
           (now->tv_sec == due->tv_sec && now->tv_nsec >= due->tv_nsec);
}

static void *watchdog(void *arg)
{
    struct pt2d_deadlines *d = arg;
    struct timespec now, until;
    struct pt2d_deadline *e;

    pthread_mutex_lock(&d->lock);
    while (!d->stopping) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        for (e = d->head; e != NULL; e = e->next) {
            if (e->in_request || e->cut || !passed(&e->due, &now))
                continue;
            cut(d, e);
            d->cut++;
        }
        until = now;
        pt2d_clock_add_ms(&until, TICK_MS);
        while (!d->stopping && pthread_cond_timedwait(&d->wake, &d->lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

int pt2d_deadlines_start(struct pt2d_deadlines **out, unsigned seconds, unsigned max_in_headers,
                         struct pt2_error *err)
{
    struct pt2d_deadlines *d;
    pthread_condattr_t ca;

    *out = NULL;
    if (seconds == 0 && max_in_headers == 0)
        return PT2_OK;
    d = calloc(1, sizeof(*d));
    if (d == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "deadlines: out of memory");
    d->seconds = seconds;
    d->max_in_headers = max_in_headers;
    pthread_mutex_init(&d->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&d->wake, &ca);
    pthread_condattr_destroy(&ca);
    d->has_thread = seconds > 0;
    if (d->has_thread && pthread_create(&d->thread, NULL, watchdog, d) != 0) {
        pthread_cond_destroy(&d->wake);
        pthread_mutex_destroy(&d->lock);
        free(d);
        return pt2_error_set(err, PT2_ERR_INTERNAL, "deadlines: cannot start the watchdog");
    }
    *out = d;
    return PT2_OK;
}

void pt2d_deadlines_stop(struct pt2d_deadlines *d)
{
    struct pt2d_deadline *e, *next;

    if (d == NULL)
        return;
    pthread_mutex_lock(&d->lock);
    d->stopping = 1;
    pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
    if (d->has_thread)
        pthread_join(d->thread, NULL);
    for (e = d->head; e != NULL; e = next) {
        next = e->next;
        free(e);
    }
    pthread_cond_destroy(&d->wake);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

/* The budget is full: cut the connection longest in the registry that is still in its headers. */
static void cut_oldest_in_headers(struct pt2d_deadlines *d)
{
    struct pt2d_deadline *e;

    for (e = d->tail; e != NULL; e = e->prev)
        if (in_headers(e)) {
            cut(d, e);
            d->budget_cut++;
            return;
        }
}

struct pt2d_deadline *pt2d_deadlines_add(struct pt2d_deadlines *d, int fd)
{
    struct pt2d_deadline *e;

    if (d == NULL || fd < 0 || (e = calloc(1, sizeof(*e))) == NULL)
        return NULL;
    e->fd = fd;
    due_from_now(e, d->seconds);
    pthread_mutex_lock(&d->lock);
    /* Room for the newcomer first: a flood of slow clients pushes out the oldest of its own. */
    while (d->max_in_headers > 0 && d->in_headers >= d->max_in_headers)
        cut_oldest_in_headers(d);
    e->next = d->head;
    if (d->head != NULL)
        d->head->prev = e;
    else
        d->tail = e;
    d->head = e;
    d->in_headers++;
    pthread_mutex_unlock(&d->lock);
    return e;
}

void pt2d_deadlines_in_request(struct pt2d_deadlines *d, struct pt2d_deadline *e, int in_request)
{
    int before;

    if (d == NULL || e == NULL)
        return;
    pthread_mutex_lock(&d->lock);
    before = in_headers(e);
    e->in_request = in_request;
    e->in_body = 0;
    if (!in_request)
        due_from_now(e, d->seconds);
    recount(d, e, before);
    pthread_mutex_unlock(&d->lock);
}

void pt2d_deadlines_body(struct pt2d_deadlines *d, struct pt2d_deadline *e, uint64_t received)
{
    uint64_t extra = received / PT2D_BODY_MIN_RATE;
    int before;

    if (d == NULL || e == NULL)
        return;
    pthread_mutex_lock(&d->lock);
    before = in_headers(e);
    if (!e->in_body) {
        e->in_body = 1;
        clock_gettime(CLOCK_MONOTONIC, &e->body_start);
    }
    e->in_request = 0;
    e->due = e->body_start;
    e->due.tv_sec += (time_t)d->seconds + (time_t)(extra > 86400u * 365u ? 86400u * 365u : extra);
    recount(d, e, before);
    pthread_mutex_unlock(&d->lock);
}

void pt2d_deadlines_remove(struct pt2d_deadlines *d, struct pt2d_deadline *e)
{
    if (d == NULL || e == NULL)
        return;
    pthread_mutex_lock(&d->lock);
    if (in_headers(e))
        d->in_headers--;
    if (e->prev != NULL)
        e->prev->next = e->next;
    else
        d->head = e->next;
    if (e->next != NULL)
        e->next->prev = e->prev;
    else
        d->tail = e->prev;
    pthread_mutex_unlock(&d->lock);
    free(e);
}

uint64_t pt2d_deadlines_budget_cut(struct pt2d_deadlines *d)
{
    uint64_t n;

    if (d == NULL)
        return 0;
    pthread_mutex_lock(&d->lock);
    n = d->budget_cut;
    pthread_mutex_unlock(&d->lock);
    return n;
}

uint64_t pt2d_deadlines_cut(struct pt2d_deadlines *d)
{
    uint64_t n;

    if (d == NULL)
        return 0;
    pthread_mutex_lock(&d->lock);
    n = d->cut;
    pthread_mutex_unlock(&d->lock);
    return n;
}

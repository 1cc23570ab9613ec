/*
 * pt2d_gate.c - the job gate of test builds (see pt2d_gate.h).
 *
 * Waits are deadlines on CLOCK_MONOTONIC, so a clock step cannot stretch or
 * cut them. A file gate polls (a few ms apart): inotify would be exact, but
 * a test gate needs no more than "soon after the file appears", and polling
 * has no descriptor to leak from a worker thread. Without
 * PT2SCOPE_TEST_HOOKS this file compiles to nothing (and make does not link
 * it into pt2scoped).
 */
#ifdef PT2SCOPE_TEST_HOOKS

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pt2d_clock.h"
#include "pt2d_gate.h"

static int gate_passed(const struct timespec *deadline)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > deadline->tv_sec ||
           (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

void pt2d_gate_init(struct pt2d_gate *g)
{
    pthread_condattr_t ca;

    memset(g, 0, sizeof(*g));
    pthread_mutex_init(&g->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g->cond, &ca);
    pthread_condattr_destroy(&ca);
}

int pt2d_gate_init_file(struct pt2d_gate *g, const char *file, struct pt2_error *err)
{
    pt2d_gate_init(g);
    if (file == NULL || file[0] == '\0' || strlen(file) >= sizeof(g->file)) {
        pt2d_gate_destroy(g);
        return pt2_error_set(err, PT2_ERR_INVALID,
                             "test gate: the file name is empty or longer than %zu bytes",
                             sizeof(g->file) - 1);
    }
    snprintf(g->file, sizeof(g->file), "%s", file);
    return PT2_OK;
}

void pt2d_gate_destroy(struct pt2d_gate *g)
{
    pthread_cond_destroy(&g->cond);
    pthread_mutex_destroy(&g->lock);
}

void pt2d_gate_open(struct pt2d_gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = 1;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

/* File gate: poll for the file; the gate stays open once it was seen. */
static int gate_wait_file(struct pt2d_gate *g, const struct timespec *deadline)
{
    const struct timespec step = {0, (long)PT2D_GATE_POLL_MS * 1000000L};

    for (;;) {
        if (access(g->file, F_OK) == 0) {
            pt2d_gate_open(g);
            return 1;
        }
        if (gate_passed(deadline))
            return 0;
        nanosleep(&step, NULL);
    }
}

int pt2d_gate_wait(struct pt2d_gate *g)
{
    struct timespec deadline;
    int opened;

    pt2d_clock_after(&deadline, CLOCK_MONOTONIC, PT2D_GATE_MAX_MS);
    pthread_mutex_lock(&g->lock);
    opened = g->open;
    if (!opened) {
        g->waiting++;
        pthread_cond_broadcast(&g->cond); /* pt2d_gate_await_waiting */
        if (g->file[0] != '\0') {
            pthread_mutex_unlock(&g->lock);
            opened = gate_wait_file(g, &deadline);
            pthread_mutex_lock(&g->lock);
        } else {
            while (!g->open && pthread_cond_timedwait(&g->cond, &g->lock, &deadline) != ETIMEDOUT)
                ;
            opened = g->open;
        }
        g->waiting--;
    }
    pthread_mutex_unlock(&g->lock);
    return opened;
}

unsigned pt2d_gate_waiting(struct pt2d_gate *g)
{
    unsigned n;

    pthread_mutex_lock(&g->lock);
    n = g->waiting;
    pthread_mutex_unlock(&g->lock);
    return n;
}

int pt2d_gate_await_waiting(struct pt2d_gate *g, unsigned n, unsigned timeout_ms)
{
    struct timespec deadline;
    int reached;

    pt2d_clock_after(&deadline, CLOCK_MONOTONIC, timeout_ms);
    pthread_mutex_lock(&g->lock);
    while (g->waiting < n && pthread_cond_timedwait(&g->cond, &g->lock, &deadline) != ETIMEDOUT)
        ;
    reached = g->waiting >= n;
    pthread_mutex_unlock(&g->lock);
    return reached;
}

#endif /* PT2SCOPE_TEST_HOOKS */

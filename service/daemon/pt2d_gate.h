/*
 * pt2d_gate.h - test builds only: package jobs wait at a gate the test opens.
 *
 * Design: a test that needs a job to stay busy (a full queue answering 503,
 * a drain with a request in flight) must not guess with a sleep: on a loaded
 * machine any fixed delay is either too short or wasted time. A gate holds
 * every package job at its start until the test opens it, so "busy" lasts
 * exactly as long as the test needs. Two kinds:
 *   in-process (pt2d_gate_init): the HTTP suites, which link the daemon's
 *     objects, hand one to the server (pt2d_config.test_gate) and open it
 *     with pt2d_gate_open();
 *   file (pt2d_gate_init_file; pt2scoped-test --test-gate FILE): open once
 *     FILE exists, for tests that start the daemon as a process.
 * A job waits at most PT2D_GATE_MAX_MS and then goes on, so a test that never
 * opens the gate fails its own assertions instead of hanging.
 *
 * This module, like the response recorder (pt2d_record.h), is compiled only
 * with -DPT2SCOPE_TEST_HOOKS: into $(BUILD)/pt2scoped-test and the HTTP
 * suites, never into $(BUILD)/pt2scoped (tests/shell/hooks.sh checks).
 *
 * Ownership: struct pt2d_gate is caller-owned; pt2d_gate_destroy() releases
 * its mutex and condition variable. The file name is copied.
 */
#ifndef PT2D_GATE_H
#define PT2D_GATE_H

#include <pthread.h>

#include "pt2scope.h"
#include "pt2d_path.h"

#define PT2D_GATE_MAX_MS 30000u /* longest a job waits at a closed gate */
#define PT2D_GATE_POLL_MS 5u    /* file gates: how often FILE is looked for */

struct pt2d_gate {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* CLOCK_MONOTONIC; broadcast on open and on each arrival */
    int open;
    unsigned waiting;         /* jobs at the gate now */
    char file[PT2D_PATH_MAX]; /* "" = in-process gate */
};

/* A closed in-process gate. */
void pt2d_gate_init(struct pt2d_gate *g);
/* A gate that opens once `file` exists; PT2_ERR_INVALID when the name is empty or too long. */
int pt2d_gate_init_file(struct pt2d_gate *g, const char *file, struct pt2_error *err);
void pt2d_gate_destroy(struct pt2d_gate *g);

/* Open the gate: every waiting job goes on, later ones do not stop. */
void pt2d_gate_open(struct pt2d_gate *g);

/*
 * Called by a job before it works: returns 1 once the gate is open, 0 when
 * PT2D_GATE_MAX_MS passed first (the job goes on either way).
 */
int pt2d_gate_wait(struct pt2d_gate *g);

/* Jobs waiting at the gate now. */
unsigned pt2d_gate_waiting(struct pt2d_gate *g);

/* For tests: wait (at most timeout_ms) until `n` jobs wait at the gate; 1 when they do. */
int pt2d_gate_await_waiting(struct pt2d_gate *g, unsigned n, unsigned timeout_ms);

#endif

/*
 * pt2d_clock.h - timespec arithmetic for timed waits.
 *
 * Design: every timed wait of the daemon (the drain, the header-deadline
 * tick, the access log's flusher, the test gate) turns "ms from now" into
 * the absolute time pthread_cond_timedwait takes; the carry into tv_sec
 * lives here once.
 *
 * Ownership: the caller owns `ts`.
 */
#ifndef PT2D_CLOCK_H
#define PT2D_CLOCK_H

#include <time.h>

/* `ts` moved `ms` milliseconds later, tv_nsec kept below one second (`ts` normalised). */
void pt2d_clock_add_ms(struct timespec *ts, unsigned ms);

/* `clock`'s time now plus `ms` milliseconds. */
void pt2d_clock_after(struct timespec *ts, clockid_t clock, unsigned ms);

#endif

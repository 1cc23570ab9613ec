/*
 * pt2d_clock.c - timespec arithmetic for timed waits (see pt2d_clock.h).
 */
#include "pt2d_clock.h"

#define NSEC_PER_SEC 1000000000L

void pt2d_clock_add_ms(struct timespec *ts, unsigned ms)
{
    ts->tv_sec += (time_t)(ms / 1000u);
    ts->tv_nsec += (long)(ms % 1000u) * 1000000L;
    if (ts->tv_nsec >= NSEC_PER_SEC) {
        ts->tv_sec++;
        ts->tv_nsec -= NSEC_PER_SEC;
    }
}

void pt2d_clock_after(struct timespec *ts, clockid_t clock, unsigned ms)
{
    clock_gettime(clock, ts);
    pt2d_clock_add_ms(ts, ms);
}

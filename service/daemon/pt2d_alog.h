/*
 * pt2d_alog.h - the access log, gathered per thread and written in batches.
 *
 * Design: one write(2) per request was the largest cost a cached request
 * had that the bare server has not (a third of its extra system calls).
 * Each HTTP thread appends its access lines to a buffer of its own (at most
 * PIPE_BUF bytes, so a batch written to a pipe is still one atomic write and
 * lines from different threads never interleave); the buffer is written
 * when the next line would not fit, and a flusher thread writes every
 * non-empty buffer each `flush_ms`, so a line is never older than that when
 * it reaches the stream. Each buffer has a mutex that only its own thread
 * and the flusher (once per interval) take: never contended per request.
 * Lines of different threads may reach the stream out of time order (each
 * carries its "ts"); event lines (pt2d_log_event) are written at once.
 * What a killed process had not flushed is lost: at most `flush_ms` of lines.
 *
 * A stream without a descriptor (a memstream), or flush_ms 0, writes each
 * line at once through pt2d_log_access, as before.
 *
 * Ownership: pt2d_alog_start() borrows `out` (which must outlive the log)
 * and returns a log freed with pt2d_alog_stop(), which writes what is left.
 * Every thread that logged must have exited (its lines went to the stream
 * as it did) or be done logging, and none may exit, during the stop.
 */
#ifndef PT2D_ALOG_H
#define PT2D_ALOG_H

#include <stdio.h>

#include "pt2scope.h"
#include "pt2d_log.h"

/* the largest --access-log-flush-ms */
#define PT2D_ALOG_FLUSH_MS_MAX 10000u

struct pt2d_alog;

/* NULL `out` gives a log that drops every line. */
int pt2d_alog_start(struct pt2d_alog **out_log, FILE *out, unsigned flush_ms,
                    struct pt2_error *err);

/* One access line (pt2d_log.h's format); safe from any thread. */
void pt2d_alog_access(struct pt2d_alog *l, const struct pt2d_access_record *r);

/* Write every thread's pending lines now (a reader wants the log as it stands). */
void pt2d_alog_flush(struct pt2d_alog *l);

/* Stop the flusher, write what is left and free; NULL-safe. */
void pt2d_alog_stop(struct pt2d_alog *l);

#endif

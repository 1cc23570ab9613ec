/*
 * pt2d_log.h - JSON-lines logging on a stdio stream (normally stderr).
 *
 * Design: one line per event, one JSON object per line, written with a
 * single fwrite under the stream's lock so lines from worker and HTTP
 * threads never interleave. Strings coming from clients are escaped and
 * truncated (each line is capped at PT2D_LOG_LINE_MAX bytes).
 *
 * Ownership: the FILE is borrowed; records are borrowed for the call.
 */
#ifndef PT2D_LOG_H
#define PT2D_LOG_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "pt2scope.h"
#include "pt2d_buf.h"

#define PT2D_LOG_LINE_MAX 8192

struct pt2d_access_record {
    const char *id; /* X-Request-Id */
    const char *method;
    const char *route; /* route template, e.g. "/v1/inspect", or "other" */
    const char *path;  /* URL path without the query */
    unsigned status;   /* 0 when no response was sent */
    uint64_t bytes;    /* response body bytes */
    double duration_ms;
    const char *remote; /* client address */
    const char *error;  /* why the request ended abnormally, or NULL */
    const char *detail; /* a 5xx problem's detail the client did not get, or NULL */
};

void pt2d_log_access(FILE *out, const struct pt2d_access_record *r);

/* The access line of `r` (with its '\n') in `text` (PT2D_LOG_LINE_MAX bytes); its length,
 * 0 when it would not fit (a line is dropped, never cut). */
size_t pt2d_log_access_format(const struct pt2d_access_record *r, char *text);

/* Write whole lines: one write(2) where `out` has a descriptor and nothing buffered and
 * `len` <= PIPE_BUF (atomic on a pipe; a file's offset moves under the kernel's lock),
 * else one fwrite under the stream's lock. A failed write loses the lines, nothing else. */
void pt2d_log_write(FILE *out, const char *text, size_t len);

/* {"ts":...,"level":level,"msg":<formatted>} */
void pt2d_log_event(FILE *out, const char *level, const char *fmt, ...) PT2_PRINTF(3, 4);

/* Append `s` as a quoted JSON string (truncated to `max` input bytes); the buffer's status. */
int pt2d_log_json_string(struct pt2d_buf *b, const char *s, size_t max);

/* Append the current UTC time as "2026-01-02T03:04:05.678Z" (quoted); the buffer's status. */
int pt2d_log_timestamp(struct pt2d_buf *b);
/* The same for a given CLOCK_REALTIME time. */
int pt2d_log_format_time(struct pt2d_buf *b, const struct timespec *ts);

#endif

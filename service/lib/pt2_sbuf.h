/*
 * pt2_sbuf.h - bounded string builder over a caller-owned buffer.
 *
 * Design: verdict reasons and descriptions are assembled from many pieces
 * into fixed-size buffers. Appends past the end are dropped silently (the
 * text is truncated, never overflowed), so callers need no length checks.
 * The struct lives on the caller's stack; it owns nothing.
 */
#ifndef PT2_SBUF_H
#define PT2_SBUF_H

#include <stddef.h>

#include "pt2_error.h"

struct pt2_sbuf {
    char *buf;  /* borrowed, always NUL-terminated when cap > 0 */
    size_t cap; /* bytes in buf */
    size_t len; /* bytes used, excluding the NUL */
};

void pt2_sbuf_init(struct pt2_sbuf *b, char *buf, size_t cap);
/* Append printf-style text, truncating at the buffer's end. */
void pt2_sbuf_add(struct pt2_sbuf *b, const char *fmt, ...) PT2_PRINTF(2, 3);
/* Append s as pt2_sbuf_add(b, "%s", s) does, without the printf machinery. */
void pt2_sbuf_puts(struct pt2_sbuf *b, const char *s);

/*
 * The few formats the document builders use per kernel and per symbol, without
 * the printf machinery (a sixth of an inspection's time was snprintf of short
 * names): each writes what snprintf(dst, cap, FORMAT, ...) writes, truncated
 * the same way, and returns dst. cap must be > 0.
 */
/* "%s" */
char *pt2_sbuf_copy(char *dst, size_t cap, const char *s);
/* "%s%u%s": prefix, a number, suffix ("sm_" 90 "a", "compute_" 80 "") */
char *pt2_sbuf_tag(char *dst, size_t cap, const char *prefix, unsigned v, const char *suffix);
/* "%u.%u" */
char *pt2_sbuf_version(char *dst, size_t cap, unsigned major, unsigned minor);

/* A printable copy of user text for messages: at most `max` bytes, control and non-ASCII
 * bytes as '?', always NUL-terminated (cap > 0). */
void pt2_sbuf_echo(char *dst, size_t cap, const char *s, size_t max);

/* `s` without leading and trailing blanks into dst: 1, or 0 when it does not fit. */
int pt2_sbuf_trim(char *dst, size_t cap, const char *s);

#endif

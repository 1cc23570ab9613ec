/*
 * pt2d_buf.h - a growable byte buffer with a mandatory size cap.
 *
 * Design: every buffer the daemon fills from outside input (JSON bodies,
 * rendered documents, log lines) goes through this type so that no input
 * can make it grow without bound (the habit of curl's dynbuf). The content
 * is always NUL-terminated so it can be used as a C string. The first
 * failed append is sticky: later appends do nothing and return the same
 * error, so a sequence of appends can be checked once at the end.
 *
 * Ownership: the struct is caller-owned (usually embedded); pt2d_buf_free()
 * releases the storage, pt2d_buf_detach() hands it to the caller instead.
 */
#ifndef PT2D_BUF_H
#define PT2D_BUF_H

#include <stddef.h>

#include "pt2scope.h"

struct pt2d_buf {
    char *ptr;    /* NULL until the first append */
    size_t len;   /* bytes used, excluding the NUL */
    size_t alloc; /* bytes allocated */
    size_t cap;   /* hard limit on len */
    int failed;   /* first append error, PT2_OK while none */
};

void pt2d_buf_init(struct pt2d_buf *b, size_t cap);

/* Append bytes; PT2_ERR_TOO_LARGE past the cap (buffer unchanged), PT2_ERR_NOMEM. */
int pt2d_buf_append(struct pt2d_buf *b, const void *data, size_t len);
int pt2d_buf_puts(struct pt2d_buf *b, const char *s);
int pt2d_buf_printf(struct pt2d_buf *b, const char *fmt, ...) PT2_PRINTF(2, 3);

/* The content as a C string ("" when empty); borrowed. */
const char *pt2d_buf_str(const struct pt2d_buf *b);

/* Hand the malloc'd storage to the caller (never NULL unless out of memory). */
char *pt2d_buf_detach(struct pt2d_buf *b, size_t *len_out);

/* Empty the buffer and clear a sticky error; the storage is kept. */
void pt2d_buf_reset(struct pt2d_buf *b);
void pt2d_buf_free(struct pt2d_buf *b);

#endif

/*
 * pt2d_buf.c - capped growable buffer (see pt2d_buf.h).
 *
 * Growth doubles up to the cap so that appending n bytes costs O(n) overall.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_buf.h"

void pt2d_buf_init(struct pt2d_buf *b, size_t cap)
{
    b->ptr = NULL;
    b->len = 0;
    b->alloc = 0;
    b->cap = cap;
    b->failed = PT2_OK;
}

static int buf_reserve(struct pt2d_buf *b, size_t extra)
{
    size_t need, size;
    char *p;

    if (extra > b->cap || b->len > b->cap - extra)
        return PT2_ERR_TOO_LARGE;
    need = b->len + extra + 1;
    if (need <= b->alloc)
        return PT2_OK;
    size = b->alloc ? b->alloc : 256;
    while (size < need)
        size = size > ((size_t)-1) / 2 ? need : size * 2;
    if (size > b->cap + 1)
        size = b->cap + 1;
    p = realloc(b->ptr, size);
    if (p == NULL)
        return PT2_ERR_NOMEM;
    b->ptr = p;
    b->alloc = size;
    return PT2_OK;
}

int pt2d_buf_append(struct pt2d_buf *b, const void *data, size_t len)
{
    int rc = b->failed != PT2_OK ? b->failed : buf_reserve(b, len);

    if (rc != PT2_OK)
        return b->failed = rc;
    if (len > 0)
        memcpy(b->ptr + b->len, data, len);
    b->len += len;
    b->ptr[b->len] = '\0';
    return PT2_OK;
}

int pt2d_buf_puts(struct pt2d_buf *b, const char *s)
{
    return pt2d_buf_append(b, s, strlen(s));
}

int pt2d_buf_printf(struct pt2d_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n, rc;

    if (b->failed != PT2_OK)
        return b->failed;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return b->failed = PT2_ERR_INTERNAL;
    rc = buf_reserve(b, (size_t)n);
    if (rc != PT2_OK)
        return b->failed = rc;
    va_start(ap, fmt);
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return PT2_OK;
}

const char *pt2d_buf_str(const struct pt2d_buf *b)
{
    return b->ptr != NULL ? b->ptr : "";
}

char *pt2d_buf_detach(struct pt2d_buf *b, size_t *len_out)
{
    char *p = b->ptr;

    if (p == NULL)
        p = calloc(1, 1);
    if (len_out != NULL)
        *len_out = p != NULL ? b->len : 0;
    b->ptr = NULL;
    b->len = 0;
    b->alloc = 0;
    b->failed = PT2_OK;
    return p;
}

void pt2d_buf_reset(struct pt2d_buf *b)
{
    b->len = 0;
    b->failed = PT2_OK;
    if (b->ptr != NULL)
        b->ptr[0] = '\0';
}

void pt2d_buf_free(struct pt2d_buf *b)
{
    if (b == NULL)
        return;
    free(b->ptr);
    b->ptr = NULL;
    b->len = 0;
    b->alloc = 0;
}

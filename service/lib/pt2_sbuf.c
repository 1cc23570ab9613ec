/*
 * pt2_sbuf.c - bounded string builder (see pt2_sbuf.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "pt2_sbuf.h"

void pt2_sbuf_init(struct pt2_sbuf *b, char *buf, size_t cap)
{
    b->buf = buf;
    b->cap = cap;
    b->len = 0;
    if (cap > 0)
        buf[0] = '\0';
}

void pt2_sbuf_add(struct pt2_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->cap == 0 || b->len >= b->cap - 1)
        return;
    va_start(ap, fmt);
    n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    b->len += (size_t)n;
    if (b->len > b->cap - 1)
        b->len = b->cap - 1;
}

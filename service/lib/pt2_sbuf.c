/*
 * pt2_sbuf.c - bounded string builder (see pt2_sbuf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* Append s[0..n) to dst at *at, as far as cap allows (one byte kept for the NUL). */
static void sbuf_put(char *dst, size_t cap, size_t *at, const char *s, size_t n)
{
    if (*at + 1 >= cap)
        return;
    if (n > cap - 1 - *at)
        n = cap - 1 - *at;
    memcpy(dst + *at, s, n);
    *at += n;
}

void pt2_sbuf_puts(struct pt2_sbuf *b, const char *s)
{
    if (b->cap == 0 || b->len >= b->cap - 1)
        return;
    sbuf_put(b->buf, b->cap, &b->len, s, strnlen(s, b->cap - 1 - b->len));
    b->buf[b->len] = '\0';
}

static void sbuf_put_u(char *dst, size_t cap, size_t *at, unsigned v)
{
    char d[12];
    size_t n = sizeof(d);

    do
        d[--n] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    sbuf_put(dst, cap, at, d + n, sizeof(d) - n);
}

char *pt2_sbuf_copy(char *dst, size_t cap, const char *s)
{
    size_t at = 0;

    sbuf_put(dst, cap, &at, s, strnlen(s, cap - 1)); /* no need to measure past the room */
    dst[at] = '\0';
    return dst;
}

char *pt2_sbuf_tag(char *dst, size_t cap, const char *prefix, unsigned v, const char *suffix)
{
    size_t at = 0;

    sbuf_put(dst, cap, &at, prefix, strlen(prefix));
    sbuf_put_u(dst, cap, &at, v);
    sbuf_put(dst, cap, &at, suffix, strlen(suffix));
    dst[at] = '\0';
    return dst;
}

char *pt2_sbuf_version(char *dst, size_t cap, unsigned major, unsigned minor)
{
    size_t at = 0;

    sbuf_put_u(dst, cap, &at, major);
    sbuf_put(dst, cap, &at, ".", 1);
    sbuf_put_u(dst, cap, &at, minor);
    dst[at] = '\0';
    return dst;
}

void pt2_sbuf_echo(char *dst, size_t cap, const char *s, size_t max)
{
    size_t i = 0;

    for (; s != NULL && *s != '\0' && i + 1 < cap && i < max; s++)
        dst[i++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    if (cap > 0)
        dst[i] = '\0';
}

int pt2_sbuf_trim(char *dst, size_t cap, const char *s)
{
    size_t n;

    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    if (n >= cap)
        return 0;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 1;
}

/*
 * pt2d_fmt.h - decimal numbers as text, by hand.
 *
 * Design: the per-request paths (the access line, a file's cache key, the
 * ETag's question) write a few numbers each, often enough that snprintf
 * showed in their profiles (1.5-3 % of a cached request each). These write
 * the bytes printf's "%0*llu" and "%lld" would, with no locale, no
 * allocation and no NUL, and say how many they wrote.
 *
 * Ownership: the caller owns `p`, which has room for PT2D_FMT_INT_MAX bytes.
 */
#ifndef PT2D_FMT_H
#define PT2D_FMT_H

#include <stddef.h>

/* the longest: "-9223372036854775808", or the 20 digits of 2^64 - 1 (no NUL) */
#define PT2D_FMT_INT_MAX 20

/* `v`, zero-padded to at least `width` digits (at most 20). */
size_t pt2d_fmt_uint(char *p, unsigned long long v, int width);

/* `v` with a '-' when negative (LLONG_MIN included). */
size_t pt2d_fmt_int(char *p, long long v);

#endif

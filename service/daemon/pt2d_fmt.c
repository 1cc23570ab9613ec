/*
 * pt2d_fmt.c - decimal numbers as text (see pt2d_fmt.h).
 *
 * Digits are made from the right into a scratch array, then copied in
 * order: one pass, no reversal in place.
 */
#include "pt2d_fmt.h"

#include <string.h>

size_t pt2d_fmt_uint(char *p, unsigned long long v, int width)
{
    char d[PT2D_FMT_INT_MAX];
    size_t n = 0;

    do {
        d[sizeof(d) - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n < (size_t)(width > 0 ? width : 0) && n < sizeof(d))
        d[sizeof(d) - 1 - n++] = '0';
    memcpy(p, d + sizeof(d) - n, n);
    return n;
}

size_t pt2d_fmt_int(char *p, long long v)
{
    if (v >= 0)
        return pt2d_fmt_uint(p, (unsigned long long)v, 1);
    p[0] = '-';
    return 1 + pt2d_fmt_uint(p + 1, 0ull - (unsigned long long)v, 1);
}

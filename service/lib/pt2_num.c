/*
 * pt2_num.c - the one checked integer parser (see pt2scope.h, "Numbers").
 *
 * strtol and friends accept leading blanks, signs on unsigned values and
 * trailing junk unless every caller checks endptr and errno; each of those
 * checks was once forgotten somewhere. These parse a whole string or fail.
 */
#include <stddef.h>
#include <stdint.h>

#include "pt2_error.h"

static int digit(char c, int base)
{
    int v;

    if (c >= '0' && c <= '9')
        v = c - '0';
    else if (c >= 'a' && c <= 'f')
        v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
        v = c - 'A' + 10;
    else
        return -1;
    return v < base ? v : -1;
}

int pt2_num_u64n(const char *s, size_t len, int base, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    if (s == NULL || out == NULL || len == 0 || (base != 10 && base != 16))
        return PT2_ERR_INVALID;
    for (i = 0; i < len; i++) {
        int d = digit(s[i], base);
        if (d < 0 || v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return PT2_ERR_INVALID;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    *out = v;
    return PT2_OK;
}

int pt2_num_u64(const char *s, int base, uint64_t *out)
{
    size_t len = 0;

    if (s == NULL)
        return PT2_ERR_INVALID;
    while (s[len] != '\0' && len < 64)
        len++;
    if (s[len] != '\0')
        return PT2_ERR_INVALID; /* longer than any 64-bit number */
    return pt2_num_u64n(s, len, base, out);
}

int pt2_num_u64_prefix(const char *s, int base, uint64_t *out, const char **end)
{
    size_t len = 0;

    if (s == NULL || end == NULL)
        return PT2_ERR_INVALID;
    while (digit(s[len], base) >= 0)
        len++;
    if (pt2_num_u64n(s, len, base, out) != PT2_OK)
        return PT2_ERR_INVALID;
    *end = s + len;
    return PT2_OK;
}

int pt2_num_i64(const char *s, int64_t *out)
{
    uint64_t v;
    int neg = s != NULL && s[0] == '-';

    if (out == NULL || pt2_num_u64(neg ? s + 1 : s, 10, &v) != PT2_OK)
        return PT2_ERR_INVALID;
    if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
        return PT2_ERR_INVALID;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return PT2_OK;
}

int pt2_num_long(const char *s, long min, long max, long *out)
{
    int64_t v;

    if (out == NULL || pt2_num_i64(s, &v) != PT2_OK || v < min || v > max)
        return PT2_ERR_INVALID;
    *out = (long)v;
    return PT2_OK;
}

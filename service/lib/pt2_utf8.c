/*
 * pt2_utf8.c - UTF-8 validation (RFC 3629) for text that leaves as JSON.
 *
 * Metadata documents must be valid UTF-8 (pt2_meta rejects them otherwise);
 * text echoed from elsewhere (zip entry names, request paths, upload file
 * names) is scrubbed before it is sent, so every JSON answer stays valid.
 */
#include <stdint.h>
#include <string.h>

#include "pt2_utf8.h"

size_t pt2_utf8_seq(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xBF;
    size_t n, i;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    /* Exclude overlong forms, UTF-16 surrogates and code points past U+10FFFF. */
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (avail < n || p[1] < lo || p[1] > hi)
        return 0;
    for (i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return n;
}

/* Eight bytes at a time while none has its high bit set: documents are mostly ASCII. */
static size_t ascii_run(const unsigned char *p, size_t len)
{
    size_t i = 0;
    uint64_t w;

    while (i + 8 <= len) {
        memcpy(&w, p + i, 8);
        if (w & UINT64_C(0x8080808080808080))
            break;
        i += 8;
    }
    while (i < len && p[i] < 0x80)
        i++;
    return i;
}

void pt2_utf8_scrub(char *s, size_t len)
{
    unsigned char *p = (unsigned char *)s;
    size_t i = 0;

    while (i < len) {
        size_t n;

        i += ascii_run(p + i, len - i);
        if (i == len)
            break;
        n = pt2_utf8_seq(p + i, len - i);
        if (n == 0) {
            p[i++] = '?';
            continue;
        }
        i += n;
    }
}

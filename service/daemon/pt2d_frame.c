/*
 * pt2d_frame.c - header lines RFC 9112 refuses (see pt2d_frame.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pt2d_frame.h"

/* Whitespace after a colon longer than this is not a header line MHD kept in place. */
#define PT2D_FRAME_WS_MAX (128u * 1024u)

/* RFC 9110 §5.6.2: tchar. */
static int is_tchar(unsigned char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return 1;
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

const char *pt2d_frame_header_problem(const char *key, const char *value)
{
    const char *p;
    size_t n;

    if (key == NULL || key[0] == '\0')
        return "a header line without a field name";
    for (p = key; *p != '\0'; p++) {
        if (*p == ' ' || *p == '\t')
            return "whitespace between a header field name and its colon (RFC 9112 section 5.1)";
        if (!is_tchar((unsigned char)*p))
            return "a header field name with a character outside the RFC 9110 token set";
    }
    if (value == NULL)
        return NULL;
    /* In place, the value follows the name's terminator and the whitespace MHD skipped.
     * Addresses are compared as numbers: a folded name is another object (MHD's pool),
     * and the bytes between are read only once the value is known to lie after it. */
    n = (size_t)(p - key) + 1;
    if ((uintptr_t)value < (uintptr_t)key + n ||
        (uintptr_t)value - (uintptr_t)key - n > PT2D_FRAME_WS_MAX)
        return "an obs-folded header line (RFC 9112 section 5.2)";
    for (p = key + n; (uintptr_t)p < (uintptr_t)value; p++)
        if (*p != ' ' && *p != '\t')
            return "an obs-folded header line (RFC 9112 section 5.2)";
    return NULL;
}

/*
 * pt2_utf8.h - UTF-8 validation and scrubbing.
 */
#ifndef PT2_UTF8_H
#define PT2_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at p (1-4), or 0 if the bytes there are
 * not one (overlong forms, surrogates and code points past U+10FFFF included). */
size_t pt2_utf8_seq(const unsigned char *p, size_t avail);

/* Replace, in place, every byte of `s[0..len)` that is not part of a valid
 * sequence with '?'. The length never changes, so a JSON text stays JSON. */
void pt2_utf8_scrub(char *s, size_t len);

#endif

/*
 * pt2_utf8.h - UTF-8 validation and scrubbing.
 */
#ifndef PT2_UTF8_H
#define PT2_UTF8_H

#include <stddef.h>

#include "pt2scope.h"

/* Length of the valid UTF-8 sequence at p (1-4), or 0 if the bytes there are
 * not one (overlong forms, surrogates and code points past U+10FFFF included). */
size_t pt2_utf8_seq(const unsigned char *p, size_t avail);

/* pt2_utf8_scrub() is public: see pt2scope.h. */

#endif

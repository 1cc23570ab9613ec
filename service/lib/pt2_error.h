/*
 * pt2_error.h - error reporting shared by every libpt2scope module.
 *
 * Design: functions return an enum pt2_status and describe the failure in a
 * caller-owned struct pt2_error. The first error set wins, like curl's
 * error buffer, so a low-level cause is not overwritten by the generic
 * message of a caller further up. Everything here is public (pt2scope.h);
 * this header only lets library modules say what they use.
 */
#ifndef PT2_ERROR_H
#define PT2_ERROR_H

#include <stddef.h>

#include "pt2scope.h"

/*
 * The text of errno value `e`, thread-safely (strerror() is not; strerror_r()
 * comes in a GNU and an XSI flavour): into buf, or a static string the GNU
 * flavour returns instead. For every library message that names an errno.
 */
const char *pt2_strerror(int e, char *buf, size_t len);

#endif

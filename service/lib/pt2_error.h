/*
 * pt2_error.h - error reporting shared by every libpt2scope module.
 *
 * Design: functions return an enum pt2_status and describe the failure in a
 * caller-owned struct pt2_error (see pt2scope.h). The first error set wins,
 * like curl's error buffer, so a low-level cause is not overwritten by the
 * generic message of a caller further up.
 */
#ifndef PT2_ERROR_H
#define PT2_ERROR_H

#include "pt2scope.h"

#if defined(__GNUC__)
#define PT2_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PT2_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define PT2_PRINTF(a, b)
#define PT2_WARN_UNUSED
#endif

/*
 * Record `code` with a printf-style message unless an error is already set.
 * Returns the code actually stored (so `return pt2_error_set(...)` works);
 * `err` may be NULL, in which case `code` is returned unchanged.
 */
int pt2_error_set(struct pt2_error *err, int code, const char *fmt, ...) PT2_PRINTF(3, 4);

/* Copy `src` into `dst` (first error wins). Returns src->code. */
int pt2_error_copy(struct pt2_error *dst, const struct pt2_error *src);

#endif

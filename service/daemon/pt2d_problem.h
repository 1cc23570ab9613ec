/*
 * pt2d_problem.h - the one table from status codes to HTTP problems.
 *
 * Design: every error the daemon answers is an RFC 9457 problem document
 * built by the library (pt2_problem_json: slug, title and status in one
 * table there, shared with the CLI's --json errors). This module only adds
 * what belongs to an HTTP answer: the request id as `instance`, the
 * trailing newline, UTF-8 scrubbing of echoed request bytes.
 */
#ifndef PT2D_PROBLEM_H
#define PT2D_PROBLEM_H

#include <stddef.h>

#include "pt2scope.h"

#define PT2D_PROBLEM_BASE PT2_PROBLEM_BASE
#define PT2D_PROBLEM_CTYPE "application/problem+json"

struct pt2d_problem_type {
    int code;          /* enum pt2_status */
    unsigned status;   /* HTTP status */
    const char *slug;  /* type suffix: pt2_status_slug(code) */
    const char *title; /* same for every occurrence of the type */
};

/* The problem type for a status code; unknown codes map to "internal". Never NULL. */
const struct pt2d_problem_type *pt2d_problem_lookup(int code);

/*
 * The problem+json body for `code` with `detail` (may be NULL) and
 * instance "urn:request:<request_id>" (omitted when request_id is NULL or
 * empty). Returns a malloc'd, newline-terminated string (caller frees) or NULL
 * when out of memory.
 */
char *pt2d_problem_json(int code, const char *detail, const char *request_id, size_t *len_out);

#endif

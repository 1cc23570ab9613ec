/*
 * pt2d_problem.h - the one table from status codes to HTTP problems.
 *
 * Design: every error the daemon answers is an RFC 9457 problem document
 * whose `type` is PT2D_PROBLEM_BASE + slug. The library's enum pt2_status
 * covers inspection failures; the daemon adds a few codes of its own below
 * (kept far from the library's range). The slugs are a public interface:
 * never rename one.
 */
#ifndef PT2D_PROBLEM_H
#define PT2D_PROBLEM_H

#include <stddef.h>

#include "pt2_error.h"

#define PT2D_PROBLEM_BASE "https://pt2scope.dev/problems/"
#define PT2D_PROBLEM_CTYPE "application/problem+json"

/* Daemon-only failure codes, same convention as enum pt2_status. */
enum pt2d_status {
    PT2D_ERR_OUTSIDE_ROOT = -100,  /* a path reference escapes every --model-root */
    PT2D_ERR_OVERLOADED = -101,    /* the job queue is full, or the daemon is draining */
    PT2D_ERR_METHOD = -102,        /* the route exists but not for this method */
    PT2D_ERR_MEDIA_TYPE = -103,    /* the request body has an unsupported Content-Type */
    PT2D_ERR_NO_ROUTE = -104,      /* no such endpoint */
    PT2D_ERR_DOCS_NOT_BUILT = -105 /* /docs or /openapi.json left out of a build without npm */
};

struct pt2d_problem_type {
    int code;          /* enum pt2_status or enum pt2d_status */
    unsigned status;   /* HTTP status */
    const char *slug;  /* type suffix */
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

/*
 * pt2d_record.h - write every response the daemon sends to a directory.
 *
 * Design: a test hook for the OpenAPI contract tests (tests/contract/). When
 * the environment variable PT2SCOPE_RECORD_DIR names a directory at server
 * start, the server hands each response it queues to pt2d_record_response(),
 * which stores it as one JSON file:
 *   {"method", "path" (no query), "query": {key: [values]}, "status",
 *    "content_type", "headers": {name: value}, "request_json",
 *    "body_kind": "none"|"json"|"text", "body", "body_truncated"}
 * The body is parsed when the media type is JSON, kept as text otherwise,
 * and cut at PT2D_RECORD_BODY_MAX bytes. Files are created with mkstemps()
 * so concurrent workers never collide and nothing is shared between calls.
 * A failure is returned to the caller, never fatal: recording must not change
 * what the client gets.
 *
 * Compiled only with -DPT2SCOPE_TEST_HOOKS, into
 * $(BUILD)/pt2scoped-test and the HTTP suites, never into $(BUILD)/pt2scoped
 * (tests/shell/hooks.sh checks), so PT2SCOPE_RECORD_DIR means nothing to the
 * production daemon.
 *
 * Ownership: struct pt2d_recorder is caller-owned (embedded in the server);
 * everything else is borrowed for the call.
 */
#ifndef PT2D_RECORD_H
#define PT2D_RECORD_H

#include <stddef.h>

#include <cJSON.h>
#include <microhttpd.h>

#include "pt2scope.h"

#define PT2D_RECORD_ENV "PT2SCOPE_RECORD_DIR"
#define PT2D_RECORD_DIR_MAX 1024
#define PT2D_RECORD_BODY_MAX (16u << 20) /* larger bodies are cut and marked */
#define PT2D_RECORD_QUERY_MAX 256        /* query arguments kept per record */
#define PT2D_RECORD_HEADERS_MAX 32       /* response headers kept per record */

struct pt2d_recorder {
    char dir[PT2D_RECORD_DIR_MAX]; /* "" = recording off */
};

/* One response header (both strings borrowed). */
struct pt2d_record_header {
    const char *name;
    const char *value;
};

/* One response, independent of MHD (see pt2d_record_write). */
struct pt2d_record {
    const char *method;
    const char *path;   /* URL path without the query */
    const cJSON *query; /* {key: [values]}, or NULL for none */
    unsigned status;
    const char *content_type; /* NULL when the response has none */
    const struct pt2d_record_header *headers;
    size_t n_headers;
    const char *request_json; /* the request's JSON body, or NULL */
    size_t request_json_len;
    const char *body; /* NULL when no body is sent (HEAD, 204, 304) */
    size_t body_len;
};

/*
 * Turn recording on when PT2SCOPE_RECORD_DIR is set and non-empty (read once,
 * at server start); PT2_ERR_INVALID when it is too long.
 */
int pt2d_recorder_init(struct pt2d_recorder *r, struct pt2_error *err);
/* Turn recording on for `dir` (NULL or "" turns it off); PT2_ERR_INVALID when too long. */
int pt2d_recorder_set_dir(struct pt2d_recorder *r, const char *dir, struct pt2_error *err);
int pt2d_recorder_enabled(const struct pt2d_recorder *r);

/* Write one record as a new file in `r->dir`. PT2_OK without writing when off. */
int pt2d_record_write(const struct pt2d_recorder *r, const struct pt2d_record *rec,
                      struct pt2_error *err);

/*
 * Record a queued MHD response: the query string comes from `conn`, the
 * headers (Content-Type included) from `resp`. `body` is the buffer the
 * response was created from; HEAD requests are recorded without one.
 */
int pt2d_record_response(const struct pt2d_recorder *r, struct MHD_Connection *conn,
                         const char *method, const char *path, unsigned status,
                         struct MHD_Response *resp, const char *body, size_t body_len,
                         const char *request_json, size_t request_json_len, struct pt2_error *err);

#endif

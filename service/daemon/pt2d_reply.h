/*
 * pt2d_reply.h - a response under construction, independent of MHD.
 *
 * Design: handlers (on workers or the HTTP thread) fill a pt2d_reply; only
 * the server module turns it into an MHD response, inside the access
 * handler. Keeping this plain data makes the handlers testable without a
 * socket.
 *
 * Ownership: the struct is caller-owned; body is owned by the reply until
 * pt2d_reply_free() or until the server takes it, and is released with
 * body_release (a shared body, e.g. a cache memo), or free() when NULL.
 */
#ifndef PT2D_REPLY_H
#define PT2D_REPLY_H

#include <stddef.h>

#include <cJSON.h>

#include "pt2scope.h"

#define PT2D_JSON_CTYPE "application/json"
#define PT2D_ETAG_MAX 72
#define PT2D_REPLY_WITHHELD "the server failed; its log has the details under this request's id"

struct pt2d_reply {
    unsigned status; /* 0 = not set */
    char *body;      /* may be NULL for no body; never written once set */
    size_t len;
    void (*body_release)(void *body); /* how to let go of body; NULL: free() */
    const char *content_type;         /* static string or NULL */
    char etag[PT2D_ETAG_MAX];         /* quoted strong ETag, or "" */
    unsigned retry_after;             /* seconds; 0 = no Retry-After */
    const char *allow;                /* static Allow header value or NULL */
    int close;                        /* ask MHD to close the connection */
    int preflight;                    /* add the CORS preflight headers (with allow) */
    const char *www_authenticate;     /* static WWW-Authenticate value (401) or NULL */
    const char *location;             /* static Location value (a redirect) or NULL */
    /* The detail of a server-side failure, kept for the access log: a 5xx
     * problem never sends it (it names spool files, libraries, errno text). */
    char withheld[PT2_ERROR_MSG_MAX];
};

void pt2d_reply_init(struct pt2d_reply *r);
void pt2d_reply_free(struct pt2d_reply *r);

/* A JSON body (unformatted, newline-terminated). Status 500 problem on failure. */
int pt2d_reply_json(struct pt2d_reply *r, unsigned status, const cJSON *doc);
/* The same from printed JSON: `text` (malloc'd, len bytes, one spare byte after its NUL)
 * is adopted, scrubbed to UTF-8 and given its newline. */
void pt2d_reply_json_text(struct pt2d_reply *r, unsigned status, char *text, size_t len);

/*
 * A problem+json body for `code` (see pt2d_problem.h). For a server-side
 * failure (a 500: unreadable, internal) the client gets PT2D_REPLY_WITHHELD
 * as the detail and `detail` goes to r->withheld, for the log.
 */
int pt2d_reply_problem(struct pt2d_reply *r, int code, const char *detail, const char *request_id);

/* A body copied from a string. */
int pt2d_reply_text(struct pt2d_reply *r, unsigned status, const char *ctype, const char *text);

/* Adopt a malloc'd body. */
void pt2d_reply_take(struct pt2d_reply *r, unsigned status, const char *ctype, char *body,
                     size_t len);
/* Adopt a body that `release` lets go of (it gets `body`). */
void pt2d_reply_take_shared(struct pt2d_reply *r, unsigned status, const char *ctype, char *body,
                            size_t len, void (*release)(void *body));

#endif

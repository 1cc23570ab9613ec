/*
 * pt2d_cors.h - which CORS headers a response gets.
 *
 * Design: a pure decision from the configured allow list and the request's
 * Origin, so the rules can be tested without a socket. With "*" allowed
 * every response says "*" (no credentials are ever used); otherwise an
 * allowed origin is echoed and every response carries Vary: Origin, since
 * the answer depends on the header even when the origin is refused.
 */
#ifndef PT2D_CORS_H
#define PT2D_CORS_H

#include "pt2d_config.h"

#define PT2D_CORS_ALLOW_HEADERS                                                                    \
    "Authorization, Content-Type, If-None-Match, X-Request-Id, Cache-Control"
#define PT2D_CORS_EXPOSE_HEADERS "ETag, Retry-After, X-Request-Id"
#define PT2D_CORS_MAX_AGE "7200" /* Chromium's cap; Firefox allows more */

struct pt2d_cors {
    const char *allow_origin; /* Access-Control-Allow-Origin value, or NULL; borrowed */
    int vary_origin;          /* add Vary: Origin */
};

/* `origin` is the request's Origin header or NULL. */
void pt2d_cors_decide(const struct pt2d_config *cfg, const char *origin, struct pt2d_cors *out);

#endif

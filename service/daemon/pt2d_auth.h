/*
 * pt2d_auth.h - who may ask: bearer tokens and the Host check.
 *
 * Design: two refusals decided before any route runs, both from the request
 * headers alone.
 *   Host (DNS rebinding): on a loopback listener a browser page from any site
 *     can reach the daemon through a name it controls that resolves to
 *     127.0.0.1; the Host header still carries that name. So on loopback only
 *     loopback names (localhost, 127.x.y.z, [::1]) and --allowed-host names
 *     are answered; with --allowed-host on any listener, those names, the
 *     listen address and loopback names. /livez and /readyz are exempt.
 *   Bearer token (--token-file): one token per line; every request but the
 *     probes, preflights, the page, the API reference and (with
 *     --metrics-public) /metrics needs `Authorization: Bearer <token>`.
 *     Only SHA-256 digests of the tokens are kept, and a presented token is
 *     hashed and compared with every digest without an early exit, so the
 *     time taken does not say how much of a guess was right.
 *
 * The parsers and predicates are pure (tested in tests/http/test_pt2d_auth.c).
 * struct pt2d_auth holds the live token set: the HTTP threads read it under a
 * read lock while SIGHUP's re-read (pt2d_auth_reload) parses a new file
 * outside the lock and swaps the pointer under the write lock; a re-read that
 * fails keeps the old set. No function here logs or returns a token: error
 * messages name line numbers only.
 *
 * Ownership: pt2d_auth_create() returns an object freed with
 * pt2d_auth_free(); token sets from pt2d_auth_tokens_parse() are freed with
 * pt2d_auth_tokens_free().
 */
#ifndef PT2D_AUTH_H
#define PT2D_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "pt2scope.h"
#include "pt2d_path.h"
#include "pt2d_router.h"

#define PT2D_HOST_MAX 256         /* a host name (also --listen's and the peers') */
#define PT2D_MAX_ALLOWED_HOSTS 16 /* --allowed-host names */

#define PT2D_AUTH_FILE_MAX (64u * 1024u) /* token file bytes */
#define PT2D_AUTH_TOKEN_MAX 256u         /* bytes of one token */
#define PT2D_AUTH_TOKENS_MAX 1024u       /* tokens in one file */
#define PT2D_AUTH_DIGEST 32u             /* SHA-256 */
#define PT2D_AUTH_REALM "Bearer realm=\"pt2scope\""
#define PT2D_AUTH_REALM_INVALID "Bearer realm=\"pt2scope\", error=\"invalid_token\""

struct pt2d_auth_tokens {
    unsigned n;
    uint8_t digest[PT2D_AUTH_TOKENS_MAX][PT2D_AUTH_DIGEST];
};

/* What the server needs to refuse a request; code PT2_OK = go on. */
struct pt2d_auth_verdict {
    int code;              /* PT2_OK, PT2_ERR_UNAUTHORIZED or PT2_ERR_HOST_NOT_ALLOWED */
    const char *detail;    /* static text for the problem's detail */
    const char *challenge; /* WWW-Authenticate value (401 only), static */
};

struct pt2d_auth;

/* Parse a token file's text (`len` bytes, need not be NUL-terminated); *out is malloc'd. */
int pt2d_auth_tokens_parse(const char *text, size_t len, struct pt2d_auth_tokens **out,
                           struct pt2_error *err);
/* Read and parse `path` (at most PT2D_AUTH_FILE_MAX bytes). */
int pt2d_auth_tokens_load(const char *path, struct pt2d_auth_tokens **out, struct pt2_error *err);
void pt2d_auth_tokens_free(struct pt2d_auth_tokens *t);

/* 1 when the `len` bytes of `token` are one of `set`'s tokens; constant time per set size. */
int pt2d_auth_tokens_match(const struct pt2d_auth_tokens *set, const char *token, size_t len);

/*
 * An Authorization header value -> the bearer token in it. PT2_OK with *token and *len set for
 * "Bearer <token>" (scheme case-insensitive, spaces around the token ignored);
 * PT2_ERR_NOT_FOUND when the header is NULL, another scheme, or has no token.
 */
int pt2d_auth_bearer(const char *header, const char **token, size_t *len);

/*
 * A Host header value -> the name in it, lowercase, without port, brackets or a trailing
 * dot ("LocalHost:8080" -> "localhost", "[::1]:80" -> "::1"). PT2_ERR_INVALID when it is not
 * host[:port] or does not fit in `cap`.
 */
int pt2d_auth_host_name(const char *value, char *out, size_t cap);

/* 1 for "localhost", an IPv4 address in 127.0.0.0/8 and ::1 (names as pt2d_auth_host_name
 * leaves them, or a --listen host). */
int pt2d_auth_is_loopback(const char *name);

/*
 * Whether a request with this Host header may be answered. `listen_host` is the --listen
 * host, `allowed` the normalised --allowed-host names. Without a Host header (HTTP/1.0) it
 * may.
 */
int pt2d_auth_host_allowed(const char *listen_host, const char (*allowed)[PT2D_HOST_MAX],
                           unsigned n_allowed, const char *host_header);

/* 1 when `route` (NULL-route requests are PT2D_ROUTE_OTHER) needs the bearer token. */
int pt2d_auth_route_needs_token(enum pt2d_route route, enum pt2d_method method, int metrics_public);

/* What pt2d_auth_create() takes from the configuration (borrowed for the call). */
struct pt2d_auth_settings {
    const char *token_file;  /* "" = no tokens */
    const char *listen_host; /* --listen's host */
    const char (*allowed)[PT2D_HOST_MAX];
    unsigned n_allowed;
    int metrics_public;
};

/* The Host policy, --metrics-public and, with a token file, its tokens. */
int pt2d_auth_create(struct pt2d_auth **out, const struct pt2d_auth_settings *cfg,
                     struct pt2_error *err);
void pt2d_auth_free(struct pt2d_auth *a);

/* 1 when a --token-file is configured. */
int pt2d_auth_has_tokens(const struct pt2d_auth *a);

/* Re-read the token file; on failure the old set stays. *count = tokens now loaded. */
int pt2d_auth_reload(struct pt2d_auth *a, unsigned *count, struct pt2_error *err);

/* Decide one request from its route, method and Host and Authorization headers (or NULL). */
void pt2d_auth_decide(struct pt2d_auth *a, enum pt2d_route route, enum pt2d_method method,
                      const char *host, const char *authorization, struct pt2d_auth_verdict *out);

#endif

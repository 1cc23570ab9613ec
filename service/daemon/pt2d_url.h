/*
 * pt2d_url.h - the URLs the daemon is configured with: peers and CORS origins.
 *
 * Design: libcurl's URL API (curl_url) parses them, the same parser the
 * cluster fan-out later connects with, so a URL accepted here is one curl
 * understands the same way. Only the policy is ours: http or https, a
 * host, no user info, query or fragment, printable ASCII.
 */
#ifndef PT2D_URL_H
#define PT2D_URL_H

enum pt2d_url_kind {
    PT2D_URL_PEER = 1,  /* a base URL: a path prefix is allowed */
    PT2D_URL_ORIGIN = 2 /* what browsers send in Origin: scheme://host[:port], nothing more */
};

/* 1 when `url` is acceptable as `kind`, else 0. */
int pt2d_url_ok(const char *url, enum pt2d_url_kind kind);

#endif

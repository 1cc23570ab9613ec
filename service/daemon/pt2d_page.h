/*
 * pt2d_page.h - the operator page at "/", served from memory.
 *
 * Design: service/daemon/page/ (index.html, app.js, style.css: plain files,
 * no build step, no npm) is linked into the binary by pt2d_page_assets.S,
 * so the page works from any working directory, offline and behind a
 * firewall, and is always the page this daemon was built with. Every
 * build has it, npm or not. The page talks to the API only (/v1/version,
 * /v1/packages, /v1/inspect, /v1/validate) with relative URLs, so it also
 * works behind a reverse proxy's path prefix.
 *
 * Ownership: the files are static and read-only; pt2d_page_reply() gives
 * the reply its own copy, as pt2d_reply bodies are always malloc'd.
 */
#ifndef PT2D_PAGE_H
#define PT2D_PAGE_H

#include <stddef.h>

#include "pt2d_reply.h"

struct pt2d_page_file {
    const char *path;         /* URL path: "/", "/page/app.js", "/page/style.css" */
    const char *content_type; /* Content-Type header value */
    const char *data;         /* NUL-terminated text */
    size_t len;               /* bytes, without the NUL */
};

/* Fill `out` with the file served at URL path `path` (no query): 1, or 0 if none. */
int pt2d_page_find(const char *path, struct pt2d_page_file *out);

/* A 200 reply carrying a copy of `file`; a 500 problem when out of memory. */
int pt2d_page_reply(const struct pt2d_page_file *file, struct pt2d_reply *r,
                    const char *request_id);

#endif

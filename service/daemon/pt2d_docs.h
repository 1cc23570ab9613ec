/*
 * pt2d_docs.h - the API contract and its rendered reference, served from memory.
 *
 * Design: openapi/openapi.yaml, its JSON rendering and the Swagger UI assets
 * (installed from npm at build time) are linked into the binary by
 * pt2d_docs_assets.S, so pt2scoped serves them from any working directory and
 * always the contract it was built with. A daemon built without npm links
 * only the YAML and answers the other paths with a problem that says how to
 * build them. GET /docs is a small page that loads
 * the assets with relative URLs (it also works behind a path prefix) and
 * renders openapi.json.
 *
 * Ownership: documents are static and read-only (struct pt2d_doc only points
 * at them); pt2d_docs_reply() gives the reply its own copy, as pt2d_reply
 * bodies are always malloc'd.
 */
#ifndef PT2D_DOCS_H
#define PT2D_DOCS_H

#include <stddef.h>

#include "pt2d_reply.h"

struct pt2d_doc {
    const char *path;         /* URL path, e.g. "/openapi.yaml" */
    const char *content_type; /* Content-Type header value */
    const char *data;         /* NUL-terminated text */
    size_t len;               /* bytes, without the NUL */
    int built;                /* 0: left out of this build (no npm); data is "" */
};

/* Fill `out` with the document served at URL path `path` (no query): 1, or 0 if none. */
int pt2d_docs_find(const char *path, struct pt2d_doc *out);

/* Fill `out` with the i-th document (for listings and tests): 1, or 0 past the end. */
int pt2d_docs_get(size_t i, struct pt2d_doc *out);

/* A 200 reply carrying a copy of `doc`; a 404 docs-not-built problem saying how to
 * build it when the document is not in this build; a 500 problem when out of memory. */
int pt2d_docs_reply(const struct pt2d_doc *doc, struct pt2d_reply *r, const char *request_id);

/*
 * `/docs/` (the reference's address with a slash, as people type it): a 301
 * to `../docs`, relative so it works behind a proxy's path prefix. 0 and `r`
 * untouched for any other path.
 */
int pt2d_docs_redirect(const char *path, struct pt2d_reply *r);

#endif

/*
 * pt2d_etag.c - ETag derivation and matching (see pt2d_etag.h).
 */
#include <stdio.h>
#include <string.h>

#include "pt2d_etag.h"
#include "pt2d_sha256.h"
#include "pt2scope.h"

void pt2d_etag_make(const char *route, const char *content_key, const char *fingerprint, char *out,
                    size_t cap)
{
    struct pt2d_sha256 sha;
    uint8_t digest[PT2D_SHA256_LEN];
    char hex[PT2D_SHA256_HEX_LEN], schema[32];

    snprintf(schema, sizeof(schema), "schema=%d", PT2SCOPE_SCHEMA_VERSION);
    pt2d_sha256_init(&sha);
    /* NUL separators keep ("ab","c") and ("a","bc") apart. */
    pt2d_sha256_update(&sha, schema, strlen(schema) + 1);
    pt2d_sha256_update(&sha, route, strlen(route) + 1);
    pt2d_sha256_update(&sha, content_key, strlen(content_key) + 1);
    pt2d_sha256_update(&sha, fingerprint, strlen(fingerprint) + 1);
    pt2d_sha256_final(&sha, digest);
    pt2d_sha256_hex(digest, 16, hex);
    snprintf(out, cap, "\"%s\"", hex);
}

int pt2d_etag_match(const char *inm, const char *etag)
{
    const char *p = inm;
    size_t elen = strlen(etag);

    if (inm == NULL || etag[0] == '\0')
        return 0;
    for (;;) {
        const char *q;

        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (*p == '\0')
            return 0;
        if (*p == '*')
            return 1;
        if (strncmp(p, "W/", 2) == 0)
            p += 2;
        if (*p != '"')
            return 0;
        q = strchr(p + 1, '"');
        if (q == NULL)
            return 0;
        if ((size_t)(q + 1 - p) == elen && strncmp(p, etag, elen) == 0)
            return 1;
        p = q + 1;
    }
}

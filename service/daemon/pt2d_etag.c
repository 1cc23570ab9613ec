/*
 * pt2d_etag.c - ETag derivation and matching (see pt2d_etag.h).
 */
#include <stdio.h>
#include <string.h>

#include "pt2d_etag.h"
#include "pt2d_sha256.h"
#include "pt2scope.h"

#define ETAG_STR2(x) #x
#define ETAG_STR(x) ETAG_STR2(x)

void pt2d_etag_make(const char *route, const char *content_key, const char *fingerprint, char *out,
                    size_t cap)
{
    /* Built at compile time: this runs for every request that names a package. */
    static const char schema[] = "schema=" ETAG_STR(PT2SCOPE_SCHEMA_VERSION);
    struct pt2d_sha256 sha;
    uint8_t digest[PT2D_SHA256_LEN];
    char hex[PT2D_SHA256_HEX_LEN];
    size_t n;

    pt2d_sha256_init(&sha);
    /* NUL separators keep ("ab","c") and ("a","bc") apart. */
    pt2d_sha256_update(&sha, schema, sizeof(schema));
    pt2d_sha256_update(&sha, route, strlen(route) + 1);
    pt2d_sha256_update(&sha, content_key, strlen(content_key) + 1);
    pt2d_sha256_update(&sha, fingerprint, strlen(fingerprint) + 1);
    pt2d_sha256_final(&sha, digest);
    pt2d_sha256_hex(digest, 16, hex);
    n = strlen(hex);
    if (cap < n + 3) { /* never with PT2D_ETAG_MAX: no ETag rather than a cut one */
        if (cap > 0)
            out[0] = '\0';
        return;
    }
    out[0] = '"';
    memcpy(out + 1, hex, n);
    out[n + 1] = '"';
    out[n + 2] = '\0';
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

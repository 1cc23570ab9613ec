/*
 * pt2d_etag.c - ETag derivation and matching (see pt2d_etag.h).
 */
#include <stdio.h>
#include <string.h>

#include <nettle/base16.h>
#include <nettle/sha2.h>

#include "pt2d_etag.h"
#include "pt2scope.h"

#define ETAG_STR2(x) #x
#define ETAG_STR(x) ETAG_STR2(x)
#define ETAG_BYTES 16 /* of the SHA-256: 32 hex digits */

void pt2d_etag_make(const char *route, const char *content_key, const char *fingerprint, char *out,
                    size_t cap)
{
    /* Built at compile time: this runs for every request that names a package. */
    static const char schema[] = "schema=" ETAG_STR(PT2SCOPE_SCHEMA_VERSION);
    struct sha256_ctx sha;
    uint8_t digest[ETAG_BYTES];
    char hex[BASE16_ENCODE_LENGTH(ETAG_BYTES) + 1];
    size_t n = BASE16_ENCODE_LENGTH(ETAG_BYTES);

    sha256_init(&sha);
    /* NUL separators keep ("ab","c") and ("a","bc") apart. */
    sha256_update(&sha, sizeof(schema), (const uint8_t *)schema);
    sha256_update(&sha, strlen(route) + 1, (const uint8_t *)route);
    sha256_update(&sha, strlen(content_key) + 1, (const uint8_t *)content_key);
    sha256_update(&sha, strlen(fingerprint) + 1, (const uint8_t *)fingerprint);
    sha256_digest(&sha, ETAG_BYTES, digest); /* the first 16 bytes of the SHA-256 */
    base16_encode_update(hex, ETAG_BYTES, digest);
    hex[n] = '\0';
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

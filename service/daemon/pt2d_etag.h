/*
 * pt2d_etag.h - strong ETags for inspection responses and If-None-Match.
 *
 * Design: an inspection body is a pure function of the package content,
 * the report schema, the endpoint and the options that shape the body. The
 * ETag is the first 128 bits of SHA-256 over exactly those, so it is
 * stable across restarts and changes whenever the body could.
 */
#ifndef PT2D_ETAG_H
#define PT2D_ETAG_H

#include <stddef.h>

/* Write "\"<32 hex>\"" into out (at least 35 bytes). */
void pt2d_etag_make(const char *route, const char *content_key, const char *fingerprint, char *out,
                    size_t cap);

/*
 * 1 when an If-None-Match header value matches `etag` under the weak
 * comparison of RFC 9110 (W/ prefixes ignored; "*" matches anything).
 * Malformed lists never match.
 */
int pt2d_etag_match(const char *if_none_match, const char *etag);

#endif

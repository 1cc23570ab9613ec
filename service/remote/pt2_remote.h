/*
 * pt2_remote.h - packages behind URLs: http://, https:// and s3:// objects
 * read with Range requests through libcurl, as a pt2_source.
 *
 * Design: this layer sits between libpt2scope (which knows nothing of HTTP
 * and reads through the public pt2_source API) and the CLI and daemon, which
 * both link it, so the URL rules live once. pt2_remote_open() makes the
 * first request, a suffix Range ("bytes=-N") that also yields the object's
 * size (from Content-Range, always trusted over what was asked) and its
 * validator (ETag, else Last-Modified); the bytes it brings are seeded into
 * the source's cache. Every later request carries If-Match (or
 * If-Unmodified-Since) and is checked again (status, Content-Range total,
 * ETag), so an object replaced mid-inspection is PT2_ERR_REMOTE_CHANGED,
 * never a mixed answer. Batches (pt2_source read_many) run as parallel
 * requests on one curl multi handle, which also keeps connections alive.
 *
 * A server that ignores Range (200 to the first request) has its object
 * streamed to an unlinked file in spool_dir, up to max_download bytes
 * (PT2_ERR_REMOTE_NO_RANGE past it), and the source reads that file.
 *
 * s3://bucket/key: virtual-hosted https://bucket.s3.<region>.amazonaws.com/key
 * (path-style when the bucket name has dots), or path-style under
 * AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL; signed with libcurl's SigV4 from
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION
 * (default us-east-1); unsigned when no key is set.
 *
 * Restricted mode (the daemon): a URL must start with one of the allowed
 * prefixes (scheme, host and port compared exactly, then the path as a
 * prefix; a scheme alone, "https://", takes any host), and every hop's host
 * must not resolve to a loopback, private, link-local, CGNAT/cloud-metadata,
 * multicast or unspecified address unless an allow entry names that host
 * literally ("http://127.0.0.1:8080/", "https://registry.internal/": the
 * operator chose it). So the address rules guard what no entry names: hosts
 * under a scheme-only entry, S3's own hosts. The connection goes to the
 * addresses that were checked (CURLOPT_RESOLVE; no second lookup, and a
 * socket callback refuses any other), and environment proxies are not
 * used. An S3 endpoint set by the operator's AWS_ENDPOINT_URL is trusted
 * like a literal allow entry. Redirects (3xx with Location) are followed by
 * hand, at most 5, each hop checked like the first URL; only http and https
 * hops.
 *
 * Errors (enum pt2_status): PT2_ERR_INVALID (not a URL this accepts),
 * PT2_ERR_REMOTE_REFUSED, PT2_ERR_NOT_FOUND (404/410 upstream, S3
 * NoSuchKey), PT2_ERR_REMOTE_UNREACHABLE (connection failure, any other
 * error status), PT2_ERR_REMOTE_NO_RANGE, PT2_ERR_REMOTE_CHANGED,
 * PT2_ERR_REMOTE_TIMEOUT, PT2_ERR_TOO_LARGE (max_bytes transferred),
 * PT2_ERR_IO (spool), PT2_ERR_NOMEM. Messages name the display URL only
 * (never credentials or query strings).
 *
 * Ownership and threads: a pt2_remote is used by one thread at a time; it
 * owns its curl handles, its source and any spool file. curl_global_init()
 * is the program's job, before the first pt2_remote_open().
 */
#ifndef PT2_REMOTE_H
#define PT2_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "pt2scope.h"

#define PT2_REMOTE_MAX_DOWNLOAD_DEFAULT (256ull * 1024 * 1024)
#define PT2_REMOTE_MAX_BYTES_DEFAULT (64ull * 1024 * 1024) /* transferred per inspection */
#define PT2_REMOTE_TIMEOUT_DEFAULT_MS 30000L
#define PT2_REMOTE_REDIRECTS_MAX 5
#define PT2_REMOTE_URL_MAX 4096u               /* bytes of one URL, first or redirected */
#define PT2_REMOTE_SUFFIX_BYTES (256u * 1024u) /* the first request's suffix Range */

struct pt2_remote_opts {
    int restricted;           /* 1: the allow list and the address rules apply */
    const char *const *allow; /* URL prefixes (pt2_remote_open copies them); when restricted */
    size_t n_allow;
    long timeout_ms;         /* whole inspection, every request together; 0 = default */
    long connect_timeout_ms; /* one connection; 0 = min(10 s, timeout) */
    uint64_t max_download;   /* servers without Range; 0 = default */
    uint64_t max_bytes;      /* bytes transferred per inspection (every body but a whole
                                download, which max_download bounds); 0 = default */
    const char *spool_dir;   /* for servers without Range; NULL = $TMPDIR or /tmp */
    /* Reuse across objects (pt2_remote_multi.h): a CURLM* the transfers run on, borrowed
     * (one thread at a time; its connection cache outlives the remote, so the next object
     * on this thread reuses the connection), and a CURLSH* set on every transfer (name
     * lookups and TLS sessions shared between threads). NULL: a multi handle of its own,
     * no share. */
    void *multi;
    void *share;
};

typedef struct pt2_remote pt2_remote;

/* 1 when `s` starts with http://, https:// or s3:// (scheme case-insensitive). */
int pt2_remote_is_url(const char *s);

/*
 * Check `url` against `opts` without any network access: PT2_OK, or
 * PT2_ERR_INVALID / PT2_ERR_REMOTE_REFUSED with the reason (the address
 * rules are applied later, per hop, when the host is resolved).
 */
int pt2_remote_check_url(const char *url, const struct pt2_remote_opts *opts,
                         struct pt2_error *err);

/*
 * Check one allow-list entry (for the daemon's configuration): an http(s)
 * URL without user, query or fragment ("https://host" alone allows the whole
 * host), or s3://BUCKET/ or s3://BUCKET/PREFIX. PT2_OK or PT2_ERR_INVALID.
 */
int pt2_remote_check_allow(const char *entry, struct pt2_error *err);

/*
 * `url` as answers show it: without userinfo, query or fragment (the same
 * text pt2_remote_display_url gives). PT2_OK, or PT2_ERR_INVALID.
 */
int pt2_remote_shown_url(const char *url, char *out, size_t len);

/* The first request; *out is NULL on failure. */
int pt2_remote_open(pt2_remote **out, const char *url, const struct pt2_remote_opts *opts,
                    struct pt2_error *err);
void pt2_remote_free(pt2_remote *r);

/* The byte source to inspect through (borrowed; valid until pt2_remote_free). */
pt2_source *pt2_remote_source(pt2_remote *r);
/* The URL without credentials, query or fragment ("s3://bucket/key" for S3; borrowed). */
const char *pt2_remote_display_url(const pt2_remote *r);
/* The last path segment of the URL, for display ("model.pt2"; borrowed). */
const char *pt2_remote_name(const pt2_remote *r);
/* The validator as the server sent it: the ETag, else "Last-Modified: <date>"; "" if none. */
const char *pt2_remote_validator(const pt2_remote *r);
uint64_t pt2_remote_size(const pt2_remote *r);
/* Requests made and bytes transferred (bodies) so far, the first request included. */
uint64_t pt2_remote_requests(const pt2_remote *r);
uint64_t pt2_remote_bytes(const pt2_remote *r);
/* 1 when the server ignored Range and the object was downloaded whole. */
int pt2_remote_downloaded(const pt2_remote *r);

/*
 * {"url", "validator" (null when none), "requests", "round_trips" (requests
 * in sequence: the first, each batch of parallel ones, each redirect hop),
 * "bytes_transferred", "range_requests" (false when downloaded whole)}: the
 * document's package.source. NULL when out of memory.
 */
cJSON *pt2_remote_source_json(const pt2_remote *r);

#endif

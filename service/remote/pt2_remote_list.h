/*
 * pt2_remote_list.h - a bucket as a registry: the objects under an
 * s3://BUCKET/PREFIX/ (S3 ListObjectsV2, a page at a time), the stable shard
 * of a key, and an object written back with PUT (a scan's report).
 *
 * Design: a page is one ListObjectsV2 request (list-type=2, max-keys, the
 * continuation token of the page before), signed with SigV4 from the same
 * AWS_* keys and sent to the same host an object's URL maps to
 * (pt2_remote_s3_map: path-style under AWS_ENDPOINT_URL for S3-compatible
 * stores). The query's parameters are sent sorted and encoded as SigV4
 * canonicalises them, so the bytes signed are the bytes sent. The XML
 * answer is capped (PT2_REMOTE_LIST_BODY_MAX) and read by a small scanner
 * for the few elements used (Contents/Key, ETag, Size, LastModified;
 * IsTruncated, NextContinuationToken); only keys ending in ".pt2" that are
 * valid object URLs are kept, each with the ETag and size the listing gives
 * (what an incremental scan or a cache compares without reading the object)
 * and its LastModified (what a listing item shows as its mtime).
 *
 * Restricted mode obeys pt2_remote.h: the prefix itself must lie under an
 * allow entry (a listing of s3://models/ is refused where only
 * s3://models/deep/ is allowed), so must every listed object, and the
 * store's host passes the address rules unless it is the operator's
 * endpoint. Listing requests follow no redirect.
 *
 * Shards: pt2_remote_shard() is FNV-1a 64 of the key's bytes modulo N, so
 * the same key lands in the same shard on every machine and release, and the
 * shards of N partition any set of keys.
 *
 * Ownership: a page owns its objects; pt2_remote_page_free (NULL-safe
 * fields, zeroed struct fine) releases them. Thread-safe: no shared state.
 */
#ifndef PT2_REMOTE_LIST_H
#define PT2_REMOTE_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_remote.h"

#define PT2_REMOTE_LIST_PAGE_MAX 1000u      /* keys per ListObjectsV2 page (S3's own cap) */
#define PT2_REMOTE_LIST_BODY_MAX (8u << 20) /* one page's XML */
#define PT2_REMOTE_LIST_TOKEN_MAX 1024u     /* a continuation token */
#define PT2_REMOTE_LIST_ETAG_MAX 256u       /* an ETag as listed */
#define PT2_REMOTE_PUT_MAX (5ull * 1024 * 1024 * 1024) /* one PUT: S3's single-request cap */

struct pt2_remote_object {
    char *url;                               /* "s3://bucket/key" (owned) */
    const char *key;                         /* inside url */
    char etag[PT2_REMOTE_LIST_ETAG_MAX + 1]; /* as listed, quotes included; "" if none */
    uint64_t size;
    /* LastModified, seconds since the epoch (the fraction dropped); has_mtime 0 when the
     * listing gave none, not as S3 writes it ("2026-12-04T18:55:00.000Z") or before 1970 */
    int64_t mtime;
    int has_mtime;
};

/*
 * A listed object's file for its listing item (pt2_listing_item, _item_stat), named
 * `name` (borrowed: its URL, or as answers show it): the listed size and mtime, or
 * neither where the listing gave no usable LastModified.
 */
struct pt2_listing_file pt2_remote_object_file(const struct pt2_remote_object *o, const char *name);

struct pt2_remote_page {
    struct pt2_remote_object *v;
    size_t n;
    size_t listed;                            /* keys the page held, .pt2 or not */
    char next[PT2_REMOTE_LIST_TOKEN_MAX + 1]; /* the token of the next page; "" after the last */
};

/* 1 when `url` is a prefix to list (s3://BUCKET/ or s3://BUCKET/PREFIX/), not an object. */
int pt2_remote_is_prefix(const char *url);

/*
 * One page of the *.pt2 objects under `prefix_url`, from `token` ("" or NULL:
 * the first page), at most max_keys keys (1..PT2_REMOTE_LIST_PAGE_MAX; 0 =
 * the most) into *page (zeroed first; free it whatever the result). Errors
 * as pt2_remote_open's (PT2_ERR_INVALID, PT2_ERR_REMOTE_REFUSED,
 * PT2_ERR_NOT_FOUND for NoSuchBucket, PT2_ERR_REMOTE_UNREACHABLE with S3's
 * code for a refused signature, PT2_ERR_REMOTE_TIMEOUT, PT2_ERR_TOO_LARGE
 * for an answer over the cap).
 */
int pt2_remote_list_page(const char *prefix_url, const char *token, unsigned max_keys,
                         const struct pt2_remote_opts *opts, struct pt2_remote_page *page,
                         struct pt2_error *err);
void pt2_remote_page_free(struct pt2_remote_page *page);

/* The shard (0..n-1) of `key`: FNV-1a 64 of its bytes, modulo n (n >= 1). */
unsigned pt2_remote_shard(const char *key, unsigned n);

/*
 * Upload `len` bytes read from `fd` (from its current offset) as the object
 * `s3url` with one signed PUT (len <= PT2_REMOTE_PUT_MAX). The same rules
 * and errors as a listing; PT2_ERR_IO when fd cannot be read.
 */
int pt2_remote_put(const char *s3url, int fd, uint64_t len, const struct pt2_remote_opts *opts,
                   struct pt2_error *err);

#endif

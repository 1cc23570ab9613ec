/*
 * pt2d_cache.h - bounded LRU cache of opened packages, and their refcount.
 *
 * Design: a pt2_package is immutable after open and its const functions
 * are thread-safe, so the cache keeps opened packages themselves: a hit
 * serves any endpoint (inspect, arch, metadata, validate, compatibility)
 * without touching the file. Keys identify content, not names:
 *   "f:<st_dev>:<st_ino>:<size>:<mtime>:<ctime>|<display name>" for paths,
 *   "u:<sha256 hex>|<display name>" for uploads.
 * The cache is bounded by entry count and by bytes: an entry costs its
 * package's pt2_package_memory() plus the largest memo it may hold
 * (PT2D_MEMO_BODY_MAX); the least recently used entries go until both
 * bounds hold, and a package that alone exceeds the byte bound is not kept.
 *
 * A pkgref also remembers the last response body rendered from its package,
 * under that response's strong ETag (route, options and content): a cache
 * hit that asks the same question again re-sends those bytes instead of
 * rebuilding and printing the JSON document, which was most of the work of
 * a cached request (tests/bench). The memo is itself reference-counted,
 * so a response is sent straight from it (no copy per hit).
 *
 * It also remembers the last ETag derived for it (pt2d_pkgref_etag_get/put):
 * the question (route, content key and options fingerprint) is compared as
 * a string, so a repeated request skips the hash; an ETag is computed once
 * per cache entry and question, not once per request.
 *
 * Ownership: a struct pt2d_pkgref owns one package and is shared by
 * reference count. pt2d_cache_get() returns a new reference (release it);
 * pt2d_cache_put() takes its own reference. pt2d_cache_free() drops the
 * cache's references; packages still referenced by requests live on.
 */
#ifndef PT2D_CACHE_H
#define PT2D_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "pt2scope.h"

#define PT2D_CACHE_KEY_MAX 512
#define PT2D_CACHE_MAX_ENTRIES 1000000
#define PT2D_MEMO_ETAG_MAX 80             /* a quoted ETag (PT2D_ETAG_MAX is 72) */
#define PT2D_MEMO_BODY_MAX (256u * 1024u) /* larger bodies are rendered every time */
#define PT2D_MEMO_QUESTION_MAX 1024u      /* longer questions derive their ETag every time */

struct pt2d_pkgref;
struct pt2d_cache;

/* Wrap `pkg` (ownership moves in) with one reference; NULL when out of memory (pkg freed). */
struct pt2d_pkgref *pt2d_pkgref_new(pt2_package *pkg);
struct pt2d_pkgref *pt2d_pkgref_retain(struct pt2d_pkgref *ref);
void pt2d_pkgref_release(struct pt2d_pkgref *ref);
const pt2_package *pt2d_pkgref_pkg(const struct pt2d_pkgref *ref);

/*
 * The body memoised under `etag`, shared, not copied: NUL-terminated, never
 * to be written, and valid until pt2d_pkgref_body_release(body) - from any
 * thread, even after the pkgref is gone or its memo replaced. NULL when
 * there is none for that ETag.
 */
char *pt2d_pkgref_body_get(struct pt2d_pkgref *ref, const char *etag, size_t *len);
/* Drop a reference from pt2d_pkgref_body_get() (NULL is fine); fits a free() callback. */
void pt2d_pkgref_body_release(void *body);
/* Memoise `body` under `etag`, replacing the previous one; silently skipped when `etag` is
 * empty or too long, the body is over PT2D_MEMO_BODY_MAX, or memory is short. */
void pt2d_pkgref_body_put(struct pt2d_pkgref *ref, const char *etag, const char *body, size_t len);

/*
 * The ETag memoised for `question` (any string that determines the ETag
 * wholly: route, content key, options): 1 with it copied into etag (cap
 * bytes), 0 when another question (or none) was memoised or it does not fit.
 * _put keeps one question per pkgref, replacing the last; questions over
 * PT2D_MEMO_QUESTION_MAX - 1 bytes and ETags over PT2D_MEMO_ETAG_MAX - 1 are
 * not kept.
 */
int pt2d_pkgref_etag_get(struct pt2d_pkgref *ref, const char *question, char *etag, size_t cap);
void pt2d_pkgref_etag_put(struct pt2d_pkgref *ref, const char *question, const char *etag);

struct pt2d_cache_stats {
    uint64_t hits, misses;
    size_t entries, capacity;
    uint64_t bytes, max_bytes; /* what the entries cost; the bound (0: none) */
};

/* `capacity` 0 makes a cache that stores nothing (every get misses); `max_bytes` 0: no
 * byte bound. */
int pt2d_cache_create(struct pt2d_cache **out, size_t capacity, uint64_t max_bytes,
                      struct pt2_error *err);

/* What an entry holding `ref` costs against the byte bound. */
uint64_t pt2d_cache_cost(const struct pt2d_pkgref *ref);

/* A new reference to the entry for `key`, or NULL (counted as hit / miss). */
struct pt2d_pkgref *pt2d_cache_get(struct pt2d_cache *c, const char *key);

/*
 * The same, counted as nothing: for a probe that may fall back to a worker,
 * which then counts through pt2d_cache_get(). pt2d_cache_count_hit() counts
 * a probe that did answer.
 */
struct pt2d_pkgref *pt2d_cache_peek(struct pt2d_cache *c, const char *key);
void pt2d_cache_count_hit(struct pt2d_cache *c);

/* Insert or replace; keys longer than PT2D_CACHE_KEY_MAX - 1 are not cached. */
void pt2d_cache_put(struct pt2d_cache *c, const char *key, struct pt2d_pkgref *ref);

/*
 * Packages that failed to open, by the same content key: a listing over a
 * root of bad packages (each costing a full parse to refuse) answers them
 * from here until the file changes (a new key). At most PT2D_CACHE_FAILURES
 * are kept, the oldest replaced first; none when the capacity is 0.
 */
#define PT2D_CACHE_FAILURES 256
void pt2d_cache_put_failure(struct pt2d_cache *c, const char *key, const struct pt2_error *err);
/* 1 with *out the remembered error when `key` failed before, else 0. */
int pt2d_cache_get_failure(struct pt2d_cache *c, const char *key, struct pt2_error *out);

void pt2d_cache_stats(struct pt2d_cache *c, struct pt2d_cache_stats *out);

void pt2d_cache_free(struct pt2d_cache *c);

#endif

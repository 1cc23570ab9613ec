/*
 * pt2d_cache.h - bounded LRU cache of opened packages, and their refcount.
 *
 * Design: a pt2_package is immutable after open and its const functions
 * are thread-safe, so the cache keeps opened packages themselves: a hit
 * serves any endpoint (inspect, arch, metadata, validate, compatibility)
 * without touching the file. Keys identify content, not names:
 *   "f:<st_dev>:<st_ino>:<size>:<mtime_ns>|<display name>" for paths,
 *   "u:<sha256 hex>|<display name>" for uploads.
 * The cache is bounded by entry count; the least recently used entry goes.
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

#include "pt2_error.h"
#include "pt2scope.h"

#define PT2D_CACHE_KEY_MAX 512
#define PT2D_CACHE_MAX_ENTRIES 1000000

struct pt2d_pkgref;
struct pt2d_cache;

/* Wrap `pkg` (ownership moves in) with one reference; NULL when out of memory (pkg freed). */
struct pt2d_pkgref *pt2d_pkgref_new(pt2_package *pkg);
struct pt2d_pkgref *pt2d_pkgref_retain(struct pt2d_pkgref *ref);
void pt2d_pkgref_release(struct pt2d_pkgref *ref);
const pt2_package *pt2d_pkgref_pkg(const struct pt2d_pkgref *ref);

struct pt2d_cache_stats {
    uint64_t hits, misses;
    size_t entries, capacity;
};

/* `capacity` 0 makes a cache that stores nothing (every get misses). */
int pt2d_cache_create(struct pt2d_cache **out, size_t capacity, struct pt2_error *err);

/* A new reference to the entry for `key`, or NULL (counted as hit / miss). */
struct pt2d_pkgref *pt2d_cache_get(struct pt2d_cache *c, const char *key);

/* Insert or replace; keys longer than PT2D_CACHE_KEY_MAX - 1 are not cached. */
void pt2d_cache_put(struct pt2d_cache *c, const char *key, struct pt2d_pkgref *ref);

void pt2d_cache_stats(struct pt2d_cache *c, struct pt2d_cache_stats *out);

void pt2d_cache_free(struct pt2d_cache *c);

#endif

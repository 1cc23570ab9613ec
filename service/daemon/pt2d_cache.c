/*
 * pt2d_cache.c - LRU over a chained hash table (see pt2d_cache.h).
 *
 * One mutex guards the table and the recency list; lookups are O(1) and
 * hold it briefly. Packages are freed outside the lock (freeing one may
 * take a while: it releases libzip state).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_cache.h"

struct pt2d_pkgref {
    atomic_uint refs;
    pt2_package *pkg;
};

struct cache_entry {
    char key[PT2D_CACHE_KEY_MAX];
    uint64_t hash;
    struct pt2d_pkgref *ref;
    struct cache_entry *chain;         /* next in bucket */
    struct cache_entry *newer, *older; /* recency list */
};

struct pt2d_cache {
    pthread_mutex_t lock;
    struct cache_entry **buckets;
    size_t nbuckets; /* power of two */
    struct cache_entry *newest, *oldest;
    size_t entries, capacity;
    uint64_t hits, misses;
};

struct pt2d_pkgref *pt2d_pkgref_new(pt2_package *pkg)
{
    struct pt2d_pkgref *ref = malloc(sizeof(*ref));

    if (ref == NULL) {
        pt2_package_free(pkg);
        return NULL;
    }
    atomic_init(&ref->refs, 1);
    ref->pkg = pkg;
    return ref;
}

struct pt2d_pkgref *pt2d_pkgref_retain(struct pt2d_pkgref *ref)
{
    if (ref != NULL)
        atomic_fetch_add_explicit(&ref->refs, 1, memory_order_relaxed);
    return ref;
}

void pt2d_pkgref_release(struct pt2d_pkgref *ref)
{
    if (ref == NULL)
        return;
    if (atomic_fetch_sub_explicit(&ref->refs, 1, memory_order_acq_rel) == 1) {
        pt2_package_free(ref->pkg);
        free(ref);
    }
}

const pt2_package *pt2d_pkgref_pkg(const struct pt2d_pkgref *ref)
{
    return ref->pkg;
}

/* FNV-1a, 64 bit: keys are short and not attacker-chosen in bulk. */
static uint64_t cache_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (; *s != '\0'; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

int pt2d_cache_create(struct pt2d_cache **out, size_t capacity, struct pt2_error *err)
{
    struct pt2d_cache *c;
    size_t n = 16;

    *out = NULL;
    if (capacity > PT2D_CACHE_MAX_ENTRIES)
        return pt2_error_set(err, PT2_ERR_INVALID, "cache: %zu entries exceeds the limit %d",
                             capacity, PT2D_CACHE_MAX_ENTRIES);
    while (n < capacity * 2)
        n *= 2;
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "cache: out of memory");
    c->buckets = calloc(n, sizeof(*c->buckets));
    if (c->buckets == NULL) {
        free(c);
        return pt2_error_set(err, PT2_ERR_NOMEM, "cache: out of memory");
    }
    pthread_mutex_init(&c->lock, NULL);
    c->nbuckets = n;
    c->capacity = capacity;
    *out = c;
    return PT2_OK;
}

static struct cache_entry **cache_slot(struct pt2d_cache *c, const char *key, uint64_t h)
{
    struct cache_entry **pp = &c->buckets[h & (c->nbuckets - 1)];

    while (*pp != NULL && ((*pp)->hash != h || strcmp((*pp)->key, key) != 0))
        pp = &(*pp)->chain;
    return pp;
}

static void list_unlink(struct pt2d_cache *c, struct cache_entry *e)
{
    if (e->newer != NULL)
        e->newer->older = e->older;
    else
        c->newest = e->older;
    if (e->older != NULL)
        e->older->newer = e->newer;
    else
        c->oldest = e->newer;
    e->newer = e->older = NULL;
}

static void list_push_newest(struct pt2d_cache *c, struct cache_entry *e)
{
    e->older = c->newest;
    e->newer = NULL;
    if (c->newest != NULL)
        c->newest->newer = e;
    c->newest = e;
    if (c->oldest == NULL)
        c->oldest = e;
}

struct pt2d_pkgref *pt2d_cache_get(struct pt2d_cache *c, const char *key)
{
    uint64_t h = cache_hash(key);
    struct cache_entry *e;
    struct pt2d_pkgref *ref = NULL;

    pthread_mutex_lock(&c->lock);
    e = *cache_slot(c, key, h);
    if (e != NULL) {
        list_unlink(c, e);
        list_push_newest(c, e);
        ref = pt2d_pkgref_retain(e->ref);
        c->hits++;
    } else {
        c->misses++;
    }
    pthread_mutex_unlock(&c->lock);
    return ref;
}

void pt2d_cache_put(struct pt2d_cache *c, const char *key, struct pt2d_pkgref *ref)
{
    uint64_t h = cache_hash(key);
    struct pt2d_pkgref *drop[2] = {NULL, NULL};
    struct cache_entry *e, *victim = NULL, **pp;

    if (c->capacity == 0 || strlen(key) >= PT2D_CACHE_KEY_MAX)
        return;
    pthread_mutex_lock(&c->lock);
    pp = cache_slot(c, key, h);
    if (*pp != NULL) {
        e = *pp;
        drop[0] = e->ref;
        e->ref = pt2d_pkgref_retain(ref);
        list_unlink(c, e);
        list_push_newest(c, e);
        goto cleanup;
    }
    e = calloc(1, sizeof(*e));
    if (e == NULL)
        goto cleanup; /* caching is best effort */
    snprintf(e->key, sizeof(e->key), "%s", key);
    e->hash = h;
    e->ref = pt2d_pkgref_retain(ref);
    *pp = e;
    list_push_newest(c, e);
    c->entries++;
    if (c->entries > c->capacity) {
        struct cache_entry **vp;

        victim = c->oldest;
        list_unlink(c, victim);
        vp = cache_slot(c, victim->key, victim->hash);
        *vp = victim->chain;
        c->entries--;
        drop[1] = victim->ref;
    }
cleanup:
    pthread_mutex_unlock(&c->lock);
    free(victim);
    pt2d_pkgref_release(drop[0]);
    pt2d_pkgref_release(drop[1]);
}

void pt2d_cache_stats(struct pt2d_cache *c, struct pt2d_cache_stats *out)
{
    pthread_mutex_lock(&c->lock);
    out->hits = c->hits;
    out->misses = c->misses;
    out->entries = c->entries;
    out->capacity = c->capacity;
    pthread_mutex_unlock(&c->lock);
}

void pt2d_cache_free(struct pt2d_cache *c)
{
    struct cache_entry *e, *next;

    if (c == NULL)
        return;
    for (e = c->newest; e != NULL; e = next) {
        next = e->older;
        pt2d_pkgref_release(e->ref);
        free(e);
    }
    pthread_mutex_destroy(&c->lock);
    free(c->buckets);
    free(c);
}

/*
 * pt2d_cache.c - LRU over a chained hash table (see pt2d_cache.h).
 *
 * One mutex guards the table and the recency list; lookups are O(1) and
 * hold it briefly. Packages are freed outside the lock (freeing one may
 * take a while: it releases libzip state).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_cache.h"

/*
 * A memoised body, shared by reference count between the pkgref and the
 * responses being sent from it: a hit hands out the bytes, not a copy.
 * Callers only ever see `body`; the header is found from it.
 */
struct memo {
    atomic_uint refs;
    size_t len;
    char body[]; /* len bytes and a NUL */
};

struct pt2d_pkgref {
    atomic_uint refs;
    pt2_package *pkg;
    pthread_mutex_t memo_lock; /* guards the memo pointer: requests share the pkgref */
    char memo_etag[PT2D_MEMO_ETAG_MAX];
    struct memo *memo; /* NULL: nothing memoised */
    /* the last ETag derived for this package, and the question it answers ("" = none) */
    char etag_question[PT2D_MEMO_QUESTION_MAX];
    char etag[PT2D_MEMO_ETAG_MAX];
};

static void memo_release(struct memo *m)
{
    if (m != NULL && atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) == 1)
        free(m);
}

void pt2d_pkgref_body_release(void *body)
{
    if (body != NULL)
        memo_release((struct memo *)(void *)((char *)body - offsetof(struct memo, body)));
}

struct cache_entry {
    char key[PT2D_CACHE_KEY_MAX];
    uint64_t hash;
    struct pt2d_pkgref *ref;
    uint64_t cost;                     /* pt2d_cache_cost(ref) when it was put */
    struct cache_entry *chain;         /* next in bucket */
    struct cache_entry *newer, *older; /* recency list */
};

/* A package that failed to open, remembered by the same content key (a ring, oldest out). */
struct cache_failure {
    char key[PT2D_CACHE_KEY_MAX]; /* "" = free */
    uint64_t hash;
    struct pt2_error err;
};

struct pt2d_cache {
    pthread_mutex_t lock;
    struct cache_failure *failures; /* PT2D_CACHE_FAILURES, NULL when capacity is 0 */
    size_t next_failure;
    struct cache_entry **buckets;
    size_t nbuckets; /* power of two */
    struct cache_entry *newest, *oldest;
    size_t entries, capacity;
    uint64_t bytes, max_bytes;
    uint64_t hits, misses;
};

struct pt2d_pkgref *pt2d_pkgref_new(pt2_package *pkg)
{
    struct pt2d_pkgref *ref = malloc(sizeof(*ref));

    if (ref == NULL) {
        pt2_package_free(pkg);
        return NULL;
    }
    if (pthread_mutex_init(&ref->memo_lock, NULL) != 0) {
        pt2_package_free(pkg);
        free(ref);
        return NULL;
    }
    atomic_init(&ref->refs, 1);
    ref->pkg = pkg;
    ref->memo_etag[0] = '\0';
    ref->memo = NULL;
    ref->etag_question[0] = '\0';
    ref->etag[0] = '\0';
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
        pthread_mutex_destroy(&ref->memo_lock);
        memo_release(ref->memo);
        free(ref);
    }
}

const pt2_package *pt2d_pkgref_pkg(const struct pt2d_pkgref *ref)
{
    return ref->pkg;
}

char *pt2d_pkgref_body_get(struct pt2d_pkgref *ref, const char *etag, size_t *len)
{
    struct memo *m = NULL;

    if (etag[0] == '\0')
        return NULL;
    pthread_mutex_lock(&ref->memo_lock);
    if (ref->memo != NULL && strcmp(ref->memo_etag, etag) == 0) {
        m = ref->memo;
        atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&ref->memo_lock);
    if (m == NULL)
        return NULL;
    *len = m->len;
    return m->body;
}

void pt2d_pkgref_body_put(struct pt2d_pkgref *ref, const char *etag, const char *body, size_t len)
{
    struct memo *m, *old;

    if (etag[0] == '\0' || strlen(etag) >= sizeof(ref->memo_etag) || len > PT2D_MEMO_BODY_MAX)
        return;
    /* Copy outside the lock; only the swap is guarded. */
    m = malloc(sizeof(*m) + len + 1);
    if (m == NULL)
        return;
    atomic_init(&m->refs, 1); /* the pkgref's */
    m->len = len;
    memcpy(m->body, body, len);
    m->body[len] = '\0';
    pthread_mutex_lock(&ref->memo_lock);
    old = ref->memo;
    ref->memo = m;
    snprintf(ref->memo_etag, sizeof(ref->memo_etag), "%s", etag);
    pthread_mutex_unlock(&ref->memo_lock);
    memo_release(old); /* responses still sending it keep it alive */
}

int pt2d_pkgref_etag_get(struct pt2d_pkgref *ref, const char *question, char *etag, size_t cap)
{
    size_t len;
    int hit = 0;

    if (question[0] == '\0')
        return 0;
    pthread_mutex_lock(&ref->memo_lock);
    len = strlen(ref->etag);
    if (strcmp(ref->etag_question, question) == 0 && len < cap) {
        memcpy(etag, ref->etag, len + 1);
        hit = 1;
    }
    pthread_mutex_unlock(&ref->memo_lock);
    return hit;
}

void pt2d_pkgref_etag_put(struct pt2d_pkgref *ref, const char *question, const char *etag)
{
    size_t ql = strlen(question), el = strlen(etag);

    if (ql == 0 || ql >= sizeof(ref->etag_question) || el >= sizeof(ref->etag))
        return;
    pthread_mutex_lock(&ref->memo_lock);
    memcpy(ref->etag_question, question, ql + 1);
    memcpy(ref->etag, etag, el + 1);
    pthread_mutex_unlock(&ref->memo_lock);
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

uint64_t pt2d_cache_cost(const struct pt2d_pkgref *ref)
{
    return sizeof(struct cache_entry) + sizeof(*ref) + PT2D_MEMO_BODY_MAX +
           pt2_package_memory(ref->pkg);
}

int pt2d_cache_create(struct pt2d_cache **out, size_t capacity, uint64_t max_bytes,
                      struct pt2_error *err)
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
    if (capacity > 0) {
        c->failures = calloc(PT2D_CACHE_FAILURES, sizeof(*c->failures));
        if (c->failures == NULL) {
            free(c->buckets);
            free(c);
            return pt2_error_set(err, PT2_ERR_NOMEM, "cache: out of memory");
        }
    }
    pthread_mutex_init(&c->lock, NULL);
    c->nbuckets = n;
    c->capacity = capacity;
    c->max_bytes = max_bytes;
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

/* Look up `key`, making it the most recent; `count` adds the outcome to the stats. */
static struct pt2d_pkgref *cache_lookup(struct pt2d_cache *c, const char *key, int count)
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
    }
    if (count && e != NULL)
        c->hits++;
    else if (count)
        c->misses++;
    pthread_mutex_unlock(&c->lock);
    return ref;
}

struct pt2d_pkgref *pt2d_cache_get(struct pt2d_cache *c, const char *key)
{
    return cache_lookup(c, key, 1);
}

struct pt2d_pkgref *pt2d_cache_peek(struct pt2d_cache *c, const char *key)
{
    return cache_lookup(c, key, 0);
}

void pt2d_cache_count_hit(struct pt2d_cache *c)
{
    pthread_mutex_lock(&c->lock);
    c->hits++;
    pthread_mutex_unlock(&c->lock);
}

void pt2d_cache_put(struct pt2d_cache *c, const char *key, struct pt2d_pkgref *ref)
{
    uint64_t h = cache_hash(key), cost = pt2d_cache_cost(ref);
    struct pt2d_pkgref *replaced = NULL;
    struct cache_entry *e, *victims = NULL, *v, **pp;

    if (c->capacity == 0 || strlen(key) >= PT2D_CACHE_KEY_MAX ||
        (c->max_bytes != 0 && cost > c->max_bytes))
        return;
    pthread_mutex_lock(&c->lock);
    pp = cache_slot(c, key, h);
    if (*pp != NULL) {
        e = *pp;
        replaced = e->ref;
        c->bytes -= e->cost;
        e->ref = pt2d_pkgref_retain(ref);
        e->cost = cost;
        c->bytes += cost;
        list_unlink(c, e);
        list_push_newest(c, e);
    } else {
        e = calloc(1, sizeof(*e));
        if (e == NULL)
            goto cleanup; /* caching is best effort */
        snprintf(e->key, sizeof(e->key), "%s", key);
        e->hash = h;
        e->ref = pt2d_pkgref_retain(ref);
        e->cost = cost;
        *pp = e;
        list_push_newest(c, e);
        c->entries++;
        c->bytes += cost;
    }
    /* The oldest go until both bounds hold; `e` itself fits (checked above). */
    while (c->oldest != e &&
           (c->entries > c->capacity || (c->max_bytes != 0 && c->bytes > c->max_bytes))) {
        struct cache_entry **vp;

        v = c->oldest;
        list_unlink(c, v);
        vp = cache_slot(c, v->key, v->hash);
        *vp = v->chain;
        c->entries--;
        c->bytes -= v->cost;
        v->chain = victims; /* released below, outside the lock */
        victims = v;
    }
cleanup:
    pthread_mutex_unlock(&c->lock);
    pt2d_pkgref_release(replaced);
    while (victims != NULL) {
        v = victims;
        victims = v->chain;
        pt2d_pkgref_release(v->ref);
        free(v);
    }
}

static struct cache_failure *failure_slot(struct pt2d_cache *c, const char *key, uint64_t h)
{
    size_t i;

    for (i = 0; i < PT2D_CACHE_FAILURES; i++)
        if (c->failures[i].hash == h && strcmp(c->failures[i].key, key) == 0)
            return &c->failures[i];
    return NULL;
}

void pt2d_cache_put_failure(struct pt2d_cache *c, const char *key, const struct pt2_error *err)
{
    uint64_t h = cache_hash(key);
    struct cache_failure *f;

    if (c->failures == NULL || strlen(key) >= PT2D_CACHE_KEY_MAX || key[0] == '\0')
        return;
    pthread_mutex_lock(&c->lock);
    f = failure_slot(c, key, h);
    if (f == NULL) {
        f = &c->failures[c->next_failure];
        c->next_failure = (c->next_failure + 1) % PT2D_CACHE_FAILURES;
    }
    snprintf(f->key, sizeof(f->key), "%s", key);
    f->hash = h;
    f->err = *err;
    pthread_mutex_unlock(&c->lock);
}

int pt2d_cache_get_failure(struct pt2d_cache *c, const char *key, struct pt2_error *out)
{
    struct cache_failure *f;
    int found = 0;

    if (c->failures == NULL || key[0] == '\0')
        return 0;
    pthread_mutex_lock(&c->lock);
    f = failure_slot(c, key, cache_hash(key));
    if (f != NULL) {
        *out = f->err;
        found = 1;
    }
    pthread_mutex_unlock(&c->lock);
    return found;
}

void pt2d_cache_stats(struct pt2d_cache *c, struct pt2d_cache_stats *out)
{
    pthread_mutex_lock(&c->lock);
    out->hits = c->hits;
    out->misses = c->misses;
    out->entries = c->entries;
    out->capacity = c->capacity;
    out->bytes = c->bytes;
    out->max_bytes = c->max_bytes;
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
    free(c->failures);
    free(c->buckets);
    free(c);
}

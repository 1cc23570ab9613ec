/*
 * pt2_source.c - the byte source every inspection reads through (see the
 * "Byte sources" section of pt2scope.h).
 *
 * Design: the cache is a sorted array of non-overlapping extents (offset,
 * bytes), each from one backend read. A read that the extents cover is a
 * memcpy; a miss fetches the uncovered parts of a window around it (aligned
 * to `block`, at least `readahead` long) as one batch, and a miss that starts
 * where the previous one ended doubles the window (up to RA_MAX), as a
 * sequential scan of a remote object would otherwise pay a round trip per
 * window. Reads longer than a quarter of the cache go straight to the
 * backend, uncached. Over `cache_bytes`, the oldest extents go first. An
 * inspection makes a few hundred extents at most, so a linear eviction scan
 * and memmove insertion cost nothing next to one pread.
 *
 * Batches: pt2_source_prefetch() and every miss turn into one call of the
 * backend's read_many (or one read_at per range); `rounds` counts those
 * calls, which is what latency costs a remote object.
 *
 * Digest: with pt2_source_record_digest() on, every range the backend
 * delivers is hashed as (offset, length, bytes) in the order the ranges were
 * asked for, so the digest is a function of the object's bytes at the
 * offsets a deterministic reader asked for, whatever the transport.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "pt2_error.h"
#include "pt2_source.h"

#define PS_BLOCK_DEFAULT 4096u
#define PS_READAHEAD_DEFAULT (64u * 1024u)
#define PS_GAP_DEFAULT (64u * 1024u)
#define PS_CACHE_DEFAULT (16u * 1024u * 1024u)
/* A file has the page cache behind it: this one only has to hold a plan's batch. */
#define PS_CACHE_FD_DEFAULT (4u * 1024u * 1024u)
#define PS_RA_MAX (1024u * 1024u) /* the doubled read-ahead window, at most */
#define PS_PREAD_CHUNK (1u << 30) /* one pread() at most */
#define PS_PLAN_MAX 4096u         /* ranges in one prefetch */

struct ps_ext {
    uint64_t off;
    size_t len;
    uint8_t *data;
    uint64_t seq; /* insertion order, for eviction */
};

struct pt2_source {
    const struct pt2_source_ops *ops;
    void *ctx;
    uint64_t size;
    size_t block, readahead, gap, cache_max;
    int direct;
    int cached_only; /* pt2_source.h: a miss fails instead of reading */

    struct ps_ext *ext; /* sorted by off, non-overlapping */
    size_t n, cap;
    size_t cached; /* bytes in ext */
    uint64_t seq;

    uint64_t last_end; /* where the last miss's window ended */
    size_t window;     /* current read-ahead window */

    uint64_t requests, bytes, rounds;
    struct pt2_error fail; /* the backend's first failure: sticky */
    int digesting;
    struct sha256_ctx sha;

    int fd; /* the descriptor backend's, else -1 */
};

/* ---- the descriptor backend ------------------------------------------ */

static int ps_fd_read(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                      struct pt2_error *err)
{
    struct pt2_source *s = ctx;
    size_t have = 0;

    while (have < len) {
        size_t chunk = len - have > PS_PREAD_CHUNK ? PS_PREAD_CHUNK : len - have;
        ssize_t r = pread(s->fd, (uint8_t *)buf + have, chunk, (off_t)(off + have));

        if (r < 0) {
            char eb[128];

            if (errno == EINTR)
                continue;
            *got = have;
            return pt2_error_set(err, PT2_ERR_IO, "read error: %s",
                                 pt2_strerror(errno, eb, sizeof(eb)));
        }
        if (r == 0)
            break;
        have += (size_t)r;
    }
    *got = have;
    return PT2_OK;
}

static const struct pt2_source_ops ps_fd_ops = {.read_at = ps_fd_read};

/* ---- life ------------------------------------------------------------- */

static size_t ps_pick(size_t v, size_t def)
{
    return v != 0 ? v : def;
}

int pt2_source_new(pt2_source **out, const struct pt2_source_ops *ops, void *ctx, uint64_t size,
                   const struct pt2_source_tuning *tuning, struct pt2_error *err)
{
    struct pt2_source_tuning t = {0};
    struct pt2_source *s;

    *out = NULL;
    if (ops == NULL || ops->read_at == NULL)
        return pt2_error_set(err, PT2_ERR_INVALID, "a byte source needs a read_at function");
    if (tuning != NULL)
        t = *tuning;
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    s->ops = ops;
    s->ctx = ctx;
    s->size = size;
    s->fd = -1;
    s->block = ps_pick(t.block, PS_BLOCK_DEFAULT);
    s->readahead = ps_pick(t.readahead, PS_READAHEAD_DEFAULT);
    s->gap = ps_pick(t.gap, PS_GAP_DEFAULT);
    s->cache_max = ps_pick(t.cache_bytes, PS_CACHE_DEFAULT);
    s->direct = t.direct;
    /* A power of two keeps the alignment arithmetic simple; a window of blocks must fit the
     * cache many times over, or filling one half of it would evict the other. */
    while (s->block & (s->block - 1))
        s->block &= s->block - 1;
    while (s->block > 512 && s->block > s->cache_max / 16)
        s->block /= 2;
    if (s->readahead > s->cache_max / 4)
        s->readahead = s->cache_max / 4 > s->block ? s->cache_max / 4 : s->block;
    s->window = s->readahead;
    *out = s;
    return PT2_OK;
}

int pt2_source_new_fd(pt2_source **out, int fd, const struct pt2_source_tuning *tuning,
                      struct pt2_error *err)
{
    struct pt2_source_tuning t;
    struct pt2_source *s;
    struct stat st;
    int rc;

    *out = NULL;
    if (fd < 0)
        return pt2_error_set(err, PT2_ERR_INVALID, "invalid file descriptor %d", fd);
    if (fstat(fd, &st) != 0) {
        char eb[128];

        return pt2_error_set(err, PT2_ERR_IO, "cannot stat the archive: %s",
                             pt2_strerror(errno, eb, sizeof(eb)));
    }
    if (!S_ISREG(st.st_mode))
        return pt2_error_set(err, PT2_ERR_IO, "not a regular file");
    t = tuning != NULL ? *tuning : (struct pt2_source_tuning){0};
    if (t.cache_bytes == 0)
        t.cache_bytes = PS_CACHE_FD_DEFAULT;
    rc = pt2_source_new(&s, &ps_fd_ops, NULL, (uint64_t)st.st_size, &t, err);
    if (rc != PT2_OK)
        return rc;
    s->fd = fd;
    s->ctx = s; /* the backend reads s->fd */
    *out = s;
    return PT2_OK;
}

void pt2_source_free(pt2_source *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->ext[i].data);
    free(s->ext);
    free(s);
}

uint64_t pt2_source_size(const pt2_source *s)
{
    return s->size;
}

void pt2_source_cached_only(pt2_source *s, int on)
{
    s->cached_only = on;
}

int pt2_source_failed(const pt2_source *s, struct pt2_error *err)
{
    if (s->fail.code == PT2_OK)
        return PT2_OK;
    return pt2_error_copy(err, &s->fail);
}

uint64_t pt2_source_requests(const pt2_source *s)
{
    return s->requests;
}

uint64_t pt2_source_bytes(const pt2_source *s)
{
    return s->bytes;
}

uint64_t pt2_source_rounds(const pt2_source *s)
{
    return s->rounds;
}

static void ps_digest(struct pt2_source *s, uint64_t off, const uint8_t *data, size_t len);

void pt2_source_record_digest(pt2_source *s)
{
    if (s->digesting)
        return;
    sha256_init(&s->sha);
    s->digesting = 1;
    /* What is cached already (a remote object's first response) is part of what the
     * inspection reads: in offset order, as deterministic as the reads themselves. */
    for (size_t i = 0; i < s->n; i++)
        ps_digest(s, s->ext[i].off, s->ext[i].data, s->ext[i].len);
}

void pt2_source_digest(const pt2_source *s, uint8_t out[32])
{
    struct sha256_ctx copy;

    if (!s->digesting) {
        memset(out, 0, 32);
        return;
    }
    copy = s->sha; /* the digest stays open for more reads */
    sha256_digest(&copy, SHA256_DIGEST_SIZE, out);
}

/* ---- the extents ------------------------------------------------------ */

/* Index of the first extent ending after `off` (n when none). */
static size_t ps_find(const struct pt2_source *s, uint64_t off)
{
    size_t lo = 0, hi = s->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->ext[mid].off + s->ext[mid].len <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Bytes from `off` on (at most len) that the extents cover without a hole. */
static size_t ps_covered(const struct pt2_source *s, uint64_t off, size_t len)
{
    uint64_t pos = off, end = off + len;
    size_t i = ps_find(s, off);

    while (pos < end && i < s->n && s->ext[i].off <= pos) {
        pos = s->ext[i].off + s->ext[i].len;
        i++;
    }
    return pos >= end ? len : (size_t)(pos - off);
}

/* Copy [off, off+len), which the extents cover. */
static void ps_copy(const struct pt2_source *s, uint64_t off, uint8_t *buf, size_t len)
{
    uint64_t pos = off, end = off + len;
    size_t i = ps_find(s, off);

    while (pos < end) {
        const struct ps_ext *e = &s->ext[i++];
        size_t skip = (size_t)(pos - e->off), take = e->len - skip;

        if (take > end - pos)
            take = (size_t)(end - pos);
        memcpy(buf + (pos - off), e->data + skip, take);
        pos += take;
    }
}

static void ps_evict_one(struct pt2_source *s)
{
    size_t victim = 0;

    for (size_t i = 1; i < s->n; i++)
        if (s->ext[i].seq < s->ext[victim].seq)
            victim = i;
    s->cached -= s->ext[victim].len;
    free(s->ext[victim].data);
    memmove(&s->ext[victim], &s->ext[victim + 1], (s->n - victim - 1) * sizeof(s->ext[0]));
    s->n--;
}

/*
 * Keep `data` (owned from here on, even on failure) as the bytes at `off`.
 * The caller fetched only uncovered ranges, so nothing overlaps.
 */
static int ps_insert(struct pt2_source *s, uint64_t off, uint8_t *data, size_t len,
                     struct pt2_error *err)
{
    size_t at;

    if (len == 0) {
        free(data);
        return PT2_OK;
    }
    while (s->n > 0 && s->cached + len > s->cache_max)
        ps_evict_one(s);
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 16;
        struct ps_ext *ne = realloc(s->ext, ncap * sizeof(*ne));

        if (ne == NULL) {
            free(data);
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory caching reads");
        }
        s->ext = ne;
        s->cap = ncap;
    }
    at = ps_find(s, off);
    memmove(&s->ext[at + 1], &s->ext[at], (s->n - at) * sizeof(s->ext[0]));
    s->ext[at] = (struct ps_ext){.off = off, .len = len, .data = data, .seq = s->seq++};
    s->n++;
    s->cached += len;
    return PT2_OK;
}

static void ps_digest(struct pt2_source *s, uint64_t off, const uint8_t *data, size_t len)
{
    uint8_t hdr[16];

    if (!s->digesting)
        return;
    for (int i = 0; i < 8; i++) {
        hdr[i] = (uint8_t)(off >> (8 * i));
        hdr[8 + i] = (uint8_t)((uint64_t)len >> (8 * i));
    }
    sha256_update(&s->sha, sizeof(hdr), hdr);
    sha256_update(&s->sha, len, data);
}

/*
 * One round: fetch these ranges (sorted, disjoint, uncovered, inside the
 * object) and cache them. A short read (the object shrank) caches what came.
 */
static int ps_fetch(struct pt2_source *s, const struct pt2_range *r, size_t n, int *short_read,
                    struct pt2_error *err)
{
    uint8_t **bufs;
    size_t *got = NULL;
    int rc = PT2_OK;
    size_t i;

    if (n == 0)
        return PT2_OK;
    bufs = calloc(n, sizeof(*bufs));
    got = calloc(n, sizeof(*got));
    if (bufs == NULL || got == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading");
        goto cleanup;
    }
    for (i = 0; i < n; i++) {
        bufs[i] = malloc((size_t)r[i].len);
        if (bufs[i] == NULL) {
            rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory reading");
            goto cleanup;
        }
    }
    s->rounds++;
    s->requests += n;
    if (n > 1 && s->ops->read_many != NULL) {
        rc = s->ops->read_many(s->ctx, r, (void *const *)bufs, n, err);
        for (i = 0; rc == PT2_OK && i < n; i++)
            got[i] = (size_t)r[i].len;
    } else {
        for (i = 0; rc == PT2_OK && i < n; i++)
            rc = s->ops->read_at(s->ctx, r[i].off, bufs[i], (size_t)r[i].len, &got[i], err);
    }
    if (rc != PT2_OK) {
        pt2_error_copy(&s->fail, err);
        goto cleanup;
    }
    for (i = 0; i < n && rc == PT2_OK; i++) {
        if (got[i] < r[i].len && short_read != NULL)
            *short_read = 1;
        s->bytes += got[i];
        ps_digest(s, r[i].off, bufs[i], got[i]);
        rc = ps_insert(s, r[i].off, bufs[i], got[i], err);
        bufs[i] = NULL;
    }
cleanup:
    for (i = 0; bufs != NULL && i < n; i++)
        free(bufs[i]);
    free(bufs);
    free(got);
    return rc;
}

/*
 * The parts of [a, b) no extent covers, appended to r (at most `max`): the
 * count appended.
 */
static size_t ps_holes(const struct pt2_source *s, uint64_t a, uint64_t b, struct pt2_range *r,
                       size_t max)
{
    size_t i = ps_find(s, a), k = 0;
    uint64_t pos = a;

    while (pos < b && k < max) {
        uint64_t next = b;

        if (i < s->n && s->ext[i].off <= pos) {
            pos = s->ext[i].off + s->ext[i].len;
            i++;
            continue;
        }
        if (i < s->n && s->ext[i].off < b)
            next = s->ext[i].off;
        r[k++] = (struct pt2_range){pos, next - pos};
        pos = next;
    }
    return k;
}

static uint64_t ps_down(const struct pt2_source *s, uint64_t v)
{
    return v & ~(uint64_t)(s->block - 1);
}

static uint64_t ps_up(const struct pt2_source *s, uint64_t v)
{
    uint64_t r = (v + s->block - 1) & ~(uint64_t)(s->block - 1);

    return r > s->size || r < v ? s->size : r;
}

/* ---- reads ------------------------------------------------------------- */

int pt2_source_read(pt2_source *s, uint64_t off, void *buf, size_t len, size_t *got,
                    struct pt2_error *err)
{
    struct pt2_range holes[64];
    uint64_t a, b, end;
    int rc, short_read = 0;

    *got = 0;
    if (s->fail.code != PT2_OK)
        return pt2_error_copy(err, &s->fail);
    if (off >= s->size || len == 0)
        return PT2_OK;
    end = len > s->size - off ? s->size : off + len;
    len = (size_t)(end - off);
    if (ps_covered(s, off, len) == len) {
        ps_copy(s, off, buf, len);
        *got = len;
        return PT2_OK;
    }
    if (s->cached_only)
        return pt2_error_set(err, PT2_ERR_NOT_FOUND, "not in the read cache");
    if (len > s->cache_max / 4 || s->direct) {
        /* Too big to keep: straight through, counted and digested all the same. */
        s->rounds++;
        s->requests++;
        rc = s->ops->read_at(s->ctx, off, buf, len, got, err);
        if (rc != PT2_OK)
            return pt2_error_copy(&s->fail, err);
        s->bytes += *got;
        ps_digest(s, off, buf, *got);
        return PT2_OK;
    }
    /* A miss right where the last window ended is a scan: widen the window. */
    if (s->last_end != 0 && off >= s->last_end && off - s->last_end < s->block)
        s->window = s->window * 2 > PS_RA_MAX ? PS_RA_MAX : s->window * 2;
    else
        s->window = s->readahead;
    if (s->window > s->cache_max / 4)
        s->window = s->cache_max / 4;
    a = ps_down(s, off);
    b = ps_up(s, end - a < s->window ? a + s->window : end);
    /* A cache in pieces may leave more holes than one batch takes: go on until none. */
    while (!short_read) {
        size_t n = ps_holes(s, a, b, holes, sizeof(holes) / sizeof(holes[0]));

        if (n == 0)
            break;
        rc = ps_fetch(s, holes, n, &short_read, err);
        if (rc != PT2_OK)
            return rc;
    }
    s->last_end = b;
    /* Short only when the object ended early (a file that shrank). */
    *got = ps_covered(s, off, len);
    ps_copy(s, off, buf, *got);
    return PT2_OK;
}

static int ps_cmp_range(const void *x, const void *y)
{
    const struct pt2_range *a = x, *b = y;

    return a->off < b->off ? -1 : a->off > b->off;
}

int pt2_source_prefetch(pt2_source *s, const struct pt2_range *ranges, size_t n,
                        struct pt2_error *err)
{
    struct pt2_range *r = NULL, *holes = NULL;
    size_t m = 0, k = 0, i, budget = s->cache_max / 2;
    uint64_t total = 0;
    int rc = PT2_OK;

    if (n == 0 || s->fail.code != PT2_OK || s->direct)
        return PT2_OK;
    if (n > PS_PLAN_MAX)
        n = PS_PLAN_MAX; /* the rest is read on demand */
    r = malloc(n * sizeof(*r));
    holes = malloc(2 * n * sizeof(*holes) + sizeof(*holes));
    if (r == NULL || holes == NULL) {
        rc = pt2_error_set(err, PT2_ERR_NOMEM, "out of memory planning reads");
        goto cleanup;
    }
    for (i = 0; i < n; i++) {
        uint64_t a = ranges[i].off, b;

        if (a >= s->size || ranges[i].len == 0)
            continue;
        b = ranges[i].len > s->size - a ? s->size : a + ranges[i].len;
        r[m++] = (struct pt2_range){ps_down(s, a), ps_up(s, b) - ps_down(s, a)};
    }
    qsort(r, m, sizeof(*r), ps_cmp_range);
    /* Merge what overlaps or lies within `gap`: one request instead of two. */
    for (i = 0; i < m; i++) {
        if (k > 0 && r[i].off <= r[k - 1].off + r[k - 1].len + s->gap) {
            uint64_t end = r[i].off + r[i].len;

            if (end > r[k - 1].off + r[k - 1].len)
                r[k - 1].len = end - r[k - 1].off;
        } else {
            r[k++] = r[i];
        }
    }
    /* The uncovered parts, within the cache's budget; what does not fit is read on demand. */
    m = 0;
    for (i = 0; i < k && m < 2 * n; i++) {
        size_t got = ps_holes(s, r[i].off, r[i].off + r[i].len, holes + m, 2 * n - m);

        for (size_t j = 0; j < got; j++) {
            if (total + holes[m + j].len > budget) {
                /* the part that fits, from the front: the walk starts there */
                holes[m + j].len = ps_down(s, budget - total);
                got = holes[m + j].len > 0 ? j + 1 : j;
                total = budget;
                break;
            }
            total += holes[m + j].len;
        }
        m += got;
    }
    rc = ps_fetch(s, holes, m, NULL, err);
cleanup:
    free(r);
    free(holes);
    return rc;
}

int pt2_source_seed(pt2_source *s, uint64_t off, const void *data, size_t len,
                    struct pt2_error *err)
{
    struct pt2_range holes[64];
    uint64_t end;
    size_t n;
    int rc = PT2_OK;

    if (off >= s->size || len == 0)
        return PT2_OK;
    end = len > s->size - off ? s->size : off + len;
    n = ps_holes(s, off, end, holes, sizeof(holes) / sizeof(holes[0]));
    for (size_t i = 0; i < n && rc == PT2_OK; i++) {
        uint8_t *copy = malloc((size_t)holes[i].len);

        if (copy == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory caching reads");
        memcpy(copy, (const uint8_t *)data + (holes[i].off - off), (size_t)holes[i].len);
        ps_digest(s, holes[i].off, copy, (size_t)holes[i].len);
        rc = ps_insert(s, holes[i].off, copy, (size_t)holes[i].len, err);
    }
    return rc;
}

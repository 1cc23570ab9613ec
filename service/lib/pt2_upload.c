/*
 * pt2_upload.c - an upload kept as it streams (see pt2scope.h, "Uploads
 * inspected as they stream").
 *
 * Design: pt2_zipstream decides what is kept; this module holds it. Kept
 * bytes arrive in order of growing offset and are recorded as extents:
 * runs of the archive held either in one memory buffer (up to memory_cap)
 * or, past it, appended to the caller's spill file. The source reads an
 * offset by finding its extent; between extents (dropped data) it returns
 * zeros, which is why the source is only handed out when the stream was
 * followed (or nothing was dropped). The source uses the tuning of a
 * descriptor source, so an inspection reads what it reads from a spooled
 * file, in the same calls, and its document is the same.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt2_inspect.h"
#include "pt2_zipstream.h"
#include "pt2scope.h"

#define UPLOAD_MEMORY_DEFAULT (8u * 1024u * 1024u)
#define UPLOAD_SOURCE_CACHE (4u * 1024u * 1024u) /* as pt2_source_new_fd's */

struct up_extent {
    uint64_t off, len; /* in the archive */
    uint64_t at;       /* in the memory buffer, or in the spill file */
    int in_file;
};

struct pt2_upload {
    struct pt2_upload_options o;
    pt2_zipstream *zs; /* NULL when every byte is kept */
    uint8_t *mem;
    size_t mem_len, mem_alloc;
    int mem_closed; /* reserve refused: no more memory */
    int fd;         /* the spill file, -1 until asked for */
    uint64_t file_len;
    struct up_extent *ext;
    size_t next, cap_ext;
    uint64_t size, kept;
    int finished;
    pt2_source *src;
};

static int up_extent_add(pt2_upload *u, uint64_t off, uint64_t len, uint64_t at, int in_file,
                         struct pt2_error *err)
{
    struct up_extent *last = u->next > 0 ? &u->ext[u->next - 1] : NULL;

    /* The reads below search the extents by offset: the stream keeps bytes in order. */
    if (last != NULL && off < last->off + last->len)
        return pt2_error_set(err, PT2_ERR_INTERNAL,
                             "kept bytes at offset %llu arrived after those up to %llu",
                             (unsigned long long)off, (unsigned long long)(last->off + last->len));
    if (last != NULL && last->in_file == in_file && last->off + last->len == off &&
        last->at + last->len == at) {
        last->len += len;
        return PT2_OK;
    }
    if (u->next == u->cap_ext) {
        size_t ncap = u->cap_ext ? u->cap_ext * 2 : 64;
        struct up_extent *v = realloc(u->ext, ncap * sizeof(*v));

        if (v == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
        u->ext = v;
        u->cap_ext = ncap;
    }
    u->ext[u->next++] = (struct up_extent){off, len, at, in_file};
    return PT2_OK;
}

static int up_to_file(pt2_upload *u, uint64_t off, const uint8_t *p, size_t n,
                      struct pt2_error *err);

static int up_to_memory(pt2_upload *u, uint64_t off, const uint8_t *p, size_t n,
                        struct pt2_error *err)
{
    if (u->mem_len + n > u->mem_alloc) {
        size_t want = u->mem_alloc ? u->mem_alloc : 65536;
        uint8_t *m;

        while (want < u->mem_len + n)
            want *= 2;
        if (want > u->o.memory_cap)
            want = u->o.memory_cap;
        if (u->o.reserve != NULL && !u->o.reserve(u->o.spill_ctx, want - u->mem_alloc)) {
            u->mem_closed = 1;
            return up_to_file(u, off, p, n, err);
        }
        m = realloc(u->mem, want);
        if (m == NULL)
            return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory keeping the upload");
        u->mem = m;
        u->mem_alloc = want;
    }
    memcpy(u->mem + u->mem_len, p, n);
    u->mem_len += n;
    return up_extent_add(u, off, n, u->mem_len - n, 0, err);
}

static int up_to_file(pt2_upload *u, uint64_t off, const uint8_t *p, size_t n,
                      struct pt2_error *err)
{
    uint64_t at = u->file_len;
    size_t done = 0;
    int rc;

    if (u->fd < 0) {
        if (u->o.spill == NULL)
            return pt2_error_set(err, PT2_ERR_TOO_LARGE,
                                 "the upload's kept bytes exceed %zu bytes in memory",
                                 u->o.memory_cap);
        rc = u->o.spill(u->o.spill_ctx, &u->fd, err);
        if (rc != PT2_OK)
            return rc;
    }
    while (done < n) {
        ssize_t w = pwrite(u->fd, p + done, n - done, (off_t)(at + done));

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            char eb[128];

            return pt2_error_set(err, PT2_ERR_IO, "cannot write the upload's spool file: %s",
                                 w < 0 ? pt2_strerror(errno, eb, sizeof(eb)) : "no progress");
        }
        done += (size_t)w;
    }
    u->file_len += n;
    return up_extent_add(u, off, n, at, 1, err);
}

/* The sink: kept bytes at their archive offset, to memory while it lasts. */
static int up_keep(void *ctx, uint64_t off, const void *data, size_t len, struct pt2_error *err)
{
    pt2_upload *u = ctx;
    const uint8_t *p = data;
    size_t room = u->mem_closed ? 0 : u->o.memory_cap - u->mem_len, m = len < room ? len : room;
    int rc = PT2_OK;

    u->kept += len;
    if (m > 0)
        rc = up_to_memory(u, off, p, m, err);
    if (rc == PT2_OK && len > m)
        rc = up_to_file(u, off + m, p + m, len - m, err);
    return rc;
}

static int up_want(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    return pt2_package_entry_read(name, len);
}

int pt2_upload_new(pt2_upload **out, const struct pt2_upload_options *o, struct pt2_error *err)
{
    pt2_upload *u = calloc(1, sizeof(*u));
    struct pt2_zipstream_sink sink = {up_keep, up_want, NULL};

    *out = NULL;
    if (u == NULL)
        return pt2_error_set(err, PT2_ERR_NOMEM, "out of memory");
    u->o = *o;
    if (u->o.memory_cap == 0)
        u->o.memory_cap = UPLOAD_MEMORY_DEFAULT;
    u->fd = -1;
    sink.ctx = u;
    if (!o->keep_all && pt2_zipstream_new(&u->zs, &sink, err) != PT2_OK) {
        free(u);
        return PT2_ERR_NOMEM;
    }
    *out = u;
    return PT2_OK;
}

int pt2_upload_feed(pt2_upload *u, const void *data, size_t len, struct pt2_error *err)
{
    int rc;

    if (u->finished)
        return pt2_error_set(err, PT2_ERR_INVALID, "the upload has ended");
    rc = u->zs != NULL ? pt2_zipstream_feed(u->zs, data, len, err)
                       : up_keep(u, u->size, data, len, err);
    u->size += len;
    return rc;
}

int pt2_upload_finish(pt2_upload *u, struct pt2_error *err)
{
    u->finished = 1;
    return u->zs != NULL ? pt2_zipstream_finish(u->zs, err) : PT2_OK;
}

static int up_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                      struct pt2_error *err)
{
    pt2_upload *u = ctx;
    uint8_t *b = buf;
    size_t lo = 0, hi = u->next, n;

    *got = 0;
    if (off >= u->size)
        return PT2_OK;
    n = len < u->size - off ? len : (size_t)(u->size - off);
    memset(b, 0, n);
    while (lo < hi) { /* the first extent ending after off */
        size_t mid = lo + (hi - lo) / 2;

        if (u->ext[mid].off + u->ext[mid].len <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < u->next && u->ext[i].off < off + n; i++) {
        const struct up_extent *e = &u->ext[i];
        uint64_t s = e->off > off ? e->off : off;
        uint64_t t = e->off + e->len < off + n ? e->off + e->len : off + n;
        uint64_t at = e->at + (s - e->off);

        if (!e->in_file) {
            memcpy(b + (s - off), u->mem + at, (size_t)(t - s));
            continue;
        }
        for (uint64_t k = s; k < t;) {
            ssize_t r = pread(u->fd, b + (k - off), (size_t)(t - k), (off_t)(at + (k - s)));

            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                char eb[128];

                return pt2_error_set(err, PT2_ERR_IO, "cannot read the upload's spool file: %s",
                                     r < 0 ? pt2_strerror(errno, eb, sizeof(eb)) : "short file");
            }
            k += (uint64_t)r;
        }
    }
    *got = n;
    return PT2_OK;
}

static const struct pt2_source_ops up_ops = {up_read_at, NULL};

int pt2_upload_source(pt2_upload *u, pt2_source **out, struct pt2_error *err)
{
    struct pt2_source_tuning t = {.cache_bytes = UPLOAD_SOURCE_CACHE};
    const char *why = "", *bad = "";
    int rc;

    *out = NULL;
    if (!u->finished)
        return pt2_error_set(err, PT2_ERR_INVALID, "the upload has not ended");
    if (u->zs != NULL && pt2_zipstream_corrupt(u->zs, &bad))
        return pt2_error_set(err, PT2_ERR_ENTRY, "%s", bad);
    if (u->zs != NULL && pt2_zipstream_result(u->zs, &why) == PT2_ZIPSTREAM_LOST)
        return pt2_error_set(err, PT2_ERR_UNSUPPORTED,
                             "the upload could not be followed as it streamed (%s) after %llu "
                             "bytes of weights were dropped; send it again with stream=0 to "
                             "have it kept whole",
                             why, (unsigned long long)pt2_zipstream_dropped(u->zs));
    if (u->src == NULL) {
        rc = pt2_source_new(&u->src, &up_ops, u, u->size, &t, err);
        if (rc != PT2_OK)
            return rc;
    }
    *out = u->src;
    return PT2_OK;
}

cJSON *pt2_upload_source_json(const pt2_upload *u)
{
    const char *why = "stream=0 was asked: the upload was kept whole";
    int streamed = 0;
    cJSON *o = cJSON_CreateObject();

    if (u->zs != NULL)
        streamed = pt2_zipstream_result(u->zs, &why) == PT2_ZIPSTREAM_FOLLOWED;
    if (o == NULL || cJSON_AddBoolToObject(o, "upload", 1) == NULL ||
        cJSON_AddBoolToObject(o, "streamed", streamed) == NULL ||
        (!streamed && cJSON_AddStringToObject(o, "streamed_reason", why) == NULL) ||
        cJSON_AddNumberToObject(o, "bytes_received", (double)u->size) == NULL ||
        cJSON_AddNumberToObject(o, "bytes_kept", (double)u->kept) == NULL ||
        cJSON_AddNumberToObject(o, "bytes_spilled", (double)u->file_len) == NULL ||
        cJSON_AddNumberToObject(o, "entries_dropped",
                                u->zs != NULL ? (double)pt2_zipstream_entries_dropped(u->zs) : 0) ==
            NULL) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

uint64_t pt2_upload_size(const pt2_upload *u)
{
    return u->size;
}

uint64_t pt2_upload_kept(const pt2_upload *u)
{
    return u->kept;
}

uint64_t pt2_upload_spilled(const pt2_upload *u)
{
    return u->file_len;
}

void pt2_upload_free(pt2_upload *u)
{
    if (u == NULL)
        return;
    pt2_source_free(u->src);
    pt2_zipstream_free(u->zs);
    free(u->mem);
    free(u->ext);
    free(u);
}

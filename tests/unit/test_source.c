/*
 * test_source.c - the byte source: cache, read-ahead, coalescing, batches,
 * sticky failures and the read digest, against a memory backend that logs
 * every call; and a whole inspection through it (a handful of reads).
 */
#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zip.h>

#include "pt2_source.h"
#include "pt2scope.h"
#include "testutil.h"

#define KIB 1024u
#define LOG_MAX 256

struct mem {
    uint8_t *data;
    uint64_t len; /* bytes really there (may be less than the source's size) */
    int fail_at;  /* the n-th read_at/read_many call fails (1-based); 0 = never */
    int calls;    /* read_at + read_many calls */
    int many;     /* read_many calls */
    struct pt2_range log[LOG_MAX];
    size_t nlog;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                    struct pt2_error *err)
{
    struct mem *m = ctx;

    m->calls++;
    if (m->fail_at != 0 && m->calls == m->fail_at)
        return pt2_error_set(err, PT2_ERR_REMOTE_CHANGED, "the object changed");
    if (m->nlog < LOG_MAX)
        m->log[m->nlog++] = (struct pt2_range){off, len};
    *got = off >= m->len ? 0 : (m->len - off < len ? (size_t)(m->len - off) : len);
    memcpy(buf, m->data + off, *got);
    return PT2_OK;
}

static int mem_many(void *ctx, const struct pt2_range *r, void *const *bufs, size_t n,
                    struct pt2_error *err)
{
    struct mem *m = ctx;

    m->calls++;
    m->many++;
    if (m->fail_at != 0 && m->calls == m->fail_at)
        return pt2_error_set(err, PT2_ERR_REMOTE_CHANGED, "the object changed");
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_le(r[i].off + r[i].len, m->len);
        if (m->nlog < LOG_MAX)
            m->log[m->nlog++] = r[i];
        memcpy(bufs[i], m->data + r[i].off, (size_t)r[i].len);
    }
    return PT2_OK;
}

static const struct pt2_source_ops only_at = {.read_at = mem_read};
static const struct pt2_source_ops with_many = {.read_at = mem_read, .read_many = mem_many};

static void mem_init(struct mem *m, uint64_t len, unsigned seed)
{
    memset(m, 0, sizeof(*m));
    m->data = malloc((size_t)len);
    ck_assert_ptr_nonnull(m->data);
    for (uint64_t i = 0; i < len; i++)
        m->data[i] = (uint8_t)((i * 131u + seed) >> 3);
    m->len = len;
}

static pt2_source *open_src(struct mem *m, const struct pt2_source_ops *ops, uint64_t size,
                            const struct pt2_source_tuning *t)
{
    struct pt2_error err = {0};
    pt2_source *s = NULL;

    ck_assert_int_eq(pt2_source_new(&s, ops, m, size, t, &err), PT2_OK);
    return s;
}

static void read_ok(pt2_source *s, struct mem *m, uint64_t off, size_t len)
{
    struct pt2_error err = {0};
    uint8_t *buf = malloc(len);
    size_t got = 0;

    ck_assert_int_eq(pt2_source_read(s, off, buf, len, &got, &err), PT2_OK);
    ck_assert_uint_eq(got, len);
    ck_assert_int_eq(memcmp(buf, m->data + off, len), 0);
    free(buf);
}

START_TEST(test_readahead_and_cache)
{
    struct mem m;
    pt2_source *s;

    mem_init(&m, 1024 * KIB, 1);
    s = open_src(&m, &only_at, m.len, NULL);
    /* a 10-byte miss reads one aligned 64 KiB window */
    read_ok(s, &m, 5000, 10);
    ck_assert_uint_eq(m.nlog, 1);
    ck_assert_uint_eq(m.log[0].off, 4096);
    ck_assert_uint_eq(m.log[0].len, 64 * KIB);
    /* anything inside it is free */
    read_ok(s, &m, 4096, 64 * KIB);
    read_ok(s, &m, 60000, 100);
    ck_assert_uint_eq(m.nlog, 1);
    ck_assert_uint_eq(pt2_source_requests(s), 1);
    ck_assert_uint_eq(pt2_source_bytes(s), 64 * KIB);
    ck_assert_uint_eq(pt2_source_rounds(s), 1);
    /* a read straddling the window's end fetches only the part that is missing */
    read_ok(s, &m, 68 * KIB, 8 * KIB);
    ck_assert_uint_eq(m.nlog, 2);
    ck_assert_uint_eq(m.log[1].off, 68 * KIB);
    /* ...and that miss began where the last window ended: a scan, so the window doubled */
    ck_assert_uint_eq(m.log[1].len, 128 * KIB);
    /* a read at the end of the object is clamped to it */
    {
        struct pt2_error err = {0};
        uint8_t b[100];
        size_t got = 7;

        ck_assert_int_eq(pt2_source_read(s, m.len - 40, b, sizeof(b), &got, &err), PT2_OK);
        ck_assert_uint_eq(got, 40);
        ck_assert_int_eq(memcmp(b, m.data + m.len - 40, 40), 0);
        ck_assert_int_eq(pt2_source_read(s, m.len, b, sizeof(b), &got, &err), PT2_OK);
        ck_assert_uint_eq(got, 0);
    }
    pt2_source_free(s);
    free(m.data);
}
END_TEST

START_TEST(test_prefetch_coalesces)
{
    struct mem m;
    pt2_source *s;
    struct pt2_error err = {0};
    /* two ranges 10 KiB apart become one request; the third, 500 KiB away, its own */
    const struct pt2_range want[] = {
        {600 * KIB, 100}, {100 * KIB, 2 * KIB}, {112 * KIB + 10, 30}, {900 * KIB, 0}};

    mem_init(&m, 1024 * KIB, 2);
    s = open_src(&m, &with_many, m.len, &(struct pt2_source_tuning){.gap = 16 * KIB});
    ck_assert_int_eq(pt2_source_prefetch(s, want, 4, &err), PT2_OK);
    ck_assert_int_eq(m.many, 1); /* one batch */
    ck_assert_uint_eq(m.nlog, 2);
    ck_assert_uint_eq(m.log[0].off, 100 * KIB);
    ck_assert_uint_eq(m.log[0].len, 16 * KIB); /* 100 KiB .. 116 KiB, block-aligned */
    ck_assert_uint_eq(m.log[1].off, 600 * KIB);
    ck_assert_uint_eq(m.log[1].len, 4 * KIB);
    ck_assert_uint_eq(pt2_source_rounds(s), 1);
    ck_assert_uint_eq(pt2_source_requests(s), 2);
    /* served from the cache now */
    read_ok(s, &m, 112 * KIB + 10, 30);
    read_ok(s, &m, 600 * KIB, 100);
    ck_assert_uint_eq(m.nlog, 2);
    /* prefetching what is cached asks for nothing */
    ck_assert_int_eq(pt2_source_prefetch(s, want, 3, &err), PT2_OK);
    ck_assert_uint_eq(m.nlog, 2);
    ck_assert_uint_eq(pt2_source_rounds(s), 1);
    pt2_source_free(s);
    free(m.data);
}
END_TEST

START_TEST(test_eviction_and_bypass)
{
    struct mem m;
    pt2_source *s;
    const struct pt2_source_tuning t = {.readahead = 16 * KIB, .cache_bytes = 64 * KIB};

    mem_init(&m, 1024 * KIB, 3);
    s = open_src(&m, &only_at, m.len, &t);
    /* five separate 16 KiB windows in a 64 KiB cache: the first is evicted */
    for (int i = 0; i < 5; i++)
        read_ok(s, &m, (uint64_t)i * 100 * KIB, 10);
    ck_assert_uint_eq(m.nlog, 5);
    read_ok(s, &m, 400 * KIB, 10); /* the newest is still there */
    ck_assert_uint_eq(m.nlog, 5);
    read_ok(s, &m, 0, 10); /* the oldest is not */
    ck_assert_uint_eq(m.nlog, 6);
    /* a read over a quarter of the cache goes straight through, exactly as asked */
    read_ok(s, &m, 700 * KIB + 3, 20 * KIB);
    ck_assert_uint_eq(m.nlog, 7);
    ck_assert_uint_eq(m.log[6].off, 700 * KIB + 3);
    ck_assert_uint_eq(m.log[6].len, 20 * KIB);
    read_ok(s, &m, 700 * KIB + 3, 20 * KIB); /* and is not kept */
    ck_assert_uint_eq(m.nlog, 8);
    pt2_source_free(s);
    free(m.data);
}
END_TEST

START_TEST(test_short_object_and_sticky_failure)
{
    struct mem m;
    pt2_source *s;
    struct pt2_error err = {0};
    uint8_t b[64];
    size_t got = 0;

    /* the object is 10 bytes shorter than its size says (a file that shrank) */
    mem_init(&m, 100 * KIB, 4);
    m.len -= 10;
    s = open_src(&m, &only_at, 100 * KIB, NULL);
    ck_assert_int_eq(pt2_source_read(s, 100 * KIB - 30, b, 30, &got, &err), PT2_OK);
    ck_assert_uint_eq(got, 20);
    ck_assert_int_eq(memcmp(b, m.data + 100 * KIB - 30, 20), 0);
    ck_assert_int_eq(pt2_source_failed(s, &err), PT2_OK);
    pt2_source_free(s);

    /* a backend failure is kept: every later read fails the same way, cached or not */
    m.len += 10;
    m.calls = 0;
    m.fail_at = 2;
    s = open_src(&m, &only_at, m.len, NULL);
    read_ok(s, &m, 0, 10);
    ck_assert_int_eq(pt2_source_read(s, 90 * KIB, b, 10, &got, &err), PT2_ERR_REMOTE_CHANGED);
    ck_assert_str_eq(err.message, "the object changed");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_source_read(s, 0, b, 10, &got, &err), PT2_ERR_REMOTE_CHANGED);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_source_failed(s, &err), PT2_ERR_REMOTE_CHANGED);
    ck_assert_int_eq(m.calls, 2);
    pt2_source_free(s);
    free(m.data);
}
END_TEST

/* The digest of what a fixed read sequence delivered from a buffer of `len` bytes. */
static void digest_of(struct mem *m, const struct pt2_source_ops *ops, uint8_t out[32])
{
    pt2_source *s = open_src(m, ops, m->len, NULL);
    struct pt2_error err = {0};
    const struct pt2_range plan[] = {{0, 100}, {300 * KIB, 10}};

    pt2_source_record_digest(s);
    ck_assert_int_eq(pt2_source_prefetch(s, plan, 2, &err), PT2_OK);
    read_ok(s, m, 500 * KIB, 10);
    pt2_source_digest(s, out);
    pt2_source_free(s);
}

START_TEST(test_digest)
{
    struct mem m;
    uint8_t a[32], b[32], c[32], zero[32] = {0};
    pt2_source *s;

    mem_init(&m, 1024 * KIB, 5);
    digest_of(&m, &with_many, a);
    ck_assert_int_ne(memcmp(a, zero, 32), 0);
    /* the same bytes read the same way, batched or one range at a time: the same digest */
    digest_of(&m, &only_at, b);
    ck_assert_int_eq(memcmp(a, b, 32), 0);
    /* a byte the reads never reached changes nothing (an upload's weights) */
    m.data[800 * KIB] ^= 1;
    digest_of(&m, &with_many, b);
    ck_assert_int_eq(memcmp(a, b, 32), 0);
    /* a byte they did reach changes it */
    m.data[300 * KIB + 5] ^= 1;
    digest_of(&m, &with_many, c);
    ck_assert_int_ne(memcmp(a, c, 32), 0);
    /* no recording: zeros */
    s = open_src(&m, &only_at, m.len, NULL);
    pt2_source_digest(s, b);
    ck_assert_int_eq(memcmp(b, zero, 32), 0);
    pt2_source_free(s);
    free(m.data);
}
END_TEST

START_TEST(test_seed)
{
    struct mem m;
    pt2_source *s;
    struct pt2_error err = {0};

    mem_init(&m, 512 * KIB, 6);
    s = open_src(&m, &only_at, m.len, NULL);
    /* a first response's body, as a remote source seeds it */
    ck_assert_int_eq(
        pt2_source_seed(s, m.len - 256 * KIB, m.data + m.len - 256 * KIB, 256 * KIB, &err), PT2_OK);
    read_ok(s, &m, m.len - 22, 22);
    read_ok(s, &m, m.len - 200 * KIB, 100 * KIB);
    ck_assert_uint_eq(m.nlog, 0);
    ck_assert_uint_eq(pt2_source_requests(s), 0);
    /* seeding over cached bytes keeps one copy */
    ck_assert_int_eq(
        pt2_source_seed(s, m.len - 300 * KIB, m.data + m.len - 300 * KIB, 300 * KIB, &err), PT2_OK);
    read_ok(s, &m, m.len - 300 * KIB, 300 * KIB);
    ck_assert_uint_eq(m.nlog, 0);
    pt2_source_free(s);
    free(m.data);
}
END_TEST

/* A digest started after seeding covers the seeded bytes: an object that arrives whole in
 * a remote source's first response is keyed by its bytes, not by nothing. */
START_TEST(test_digest_covers_seed)
{
    struct mem m;
    struct pt2_error err = {0};
    uint8_t d[3][32];

    mem_init(&m, 64 * KIB, 8);
    for (int k = 0; k < 3; k++) {
        pt2_source *s = open_src(&m, &only_at, m.len, NULL);

        if (k == 2)
            m.data[100] ^= 1;
        ck_assert_int_eq(pt2_source_seed(s, 0, m.data, (size_t)m.len, &err), PT2_OK);
        pt2_source_record_digest(s);
        read_ok(s, &m, 100, 10);
        pt2_source_digest(s, d[k]);
        pt2_source_free(s);
    }
    ck_assert_uint_eq(m.nlog, 0);
    ck_assert_int_eq(memcmp(d[0], d[1], 32), 0);
    ck_assert_int_ne(memcmp(d[0], d[2], 32), 0);
    free(m.data);
}
END_TEST

/* Planning mode: a miss fails, reaches no backend, and is not kept. */
START_TEST(test_cached_only)
{
    struct mem m;
    pt2_source *s;
    struct pt2_error err = {0};
    uint8_t b[16];
    size_t got = 7;

    mem_init(&m, 256 * KIB, 7);
    s = open_src(&m, &only_at, m.len, NULL);
    read_ok(s, &m, 0, 10); /* one window cached */
    pt2_source_cached_only(s, 1);
    read_ok(s, &m, 100, 16); /* a hit is a hit */
    ck_assert_int_eq(pt2_source_read(s, 200 * KIB, b, sizeof(b), &got, &err), PT2_ERR_NOT_FOUND);
    ck_assert_uint_eq(got, 0);
    ck_assert_int_eq(m.calls, 1);
    pt2_source_cached_only(s, 0);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_source_failed(s, &err), PT2_OK);
    read_ok(s, &m, 200 * KIB, 16);
    ck_assert_int_eq(m.calls, 2);
    pt2_source_free(s);
    free(m.data);
}
END_TEST

/*
 * 4,200 cubins (16 MB) are more than one plan fetches: what the plan leaves is
 * read by the walk, once; planning the second batch never reads anything itself.
 * And more kernels than arch.kernels lists: the first 4096, the total, a warning.
 */
START_TEST(test_many_binaries_read_once)
{
    char cu_path[256], dir[256], path[512], name[96];
    struct pt2_error err = {0};
    size_t cu_len, i;
    uint8_t *cu = tu_read_file(
        tu_fixture("bins/cubin_cuda13/sm_90a.cubin", cu_path, sizeof(cu_path)), &cu_len);
    pt2_package *pkg = NULL;
    pt2_source *s = NULL;
    zip_t *za;
    cJSON *doc = NULL;
    int fd, zerr = 0;

    ck_assert_ptr_nonnull(cu);
    snprintf(dir, sizeof(dir), "/tmp/pt2-source-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/many.pt2", dir);
    za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    ck_assert_ptr_nonnull(za);
    for (i = 0; i < 4200; i++) {
        zip_source_t *src = zip_source_buffer(za, cu, cu_len, 0);
        zip_int64_t idx;

        snprintf(name, sizeof(name), "many/data/aotinductor/model/k%05zu.cubin", i);
        idx = zip_file_add(za, name, src, 0);
        ck_assert_int_ge(idx, 0);
        ck_assert_int_eq(zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0), 0);
    }
    ck_assert_int_eq(zip_close(za), 0);
    fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pt2_source_new_fd(&s, fd, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_open_source(&pkg, s, NULL, &err), PT2_OK);
    ck_assert_uint_gt(pt2_source_size(s), 4200 * cu_len);
    /* about once: the 4 MiB cache of a file source may evict a few windows a later read
     * comes back to, but planning never reads the whole file again (it used to: 2x) */
    ck_assert_uint_le(pt2_source_bytes(s), pt2_source_size(s) + pt2_source_size(s) / 32);
    ck_assert_int_eq(pt2_package_to_json(pkg, 0, &doc, &err), PT2_OK);
    {
        const cJSON *arch = cJSON_GetObjectItem(doc, "arch"), *w;
        int found = 0;

        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(arch, "kernels")), 4096);
        ck_assert_int_eq(cJSON_GetObjectItem(arch, "kernels_total")->valueint, 4200);
        cJSON_ArrayForEach(w, cJSON_GetObjectItem(doc, "warnings")) found +=
            strcmp(w->valuestring, "arch.kernels lists the first 4096 of the package's "
                                   "4200 kernel records (arch.kernels_total); the "
                                   "targets count them all") == 0;
        ck_assert_int_eq(found, 1);
    }
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    pt2_source_free(s);
    close(fd);
    unlink(path);
    rmdir(dir);
    free(cu);
}
END_TEST

/* A whole inspection through pt2_source_new_fd: a handful of reads, the same answer. */
START_TEST(test_inspection_reads)
{
    char path[256];
    struct pt2_error err = {0};
    pt2_package *a = NULL, *b = NULL;
    pt2_source *s = NULL;
    cJSON *ja = NULL, *jb = NULL;
    int fd = open(tu_fixture("cuda_embedded.pt2", path, sizeof(path)), O_RDONLY);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pt2_source_new_fd(&s, fd, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_open_source(&a, s, NULL, &err), PT2_OK);
    /* the tail; the planned heads and tails (one merged range); the .so's fatbin section,
     * global symbols and dynamic sections (pt2_binary_plan), one batch of three: 3 rounds,
     * 5 reads */
    ck_assert_uint_eq(pt2_source_rounds(s), 3);
    ck_assert_uint_eq(pt2_source_requests(s), 5);
    ck_assert_uint_eq(pt2_package_read_calls(a), pt2_source_requests(s));
    ck_assert_int_eq(pt2_package_open_path(&b, path, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_arch_json(a, 0, &ja, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_arch_json(b, 0, &jb, &err), PT2_OK);
    ck_assert(cJSON_Compare(ja, jb, 1));
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    pt2_package_free(a);
    pt2_package_free(b);
    pt2_source_free(s);
    close(fd);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("source");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_readahead_and_cache);
    tcase_add_test(tc, test_prefetch_coalesces);
    tcase_add_test(tc, test_eviction_and_bypass);
    tcase_add_test(tc, test_short_object_and_sticky_failure);
    tcase_add_test(tc, test_digest);
    tcase_add_test(tc, test_seed);
    tcase_add_test(tc, test_digest_covers_seed);
    tcase_add_test(tc, test_inspection_reads);
    tcase_add_test(tc, test_cached_only);
    tcase_add_test(tc, test_many_binaries_read_once);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}

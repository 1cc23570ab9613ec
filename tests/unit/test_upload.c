/*
 * test_upload.c - pt2_upload / pt2_zipstream: an upload inspected as it
 * streams gives the spooled file's document, whatever the slices; weights
 * are dropped; what cannot be followed is kept whole or refused, never
 * answered wrongly. The oracle is the inspection of the file itself.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pt2_zipstream.h"
#include "pt2scope.h"
#include "testutil.h"

/* ---- a small zip writer for hostile and torch-like streams ---------------- */

struct zw {
    uint8_t *b;
    size_t n, cap;
    struct {
        char name[64];
        uint32_t crc, size, off;
        uint16_t flags;
    } e[16];
    size_t ne;
};

static void zw_put(struct zw *z, const void *p, size_t n)
{
    if (z->n + n > z->cap) {
        z->cap = (z->n + n) * 2;
        z->b = realloc(z->b, z->cap);
        ck_assert_ptr_nonnull(z->b);
    }
    memcpy(z->b + z->n, p, n);
    z->n += n;
}

static void zw_u16(struct zw *z, uint32_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    zw_put(z, b, 2);
}

static void zw_u32(struct zw *z, uint32_t v)
{
    zw_u16(z, v & 0xFFFF);
    zw_u16(z, v >> 16);
}

/* A stored entry; bit3: torch's way (no sizes in the header, a 16-byte descriptor after). */
static void zw_entry(struct zw *z, const char *name, const void *data, uint32_t len, int bit3)
{
    uint32_t crc = (uint32_t)crc32(0, data, len);
    size_t i = z->ne++;

    snprintf(z->e[i].name, sizeof(z->e[i].name), "%s", name);
    z->e[i].crc = crc;
    z->e[i].size = len;
    z->e[i].off = (uint32_t)z->n;
    z->e[i].flags = bit3 ? 0x0808 : 0;
    zw_u32(z, 0x04034b50u);
    zw_u16(z, 20);
    zw_u16(z, z->e[i].flags);
    zw_u16(z, 0);
    zw_u32(z, 0);
    zw_u32(z, bit3 ? 0 : crc);
    zw_u32(z, bit3 ? 0 : len);
    zw_u32(z, bit3 ? 0 : len);
    zw_u16(z, (uint32_t)strlen(name));
    zw_u16(z, 0);
    zw_put(z, name, strlen(name));
    zw_put(z, data, len);
    if (bit3) {
        zw_u32(z, 0x08074b50u);
        zw_u32(z, crc);
        zw_u32(z, len);
        zw_u32(z, len);
    }
}

static void zw_end(struct zw *z)
{
    uint32_t cd = (uint32_t)z->n, size;

    for (size_t i = 0; i < z->ne; i++) {
        zw_u32(z, 0x02014b50u);
        zw_u16(z, 20);
        zw_u16(z, 20);
        zw_u16(z, z->e[i].flags);
        zw_u16(z, 0);
        zw_u32(z, 0);
        zw_u32(z, z->e[i].crc);
        zw_u32(z, z->e[i].size);
        zw_u32(z, z->e[i].size);
        zw_u16(z, (uint32_t)strlen(z->e[i].name));
        zw_u32(z, 0); /* extra, comment lengths */
        zw_u32(z, 0); /* disk, internal attributes */
        zw_u32(z, 0); /* external attributes */
        zw_u32(z, z->e[i].off);
        zw_put(z, z->e[i].name, strlen(z->e[i].name));
    }
    size = (uint32_t)z->n - cd;
    zw_u32(z, 0x06054b50u);
    zw_u32(z, 0);
    zw_u16(z, (uint32_t)z->ne);
    zw_u16(z, (uint32_t)z->ne);
    zw_u32(z, size);
    zw_u32(z, cd);
    zw_u16(z, 0);
}

/* The smallest package the inspector accepts, with a weight entry of `wlen` bytes. */
static void zw_package(struct zw *z, const uint8_t *w, uint32_t wlen, int bit3)
{
    static const char meta[] = "{\"AOTI_DEVICE_KEY\": \"cpu\"}";

    zw_entry(z, "m/data/aotinductor/model/x.json", meta, sizeof(meta) - 1, bit3);
    zw_entry(z, "m/data/weights/weight_0", w, wlen, bit3);
    zw_entry(z, "m/archive_format", "pt2", 3, bit3);
    zw_end(z);
}

/* ---- feeding -------------------------------------------------------------- */

static int spill_tmp(void *ctx, int *fd, struct pt2_error *err)
{
    char path[] = "/tmp/pt2scope-test-upload-XXXXXX";
    int f = mkstemp(path);

    (void)err;
    ck_assert_int_ge(f, 0);
    unlink(path);
    *(int *)ctx = f;
    *fd = f;
    return PT2_OK;
}

/* Feed `buf` in slices cycling through 1..`maxslice` bytes (0: whole). */
static pt2_upload *feed(const uint8_t *buf, size_t len, size_t maxslice, size_t memory_cap,
                        int *spill_fd)
{
    struct pt2_upload_options o = {memory_cap, spill_tmp, spill_fd, 0, NULL};
    struct pt2_error err = {0};
    pt2_upload *u = NULL;
    size_t off = 0, k = 1;

    ck_assert_int_eq(pt2_upload_new(&u, &o, &err), PT2_OK);
    while (off < len) {
        size_t n = maxslice == 0 ? len : k;

        if (n > len - off)
            n = len - off;
        ck_assert_int_eq(pt2_upload_feed(u, buf + off, n, &err), PT2_OK);
        off += n;
        k = k % (maxslice ? maxslice : 1) + 1;
    }
    ck_assert_int_eq(pt2_upload_finish(u, &err), PT2_OK);
    return u;
}

static char *doc_of_source(pt2_source *src, const char *name, struct pt2_error *err)
{
    struct pt2_open_options oo = {name, 0, NULL};
    pt2_package *pkg = NULL;
    cJSON *doc = NULL;
    char *s = NULL;
    int rc = pt2_package_open_source(&pkg, src, &oo, err);

    if (rc == PT2_OK && pt2_package_to_json(pkg, 0, &doc, err) == PT2_OK)
        s = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    pt2_package_free(pkg);
    return s;
}

/* The document of the file read whole, or "error <code>: <message>". */
static char *doc_of_file(const char *path)
{
    struct pt2_error err = {0};
    pt2_source *src = NULL;
    int fd = open(path, O_RDONLY);
    char *s = NULL;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pt2_source_new_fd(&src, fd, NULL, &err), PT2_OK);
    s = doc_of_source(src, "p.pt2", &err);
    pt2_source_free(src);
    close(fd);
    if (s == NULL && asprintf(&s, "error %d: %s", err.code, err.message) < 0)
        s = NULL;
    return s;
}

static char *doc_of_upload(pt2_upload *u, int *refused)
{
    struct pt2_error err = {0};
    pt2_source *src = NULL;
    char *s = NULL;

    *refused = 0;
    if (pt2_upload_source(u, &src, &err) != PT2_OK) {
        *refused = err.code;
        return NULL;
    }
    s = doc_of_source(src, "p.pt2", &err);
    if (s == NULL && asprintf(&s, "error %d: %s", err.code, err.message) < 0)
        s = NULL;
    return s;
}

static int streamed(const pt2_upload *u)
{
    cJSON *j = pt2_upload_source_json(u);
    int v = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "streamed"));

    cJSON_Delete(j);
    return v;
}

/*
 * One package file: at several slicings and memory caps, the upload's
 * document is the file's. Returns 1 when it streamed at every slicing.
 */
static int check_file_at(const char *path, const size_t *slices, size_t nslices)
{
    static const size_t caps[] = {0, 4096};
    size_t len = 0;
    uint8_t *buf = tu_read_file(path, &len);
    char *want = doc_of_file(path);
    int all = 1;

    ck_assert_ptr_nonnull(buf);
    ck_assert_ptr_nonnull(want);
    for (size_t i = 0; i < nslices; i++) {
        for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
            int spill = -1, refused = 0;
            pt2_upload *u;
            char *got;

            if ((slices[i] == 1 && len > (256u << 10)) || (caps[c] > 0 && slices[i] < 64))
                continue; /* byte by byte, and spilled in tiny writes, only where cheap */
            u = feed(buf, len, slices[i], caps[c], &spill);
            got = doc_of_upload(u, &refused);
            ck_assert_msg(refused == 0, "%s: refused (%d) at slice %zu", path, refused, slices[i]);
            ck_assert_msg(strcmp(got, want) == 0,
                          "%s at slice %zu cap %zu:\n got %.400s\nwant %.400s", path, slices[i],
                          caps[c], got, want);
            ck_assert_uint_eq(pt2_upload_size(u), len);
            if (caps[c] == 4096)
                ck_assert_uint_eq(pt2_upload_spilled(u),
                                  pt2_upload_kept(u) > 4096 ? pt2_upload_kept(u) - 4096 : 0);
            all = all && streamed(u);
            pt2_upload_free(u);
            if (spill >= 0)
                close(spill);
            free(got);
        }
    }
    free(want);
    free(buf);
    return all;
}

static int check_file(const char *path)
{
    static const size_t slices[] = {0, 1, 7, 64, 4096, 65536};

    return check_file_at(path, slices, sizeof(slices) / sizeof(slices[0]));
}

/* Every fixture package: the same document streamed; well-formed ones are followed. */
START_TEST(fixtures_stream_to_the_same_document)
{
    static const char *const not_followed[] = {"broken_cd_corrupt.pt2", "broken_not_zip.pt2",
                                               "broken_overlap.pt2", "broken_truncated.pt2"};
    DIR *d = opendir("tests/fixtures");
    struct dirent *de;
    char path[512];
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        int expect = 1;

        if (l < 4 || strcmp(de->d_name + l - 4, ".pt2") != 0)
            continue;
        for (size_t i = 0; i < sizeof(not_followed) / sizeof(not_followed[0]); i++)
            if (strcmp(de->d_name, not_followed[i]) == 0)
                expect = 0;
        snprintf(path, sizeof(path), "tests/fixtures/%s", de->d_name);
        ck_assert_msg(check_file(path) == expect, "%s: streamed should be %d", path, expect);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 40);
}
END_TEST

/* tu_each_file's step: 1 when the package streamed to its file's document (whole, and in
 * pieces of 4 KiB and 64 KiB: these packages are 1.6 MB, and the slicings down to a byte are
 * the fixtures' business). */
static int streams_one(const char *path, const char *name, void *ctx)
{
    static const size_t slices[] = {0, 4096, 65536};

    (void)name;
    (void)ctx;
    ck_assert_msg(check_file_at(path, slices, sizeof(slices) / sizeof(slices[0])) == 1,
                  "%s did not stream", path);
    return 1;
}

/* torch's own writers, 2.14.1 and 2.6.0 (tests/fixtures/torch/): every package streams to its
 * document. */
START_TEST(torch_packages_stream_to_the_same_document)
{
    char dir[512];

    ck_assert_int_ge(tu_each_file(tu_fixture("torch", dir, sizeof(dir)), ".pt2", streams_one, NULL),
                     14);
}
END_TEST

START_TEST(corpus_streams_to_the_same_document)
{
    static const char *const names[] = {"executorch__linear.pt2",
                                        "executorch__preprocess_2025-05-23.pt2",
                                        "mlcolvar__descriptor_based_inputs_model.pt2"};
    char rel[256], buf[512];

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *p;

        snprintf(rel, sizeof(rel), "corpus/pt2/%s", names[i]);
        p = tu_shared(rel, buf, sizeof(buf));
        if (p == NULL) {
            tu_skip("corpus uploads", "../shared/corpus/pt2 is absent");
            return;
        }
        ck_assert_msg(check_file(p) == 1, "%s did not stream", p);
    }
}
END_TEST

/* torch's layout: weights dropped (bit 3, descriptors found), everything else kept. */
START_TEST(weights_are_dropped)
{
    uint8_t w[200000];
    struct zw z = {0};
    int spill = -1, refused;
    pt2_upload *u;
    char *got;
    cJSON *j;

    for (size_t i = 0; i < sizeof(w); i++)
        w[i] = (uint8_t)(i * 131 + 7);
    /* look-alike descriptors inside the weight: the signature, then wrong CRC or size */
    memcpy(w + 1000, "PK\7\10\0\0\0\0\350\3\0\0\350\3\0\0PK\3\4", 20);
    memcpy(w + 5000, "PK\7\10", 4);
    zw_package(&z, w, sizeof(w), 1);
    u = feed(z.b, z.n, 4093, 0, &spill);
    j = pt2_upload_source_json(u);
    ck_assert_msg(streamed(u) == 1, "not streamed: %s", cJSON_PrintUnformatted(j));
    cJSON_Delete(j);
    ck_assert_uint_eq(pt2_upload_kept(u), z.n - sizeof(w));
    j = pt2_upload_source_json(u);
    ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(j, "entries_dropped")->valueint, 1);
    ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(j, "bytes_spilled")->valueint, 0);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(j, "streamed_reason"));
    cJSON_Delete(j);
    got = doc_of_upload(u, &refused);
    ck_assert_ptr_nonnull(got);
    ck_assert_ptr_nonnull(strstr(got, "\"archive_format\":\"pt2\""));
    free(got);
    pt2_upload_free(u);
    free(z.b);
}
END_TEST

/* `len` bytes of `buf` streamed in `slice`s are refused with `code`, the message holding `said`. */
static void assert_refused(const uint8_t *buf, size_t len, size_t slice, int code, const char *said)
{
    struct pt2_error err = {0};
    pt2_source *src = NULL;
    int spill = -1;
    pt2_upload *u = feed(buf, len, slice, 0, &spill);

    ck_assert_int_eq(pt2_upload_source(u, &src, &err), code);
    ck_assert_msg(strstr(err.message, said) != NULL, "'%s' does not say '%s'", err.message, said);
    ck_assert_ptr_null(src);
    pt2_upload_free(u);
}

/* A dropped weight whose bytes do not match its CRC: refused as corrupt. */
START_TEST(corrupt_weight_is_refused)
{
    static uint8_t w[100000] = {1, 2, 3};
    struct zw z = {0};

    zw_package(&z, w, sizeof(w), 0);
    z.b[z.e[1].off + 30 + strlen(z.e[1].name) + 10] ^= 0xFF; /* one weight byte */
    assert_refused(z.b, z.n, 0, PT2_ERR_ENTRY, "its CRC-32 does not match its data");
    free(z.b);
}
END_TEST

/*
 * An empty weight whose headers claim a nonzero CRC: no data, nothing to
 * check, as the zip reader (and libzip) read it: streamed, not refused.
 */
START_TEST(empty_weight_crc_is_not_checked)
{
    static const char meta[] = "{\"AOTI_DEVICE_KEY\": \"cpu\"}";
    char path[] = "/tmp/pt2scope-test-upload-XXXXXX";
    struct zw z = {0};
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    zw_entry(&z, "m/data/aotinductor/model/x.json", meta, sizeof(meta) - 1, 0);
    zw_entry(&z, "m/data/weights/weight_0", "", 0, 0);
    zw_entry(&z, "m/archive_format", "pt2", 3, 0);
    z.e[1].crc = 0x12345678u;
    memcpy(z.b + z.e[1].off + 14, "\x78\x56\x34\x12", 4);
    zw_end(&z);
    ck_assert_int_eq(write(fd, z.b, z.n), (ssize_t)z.n);
    close(fd);
    /* the document the file gives, at every slicing, and streamed every time */
    ck_assert_int_eq(check_file(path), 1);
    unlink(path);
    free(z.b);
}
END_TEST

/* A sink that counts kept bytes and any that arrive before the end of the previous ones. */
struct order_sink {
    uint64_t end, kept;
    int backwards;
};

static int order_keep(void *ctx, uint64_t off, const void *data, size_t len, struct pt2_error *err)
{
    struct order_sink *o = ctx;

    (void)data;
    (void)err;
    o->backwards += off < o->end;
    o->end = off + len;
    o->kept += len;
    return PT2_OK;
}

static int order_want(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    return memmem(name, len, "/weights/", 9) == NULL;
}

/*
 * A small weight written torch's way (sizes in a descriptor after the data) is held back
 * until its end, then kept whole. The sink must still see every kept byte in archive order
 * (pt2_zipstream.h: "offsets only grow"): the descriptor used to reach it before the held
 * data, which left the upload's extents out of order; a read that began inside such a
 * descriptor then copied a negative length (ASan, fuzz_upload), and one inside the held data
 * read zeros.
 */
START_TEST(held_back_entry_keeps_order)
{
    static const size_t slices[] = {1, 7, 16, 4096, 0};
    static uint8_t w[3000];
    struct zw z = {0};

    for (size_t i = 0; i < sizeof(w); i++)
        w[i] = (uint8_t)(i * 7 + 1);
    zw_package(&z, w, sizeof(w), 1);
    for (size_t k = 0; k < sizeof(slices) / sizeof(slices[0]); k++) {
        struct order_sink o = {0};
        struct pt2_zipstream_sink sink = {order_keep, order_want, &o};
        struct pt2_error err = {0};
        pt2_zipstream *zs = NULL;
        size_t step = slices[k] ? slices[k] : z.n;

        ck_assert_int_eq(pt2_zipstream_new(&zs, &sink, &err), PT2_OK);
        for (size_t off = 0; off < z.n; off += step)
            ck_assert_int_eq(
                pt2_zipstream_feed(zs, z.b + off, z.n - off < step ? z.n - off : step, &err),
                PT2_OK);
        ck_assert_int_eq(pt2_zipstream_finish(zs, &err), PT2_OK);
        ck_assert_msg(o.backwards == 0, "slice %zu: %d keeps went backwards", step, o.backwards);
        ck_assert_uint_eq(o.kept, z.n); /* the small weight is kept too */
        ck_assert_uint_eq(o.end, z.n);
        pt2_zipstream_free(zs);
    }
    free(z.b);
}
END_TEST

/* A directory that names an offset nothing streamed past, after a weight was dropped. */
START_TEST(directory_that_lies_after_a_drop_is_refused)
{
    static uint8_t w[100000];
    struct zw z = {0};

    zw_entry(&z, "m/data/weights/weight_0", w, sizeof(w), 1);
    zw_entry(&z, "m/archive_format", "pt2", 3, 1);
    z.e[1].off += 100; /* the directory points inside the weight's data */
    zw_end(&z);
    assert_refused(z.b, z.n, 0, PT2_ERR_UNSUPPORTED,
                   "the central directory's entry 'm/archive_format' (local header at 100169) is "
                   "not what streamed past) after 100000 bytes of weights were dropped; send it "
                   "again with stream=0");
    free(z.b);
}
END_TEST

/*
 * A directory record naming more than 1024 bytes, with the largest extra and comment
 * lengths: no entry that streamed past has such a name, and the record does not fit the
 * parser's header buffer (a heap overflow once 132 KB of it had arrived, found by
 * fuzz_upload). It is where the stream stops being followed, at every slicing.
 */
START_TEST(directory_name_over_the_cap_is_not_followed)
{
    static uint8_t w[100000], junk[140000];
    static const size_t slices[] = {0, 1, 7, 4096};
    char said[200];
    struct zw z = {0};
    uint32_t cd;

    zw_entry(&z, "m/data/weights/weight_0", w, sizeof(w), 1);
    cd = (uint32_t)z.n;
    zw_u32(&z, 0x02014b50u);
    zw_u16(&z, 20);
    zw_u16(&z, 20);
    zw_u16(&z, 0x0808);
    zw_u16(&z, 0);
    zw_u32(&z, 0);
    zw_u32(&z, 0);
    zw_u32(&z, 0);
    zw_u32(&z, 0);
    zw_u16(&z, 2000);   /* name */
    zw_u16(&z, 0xFFFF); /* extra */
    zw_u16(&z, 0xFFFF); /* comment */
    zw_u32(&z, 0);
    zw_u32(&z, 0);
    zw_u32(&z, 0);
    memset(junk, 'a', sizeof(junk));
    zw_put(&z, junk, sizeof(junk));
    snprintf(said, sizeof(said),
             "a central directory name of more than 1024 bytes at offset %u) after 100000 "
             "bytes of weights were dropped",
             cd);
    for (size_t i = 0; i < sizeof(slices) / sizeof(slices[0]); i++)
        assert_refused(z.b, z.n, slices[i], PT2_ERR_UNSUPPORTED, said);
    free(z.b);
}
END_TEST

/* The same lie over small entries: nothing was dropped, so the upload is kept whole. */
START_TEST(directory_that_lies_over_small_entries_keeps_it_whole)
{
    uint8_t w[3000] = {0};
    struct zw z = {0};
    struct pt2_error err = {0};
    pt2_source *src = NULL;
    int spill = -1;
    pt2_upload *u;
    cJSON *j;

    zw_entry(&z, "m/data/weights/weight_0", w, sizeof(w), 1);
    zw_entry(&z, "m/archive_format", "pt2", 3, 1);
    z.e[1].off += 100;
    zw_end(&z);
    u = feed(z.b, z.n, 0, 0, &spill);
    ck_assert_int_eq(pt2_upload_source(u, &src, &err), PT2_OK);
    ck_assert_uint_eq(pt2_upload_kept(u), z.n);
    j = pt2_upload_source_json(u);
    ck_assert_int_eq(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "streamed")), 1);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "streamed_reason")->valuestring,
                     "the central directory's entry 'm/archive_format' (local header at 3169) "
                     "is not what streamed past");
    cJSON_Delete(j);
    pt2_upload_free(u);
    free(z.b);
}
END_TEST

/* Not a zip at the start: nothing is dropped, so it is kept whole and inspected as such. */
START_TEST(prefixed_bytes_are_kept_whole)
{
    uint8_t w[3000] = {0};
    struct zw z = {0};
    int spill = -1, refused;
    pt2_upload *u;
    cJSON *j;
    char *got;

    zw_put(&z, "#!junk\n", 7);
    zw_package(&z, w, sizeof(w), 1);
    u = feed(z.b, z.n, 100, 0, &spill);
    ck_assert_int_eq(streamed(u), 0);
    ck_assert_uint_eq(pt2_upload_kept(u), z.n);
    j = pt2_upload_source_json(u);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "streamed_reason")->valuestring,
                     "unexpected bytes at offset 0");
    cJSON_Delete(j);
    got = doc_of_upload(u, &refused);
    ck_assert_int_eq(refused, 0);
    free(got);
    pt2_upload_free(u);
    free(z.b);
}
END_TEST

/* Truncated inside a dropped weight: refused; truncated in the directory: refused too. */
START_TEST(truncated_streams_are_refused)
{
    static uint8_t w[100000];
    struct zw z = {0};

    zw_package(&z, w, sizeof(w), 1);
    assert_refused(z.b, z.e[1].off + 80000, 13, PT2_ERR_UNSUPPORTED, /* past what is held back */
                   "the upload ended inside an entry's data");
    assert_refused(z.b, z.n - 30, 13, PT2_ERR_UNSUPPORTED,
                   "the upload ended inside the central directory");
    assert_refused(z.b, z.n - 1, 13, PT2_ERR_UNSUPPORTED,
                   "the upload ended inside the end records");
    free(z.b);
}
END_TEST

/* Bytes after the end record, after a drop: the directory may not be the one a reader picks. */
START_TEST(trailing_bytes_are_refused_after_a_drop)
{
    static uint8_t w[100000];
    struct zw z = {0};

    zw_package(&z, w, sizeof(w), 1);
    zw_put(&z, "trailing", 8);
    assert_refused(z.b, z.n, 0, PT2_ERR_UNSUPPORTED, "bytes after the end record");
    free(z.b);
}
END_TEST

/* keep_all (stream=0): every byte kept, the reason says so. */
START_TEST(keep_all_keeps_everything)
{
    struct pt2_upload_options o = {0, NULL, NULL, 1, NULL};
    struct pt2_error err = {0};
    uint8_t w[3000] = {0};
    struct zw z = {0};
    pt2_upload *u = NULL;
    cJSON *j;

    zw_package(&z, w, sizeof(w), 1);
    ck_assert_int_eq(pt2_upload_new(&u, &o, &err), PT2_OK);
    ck_assert_int_eq(pt2_upload_feed(u, z.b, z.n, &err), PT2_OK);
    ck_assert_int_eq(pt2_upload_finish(u, &err), PT2_OK);
    ck_assert_uint_eq(pt2_upload_kept(u), z.n);
    j = pt2_upload_source_json(u);
    ck_assert_int_eq(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "streamed")), 1);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "streamed_reason")->valuestring,
                     "stream=0 was asked: the upload was kept whole");
    cJSON_Delete(j);
    pt2_upload_free(u);
    free(z.b);
}
END_TEST

/* Over memory_cap without a spill file: a clear failure, no crash. */
START_TEST(no_spill_file_is_a_clear_failure)
{
    struct pt2_upload_options o = {1024, NULL, NULL, 1, NULL};
    struct pt2_error err = {0};
    uint8_t b[2048] = {0};
    pt2_upload *u = NULL;

    ck_assert_int_eq(pt2_upload_new(&u, &o, &err), PT2_OK);
    ck_assert_int_eq(pt2_upload_feed(u, b, sizeof(b), &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "the upload's kept bytes exceed 1024 bytes in memory");
    pt2_upload_free(u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("upload");
    TCase *t = tcase_create("stream");

    tcase_set_timeout(t, 600);
    tcase_add_test(t, fixtures_stream_to_the_same_document);
    tcase_add_test(t, torch_packages_stream_to_the_same_document);
    tcase_add_test(t, corpus_streams_to_the_same_document);
    tcase_add_test(t, weights_are_dropped);
    tcase_add_test(t, corrupt_weight_is_refused);
    tcase_add_test(t, empty_weight_crc_is_not_checked);
    tcase_add_test(t, held_back_entry_keeps_order);
    tcase_add_test(t, directory_that_lies_after_a_drop_is_refused);
    tcase_add_test(t, directory_that_lies_over_small_entries_keeps_it_whole);
    tcase_add_test(t, prefixed_bytes_are_kept_whole);
    tcase_add_test(t, truncated_streams_are_refused);
    tcase_add_test(t, trailing_bytes_are_refused_after_a_drop);
    tcase_add_test(t, keep_all_keeps_everything);
    tcase_add_test(t, no_spill_file_is_a_clear_failure);
    tcase_add_test(t, directory_name_over_the_cap_is_not_followed);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}

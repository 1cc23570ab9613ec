/*
 * test_zip_eocd.c - pt2_zip_eocd: the end records read before libzip. The
 * scan on its own over files in memory (what it finds, what it buffers, how
 * many reads, failed and short reads, the offset check), then through
 * pt2_zip_open_*: the broken fixtures, caps from the end records, corrupt
 * zip64 records, and fake end records in an archive comment.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zip.h>

#include "pt2_zip_eocd.h"
#include "pt2_zip_layout.h"
#include "testutil.h"
#include "ziptest.h"

/* ---- the scan on a file in memory -------------------------------------- */

struct memfile {
    const uint8_t *b;
    size_t len; /* bytes really there (the scan may be told a larger size) */
    unsigned calls;
    int fail;            /* every read fails with PT2_ERR_IO */
    unsigned empty_from; /* reads from this call on (1-based) get 0 bytes; 0 = never */
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len, size_t *got,
                    struct pt2_error *err)
{
    struct memfile *m = ctx;
    size_t n = 0;

    m->calls++;
    *got = 0;
    if (m->fail)
        return pt2_error_set(err, PT2_ERR_IO, "read error: Input/output error");
    if (m->empty_from != 0 && m->calls >= m->empty_from)
        return PT2_OK;
    if (off < m->len) {
        n = len < m->len - off ? len : (size_t)(m->len - off);
        memcpy(buf, m->b + off, n);
    }
    *got = n;
    return PT2_OK;
}

static uint8_t *load_fixture(const char *name, size_t *len)
{
    char path[256];

    return zt_load(tu_fixture(name, path, sizeof(path)), len);
}

/* A torch >= 2.8 package smaller than the tail window: one read holds everything. */
START_TEST(test_scan_small_package)
{
    struct pt2_error err = {0};
    struct pt2_zip_eocd e;
    size_t len;
    uint8_t *b = load_fixture("cuda_sm90a_v8.pt2", &len);
    struct memfile m = {b, len, 0, 0, 0};

    ck_assert_uint_eq(len, 34001);
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_OK);
    ck_assert_str_eq(err.message, "");
    ck_assert_uint_eq(m.calls, 1);
    ck_assert_int_eq(e.have_eocd, 1);
    ck_assert_int_eq(e.cd_known, 1);
    ck_assert_int_eq(e.zip64, 1);
    ck_assert_uint_eq(e.cd_offset, 32632);
    ck_assert_uint_eq(e.cd_size, 1271);
    ck_assert_uint_eq(e.buf_off, 0);
    ck_assert_uint_eq(e.buf_len, 34001);
    ck_assert_int_eq(pt2_zip_eocd_cd_buffered(&e), 1);
    ck_assert_int_eq(memcmp(pt2_zip_eocd_bytes(&e, 32632, 4), "PK\001\002", 4), 0);
    ck_assert_ptr_eq(pt2_zip_eocd_bytes(&e, 34000, 1), e.buf + 34000);
    ck_assert_ptr_null(pt2_zip_eocd_bytes(&e, 34000, 2));
    ck_assert_ptr_null(pt2_zip_eocd_bytes(&e, 34002, 0));
    ck_assert_int_eq(pt2_zip_eocd_check_extents(&e, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_eocd_starts_with_local_header(&e), 1);
    ck_assert_uint_eq(m.calls, 1);

    /* released: the bytes go, the facts stay */
    pt2_zip_eocd_release(&e);
    ck_assert_ptr_null(e.buf);
    ck_assert_ptr_null(pt2_zip_eocd_bytes(&e, 0, 1));
    ck_assert_int_eq(pt2_zip_eocd_cd_buffered(&e), 0);
    ck_assert_int_eq(e.zip64, 1);
    ck_assert_uint_eq(e.cd_offset, 32632);
    /* the file start is read again when it is not buffered */
    ck_assert_int_eq(pt2_zip_eocd_starts_with_local_header(&e), 1);
    ck_assert_uint_eq(m.calls, 2);
    pt2_zip_eocd_release(&e);
    pt2_zip_eocd_release(NULL);

    /* Python zipfile's copy: no zip64 records */
    free(b);
    b = load_fixture("rezipped_deflate.pt2", &len);
    m.b = b;
    m.len = len;
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_OK);
    ck_assert_int_eq(e.zip64, 0);
    ck_assert_uint_eq(e.cd_offset, 10118);
    ck_assert_uint_eq(e.cd_size, 1175);
    pt2_zip_eocd_release(&e);
    free(b);
}
END_TEST

/* Larger than the window: the tail only, since the directory lies inside it. */
START_TEST(test_scan_large_package)
{
    struct pt2_error err = {0};
    struct pt2_zip_eocd e;
    size_t len;
    uint8_t *b = load_fixture("cuda_embedded.pt2", &len);
    struct memfile m = {b, len, 0, 0, 0};

    ck_assert_uint_eq(len, 1019447);
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_OK);
    ck_assert_uint_eq(m.calls, 1);
    ck_assert_uint_eq(e.buf_off, 1019447 - PT2_ZIP_EOCD_TAIL_LEN);
    ck_assert_uint_eq(e.buf_len, PT2_ZIP_EOCD_TAIL_LEN);
    ck_assert_uint_eq(e.cd_offset, 1018360);
    ck_assert_uint_eq(e.cd_size, 989);
    ck_assert_int_eq(pt2_zip_eocd_cd_buffered(&e), 1);
    ck_assert_ptr_null(pt2_zip_eocd_bytes(&e, 0, 4));
    /* the local header at 0 is outside the buffer: one more read */
    ck_assert_int_eq(pt2_zip_eocd_starts_with_local_header(&e), 1);
    ck_assert_uint_eq(m.calls, 2);
    pt2_zip_eocd_release(&e);
    free(b);
}
END_TEST

/* A directory larger than the window: the buffer grows down to its start, with one read. */
START_TEST(test_scan_extends_to_directory)
{
    static char names[1500][48];
    static struct zt_ent ents[1500];
    char dir[256], path[512];
    struct pt2_error err = {0};
    struct pt2_zip_eocd e;
    uint64_t cd_off, cd_size;
    size_t len, i;
    uint8_t *b;
    struct memfile m = {NULL, 0, 0, 0, 0};

    for (i = 0; i < 1500; i++) {
        snprintf(names[i], sizeof(names[i]), "pkg/data/constants/tensor_%05zu.bin", i);
        ents[i].name = names[i];
        ents[i].data = "x";
    }
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/many.pt2", dir);
    zt_make_zip(path, ents, 1500, ZIP_CM_STORE);
    b = zt_load(path, &len);
    /* what the end record says, read here by hand */
    ck_assert_int_eq(memcmp(b + len - 22, "PK\005\006", 4), 0);
    cd_size = pt2_le32(b + len - 22 + 12);
    cd_off = pt2_le32(b + len - 22 + 16);
    ck_assert_uint_eq(cd_off + cd_size, len - 22);
    ck_assert_uint_gt(cd_size, PT2_ZIP_EOCD_TAIL_LEN);

    m.b = b;
    m.len = len;
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_OK);
    ck_assert_uint_eq(m.calls, 2);
    ck_assert_int_eq(e.cd_known, 1);
    ck_assert_int_eq(e.zip64, 0);
    ck_assert_uint_eq(e.cd_offset, cd_off);
    ck_assert_uint_eq(e.cd_size, cd_size);
    ck_assert_uint_eq(e.buf_off, cd_off);
    ck_assert_uint_eq(e.buf_len, len - cd_off);
    ck_assert_int_eq(memcmp(e.buf, b + cd_off, e.buf_len), 0);
    ck_assert_int_eq(pt2_zip_eocd_cd_buffered(&e), 1);
    ck_assert_int_eq(pt2_zip_eocd_check_extents(&e, &err), PT2_OK);
    pt2_zip_eocd_release(&e);

    /* the file shrinks between the two reads: truncated now (a client's 4xx, not our 500) */
    m.calls = 0;
    m.empty_from = 2;
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "the file shrank while being read (it is being rewritten?)");
    ck_assert_uint_eq(m.calls, 2);
    pt2_zip_eocd_release(&e);
    free(b);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

START_TEST(test_scan_no_end_record)
{
    static const char text[] = "PPPP PK\003\004 is a local header, PK\005 is not an end record";
    struct pt2_error err = {0};
    struct pt2_zip_eocd e;
    struct memfile m = {(const uint8_t *)text, sizeof(text) - 1, 0, 0, 0};

    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, m.len, &err), PT2_OK);
    ck_assert_str_eq(err.message, "");
    ck_assert_int_eq(e.have_eocd, 0);
    ck_assert_int_eq(e.cd_known, 0);
    ck_assert_int_eq(e.zip64, 0);
    ck_assert_int_eq(pt2_zip_eocd_cd_buffered(&e), 0);
    ck_assert_int_eq(pt2_zip_eocd_check_extents(&e, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_eocd_starts_with_local_header(&e), 0);
    pt2_zip_eocd_release(&e);

    /* shorter than an end record */
    m.len = 3;
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, m.len, &err), PT2_OK);
    ck_assert_int_eq(e.have_eocd, 0);
    ck_assert_int_eq(pt2_zip_eocd_starts_with_local_header(&e), 0);
    pt2_zip_eocd_release(&e);
}
END_TEST

START_TEST(test_scan_read_errors)
{
    struct pt2_error err = {0};
    struct pt2_zip_eocd e;
    size_t len;
    uint8_t *b = load_fixture("cuda_sm90a_v8.pt2", &len);
    struct memfile m = {b, len, 0, 1, 0};

    /* the read function's own error comes through */
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_ERR_IO);
    ck_assert_str_eq(err.message, "read error: Input/output error");
    ck_assert_int_eq(pt2_zip_eocd_starts_with_local_header(&e), 0);
    pt2_zip_eocd_release(&e);

    /* fewer bytes than the size it was given */
    pt2_error_clear(&err);
    m.fail = 0;
    m.len = len - 1;
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "the file shrank while being read (it is being rewritten?)");
    pt2_zip_eocd_release(&e);
    free(b);
}
END_TEST

/* An entry whose local header would lie inside or past the directory. */
START_TEST(test_check_offsets)
{
    struct pt2_error err = {0};
    struct pt2_zip_eocd e;
    size_t len;
    uint8_t *b = load_fixture("cuda_sm90a_v8.pt2", &len);
    struct memfile m = {b, len, 0, 0, 0};

    /* the first directory record's local header offset, at +42 */
    ck_assert_uint_eq(pt2_le32(b + 32632 + 42), 0);
    b[32632 + 42 + 1] = 0x80; /* 32768: past the directory start */
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_eocd_check_extents(&e, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "truncated or corrupt zip: central directory records do not "
                                  "match the file (bad offsets or counts)");
    /* not buffered: nothing is checked here (libzip's ZIP_CHECKCONS does it) */
    pt2_error_clear(&err);
    pt2_zip_eocd_release(&e);
    ck_assert_int_eq(pt2_zip_eocd_check_extents(&e, &err), PT2_OK);
    free(b);
}
END_TEST

/* The directory records of the buffer's directory at cd (cd_size bytes) in reverse order. */
static void reverse_records(uint8_t *b, size_t cd, size_t cd_size)
{
    size_t at[64], len[64], n = 0, p = cd, out = 0;
    uint8_t *tmp = malloc(cd_size);

    ck_assert_ptr_nonnull(tmp);
    while (p < cd + cd_size && n < 64) {
        at[n] = p;
        len[n] = 46u + pt2_le16(b + p + 28) + pt2_le16(b + p + 30) + pt2_le16(b + p + 32);
        p += len[n++];
    }
    ck_assert_uint_eq(p, cd + cd_size);
    while (n-- > 0) {
        memcpy(tmp + out, b + at[n], len[n]);
        out += len[n];
    }
    memcpy(b + cd, tmp, cd_size);
    free(tmp);
}

/* Entries listed out of file order are sorted before the overlap check, and only then. */
START_TEST(test_check_overlaps_unsorted)
{
    struct pt2_error err = {0};
    struct pt2_zip_eocd e;
    size_t len;
    uint8_t *b = load_fixture("cuda_sm90a_v8.pt2", &len);
    struct memfile m = {b, len, 0, 0, 0};

    reverse_records(b, 32632, 1271);
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_eocd_check_extents(&e, &err), PT2_OK);
    pt2_zip_eocd_release(&e);
    /* the (now) first record points at the first entry's local header too */
    ck_assert_uint_ne(pt2_le32(b + 32632 + 42), 0);
    memset(b + 32632 + 42, 0, 4);
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_eocd_check_extents(&e, &err), PT2_ERR_TRUNCATED);
    ck_assert_msg(strncmp(err.message,
                          "truncated or corrupt zip: overlapping entries: the entry at byte 0 ",
                          67) == 0,
                  "%s", err.message);
    pt2_zip_eocd_release(&e);
    /* with the last record's offset also past the directory, that is what is said: every
     * record's offsets are checked before any overlap, though the overlap comes first */
    {
        size_t p = 32632, last = p;

        while (p < 32632 + 1271) {
            last = p;
            p += 46u + pt2_le16(b + p + 28) + pt2_le16(b + p + 30) + pt2_le16(b + p + 32);
        }
        ck_assert_uint_eq(p, 32632 + 1271);
        ck_assert_uint_ne(last, 32632);
        memset(b + last + 42, 0, 4);
        b[last + 42 + 1] = 0x80; /* 32768: past the directory start */
    }
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_zip_eocd_scan(&e, mem_read, &m, len, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_eocd_check_extents(&e, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "truncated or corrupt zip: central directory records do not "
                                  "match the file (bad offsets or counts)");
    pt2_zip_eocd_release(&e);
    free(b);
}
END_TEST

/* ---- through pt2_zip_open_* ------------------------------------------- */

START_TEST(test_broken_fixtures)
{
    static const struct {
        const char *file;
        int rc;
        const char *message;
    } cases[] = {
        {"broken_not_zip.pt2", PT2_ERR_NOT_ZIP,
         "not a zip archive (no end-of-central-directory record)"},
        {"broken_truncated.pt2", PT2_ERR_TRUNCATED,
         "truncated or corrupt zip: the file starts with a local header but has no "
         "end-of-central-directory record"},
        {"broken_cd_corrupt.pt2", PT2_ERR_TRUNCATED,
         "truncated or corrupt zip: central directory records do not match the file (bad "
         "offsets or counts)"},
        {"broken_overlap.pt2", PT2_ERR_TRUNCATED,
         "truncated or corrupt zip: overlapping entries: the entry at byte 0 (to byte 60) "
         "overlaps the entry at byte 0"},
    };
    char path[256];
    size_t k;

    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct pt2_error err = {0};
        pt2_zip *z = (pt2_zip *)&err; /* must be reset to NULL */

        ck_assert_int_eq(pt2_zip_open_path(&z, tu_fixture(cases[k].file, path, sizeof(path)), &err),
                         cases[k].rc);
        ck_assert_int_eq(err.code, cases[k].rc);
        ck_assert_str_eq(err.message, cases[k].message);
        ck_assert_ptr_null(z);
    }
}
END_TEST

/*
 * The end records alone (zip64 record, locator, end record) after `pad` zero
 * bytes, claiming `entries` entries in a `cd_size`-byte directory at offset
 * 0. The zeros are a hole: a 300 MB directory costs no disk.
 */
static void write_end_records(const char *path, uint64_t pad, uint64_t entries, uint64_t cd_size)
{
    uint8_t b[56 + 20 + 22];
    int fd;

    memset(b, 0, sizeof(b));
    memcpy(b, "PK\006\006", 4);
    b[4] = 44;
    memcpy(b + 24, &entries, 8); /* little-endian host (x86-64, aarch64) */
    memcpy(b + 32, &entries, 8);
    memcpy(b + 40, &cd_size, 8);
    memcpy(b + 56, "PK\006\007", 4);
    memcpy(b + 56 + 8, &pad, 8); /* where the zip64 record is */
    b[56 + 16] = 1;
    memcpy(b + 76, "PK\005\006", 4);
    memset(b + 76 + 8, 0xff, 12);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)pad), 0);
    ck_assert_int_eq(pwrite(fd, b, sizeof(b), (off_t)pad), (ssize_t)sizeof(b));
    ck_assert_int_eq(close(fd), 0);
}

START_TEST(test_caps_from_end_records)
{
    char dir[256], path[512];
    struct pt2_error err = {0};
    pt2_zip *z;

    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/huge.pt2", dir);
    /* records that fit the file: the caps apply before libzip reads the directory */
    write_end_records(path, 2000000 * 46, 2000000, 2000000 * 46);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "archive lists 2000000 entries (cap 1000000)");
    ck_assert_ptr_null(z);

    write_end_records(path, 300000000, 3, 300000000);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "central directory is 300000000 bytes (cap 256 MiB)");

    /* within the caps, libzip finds the directory missing */
    write_end_records(path, 0, 3, 138);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
    ck_assert_int_eq(strncmp(err.message, "truncated or corrupt zip: ", 26), 0);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

/*
 * A zip64 record that cannot be right is a corrupt archive, not a huge one,
 * whatever it claims: more entries than its directory can hold, a directory
 * that runs into the record, a record that is not there.
 */
START_TEST(test_corrupt_zip64_record_is_truncated)
{
    char dir[256], path[512];
    struct pt2_error err = {0};
    pt2_zip *z;
    int fd;

    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/z64.pt2", dir);
    write_end_records(path, 0, 2000000, 46);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "truncated or corrupt zip: the central directory is "
                                  "inconsistent with the file");
    ck_assert_ptr_null(z);

    write_end_records(path, 46, 2000000, 46);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "truncated or corrupt zip: the central directory is "
                                  "inconsistent with the file");

    write_end_records(path, 0, 3, 300000000);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "truncated or corrupt zip: the central directory is "
                                  "inconsistent with the file");

    /* no zip64 record where the locator points: the end record's 0xffffffff stay unread */
    write_end_records(path, 138, 3, 138);
    fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, "XX", 2, 138), 2);
    ck_assert_int_eq(close(fd), 0);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "truncated or corrupt zip: the central directory is "
                                  "inconsistent with the file");
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

/* A valid zip whose archive comment holds another end-record signature. */
static void make_zip_with_comment(const char *path, const uint8_t *comment, size_t len)
{
    static const struct zt_ent ents[] = {{"m/archive_format", "pt2"},
                                         {"m/models/model.json", "{}"}};
    int zerr = 0;
    size_t i;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);

    ck_assert_ptr_nonnull(za);
    for (i = 0; i < 2; i++) {
        zip_source_t *s = zip_source_buffer(za, ents[i].data, strlen(ents[i].data), 0);

        ck_assert_ptr_nonnull(s);
        ck_assert_int_ge(zip_file_add(za, ents[i].name, s, 0), 0);
        ck_assert_int_eq(zip_set_file_compression(za, i, ZIP_CM_STORE, 0), 0);
    }
    ck_assert_int_eq(zip_close(za), 0);
    /* libzip refuses binary comments: append it and patch the comment length by hand */
    {
        size_t zlen;
        uint8_t *b = zt_load(path, &zlen), *nb = malloc(zlen + len);

        ck_assert_ptr_nonnull(nb);
        ck_assert_int_eq(memcmp(b + zlen - 22, "PK\005\006", 4), 0);
        memcpy(nb, b, zlen);
        memcpy(nb + zlen, comment, len);
        nb[zlen - 2] = (uint8_t)(len & 0xff);
        nb[zlen - 1] = (uint8_t)(len >> 8);
        zt_write_file(path, nb, zlen + len);
        free(nb);
        free(b);
    }
}

/*
 * libzip uses the end record that describes a real directory, not the last
 * signature in the file: a fake record in the comment that cannot be right
 * is ignored (its 4 GiB directory is not "too large"), and one that could
 * be leaves the choice to libzip's full check.
 */
START_TEST(test_end_record_in_comment)
{
    char dir[256], path[512], *out = NULL;
    uint8_t fake[6 + 22];
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    size_t n = 0;
    pt2_zip *z;
    int k;

    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/comment.pt2", dir);
    for (k = 0; k < 2; k++) {
        memset(fake, 0, sizeof(fake));
        memcpy(fake, "hello ", 6);
        memcpy(fake + 6, "PK\005\006", 4);
        if (k == 0) {
            fake[6 + 8] = fake[6 + 10] = 1; /* 1 entry */
            memset(fake + 6 + 12, 0xff, 4); /* in a 4 GiB directory */
            fake[6 + 12] = 0xf0;
        }
        make_zip_with_comment(path, fake, sizeof(fake));
        pt2_error_clear(&err);
        ck_assert_msg(zt_open_tmp(path, &z, &err) == PT2_OK, "k=%d %s", k, err.message);
        ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
        ck_assert_uint_eq(l.entries, 2);
        ck_assert_int_eq(l.zip64, 0);
        ck_assert_str_eq(l.prefix, "m/");
        ck_assert_str_eq(l.archive_format, "pt2");
        ck_assert_int_eq(
            pt2_zip_read_small(z, zt_find_rel(z, "models/model.json"), 64, &out, &n, &err), PT2_OK);
        ck_assert_str_eq(out, "{}");
        free(out);
        pt2_zip_free(z);
    }
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("zip_eocd");
    TCase *tc = tcase_create("scan");
    TCase *te = tcase_create("errors");

    tcase_add_test(tc, test_scan_small_package);
    tcase_add_test(tc, test_scan_large_package);
    tcase_add_test(tc, test_scan_extends_to_directory);
    tcase_add_test(tc, test_scan_no_end_record);
    tcase_add_test(tc, test_scan_read_errors);
    tcase_add_test(tc, test_check_offsets);
    tcase_add_test(tc, test_check_overlaps_unsorted);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tcase_add_test(te, test_broken_fixtures);
    tcase_add_test(te, test_caps_from_end_records);
    tcase_add_test(te, test_corrupt_zip64_record_is_truncated);
    tcase_add_test(te, test_end_record_in_comment);
    tcase_set_timeout(te, 60);
    suite_add_tcase(s, te);
    return tu_run_suite(s);
}

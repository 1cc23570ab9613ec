/*
 * test_zip.c - pt2_zip: names and lookups, open errors and the caps applied
 * while loading entries, entry errors (sizes, CRC, DEFLATE), cut and
 * corrupted copies of good packages, small and tail reads, random access on
 * stored and deflated entries, byte counting, a 5 GiB sparse package, and
 * descriptors shared by threads. The end records have their own suite
 * (test_zip_eocd), the .pt2 layout too (test_zip_layout).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "bigzip.h"
#include "pt2_zip.h"
#include "pt2_zip_layout.h"
#include "testutil.h"
#include "zipdiff.h"
#include "ziptest.h"

#define MIB (1024u * 1024u)

static const char user_meta[] =
    "{\"model\": \"SegmentationNet\", \"inputs\": [{\"name\": \"image\", \"shape\": [\"B\", 3, "
    "512, 512], \"dtype\": \"float32\", \"description\": \"RGB image\"}, {\"name\": \"scale\", "
    "\"shape\": [\"B\"], \"dtype\": \"float32\", \"description\": \"per-sample scale\"}], "
    "\"outputs\": [{\"name\": \"mask\", \"shape\": [\"B\", 1, 512, 512], \"dtype\": "
    "\"float32\", \"description\": \"mask logits\"}], \"framework\": \"torch 2.9\"}";

static const char cuda90_meta[] =
    "{\"AOTI_DEVICE_KEY\": \"cuda\", \"AOTI_PLATFORM\": \"linux\", \"AOTI_MACHINE\": "
    "\"x86_64\", \"AOTI_CPU_ISA\": \"AVX512\", \"AOTI_COMPUTE_CAPABILITY\": \"90\"}";

/* ---- names ------------------------------------------------------------ */

START_TEST(test_names_and_find)
{
    size_t idx = 99;
    pt2_zip *z = zt_open_fixture("cuda_sm90a_v8.pt2");

    ck_assert_int_eq(pt2_zip_find(z, "archive_format", &idx), PT2_OK);
    ck_assert_uint_eq(idx, 7);
    ck_assert_str_eq(pt2_zip_name(z, idx), "cuda_sm90a_v8/archive_format");
    ck_assert_str_eq(pt2_zip_relname(z, idx), "archive_format");
    ck_assert_uint_eq(pt2_zip_entry_size(z, idx), 3);
    ck_assert_str_eq(pt2_zip_relname(z, 0) + strlen(pt2_zip_relname(z, 0)) - 12, ".wrapper.cpp");
    /* lookups are by name relative to the prefix */
    idx = 99;
    ck_assert_int_eq(pt2_zip_find(z, "cuda_sm90a_v8/archive_format", &idx), PT2_ERR_NOT_FOUND);
    ck_assert_int_eq(pt2_zip_find(z, "archive", &idx), PT2_ERR_NOT_FOUND);
    ck_assert_int_eq(pt2_zip_find(z, "version", &idx), PT2_ERR_NOT_FOUND);
    ck_assert_uint_eq(idx, 99);
    ck_assert_ptr_null(pt2_zip_name(z, 12));
    ck_assert_ptr_null(pt2_zip_relname(z, 12));
    ck_assert_uint_eq(pt2_zip_entry_size(z, 12), 0);
    pt2_zip_free(z);
    pt2_zip_free(NULL);

    z = zt_open_fixture("rezipped_deflate.pt2");
    idx = zt_find_suffix(z, ".wrapper.so");
    ck_assert_uint_eq(pt2_zip_entry_size(z, idx), 15024);
    pt2_zip_free(z);
}
END_TEST

/* ---- errors ------------------------------------------------------------ */

START_TEST(test_open_errors)
{
    char dir[256], path[512];
    struct pt2_error err = {0};
    pt2_zip *z;
    int fd;

    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/missing.pt2", dir);
    /* the problem the daemon answers for a missing file: not-found */
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_NOT_FOUND);
    ck_assert_ptr_null(z);
    {
        char want[640];
        snprintf(want, sizeof(want), "cannot open %s: No such file or directory", path);
        ck_assert_str_eq(err.message, want);
    }

    ck_assert_int_eq(zt_open_tmp(dir, &z, &err), PT2_ERR_IO);
    ck_assert_str_eq(err.message, "not a regular file");

    ck_assert_int_eq(zt_open_tmp("", &z, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "empty archive path");

    /* libzip would take an empty file for an empty archive */
    snprintf(path, sizeof(path), "%s/empty.pt2", dir);
    zt_write_file(path, "", 0);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_NOT_ZIP);
    ck_assert_str_eq(err.message, "not a zip archive (no end-of-central-directory record)");

    /* a lone local header signature: a zip cut right after it started */
    zt_write_file(path, "PK\003\004", 4);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_zip_open_fd(&z, -1, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "invalid file descriptor -1");

    fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(close(fd), 0);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_zip_open_fd(&z, fd, &err), PT2_ERR_IO);
    ck_assert_str_eq(err.message, "cannot stat the archive: Bad file descriptor");
    ck_assert_ptr_null(z);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

START_TEST(test_caps_names)
{
    char dir[256], path[512], longname[1200];
    struct zt_ent ents[1];
    struct pt2_error err = {0};
    pt2_zip *z;

    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/c.pt2", dir);

    memset(longname, 'n', 1100);
    longname[1100] = '\0';
    ents[0].name = longname;
    ents[0].data = "x";
    zt_make_zip(path, ents, 1, ZIP_CM_STORE);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "entry 0: name is 1100 bytes (cap 1024)");
    ck_assert_ptr_null(z);

    /* 1024 is still fine */
    longname[1024] = '\0';
    zt_make_zip(path, ents, 1, ZIP_CM_STORE);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    ck_assert_uint_eq(strlen(pt2_zip_name(z, 0)), 1024);
    pt2_zip_free(z);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

/* Offset of the local header of the entry named `name` in a torch-style or zipfile-style file. */
static size_t local_header(const uint8_t *buf, size_t len, const char *name)
{
    size_t nlen = strlen(name), p;

    for (p = 0; p + 30 + nlen <= len; p++) {
        if (memcmp(buf + p, "PK\003\004", 4) == 0 &&
            (size_t)(buf[p + 26] | buf[p + 27] << 8) == nlen &&
            memcmp(buf + p + 30, name, nlen) == 0)
            return p;
    }
    ck_abort_msg("no local header for %s", name);
    return 0;
}

/* Offset of the data of the entry named `name`. */
static size_t data_offset(const uint8_t *buf, size_t len, const char *name)
{
    size_t p = local_header(buf, len, name);

    return p + 30 + strlen(name) + (size_t)(buf[p + 28] | buf[p + 29] << 8);
}

/* Compression method in the local header of entry `name` (full name) of the file at `path`. */
static unsigned local_method(const char *path, const char *name)
{
    size_t len, nlen = strlen(name), p;
    uint8_t *b = zt_load(path, &len);
    unsigned method = 0xffff;

    for (p = 0; p + 30 + nlen <= len; p++) {
        if (memcmp(b + p, "PK\003\004", 4) == 0 && (size_t)(b[p + 26] | b[p + 27] << 8) == nlen &&
            memcmp(b + p + 30, name, nlen) == 0) {
            method = (unsigned)(b[p + 8] | b[p + 9] << 8);
            break;
        }
    }
    free(b);
    ck_assert_msg(method != 0xffff, "no local header for %s", name);
    return method;
}

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

/*
 * By hand: "m/archive_format" (stored "pt2"), then `name` with `dlen` bytes
 * of data whose headers claim `method`, `csize` and `usize` (CRCs are not
 * checked before an entry is read through).
 */
static void write_sized_zip(const char *path, const char *name, unsigned method, size_t dlen,
                            uint32_t csize, uint32_t usize)
{
    uint8_t b[4096], cd[512];
    const char *names[2] = {"m/archive_format", name};
    const unsigned meth[2] = {0, method};
    const uint32_t cs[2] = {3, csize}, us[2] = {3, usize};
    const size_t lens[2] = {3, dlen};
    size_t pos = 0, cdlen = 0, i;

    memset(b, 0, sizeof(b));
    for (i = 0; i < 2; i++) {
        size_t nlen = strlen(names[i]);
        uint8_t *l = b + pos, *c = cd + cdlen;

        ck_assert_uint_lt(pos + 30 + nlen + lens[i], sizeof(b) - 200);
        memset(c, 0, 46);
        put32(l, 0x04034b50u);
        put16(l + 4, 20);
        put16(l + 8, meth[i]);
        put32(l + 18, cs[i]);
        put32(l + 22, us[i]);
        put16(l + 26, (unsigned)nlen);
        memcpy(l + 30, names[i], nlen);
        if (i == 0)
            memcpy(l + 30 + nlen, "pt2", 3);
        else if (lens[i] >= 4)
            memcpy(l + 30 + nlen, "\177ELF", 4); /* the rest stays zero */
        put32(c, 0x02014b50u);
        put16(c + 4, 20);
        put16(c + 6, 20);
        put16(c + 10, meth[i]);
        put32(c + 20, cs[i]);
        put32(c + 24, us[i]);
        put16(c + 28, (unsigned)nlen);
        put32(c + 42, (uint32_t)pos);
        memcpy(c + 46, names[i], nlen);
        cdlen += 46 + nlen;
        pos += 30 + nlen + lens[i];
    }
    memcpy(b + pos, cd, cdlen);
    put32(b + pos + cdlen, 0x06054b50u);
    put16(b + pos + cdlen + 8, 2);
    put16(b + pos + cdlen + 10, 2);
    put32(b + pos + cdlen + 12, (uint32_t)cdlen);
    put32(b + pos + cdlen + 16, (uint32_t)pos);
    zt_write_file(path, b, pos + cdlen + 22);
}

/*
 * Sizes libzip 1.7.3 trusts blindly are refused at open: a stored entry
 * with 0 compressed bytes but 204 bytes of data made zip_fseek crash
 * (SIGSEGV); stored sizes must agree; deflate cannot make data out of
 * nothing. The same entries with honest sizes open and read.
 */
START_TEST(test_inconsistent_entry_sizes)
{
    static const struct {
        unsigned method;
        size_t dlen;
        uint32_t csize, usize;
        const char *msg;
    } cases[] = {
        {0, 204, 0, 204, "stored entry has 0 compressed bytes for 204 bytes of data"},
        {0, 204, 10, 204, "stored entry has 10 compressed bytes for 204 bytes of data"},
        {0, 204, 204, 10, "stored entry has 204 compressed bytes for 10 bytes of data"},
        {8, 0, 0, 204, "compressed entry has no data for 204 bytes"},
    };
    char dir[256], path[512], want[PT2_ERROR_MSG_MAX];
    struct pt2_error err = {0};
    pt2_zip_entry *e = NULL;
    uint8_t b[64];
    pt2_zip *z;
    size_t k;

    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/sizes.pt2", dir);
    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        write_sized_zip(path, "m/data/aotinductor/model/x.so", cases[k].method, cases[k].dlen,
                        cases[k].csize, cases[k].usize);
        ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
        snprintf(want, sizeof(want), "truncated or corrupt zip: m/data/aotinductor/model/x.so: %s",
                 cases[k].msg);
        ck_assert_str_eq(err.message, want);
        ck_assert_ptr_null(z);
    }

    /* honest sizes: the same layout opens, and a seek into the stored entry works */
    write_sized_zip(path, "m/data/aotinductor/model/x.so", 0, 204, 204, 204);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_entry_open(z, 1, &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, b, sizeof(b), &err), PT2_OK);
    ck_assert_int_eq(memcmp(b, "\177ELF", 4), 0);
    pt2_zip_entry_free(e);
    pt2_zip_free(z);
    /* and empty entries are still fine, stored or not */
    write_sized_zip(path, "m/empty", 0, 0, 0, 0);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    pt2_zip_free(z);
    write_sized_zip(path, "m/empty", 8, 0, 0, 0);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    pt2_zip_free(z);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

START_TEST(test_crc_mismatch_is_entry_error)
{
    char dir[256], path[512], src[256];
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    size_t len, off, idx, n;
    uint8_t *buf = zt_load(tu_fixture("cuda_sm90a_v8.pt2", src, sizeof(src)), &len);
    char *out = (char *)buf;
    pt2_zip *z;

    off = data_offset(buf, len, "cuda_sm90a_v8/archive_format");
    ck_assert_int_eq(memcmp(buf + off, "pt2", 3), 0);
    buf[off + 2] = '3';
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/crc.pt2", dir);
    zt_write_file(path, buf, len);
    free(buf);

    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    idx = zt_find_rel(z, "archive_format");
    ck_assert_int_eq(pt2_zip_read_small(z, idx, 64, &out, &n, &err), PT2_ERR_ENTRY);
    ck_assert_str_eq(err.message, "archive_format: CRC mismatch");
    ck_assert_ptr_null(out);
    ck_assert_uint_eq(n, 0);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_ERR_ENTRY);
    ck_assert_str_eq(err.message, "archive_format: CRC mismatch");
    /* a random-access read does not verify (it never reads the whole entry) */
    {
        pt2_zip_entry *e = NULL;
        char b[3];

        pt2_error_clear(&err);
        ck_assert_int_eq(pt2_zip_entry_open(z, idx, &e, &err), PT2_OK);
        ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, b, 3, &err), PT2_OK);
        ck_assert_int_eq(memcmp(b, "pt3", 3), 0);
        pt2_zip_entry_free(e);
    }
    pt2_zip_free(z);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

/*
 * An empty stored entry whose directory and local header claim a CRC other
 * than that of no bytes (0): libzip reads no data for an empty entry and
 * checks nothing; the direct reader must say the same (fuzz_zip found it).
 */
static int zip_agree(const char *path);

START_TEST(test_empty_entry_crc_not_checked)
{
    char dir[256], path[512];
    struct pt2_error err = {0};
    char *out = NULL;
    uint8_t *b;
    size_t len, n = 1, lh, cd;
    pt2_zip *z;

    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/empty.pt2", dir);
    write_sized_zip(path, "m/empty", 0, 0, 0, 0);
    b = zt_load(path, &len);
    lh = local_header(b, len, "m/empty");
    put32(b + lh + 14, 0x12345678u);
    for (cd = len - 22; cd > 0 && memcmp(b + cd, "PK\001\002", 4) != 0; cd--)
        ;
    ck_assert_int_eq(memcmp(b + cd + 46, "m/empty", 7), 0);
    put32(b + cd + 16, 0x12345678u);
    zt_write_file(path, b, len);
    free(b);

    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_direct(z), 1);
    ck_assert_int_eq(pt2_zip_read_small(z, 1, 64, &out, &n, &err), PT2_OK);
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(n, 0);
    free(out);
    pt2_zip_free(z);
    ck_assert_int_eq(zip_agree(path), 1);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

/* A broken DEFLATE stream is an unreadable entry, named in the message. */
START_TEST(test_bad_deflate_stream_is_entry_error)
{
    char dir[256], path[512], src[256], want[PT2_ERROR_MSG_MAX];
    struct pt2_error err = {0};
    pt2_zip_entry *e = NULL;
    size_t len, off, idx, n;
    uint8_t *buf = zt_load(tu_fixture("rezipped_deflate.pt2", src, sizeof(src)), &len), b[64];
    char *out = NULL;
    pt2_zip *z;

    ck_assert_int_eq(zt_open_tmp(src, &z, &err), PT2_OK);
    idx = zt_find_suffix(z, ".wrapper.so");
    off = data_offset(buf, len, pt2_zip_name(z, idx));
    pt2_zip_free(z);
    /* block type 3 is reserved: the first inflate call fails */
    buf[off] = 0x07;
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/bad.pt2", dir);
    zt_write_file(path, buf, len);
    free(buf);

    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    snprintf(want, sizeof(want), "%s: corrupt compressed data (Zlib error: data error)",
             pt2_zip_relname(z, idx));
    ck_assert_int_eq(pt2_zip_read_small(z, idx, MIB, &out, &n, &err), PT2_ERR_ENTRY);
    ck_assert_str_eq(err.message, want);
    ck_assert_ptr_null(out);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_zip_entry_open(z, idx, &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, b, sizeof(b), &err), PT2_ERR_ENTRY);
    ck_assert_str_eq(err.message, want);
    /* the reader stays failed, without crashing, on later calls */
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 100, b, sizeof(b), &err), PT2_ERR_ENTRY);
    pt2_zip_entry_free(e);
    pt2_zip_free(z);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

/* ---- the direct reader against libzip ----------------------------------- */

/*
 * The file at `path` through the direct reader and through libzip alone:
 * they must agree on everything (zipdiff.h). Returns whether the direct
 * reader listed the entries (-1 when the open failed, alike).
 */
static int zip_agree(const char *path)
{
    static const struct zipdiff_opts all = {0, 4 * MIB};
    char why[2048];
    int direct, fd = open(path, O_RDONLY | O_CLOEXEC);

    ck_assert_int_ge(fd, 0);
    ck_assert_msg(zipdiff_fd(fd, &all, &direct, why, sizeof(why)) == 0, "%s: %s", path, why);
    close(fd);
    return direct;
}

/* tu_each_file's step: 1 when the direct reader listed the file; ctx counts every file. */
static int zip_agree_one(const char *path, const char *name, void *ctx)
{
    (void)name;
    (*(int *)ctx)++;
    return zip_agree(path) == 1;
}

/* Every .pt2 (or any file) in `dir`: how many the direct reader listed; *files counts all. */
static int zip_agree_dir(const char *dir, const char *suffix, int *files)
{
    return tu_each_file(dir, suffix, zip_agree_one, files);
}

/* Cut and corrupted copies of good packages (stored, deflated): every outcome is a clean
 * status, never a crash or a sanitizer report. */
static const char *const sweep_files[] = {"cuda_sm90a_v8.pt2", "rezipped_deflate.pt2"};

START_TEST(test_cut_and_corrupt_never_crash)
{
    char dir[256], path[512], src[256];
    size_t len, cut, k;
    uint8_t *good = zt_load(tu_fixture(sweep_files[_i], src, sizeof(src)), &len);
    uint8_t *buf = malloc(len);
    int seen_ok = 0, seen_trunc = 0, seen_entry = 0;

    ck_assert_ptr_nonnull(buf);
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cut.pt2", dir);
    for (k = 0; k < 400; k++) {
        struct pt2_error err = {0};
        struct pt2_zip_layout l;
        pt2_zip *z = NULL;
        int rc;

        memcpy(buf, good, len);
        if (k < 200) {
            /* cuts everywhere, denser near the end records */
            cut = k < 100 ? k * (len / 100) : len - (k - 99);
        } else if (k < 300) {
            /* one byte set to 0xff in the tail (central directory and end records) */
            cut = len;
            buf[len - 1 - (k - 200) * 7 % 1400] = 0xff;
        } else {
            /* one byte flipped anywhere: entry data, local headers */
            cut = len;
            buf[(k - 300) * (len / 100)] ^= 0x5a;
        }
        zt_write_file(path, buf, cut);
        zip_agree(path);
        rc = pt2_zip_open_path(&z, path, &err);
        ck_assert_msg(rc == PT2_OK || rc == PT2_ERR_NOT_ZIP || rc == PT2_ERR_TRUNCATED ||
                          rc == PT2_ERR_TOO_LARGE,
                      "k=%zu rc=%d %s", k, rc, err.message);
        ck_assert_msg(rc == PT2_OK ? err.message[0] == '\0' : err.message[0] != '\0', "k=%zu", k);
        if (rc == PT2_ERR_TRUNCATED)
            seen_trunc = 1;
        if (rc == PT2_OK) {
            size_t i;

            seen_ok = 1;
            rc = pt2_zip_layout(z, &l, &err);
            ck_assert_msg(rc == PT2_OK || rc == PT2_ERR_ENTRY || rc == PT2_ERR_NOT_PT2 ||
                              rc == PT2_ERR_TOO_LARGE,
                          "k=%zu layout rc=%d %s", k, rc, err.message);
            for (i = 0; i < pt2_zip_count(z); i++) {
                char *out = NULL;
                size_t n = 0;

                pt2_error_clear(&err);
                rc = pt2_zip_read_small(z, i, 1 * MIB, &out, &n, &err);
                ck_assert_msg(rc == PT2_OK || rc == PT2_ERR_ENTRY || rc == PT2_ERR_TOO_LARGE,
                              "k=%zu entry %zu rc=%d %s", k, i, rc, err.message);
                if (rc == PT2_ERR_ENTRY)
                    seen_entry = 1;
                free(out);
                out = NULL;
                pt2_error_clear(&err);
                rc = pt2_zip_read_tail(z, i, 100, &out, &n, &err);
                ck_assert_msg(rc == PT2_OK || rc == PT2_ERR_ENTRY, "k=%zu tail %zu rc=%d %s", k, i,
                              rc, err.message);
                free(out);
            }
            pt2_zip_free(z);
        }
    }
    ck_assert_int_eq(seen_ok, 1);
    ck_assert_int_eq(seen_trunc, 1);
    ck_assert_int_eq(seen_entry, 1);
    free(buf);
    free(good);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

START_TEST(test_direct_agrees_with_libzip)
{
    char buf[1024];
    int files = 0, direct, corpus_files = 0;

    /* torch writes every entry stored: read directly; a rezipped (deflated) copy is libzip's */
    ck_assert_int_eq(zip_agree(tu_fixture("cuda_sm90a_v8.pt2", buf, sizeof(buf))), 1);
    ck_assert_int_eq(zip_agree(tu_fixture("rezipped_deflate.pt2", buf, sizeof(buf))), 0);
    ck_assert_int_eq(zip_agree(tu_fixture("broken_not_zip.pt2", buf, sizeof(buf))), -1);
    direct = zip_agree_dir("tests/fixtures", ".pt2", &files);
    ck_assert_int_ge(files, 40);
    ck_assert_int_ge(direct, 30);
    /* the fuzzers' seeds and regressions: hostile archives of every kind */
    zip_agree_dir("tests/fuzz/seeds/differential", "", &files);
    zip_agree_dir("tests/fuzz/regressions/package", "", &files);
    zip_agree_dir("tests/fuzz/regressions/differential", "", &files);
    zip_agree_dir("tests/fuzz/regressions/zip", "", &files);
    if (tu_shared("corpus/pt2", buf, sizeof(buf)) != NULL)
        ck_assert_int_eq(zip_agree_dir(buf, ".pt2", &corpus_files), corpus_files);
    /* torch's own writers (2.14.1, 2.6.0): every package read directly, as libzip reads it */
    files = 0;
    direct = zip_agree_dir("tests/fixtures/torch", ".pt2", &files);
    ck_assert_int_eq(direct, files);
    ck_assert_int_ge(files, 14);
}
END_TEST

/*
 * Every byte of the directory and end records, and of every local header and
 * name, set to 0, to 0xff and with its low and high bits flipped: both readers
 * still agree on each copy (the direct one leaving to libzip whatever it does
 * not take on, at open or per entry).
 */
START_TEST(test_direct_agrees_byte_by_byte)
{
    char dir[256], path[512], src[256];
    size_t len, pos, nhdr = 0;
    uint8_t *good = zt_load(tu_fixture("cuda_sm90a_v8.pt2", src, sizeof(src)), &len);
    uint8_t *buf = malloc(len);
    size_t *hdr = calloc(len, sizeof(*hdr));
    struct pt2_error err = {0};
    pt2_zip *z = NULL;
    int outcomes[3] = {0, 0, 0};

    ck_assert_ptr_nonnull(buf);
    ck_assert_ptr_nonnull(hdr);
    ck_assert_int_eq(zt_open_tmp(src, &z, &err), PT2_OK);
    /* local headers, names and extra fields: from each header to its data */
    for (size_t i = 0; i < pt2_zip_count(z); i++) {
        size_t lh = local_header(good, len, pt2_zip_name(z, i));

        for (size_t k = lh; k < data_offset(good, len, pt2_zip_name(z, i)); k++)
            hdr[nhdr++] = k;
    }
    pt2_zip_free(z);
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/byte.pt2", dir);
    for (pos = 0; pos < len; pos++) {
        int in_hdr = 0;

        for (size_t k = 0; k < nhdr && !in_hdr; k++)
            in_hdr = hdr[k] == pos;
        /* the last 1400 bytes: its directory (1271), zip64 records and end record (98) */
        if (!in_hdr && pos < len - 1400)
            continue;
        for (int v = 0; v < 4; v++) {
            static const uint8_t xors[2] = {0x01, 0x80};

            memcpy(buf, good, len);
            buf[pos] = v == 0 ? 0 : v == 1 ? 0xff : (uint8_t)(buf[pos] ^ xors[v - 2]);
            if (buf[pos] == good[pos])
                continue;
            zt_write_file(path, buf, len);
            outcomes[zip_agree(path) + 1]++;
        }
    }
    /* some copies failed to open, some were read directly, some by libzip */
    ck_assert_int_gt(outcomes[0], 0);
    ck_assert_int_gt(outcomes[1], 0);
    ck_assert_int_gt(outcomes[2], 0);
    free(hdr);
    free(buf);
    free(good);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

/* ---- reads ------------------------------------------------------------- */

START_TEST(test_read_small_exact)
{
    struct pt2_error err = {0};
    char *out = NULL, *out2 = NULL;
    size_t n = 0, n2 = 0;
    pt2_zip *z = zt_open_fixture("cuda_sm90a_v8.pt2");
    pt2_zip *r = zt_open_fixture("rezipped_deflate.pt2");

    ck_assert_int_eq(
        pt2_zip_read_small(z, zt_find_rel(z, "extra/model_metadata.json"), MIB, &out, &n, &err),
        PT2_OK);
    ck_assert_str_eq(out, user_meta);
    ck_assert_uint_eq(n, strlen(user_meta));
    free(out);

    ck_assert_int_eq(
        pt2_zip_read_small(z, zt_find_suffix(z, ".wrapper_metadata.json"), MIB, &out, &n, &err),
        PT2_OK);
    ck_assert_str_eq(out, cuda90_meta);

    /* the same bytes come out of the DEFLATE-compressed copy */
    ck_assert_int_eq(
        pt2_zip_read_small(r, zt_find_suffix(r, ".wrapper_metadata.json"), MIB, &out2, &n2, &err),
        PT2_OK);
    ck_assert_str_eq(out2, cuda90_meta);
    ck_assert_uint_eq(n2, n);
    free(out);
    free(out2);
    ck_assert_int_eq(
        pt2_zip_read_small(r, zt_find_rel(r, "extra/model_metadata.json"), MIB, &out2, &n2, &err),
        PT2_OK);
    ck_assert_str_eq(out2, user_meta);
    free(out2);

    /* binary content keeps its length; the NUL after it is extra */
    ck_assert_int_eq(
        pt2_zip_read_small(z, zt_find_rel(z, "data/weights/weight_0"), MIB, &out, &n, &err),
        PT2_OK);
    ck_assert_uint_eq(n, 4096);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[4095], 0);
    ck_assert_int_eq(out[4096], 0);
    free(out);
    ck_assert_str_eq(err.message, "");
    pt2_zip_free(z);
    pt2_zip_free(r);

    z = zt_open_fixture("cuda_sm80_v7_legacy.pt2");
    ck_assert_int_eq(pt2_zip_read_small(z, zt_find_rel(z, "extra_files/model_metadata.json"), MIB,
                                        &out, &n, &err),
                     PT2_OK);
    ck_assert_str_eq(out, "{\"model\": \"SegmentationNet\", \"inputs\": [{\"name\": \"image\", "
                          "\"shape\": [null, 3, 512, 512], \"dtype\": \"float32\", "
                          "\"description\": \"RGB image\"}, {\"name\": \"scale\", \"shape\": "
                          "[-1], \"dtype\": \"float32\", \"description\": \"per-sample scale\"}], "
                          "\"outputs\": [{\"name\": \"mask\", \"shape\": [null, 1, 512, 512], "
                          "\"dtype\": \"float32\", \"description\": \"mask logits\"}], "
                          "\"framework\": \"torch 2.7\"}");
    free(out);
    pt2_zip_free(z);
}
END_TEST

START_TEST(test_read_small_cap_checked_before_reading)
{
    struct pt2_error err = {0};
    char *out = (char *)&err;
    size_t n = 77, idx;
    uint64_t bytes, calls;
    pt2_zip *z = zt_open_fixture("cuda_sm90a_v8.pt2");

    idx = zt_find_rel(z, "archive_format");
    bytes = pt2_zip_bytes_read(z);
    calls = pt2_zip_read_calls(z);
    ck_assert_int_eq(pt2_zip_read_small(z, idx, 2, &out, &n, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "archive_format: entry is 3 bytes (cap 2)");
    ck_assert_ptr_null(out);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(pt2_zip_bytes_read(z), bytes);
    ck_assert_uint_eq(pt2_zip_read_calls(z), calls);

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_zip_read_small(z, idx, 3, &out, &n, &err), PT2_OK);
    ck_assert_str_eq(out, "pt2");
    ck_assert_uint_eq(n, 3);
    free(out);

    ck_assert_int_eq(pt2_zip_read_small(z, 12, 3, &out, &n, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "entry index 12 out of range (12 entries)");
    pt2_zip_free(z);
}
END_TEST

START_TEST(test_read_tail)
{
    struct pt2_error err = {0};
    char *full = NULL, *tail = NULL, *tail2 = NULL;
    size_t nfull = 0, ntail = 0, ntail2 = 0, idx;
    pt2_zip *z = zt_open_fixture("cuda_sm90a_v8.pt2");
    pt2_zip *r = zt_open_fixture("rezipped_deflate.pt2");

    idx = zt_find_suffix(z, ".wrapper.cpp");
    ck_assert_int_eq(pt2_zip_read_small(z, idx, MIB, &full, &nfull, &err), PT2_OK);
    ck_assert_uint_gt(nfull, 1000);

    ck_assert_int_eq(pt2_zip_read_tail(z, idx, 300, &tail, &ntail, &err), PT2_OK);
    ck_assert_uint_eq(ntail, 300);
    ck_assert_uint_eq(strlen(tail), 300);
    ck_assert_int_eq(memcmp(tail, full + nfull - 300, 300), 0);
    ck_assert_int_eq(tail[ntail - 1], '\n');

    /* the deflated copy has the same tail (it is reached by inflating forward) */
    ck_assert_int_eq(
        pt2_zip_read_tail(r, zt_find_suffix(r, ".wrapper.cpp"), 300, &tail2, &ntail2, &err),
        PT2_OK);
    ck_assert_uint_eq(ntail2, 300);
    ck_assert_str_eq(tail2, tail);
    free(tail);
    free(tail2);

    /* max beyond the size gives the whole entry, compile command included */
    ck_assert_int_eq(pt2_zip_read_tail(z, idx, 64 * 1024, &tail, &ntail, &err), PT2_OK);
    ck_assert_uint_eq(ntail, nfull);
    ck_assert_str_eq(tail, full);
    ck_assert_ptr_nonnull(strstr(tail, "\n// Compile cmd\n// g++ "));
    ck_assert_ptr_nonnull(strstr(tail, "-mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma"));
    free(tail);

    ck_assert_int_eq(pt2_zip_read_tail(z, idx, 0, &tail, &ntail, &err), PT2_OK);
    ck_assert_uint_eq(ntail, 0);
    ck_assert_str_eq(tail, "");
    free(tail);
    free(full);

    ck_assert_int_eq(pt2_zip_read_tail(z, 99, 10, &tail, &ntail, &err), PT2_ERR_INVALID);
    ck_assert_ptr_null(tail);
    pt2_zip_free(z);
    pt2_zip_free(r);
}
END_TEST

struct span {
    uint64_t off;
    size_t len;
};

/* Read `spans` of entry `idx` through its pt2_rd and compare with `ref`. */
static void check_random_access(pt2_zip *z, size_t idx, const uint8_t *ref, size_t ref_len,
                                const struct span *spans, size_t nspans)
{
    struct pt2_error err = {0};
    pt2_zip_entry *e = NULL;
    struct pt2_rd *rd;
    uint8_t buf[256];
    size_t k, total = 0;

    ck_assert_int_eq(pt2_zip_entry_open(z, idx, &e, &err), PT2_OK);
    rd = pt2_zip_entry_rd(e);
    ck_assert_uint_eq(rd->size, ref_len);
    ck_assert_str_eq(rd->name, pt2_zip_relname(z, idx));
    for (k = 0; k < nspans; k++) {
        ck_assert_uint_le(spans[k].len, sizeof(buf));
        ck_assert_msg(pt2_rd_read(rd, spans[k].off, buf, spans[k].len, &err) == PT2_OK,
                      "span %zu: %s", k, err.message);
        ck_assert_int_eq(memcmp(buf, ref + spans[k].off, spans[k].len), 0);
        total += spans[k].len;
    }
    ck_assert_uint_eq(rd->bytes_read, total);
    ck_assert_uint_eq(rd->calls, nspans);

    /* past the end: the reader's own bounds check, naming the entry */
    {
        char want[PT2_ERROR_MSG_MAX];

        snprintf(want, sizeof(want), "%s: truncated (needs 20 bytes at offset %zu, size %zu)",
                 pt2_zip_relname(z, idx), ref_len - 10, ref_len);
        ck_assert_int_eq(pt2_rd_read(rd, ref_len - 10, buf, 20, &err), PT2_ERR_FORMAT);
        ck_assert_str_eq(err.message, want);
    }
    pt2_zip_entry_free(e);
}

static const struct span so_spans[] = {
    {0, 64}, {15024 - 100, 100}, {5000, 16}, {10, 8}, {14000, 200}, {64, 1},
};

START_TEST(test_random_access_stored)
{
    char path[256], fix[256];
    size_t so_len, idx;
    uint64_t bytes, calls;
    uint8_t *so = zt_load(tu_fixture("bins/zip/libx86_64.so", path, sizeof(path)), &so_len);
    pt2_zip *z = zt_open_fixture("cuda_sm90a_v8.pt2");

    ck_assert_uint_eq(so_len, 15024);
    idx = zt_find_suffix(z, ".wrapper.so");
    /* the stored path: the local header says method 0 */
    ck_assert_uint_eq(
        local_method(tu_fixture("cuda_sm90a_v8.pt2", fix, sizeof(fix)), pt2_zip_name(z, idx)), 0);
    bytes = pt2_zip_bytes_read(z);
    calls = pt2_zip_read_calls(z);
    check_random_access(z, idx, so, so_len, so_spans, sizeof(so_spans) / sizeof(so_spans[0]));
    /* The whole 34 KB package came with the first (tail) read: every span is served from
     * the byte source's cache, and nothing more is read. */
    ck_assert_uint_eq(pt2_zip_bytes_read(z) - bytes, 0);
    ck_assert_uint_eq(pt2_zip_read_calls(z) - calls, 0);
    pt2_zip_free(z);
    free(so);
}
END_TEST

START_TEST(test_random_access_deflated)
{
    char path[256], fix[256];
    size_t so_len, idx;
    uint8_t *so = zt_load(tu_fixture("bins/zip/libx86_64.so", path, sizeof(path)), &so_len);
    pt2_zip *z = zt_open_fixture("rezipped_deflate.pt2");

    idx = zt_find_suffix(z, ".wrapper.so");
    /* the inflating path: the local header says method 8 (deflate) */
    ck_assert_uint_eq(
        local_method(tu_fixture("rezipped_deflate.pt2", fix, sizeof(fix)), pt2_zip_name(z, idx)),
        8);
    /* forward, backward (reopen and inflate again), forward */
    check_random_access(z, idx, so, so_len, so_spans, sizeof(so_spans) / sizeof(so_spans[0]));
    pt2_zip_free(z);
    free(so);
}
END_TEST

/* Several readers on one archive, interleaved. */
START_TEST(test_two_readers_interleaved)
{
    char path[256];
    struct pt2_error err = {0};
    size_t so_len, cu_len, k;
    uint8_t *so = zt_load(tu_fixture("bins/zip/libx86_64.so", path, sizeof(path)), &so_len);
    uint8_t *cu = zt_load(tu_fixture("bins/zip/sm_90a.cubin", path, sizeof(path)), &cu_len);
    const char *files[] = {"cuda_sm90a_v8.pt2", "rezipped_deflate.pt2"};

    for (k = 0; k < 2; k++) {
        pt2_zip *z = zt_open_fixture(files[k]);
        pt2_zip_entry *a = NULL, *b = NULL;
        uint8_t x[32], y[32];
        uint64_t off;

        ck_assert_int_eq(pt2_zip_entry_open(z, zt_find_suffix(z, ".wrapper.so"), &a, &err), PT2_OK);
        ck_assert_int_eq(pt2_zip_entry_open(z, zt_find_suffix(z, ".cubin"), &b, &err), PT2_OK);
        for (off = 0; off + 32 <= cu_len; off += 611) {
            ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(a), off, x, 32, &err), PT2_OK);
            ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(b), cu_len - 32 - off, y, 32, &err),
                             PT2_OK);
            ck_assert_int_eq(memcmp(x, so + off, 32), 0);
            ck_assert_int_eq(memcmp(y, cu + cu_len - 32 - off, 32), 0);
        }
        pt2_zip_entry_free(a);
        pt2_zip_entry_free(b);
        pt2_zip_free(z);
    }
    pt2_zip_entry_free(NULL);
    free(so);
    free(cu);
}
END_TEST

/* Forward skips in a compressed entry are capped, per skip, per reader and per archive. */
START_TEST(test_deflate_skip_caps)
{
    char dir[256], path[512];
    struct pt2_error err = {0};
    const size_t size = 80 * MIB;
    uint8_t *zeros = calloc(1, size), b[16];
    pt2_zip_entry *e = NULL;
    pt2_zip *z;
    int zerr = 0, k;
    zip_t *za;
    zip_source_t *s;

    ck_assert_ptr_nonnull(zeros);
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/zeros.pt2", dir);
    za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    ck_assert_ptr_nonnull(za);
    s = zip_source_buffer(za, zeros, size, 0);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(zip_file_add(za, "weights.bin", s, 0), 0);
    ck_assert_int_eq(zip_set_file_compression(za, 0, ZIP_CM_DEFLATE, 1), 0);
    ck_assert_int_eq(zip_close(za), 0);
    free(zeros);

    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    ck_assert_uint_eq(local_method(path, "weights.bin"), 8);
    ck_assert_int_eq(pt2_zip_entry_open(z, 0, &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 65 * MIB, b, 16, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message,
                     "weights.bin: skipping 68157440 bytes of a compressed entry (cap 64 MiB)");
    pt2_zip_entry_free(e);

    /* 60 MiB forward, back to 0, again: the 3rd skip would pass 128 MiB for this reader */
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_zip_entry_open(z, 0, &e, &err), PT2_OK);
    for (k = 0; k < 3; k++) {
        int rc = pt2_rd_read(pt2_zip_entry_rd(e), 60 * MIB, b, 16, &err);

        if (k < 2) {
            ck_assert_msg(rc == PT2_OK, "k=%d %s", k, err.message);
            ck_assert_int_eq(b[0] | b[15], 0);
            ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, b, 16, &err), PT2_OK);
        } else {
            ck_assert_int_eq(rc, PT2_ERR_TOO_LARGE);
            ck_assert_str_eq(err.message, "weights.bin: more than 128 MiB inflated only to seek "
                                          "in a compressed entry");
        }
    }
    pt2_zip_entry_free(e);

    /*
     * Fresh readers each stay under their own cap, but the archive's 256 MiB
     * run out: 120 MiB above, 120 MiB in the next reader, the next 60 MiB fail.
     * (A package of many deflated 60 MiB .so files does the same, entry by entry.)
     */
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_zip_entry_open(z, 0, &e, &err), PT2_OK);
    for (k = 0; k < 2; k++) {
        ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 60 * MIB, b, 16, &err), PT2_OK);
        ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, b, 16, &err), PT2_OK);
    }
    pt2_zip_entry_free(e);
    ck_assert_int_eq(pt2_zip_entry_open(z, 0, &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 60 * MIB, b, 16, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "weights.bin: more than 256 MiB inflated only to seek in the "
                                  "compressed entries of this archive");
    /* reads that need no skipping still work */
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, b, 16, &err), PT2_OK);
    pt2_zip_entry_free(e);
    pt2_zip_free(z);

    /* the budget belongs to one pt2_zip: the same file opened again starts afresh */
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_entry_open(z, 0, &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 60 * MIB, b, 16, &err), PT2_OK);
    pt2_zip_entry_free(e);
    pt2_zip_free(z);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

/* ---- counting ---------------------------------------------------------- */

START_TEST(test_bytes_read_small_package)
{
    char path[256];
    struct pt2_error err = {0};
    char *out = NULL;
    size_t n;
    uint64_t size = zt_stat_size(tu_fixture("cuda_sm90a_v8.pt2", path, sizeof(path)));
    pt2_zip *z = zt_open_fixture("cuda_sm90a_v8.pt2");

    /* The whole file fits the 65578-byte tail window libzip starts with: one read, which
     * also serves libzip's own directory and local-header checks. */
    ck_assert_uint_lt(size, 65578);
    ck_assert_uint_eq(pt2_zip_bytes_read(z), size);
    ck_assert_uint_eq(pt2_zip_read_calls(z), 1);
    /* a small entry: its local header and its 3 bytes come from the cache */
    ck_assert_int_eq(pt2_zip_read_small(z, zt_find_rel(z, "archive_format"), 64, &out, &n, &err),
                     PT2_OK);
    ck_assert_str_eq(out, "pt2");
    free(out);
    ck_assert_uint_eq(pt2_zip_bytes_read(z), size);
    ck_assert_uint_eq(pt2_zip_read_calls(z), 1);
    pt2_zip_free(z);
}
END_TEST

START_TEST(test_bytes_read_large_package)
{
    char path[256];
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    pt2_zip_entry *e = NULL;
    uint8_t hdr[64];
    uint64_t size = zt_stat_size(tu_fixture("cuda_embedded.pt2", path, sizeof(path))), after_open;
    pt2_zip *z = zt_open_fixture("cuda_embedded.pt2");

    ck_assert_uint_gt(size, 1000000);
    after_open = pt2_zip_bytes_read(z);
    /* the tail window, from the 4 KiB block it starts in, and nothing else */
    ck_assert_uint_ge(after_open, 65578);
    ck_assert_uint_lt(after_open, 65578 + 4096);
    ck_assert_uint_eq(pt2_zip_read_calls(z), 1);
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_entry_open(z, zt_find_suffix(z, ".wrapper.so"), &e, &err), PT2_OK);
    ck_assert_uint_eq(pt2_zip_entry_rd(e)->size, 1009616);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, hdr, sizeof(hdr), &err), PT2_OK);
    ck_assert_int_eq(memcmp(hdr, "\177ELF\002\001\001", 7), 0);
    pt2_zip_entry_free(e);
    /* one more read: the 64 KiB read-ahead window around the local header and ELF header */
    ck_assert_uint_eq(pt2_zip_read_calls(z), 2);
    ck_assert_uint_le(pt2_zip_bytes_read(z) - after_open, 64 * 1024 + 4096);
    pt2_zip_free(z);
}
END_TEST

/* A 5 GiB package: a sparse weight entry, then the model files past 4 GiB (zip64). */
START_TEST(test_big_sparse_package)
{
    char dir[256], path[512], so_path[256], cu_path[256];
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    pt2_zip_entry *e = NULL;
    const uint64_t big = 5ull << 30;
    size_t so_len, cu_len, n;
    uint8_t *so, *cu, buf[64];
    char *out = NULL;
    pt2_zip *z;

    tu_fixture("bins/zip/libx86_64.so", so_path, sizeof(so_path));
    tu_fixture("bins/zip/sm_90a.cubin", cu_path, sizeof(cu_path));
    so = zt_load(so_path, &so_len);
    cu = zt_load(cu_path, &cu_len);
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/big_sparse.pt2", dir);
    ck_assert_msg(bigzip_write(path, big, so_path, cu_path) == 0, "bigzip: %s", strerror(errno));
    ck_assert_uint_gt(zt_stat_size(path), big);

    /* zip64 records and extra fields, offsets past 4 GiB: still read directly, and the same */
    ck_assert_int_eq(zip_agree(path), 1);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
    ck_assert_str_eq(l.prefix, "big_sparse/");
    ck_assert_int_eq(l.generation, 2);
    ck_assert_int_eq(l.zip64, 1);
    ck_assert_uint_eq(l.entries, BIGZIP_ENTRIES);
    ck_assert_str_eq(l.archive_format, "pt2");
    ck_assert_uint_eq(pt2_zip_entry_size(z, zt_find_rel(z, "data/weights/weight_0")), big);

    /* the ELF header of the .so that lies past the 5 GiB entry */
    ck_assert_int_eq(pt2_zip_entry_open(z, zt_find_rel(z, BIGZIP_SO_NAME), &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, buf, 64, &err), PT2_OK);
    ck_assert_int_eq(memcmp(buf, so, 64), 0);
    pt2_zip_entry_free(e);
    ck_assert_uint_lt(pt2_zip_bytes_read(z), 1 * MIB);

    ck_assert_int_eq(pt2_zip_read_small(z, zt_find_rel(z, BIGZIP_META_NAME), 4096, &out, &n, &err),
                     PT2_OK);
    ck_assert_str_eq(out, cuda90_meta);
    free(out);
    ck_assert_int_eq(pt2_zip_read_small(z, zt_find_rel(z, BIGZIP_CUBIN_NAME), 8192, &out, &n, &err),
                     PT2_OK);
    ck_assert_uint_eq(n, cu_len);
    ck_assert_int_eq(memcmp(out, cu, cu_len), 0);
    free(out);

    /* inside the hole, 5 GiB into the entry */
    ck_assert_int_eq(pt2_zip_entry_open(z, zt_find_rel(z, "data/weights/weight_0"), &e, &err),
                     PT2_OK);
    memset(buf, 0xaa, sizeof(buf));
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), big - 16, buf, 16, &err), PT2_OK);
    ck_assert_int_eq(buf[0] | buf[7] | buf[15], 0);
    pt2_zip_entry_free(e);

    ck_assert_uint_lt(pt2_zip_bytes_read(z), 1 * MIB);
    ck_assert_str_eq(err.message, "");
    pt2_zip_free(z);
    free(so);
    free(cu);
    unlink(path);
    zt_rm_dir(dir);
}
END_TEST

START_TEST(test_bigzip_crc)
{
    static const uint8_t zeros[1000];

    ck_assert_uint_eq(bigzip_crc32(0, "123456789", 9), 0xcbf43926u);
    ck_assert_uint_eq(bigzip_crc32_zeros(0), 0);
    ck_assert_uint_eq(bigzip_crc32_zeros(1), bigzip_crc32(0, zeros, 1));
    ck_assert_uint_eq(bigzip_crc32_zeros(1000), bigzip_crc32(0, zeros, 1000));
    ck_assert_uint_eq(bigzip_crc32(bigzip_crc32(0, zeros, 400), zeros, 600),
                      bigzip_crc32(0, zeros, 1000));
}
END_TEST

/* ---- descriptors and threads ------------------------------------------ */

struct thread_arg {
    int fd;
    const uint8_t *so;
    int failures;
};

static void *thread_main(void *p)
{
    struct thread_arg *a = p;
    int k;

    for (k = 0; k < 20; k++) {
        struct pt2_error err = {0};
        struct pt2_zip_layout l;
        pt2_zip *z = NULL;
        pt2_zip_entry *e = NULL;
        uint8_t buf[64];
        size_t idx;

        if (pt2_zip_open_fd(&z, a->fd, &err) != PT2_OK || pt2_zip_layout(z, &l, &err) != PT2_OK ||
            strcmp(l.prefix, "cuda_sm90a_v8/") != 0 ||
            pt2_zip_find(z, "archive_format", &idx) != PT2_OK) {
            a->failures++;
        } else {
            for (idx = 0; idx < pt2_zip_count(z); idx++) {
                const char *rel = pt2_zip_relname(z, idx);

                if (strlen(rel) > 11 && strcmp(rel + strlen(rel) - 11, ".wrapper.so") == 0)
                    break;
            }
            if (pt2_zip_entry_open(z, idx, &e, &err) != PT2_OK ||
                pt2_rd_read(pt2_zip_entry_rd(e), (uint64_t)k * 100, buf, 64, &err) != PT2_OK ||
                memcmp(buf, a->so + k * 100, 64) != 0)
                a->failures++;
            pt2_zip_entry_free(e);
        }
        pt2_zip_free(z);
    }
    return NULL;
}

START_TEST(test_fd_borrowed_and_threads)
{
    char path[256];
    struct thread_arg args[4];
    pthread_t th[4];
    size_t so_len;
    uint8_t *so = zt_load(tu_fixture("bins/zip/libx86_64.so", path, sizeof(path)), &so_len);
    int fd = open(tu_fixture("cuda_sm90a_v8.pt2", path, sizeof(path)), O_RDONLY);
    int k;

    ck_assert_int_ge(fd, 0);
    /* pread only: the descriptor's offset is untouched, and it stays open */
    ck_assert_int_eq(lseek(fd, 123, SEEK_SET), 123);
    for (k = 0; k < 4; k++) {
        args[k].fd = fd;
        args[k].so = so;
        args[k].failures = 0;
        ck_assert_int_eq(pthread_create(&th[k], NULL, thread_main, &args[k]), 0);
    }
    for (k = 0; k < 4; k++) {
        ck_assert_int_eq(pthread_join(th[k], NULL), 0);
        ck_assert_int_eq(args[k].failures, 0);
    }
    ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 123);
    ck_assert_int_ne(fcntl(fd, F_GETFD), -1);
    ck_assert_int_eq(close(fd), 0);
    free(so);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("zip");
    TCase *tc = tcase_create("entries");
    TCase *te = tcase_create("errors");
    TCase *tr = tcase_create("read");
    TCase *tb = tcase_create("big");

    tcase_add_test(tc, test_names_and_find);
    suite_add_tcase(s, tc);

    tcase_add_test(te, test_open_errors);
    tcase_add_test(te, test_caps_names);
    tcase_add_test(te, test_inconsistent_entry_sizes);
    tcase_add_test(te, test_crc_mismatch_is_entry_error);
    tcase_add_test(te, test_empty_entry_crc_not_checked);
    tcase_add_test(te, test_bad_deflate_stream_is_entry_error);
    tcase_add_test(te, test_direct_agrees_with_libzip);
    tcase_add_test(te, test_direct_agrees_byte_by_byte);
    tcase_add_loop_test(te, test_cut_and_corrupt_never_crash, 0,
                        sizeof(sweep_files) / sizeof(sweep_files[0]));
    tcase_set_timeout(te, 60);
    suite_add_tcase(s, te);

    tcase_add_test(tr, test_read_small_exact);
    tcase_add_test(tr, test_read_small_cap_checked_before_reading);
    tcase_add_test(tr, test_read_tail);
    tcase_add_test(tr, test_random_access_stored);
    tcase_add_test(tr, test_random_access_deflated);
    tcase_add_test(tr, test_two_readers_interleaved);
    tcase_add_test(tr, test_bytes_read_small_package);
    tcase_add_test(tr, test_bytes_read_large_package);
    tcase_add_test(tr, test_fd_borrowed_and_threads);
    suite_add_tcase(s, tr);

    tcase_add_test(tb, test_bigzip_crc);
    tcase_add_test(tb, test_big_sparse_package);
    tcase_add_test(tb, test_deflate_skip_caps);
    tcase_set_timeout(tb, 120);
    suite_add_tcase(s, tb);
    return tu_run_suite(s);
}

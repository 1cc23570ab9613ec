/*
 * test_zip.c - pt2_zip: both container generations and the re-zipped variant,
 * layout facts, prefix and model detection, error codes and messages for the
 * broken fixtures and for crafted archives, caps, small and tail reads, random
 * access on stored and deflated entries, byte counting, a 5 GiB sparse
 * package, threads, and the real packages under ../shared/corpus/pt2 (skipped
 * when absent).
 *
 * Archives that need odd contents are made on the fly in a temporary folder,
 * with libzip for ordinary zips and by hand for broken end records.
 */
#include <check.h>
#include <dirent.h>
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
#include "testutil.h"

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

/* ---- helpers ----------------------------------------------------------- */

static pt2_zip *open_fixture(const char *name)
{
    char path[256];
    struct pt2_error err = {0};
    pt2_zip *z = NULL;
    int rc = pt2_zip_open_path(&z, tu_fixture(name, path, sizeof(path)), &err);

    ck_assert_msg(rc == PT2_OK, "%s: %d %s", name, rc, err.message);
    ck_assert_ptr_nonnull(z);
    return z;
}

/* Index of the first entry whose relname ends with `suffix` (the test fails if none). */
static size_t find_suffix(const pt2_zip *z, const char *suffix)
{
    size_t i, n = strlen(suffix);

    for (i = 0; i < pt2_zip_count(z); i++) {
        const char *rel = pt2_zip_relname(z, i);
        size_t len = strlen(rel);

        if (len >= n && strcmp(rel + len - n, suffix) == 0)
            return i;
    }
    ck_abort_msg("no entry ending in %s", suffix);
    return 0;
}

static size_t find_rel(const pt2_zip *z, const char *rel)
{
    size_t idx = 0;

    ck_assert_msg(pt2_zip_find(z, rel, &idx) == PT2_OK, "no entry %s", rel);
    return idx;
}

static uint64_t stat_size(const char *path)
{
    struct stat st;

    ck_assert_int_eq(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

static uint8_t *load(const char *path, size_t *len)
{
    uint8_t *b = tu_read_file(path, len);

    ck_assert_msg(b != NULL, "cannot read %s", path);
    return b;
}

static void tmp_dir(char *buf, size_t len)
{
    const char *t = getenv("TMPDIR");

    snprintf(buf, len, "%s/pt2zipXXXXXX", t != NULL && t[0] != '\0' ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(buf));
}

static void rm_dir(const char *dir)
{
    char path[512];
    struct dirent *de;
    DIR *d = opendir(dir);

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

struct zent {
    const char *name;
    const char *data;
};

/* A zip written by libzip, entries in order, all with `method`. */
static void make_zip(const char *path, const struct zent *e, size_t n, int method)
{
    int zerr = 0;
    size_t i;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);

    ck_assert_ptr_nonnull(za);
    for (i = 0; i < n; i++) {
        zip_source_t *s = zip_source_buffer(za, e[i].data, strlen(e[i].data), 0);
        zip_int64_t idx;

        ck_assert_ptr_nonnull(s);
        idx = zip_file_add(za, e[i].name, s, ZIP_FL_ENC_UTF_8);
        ck_assert_int_ge(idx, 0);
        if (method != ZIP_CM_STORE)
            ck_assert_int_eq(zip_set_file_compression(za, (zip_uint64_t)idx, method, 1), 0);
    }
    ck_assert_int_eq(zip_close(za), 0);
}

static int open_tmp(const char *path, pt2_zip **z, struct pt2_error *err)
{
    pt2_error_clear(err);
    *z = NULL;
    return pt2_zip_open_path(z, path, err);
}

/* ---- layout of every fixture ------------------------------------------ */

struct layout_case {
    const char *file;
    const char *prefix;
    int generation, zip64;
    const char *archive_version, *data_version, *legacy_version, *byteorder;
    uint64_t entries;
    const char *models[3];
};

#define GEN2(f, p, n, ...)                                                                         \
    {                                                                                              \
        f, p, 2, 1, "0", "6", "", "little", n,                                                     \
        {                                                                                          \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    }
#define GEN1(f, n, ...)                                                                            \
    {                                                                                              \
        f, "", 1, 0, "", "", "0", "", n,                                                           \
        {                                                                                          \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    }

static const struct layout_case layouts[] = {
    GEN2("cuda_sm90a_v8.pt2", "cuda_sm90a_v8/", 12, "model"),
    GEN1("cuda_sm80_v7_legacy.pt2", 9, "model"),
    GEN2("cuda_sm100f_v8.pt2", "cuda_sm100f_v8/", 12, "model"),
    GEN2("cuda_fatbin_multi.pt2", "cuda_fatbin_multi/", 11, "model"),
    GEN2("cuda_fatbin_v7_lz4.pt2", "cuda_fatbin_v7_lz4/", 11, "model"),
    GEN2("cuda_embedded.pt2", "cuda_embedded/", 10, "model"),
    GEN2("cuda_embedded_symbols.pt2", "cuda_embedded_symbols/", 10, "model"),
    GEN2("rocm_gfx90a.pt2", "rocm_gfx90a/", 11, "model"),
    GEN2("xpu_spv.pt2", "xpu_spv/", 11, "model"),
    GEN2("cpu_x86_64.pt2", "cpu_x86_64/", 10, "model"),
    GEN1("cpu_avx2_cmd.pt2", 7, "model"),
    GEN2("cpu_aarch64.pt2", "cpu_aarch64/", 10, "model"),
    GEN2("cpu_s390x.pt2", "cpu_s390x/", 10, "model"),
    GEN2("multi_model.pt2", "multi_model/", 15, "model", "model2"),
    GEN2("export_program.pt2", "export_program/", 10, NULL),
    /* re-zipped by Python zipfile: prefix kept, zip64 end records gone */
    {"rezipped_deflate.pt2", "model/", 2, 0, "0", "6", "", "little", 12, {"model"}},
    /* broken above the zip layer: a clean archive here */
    GEN2("broken_bad_json.pt2", "broken_bad_json/", 11, "model"),
    GEN2("broken_deep_json.pt2", "broken_deep_json/", 11, "model"),
    GEN2("broken_bad_elf.pt2", "broken_bad_elf/", 11, "model"),
};

START_TEST(test_layout_fixture)
{
    const struct layout_case *c = &layouts[_i];
    struct pt2_zip_layout l;
    struct pt2_error err = {0};
    char path[256];
    size_t i, nmodels = 0;
    pt2_zip *z = open_fixture(c->file);

    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
    ck_assert_str_eq(err.message, "");
    ck_assert_str_eq(l.prefix, c->prefix);
    ck_assert_str_eq(pt2_zip_prefix(z), c->prefix);
    ck_assert_int_eq(l.generation, c->generation);
    ck_assert_int_eq(l.zip64, c->zip64);
    ck_assert_str_eq(l.archive_format, "pt2");
    ck_assert_str_eq(l.archive_version, c->archive_version);
    ck_assert_str_eq(l.data_version, c->data_version);
    ck_assert_str_eq(l.legacy_version, c->legacy_version);
    ck_assert_str_eq(l.byteorder, c->byteorder);
    ck_assert_uint_eq(l.entries, c->entries);
    ck_assert_uint_eq(pt2_zip_count(z), c->entries);
    ck_assert_uint_eq(l.file_size, stat_size(tu_fixture(c->file, path, sizeof(path))));
    ck_assert_uint_eq(pt2_zip_file_size(z), l.file_size);
    while (nmodels < 3 && c->models[nmodels] != NULL)
        nmodels++;
    ck_assert_uint_eq(pt2_zip_model_count(z), nmodels);
    for (i = 0; i < nmodels; i++)
        ck_assert_str_eq(pt2_zip_model(z, i), c->models[i]);
    ck_assert_ptr_null(pt2_zip_model(z, nmodels));
    for (i = 0; i < pt2_zip_count(z); i++) {
        const char *name = pt2_zip_name(z, i);

        ck_assert_int_eq(strncmp(name, c->prefix, strlen(c->prefix)), 0);
        ck_assert_ptr_eq(pt2_zip_relname(z, i), name + strlen(c->prefix));
    }
    pt2_zip_free(z);
}
END_TEST

START_TEST(test_names_and_find)
{
    size_t idx = 99;
    pt2_zip *z = open_fixture("cuda_sm90a_v8.pt2");

    ck_assert_int_eq(pt2_zip_find(z, "archive_format", &idx), PT2_OK);
    ck_assert_uint_eq(idx, 7);
    ck_assert_str_eq(pt2_zip_name(z, idx), "cuda_sm90a_v8/archive_format");
    ck_assert_str_eq(pt2_zip_relname(z, idx), "archive_format");
    ck_assert_uint_eq(pt2_zip_entry_size(z, idx), 3);
    ck_assert_int_eq(pt2_zip_entry_stored(z, idx), 1);
    ck_assert_uint_eq(pt2_zip_entry_method(z, idx), 0);
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
    ck_assert_int_eq(pt2_zip_entry_stored(z, 12), 0);
    pt2_zip_free(z);
    pt2_zip_free(NULL);

    z = open_fixture("rezipped_deflate.pt2");
    idx = find_suffix(z, ".wrapper.so");
    ck_assert_int_eq(pt2_zip_entry_stored(z, idx), 0);
    ck_assert_uint_eq(pt2_zip_entry_method(z, idx), 8);
    ck_assert_uint_eq(pt2_zip_entry_size(z, idx), 15024);
    ck_assert_int_eq(pt2_zip_entry_stored(z, find_rel(z, "archive_format")), 1);
    pt2_zip_free(z);
}
END_TEST

/* Model folders: matched with the slash, first-seen order, files beside them ignored. */
START_TEST(test_models_with_slash)
{
    static const struct zent ents[] = {
        {"pkg/data/aotinductor/model2/a.wrapper.so", "x"},
        {"pkg/data/aotinductor/model/b.wrapper.so", "x"},
        {"pkg/data/aotinductor/model2/c.cubin", "x"},
        {"pkg/data/aotinductor/modelx", "loose file, not a folder"},
        {"pkg/data/aotinductor//empty-name", "x"},
        {"pkg/data/aotinductorx/m/x", "x"},
        {"pkg/archive_format", "pt2"},
    };
    char dir[256], path[512];
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    pt2_zip *z;

    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/m.pt2", dir);
    make_zip(path, ents, sizeof(ents) / sizeof(ents[0]), ZIP_CM_STORE);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    ck_assert_str_eq(pt2_zip_prefix(z), "pkg/");
    ck_assert_uint_eq(pt2_zip_model_count(z), 2);
    ck_assert_str_eq(pt2_zip_model(z, 0), "model2");
    ck_assert_str_eq(pt2_zip_model(z, 1), "model");
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
    ck_assert_int_eq(l.zip64, 0);
    pt2_zip_free(z);
    rm_dir(dir);
}
END_TEST

struct prefix_case {
    struct zent ents[3];
    const char *prefix;
};

static const struct prefix_case prefix_cases[] = {
    /* common folder but nothing of a package root below it */
    {{{"foo/readme.txt", "x"}, {"foo/bar.bin", "x"}, {NULL, NULL}}, ""},
    /* data/ below the common folder */
    {{{"pkg/data/x.bin", "x"}, {"pkg/readme", "x"}, {NULL, NULL}}, "pkg/"},
    /* models/ below it */
    {{{"p.q/models/m.json", "{}"}, {"p.q/x", "x"}, {NULL, NULL}}, "p.q/"},
    /* first components differ */
    {{{"a/archive_format", "pt2"}, {"b/data/x", "x"}, {NULL, NULL}}, ""},
    /* first name has no folder: torch <= 2.7 */
    {{{"archive_format", "pt2"}, {"data/aotinductor/m/x", "x"}, {NULL, NULL}}, ""},
    /* everything under data/ without a package root below data/: no prefix */
    {{{"data/aotinductor/m/x.so", "x"}, {"data/weights/w", "x"}, {NULL, NULL}}, ""},
    /* a name starting with '/' has an empty first component */
    {{{"/abs/archive_format", "pt2"}, {"/abs/data/x", "x"}, {NULL, NULL}}, ""},
};

START_TEST(test_prefix_rules)
{
    const struct prefix_case *c = &prefix_cases[_i];
    char dir[256], path[512];
    struct pt2_error err = {0};
    pt2_zip *z;
    size_t n = 0;

    while (n < 3 && c->ents[n].name != NULL)
        n++;
    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/p.pt2", dir);
    make_zip(path, c->ents, n, ZIP_CM_STORE);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    ck_assert_str_eq(pt2_zip_prefix(z), c->prefix);
    ck_assert_str_eq(pt2_zip_relname(z, 0), c->ents[0].name + strlen(c->prefix));
    pt2_zip_free(z);
    rm_dir(dir);
}
END_TEST

struct pt2_case {
    struct zent ents[3];
    int rc;
    const char *message;
    const char *archive_format, *legacy_version;
};

static const struct pt2_case pt2_cases[] = {
    {{{"archive_format", "zip\n"}, {"data/aotinductor/m/x", "x"}, {NULL, NULL}},
     PT2_ERR_NOT_PT2,
     "archive_format is 'zip', expected 'pt2'",
     "zip",
     ""},
    {{{"archive_format", " \tpt2 \r\n"}, {NULL, NULL}, {NULL, NULL}}, PT2_OK, "", "pt2", ""},
    {{{"archive_format", "p\001t\n"}, {NULL, NULL}, {NULL, NULL}},
     PT2_ERR_NOT_PT2,
     "archive_format is 'p?t', expected 'pt2'",
     "p?t",
     ""},
    {{{"archive_format", ""}, {"data/aotinductor/m/x", "x"}, {NULL, NULL}},
     PT2_ERR_NOT_PT2,
     "archive_format is '', expected 'pt2'",
     "",
     ""},
    /* no archive_format: the content decides */
    {{{"models/model.json", "{}"}, {NULL, NULL}, {NULL, NULL}}, PT2_OK, "", "", ""},
    {{{"version", "2"}, {"serialized_exported_program.json", "{}"}, {NULL, NULL}},
     PT2_OK,
     "",
     "",
     "2"},
    {{{"version", "0"}, {"data/aotinductor/model/x.so", "x"}, {NULL, NULL}}, PT2_OK, "", "", "0"},
    {{{"models/", "x"}, {"models/.json", "x"}, {"model.json", "x"}},
     PT2_ERR_NOT_PT2,
     "no archive_format entry and no data/aotinductor/ or models/ folder",
     "",
     ""},
    {{{"extra/model_metadata.json", "{}"}, {"data/weights/weight_0", "x"}, {NULL, NULL}},
     PT2_ERR_NOT_PT2,
     "no archive_format entry and no data/aotinductor/ or models/ folder",
     "",
     ""},
};

START_TEST(test_is_pt2_rules)
{
    const struct pt2_case *c = &pt2_cases[_i];
    char dir[256], path[512];
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    pt2_zip *z;
    size_t n = 0;

    while (n < 3 && c->ents[n].name != NULL)
        n++;
    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/f.pt2", dir);
    make_zip(path, c->ents, n, ZIP_CM_DEFLATE);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), c->rc);
    ck_assert_str_eq(err.message, c->message);
    /* the facts are filled in either way */
    ck_assert_str_eq(l.archive_format, c->archive_format);
    ck_assert_str_eq(l.legacy_version, c->legacy_version);
    ck_assert_uint_eq(l.entries, n);
    ck_assert_int_eq(l.generation, 1);
    pt2_zip_free(z);
    rm_dir(dir);
}
END_TEST

/* ---- errors ------------------------------------------------------------ */

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

START_TEST(test_broken_no_archive_format)
{
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    pt2_zip *z = open_fixture("broken_no_archive_format.pt2");

    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_ERR_NOT_PT2);
    ck_assert_str_eq(err.message,
                     "no archive_format entry and no data/aotinductor/ or models/ folder");
    ck_assert_str_eq(l.prefix, "");
    ck_assert_str_eq(l.archive_format, "");
    ck_assert_int_eq(l.generation, 1);
    ck_assert_uint_eq(l.entries, 2);
    ck_assert_str_eq(pt2_zip_name(z, 0), "readme.txt");
    ck_assert_str_eq(pt2_zip_name(z, 1), "data.bin");
    pt2_zip_free(z);
}
END_TEST

START_TEST(test_open_errors)
{
    char dir[256], path[512];
    struct pt2_error err = {0};
    pt2_zip *z;
    int fd;

    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/missing.pt2", dir);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_IO);
    ck_assert_ptr_null(z);
    {
        char want[640];
        snprintf(want, sizeof(want), "cannot open %s: No such file or directory", path);
        ck_assert_str_eq(err.message, want);
    }

    ck_assert_int_eq(open_tmp(dir, &z, &err), PT2_ERR_IO);
    ck_assert_str_eq(err.message, "not a regular file");

    ck_assert_int_eq(open_tmp("", &z, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "empty archive path");

    /* libzip would take an empty file for an empty archive */
    snprintf(path, sizeof(path), "%s/empty.pt2", dir);
    write_file(path, "", 0);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_NOT_ZIP);
    ck_assert_str_eq(err.message, "not a zip archive (no end-of-central-directory record)");

    /* a lone local header signature: a zip cut right after it started */
    write_file(path, "PK\003\004", 4);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);

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
    rm_dir(dir);
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

    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/huge.pt2", dir);
    /* records that fit the file: the caps apply before libzip reads the directory */
    write_end_records(path, 2000000 * 46, 2000000, 2000000 * 46);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "archive lists 2000000 entries (cap 1000000)");
    ck_assert_ptr_null(z);

    write_end_records(path, 300000000, 3, 300000000);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "central directory is 300000000 bytes (cap 256 MiB)");

    /* within the caps, libzip finds the directory missing */
    write_end_records(path, 0, 3, 138);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
    ck_assert_int_eq(strncmp(err.message, "truncated or corrupt zip: ", 26), 0);
    unlink(path);
    rm_dir(dir);
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

    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/z64.pt2", dir);
    write_end_records(path, 0, 2000000, 46);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "truncated or corrupt zip: the central directory is "
                                  "inconsistent with the file");
    ck_assert_ptr_null(z);

    write_end_records(path, 46, 2000000, 46);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "truncated or corrupt zip: the central directory is "
                                  "inconsistent with the file");

    write_end_records(path, 0, 3, 300000000);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "truncated or corrupt zip: the central directory is "
                                  "inconsistent with the file");

    /* no zip64 record where the locator points: the end record's 0xffffffff stay unread */
    write_end_records(path, 138, 3, 138);
    fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, "XX", 2, 138), 2);
    ck_assert_int_eq(close(fd), 0);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "truncated or corrupt zip: the central directory is "
                                  "inconsistent with the file");
    unlink(path);
    rm_dir(dir);
}
END_TEST

/* A valid zip whose archive comment holds another end-record signature. */
static void make_zip_with_comment(const char *path, const uint8_t *comment, size_t len)
{
    static const struct zent ents[] = {{"m/archive_format", "pt2"}, {"m/models/model.json", "{}"}};
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
        uint8_t *b = load(path, &zlen), *nb = malloc(zlen + len);

        ck_assert_ptr_nonnull(nb);
        ck_assert_int_eq(memcmp(b + zlen - 22, "PK\005\006", 4), 0);
        memcpy(nb, b, zlen);
        memcpy(nb + zlen, comment, len);
        nb[zlen - 2] = (uint8_t)(len & 0xff);
        nb[zlen - 1] = (uint8_t)(len >> 8);
        write_file(path, nb, zlen + len);
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

    tmp_dir(dir, sizeof(dir));
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
        ck_assert_msg(open_tmp(path, &z, &err) == PT2_OK, "k=%d %s", k, err.message);
        ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
        ck_assert_uint_eq(l.entries, 2);
        ck_assert_int_eq(l.zip64, 0);
        ck_assert_str_eq(l.prefix, "m/");
        ck_assert_str_eq(l.archive_format, "pt2");
        ck_assert_int_eq(
            pt2_zip_read_small(z, find_rel(z, "models/model.json"), 64, &out, &n, &err), PT2_OK);
        ck_assert_str_eq(out, "{}");
        free(out);
        pt2_zip_free(z);
    }
    unlink(path);
    rm_dir(dir);
}
END_TEST

START_TEST(test_caps_names_and_models)
{
    char dir[256], path[512], longname[1200], model[300];
    struct zent ents[258];
    static char names[257][48];
    struct pt2_error err = {0};
    pt2_zip *z;
    size_t i;

    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/c.pt2", dir);

    memset(longname, 'n', 1100);
    longname[1100] = '\0';
    ents[0].name = longname;
    ents[0].data = "x";
    make_zip(path, ents, 1, ZIP_CM_STORE);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "entry 0: name is 1100 bytes (cap 1024)");
    ck_assert_ptr_null(z);

    /* 1024 is still fine */
    longname[1024] = '\0';
    make_zip(path, ents, 1, ZIP_CM_STORE);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    ck_assert_uint_eq(strlen(pt2_zip_name(z, 0)), 1024);
    pt2_zip_free(z);

    snprintf(model, sizeof(model), "data/aotinductor/%0200d/x.so", 7);
    ents[0].name = model;
    make_zip(path, ents, 1, ZIP_CM_STORE);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TOO_LARGE);
    {
        char want[400];
        snprintf(want, sizeof(want), "%s: model folder name is 200 bytes (cap 127)", model);
        ck_assert_str_eq(err.message, want);
    }

    for (i = 0; i < 257; i++) {
        snprintf(names[i], sizeof(names[i]), "data/aotinductor/m%03zu/x.so", i);
        ents[i].name = names[i];
        ents[i].data = "x";
    }
    make_zip(path, ents, 256, ZIP_CM_STORE);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    ck_assert_uint_eq(pt2_zip_model_count(z), 256);
    ck_assert_str_eq(pt2_zip_model(z, 255), "m255");
    pt2_zip_free(z);
    make_zip(path, ents, 257, ZIP_CM_STORE);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "more than 256 model folders under data/aotinductor/");
    unlink(path);
    rm_dir(dir);
}
END_TEST

/* Offset of the data of the entry named `name` in a torch-style or zipfile-style file. */
static size_t data_offset(const uint8_t *buf, size_t len, const char *name)
{
    size_t nlen = strlen(name), p;

    for (p = 0; p + 30 + nlen <= len; p++) {
        if (memcmp(buf + p, "PK\003\004", 4) == 0 &&
            (size_t)(buf[p + 26] | buf[p + 27] << 8) == nlen &&
            memcmp(buf + p + 30, name, nlen) == 0)
            return p + 30 + nlen + (size_t)(buf[p + 28] | buf[p + 29] << 8);
    }
    ck_abort_msg("no local header for %s", name);
    return 0;
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
    write_file(path, b, pos + cdlen + 22);
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

    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/sizes.pt2", dir);
    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        write_sized_zip(path, "m/data/aotinductor/model/x.so", cases[k].method, cases[k].dlen,
                        cases[k].csize, cases[k].usize);
        ck_assert_int_eq(open_tmp(path, &z, &err), PT2_ERR_TRUNCATED);
        snprintf(want, sizeof(want), "truncated or corrupt zip: m/data/aotinductor/model/x.so: %s",
                 cases[k].msg);
        ck_assert_str_eq(err.message, want);
        ck_assert_ptr_null(z);
    }

    /* honest sizes: the same layout opens, and a seek into the stored entry works */
    write_sized_zip(path, "m/data/aotinductor/model/x.so", 0, 204, 204, 204);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_entry_open(z, 1, &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, b, sizeof(b), &err), PT2_OK);
    ck_assert_int_eq(memcmp(b, "\177ELF", 4), 0);
    pt2_zip_entry_free(e);
    pt2_zip_free(z);
    /* and empty entries are still fine, stored or not */
    write_sized_zip(path, "m/empty", 0, 0, 0, 0);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    pt2_zip_free(z);
    write_sized_zip(path, "m/empty", 8, 0, 0, 0);
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    pt2_zip_free(z);
    unlink(path);
    rm_dir(dir);
}
END_TEST

START_TEST(test_crc_mismatch_is_entry_error)
{
    char dir[256], path[512], src[256];
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    size_t len, off, idx, n;
    uint8_t *buf = load(tu_fixture("cuda_sm90a_v8.pt2", src, sizeof(src)), &len);
    char *out = (char *)buf;
    pt2_zip *z;

    off = data_offset(buf, len, "cuda_sm90a_v8/archive_format");
    ck_assert_int_eq(memcmp(buf + off, "pt2", 3), 0);
    buf[off + 2] = '3';
    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/crc.pt2", dir);
    write_file(path, buf, len);
    free(buf);

    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    idx = find_rel(z, "archive_format");
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
    rm_dir(dir);
}
END_TEST

/* A broken DEFLATE stream is an unreadable entry, named in the message. */
START_TEST(test_bad_deflate_stream_is_entry_error)
{
    char dir[256], path[512], src[256], want[PT2_ERROR_MSG_MAX];
    struct pt2_error err = {0};
    pt2_zip_entry *e = NULL;
    size_t len, off, idx, n;
    uint8_t *buf = load(tu_fixture("rezipped_deflate.pt2", src, sizeof(src)), &len), b[64];
    char *out = NULL;
    pt2_zip *z;

    ck_assert_int_eq(open_tmp(src, &z, &err), PT2_OK);
    idx = find_suffix(z, ".wrapper.so");
    off = data_offset(buf, len, pt2_zip_name(z, idx));
    pt2_zip_free(z);
    /* block type 3 is reserved: the first inflate call fails */
    buf[off] = 0x07;
    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/bad.pt2", dir);
    write_file(path, buf, len);
    free(buf);

    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
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
    rm_dir(dir);
}
END_TEST

/* Cut and corrupted copies of good packages (stored, deflated): every outcome is a clean
 * status, never a crash or a sanitizer report. */
static const char *const sweep_files[] = {"cuda_sm90a_v8.pt2", "rezipped_deflate.pt2"};

START_TEST(test_cut_and_corrupt_never_crash)
{
    char dir[256], path[512], src[256];
    size_t len, cut, k;
    uint8_t *good = load(tu_fixture(sweep_files[_i], src, sizeof(src)), &len);
    uint8_t *buf = malloc(len);
    int seen_ok = 0, seen_trunc = 0, seen_entry = 0;

    ck_assert_ptr_nonnull(buf);
    tmp_dir(dir, sizeof(dir));
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
        write_file(path, buf, cut);
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
    rm_dir(dir);
}
END_TEST

/* ---- reads ------------------------------------------------------------- */

START_TEST(test_read_small_exact)
{
    struct pt2_error err = {0};
    char *out = NULL, *out2 = NULL;
    size_t n = 0, n2 = 0;
    pt2_zip *z = open_fixture("cuda_sm90a_v8.pt2");
    pt2_zip *r = open_fixture("rezipped_deflate.pt2");

    ck_assert_int_eq(
        pt2_zip_read_small(z, find_rel(z, "extra/model_metadata.json"), MIB, &out, &n, &err),
        PT2_OK);
    ck_assert_str_eq(out, user_meta);
    ck_assert_uint_eq(n, strlen(user_meta));
    free(out);

    ck_assert_int_eq(
        pt2_zip_read_small(z, find_suffix(z, ".wrapper_metadata.json"), MIB, &out, &n, &err),
        PT2_OK);
    ck_assert_str_eq(out, cuda90_meta);

    /* the same bytes come out of the DEFLATE-compressed copy */
    ck_assert_int_eq(
        pt2_zip_read_small(r, find_suffix(r, ".wrapper_metadata.json"), MIB, &out2, &n2, &err),
        PT2_OK);
    ck_assert_str_eq(out2, cuda90_meta);
    ck_assert_uint_eq(n2, n);
    free(out);
    free(out2);
    ck_assert_int_eq(
        pt2_zip_read_small(r, find_rel(r, "extra/model_metadata.json"), MIB, &out2, &n2, &err),
        PT2_OK);
    ck_assert_str_eq(out2, user_meta);
    free(out2);

    /* binary content keeps its length; the NUL after it is extra */
    ck_assert_int_eq(
        pt2_zip_read_small(z, find_rel(z, "data/weights/weight_0"), MIB, &out, &n, &err), PT2_OK);
    ck_assert_uint_eq(n, 4096);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[4095], 0);
    ck_assert_int_eq(out[4096], 0);
    free(out);
    ck_assert_str_eq(err.message, "");
    pt2_zip_free(z);
    pt2_zip_free(r);

    z = open_fixture("cuda_sm80_v7_legacy.pt2");
    ck_assert_int_eq(
        pt2_zip_read_small(z, find_rel(z, "extra_files/model_metadata.json"), MIB, &out, &n, &err),
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
    pt2_zip *z = open_fixture("cuda_sm90a_v8.pt2");

    idx = find_rel(z, "archive_format");
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
    pt2_zip *z = open_fixture("cuda_sm90a_v8.pt2");
    pt2_zip *r = open_fixture("rezipped_deflate.pt2");

    idx = find_suffix(z, ".wrapper.cpp");
    ck_assert_int_eq(pt2_zip_read_small(z, idx, MIB, &full, &nfull, &err), PT2_OK);
    ck_assert_uint_gt(nfull, 1000);

    ck_assert_int_eq(pt2_zip_read_tail(z, idx, 300, &tail, &ntail, &err), PT2_OK);
    ck_assert_uint_eq(ntail, 300);
    ck_assert_uint_eq(strlen(tail), 300);
    ck_assert_int_eq(memcmp(tail, full + nfull - 300, 300), 0);
    ck_assert_int_eq(tail[ntail - 1], '\n');

    /* the deflated copy has the same tail (it is reached by inflating forward) */
    ck_assert_int_eq(
        pt2_zip_read_tail(r, find_suffix(r, ".wrapper.cpp"), 300, &tail2, &ntail2, &err), PT2_OK);
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
    char path[256];
    size_t so_len, idx;
    uint64_t bytes, calls;
    uint8_t *so = load(tu_fixture("bins/zip/libx86_64.so", path, sizeof(path)), &so_len);
    pt2_zip *z = open_fixture("cuda_sm90a_v8.pt2");

    ck_assert_uint_eq(so_len, 15024);
    idx = find_suffix(z, ".wrapper.so");
    ck_assert_int_eq(pt2_zip_entry_stored(z, idx), 1);
    bytes = pt2_zip_bytes_read(z);
    calls = pt2_zip_read_calls(z);
    check_random_access(z, idx, so, so_len, so_spans, sizeof(so_spans) / sizeof(so_spans[0]));
    /* Only what was asked for: 4 bytes of local header (name and extra lengths), then
     * one pread per span, no read-ahead. */
    ck_assert_uint_eq(pt2_zip_bytes_read(z) - bytes, 4 + 64 + 100 + 16 + 8 + 200 + 1);
    ck_assert_uint_eq(pt2_zip_read_calls(z) - calls, 1 + 6);
    pt2_zip_free(z);
    free(so);
}
END_TEST

START_TEST(test_random_access_deflated)
{
    char path[256];
    size_t so_len, idx;
    uint8_t *so = load(tu_fixture("bins/zip/libx86_64.so", path, sizeof(path)), &so_len);
    pt2_zip *z = open_fixture("rezipped_deflate.pt2");

    idx = find_suffix(z, ".wrapper.so");
    ck_assert_int_eq(pt2_zip_entry_stored(z, idx), 0);
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
    uint8_t *so = load(tu_fixture("bins/zip/libx86_64.so", path, sizeof(path)), &so_len);
    uint8_t *cu = load(tu_fixture("bins/zip/sm_90a.cubin", path, sizeof(path)), &cu_len);
    const char *files[] = {"cuda_sm90a_v8.pt2", "rezipped_deflate.pt2"};

    for (k = 0; k < 2; k++) {
        pt2_zip *z = open_fixture(files[k]);
        pt2_zip_entry *a = NULL, *b = NULL;
        uint8_t x[32], y[32];
        uint64_t off;

        ck_assert_int_eq(pt2_zip_entry_open(z, find_suffix(z, ".wrapper.so"), &a, &err), PT2_OK);
        ck_assert_int_eq(pt2_zip_entry_open(z, find_suffix(z, ".cubin"), &b, &err), PT2_OK);
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
    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/zeros.pt2", dir);
    za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    ck_assert_ptr_nonnull(za);
    s = zip_source_buffer(za, zeros, size, 0);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(zip_file_add(za, "weights.bin", s, 0), 0);
    ck_assert_int_eq(zip_set_file_compression(za, 0, ZIP_CM_DEFLATE, 1), 0);
    ck_assert_int_eq(zip_close(za), 0);
    free(zeros);

    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_entry_stored(z, 0), 0);
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
    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_entry_open(z, 0, &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 60 * MIB, b, 16, &err), PT2_OK);
    pt2_zip_entry_free(e);
    pt2_zip_free(z);
    unlink(path);
    rm_dir(dir);
}
END_TEST

/* ---- counting ---------------------------------------------------------- */

START_TEST(test_bytes_read_small_package)
{
    char path[256];
    struct pt2_error err = {0};
    char *out = NULL;
    size_t n;
    uint64_t size = stat_size(tu_fixture("cuda_sm90a_v8.pt2", path, sizeof(path)));
    pt2_zip *z = open_fixture("cuda_sm90a_v8.pt2");

    /* The whole file fits the 65578-byte tail window libzip starts with: one read, which
     * also serves libzip's own directory and local-header checks. */
    ck_assert_uint_lt(size, 65578);
    ck_assert_uint_eq(pt2_zip_bytes_read(z), size);
    ck_assert_uint_eq(pt2_zip_read_calls(z), 1);
    /* a small entry: the 4 length bytes of its local header, then its 3 bytes */
    ck_assert_int_eq(pt2_zip_read_small(z, find_rel(z, "archive_format"), 64, &out, &n, &err),
                     PT2_OK);
    free(out);
    ck_assert_uint_eq(pt2_zip_bytes_read(z), size + 4 + 3);
    ck_assert_uint_eq(pt2_zip_read_calls(z), 1 + 2);
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
    uint64_t size = stat_size(tu_fixture("cuda_embedded.pt2", path, sizeof(path))), after_open;
    pt2_zip *z = open_fixture("cuda_embedded.pt2");

    ck_assert_uint_gt(size, 1000000);
    after_open = pt2_zip_bytes_read(z);
    /* the tail window plus the local headers outside it (ZIP_CHECKCONS) */
    ck_assert_uint_ge(after_open, 65578);
    ck_assert_uint_lt(after_open, 65578 + 1024);
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_entry_open(z, find_suffix(z, ".wrapper.so"), &e, &err), PT2_OK);
    ck_assert_uint_eq(pt2_zip_entry_rd(e)->size, 1009616);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, hdr, sizeof(hdr), &err), PT2_OK);
    ck_assert_int_eq(memcmp(hdr, "\177ELF\002\001\001", 7), 0);
    pt2_zip_entry_free(e);
    ck_assert_uint_lt(pt2_zip_bytes_read(z), 65578 + 2048);
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
    so = load(so_path, &so_len);
    cu = load(cu_path, &cu_len);
    tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/big_sparse.pt2", dir);
    ck_assert_msg(bigzip_write(path, big, so_path, cu_path) == 0, "bigzip: %s", strerror(errno));
    ck_assert_uint_gt(stat_size(path), big);

    ck_assert_int_eq(open_tmp(path, &z, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
    ck_assert_str_eq(l.prefix, "big_sparse/");
    ck_assert_int_eq(l.generation, 2);
    ck_assert_int_eq(l.zip64, 1);
    ck_assert_uint_eq(l.entries, BIGZIP_ENTRIES);
    ck_assert_str_eq(l.archive_format, "pt2");
    ck_assert_uint_eq(pt2_zip_entry_size(z, find_rel(z, "data/weights/weight_0")), big);

    /* the ELF header of the .so that lies past the 5 GiB entry */
    ck_assert_int_eq(pt2_zip_entry_open(z, find_rel(z, BIGZIP_SO_NAME), &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, buf, 64, &err), PT2_OK);
    ck_assert_int_eq(memcmp(buf, so, 64), 0);
    pt2_zip_entry_free(e);
    ck_assert_uint_lt(pt2_zip_bytes_read(z), 1 * MIB);

    ck_assert_int_eq(pt2_zip_read_small(z, find_rel(z, BIGZIP_META_NAME), 4096, &out, &n, &err),
                     PT2_OK);
    ck_assert_str_eq(out, cuda90_meta);
    free(out);
    ck_assert_int_eq(pt2_zip_read_small(z, find_rel(z, BIGZIP_CUBIN_NAME), 8192, &out, &n, &err),
                     PT2_OK);
    ck_assert_uint_eq(n, cu_len);
    ck_assert_int_eq(memcmp(out, cu, cu_len), 0);
    free(out);

    /* inside the hole, 5 GiB into the entry */
    ck_assert_int_eq(pt2_zip_entry_open(z, find_rel(z, "data/weights/weight_0"), &e, &err), PT2_OK);
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
    rm_dir(dir);
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
    uint8_t *so = load(tu_fixture("bins/zip/libx86_64.so", path, sizeof(path)), &so_len);
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

/* ---- real packages (../shared/corpus/pt2) ------------------------------ */

static pt2_zip *open_corpus(const char *rel)
{
    char path[512];
    struct pt2_error err = {0};
    pt2_zip *z = NULL;

    if (tu_shared(rel, path, sizeof(path)) == NULL) {
        tu_skip(rel, "shared corpus not available");
        return NULL;
    }
    ck_assert_msg(pt2_zip_open_path(&z, path, &err) == PT2_OK, "%s: %s", rel, err.message);
    return z;
}

START_TEST(test_corpus_executorch_linear)
{
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    pt2_zip *z = open_corpus("corpus/pt2/executorch__linear.pt2");

    if (z == NULL)
        return;
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
    ck_assert_str_eq(l.prefix, "linear_3/");
    ck_assert_str_eq(l.archive_format, "pt2");
    ck_assert_str_eq(l.archive_version, "0");
    ck_assert_str_eq(l.data_version, "6");
    ck_assert_str_eq(l.legacy_version, "");
    ck_assert_str_eq(l.byteorder, "little");
    ck_assert_int_eq(l.zip64, 1);
    ck_assert_int_eq(l.generation, 2);
    ck_assert_uint_eq(l.entries, 11);
    ck_assert_uint_eq(l.file_size, 7718);
    ck_assert_uint_eq(pt2_zip_model_count(z), 0);
    ck_assert_str_eq(pt2_zip_relname(z, 4), "models/model.json");
    pt2_zip_free(z);
}
END_TEST

START_TEST(test_corpus_executorch_preprocess)
{
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    pt2_zip_entry *e = NULL;
    uint8_t magic[4];
    pt2_zip *z = open_corpus("corpus/pt2/executorch__preprocess_2025-05-23.pt2");

    if (z == NULL)
        return;
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
    ck_assert_str_eq(l.prefix, "");
    ck_assert_str_eq(l.archive_format, "pt2");
    ck_assert_str_eq(l.legacy_version, "0");
    ck_assert_str_eq(l.data_version, "");
    ck_assert_int_eq(l.zip64, 0);
    ck_assert_int_eq(l.generation, 1);
    ck_assert_uint_eq(l.entries, 8);
    ck_assert_uint_eq(pt2_zip_model_count(z), 1);
    ck_assert_str_eq(pt2_zip_model(z, 0), "model");
    /* Mach-O 64-bit magic of the macOS wrapper .so, read in place */
    ck_assert_int_eq(pt2_zip_entry_open(z, find_suffix(z, ".wrapper.so"), &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, magic, 4, &err), PT2_OK);
    ck_assert_uint_eq(pt2_le32(magic), 0xfeedfacfu);
    pt2_zip_entry_free(e);
    ck_assert_uint_lt(pt2_zip_bytes_read(z), 100000);
    pt2_zip_free(z);
}
END_TEST

START_TEST(test_corpus_mlcolvar)
{
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    char *tail = NULL;
    size_t n = 0;
    pt2_zip *z = open_corpus("corpus/pt2/mlcolvar__descriptor_based_inputs_model.pt2");

    if (z == NULL)
        return;
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
    ck_assert_str_eq(l.prefix, "model/");
    ck_assert_str_eq(l.archive_format, "pt2");
    ck_assert_str_eq(l.data_version, "6");
    ck_assert_int_eq(l.zip64, 0);
    ck_assert_int_eq(l.generation, 2);
    ck_assert_uint_eq(l.entries, 10);
    ck_assert_uint_eq(pt2_zip_model_count(z), 1);
    ck_assert_str_eq(pt2_zip_model(z, 0), "model");
    ck_assert_int_eq(pt2_zip_read_tail(z, find_suffix(z, ".wrapper.cpp"), 4096, &tail, &n, &err),
                     PT2_OK);
    ck_assert_uint_eq(n, 4096);
    ck_assert_ptr_nonnull(strstr(tail, "// Compile cmd\n// g++ "));
    ck_assert_ptr_nonnull(strstr(tail, "-D CPU_CAPABILITY_AVX512"));
    free(tail);
    ck_assert_uint_lt(pt2_zip_bytes_read(z), 80000);
    pt2_zip_free(z);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("zip");
    TCase *tc = tcase_create("layout");
    TCase *te = tcase_create("errors");
    TCase *tr = tcase_create("read");
    TCase *tb = tcase_create("big");
    TCase *tx = tcase_create("corpus");

    tcase_add_loop_test(tc, test_layout_fixture, 0, sizeof(layouts) / sizeof(layouts[0]));
    tcase_add_test(tc, test_names_and_find);
    tcase_add_test(tc, test_models_with_slash);
    tcase_add_loop_test(tc, test_prefix_rules, 0, sizeof(prefix_cases) / sizeof(prefix_cases[0]));
    tcase_add_loop_test(tc, test_is_pt2_rules, 0, sizeof(pt2_cases) / sizeof(pt2_cases[0]));
    suite_add_tcase(s, tc);

    tcase_add_test(te, test_broken_fixtures);
    tcase_add_test(te, test_broken_no_archive_format);
    tcase_add_test(te, test_open_errors);
    tcase_add_test(te, test_caps_from_end_records);
    tcase_add_test(te, test_corrupt_zip64_record_is_truncated);
    tcase_add_test(te, test_end_record_in_comment);
    tcase_add_test(te, test_caps_names_and_models);
    tcase_add_test(te, test_inconsistent_entry_sizes);
    tcase_add_test(te, test_crc_mismatch_is_entry_error);
    tcase_add_test(te, test_bad_deflate_stream_is_entry_error);
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

    tcase_add_test(tx, test_corpus_executorch_linear);
    tcase_add_test(tx, test_corpus_executorch_preprocess);
    tcase_add_test(tx, test_corpus_mlcolvar);
    suite_add_tcase(s, tx);
    return tu_run_suite(s);
}

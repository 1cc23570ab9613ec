/*
 * test_zip_layout.c - pt2_zip_layout: the facts of both container
 * generations and the re-zipped variant on every fixture, the prefix rule,
 * model folders (the shared rule and its caps), the "is it a .pt2" rules,
 * and the real packages under ../shared/corpus/pt2 (skipped when absent).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zip.h>

#include "pt2_zip_layout.h"
#include "testutil.h"
#include "ziptest.h"

/* What opening and a few small reads cost at most: the tail window libzip asks for first,
 * from the 4 KiB block it starts in, and two 64 KiB read-ahead windows of the byte source. */
#define TAIL_AND_TWO_WINDOWS (65578u + 4096u + 2u * 65536u)

/* Model folders of z's entries in first-seen order, by pt2_zip_layout_model_of; at most max. */
static size_t models_of(const pt2_zip *z, char (*out)[PT2_NAME_MAX], size_t max)
{
    char name[PT2_NAME_MAX];
    size_t i, k, n = 0;

    for (i = 0; i < pt2_zip_count(z); i++) {
        if (pt2_zip_layout_model_of(pt2_zip_relname(z, i), name, sizeof(name), NULL) != PT2_OK)
            continue;
        for (k = 0; k < n; k++)
            if (strcmp(out[k], name) == 0)
                break;
        if (k < n)
            continue;
        ck_assert_uint_lt(n, max);
        memcpy(out[n++], name, sizeof(name));
    }
    return n;
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
    GEN2("broken_bad_aoti_json.pt2", "broken_bad_aoti_json/", 10, "model"),
    GEN2("broken_bad_elf.pt2", "broken_bad_elf/", 11, "model"),
};

START_TEST(test_layout_fixture)
{
    const struct layout_case *c = &layouts[_i];
    struct pt2_zip_layout l;
    struct pt2_error err = {0};
    char path[256];
    char found[4][PT2_NAME_MAX];
    size_t i, nmodels = 0;
    pt2_zip *z = zt_open_fixture(c->file);

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
    ck_assert_uint_eq(l.file_size, zt_stat_size(tu_fixture(c->file, path, sizeof(path))));
    ck_assert_uint_eq(pt2_zip_file_size(z), l.file_size);
    while (nmodels < 3 && c->models[nmodels] != NULL)
        nmodels++;
    ck_assert_uint_eq(models_of(z, found, 4), nmodels);
    for (i = 0; i < nmodels; i++)
        ck_assert_str_eq(found[i], c->models[i]);
    for (i = 0; i < pt2_zip_count(z); i++) {
        const char *name = pt2_zip_name(z, i);

        ck_assert_int_eq(strncmp(name, c->prefix, strlen(c->prefix)), 0);
        ck_assert_ptr_eq(pt2_zip_relname(z, i), name + strlen(c->prefix));
    }
    pt2_zip_free(z);
}
END_TEST

/* The one model-folder rule, shared by pt2_zip's open and pt2_inspect's walk. */
START_TEST(test_model_of)
{
    static const struct {
        const char *rel;
        int rc;
        const char *model;
    } cases[] = {
        {"data/aotinductor/model/c1.wrapper.so", PT2_OK, "model"},
        {"data/aotinductor/model2/sub/dir/k.cubin", PT2_OK, "model2"},
        {"data/aotinductor/m/", PT2_OK, "m"},
        {"data/aotinductor/modelx", PT2_ERR_NOT_FOUND, ""},
        {"data/aotinductor//empty-name", PT2_ERR_NOT_FOUND, ""},
        {"data/aotinductor/", PT2_ERR_NOT_FOUND, ""},
        {"data/aotinductorx/m/x", PT2_ERR_NOT_FOUND, ""},
        {"pkg/data/aotinductor/model/x.so", PT2_ERR_NOT_FOUND, ""},
        {"models/model.json", PT2_ERR_NOT_FOUND, ""},
    };
    char out[8];
    struct pt2_error err = {0};
    size_t k;

    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        ck_assert_int_eq(pt2_zip_layout_model_of(cases[k].rel, out, sizeof(out), &err),
                         cases[k].rc);
        ck_assert_str_eq(out, cases[k].model);
        ck_assert_str_eq(err.message, "");
    }
    /* seven bytes fit in eight; eight do not, and the message names the entry */
    ck_assert_int_eq(pt2_zip_layout_model_of("data/aotinductor/abcdefg/x", out, sizeof(out), &err),
                     PT2_OK);
    ck_assert_str_eq(out, "abcdefg");
    ck_assert_int_eq(pt2_zip_layout_model_of("data/aotinductor/abcdefgh/x", out, sizeof(out), &err),
                     PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(err.code, PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message,
                     "data/aotinductor/abcdefgh/x: model folder name is 8 bytes (cap 7)");
    /* without an error object, as pt2_inspect calls it */
    ck_assert_int_eq(pt2_zip_layout_model_of("data/aotinductor/abcdefgh/x", out, sizeof(out), NULL),
                     PT2_ERR_TOO_LARGE);
}
END_TEST

/* Model folders: matched with the slash, first-seen order, files beside them ignored. */
START_TEST(test_models_with_slash)
{
    static const struct zt_ent ents[] = {
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
    char found[4][PT2_NAME_MAX];
    pt2_zip *z;

    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/m.pt2", dir);
    zt_make_zip(path, ents, sizeof(ents) / sizeof(ents[0]), ZIP_CM_STORE);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    ck_assert_str_eq(pt2_zip_prefix(z), "pkg/");
    ck_assert_uint_eq(models_of(z, found, 4), 2);
    ck_assert_str_eq(found[0], "model2");
    ck_assert_str_eq(found[1], "model");
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), PT2_OK);
    ck_assert_int_eq(l.zip64, 0);
    pt2_zip_free(z);
    zt_rm_dir(dir);
}
END_TEST

struct prefix_case {
    struct zt_ent ents[3];
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
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/p.pt2", dir);
    zt_make_zip(path, c->ents, n, ZIP_CM_STORE);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    ck_assert_str_eq(pt2_zip_prefix(z), c->prefix);
    ck_assert_str_eq(pt2_zip_relname(z, 0), c->ents[0].name + strlen(c->prefix));
    pt2_zip_free(z);
    zt_rm_dir(dir);
}
END_TEST

struct pt2_case {
    struct zt_ent ents[3];
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
    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/f.pt2", dir);
    zt_make_zip(path, c->ents, n, ZIP_CM_DEFLATE);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    ck_assert_int_eq(pt2_zip_layout(z, &l, &err), c->rc);
    ck_assert_str_eq(err.message, c->message);
    /* the facts are filled in either way */
    ck_assert_str_eq(l.archive_format, c->archive_format);
    ck_assert_str_eq(l.legacy_version, c->legacy_version);
    ck_assert_uint_eq(l.entries, n);
    ck_assert_int_eq(l.generation, 1);
    pt2_zip_free(z);
    zt_rm_dir(dir);
}
END_TEST

/* ---- errors ------------------------------------------------------------ */

START_TEST(test_broken_no_archive_format)
{
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    pt2_zip *z = zt_open_fixture("broken_no_archive_format.pt2");

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

/* Model-folder caps, applied while the archive opens (pt2_zip asks this module). */
START_TEST(test_caps_models)
{
    char dir[256], path[512], model[300];
    struct zt_ent ents[258];
    static char names[257][48], found[257][PT2_NAME_MAX];
    struct pt2_error err = {0};
    pt2_zip *z;
    size_t i;

    zt_tmp_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/c.pt2", dir);

    snprintf(model, sizeof(model), "data/aotinductor/%0200d/x.so", 7);
    ents[0].name = model;
    ents[0].data = "x";
    zt_make_zip(path, ents, 1, ZIP_CM_STORE);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TOO_LARGE);
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
    zt_make_zip(path, ents, 256, ZIP_CM_STORE);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_OK);
    ck_assert_uint_eq(models_of(z, found, 257), 256);
    ck_assert_str_eq(found[255], "m255");
    pt2_zip_free(z);
    zt_make_zip(path, ents, 257, ZIP_CM_STORE);
    ck_assert_int_eq(zt_open_tmp(path, &z, &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "more than 256 model folders under data/aotinductor/");
    unlink(path);
    zt_rm_dir(dir);
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
    char found[4][PT2_NAME_MAX];
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
    ck_assert_uint_eq(models_of(z, found, 4), 0);
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
    char found[4][PT2_NAME_MAX];
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
    ck_assert_uint_eq(models_of(z, found, 4), 1);
    ck_assert_str_eq(found[0], "model");
    /* Mach-O 64-bit magic of the macOS wrapper .so, read in place */
    ck_assert_int_eq(pt2_zip_entry_open(z, zt_find_suffix(z, ".wrapper.so"), &e, &err), PT2_OK);
    ck_assert_int_eq(pt2_rd_read(pt2_zip_entry_rd(e), 0, magic, 4, &err), PT2_OK);
    ck_assert_uint_eq(pt2_le32(magic), 0xfeedfacfu);
    pt2_zip_entry_free(e);
    ck_assert_uint_le(pt2_zip_bytes_read(z), TAIL_AND_TWO_WINDOWS);
    pt2_zip_free(z);
}
END_TEST

START_TEST(test_corpus_mlcolvar)
{
    struct pt2_error err = {0};
    struct pt2_zip_layout l;
    char *tail = NULL;
    size_t n = 0;
    char found[4][PT2_NAME_MAX];
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
    ck_assert_uint_eq(models_of(z, found, 4), 1);
    ck_assert_str_eq(found[0], "model");
    ck_assert_int_eq(pt2_zip_read_tail(z, zt_find_suffix(z, ".wrapper.cpp"), 4096, &tail, &n, &err),
                     PT2_OK);
    ck_assert_uint_eq(n, 4096);
    ck_assert_ptr_nonnull(strstr(tail, "// Compile cmd\n// g++ "));
    ck_assert_ptr_nonnull(strstr(tail, "-D CPU_CAPABILITY_AVX512"));
    free(tail);
    ck_assert_uint_le(pt2_zip_bytes_read(z), TAIL_AND_TWO_WINDOWS);
    pt2_zip_free(z);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("zip_layout");
    TCase *tc = tcase_create("layout");
    TCase *te = tcase_create("errors");
    TCase *tx = tcase_create("corpus");

    tcase_add_loop_test(tc, test_layout_fixture, 0, sizeof(layouts) / sizeof(layouts[0]));
    tcase_add_test(tc, test_model_of);
    tcase_add_test(tc, test_models_with_slash);
    tcase_add_loop_test(tc, test_prefix_rules, 0, sizeof(prefix_cases) / sizeof(prefix_cases[0]));
    tcase_add_loop_test(tc, test_is_pt2_rules, 0, sizeof(pt2_cases) / sizeof(pt2_cases[0]));
    suite_add_tcase(s, tc);

    tcase_add_test(te, test_broken_no_archive_format);
    tcase_add_test(te, test_caps_models);
    tcase_set_timeout(te, 60);
    suite_add_tcase(s, te);

    tcase_add_test(tx, test_corpus_executorch_linear);
    tcase_add_test(tx, test_corpus_executorch_preprocess);
    tcase_add_test(tx, test_corpus_mlcolvar);
    suite_add_tcase(s, tx);
    return tu_run_suite(s);
}

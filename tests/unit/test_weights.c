/*
 * test_weights.c - pt2_weights: the configs and blobs torch writes for weights
 * outside the library, against a fake archive (a table of entry sizes).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "pt2_weights.h"
#include "testutil.h"

struct fake {
    const char *const *names;
    const uint64_t *sizes;
    size_t n;
    char said[8][512];
    size_t nsaid;
};

static int fake_stat(void *ctx, const char *rel, uint64_t *size)
{
    struct fake *f = ctx;

    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->names[i], rel) == 0) {
            *size = f->sizes[i];
            return 1;
        }
    return 0;
}

static void fake_warn(void *ctx, const char *msg)
{
    struct fake *f = ctx;

    if (f->nsaid < 8)
        snprintf(f->said[f->nsaid++], sizeof(f->said[0]), "%s", msg);
}

static struct pt2_weights fresh(void)
{
    struct pt2_weights w = {0};

    w.bytes = w.declared = -1;
    return w;
}

START_TEST(test_pickle_config)
{
    static const char *const names[] = {"data/weights/weight_0", "data/weights/weight_2"};
    static const uint64_t sizes[] = {1000, 24};
    struct fake f = {names, sizes, 2, {{0}}, 0};
    struct pt2_weights_sink s = {fake_stat, fake_warn, &f};
    struct pt2_weights w = fresh();
    struct pt2_error err = {0};
    const char *cfg = "{\"a\": [\"weight_0\", [4], [1], 0], \"b\": [\"weight_1\", [2], [1], 0],"
                      " \"c\": [\"weight_0\", [4], [1], 16], \"d\": [\"weight_2\", [], [], 0]}";

    ck_assert_int_eq(pt2_weights_pickle(&w, cfg, strlen(cfg), "m/weights_config.json", &s, &err),
                     PT2_OK);
    ck_assert_str_eq(pt2_weights_where_name(w.where), "pickle-files");
    ck_assert_uint_eq(w.entries, 3); /* weight_0 counted once */
    ck_assert_int_eq(w.bytes, 1024);
    ck_assert_uint_eq(w.missing, 1);
    ck_assert_uint_eq(f.nsaid, 1);
    ck_assert_str_eq(f.said[0], "m/weights_config.json names data/weights/weight_1, which the "
                                "package does not contain");
}
END_TEST

START_TEST(test_pickle_config_refused)
{
    struct fake f = {NULL, NULL, 0, {{0}}, 0};
    struct pt2_weights_sink s = {fake_stat, fake_warn, &f};
    struct pt2_weights w = fresh();
    struct pt2_error err = {0};
    static const char *const bad[] = {
        "[1, 2]", "{\"a\": \"weight_0\"}", "{\"a\": [\"../x\"]}", "{\"a\": [\"x/y\"]}", "{\"a\": [",
        ""};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        w = fresh();
        ck_assert_int_eq(pt2_weights_pickle(&w, bad[i], strlen(bad[i]), "c.json", &s, &err),
                         PT2_ERR_METADATA);
        ck_assert_uint_eq(w.missing, 0);
    }
    ck_assert_uint_eq(f.nsaid, 0);
}
END_TEST

START_TEST(test_payload_config)
{
    static const char *const names[] = {"data/weights/weight_0", "data/weights/weight_1",
                                        "data/weights/weight_2"};
    static const uint64_t sizes[] = {120, 0, 10};
    struct fake f = {names, sizes, 3, {{0}}, 0};
    struct pt2_weights_sink s = {fake_stat, fake_warn, &f};
    struct pt2_weights w = fresh();
    struct pt2_error err = {0};
    /* float32 [10,3] = 120 bytes; a 0-byte record is "all zeros"; int64 [2] = 16 != 10 */
    const char *cfg = "{\"config\": {"
                      "\"w\": {\"path_name\": \"weight_0\", \"tensor_meta\": {\"dtype\": 7, "
                      "\"sizes\": [{\"as_int\": 10}, {\"as_int\": 3}]}},"
                      "\"z\": {\"path_name\": \"weight_1\", \"tensor_meta\": {\"dtype\": 7, "
                      "\"sizes\": [{\"as_int\": 4}]}},"
                      "\"i\": {\"path_name\": \"weight_2\", \"tensor_meta\": {\"dtype\": 5, "
                      "\"sizes\": [{\"as_int\": 2}]}}}}";

    ck_assert_int_eq(pt2_weights_payload(&w, cfg, strlen(cfg), "data/weights/m_weights_config.json",
                                         "data/weights/", &s, &err),
                     PT2_OK);
    ck_assert_str_eq(pt2_weights_where_name(w.where), "payload-files");
    ck_assert_uint_eq(w.entries, 3);
    ck_assert_int_eq(w.bytes, 130);
    ck_assert_int_eq(w.declared, 120 + 16 + 16);
    ck_assert_uint_eq(f.nsaid, 1);
    ck_assert_str_eq(f.said[0], "data/weights/m_weights_config.json: data/weights/weight_2 holds "
                                "10 bytes, its tensor_meta declares 16");
}
END_TEST

START_TEST(test_payload_symbolic_size_declares_nothing)
{
    static const char *const names[] = {"data/constants/tensor_0"};
    static const uint64_t sizes[] = {8};
    struct fake f = {names, sizes, 1, {{0}}, 0};
    struct pt2_weights_sink s = {fake_stat, fake_warn, &f};
    struct pt2_weights w = fresh();
    struct pt2_error err = {0};
    const char *cfg = "{\"config\": {\"t\": {\"path_name\": \"tensor_0\", \"tensor_meta\": "
                      "{\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"s0\"}}]}}}}";

    ck_assert_int_eq(
        pt2_weights_payload(&w, cfg, strlen(cfg), "c.json", "data/constants/", &s, &err), PT2_OK);
    ck_assert_int_eq(w.bytes, 8);
    ck_assert_int_eq(w.declared, -1);
    ck_assert_uint_eq(f.nsaid, 0);
}
END_TEST

START_TEST(test_blob_and_finish)
{
    struct fake f = {NULL, NULL, 0, {{0}}, 0};
    struct pt2_weights_sink s = {fake_stat, fake_warn, &f};
    struct pt2_weights w = fresh();

    pt2_weights_blob(&w, "m/x.wrapper_weights.blob", 0, &s);
    ck_assert_str_eq(pt2_weights_where_name(w.where), "binary-blob");
    ck_assert_int_eq(w.bytes, 0);
    ck_assert_str_eq(f.said[0], "m/x.wrapper_weights.blob is empty: the model's weights blob "
                                "holds no bytes");
    w.declared = 4096;
    pt2_weights_finish(&w, 1, 3, "model", &s);
    ck_assert_str_eq(pt2_weights_where_name(w.where), "binary-blob");
    ck_assert_uint_eq(f.nsaid, 2);
    ck_assert_str_eq(f.said[1], "model 'model': its weights (0 bytes stored) are smaller than "
                                "the 4096 bytes its constants declare");

    w = fresh();
    pt2_weights_finish(&w, 1, 3, "model", &s);
    ck_assert_str_eq(pt2_weights_where_name(w.where), "in-library");
    ck_assert_uint_eq(w.entries, 3);
    ck_assert_int_eq(w.bytes, -1);
    w = fresh();
    pt2_weights_finish(&w, 0, 3, "model", &s);
    ck_assert_str_eq(pt2_weights_where_name(w.where), "none");
    ck_assert_int_eq(w.bytes, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("weights");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_pickle_config);
    tcase_add_test(tc, test_pickle_config_refused);
    tcase_add_test(tc, test_payload_config);
    tcase_add_test(tc, test_payload_symbolic_size_declares_nothing);
    tcase_add_test(tc, test_blob_and_finish);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

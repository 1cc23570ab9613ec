/*
 * test_listing.c - listing items (pt2_listing_item, pt2_listing_targets,
 * pt2_listing_item_ok): the targets short form of every kind of package,
 * the item's members, verdicts for targets, and problem items.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2scope.h"
#include "testutil.h"

static pt2_package *open_fixture(const char *name)
{
    struct pt2_error err = {0};
    pt2_package *pkg = NULL;
    char p[256];

    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture(name, p, sizeof(p)), NULL, &err),
                     PT2_OK);
    return pkg;
}

static const char *short_form(const char *fixture, char *buf, size_t len)
{
    pt2_package *pkg = open_fixture(fixture);

    pt2_listing_targets(pkg, buf, len);
    pt2_package_free(pkg);
    return buf;
}

START_TEST(test_targets_short_form)
{
    char b[PT2_LISTING_TARGETS_TEXT_MAX];

    ck_assert_str_eq(short_form("cuda_sm90a_v8.pt2", b, sizeof(b)), "sm_90a");
    ck_assert_str_eq(short_form("multi_model.pt2", b, sizeof(b)), "sm_90a, sm_80");
    /* PTX beside SASS of the same architecture is "+PTX"; lone PTX is compute_XY. */
    ck_assert_str_eq(short_form("cuda_fatbin_multi.pt2", b, sizeof(b)),
                     "sm_75, sm_80, sm_90a, sm_100f, sm_120+PTX, compute_90");
    ck_assert_str_eq(short_form("cuda_fatbin_v7_lz4.pt2", b, sizeof(b)),
                     "sm_75, sm_90+PTX, sm_90a+PTX");
    ck_assert_str_eq(short_form("cuda_embedded.pt2", b, sizeof(b)),
                     "sm_80, sm_90a, sm_100f, sm_120+PTX");
    ck_assert_str_eq(short_form("rocm_gfx90a.pt2", b, sizeof(b)), "gfx90a:xnack-");
    ck_assert_str_eq(short_form("xpu_spv.pt2", b, sizeof(b)), "spirv");
    /* No GPU kernels: the host code and the ISA it needs. */
    ck_assert_str_eq(short_form("cpu_x86_64.pt2", b, sizeof(b)), "cpu x86_64 AVX-512");
    ck_assert_str_eq(short_form("cpu_avx2_cmd.pt2", b, sizeof(b)), "cpu x86_64 AVX2");
    ck_assert_str_eq(short_form("cpu_aarch64.pt2", b, sizeof(b)), "cpu aarch64 NEON");
    ck_assert_str_eq(short_form("multi_wrapper.pt2", b, sizeof(b)), "cpu x86_64 AVX-512");
    /* Nothing compiled at all. */
    ck_assert_str_eq(short_form("export_program.pt2", b, sizeof(b)), "");
    /* A small buffer truncates, never overflows. */
    ck_assert_str_eq(short_form("cuda_fatbin_multi.pt2", b, 12), "sm_75, sm_8");
}
END_TEST

static cJSON *item_of(const char *fixture, const struct pt2_listing_target *t, size_t n)
{
    struct pt2_listing_file f = {fixture, 1, 1234, 1700000000};
    struct pt2_error err = {0};
    pt2_package *pkg = open_fixture(fixture);
    cJSON *item = NULL;

    ck_assert_int_eq(pt2_listing_item(&f, pkg, NULL, t, n, &item, &err), PT2_OK);
    pt2_package_free(pkg);
    return item;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    ck_assert_msg(cJSON_IsNumber(v), "%s is not a number", key);
    return v->valuedouble;
}

static int is_null(const cJSON *o, const char *key)
{
    return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, key));
}

START_TEST(test_item_members)
{
    cJSON *item = item_of("cuda_sm90a_v8.pt2", NULL, 0);
    char *s = cJSON_PrintUnformatted(item);

    /* Exactly these members, in this order: the listing's and scan's shape. */
    ck_assert_str_eq(s, "{\"name\":\"cuda_sm90a_v8.pt2\",\"size\":1234,"
                        "\"mtime\":\"2023-11-14T22:13:20Z\",\"kind\":\"aoti\",\"device\":\"cuda\","
                        "\"targets\":\"sm_90a\",\"models\":1}");
    ck_assert(pt2_listing_item_ok(item));
    cJSON_free(s);
    cJSON_Delete(item);

    item = item_of("rocm_gfx90a.pt2", NULL, 0);
    ck_assert_str_eq(pt2_json_str(item, "device"), "rocm");
    ck_assert_str_eq(pt2_json_str(item, "targets"), "gfx90a:xnack-");
    cJSON_Delete(item);

    item = item_of("multi_model.pt2", NULL, 0);
    ck_assert_int_eq((int)num(item, "models"), 2);
    ck_assert_str_eq(pt2_json_str(item, "device"), "cuda");
    cJSON_Delete(item);

    item = item_of("cpu_s390x.pt2", NULL, 0);
    ck_assert_str_eq(pt2_json_str(item, "device"), "cpu");
    ck_assert_str_eq(pt2_json_str(item, "targets"), "cpu s390x z/Architecture vector");
    cJSON_Delete(item);

    /* An exported program only: nothing compiled, so no device and no targets. */
    item = item_of("export_program.pt2", NULL, 0);
    ck_assert_str_eq(pt2_json_str(item, "kind"), "exported-program");
    ck_assert(is_null(item, "device"));
    ck_assert(is_null(item, "targets"));
    ck_assert_int_eq((int)num(item, "models"), 0);
    ck_assert(pt2_listing_item_ok(item));
    cJSON_Delete(item);
}
END_TEST

/* An item's size and mtime set again from another stat, in place, the rest untouched. */
START_TEST(test_item_stat)
{
    const struct pt2_listing_file later = {"ignored", 1, 99, 1796410500}, none = {"x", 0, 5, 7};
    struct pt2_error err = {0};
    cJSON *item = item_of("cuda_sm90a_v8.pt2", NULL, 0), *arr = cJSON_CreateArray();
    char *s;

    ck_assert_int_eq(pt2_listing_item_stat(item, &later, &err), PT2_OK);
    s = cJSON_PrintUnformatted(item);
    ck_assert_str_eq(s, "{\"name\":\"cuda_sm90a_v8.pt2\",\"size\":99,"
                        "\"mtime\":\"2026-12-04T18:55:00Z\",\"kind\":\"aoti\",\"device\":\"cuda\","
                        "\"targets\":\"sm_90a\",\"models\":1}");
    cJSON_free(s);
    /* unknown: both null, as a new item for that file says */
    ck_assert_int_eq(pt2_listing_item_stat(item, &none, &err), PT2_OK);
    ck_assert(is_null(item, "size"));
    ck_assert(is_null(item, "mtime"));
    ck_assert_int_eq(cJSON_GetArraySize(item), 7);
    /* an item without them gets them */
    cJSON_DeleteItemFromObjectCaseSensitive(item, "size");
    cJSON_DeleteItemFromObjectCaseSensitive(item, "mtime");
    ck_assert_int_eq(pt2_listing_item_stat(item, &later, &err), PT2_OK);
    ck_assert_int_eq((int)num(item, "size"), 99);
    ck_assert_str_eq(pt2_json_str(item, "mtime"), "2026-12-04T18:55:00Z");
    ck_assert_int_eq(pt2_listing_item_stat(NULL, &later, &err), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_listing_item_stat(arr, &later, &err), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_listing_item_stat(item, NULL, &err), PT2_ERR_INVALID);
    cJSON_Delete(arr);
    cJSON_Delete(item);
}
END_TEST

static struct pt2_listing_target target(const char *label)
{
    struct pt2_listing_target t;
    struct pt2_error err = {0};

    memset(&t, 0, sizeof(t));
    t.label = label;
    ck_assert_int_eq(pt2_target_parse(label, &t.dev, &err), PT2_OK);
    return t;
}

START_TEST(test_item_verdicts)
{
    struct pt2_listing_target t[2] = {target("H100"), target("B200")};
    cJSON *item = item_of("cuda_sm90a_v8.pt2", t, 2), *v;
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(item, "overall");

    v = cJSON_GetObjectItemCaseSensitive(item, "verdicts");
    ck_assert_int_eq(cJSON_GetArraySize(v), 2);
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(v, 0), "target"), "H100");
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(v, 0), "verdict"), "compatible");
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(v, 1), "target"), "B200");
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(v, 1), "verdict"), "incompatible");
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(v, 1), "reason"),
                     "kernels are sm_90a only; NVIDIA B200 is 10.0");
    ck_assert_str_eq(pt2_json_str(cJSON_GetArrayItem(v, 1), "code"), "arch-mismatch");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetArrayItem(v, 1)), 4);
    ck_assert_str_eq(pt2_json_str(ov, "verdict"), "incompatible");
    ck_assert_str_eq(pt2_json_str(ov, "reason"),
                     "B200: kernels are sm_90a only; NVIDIA B200 is 10.0");
    ck_assert(!pt2_listing_item_ok(item));
    cJSON_Delete(item);

    /* PTX JIT is a way to run: the item is fine. */
    t[0] = target("B200");
    item = item_of("cuda_fatbin_v7_lz4.pt2", t, 1);
    ov = cJSON_GetObjectItemCaseSensitive(item, "overall");
    ck_assert_str_eq(pt2_json_str(ov, "verdict"), "compatible-ptx-jit");
    ck_assert(pt2_listing_item_ok(item));
    cJSON_Delete(item);

    /* A CPU package needs no GPU: compatible with any GPU target. */
    item = item_of("cpu_x86_64.pt2", t, 1);
    ck_assert_str_eq(pt2_json_str(cJSON_GetObjectItemCaseSensitive(item, "overall"), "verdict"),
                     "compatible");
    cJSON_Delete(item);
}
END_TEST

START_TEST(test_problem_items)
{
    struct pt2_listing_file f = {"team/broken.pt2", 0, 0, 0};
    struct pt2_error open_err = {0}, err = {0};
    struct pt2_listing_target t = target("H100");
    pt2_package *pkg = NULL;
    cJSON *item = NULL;
    char *s;
    char p[256];

    /* Did not open: the problem document of that error, no instance, no summary. */
    ck_assert_int_eq(pt2_package_open_path(&pkg, tu_fixture("broken_not_zip.pt2", p, sizeof(p)),
                                           NULL, &open_err),
                     PT2_ERR_NOT_ZIP);
    ck_assert_int_eq(pt2_listing_item(&f, NULL, &open_err, &t, 1, &item, &err), PT2_OK);
    s = cJSON_PrintUnformatted(item);
    ck_assert_str_eq(s, "{\"name\":\"team/broken.pt2\",\"size\":null,\"mtime\":null,"
                        "\"type\":\"https://pt2scope.dev/problems/not-a-zip\","
                        "\"title\":\"The file is not a zip archive\",\"status\":422,"
                        "\"detail\":\"not a zip archive (no end-of-central-directory record)\"}");
    ck_assert(!pt2_listing_item_ok(item));
    cJSON_free(s);
    cJSON_Delete(item);

    /* Opened, but its AOTI metadata is invalid: /v1/inspect refuses it, so the item is a
     * problem (bad user metadata is only a warning). */
    item = item_of("broken_bad_aoti_json.pt2", &t, 1);
    ck_assert_str_eq(pt2_json_str(item, "type"), "https://pt2scope.dev/problems/metadata-invalid");
    ck_assert_int_eq((int)num(item, "status"), 422);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(item, "targets"));
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(item, "overall"));
    ck_assert_str_eq(pt2_json_str(item, "mtime"), "2023-11-14T22:13:20Z");
    ck_assert(!pt2_listing_item_ok(item));
    cJSON_Delete(item);

    /* Missing arguments are the caller's mistake. */
    ck_assert_int_eq(pt2_listing_item(&f, NULL, NULL, NULL, 0, &item, &err), PT2_ERR_INVALID);
    ck_assert_ptr_null(item);
    ck_assert(!pt2_listing_item_ok(NULL));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("listing");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_targets_short_form);
    tcase_add_test(tc, test_item_members);
    tcase_add_test(tc, test_item_verdicts);
    tcase_add_test(tc, test_problem_items);
    tcase_add_test(tc, test_item_stat);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}

/*
 * test_pt2d_compat.c - device JSON and verdict entries.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_compat.h"
#include "testutil.h"

START_TEST(test_device_json)
{
    struct pt2_device d = {9, 0, 12040, "NVIDIA H100", ""};
    struct pt2_device none = {0, 0, 0, "cpu only", ""};
    struct pt2_device amd = {0, 0, 0, "MI250", "gfx90a"};
    char *s;
    cJSON *j;

    j = pt2d_compat_device_json(&d);
    s = cJSON_PrintUnformatted(j);
    ck_assert_str_eq(s, "{\"name\":\"NVIDIA H100\",\"compute_capability\":\"9.0\",\"gfx\":null,"
                        "\"driver_cuda_version\":12040}");
    free(s);
    cJSON_Delete(j);
    j = pt2d_compat_device_json(&none);
    s = cJSON_PrintUnformatted(j);
    ck_assert_str_eq(s, "{\"name\":\"cpu only\",\"compute_capability\":null,\"gfx\":null,"
                        "\"driver_cuda_version\":null}");
    free(s);
    cJSON_Delete(j);
    j = pt2d_compat_device_json(&amd);
    s = cJSON_PrintUnformatted(j);
    ck_assert_str_eq(s, "{\"name\":\"MI250\",\"compute_capability\":null,\"gfx\":\"gfx90a\","
                        "\"driver_cuda_version\":null}");
    free(s);
    cJSON_Delete(j);
}
END_TEST

START_TEST(test_append_matches_library)
{
    struct pt2_error err = {0};
    struct pt2_device dev = {0};
    struct pt2_verdict_result v;
    pt2_package *pkg = NULL;
    cJSON *arr = cJSON_CreateArray(), *e;
    char p[256];

    if (!tu_exists(tu_fixture("cuda_fatbin_multi.pt2", p, sizeof(p)))) {
        tu_skip("pt2d_compat", "fixture cuda_fatbin_multi.pt2 missing");
        cJSON_Delete(arr);
        return;
    }
    ck_assert_int_eq(pt2_package_open_path(&pkg, p, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2_target_parse("A100", &dev, &err), PT2_OK);
    ck_assert_int_eq(pt2_package_check_device(pkg, &dev, &v, &err), PT2_OK);
    ck_assert_int_eq(pt2d_compat_append(arr, pkg, "target", "my A100", &dev, NULL, &err), PT2_OK);
    ck_assert_int_eq(pt2d_compat_append(arr, pkg, "gpu", "again", &dev, cJSON_CreateObject(), &err),
                     PT2_OK);
    ck_assert_int_eq(cJSON_GetArraySize(arr), 2);
    e = cJSON_GetArrayItem(arr, 0);
    ck_assert_str_eq(cJSON_GetObjectItem(e, "target")->valuestring, "my A100");
    ck_assert_str_eq(cJSON_GetObjectItem(e, "kind")->valuestring, "target");
    ck_assert_str_eq(cJSON_GetObjectItem(e, "verdict")->valuestring, pt2_verdict_name(v.verdict));
    ck_assert_str_eq(cJSON_GetObjectItem(e, "reason")->valuestring, v.reason);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "device"), "name")->valuestring,
                     dev.name);
    /* A device document passed in is the entry's device. */
    e = cJSON_GetArrayItem(arr, 1);
    ck_assert_str_eq(cJSON_GetObjectItem(e, "kind")->valuestring, "gpu");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(e, "device")), 0);
    cJSON_Delete(arr);
    pt2_package_free(pkg);
}
END_TEST

START_TEST(test_add_entry_shape)
{
    struct pt2_verdict_result res = {PT2_COMPATIBLE_PTX_JIT, "PTX only"};
    cJSON *arr = cJSON_CreateArray(), *dev = cJSON_CreateObject();
    struct pt2_error err = {0};
    char *s;

    cJSON_AddStringToObject(dev, "name", "Xeon");
    ck_assert_int_eq(pt2d_compat_add(arr, "cpu", "cpu", dev, &res, &err), PT2_OK);
    s = cJSON_PrintUnformatted(arr);
    ck_assert_str_eq(s, "[{\"target\":\"cpu\",\"kind\":\"cpu\",\"device\":{\"name\":\"Xeon\"},"
                        "\"verdict\":\"compatible-ptx-jit\",\"reason\":\"PTX only\"}]");
    free(s);
    /* A missing device is out of memory upstream: reported, nothing added. */
    ck_assert_int_eq(pt2d_compat_add(arr, "cpu", "cpu", NULL, &res, &err), PT2_ERR_NOMEM);
    ck_assert_int_eq(cJSON_GetArraySize(arr), 1);
    cJSON_Delete(arr);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_compat");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_device_json);
    tcase_add_test(tc, test_append_matches_library);
    tcase_add_test(tc, test_add_entry_shape);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

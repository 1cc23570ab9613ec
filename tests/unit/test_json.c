/*
 * test_json.c - the shared cJSON helpers: absent is null, strings only.
 */
#include <check.h>
#include <stdlib.h>

#include "pt2scope.h"
#include "testutil.h"

START_TEST(test_helpers)
{
    cJSON *o = cJSON_CreateObject();
    char *s;

    ck_assert(pt2_json_add_str_or_null(o, "a", "x"));
    ck_assert(pt2_json_add_str_or_null(o, "b", ""));
    ck_assert(pt2_json_add_str_or_null(o, "c", NULL));
    ck_assert(pt2_json_add_num_or_null(o, "d", 12040, 1));
    ck_assert(pt2_json_add_num_or_null(o, "e", 5, 0));
    s = cJSON_PrintUnformatted(o);
    ck_assert_str_eq(s, "{\"a\":\"x\",\"b\":null,\"c\":null,\"d\":12040,\"e\":null}");
    free(s);
    ck_assert_str_eq(pt2_json_str(o, "a"), "x");
    ck_assert_ptr_null(pt2_json_str(o, "b"));
    ck_assert_ptr_null(pt2_json_str(o, "d"));
    ck_assert_ptr_null(pt2_json_str(o, "zz"));
    ck_assert_ptr_null(pt2_json_str(NULL, "a"));
    cJSON_Delete(o);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_helpers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}

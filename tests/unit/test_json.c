/*
 * test_json.c - the shared cJSON helpers: absent is null, strings only.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const char *check(const char *text, size_t len, const struct pt2_json_limits *lim, char *buf,
                         size_t cap)
{
    struct pt2_error err = {0};
    int rc = pt2_json_check(text, len, lim, "doc", &err);

    snprintf(buf, cap, "%d %.200s", rc, rc == PT2_OK ? "ok" : err.message);
    return buf;
}

START_TEST(test_check_limits)
{
    static const struct pt2_json_limits lim = {64, 3, 8, 5};
    char b[256], big[100];

    ck_assert_str_eq(check("{\"ab\": [1, -2.5e3, true, null]}", 30, &lim, b, sizeof(b)), "0 ok");
    /* 8 values: 7 zeros and the array; the ninth value is refused where it starts. */
    ck_assert_str_eq(check("[0,0,0,0,0,0,0]", 15, &lim, b, sizeof(b)), "0 ok");
    ck_assert_str_eq(check("[0,0,0,0,0,0,0,0]", 17, &lim, b, sizeof(b)),
                     "-8 doc: more than 8 JSON values at byte 15");
    ck_assert_str_eq(check("[[[[1]]]]", 9, &lim, b, sizeof(b)),
                     "-8 doc: JSON nested deeper than 3 levels at byte 3");
    ck_assert_str_eq(check("[\"abcde\"]", 9, &lim, b, sizeof(b)), "0 ok");
    ck_assert_str_eq(check("[\"abcdef\"]", 10, &lim, b, sizeof(b)),
                     "-8 doc: a JSON string longer than 5 bytes at byte 7");
    memset(big, ' ', sizeof(big));
    ck_assert_str_eq(check(big, sizeof(big), &lim, b, sizeof(b)),
                     "-8 doc: 100 bytes of JSON (max 64)");
}
END_TEST

START_TEST(test_check_meaning)
{
    static const struct pt2_json_limits none = {0, 0, 0, 0};
    char b[256];

    /* cJSON would cut "a.pt2\u0000.txt" to "a.pt2": refused, raw or escaped. */
    ck_assert_str_eq(check("{\"path\": \"a.pt2\\u0000.txt\"}", 28, &none, b, sizeof(b)),
                     "-9 doc: \\u0000 (a NUL character) in a string at byte 15");
    ck_assert_str_eq(check("{\"p\": \"a\0b\"}", 12, &none, b, sizeof(b)),
                     "-9 doc: NUL byte at byte 8");
    ck_assert_str_eq(check("[\"\xC3\"]", 4, &none, b, sizeof(b)),
                     "-9 doc: invalid UTF-8 at byte 2");
    /* An escaped backslash before u0000 is text, not a NUL. */
    ck_assert_str_eq(check("[\"\\\\u0000\"]", 11, &none, b, sizeof(b)), "0 ok");
    ck_assert_str_eq(check("[\"\xC3\xA9\"]", 5, &none, b, sizeof(b)), "0 ok");
}
END_TEST

START_TEST(test_parse)
{
    static const struct pt2_json_limits lim = {1024, 8, 100, 100};
    struct pt2_error err = {0};
    cJSON *doc = NULL;

    ck_assert_int_eq(pt2_json_parse("\xEF\xBB\xBF {\"a\": 1} \n", 14, &lim, "b", &doc, &err),
                     PT2_OK);
    ck_assert(cJSON_IsObject(doc));
    cJSON_Delete(doc);
    ck_assert_int_eq(pt2_json_parse("{\"a\": 1} x", 10, &lim, "b", &doc, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "b: unexpected data after the JSON value at byte 9");
    ck_assert_ptr_null(doc);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_json_parse("  ", 2, &lim, "b", &doc, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "b: empty document");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_json_parse("{\"a\": }", 7, &lim, "b", &doc, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "b: invalid JSON near byte 6");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_helpers);
    tcase_add_test(tc, test_check_limits);
    tcase_add_test(tc, test_check_meaning);
    tcase_add_test(tc, test_parse);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}

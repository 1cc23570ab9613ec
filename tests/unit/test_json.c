/*
 * test_json.c - the shared cJSON helpers: absent is null, strings only.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2_budget.h"
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

/* Parse `text` as `what` on the current thread: "rc message" or "0 ok". */
static const char *parse(const char *text, const char *what, char *buf, size_t cap)
{
    static const struct pt2_json_limits none = {0, 0, 0, 0};
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    int rc = pt2_json_parse(text, strlen(text), &none, what, &doc, &err);

    cJSON_Delete(doc);
    snprintf(buf, cap, "%d %.300s", rc, rc == PT2_OK ? "ok" : err.message);
    return buf;
}

/* Every document of an inspection draws on one budget, counted in values and tree bytes. */
START_TEST(test_budget_values)
{
    struct pt2_budget bud;
    struct pt2_error err = {0};
    char b[512];

    ck_assert_ptr_null(pt2_budget_current());
    pt2_budget_begin(&bud);
    ck_assert_ptr_eq(pt2_budget_current(), &bud);
    ck_assert_uint_eq(bud.max_values, 500000);
    ck_assert_uint_eq(bud.max_bytes, 32u << 20);
    bud.max_values = 10;
    bud.max_bytes = 10000;
    ck_assert_str_eq(parse("[1,2,3]", "d1", b, sizeof(b)), "0 ok");
    ck_assert_uint_eq(bud.values, 4);
    ck_assert_uint_eq(bud.bytes, 4 * 80);
    /* 3 values, 2 of them strings of 3 bytes as counted (the opening quote and 2) */
    ck_assert_str_eq(parse("{\"ab\": \"cd\"}", "d2", b, sizeof(b)), "0 ok");
    ck_assert_uint_eq(bud.values, 7);
    ck_assert_uint_eq(bud.bytes, 4 * 80 + 3 * 80 + 2 * 24 + 6);
    ck_assert_uint_eq(pt2_budget_cost(3, 2, 6), 3 * 80 + 2 * 24 + 6);
    ck_assert_int_eq(pt2_budget_spent(), 0);
    ck_assert_uint_eq(bud.parsed, 2);
    /* 3 values left: the fourth, at byte 5, is refused and the budget is spent */
    ck_assert_str_eq(parse("[0,0,0,0]", "d3", b, sizeof(b)),
                     "-8 d3: not parsed, over the inspection's JSON budget (10 values, 10000 "
                     "bytes of parse tree) at byte 5");
    ck_assert_int_eq(pt2_budget_spent(), 1);
    ck_assert_str_eq(bud.spent_by, "d3");
    ck_assert_uint_eq(bud.values, 7);
    /* everything after is refused unread, even a document that would fit */
    ck_assert_str_eq(parse("1", "d4", b, sizeof(b)),
                     "-8 d4: not parsed, the inspection's JSON budget was spent by d3");
    ck_assert_int_eq(pt2_budget_admit("d5", &err), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "d5: not parsed, the inspection's JSON budget was spent by d3");
    ck_assert_uint_eq(bud.refused, 3);
    ck_assert_uint_eq(bud.parsed, 2);
    pt2_budget_end(&bud);
    /* no budget: only the document's own limits */
    ck_assert_ptr_null(pt2_budget_current());
    ck_assert_int_eq(pt2_budget_spent(), 0);
    ck_assert_int_eq(pt2_budget_admit("d6", &err), PT2_OK);
    ck_assert_str_eq(parse("[0,0,0,0,0,0,0,0,0,0,0,0]", "d6", b, sizeof(b)), "0 ok");
}
END_TEST

START_TEST(test_budget_bytes)
{
    struct pt2_budget outer, inner;
    char b[512];

    pt2_budget_begin(&outer);
    pt2_budget_begin(&inner);
    inner.max_bytes = 2u << 20;
    /* ["xxx...", ...]: 80 for the array, 185 per 80-byte string (80 + 24 + the quote and 80
     * bytes): 11,335 strings fit in 2 MiB, the next is refused at its quote, byte
     * 1 + 11335 * 83, long before the values run out */
    {
        size_t n = 30000, len = 1 + n * 83 + 1;
        char *t = malloc(len + 1), *p = t;

        *p++ = '[';
        for (size_t i = 0; i < n; i++) {
            *p++ = '"';
            memset(p, 'x', 80);
            p += 80;
            *p++ = '"';
            *p++ = i + 1 < n ? ',' : ']';
        }
        *p = '\0';
        ck_assert_str_eq(parse(t, "big", b, sizeof(b)),
                         "-8 big: not parsed, over the inspection's JSON budget (500000 values, "
                         "2 MiB of parse tree) at byte 940806");
        free(t);
    }
    ck_assert_uint_eq(inner.peak, 1 + 30000 * 83); /* a refused text counts too */
    pt2_budget_end(&inner);
    /* the outer budget is current again, untouched */
    ck_assert_ptr_eq(pt2_budget_current(), &outer);
    ck_assert_int_eq(pt2_budget_spent(), 0);
    ck_assert_str_eq(parse("[\"ok\"]", "small", b, sizeof(b)), "0 ok");
    ck_assert_uint_eq(outer.values, 2);
    pt2_budget_end(&outer);
    ck_assert_ptr_null(pt2_budget_current());
}
END_TEST

/* A reader's prefix: refused only for the budget, and nothing charged. */
START_TEST(test_budget_prefix)
{
    /* one document arriving: a cut UTF-8 sequence, a cut \u escape, then the 11th value */
    static const char doc[] = "\xEF\xBB\xBF[\"\xC3\xA9\\u0041\",0,0,0,0,0,0,0,0,0,0,0]";
    struct pt2_budget bud;
    struct pt2_json_scan s;
    struct pt2_error err = {0};
    char b[512];

    memset(&s, 0, sizeof(s));
    ck_assert_int_eq(pt2_budget_check_prefix(&s, doc, 12, "p", &err), PT2_OK); /* no budget */
    pt2_budget_begin(&bud);
    bud.max_values = 10;
    ck_assert_int_eq(pt2_budget_check_prefix(&s, doc, 6, "p", &err), PT2_OK);
    ck_assert_uint_eq(s.pos, 2); /* after the mark: at the cut sequence, 0xC3 */
    ck_assert_int_eq(pt2_budget_check_prefix(&s, doc, 9, "p", &err), PT2_OK);
    ck_assert_uint_eq(s.pos, 5); /* at the u of a \u escape whose digits are not there */
    ck_assert_int_eq(pt2_budget_check_prefix(&s, doc, 20, "p", &err), PT2_OK);
    ck_assert_uint_eq(s.pos, 17);
    ck_assert_uint_eq(s.values, 5);
    ck_assert_uint_eq(bud.values, 0); /* nothing charged */
    ck_assert_uint_eq(bud.parsed, 0);
    ck_assert_int_eq(pt2_budget_check_prefix(&s, doc, sizeof(doc) - 1, "p", &err),
                     PT2_ERR_TOO_LARGE);
    /* the array, the string, then zeros at 12, 14, ...: the 9th zero (the 11th value) */
    ck_assert_str_eq(err.message, "p: not parsed, over the inspection's JSON budget (10 values, "
                                  "32 MiB of parse tree) at byte 28");
    ck_assert_str_eq(bud.spent_by, "p");
    pt2_error_clear(&err);
    /* spent: the parse that follows refuses; the prefix check has nothing more to say */
    ck_assert_int_eq(pt2_budget_check_prefix(&s, doc, sizeof(doc) - 1, "p", &err), PT2_OK);
    pt2_budget_end(&bud);
    /* the same document parsed whole under a fresh budget: the same byte */
    pt2_budget_begin(&bud);
    bud.max_values = 10;
    ck_assert_str_eq(parse(doc, "p", b, sizeof(b)),
                     "-8 p: not parsed, over the inspection's JSON budget (10 values, 32 MiB of "
                     "parse tree) at byte 28");
    pt2_budget_end(&bud);
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
    tcase_add_test(tc, test_budget_values);
    tcase_add_test(tc, test_budget_bytes);
    tcase_add_test(tc, test_budget_prefix);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}

/*
 * test_num.c - the one checked integer parser: whole strings, no signs on
 * unsigned values, no blanks, no overflow.
 */
#include <check.h>
#include <stdint.h>

#include "pt2scope.h"
#include "testutil.h"

START_TEST(test_u64)
{
    static const char *bad[] = {"",
                                " 1",
                                "1 ",
                                "+1",
                                "-1",
                                "0x10",
                                "1.0",
                                "12a",
                                "18446744073709551616",
                                "99999999999999999999999"};
    uint64_t v = 7;
    size_t i;

    ck_assert_int_eq(pt2_num_u64("0", 10, &v), PT2_OK);
    ck_assert_uint_eq(v, 0);
    ck_assert_int_eq(pt2_num_u64("18446744073709551615", 10, &v), PT2_OK);
    ck_assert(v == UINT64_MAX);
    ck_assert_int_eq(pt2_num_u64("00042", 10, &v), PT2_OK);
    ck_assert_uint_eq(v, 42);
    ck_assert_int_eq(pt2_num_u64("ffFF", 16, &v), PT2_OK);
    ck_assert_uint_eq(v, 65535);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = 7;
        ck_assert_int_eq(pt2_num_u64(bad[i], 10, &v), PT2_ERR_INVALID);
        ck_assert_uint_eq(v, 7); /* untouched on failure */
    }
    ck_assert_int_eq(pt2_num_u64("12", 8, &v), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_num_u64(NULL, 10, &v), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_num_u64n("1234", 2, 10, &v), PT2_OK);
    ck_assert_uint_eq(v, 12);
    ck_assert_int_eq(pt2_num_u64n("1234", 0, 10, &v), PT2_ERR_INVALID);
}
END_TEST

START_TEST(test_prefix)
{
    static const char *bad[] = {"", " 1", "+1", "-1", ".5", "x1", "18446744073709551616,"};
    static const char text[] = "12.34";
    const char *end = text;
    const char *e;
    uint64_t v = 7;
    size_t i;

    ck_assert_int_eq(pt2_num_u64_prefix(text, 10, &v, &end), PT2_OK);
    ck_assert_uint_eq(v, 12);
    ck_assert_ptr_eq(end, text + 2);
    ck_assert_int_eq(pt2_num_u64_prefix(end + 1, 10, &v, &end), PT2_OK);
    ck_assert_uint_eq(v, 34);
    ck_assert_ptr_eq(end, text + 5);
    ck_assert_int_eq(pt2_num_u64_prefix("18446744073709551615x", 10, &v, &e), PT2_OK);
    ck_assert(v == UINT64_MAX);
    ck_assert_str_eq(e, "x");
    ck_assert_int_eq(pt2_num_u64_prefix("0", 10, &v, &e), PT2_OK);
    ck_assert_uint_eq(v, 0);
    ck_assert_str_eq(e, "");
    ck_assert_int_eq(pt2_num_u64_prefix("90a", 10, &v, &e), PT2_OK);
    ck_assert_uint_eq(v, 90);
    ck_assert_str_eq(e, "a");
    ck_assert_int_eq(pt2_num_u64_prefix("d4fg", 16, &v, &e), PT2_OK);
    ck_assert_uint_eq(v, 0xd4f);
    ck_assert_str_eq(e, "g");
    ck_assert_int_eq(pt2_num_u64_prefix("0x10", 16, &v, &e), PT2_OK); /* no "0x" handling */
    ck_assert_uint_eq(v, 0);
    ck_assert_str_eq(e, "x10");
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = 7;
        end = text;
        ck_assert_int_eq(pt2_num_u64_prefix(bad[i], 10, &v, &end), PT2_ERR_INVALID);
        ck_assert_uint_eq(v, 7); /* untouched on failure */
        ck_assert_ptr_eq(end, text);
    }
    ck_assert_int_eq(pt2_num_u64_prefix("12", 8, &v, &e), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_num_u64_prefix(NULL, 10, &v, &e), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_num_u64_prefix("1", 10, NULL, &e), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_num_u64_prefix("1", 10, &v, NULL), PT2_ERR_INVALID);
    ck_assert_uint_eq(v, 7);
}
END_TEST

START_TEST(test_signed)
{
    int64_t v = 0;
    long l = 0;

    ck_assert_int_eq(pt2_num_i64("-9223372036854775808", &v), PT2_OK);
    ck_assert(v == INT64_MIN);
    ck_assert_int_eq(pt2_num_i64("9223372036854775807", &v), PT2_OK);
    ck_assert(v == INT64_MAX);
    ck_assert_int_eq(pt2_num_i64("9223372036854775808", &v), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_num_i64("-", &v), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_num_i64("--1", &v), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_num_long("65535", 1, 65535, &l), PT2_OK);
    ck_assert_int_eq(l, 65535);
    ck_assert_int_eq(pt2_num_long("65536", 1, 65535, &l), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_num_long("0", 1, 65535, &l), PT2_ERR_INVALID);
    ck_assert_int_eq(l, 65535);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("num");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_u64);
    tcase_add_test(tc, test_prefix);
    tcase_add_test(tc, test_signed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}

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
    tcase_add_test(tc, test_signed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}

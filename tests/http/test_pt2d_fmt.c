/*
 * test_pt2d_fmt.c - decimal numbers by hand: the very bytes of printf's
 * "%0*llu" and "%lld", at every width, at every power of ten and its
 * neighbours, at the type limits and at random values.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_fmt.h"
#include "testutil.h"

/* Both forms of v, compared with printf's; a canary past the digits. */
static void check_uint(unsigned long long v)
{
    char got[PT2D_FMT_INT_MAX + 1], want[64];
    int width;

    for (width = 0; width <= PT2D_FMT_INT_MAX; width++) {
        size_t n;

        memset(got, '#', sizeof(got));
        n = pt2d_fmt_uint(got, v, width);
        snprintf(want, sizeof(want), "%0*llu", width, v);
        ck_assert_uint_eq(n, strlen(want));
        ck_assert_int_eq(memcmp(got, want, n), 0);
        ck_assert_int_eq(got[n], '#');
    }
}

static void check_int(long long v)
{
    char got[PT2D_FMT_INT_MAX + 1], want[64];
    size_t n;

    memset(got, '#', sizeof(got));
    n = pt2d_fmt_int(got, v);
    snprintf(want, sizeof(want), "%lld", v);
    ck_assert_uint_eq(n, strlen(want));
    ck_assert_int_eq(memcmp(got, want, n), 0);
    ck_assert_int_eq(got[n], '#');
}

START_TEST(test_powers_of_ten)
{
    unsigned long long p = 1;
    int i;

    check_uint(0);
    check_int(0);
    for (i = 0; i < 20; i++) {
        check_uint(p - 1);
        check_uint(p);
        check_uint(p + 1);
        if (p <= (unsigned long long)LLONG_MAX) {
            check_int((long long)p);
            check_int(-(long long)p);
            check_int((long long)p - 1);
            check_int(1 - (long long)p);
        }
        if (i < 19)
            p *= 10;
    }
}
END_TEST

START_TEST(test_limits)
{
    char got[PT2D_FMT_INT_MAX];

    check_uint(ULLONG_MAX);
    check_uint(ULLONG_MAX - 1);
    check_int(LLONG_MAX);
    check_int(LLONG_MIN);
    check_int(LLONG_MIN + 1);
    ck_assert_uint_eq(pt2d_fmt_uint(got, ULLONG_MAX, 0), PT2D_FMT_INT_MAX);
    ck_assert_uint_eq(pt2d_fmt_int(got, LLONG_MIN), PT2D_FMT_INT_MAX);
    /* a negative width is no padding, as printf's "%0*llu" */
    ck_assert_uint_eq(pt2d_fmt_uint(got, 7, -3), 1);
    ck_assert_int_eq(got[0], '7');
}
END_TEST

START_TEST(test_random)
{
    unsigned long long x = 0x9e3779b97f4a7c15ull;
    int i;

    for (i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        check_uint(x >> (i % 64));
        /* at most LLONG_MAX, so its negation is defined */
        check_int((i % 2 ? -1 : 1) * (long long)(x >> (1 + i % 63)));
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_fmt");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_powers_of_ten);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_random);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

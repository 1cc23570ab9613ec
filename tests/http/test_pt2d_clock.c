/*
 * test_pt2d_clock.c - "ms later" as a normalised timespec.
 */
#include <check.h>
#include <time.h>

#include "pt2d_clock.h"
#include "testutil.h"

START_TEST(test_add_ms)
{
    static const struct {
        time_t sec;
        long nsec;
        unsigned ms;
        time_t want_sec;
        long want_nsec;
    } cases[] = {
        {10, 0, 0, 10, 0},
        {10, 0, 1, 10, 1000000},
        {10, 0, 999, 10, 999000000},
        {10, 0, 1000, 11, 0},
        {10, 999999999, 1, 11, 999999},
        {10, 500000000, 500, 11, 0},
        {10, 500000000, 499, 10, 999000000},
        {10, 999000000, 10000, 20, 999000000},
        {0, 1, 4294967295u, 4294967, 295000001},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct timespec ts = {cases[i].sec, cases[i].nsec};
        pt2d_clock_add_ms(&ts, cases[i].ms);
        ck_assert_int_eq(ts.tv_sec, cases[i].want_sec);
        ck_assert_int_eq(ts.tv_nsec, cases[i].want_nsec);
    }
}
END_TEST

/* Later than the clock read just before, by at least `ms`, and normalised. */
START_TEST(test_after)
{
    struct timespec before, t;

    clock_gettime(CLOCK_MONOTONIC, &before);
    pt2d_clock_after(&t, CLOCK_MONOTONIC, 1500);
    ck_assert_int_ge(t.tv_nsec, 0);
    ck_assert_int_lt(t.tv_nsec, 1000000000L);
    ck_assert_int_ge((long long)(t.tv_sec - before.tv_sec) * 1000000000LL + t.tv_nsec -
                         before.tv_nsec,
                     1500000000LL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_clock");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_add_ms);
    tcase_add_test(tc, test_after);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

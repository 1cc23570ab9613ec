/*
 * test_sbuf.c - the bounded string builder: appends, truncation, zero size.
 */
#include <check.h>
#include <stdio.h>

#include "pt2_sbuf.h"
#include "testutil.h"

START_TEST(test_appends)
{
    char buf[32];
    struct pt2_sbuf b;

    pt2_sbuf_init(&b, buf, sizeof(buf));
    pt2_sbuf_add(&b, "sm_%u", 90u);
    pt2_sbuf_add(&b, "%s", "a");
    pt2_sbuf_add(&b, ", %s", "sm_80");
    ck_assert_str_eq(buf, "sm_90a, sm_80");
    ck_assert_uint_eq(b.len, 13);
}
END_TEST

START_TEST(test_truncates_never_overflows)
{
    char buf[8] = "xxxxxxx";
    struct pt2_sbuf b;

    pt2_sbuf_init(&b, buf, 6);
    pt2_sbuf_add(&b, "%s", "abcd");
    pt2_sbuf_add(&b, "%s", "efgh");
    pt2_sbuf_add(&b, "%s", "ijkl");
    ck_assert_str_eq(buf, "abcde");
    ck_assert_uint_eq(b.len, 5);
    ck_assert_int_eq(buf[6], 'x'); /* nothing written past cap */
}
END_TEST

START_TEST(test_zero_capacity)
{
    char buf[1] = {'z'};
    struct pt2_sbuf b;

    pt2_sbuf_init(&b, buf, 0);
    pt2_sbuf_add(&b, "%s", "abc");
    ck_assert_int_eq(buf[0], 'z');
    ck_assert_uint_eq(b.len, 0);
}
END_TEST

/* The short formats against snprintf itself, at every capacity from 1 up. */
START_TEST(test_short_formats_match_snprintf)
{
    static const unsigned nums[] = {0, 7, 9, 10, 80, 90, 100, 1000, 4294967295u};
    static const char *const strs[] = {"", "a", "sm_", "compute_", "a longer piece of text"};
    char got[40], want[40];

    for (size_t cap = 1; cap <= sizeof(got); cap++) {
        for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
            for (size_t j = 0; j < sizeof(nums) / sizeof(nums[0]); j++) {
                snprintf(want, cap, "%u.%u", nums[i], nums[j]);
                ck_assert_str_eq(pt2_sbuf_version(got, cap, nums[i], nums[j]), want);
            }
            for (size_t p = 0; p < sizeof(strs) / sizeof(strs[0]); p++) {
                for (size_t q = 0; q < sizeof(strs) / sizeof(strs[0]); q++) {
                    snprintf(want, cap, "%s%u%s", strs[p], nums[i], strs[q]);
                    ck_assert_str_eq(pt2_sbuf_tag(got, cap, strs[p], nums[i], strs[q]), want);
                }
            }
        }
        for (size_t p = 0; p < sizeof(strs) / sizeof(strs[0]); p++) {
            snprintf(want, cap, "%s", strs[p]);
            ck_assert_str_eq(pt2_sbuf_copy(got, cap, strs[p]), want);
            /* appends: puts after any prefix, as add("%s") */
            for (size_t q = 0; q < sizeof(strs) / sizeof(strs[0]); q++) {
                struct pt2_sbuf a, b;
                char ga[40], gb[40];

                pt2_sbuf_init(&a, ga, cap);
                pt2_sbuf_init(&b, gb, cap);
                pt2_sbuf_add(&a, "%s", strs[q]);
                pt2_sbuf_add(&a, "%s", strs[p]);
                pt2_sbuf_puts(&b, strs[q]);
                pt2_sbuf_puts(&b, strs[p]);
                ck_assert_str_eq(gb, ga);
                ck_assert_uint_eq(b.len, a.len);
            }
        }
    }
}
END_TEST

START_TEST(test_echo_and_trim)
{
    char b[16];

    pt2_sbuf_echo(b, sizeof(b), "ab\x1b[2Jcd\xc3\xa9", 48);
    ck_assert_str_eq(b, "ab?[2Jcd??");
    pt2_sbuf_echo(b, sizeof(b), "0123456789abcdefghij", 48);
    ck_assert_str_eq(b, "0123456789abcde"); /* the buffer's size */
    pt2_sbuf_echo(b, sizeof(b), "0123456789", 4);
    ck_assert_str_eq(b, "0123"); /* the echo cap */
    pt2_sbuf_echo(b, sizeof(b), NULL, 4);
    ck_assert_str_eq(b, "");
    ck_assert_int_eq(pt2_sbuf_trim(b, sizeof(b), " \t 12.4 \r\n"), 1);
    ck_assert_str_eq(b, "12.4");
    ck_assert_int_eq(pt2_sbuf_trim(b, sizeof(b), "   "), 1);
    ck_assert_str_eq(b, "");
    ck_assert_int_eq(pt2_sbuf_trim(b, sizeof(b), " 0123456789abcdef "), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sbuf");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_appends);
    tcase_add_test(tc, test_truncates_never_overflows);
    tcase_add_test(tc, test_zero_capacity);
    tcase_add_test(tc, test_echo_and_trim);
    tcase_add_test(tc, test_short_formats_match_snprintf);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

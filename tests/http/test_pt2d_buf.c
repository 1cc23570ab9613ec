/*
 * test_pt2d_buf.c - the capped buffer: growth, the cap, printf, detach.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_buf.h"
#include "testutil.h"

START_TEST(test_append_and_grow)
{
    struct pt2d_buf b;
    char big[1000];
    int i;

    pt2d_buf_init(&b, 100000);
    ck_assert_str_eq(pt2d_buf_str(&b), "");
    memset(big, 'x', sizeof(big));
    for (i = 0; i < 50; i++)
        ck_assert_int_eq(pt2d_buf_append(&b, big, sizeof(big)), PT2_OK);
    ck_assert_uint_eq(b.len, 50000);
    ck_assert_int_eq(b.ptr[b.len], '\0');
    ck_assert_int_eq(pt2d_buf_printf(&b, "%d-%s", 42, "z"), PT2_OK);
    ck_assert_str_eq(pt2d_buf_str(&b) + 50000, "42-z");
    pt2d_buf_free(&b);
    pt2d_buf_free(NULL);
}
END_TEST

START_TEST(test_cap_is_hard)
{
    struct pt2d_buf b;

    pt2d_buf_init(&b, 8);
    ck_assert_int_eq(pt2d_buf_puts(&b, "12345678"), PT2_OK);
    ck_assert_int_eq(pt2d_buf_puts(&b, "9"), PT2_ERR_TOO_LARGE);
    ck_assert_int_eq(pt2d_buf_printf(&b, "%s", "x"), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(pt2d_buf_str(&b), "12345678");
    ck_assert_uint_eq(b.alloc, 9);
    ck_assert_int_eq(b.failed, PT2_ERR_TOO_LARGE);
    /* A length that would overflow size_t arithmetic is refused, not wrapped. */
    ck_assert_int_eq(pt2d_buf_append(&b, "", (size_t)-1), PT2_ERR_TOO_LARGE);
    pt2d_buf_reset(&b);
    ck_assert_str_eq(pt2d_buf_str(&b), "");
    ck_assert_int_eq(pt2d_buf_puts(&b, "ok"), PT2_OK);
    pt2d_buf_free(&b);
}
END_TEST

/* After a failure every append fails, even one that would fit. */
START_TEST(test_errors_are_sticky)
{
    struct pt2d_buf b;

    pt2d_buf_init(&b, 4);
    ck_assert_int_eq(pt2d_buf_puts(&b, "abcdef"), PT2_ERR_TOO_LARGE);
    ck_assert_int_eq(pt2d_buf_puts(&b, "a"), PT2_ERR_TOO_LARGE);
    ck_assert_int_eq(pt2d_buf_printf(&b, "%d", 1), PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(pt2d_buf_str(&b), "");
    pt2d_buf_free(&b);
}
END_TEST

START_TEST(test_detach)
{
    struct pt2d_buf b;
    size_t n = 99;
    char *s;

    pt2d_buf_init(&b, 64);
    s = pt2d_buf_detach(&b, &n);
    ck_assert_str_eq(s, "");
    ck_assert_uint_eq(n, 0);
    free(s);
    pt2d_buf_puts(&b, "abc");
    s = pt2d_buf_detach(&b, &n);
    ck_assert_str_eq(s, "abc");
    ck_assert_uint_eq(n, 3);
    ck_assert_ptr_null(b.ptr);
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_buf");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_append_and_grow);
    tcase_add_test(tc, test_cap_is_hard);
    tcase_add_test(tc, test_errors_are_sticky);
    tcase_add_test(tc, test_detach);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

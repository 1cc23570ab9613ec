/*
 * test_pt2d_reqid.c - which client request ids are accepted; generated ids.
 */
#include <check.h>
#include <string.h>

#include "pt2d_reqid.h"
#include "testutil.h"

START_TEST(test_sanity)
{
    char longest[130];

    ck_assert(pt2d_reqid_is_sane("abc-123_x.y:z"));
    ck_assert(!pt2d_reqid_is_sane(""));
    ck_assert(!pt2d_reqid_is_sane("a b"));
    ck_assert(!pt2d_reqid_is_sane("a\"b"));
    ck_assert(!pt2d_reqid_is_sane("a\nb"));
    ck_assert(!pt2d_reqid_is_sane("caf\xc3\xa9"));
    memset(longest, 'a', 128);
    longest[128] = '\0';
    ck_assert(pt2d_reqid_is_sane(longest));
    longest[128] = 'a';
    longest[129] = '\0';
    ck_assert(!pt2d_reqid_is_sane(longest));
}
END_TEST

START_TEST(test_generate)
{
    char a[PT2D_REQID_MAX], b[PT2D_REQID_MAX];
    size_t i;

    pt2d_reqid_generate(a);
    pt2d_reqid_generate(b);
    ck_assert_uint_eq(strlen(a), 32);
    for (i = 0; i < 32; i++)
        ck_assert(strchr("0123456789abcdef", a[i]) != NULL);
    ck_assert_str_ne(a, b);
    ck_assert(pt2d_reqid_is_sane(a));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_reqid");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_sanity);
    tcase_add_test(tc, test_generate);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

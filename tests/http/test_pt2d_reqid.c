/*
 * test_pt2d_reqid.c - which client request ids are accepted; generated ids.
 */
#include <check.h>
#include <stdlib.h>
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

static int cmp_ids(const void *a, const void *b)
{
    return strcmp(a, b);
}

START_TEST(test_next)
{
    static char ids[1000][PT2D_REQID_MAX];
    struct pt2d_reqid_gen g, h;
    size_t i, j;

    pt2d_reqid_gen_init(&g);
    for (i = 0; i < 1000; i++) {
        pt2d_reqid_next(&g, ids[i]);
        ck_assert_uint_eq(strlen(ids[i]), 32);
        for (j = 0; j < 32; j++)
            ck_assert(strchr("0123456789abcdef", ids[i][j]) != NULL);
        ck_assert(pt2d_reqid_is_sane(ids[i]));
    }
    qsort(ids, 1000, sizeof(ids[0]), cmp_ids);
    for (i = 1; i < 1000; i++)
        ck_assert_str_ne(ids[i - 1], ids[i]);
    /* Known keys give known ids: id 0 is mix(k0) || mix(k1). */
    h.k0 = 0;
    h.k1 = 1;
    atomic_init(&h.n, 0);
    pt2d_reqid_next(&h, ids[0]);
    ck_assert_str_eq(ids[0], "00000000000000005692161d100b05e5");
    /* Another generator (new keys) starts elsewhere. */
    pt2d_reqid_gen_init(&h);
    pt2d_reqid_next(&h, ids[1]);
    pt2d_reqid_gen_init(&g);
    pt2d_reqid_next(&g, ids[2]);
    ck_assert_str_ne(ids[1], ids[2]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_reqid");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_sanity);
    tcase_add_test(tc, test_generate);
    tcase_add_test(tc, test_next);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

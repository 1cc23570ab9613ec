/*
 * test_utf8.c - UTF-8 sequence lengths (RFC 3629 edge cases) and scrubbing.
 */
#include <check.h>
#include <string.h>

#include "pt2_utf8.h"
#include "testutil.h"

static size_t seq(const char *s)
{
    return pt2_utf8_seq((const unsigned char *)s, strlen(s));
}

START_TEST(test_sequence_lengths)
{
    ck_assert_uint_eq(seq("a"), 1);
    ck_assert_uint_eq(seq("\xc3\xa9"), 2);         /* é */
    ck_assert_uint_eq(seq("\xe2\x82\xac"), 3);     /* € */
    ck_assert_uint_eq(seq("\xf0\x9f\x98\x80"), 4); /* U+1F600 */
    ck_assert_uint_eq(seq("\xc0\xaf"), 0);         /* overlong '/' */
    ck_assert_uint_eq(seq("\xe0\x80\xaf"), 0);     /* overlong, 3 bytes */
    ck_assert_uint_eq(seq("\xed\xa0\x80"), 0);     /* UTF-16 surrogate */
    ck_assert_uint_eq(seq("\xf4\x90\x80\x80"), 0); /* past U+10FFFF */
    ck_assert_uint_eq(seq("\xff"), 0);
    ck_assert_uint_eq(seq("\xe2\x82"), 0); /* truncated */
}
END_TEST

START_TEST(test_scrub)
{
    char s[] = "ok \xff\xfe \xc3\xa9 \xe2\x82 end";

    pt2_utf8_scrub(s, strlen(s));
    ck_assert_str_eq(s, "ok ?? \xc3\xa9 ?? end");
}
END_TEST

/* The scrub as it was before the eight-byte ASCII skip: one sequence at a time. */
static void scrub_ref(char *s, size_t len)
{
    unsigned char *p = (unsigned char *)s;
    size_t i = 0;

    while (i < len) {
        size_t n = pt2_utf8_seq(p + i, len - i);
        if (n == 0) {
            p[i++] = '?';
            continue;
        }
        i += n;
    }
}

/* Bad and good sequences at every offset around the 8-byte words, cut at every length. */
START_TEST(test_scrub_word_edges)
{
    static const char *const bits[] = {"\xff",         "\xc3\xa9", "\xe2\x82", "\xf0\x9f\x98\x80",
                                       "\xed\xa0\x80", "\x80"};
    char a[40], b[40];

    for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++)
        for (size_t at = 0; at < 20; at++)
            for (size_t len = 0; len <= 32; len++) {
                memset(a, 'x', sizeof(a));
                memcpy(a + at, bits[k], strlen(bits[k]));
                memcpy(b, a, sizeof(a));
                pt2_utf8_scrub(a, len);
                scrub_ref(b, len);
                ck_assert_mem_eq(a, b, sizeof(a));
            }
    memcpy(a, "abcdefgh\xffijklmno\xc3\xa9pq", 21);
    pt2_utf8_scrub(a, 20);
    ck_assert_mem_eq(a, "abcdefgh?ijklmno\xc3\xa9pq", 20);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("utf8");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_sequence_lengths);
    tcase_add_test(tc, test_scrub);
    tcase_add_test(tc, test_scrub_word_edges);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

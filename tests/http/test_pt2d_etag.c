/*
 * test_pt2d_etag.c - ETag derivation and If-None-Match matching.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "pt2d_etag.h"
#include "pt2scope.h"
#include "testutil.h"

/*
 * The tag is the first 16 bytes of SHA-256 over the NUL-terminated fields,
 * in hex. The expected values are fixed, not recomputed here: they are what
 * the daemon answered before SHA-256 came from nettle, and what
 *   printf 'schema=2\0/v1/arch\0u:abc|upload.pt2\0flags=0\0' | sha256sum | cut -c1-32
 * prints. Schema 2 (advice, scheduling, the OIP view) changed every tag
 * on purpose: a client's tag from schema 1 must not get a 304 for the new shape.
 */
START_TEST(test_make_is_sha256_of_fields)
{
    char tag[80];

    ck_assert_int_eq(PT2SCOPE_SCHEMA_VERSION, 2); /* a new schema changes every tag */
    pt2d_etag_make("/v1/arch", "u:abc|upload.pt2", "flags=0", tag, sizeof(tag));
    ck_assert_str_eq(tag, "\"8e8d586f38289ea5d9924ec17088ec0f\"");
    /* An upload's key: "u:" + the SHA-256 of its bytes ("abc", FIPS 180-4's example). */
    pt2d_etag_make("/v1/inspect",
                   "u:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad|upload.pt2",
                   "", tag, sizeof(tag));
    ck_assert_str_eq(tag, "\"8da4f6cbb60ae4e1134b0956da9b59eb\"");
}
END_TEST

START_TEST(test_make_needs_room_for_the_whole_tag)
{
    char tag[35];

    memset(tag, 'x', sizeof(tag));
    /* One byte short: no tag rather than a cut one. */
    pt2d_etag_make("/v1/arch", "k", "f", tag, 34);
    ck_assert_str_eq(tag, "");
    pt2d_etag_make("/v1/arch", "k", "f", tag, sizeof(tag));
    ck_assert_uint_eq(strlen(tag), 34);
}
END_TEST

START_TEST(test_make_separates_fields)
{
    char a[64], b[64], c[64];

    pt2d_etag_make("/v1/arch", "ab", "c", a, sizeof(a));
    pt2d_etag_make("/v1/arch", "a", "bc", b, sizeof(b));
    pt2d_etag_make("/v1/metadata", "ab", "c", c, sizeof(c));
    ck_assert_str_ne(a, b);
    ck_assert_str_ne(a, c);
    ck_assert_uint_eq(strlen(a), 34);
}
END_TEST

START_TEST(test_match)
{
    const char *t = "\"0123abcd\"";

    ck_assert(pt2d_etag_match("\"0123abcd\"", t));
    ck_assert(pt2d_etag_match("W/\"0123abcd\"", t));
    ck_assert(pt2d_etag_match("\"x\", \"0123abcd\"", t));
    ck_assert(pt2d_etag_match(" \"x\" ,W/\"0123abcd\"", t));
    ck_assert(pt2d_etag_match("*", t));
    ck_assert(!pt2d_etag_match("\"0123abc\"", t));
    ck_assert(!pt2d_etag_match("\"0123abcd", t));
    ck_assert(!pt2d_etag_match("0123abcd", t));
    ck_assert(!pt2d_etag_match("", t));
    ck_assert(!pt2d_etag_match(NULL, t));
    ck_assert(!pt2d_etag_match("*", ""));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_etag");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_make_is_sha256_of_fields);
    tcase_add_test(tc, test_make_needs_room_for_the_whole_tag);
    tcase_add_test(tc, test_make_separates_fields);
    tcase_add_test(tc, test_match);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

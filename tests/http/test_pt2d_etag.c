/*
 * test_pt2d_etag.c - ETag derivation and If-None-Match matching.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "pt2d_etag.h"
#include "pt2d_sha256.h"
#include "pt2scope.h"
#include "testutil.h"

START_TEST(test_make_is_sha256_of_fields)
{
    char tag[80], want[80], hex[PT2D_SHA256_HEX_LEN], schema[32];
    struct pt2d_sha256 s;
    uint8_t d[PT2D_SHA256_LEN];
    const char *route = "/v1/arch", *key = "u:abc|upload.pt2", *fp = "flags=0";

    pt2d_etag_make(route, key, fp, tag, sizeof(tag));
    snprintf(schema, sizeof(schema), "schema=%d", PT2SCOPE_SCHEMA_VERSION);
    pt2d_sha256_init(&s);
    pt2d_sha256_update(&s, schema, strlen(schema) + 1);
    pt2d_sha256_update(&s, route, strlen(route) + 1);
    pt2d_sha256_update(&s, key, strlen(key) + 1);
    pt2d_sha256_update(&s, fp, strlen(fp) + 1);
    pt2d_sha256_final(&s, d);
    pt2d_sha256_hex(d, 16, hex);
    snprintf(want, sizeof(want), "\"%s\"", hex);
    ck_assert_str_eq(tag, want);
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
    tcase_add_test(tc, test_make_separates_fields);
    tcase_add_test(tc, test_match);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

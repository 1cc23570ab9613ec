/*
 * test_pt2d_cors.c - Access-Control-Allow-Origin and Vary decisions.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "pt2d_cors.h"
#include "testutil.h"

static void origins(struct pt2d_config *c, const char *a, const char *b)
{
    memset(c, 0, sizeof(*c));
    if (a != NULL)
        snprintf(c->origins[c->n_origins++], PT2D_ORIGIN_MAX, "%s", a);
    if (b != NULL)
        snprintf(c->origins[c->n_origins++], PT2D_ORIGIN_MAX, "%s", b);
}

START_TEST(test_no_config)
{
    struct pt2d_config c;
    struct pt2d_cors o;

    origins(&c, NULL, NULL);
    pt2d_cors_decide(&c, "https://a.example", &o);
    ck_assert_ptr_null(o.allow_origin);
    ck_assert_int_eq(o.vary_origin, 0);
}
END_TEST

START_TEST(test_list)
{
    struct pt2d_config c;
    struct pt2d_cors o;

    origins(&c, "https://a.example", "http://b.example:8080");
    pt2d_cors_decide(&c, "http://b.example:8080", &o);
    ck_assert_str_eq(o.allow_origin, "http://b.example:8080");
    ck_assert_int_eq(o.vary_origin, 1);
    pt2d_cors_decide(&c, "http://b.example", &o); /* port is part of the origin */
    ck_assert_ptr_null(o.allow_origin);
    ck_assert_int_eq(o.vary_origin, 1);
    pt2d_cors_decide(&c, NULL, &o);
    ck_assert_ptr_null(o.allow_origin);
    ck_assert_int_eq(o.vary_origin, 1);
}
END_TEST

START_TEST(test_star)
{
    struct pt2d_config c;
    struct pt2d_cors o;

    origins(&c, "https://a.example", "*");
    pt2d_cors_decide(&c, "https://z.example", &o);
    ck_assert_str_eq(o.allow_origin, "*");
    ck_assert_int_eq(o.vary_origin, 0);
    pt2d_cors_decide(&c, NULL, &o);
    ck_assert_str_eq(o.allow_origin, "*");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_cors");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_no_config);
    tcase_add_test(tc, test_list);
    tcase_add_test(tc, test_star);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

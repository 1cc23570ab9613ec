/*
 * test_pt2d_router.c - route matching, methods, labels.
 */
#include <check.h>

#include "pt2d_router.h"
#include "testutil.h"

START_TEST(test_match)
{
    const struct pt2d_route_info *r = pt2d_router_match("/v1/inspect");

    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->id, PT2D_ROUTE_INSPECT);
    ck_assert_int_eq(r->kind, PT2D_KIND_JOB);
    ck_assert_str_eq(r->allow, "GET, HEAD, POST, OPTIONS");
    ck_assert(r->methods & PT2D_M(PT2D_METHOD_POST));
    r = pt2d_router_match("/metrics");
    ck_assert_int_eq(r->kind, PT2D_KIND_PROBE);
    ck_assert(!(r->methods & PT2D_M(PT2D_METHOD_POST)));
    ck_assert_int_eq(pt2d_router_match("/v1/validate")->id, PT2D_ROUTE_VALIDATE);
    ck_assert_ptr_null(pt2d_router_match("/v1/inspect/"));
    ck_assert_ptr_null(pt2d_router_match("/V1/inspect"));
    ck_assert_ptr_null(pt2d_router_match(""));
}
END_TEST

START_TEST(test_node_and_cluster_routes)
{
    const struct pt2d_route_info *r = pt2d_router_match("/v1/node");

    ck_assert_int_eq(r->id, PT2D_ROUTE_NODE);
    ck_assert_int_eq(r->kind,
                     PT2D_KIND_TASK); /* a refresh probes the driver: not on MHD's thread */
    ck_assert_str_eq(r->allow, "GET, HEAD, OPTIONS");
    r = pt2d_router_match("/v1/compatibility");
    ck_assert_int_eq(r->id, PT2D_ROUTE_COMPATIBILITY);
    ck_assert_int_eq(r->kind, PT2D_KIND_JOB);
    ck_assert_uint_eq(r->methods, PT2D_M(PT2D_METHOD_POST));
    ck_assert_str_eq(r->allow, "POST, OPTIONS");
    r = pt2d_router_match("/v1/cluster/compatibility");
    ck_assert_int_eq(r->id, PT2D_ROUTE_CLUSTER);
    ck_assert_int_eq(r->kind, PT2D_KIND_TASK);
    ck_assert_str_eq(pt2d_router_label(PT2D_ROUTE_CLUSTER), "/v1/cluster/compatibility");
}
END_TEST

START_TEST(test_methods_and_labels)
{
    ck_assert_int_eq(pt2d_router_method("GET"), PT2D_METHOD_GET);
    ck_assert_int_eq(pt2d_router_method("OPTIONS"), PT2D_METHOD_OPTIONS);
    ck_assert_int_eq(pt2d_router_method("get"), PT2D_METHOD_OTHER);
    ck_assert_int_eq(pt2d_router_method("PUT"), PT2D_METHOD_OTHER);
    ck_assert_str_eq(pt2d_router_method_name(PT2D_METHOD_HEAD), "HEAD");
    ck_assert_str_eq(pt2d_router_method_name(PT2D_METHOD_OTHER), "other");
    ck_assert_str_eq(pt2d_router_label(PT2D_ROUTE_ARCH), "/v1/arch");
    ck_assert_str_eq(pt2d_router_label(PT2D_ROUTE_OTHER), "other");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_router");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_match);
    tcase_add_test(tc, test_methods_and_labels);
    tcase_add_test(tc, test_node_and_cluster_routes);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

/*
 * test_pt2d_metrics.c - exposition text: exact sample lines, cumulative
 * buckets, only seen label sets, unknown statuses, gauges.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pt2d_metrics.h"
#include "testutil.h"

static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    const char *p = text;

    while ((p = strstr(p, line)) != NULL) {
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return 1;
        p += n;
    }
    return 0;
}

START_TEST(test_render)
{
    struct pt2d_metrics *m;
    struct pt2d_metrics_gauges g = {3, 64, 2, 8, 5, 10, 4, 6, 1};
    size_t len;
    char *t;

    ck_assert_int_eq(pt2d_metrics_create(&m, NULL), PT2_OK);
    pt2d_metrics_request(m, PT2D_ROUTE_INSPECT, PT2D_METHOD_POST, 200, 0.02);
    pt2d_metrics_request(m, PT2D_ROUTE_INSPECT, PT2D_METHOD_POST, 200, 3.0);
    pt2d_metrics_request(m, PT2D_ROUTE_INSPECT, PT2D_METHOD_GET, 422, 0.001);
    pt2d_metrics_request(m, PT2D_ROUTE_OTHER, PT2D_METHOD_OTHER, 418, 0.001);
    pt2d_metrics_inspection(m, 0.5, 1000);
    pt2d_metrics_inspection(m, 0.004, 24);
    pt2d_metrics_upload(m, 77);
    t = pt2d_metrics_render(m, &g, &len);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(len, strlen(t));
    ck_assert(has_line(t, "pt2scope_build_info{version=\"0.1.0\",schema_version=\"1\"} 1"));
    ck_assert(has_line(t, "# TYPE pt2scope_http_requests_total counter"));
    ck_assert(has_line(
        t, "pt2scope_http_requests_total{route=\"/v1/inspect\",method=\"POST\",status=\"200\"} 2"));
    ck_assert(has_line(
        t, "pt2scope_http_requests_total{route=\"/v1/inspect\",method=\"GET\",status=\"422\"} 1"));
    ck_assert(has_line(
        t, "pt2scope_http_requests_total{route=\"other\",method=\"other\",status=\"other\"} 1"));
    ck_assert(strstr(t, "route=\"/livez\"") == NULL); /* never seen: no series */
    ck_assert(has_line(t, "pt2scope_http_request_duration_seconds_bucket{route=\"/v1/inspect\","
                          "le=\"0.005\"} 1"));
    ck_assert(has_line(t, "pt2scope_http_request_duration_seconds_bucket{route=\"/v1/inspect\","
                          "le=\"0.025\"} 2"));
    ck_assert(has_line(t, "pt2scope_http_request_duration_seconds_bucket{route=\"/v1/inspect\","
                          "le=\"2.5\"} 2"));
    ck_assert(has_line(t, "pt2scope_http_request_duration_seconds_bucket{route=\"/v1/inspect\","
                          "le=\"5\"} 3"));
    ck_assert(has_line(t, "pt2scope_http_request_duration_seconds_bucket{route=\"/v1/inspect\","
                          "le=\"+Inf\"} 3"));
    ck_assert(has_line(t, "pt2scope_http_request_duration_seconds_sum{route=\"/v1/inspect\"} "
                          "3.021000"));
    ck_assert(has_line(t, "pt2scope_http_request_duration_seconds_count{route=\"/v1/inspect\"} 3"));
    ck_assert(has_line(t, "pt2scope_inspect_duration_seconds_bucket{le=\"0.001\"} 0"));
    ck_assert(has_line(t, "pt2scope_inspect_duration_seconds_bucket{le=\"0.005\"} 1"));
    ck_assert(has_line(t, "pt2scope_inspect_duration_seconds_bucket{le=\"0.5\"} 2"));
    ck_assert(has_line(t, "pt2scope_inspect_duration_seconds_count 2"));
    ck_assert(has_line(t, "pt2scope_bytes_read_total 1024"));
    ck_assert(has_line(t, "pt2scope_upload_bytes_total 77"));
    ck_assert(has_line(t, "pt2scope_queue_depth 3"));
    ck_assert(has_line(t, "pt2scope_queue_capacity 64"));
    ck_assert(has_line(t, "pt2scope_workers_busy 2"));
    ck_assert(has_line(t, "pt2scope_workers 8"));
    ck_assert(has_line(t, "pt2scope_inflight_requests 5"));
    ck_assert(has_line(t, "pt2scope_cache_hits_total 10"));
    ck_assert(has_line(t, "pt2scope_cache_misses_total 4"));
    ck_assert(has_line(t, "pt2scope_cache_entries 6"));
    ck_assert(has_line(t, "pt2scope_ready 1"));
    ck_assert_int_eq(t[len - 1], '\n');
    free(t);
    pt2d_metrics_free(m);
    pt2d_metrics_free(NULL);
}
END_TEST

/* Out-of-range enum values are folded into "other", never indexed out of bounds. */
START_TEST(test_out_of_range_labels)
{
    struct pt2d_metrics *m;
    struct pt2d_metrics_gauges g = {0};
    char *t;

    ck_assert_int_eq(pt2d_metrics_create(&m, NULL), PT2_OK);
    pt2d_metrics_request(m, (enum pt2d_route)99, (enum pt2d_method)99, 200, 0);
    t = pt2d_metrics_render(m, &g, NULL);
    ck_assert(has_line(
        t, "pt2scope_http_requests_total{route=\"other\",method=\"other\",status=\"200\"} 1"));
    ck_assert(has_line(t, "pt2scope_ready 0"));
    free(t);
    pt2d_metrics_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_metrics");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_render);
    tcase_add_test(tc, test_out_of_range_labels);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

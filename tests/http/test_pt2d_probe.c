/*
 * test_pt2d_probe.c - probe replies without HTTP: liveness, readiness by
 * the drain flag, metrics text, the version document.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>
#include <zip.h>

#include "pt2d_probe.h"
#include "pt2scope.h"
#include "testutil.h"

START_TEST(test_livez_readyz)
{
    struct pt2d_probe_state st = {NULL, {0}, NULL};
    struct pt2d_reply r;

    pt2d_reply_init(&r);
    pt2d_probe_run(PT2D_ROUTE_LIVEZ, &st, &r, "x");
    ck_assert_uint_eq(r.status, 200);
    ck_assert_str_eq(r.body, "ok\n");
    ck_assert_str_eq(r.content_type, "text/plain; charset=utf-8");
    st.gauges.ready = 0;
    pt2d_probe_run(PT2D_ROUTE_READYZ, &st, &r, "x");
    ck_assert_uint_eq(r.status, 503);
    ck_assert_str_eq(r.body, "draining\n");
    st.gauges.ready = 1;
    pt2d_probe_run(PT2D_ROUTE_READYZ, &st, &r, "x");
    ck_assert_uint_eq(r.status, 200);
    ck_assert_str_eq(r.body, "ok\n");
    pt2d_probe_run(PT2D_ROUTE_INSPECT, &st, &r, "x");
    ck_assert_uint_eq(r.status, 500);
    pt2d_reply_free(&r);
}
END_TEST

/* A spool that would fail every upload makes the replica unready; a working one does not. */
START_TEST(test_readyz_checks_the_spool)
{
    struct pt2d_probe_state st = {NULL, {0}, NULL};
    struct pt2d_reply r;
    char dir[] = "/tmp/pt2d-probe-XXXXXX", file[64];
    FILE *f;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    st.gauges.ready = 1;
    st.spool_dir = dir;
    pt2d_reply_init(&r);
    pt2d_probe_run(PT2D_ROUTE_READYZ, &st, &r, "x");
    ck_assert_uint_eq(r.status, 200);
    /* The check leaves nothing behind: rmdir only removes an empty directory. Then it is
     * gone (an emptyDir lost, a mount gone). */
    ck_assert_int_eq(rmdir(dir), 0);
    pt2d_probe_run(PT2D_ROUTE_READYZ, &st, &r, "x");
    ck_assert_uint_eq(r.status, 503);
    ck_assert_str_eq(r.body, "spool unavailable\n");
    /* A file where the directory should be. */
    snprintf(file, sizeof(file), "%s", dir);
    f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    pt2d_probe_run(PT2D_ROUTE_READYZ, &st, &r, "x");
    ck_assert_uint_eq(r.status, 503);
    /* Draining wins over the spool: the word says why. */
    st.gauges.ready = 0;
    pt2d_probe_run(PT2D_ROUTE_READYZ, &st, &r, "x");
    ck_assert_str_eq(r.body, "draining\n");
    ck_assert_int_eq(unlink(file), 0);
    pt2d_reply_free(&r);
}
END_TEST

START_TEST(test_metrics)
{
    struct pt2d_probe_state st = {NULL, {0}, NULL};
    struct pt2d_reply r;

    ck_assert_int_eq(pt2d_metrics_create(&st.metrics, NULL), PT2_OK);
    st.gauges.workers_total = 7;
    pt2d_reply_init(&r);
    pt2d_probe_run(PT2D_ROUTE_METRICS, &st, &r, "x");
    ck_assert_uint_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
    ck_assert(strstr(r.body, "\npt2scope_workers 7\n") != NULL);
    ck_assert_uint_eq(r.len, strlen(r.body));
    pt2d_reply_free(&r);
    pt2d_metrics_free(st.metrics);
}
END_TEST

START_TEST(test_version)
{
    cJSON *doc = pt2d_probe_version_json();
    char *s = cJSON_PrintUnformatted(doc), want[256];

    snprintf(want, sizeof(want),
             "{\"version\":\"%s\",\"schema_version\":%d,\"api\":\"v1\",\"libmicrohttpd\":\"%s\","
             "\"libzip\":\"%s\",\"cjson\":\"%s\"}",
             PT2SCOPE_VERSION, PT2SCOPE_SCHEMA_VERSION, MHD_get_version(), zip_libzip_version(),
             cJSON_Version());
    ck_assert_str_eq(s, want);
    free(s);
    cJSON_Delete(doc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pt2d_probe");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_livez_readyz);
    tcase_add_test(tc, test_readyz_checks_the_spool);
    tcase_add_test(tc, test_metrics);
    tcase_add_test(tc, test_version);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}

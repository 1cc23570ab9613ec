/*
 * test_pt2d_metrics.c - exposition text: exact sample lines, cumulative
 * buckets, only seen label sets, unknown statuses, gauges; the process_*
 * series from a fake /proc tree (exact values), from this process's own
 * /proc (names, types, sane values) and from no /proc at all (left out).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
    struct pt2d_metrics_gauges g = {3, 64, 2, 8, 5, 10, 4, 6, 777, 4096, 131072, 1, 9, 32, 4, 5};
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
    pt2d_metrics_auth_refused(m, PT2D_REFUSED_UNAUTHORIZED);
    pt2d_metrics_auth_refused(m, PT2D_REFUSED_UNAUTHORIZED);
    pt2d_metrics_auth_refused(m, (enum pt2d_metrics_refusal)7); /* ignored, never indexed */
    t = pt2d_metrics_render(m, &g, &len);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(len, strlen(t));
    ck_assert(has_line(t, "pt2scope_build_info{version=\"0.1.0\",schema_version=\"2\"} 1"));
    ck_assert(has_line(t, "# TYPE pt2scope_http_requests_total counter"));
    ck_assert(has_line(t, "pt2scope_body_memory_bytes 4096"));
    ck_assert(has_line(t, "pt2scope_cache_bytes 777"));
    ck_assert(has_line(t, "pt2scope_remote_queue_depth 9"));
    ck_assert(has_line(t, "pt2scope_remote_queue_capacity 32"));
    ck_assert(has_line(t, "pt2scope_remote_workers_busy 4"));
    ck_assert(has_line(t, "pt2scope_remote_workers 5"));
    ck_assert(has_line(t, "# TYPE pt2scope_remote_queue_depth gauge"));
    ck_assert(has_line(t, "pt2scope_body_memory_budget_bytes 131072"));
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
    ck_assert(has_line(t, "# TYPE pt2scope_auth_refused_total counter"));
    ck_assert(has_line(t, "pt2scope_auth_refused_total{reason=\"unauthorized\"} 2"));
    ck_assert(has_line(t, "pt2scope_auth_refused_total{reason=\"host-not-allowed\"} 0"));
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

/* ---- process_* ------------------------------------------------------- */

static void put_file(const char *dir, const char *name, const char *text)
{
    char p[512];
    FILE *f;

    snprintf(p, sizeof(p), "%s/%s", dir, name);
    f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(fputs(text, f), 0);
    ck_assert_int_eq(fclose(f), 0);
}

/* The number after "NAME " on its own line, or -1 when the series is absent. */
static double sample(const char *text, const char *name)
{
    size_t n = strlen(name);
    const char *p = text;

    while ((p = strstr(p, name)) != NULL) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            return strtod(p + n + 1, NULL);
        p += n;
    }
    return -1;
}

struct fake_proc {
    char root[64];
    char path[6][96];
};

/* A /proc tree: self/stat (a command name with spaces and parentheses), stat, self/fd/{0,1,2,7}. */
static void fake_proc_make(struct fake_proc *fp, const char *self_stat, const char *stat)
{
    static const char *const fds[] = {"0", "1", "2", "7"};
    char dir[128];
    size_t i;

    snprintf(fp->root, sizeof(fp->root), "/tmp/pt2d-proc-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(fp->root));
    snprintf(dir, sizeof(dir), "%s/self", fp->root);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(dir, sizeof(dir), "%s/self/fd", fp->root);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    for (i = 0; i < 4; i++)
        put_file(dir, fds[i], "");
    put_file(fp->root, "self/stat", self_stat);
    put_file(fp->root, "stat", stat);
}

static void fake_proc_remove(struct fake_proc *fp)
{
    static const char *const rel[] = {"self/fd/0", "self/fd/1", "self/fd/2", "self/fd/7",
                                      "self/fd",   "self/stat", "self",      "stat"};
    char p[160];
    size_t i;

    for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", fp->root, rel[i]);
        remove(p);
    }
    rmdir(fp->root);
}

/* proc(5) fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt
 * cmajflt utime=250 stime=100 cutime cstime priority nice threads itrealvalue
 * starttime=12345 vsize rss=2048 ... */
static const char fake_self_stat[] =
    "4242 (pt2 (x) scoped) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 100 7 8 20 0 9 0 12345 "
    "123456789 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";

START_TEST(test_process_series_from_a_fake_proc)
{
    struct fake_proc fp;
    struct pt2d_metrics *m;
    struct pt2d_metrics_gauges g = {0};
    struct pt2d_process_stats ps;
    struct rlimit rl;
    long ticks = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
    char want[128], *t;
    /* btime after a long intr line: the reader must look past its first chunk. */
    static char stat[3 * 4096];
    size_t n;

    n = (size_t)snprintf(stat, sizeof(stat), "cpu  1 2 3 4\nintr 1");
    while (n < 2 * 4096)
        n += (size_t)snprintf(stat + n, sizeof(stat) - n, " 0");
    snprintf(stat + n, sizeof(stat) - n, "\nctxt 99\nbtime 1700000000\nprocesses 5\n");
    fake_proc_make(&fp, fake_self_stat, stat);
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);

    pt2d_metrics_process_read(fp.root, &ps);
    ck_assert_uint_eq(ps.have, PT2D_PROC_CPU | PT2D_PROC_RSS | PT2D_PROC_START | PT2D_PROC_FDS |
                                   PT2D_PROC_MAXFD);
    ck_assert(ps.cpu_seconds == 350.0 / (double)ticks);
    ck_assert_uint_eq(ps.resident_bytes, 2048ull * (unsigned long long)page);
    ck_assert(ps.start_time == 1700000000.0 + 12345.0 / (double)ticks);
    ck_assert_uint_eq(ps.open_fds, 4);
    ck_assert_uint_eq(ps.max_fds, (unsigned long long)rl.rlim_cur);

    ck_assert_int_eq(pt2d_metrics_create(&m, NULL), PT2_OK);
    pt2d_metrics_set_proc_root(m, fp.root);
    t = pt2d_metrics_render(m, &g, NULL);
    ck_assert_ptr_nonnull(t);
    ck_assert(has_line(t, "# TYPE process_cpu_seconds_total counter"));
    ck_assert(has_line(t, "# HELP process_cpu_seconds_total Total user and system CPU time spent "
                          "in seconds."));
    ck_assert(has_line(t, "# TYPE process_resident_memory_bytes gauge"));
    ck_assert(has_line(t, "# TYPE process_open_fds gauge"));
    ck_assert(has_line(t, "# TYPE process_max_fds gauge"));
    ck_assert(has_line(t, "# TYPE process_start_time_seconds gauge"));
    snprintf(want, sizeof(want), "process_cpu_seconds_total %.3f", 350.0 / (double)ticks);
    ck_assert_msg(has_line(t, want), "%s", want);
    snprintf(want, sizeof(want), "process_resident_memory_bytes %llu",
             2048ull * (unsigned long long)page);
    ck_assert_msg(has_line(t, want), "%s", want);
    snprintf(want, sizeof(want), "process_start_time_seconds %.3f",
             1700000000.0 + 12345.0 / (double)ticks);
    ck_assert_msg(has_line(t, want), "%s", want);
    ck_assert(has_line(t, "process_open_fds 4"));
    snprintf(want, sizeof(want), "process_max_fds %llu", (unsigned long long)rl.rlim_cur);
    ck_assert_msg(has_line(t, want), "%s", want);
    free(t);
    pt2d_metrics_free(m);
    fake_proc_remove(&fp);
}
END_TEST

/* A truncated stat and no btime: those series are left out, the others stay. */
START_TEST(test_process_series_partial_proc)
{
    struct fake_proc fp;
    struct pt2d_process_stats ps;

    fake_proc_make(&fp, "4242 (pt2scoped) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 100 7",
                   "cpu  1 2 3 4\nctxt 99\n");
    pt2d_metrics_process_read(fp.root, &ps);
    ck_assert_uint_eq(ps.have, PT2D_PROC_CPU | PT2D_PROC_FDS | PT2D_PROC_MAXFD);
    fake_proc_remove(&fp);

    fake_proc_make(&fp, "4242 pt2scoped S 1 250 100\n", "btime x\n");
    pt2d_metrics_process_read(fp.root, &ps);
    ck_assert_uint_eq(ps.have, PT2D_PROC_FDS | PT2D_PROC_MAXFD); /* no ')': no stat fields */
    fake_proc_remove(&fp);
}
END_TEST

START_TEST(test_process_series_real_proc)
{
    struct pt2d_metrics *m;
    struct pt2d_metrics_gauges g = {0};
    struct rlimit rl;
    double now = (double)time(NULL), v;
    char *t;

    ck_assert_int_eq(pt2d_metrics_create(&m, NULL), PT2_OK);
    t = pt2d_metrics_render(m, &g, NULL);
    ck_assert_ptr_nonnull(t);
    ck_assert(has_line(t, "# TYPE process_cpu_seconds_total counter"));
    ck_assert(has_line(t, "# TYPE process_resident_memory_bytes gauge"));
    ck_assert(has_line(t, "# TYPE process_open_fds gauge"));
    ck_assert(has_line(t, "# TYPE process_max_fds gauge"));
    ck_assert(has_line(t, "# TYPE process_start_time_seconds gauge"));
    v = sample(t, "process_cpu_seconds_total");
    ck_assert(v >= 0 && v < 3600);
    v = sample(t, "process_resident_memory_bytes");
    ck_assert(v > 1e5 && v < 64e9); /* more than 100 kB, less than the machine */
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    ck_assert(sample(t, "process_max_fds") == (double)rl.rlim_cur);
    v = sample(t, "process_open_fds");
    ck_assert(v >= 3 && v <= (double)rl.rlim_cur); /* stdin, stdout, stderr at least */
    v = sample(t, "process_start_time_seconds");
    ck_assert_msg(v > now - 3600 && v <= now + 1, "start %f now %f", v, now);
    free(t);

    /* No /proc at all: the process_* series are left out, except the limit getrlimit gives. */
    pt2d_metrics_set_proc_root(m, "/nonexistent/pt2scope-proc");
    t = pt2d_metrics_render(m, &g, NULL);
    ck_assert_ptr_nonnull(t);
    ck_assert(strstr(t, "process_cpu_seconds_total") == NULL);
    ck_assert(strstr(t, "process_resident_memory_bytes") == NULL);
    ck_assert(strstr(t, "process_open_fds") == NULL);
    ck_assert(strstr(t, "process_start_time_seconds") == NULL);
    ck_assert(has_line(t, "# TYPE process_max_fds gauge"));
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
    tcase_add_test(tc, test_process_series_from_a_fake_proc);
    tcase_add_test(tc, test_process_series_partial_proc);
    tcase_add_test(tc, test_process_series_real_proc);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
